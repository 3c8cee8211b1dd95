#include "yee/run/Run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>

#include "yee/comm/LocalComm.hpp"
#if YEE_HAVE_NCCL
#include "yee/comm/NcclComm.hpp"
#endif
#include "yee/core/Bytes.hpp"
#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/detectors/DetectorSet.hpp"
#include "yee/gradient/GradientDriver.hpp"
#include "yee/run/Devices.hpp"
#include "yee/run/Restart.hpp"
#include "yee/solver/Plan.hpp"
#include "yee/solver/Tile.hpp"

namespace yee::run {

using namespace yee::solver;

namespace {
using Clock = std::chrono::steady_clock;

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

/// Per-rank driver of one tile: time loop, guard, telemetry, output assembly.
template <class T> struct TileRun {
    std::shared_ptr<const Plan> plan;
    const RunOptions& opt;
    comm::Communicator& comm;
    device::Device& dev;
    Board* board; ///< LocalComm runs only
    int devicesTotal;
    RunResult* out;                                 ///< rank 0 result
    std::vector<telemetry::PhaseProgress> phases{}; ///< this run's phases (every rank keeps the same list)
    int current = 0;                                ///< index in phases of the phase running

    void operator()() {
        comm.stats().reset(); // collective counts are per run, also on a communicator reused across runs
        dev.activate();       // CUDA: this thread drives this GPU
        comm.setStream(dev.stream()); // NCCL transfers are ordered after this device's kernels
        std::unique_ptr<Tile<T>> tile;
        std::unique_ptr<detectors::DetectorSet<T>> dets;
        std::unique_ptr<gradient::GradientDriver<T>> grad;
        // A failing tile must unblock its peers while its buffers (which they may be copying) still exist,
        // so the failure hook runs here, inside the scope that owns the tile.
        try {
            tile = std::make_unique<Tile<T>>(plan, comm.rank(), dev);
            dets = std::make_unique<detectors::DetectorSet<T>>(*tile);
            if (opt.gradient)
                grad = std::make_unique<gradient::GradientDriver<T>>(*tile, *dets,
                                                                     gradient::makeGradientPlan(*plan));
            body(*tile, *dets, grad);
        } catch (const std::exception& e) {
            comm.fail(e.what());
            throw;
        }
    }

    void body(Tile<T>& tile, detectors::DetectorSet<T>& dets,
              std::unique_ptr<gradient::GradientDriver<T>>& grad) {
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
        phases.push_back({"forward", first, p.steps, 0});
        if (grad) {
            if (const std::int64_t planned = grad->plannedRecomputeSteps(); planned > 0)
                phases.push_back({"reconstruct", 0, planned, 0});
            phases.push_back({"adjoint", 0, p.steps, 0});
        }
        for (int n = first; n < p.steps; ++n) {
            dets.beforeStep(n);
            tile.step(n, comm, opt.overlap);
            dets.record(n);
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
                phases[0].step = done;
                phases[0].seconds = std::chrono::duration<double>(now - t0).count();
                if (rank == 0 && opt.onTelemetry &&
                    (std::chrono::duration<double>(now - lastReport).count() >= opt.telemetryInterval ||
                     done == p.steps || flags[0] != 0 || flags[1] != 0)) {
                    lastReport = now;
                    report(0, phases[0].seconds, totalCells);
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
        phases[0].step = done;
        phases[0].seconds = seconds;
        double backSeconds = 0;
        if (grad && completed) {
            const auto b0 = Clock::now();
            bool cancelled = false;
            try {
                reverseSweep(*grad, totalCells, lastReport);
            } catch (const Cancelled&) {
                // Every rank stops at the same check (the flag was all-reduced); the gradient is incomplete.
                cancelled = true;
            }
            dev.sync();
            backSeconds = std::chrono::duration<double>(Clock::now() - b0).count();
            syncPhases(*grad);
            if (cancelled) {
                const auto& ph = phases[std::size_t(current)];
                status = "cancelled in the " + ph.name + " phase at step " + std::to_string(ph.step) +
                         " of " + std::to_string(ph.totalSteps) + " (no gradient)";
                completed = false;
            }
            if (rank == 0 && opt.onTelemetry)
                report(cancelled ? current : int(phases.size()) - 1, seconds + backSeconds, totalCells);
        }
        assemble(tile, dets, grad.get(), done, seconds + backSeconds, status, completed);
        out->forwardSeconds = seconds;
        out->backwardSeconds = backSeconds;
        out->phases = phases;
    }

    /// The reverse sweep with a guard every guardInterval steps of each phase: one all-reduce of the cancel
    /// flag (in that phase's collective counts), then a throttled telemetry report from rank 0.
    void reverseSweep(gradient::GradientDriver<T>& grad, std::int64_t totalCells,
                      Clock::time_point& lastReport) {
        gradient::SweepMonitor m;
        m.interval = opt.guardInterval;
        m.check = [&](comm::Phase ph, std::int64_t, std::int64_t, double) {
            double flag = (opt.cancel && opt.cancel->load()) ? 1.0 : 0.0;
            comm.allReduceMax(std::span<double>(&flag, 1), ph);
            publish();
            syncPhases(grad);
            current = ph == comm::Phase::Reconstruct ? phaseIndex("reconstruct") : phaseIndex("adjoint");
            const auto now = Clock::now();
            if (rank0() && opt.onTelemetry &&
                (std::chrono::duration<double>(now - lastReport).count() >= opt.telemetryInterval ||
                 flag != 0)) {
                lastReport = now;
                report(current, elapsedSeconds(), totalCells);
            }
            return flag != 0;
        };
        grad.setMonitor(std::move(m));
        current = phaseIndex(phases.size() > 2 ? "reconstruct" : "adjoint");
        grad.backward(comm);
    }

    bool rank0() const { return comm.rank() == 0; }

    /// Wall time of the phases so far (s).
    double elapsedSeconds() const {
        double t = 0;
        for (const auto& ph : phases)
            t += ph.seconds;
        return t;
    }

    int phaseIndex(const char* name) const {
        for (std::size_t i = 0; i < phases.size(); ++i)
            if (phases[i].name == name)
                return int(i);
        return 0;
    }

    /// The reverse-sweep phases' steps and wall time, from the driver.
    void syncPhases(const gradient::GradientDriver<T>& grad) {
        for (auto& ph : phases) {
            const gradient::SweepPhase* g = ph.name == "reconstruct" ? &grad.reconstructPhase()
                                            : ph.name == "adjoint"   ? &grad.adjointPhase()
                                                                     : nullptr;
            if (g) {
                ph.step = g->steps;
                ph.seconds = g->seconds;
            }
        }
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

    /// Rank 0: one report for phase `index` of `phases`, `elapsed` seconds into the run.
    void report(int index, double elapsed, std::int64_t totalCells) {
        const telemetry::PhaseProgress& ph = phases[std::size_t(index)];
        telemetry::Report r;
        r.phase = ph.name;
        r.step = int(ph.step);
        r.totalSteps = int(ph.totalSteps);
        r.elapsedSeconds = elapsed;
        r.stepsPerSecond = ph.stepsPerSecond();
        r.cellUpdatesPerSecond = r.stepsPerSecond * double(totalCells);
        r.phases = phases;
        r.remainingSeconds = telemetry::remainingSeconds(phases);
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

    void assemble(Tile<T>& tile, const detectors::DetectorSet<T>& dets, gradient::GradientDriver<T>* grad,
                  int done, double seconds, const std::string& status, bool completed) {
        const Plan& p = *plan;
        // ---- 1. exact sums of the detectors' series: one integer all-reduce for all detectors ----
        std::vector<std::int64_t> sums = dets.sums();
        comm.allReduceSumInt(std::span<std::int64_t>(sums), comm::Phase::Output);
        // ---- 2. per-cell data (phasors, probes, snapshots) and device summaries: one gather ----
        ByteWriter w;
        putSummary(w, summarize(dev, tile.box(), comm.stats()));
        dets.write(w);
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

        std::vector<ByteReader*> rds;
        for (auto& rd : readers)
            rds.push_back(rd.get());
        detectors::assemble(p, done, sums, rds, r.detectors, r.snapshots);
        r.objective = detectors::evaluateObjective(p, r.detectors);
        if (withGrad) {
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
            detectors::DetectorSet<T> dets(tile);
            if (o.gradient) {
                gradient::GradientDriver<T> g(tile, dets, gradient::makeGradientPlan(*plan));
                if (t == 0)
                    e.recomputeSteps = g.plannedRecomputeSteps();
            }
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
    detectors::planDetectors(*plan);
    return o.precision == Precision::Float64 ? estimateTyped<double>(plan, o) : estimateTyped<float>(plan, o);
}

RunResult run(const scene::Scene& s, const RunOptions& o) {
    validateOptions(s, o);
    auto plan = makePlan(s, solver::PlanOptions{o.tiles, o.maxSteps});
    detectors::planDetectors(*plan);
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
