#include "yee/run/Run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <mutex>

#include "yee/comm/LocalComm.hpp"
#if YEE_HAVE_NCCL
#include "yee/comm/NcclComm.hpp"
#endif
#include "yee/core/Bytes.hpp"
#include "yee/core/Error.hpp"
#include "yee/core/ExactSum.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/gradient/GradientDriver.hpp"
#include "yee/run/Devices.hpp"
#include "yee/run/Restart.hpp"
#include "yee/solver/Plan.hpp"
#include "yee/solver/Tile.hpp"

namespace yee::run {

using namespace yee::solver;

namespace {
using Clock = std::chrono::steady_clock;
constexpr int kSumWords = ExactSum::kWords + 1;

/// Live state shared by the ranks of a LocalComm run for telemetry (copied under a mutex).
struct Board {
    std::mutex m;
    std::vector<telemetry::DeviceReport> devices;
};

DeviceSummary summarize(device::Device& dev, const Box& tile, const comm::CommStats& st) {
    DeviceSummary d;
    d.name = dev.name();
    d.tile = tile;
    d.capacity = dev.capacity();
    d.memory = dev.ledger().snapshot();
    d.comm = st;
    d.driverBytes = dev.dryRun() ? -1 : dev.driverUsedBytes();
    return d;
}

void putSummary(ByteWriter& w, const DeviceSummary& d) {
    w.putString(d.name);
    w.put(d.tile);
    w.put(d.capacity);
    w.put(d.memory);
    w.put(d.comm);
    w.put(d.driverBytes);
}
DeviceSummary getSummary(ByteReader& r) {
    DeviceSummary d;
    d.name = r.getString();
    d.tile = r.get<Box>();
    d.capacity = r.get<std::int64_t>();
    d.memory = r.get<device::LedgerSnapshot>();
    d.comm = r.get<comm::CommStats>();
    d.driverBytes = r.get<std::int64_t>();
    return d;
}

/// Objective from assembled detectors (rank 0).
std::optional<double> evaluateObjective(const Plan& p, const std::vector<DetectorResult>& dets) {
    const scene::Objective& obj = p.scene.objective;
    if (!obj.defined())
        return std::nullopt;
    double total = 0;
    for (const auto& t : obj.terms) {
        const DetectorResult* dr = nullptr;
        const DetectorPlan* dp = nullptr;
        for (std::size_t i = 0; i < dets.size(); ++i)
            if (dets[i].name == t.detector) {
                dr = &dets[i];
                dp = &p.detectors[i];
            }
        if (!dr)
            throw InputError("objective.terms: unknown detector \"" + t.detector + "\"");
        double v = 0;
        const char* series = t.quantity == scene::Quantity::Energy ? "energy" : "flux";
        if (dp->type == scene::DetectorType::Phasor) {
            // Phasor power: sum over cells and components of |X(lambda)|^2 at the nearest wavelength.
            const NamedArray* wl = dr->find("wavelengths_um");
            if (!wl || wl->data.empty())
                throw InputError("objective.terms: detector \"" + t.detector + "\" has no wavelengths");
            std::size_t best = 0;
            for (std::size_t i = 1; i < wl->data.size(); ++i)
                if (std::abs(wl->data[i] - t.wavelength) < std::abs(wl->data[best] - t.wavelength))
                    best = i;
            for (const auto& a : dr->arrays) {
                if (a.shape.size() != 4)
                    continue;
                const std::int64_t per = a.shape[1] * a.shape[2] * a.shape[3];
                for (std::int64_t c = 0; c < per; ++c) {
                    const double x = a.data[std::size_t(std::int64_t(best) * per + c)];
                    v += x * x;
                }
            }
        } else if (t.reduce == scene::Reduce::AtWavelength || t.quantity == scene::Quantity::PhasorPower) {
            const NamedArray* wl = dr->find("wavelengths_um");
            const NamedArray* pw = dr->find("power");
            if (!wl || !pw || wl->data.empty())
                throw InputError("objective.terms: detector \"" + t.detector + "\" has no wavelengths");
            std::size_t best = 0;
            for (std::size_t i = 1; i < wl->data.size(); ++i)
                if (std::abs(wl->data[i] - t.wavelength) < std::abs(wl->data[best] - t.wavelength))
                    best = i;
            v = pw->data[best];
        } else {
            const NamedArray* s = dr->find(series);
            if (!s)
                throw InputError("objective.terms: detector \"" + t.detector + "\" has no " + series);
            if (t.reduce == scene::Reduce::Final)
                v = s->data.empty() ? 0 : s->data.back();
            else {
                for (double x : s->data)
                    v += x;
                v *= p.dt * dp->every;
            }
        }
        total += t.weight * v;
    }
    return total;
}

/// Per-rank driver of one tile: time loop, guard, telemetry, output assembly.
template <class T> struct TileRun {
    std::shared_ptr<const Plan> plan;
    const RunOptions& opt;
    comm::Communicator& comm;
    device::Device& dev;
    Board* board; ///< LocalComm runs only
    int devicesTotal;
    RunResult* out; ///< rank 0 result

    void operator()() {
        comm.stats().reset(); // collective counts are per run, also on a communicator reused across runs
        dev.activate();       // CUDA: this thread drives this GPU
        comm.setStream(dev.stream()); // NCCL transfers are ordered after this device's kernels
        std::unique_ptr<Tile<T>> tile;
        std::unique_ptr<gradient::GradientDriver<T>> grad;
        // A failing tile must unblock its peers while its buffers (which they may be copying) still exist,
        // so the failure hook runs here, inside the scope that owns the tile.
        try {
            tile = std::make_unique<Tile<T>>(plan, comm.rank(), dev);
            if (opt.gradient)
                grad =
                    std::make_unique<gradient::GradientDriver<T>>(*tile, gradient::makeGradientPlan(*plan));
            body(*tile, grad);
        } catch (const std::exception& e) {
            comm.fail(e.what());
            throw;
        }
    }

    void body(Tile<T>& tile, std::unique_ptr<gradient::GradientDriver<T>>& grad) {
        const Plan& p = *plan;
        const int rank = comm.rank();
        tile.fill();
        // ---- restart: continue from every tile's saved state (bit-identical to never stopping) ----
        const bool restartFiles = !opt.resumeFrom.empty() || !opt.checkpointPath.empty();
        const RestartKey restart = restartFiles ? restartKey(p.scene, opt) : RestartKey{};
        const int first = opt.resumeFrom.empty() ? 0 : loadRestart(opt.resumeFrom, tile, comm, restart);
        const auto t0 = Clock::now();
        auto lastReport = t0;
        int done = first;
        std::string status = "completed";
        bool completed = true;
        const std::int64_t totalCells = std::int64_t(p.geom.cells[0]) * p.geom.cells[1] * p.geom.cells[2];
        for (int n = first; n < p.steps; ++n) {
            tile.step(n, comm, opt.overlap);
            tile.record(n);
            if (grad)
                grad->afterForwardStep(n, comm);
            done = n + 1;
            // A restart step is also a guard step, so no restart file ever holds a diverged state.
            const bool checkpointDue =
                opt.checkpointEvery > 0 && done % opt.checkpointEvery == 0 && done < p.steps;
            if (done % std::max(1, opt.guardInterval) == 0 || done == p.steps || checkpointDue) {
                // One all-reduce per guard interval: every rank learns about divergence or cancel at once.
                double flags[2] = {tile.finite() ? 0.0 : 1.0, (opt.cancel && opt.cancel->load()) ? 1.0 : 0.0};
                comm.allReduceMax(std::span<double>(flags, 2), comm::Phase::Forward);
                publish();
                const auto now = Clock::now();
                if (rank == 0 && opt.onTelemetry &&
                    (std::chrono::duration<double>(now - lastReport).count() >= opt.telemetryInterval ||
                     done == p.steps || flags[0] != 0 || flags[1] != 0)) {
                    lastReport = now;
                    report(done, std::chrono::duration<double>(now - t0).count(), totalCells);
                }
                if (flags[0] != 0) {
                    status = "diverged: non-finite field at step " + std::to_string(done) +
                             " (checked every " + std::to_string(opt.guardInterval) + " steps)";
                    completed = false;
                    break;
                }
                // Restart file every N steps, and a last one when cancelled (e.g. SLURM's time-limit signal).
                if (checkpointDue || (flags[1] != 0 && !opt.checkpointPath.empty()))
                    saveRestart(opt.checkpointPath, tile, comm, restart, done);
                if (flags[1] != 0) {
                    status = "cancelled at step " + std::to_string(done);
                    completed = false;
                    break;
                }
            }
        }
        tile.finishPending(comm);
        dev.sync(); // the time loop's work is done before the clock stops and the host reads results
        const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        double backSeconds = 0;
        if (grad && completed) {
            const auto b0 = Clock::now();
            grad->backward(comm);
            dev.sync();
            backSeconds = std::chrono::duration<double>(Clock::now() - b0).count();
            if (rank == 0 && opt.onTelemetry)
                report(done, seconds + backSeconds, totalCells, "adjoint");
        }
        assemble(tile, grad.get(), done, seconds, status, completed);
        out->forwardSeconds = seconds;
        out->backwardSeconds = backSeconds;
    }

    void publish() {
        if (!board)
            return;
        std::lock_guard<std::mutex> lk(board->m);
        auto& d = board->devices[std::size_t(comm.rank())];
        d.device = comm.rank();
        d.name = dev.name();
        d.capacity = dev.capacity();
        d.memory = dev.ledger().snapshot();
        d.comm = comm.stats();
    }

    void report(int step, double elapsed, std::int64_t totalCells, const char* phase = "forward") {
        telemetry::Report r;
        r.phase = phase;
        r.step = step;
        r.totalSteps = plan->steps;
        r.elapsedSeconds = elapsed;
        r.stepsPerSecond = elapsed > 0 ? step / elapsed : 0;
        r.cellUpdatesPerSecond = r.stepsPerSecond * double(totalCells);
        if (board) {
            std::lock_guard<std::mutex> lk(board->m);
            r.devices = board->devices;
        } else {
            telemetry::DeviceReport d;
            d.device = comm.rank();
            d.name = dev.name();
            d.capacity = dev.capacity();
            d.memory = dev.ledger().snapshot();
            d.comm = comm.stats();
            r.devices.push_back(d);
        }
        opt.onTelemetry(r);
    }

    void assemble(Tile<T>& tile, gradient::GradientDriver<T>* grad, int done, double seconds,
                  const std::string& status, bool completed) {
        const Plan& p = *plan;
        using DT = scene::DetectorType;
        auto& dets = tile.detectors();
        // ---- 1. exact sums of flux / energy series: one integer all-reduce for all detectors ----
        std::vector<std::int64_t> sums;
        for (auto& d : dets)
            if (d.sums.allocated())
                sums.insert(sums.end(), d.sums.data(), d.sums.data() + d.sums.size());
        comm.allReduceSumInt(std::span<std::int64_t>(sums), comm::Phase::Output);
        // ---- 2. per-cell data (phasors, probes, snapshots) and device summaries: one gather ----
        ByteWriter w;
        putSummary(w, summarize(dev, tile.box(), comm.stats()));
        for (auto& d : dets) {
            w.put(d.own);
            w.putArray(d.phasor.data(), d.phasor.size());
            w.putArray(d.probeSlots.data(), std::int64_t(d.probeSlots.size()));
            w.putArray(d.series.data(), d.series.size());
            w.put(d.snapOwn);
            w.putArray(d.snap.data(), d.snap.size());
        }
        const bool withGrad = grad && completed;
        if (withGrad) {
            grad->serialize(w);
            w.put(grad->recomputedSteps());
            w.put(grad->drift());
        }
        std::vector<std::vector<char>> blobs;
        comm.gather(w.buffer(), blobs, 0, comm::Phase::Output);
        if (comm.rank() != 0) {
            // Other ranks: their own device summary and the run status; detectors live on rank 0.
            out->devices.push_back(summarize(dev, tile.box(), comm.stats()));
            out->completed = completed;
            out->status = status;
            out->steps = done;
            out->totalSteps = p.steps;
            return;
        }
        RunResult& r = *out;
        r.completed = completed;
        r.status = status;
        r.steps = done;
        r.totalSteps = p.steps;
        r.dt = p.dt;
        r.dtFs = p.dtFs;
        r.seconds = seconds;
        r.cellUpdates = std::int64_t(done) * p.geom.cells[0] * p.geom.cells[1] * p.geom.cells[2];
        r.gridCells = p.geom.cells;
        const int N = int(blobs.size());
        std::vector<std::unique_ptr<ByteReader>> readers;
        for (int q = 0; q < N; ++q) {
            readers.push_back(std::make_unique<ByteReader>(blobs[std::size_t(q)]));
            DeviceSummary ds = getSummary(*readers.back());
            // The summaries were taken just before the gather; every rank made exactly that one call.
            ds.comm.count(comm::Phase::Output, comm::Kind::Gather,
                          q == 0 ? 0 : std::int64_t(blobs[std::size_t(q)].size()));
            r.devices.push_back(ds);
        }
        if (!r.devices.empty())
            r.devices[0] = summarize(dev, tile.box(), comm.stats());

        std::size_t sumPos = 0;
        for (std::size_t di = 0; di < dets.size(); ++di) {
            const DetectorPlan& dp = p.detectors[di];
            DetectorResult res;
            res.name = dp.name;
            struct Part {
                Box own, snapOwn;
                std::vector<double> phasor, series;
                std::vector<int> slots;
                std::vector<float> snap;
            };
            std::vector<Part> parts(static_cast<std::size_t>(N));
            for (int q = 0; q < N; ++q) {
                ByteReader& rd = *readers[std::size_t(q)];
                Part& pt = parts[std::size_t(q)];
                pt.own = rd.get<Box>();
                pt.phasor = rd.getArray<double>();
                pt.slots = rd.getArray<int>();
                pt.series = rd.getArray<double>();
                pt.snapOwn = rd.get<Box>();
                pt.snap = rd.getArray<float>();
            }
            const int S = std::min(dp.samples, done / dp.every);
            NamedArray time{"time_fs", {S}, {}};
            for (int s = 0; s < S; ++s)
                time.data.push_back((s + 1) * dp.every * p.dtFs);
            const std::int64_t nl = std::int64_t(dp.omegas.size());
            const Box& gb = dp.box;
            const std::int64_t gcells = gb.cells();
            auto gidx = [&](int i, int j, int k) {
                return std::int64_t(i - gb.lo[0]) +
                       std::int64_t(gb.extent(0)) *
                           (std::int64_t(j - gb.lo[1]) + std::int64_t(gb.extent(1)) * (k - gb.lo[2]));
            };
            // Scatter per-cell records of every part into global order.
            auto gatherCells = [&](std::int64_t per) {
                std::vector<double> g(std::size_t(gcells * per), 0.0);
                for (const Part& pt : parts) {
                    if (pt.own.empty())
                        continue;
                    std::int64_t idx = 0;
                    for (int k = pt.own.lo[2]; k < pt.own.hi[2]; ++k)
                        for (int j = pt.own.lo[1]; j < pt.own.hi[1]; ++j)
                            for (int i = pt.own.lo[0]; i < pt.own.hi[0]; ++i, ++idx)
                                std::copy_n(pt.phasor.data() + idx * per, per,
                                            g.data() + gidx(i, j, k) * per);
                }
                return g;
            };
            auto exactSeries = [&]() {
                NamedArray a{"", {S}, {}};
                for (int s = 0; s < dp.samples; ++s) {
                    ExactSum e;
                    const std::int64_t* wds = sums.data() + sumPos + std::size_t(s) * kSumWords;
                    std::copy(wds, wds + ExactSum::kWords, e.words().begin());
                    double v = wds[ExactSum::kWords] != 0 ? std::nan("") : e.value();
                    if (s < S)
                        a.data.push_back(v);
                }
                sumPos += std::size_t(dp.samples) * kSumWords;
                return a;
            };
            switch (dp.type) {
            case DT::Flux: {
                res.type = "flux";
                NamedArray f = exactSeries();
                f.name = "flux";
                res.arrays.push_back(time);
                res.arrays.push_back(f);
                std::vector<double> g = gatherCells(nl * 8);
                NamedArray wl{"wavelengths_um", {nl}, dp.wavelengths};
                NamedArray pw{"power", {nl}, std::vector<double>(std::size_t(nl), 0.0)};
                for (std::int64_t w = 0; w < nl; ++w) {
                    double acc = 0;
                    for (std::int64_t c = 0; c < gcells; ++c) {
                        const double* ph = g.data() + (c * nl + w) * 8;
                        const std::complex<double> ep(ph[0], ph[1]), eq(ph[2], ph[3]), hp(ph[4], ph[5]),
                            hq(ph[6], ph[7]);
                        acc += 0.5 * (ep * std::conj(hq) - eq * std::conj(hp)).real();
                    }
                    pw.data[std::size_t(w)] = dp.sign * acc;
                }
                res.arrays.push_back(wl);
                res.arrays.push_back(pw);
                res.attrs["normal"] = dp.normal;
                res.attrs["sign"] = dp.sign;
                break;
            }
            case DT::Energy: {
                res.type = "energy";
                NamedArray e = exactSeries();
                e.name = "energy";
                res.arrays.push_back(time);
                res.arrays.push_back(e);
                break;
            }
            case DT::Phasor: {
                res.type = "phasor";
                const std::int64_t nc = std::int64_t(dp.comps.size());
                std::vector<double> g = gatherCells(nc * nl * 2);
                res.arrays.push_back(NamedArray{"wavelengths_um", {nl}, dp.wavelengths});
                for (std::int64_t c = 0; c < nc; ++c) {
                    NamedArray re{std::string(componentName(dp.comps[std::size_t(c)])) + "_re",
                                  {nl, gb.extent(2), gb.extent(1), gb.extent(0)},
                                  {}};
                    NamedArray im = re;
                    im.name = std::string(componentName(dp.comps[std::size_t(c)])) + "_im";
                    for (std::int64_t w = 0; w < nl; ++w)
                        for (std::int64_t cell = 0; cell < gcells; ++cell) {
                            const double* ph = g.data() + ((cell * nc + c) * nl + w) * 2;
                            re.data.push_back(ph[0]);
                            im.data.push_back(ph[1]);
                        }
                    res.arrays.push_back(std::move(re));
                    res.arrays.push_back(std::move(im));
                }
                break;
            }
            case DT::Probe: {
                res.type = "probe";
                res.arrays.push_back(time);
                for (std::size_t c = 0; c < dp.comps.size(); ++c) {
                    NamedArray a{componentName(dp.comps[c]), {S}, std::vector<double>(std::size_t(S), 0.0)};
                    for (const Part& pt : parts)
                        for (std::size_t q = 0; q < pt.slots.size(); ++q)
                            if (pt.slots[q] == int(c))
                                for (int s = 0; s < S; ++s)
                                    a.data[std::size_t(s)] = pt.series[std::size_t(s) * pt.slots.size() + q];
                    res.arrays.push_back(std::move(a));
                }
                break;
            }
            case DT::Snapshot: {
                res.type = "snapshot";
                std::array<int, 3> dims{};
                for (int a = 0; a < 3; ++a)
                    dims[a] = (gb.extent(a) + dp.down - 1) / dp.down;
                const std::int64_t npts = std::int64_t(dims[0]) * dims[1] * dims[2];
                const std::int64_t nc = std::int64_t(dp.comps.size());
                for (int s = 0; s < S; ++s)
                    for (std::int64_t c = 0; c < nc; ++c) {
                        Snapshot sn;
                        sn.detector = dp.name;
                        sn.component = componentName(dp.comps[std::size_t(c)]);
                        sn.step = (s + 1) * dp.every;
                        sn.timeFs = sn.step * p.dtFs;
                        sn.dims = dims;
                        for (int a = 0; a < 3; ++a) {
                            sn.originUm[a] = p.geom.position(dp.comps[std::size_t(c)], a, gb.lo[a]);
                            sn.spacingUm[a] = p.geom.cellUm * dp.down;
                        }
                        sn.data.assign(std::size_t(npts), 0.f);
                        for (const Part& pt : parts) {
                            const std::int64_t pts = pt.snapOwn.cells();
                            if (pts <= 0)
                                continue;
                            const float* src = pt.snap.data() + (std::int64_t(s) * nc + c) * pts;
                            std::int64_t idx = 0;
                            for (int k = pt.snapOwn.lo[2]; k < pt.snapOwn.hi[2]; ++k)
                                for (int j = pt.snapOwn.lo[1]; j < pt.snapOwn.hi[1]; ++j)
                                    for (int i = pt.snapOwn.lo[0]; i < pt.snapOwn.hi[0]; ++i, ++idx)
                                        sn.data[std::size_t(i + dims[0] * (j + std::int64_t(dims[1]) * k))] =
                                            src[idx];
                        }
                        r.snapshots.push_back(std::move(sn));
                    }
                res.attrs["samples"] = S;
                break;
            }
            }
            r.detectors.push_back(std::move(res));
        }
        r.objective = evaluateObjective(p, r.detectors);
        if (withGrad) {
            std::vector<ByteReader*> rds;
            for (auto& rd : readers)
                rds.push_back(rd.get());
            // Each blob continues with its gradient part, then its counters.
            std::vector<std::int64_t> recomputed(readers.size());
            std::vector<double> drift(readers.size());
            std::vector<solver::NamedArray> g;
            // Read every tile's gradient arrays (in rank order) and place them in global order.
            g = gradient::GradientDriver<T>::assembleWith(p, rds, recomputed, drift);
            r.gradients = std::move(g);
            r.recomputedSteps = recomputed.empty() ? 0 : recomputed[0];
            for (double d : drift)
                r.reconstructionDrift = std::max(r.reconstructionDrift, d);
        }
    }
};

template <class T> RunResult runTyped(std::shared_ptr<const Plan> plan, const RunOptions& o) {
    RunResult result;
    const int N = plan->tiles->count();
    if (o.communicator) {
        auto dev = makeDevice(o, o.communicator->rank(), 1, false);
        TileRun<T> tr{plan, o, *o.communicator, *dev, nullptr, N, &result};
        tr();
        return result;
    }
    Board board;
    board.devices.resize(std::size_t(N));
    std::vector<std::unique_ptr<device::Device>> devs;
    for (int t = 0; t < N; ++t)
        devs.push_back(makeDevice(o, t, N, false));
    std::vector<RunResult> perRank(static_cast<std::size_t>(N));
    auto body = [&](comm::Communicator& c) {
        TileRun<T> tr{plan, o, c, *devs[std::size_t(c.rank())], &board, N, &perRank[std::size_t(c.rank())]};
        tr();
    };
#if YEE_HAVE_NCCL
    std::vector<int> ids;
    for (auto& d : devs)
        ids.push_back(d->id());
    std::vector<int> distinct = ids;
    std::sort(distinct.begin(), distinct.end());
    // NCCL needs one GPU per rank; tiles sharing a GPU exchange through LocalComm.
    if (o.backend == Backend::Cuda && o.nccl && N > 1 && comm::ncclLoadable() &&
        std::adjacent_find(distinct.begin(), distinct.end()) == distinct.end()) {
        comm::NcclHub hub(ids);
        hub.run([&](comm::NcclComm& c) { body(c); });
        return std::move(perRank[0]);
    }
#endif
    comm::LocalHub hub(N);
    hub.run([&](comm::LocalComm& c) { body(c); });
    result = std::move(perRank[0]);
    return result;
}

template <class T> Estimate estimateTyped(std::shared_ptr<const Plan> plan, const RunOptions& o) {
    Estimate e;
    e.gridCells = plan->geom.cells;
    e.steps = plan->steps;
    const int N = plan->tiles->count();
    const bool mpi = o.communicator != nullptr;
    for (int t = 0; t < N; ++t) {
        // A dry run of exactly the run's allocations on a device of the same kind (so GPU-only buffers
        // are counted), against the capacity the run will have.
        const auto dev = makeDevice(o, t, mpi ? 1 : N, true);
        {
            Tile<T> tile(plan, t, *dev);
            if (o.gradient)
                gradient::GradientDriver<T> g(tile, gradient::makeGradientPlan(*plan));
        }
        DeviceSummary d;
        d.name = mpi && o.backend == Backend::Cpu ? "rank:" + std::to_string(t) : dev->name();
        d.tile = plan->tiles->tile(t).box;
        d.capacity = capacityFor(o, t, mpi ? 1 : N);
        d.memory = dev->ledger().snapshot();
        e.devices.push_back(d);
    }
    return e;
}
} // namespace

RunOptions RunOptions::fromScene(const scene::Scene& s) {
    RunOptions o;
    o.precision = s.run.precision == "float64" ? Precision::Float64 : Precision::Float32;
    o.tiles = s.run.tiles;
    const int tiles = o.tiles[0] * o.tiles[1] * o.tiles[2];
    selectDevices(s.run.devices, "run.devices", tiles, o);
    o.overlap = s.run.overlap;
    return o;
}

std::int64_t Estimate::maxDevicePeak() const {
    std::int64_t m = 0;
    for (auto& d : devices)
        m = std::max(m, d.memory.peakTotal);
    return m;
}
std::int64_t Estimate::totalPeak() const {
    std::int64_t m = 0;
    for (auto& d : devices)
        m += d.memory.peakTotal;
    return m;
}

void validateOptions(const scene::Scene& s, const RunOptions& o) {
    const int tiles = o.tiles[0] * o.tiles[1] * o.tiles[2];
    for (int a = 0; a < 3; ++a)
        if (o.tiles[a] < 1)
            throw InputError("run.tiles[" + std::to_string(a) + "]: must be >= 1 (got " +
                             std::to_string(o.tiles[a]) + ")");
    if (o.communicator) {
        if (o.communicator->size() != tiles)
            throw InputError("run.tiles: " + std::to_string(tiles) + " tiles need " + std::to_string(tiles) +
                             " ranks, but the job has " + std::to_string(o.communicator->size()));
    } else if (o.backend == Backend::Cuda && int(o.gpus.size()) < tiles) {
        throw InputError("run.tiles: " + std::to_string(tiles) + " tiles need " + std::to_string(tiles) +
                         " GPUs, but only " + std::to_string(o.gpus.size()) + " are selected (run.devices)");
    } else if (o.devices < tiles) {
        throw InputError("run.tiles: " + std::to_string(tiles) + " tiles need " + std::to_string(tiles) +
                         " devices, but only " + std::to_string(o.devices) + " are available (run.devices)");
    }
    if (o.guardInterval < 1)
        throw InputError("run.guard_interval: must be >= 1");
    if (o.backend == Backend::Cuda) {
        if (o.gpus.empty())
            throw InputError("run.devices: the CUDA backend needs at least one GPU id");
        const int visible = cuda::deviceCount();
        for (int id : o.gpus)
            if (id < 0 || id >= visible)
                throw InputError(
                    "run.devices: GPU " + std::to_string(id) + " is not available (" +
                    (visible == 0 ? cuda::unavailableReason() : std::to_string(visible) + " visible") + ")");
    }
    checkRestartOptions(s, o); // restart files: options, and the headers of the files to resume from
}

Estimate estimate(const scene::Scene& s, const RunOptions& o) {
    validateOptions(s, o);
    auto plan = makePlan(s, solver::PlanOptions{o.tiles, o.maxSteps});
    return o.precision == Precision::Float64 ? estimateTyped<double>(plan, o) : estimateTyped<float>(plan, o);
}

RunResult run(const scene::Scene& s, const RunOptions& o) {
    validateOptions(s, o);
    auto plan = makePlan(s, solver::PlanOptions{o.tiles, o.maxSteps});
    // Refuse before allocating: the dry run of the same allocation path gives every device's peak.
    Estimate e =
        o.precision == Precision::Float64 ? estimateTyped<double>(plan, o) : estimateTyped<float>(plan, o);
    for (const auto& d : e.devices)
        if (d.memory.peakTotal > d.capacity)
            throw MemoryError(d.name + ": needs " + device::formatBytes(d.memory.peakTotal) + " but has " +
                              device::formatBytes(d.capacity) + " (reduce the grid or use more tiles)");
    return o.precision == Precision::Float64 ? runTyped<double>(plan, o) : runTyped<float>(plan, o);
}

} // namespace yee::run
