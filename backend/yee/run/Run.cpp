#include "yee/run/Run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <sstream>
#include <thread>

#include "yee/comm/LocalComm.hpp"
#if YEE_HAVE_NCCL
#include "yee/comm/NcclComm.hpp"
#endif
#include "yee/core/Bytes.hpp"
#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/detectors/DetectorSet.hpp"
#include "yee/gradient/GradientDriver.hpp"
#include "yee/modes/ModeCache.hpp"
#include "yee/run/Devices.hpp"
#include "yee/run/OutputGuard.hpp"
#include "yee/run/Restart.hpp"
#include "yee/run/Session.hpp"
#include "yee/scene/Rasterizer.hpp"
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

DeviceSummary summarize(device::Device& dev, const Box& tile, const comm::Communicator& c) {
    const comm::CommStats& st = c.stats();
    DeviceSummary d;
    d.deviceMessages = c.deviceMessages();
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
    w.put(d.deviceMessages);
}
DeviceSummary getSummary(ByteReader& r) {
    DeviceSummary d;
    d.name = r.getString();
    d.tile = r.get<Box>();
    d.capacity = r.get<std::int64_t>();
    d.memory = r.get<device::LedgerSnapshot>();
    d.comm = r.get<comm::CommStats>();
    d.driverBytes = r.get<std::int64_t>();
    d.deviceMessages = r.get<bool>();
    return d;
}

/// Writes a restart file; a file that cannot be written does not stop the run (the others are still
/// written at the end, marked incomplete): returns the failure as one line, or "" when written.
template <class T>
std::string saveRestartOrSay(const std::string& base, Tile<T>& tile, comm::Communicator& comm,
                             const RestartKey& key, int step) {
    try {
        saveRestart(base, tile, comm, key, step);
        return {};
    } catch (const RunError& e) {
        return std::string("restart file at step ") + std::to_string(step) + ": " + e.what();
    }
}

/// Per-rank driver of one tile: time loop, guard, telemetry, output assembly.
template <class T> struct TileRun {
    TileRun(std::shared_ptr<const Plan> p, const RunOptions& o, comm::Communicator& c, device::Device& d,
            Board* b, int total, RunResult* r)
        : plan(std::move(p)), opt(o), comm(c), dev(d), board(b), devicesTotal(total), out(r) {}

    std::shared_ptr<const Plan> plan;
    const RunOptions& opt;
    comm::Communicator& comm;
    device::Device& dev;
    Board* board; ///< LocalComm runs only
    int devicesTotal;
    RunResult* out;                                 ///< rank 0 result
    std::vector<telemetry::PhaseProgress> phases{}; ///< this run's phases (every rank keeps the same list)
    int current = 0;                                ///< index in phases of the phase running
    std::unique_ptr<Tile<T>> tile;
    std::unique_ptr<detectors::DetectorSet<T>> dets;
    std::size_t tileEntries = 0; ///< the tile's own state entries (the detectors' follow)
    bool recorderStop = false;   ///< the reverse sweep stopped because some rank's recorder failed

    /// One run: prepare the tile, then evaluate once.
    void operator()() {
        guarded([&] {
            prepare();
            evaluate(false);
        });
    }

    /// Run `fn`; if it throws, unblock the peers first. A failing tile must do so while its buffers
    /// (which they may be copying) still exist, so the hook runs inside the scope that owns the tile.
    template <class Fn> void guarded(Fn&& fn) {
        try {
            fn();
        } catch (const std::exception& e) {
            comm.fail(e.what());
            throw;
        }
    }

    /// Allocate and fill the tile (the expensive, once-per-scene part).
    void prepare() {
        dev.activate();               // CUDA: this thread drives this GPU
        comm.setStream(dev.stream()); // NCCL transfers are ordered after this device's kernels
        if (comm.deviceMessages())
            dev.reserveForeignMemory(); // NCCL's own buffers (its communicator exists; one GPU per rank)
        tile = std::make_unique<Tile<T>>(plan, comm.rank(), dev);
        tileEntries = tile->state().entries().size();
        tile->fill();
    }

    /// One forward (and, with opt.gradient, reverse) run on the prepared tile into *out. `again`: the
    /// tile ran before, so it takes the plan's current designs and starts from a zero state; detectors
    /// are made anew (they may cache materials).
    void evaluate(bool again) {
        comm.stats().reset(); // collective counts are per run, also on a communicator reused across runs
        // The broadcasts that shared the mode solves while the scene was planned, once per preparation:
        // in the first run's table (every rank takes its own record; in-process tiles record none).
        const modes::ShareTraffic planning = plan->modeCache->takeTraffic();
        comm.stats().calls[std::size_t(comm::Phase::Planning)][std::size_t(comm::Kind::Broadcast)] +=
            planning.broadcasts;
        comm.stats().bytes[std::size_t(comm::Phase::Planning)][std::size_t(comm::Kind::Broadcast)] +=
            planning.bytes;
        if (again) {
            dets.reset();
            tile->state().truncate(tileEntries);
            tile->refillDesigns();
            tile->resetState();
            *out = RunResult{};
        }
        dets = std::make_unique<detectors::DetectorSet<T>>(*tile);
        std::unique_ptr<gradient::GradientDriver<T>> grad;
        if (opt.gradient)
            grad = std::make_unique<gradient::GradientDriver<T>>(*tile, *dets,
                                                                 gradient::makeGradientPlan(*plan));
        body(*tile, *dets, grad);
    }

    void body(Tile<T>& tile, detectors::DetectorSet<T>& dets,
              std::unique_ptr<gradient::GradientDriver<T>>& grad) {
        const Plan& p = *plan;
        const int rank = comm.rank();
        // ---- restart: continue from every tile's saved state (bit-identical to never stopping) ----
        const bool restartFiles = !opt.resumeFrom.empty() || !opt.checkpointPath.empty();
        const RestartKey restart = restartFiles ? restartKey(p.scene, opt) : RestartKey{};
        const int first = opt.resumeFrom.empty() ? 0 : loadRestart(opt.resumeFrom, tile, comm, restart);
        const auto t0 = Clock::now();
        auto lastReport = t0;
        int done = first;
        std::string restartFailure; // a restart file that could not be written: the run goes on without
        std::string status = "completed";
        bool completed = true;
        const std::int64_t totalCells = std::int64_t(p.geom.cells[0]) * p.geom.cells[1] * p.geom.cells[2];
        phases.clear(); // a session's tile runs again: its phases are this evaluation's
        current = 0;
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
                if ((checkpointDue || (flags[1] != 0 && !opt.checkpointPath.empty())) &&
                    restartFailure.empty())
                    restartFailure = saveRestartOrSay(opt.checkpointPath, tile, comm, restart, done);
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
                // A stop because some rank's recorder failed is no cancel: the forward results stand.
                cancelled = !recorderStop;
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
        std::string outputFailure = restartFailure;
        if (grad && !grad->failure().empty())
            outputFailure += (outputFailure.empty() ? "" : "\n") + grad->failure();
        assemble(tile, dets, grad.get(), done, seconds + backSeconds, status, completed, outputFailure);
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
            // 1: cancel asked; 2: some rank's recorder failed (its gradient is lost, so is everyone's).
            double flag = (opt.cancel && opt.cancel->load()) ? 1.0 : 0.0;
            if (!grad.failure().empty())
                flag = std::max(flag, 2.0);
            comm.allReduceMax(std::span<double>(&flag, 1), ph);
            recorderStop = flag >= 2;
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
                  int done, double seconds, const std::string& status, bool completed,
                  const std::string& outputFailure) {
        const Plan& p = *plan;
        // ---- 1. exact sums of the detectors' series: one integer all-reduce for all detectors ----
        std::vector<std::int64_t> sums = dets.sums();
        comm.allReduceSumInt(std::span<std::int64_t>(sums), comm::Phase::Output);
        // ---- 2. per-cell data (phasors, probes, snapshots) and device summaries: one gather ----
        ByteWriter w;
        putSummary(w, summarize(dev, tile.box(), comm));
        w.putString(outputFailure);
        w.put(grad && !grad->failure().empty());
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
            out->devices.push_back(summarize(dev, tile.box(), comm));
            out->completed = completed && outputFailure.empty();
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
        bool gradientLost = false; ///< some rank's recorder failed: no gradient
        std::vector<std::unique_ptr<ByteReader>> readers;
        for (int q = 0; q < N; ++q) {
            readers.push_back(std::make_unique<ByteReader>(blobs[std::size_t(q)]));
            DeviceSummary ds = getSummary(*readers.back());
            std::istringstream failures(readers.back()->getString());
            // One line per output that failed (ranks failing alike, e.g. every recorder on a full disk,
            // are named once).
            for (std::string line; std::getline(failures, line);)
                if (!line.empty() &&
                    std::find(r.failedOutputs.begin(), r.failedOutputs.end(), line) == r.failedOutputs.end())
                    r.failedOutputs.push_back(line);
            gradientLost = readers.back()->get<bool>() || gradientLost;
            // The summaries were taken just before the gather; every rank made exactly that one call.
            ds.comm.count(comm::Phase::Output, comm::Kind::Gather,
                          q == 0 ? 0 : std::int64_t(blobs[std::size_t(q)].size()));
            r.devices.push_back(ds);
        }
        if (!r.devices.empty())
            r.devices[0] = summarize(dev, tile.box(), comm);

        std::vector<ByteReader*> rds;
        for (auto& rd : readers)
            rds.push_back(rd.get());
        detectors::assemble(p, done, sums, rds, r.detectors, r.snapshots);
        r.objective = detectors::evaluateObjective(p, r.detectors);
        if (r.objective)
            r.objectiveTerms = detectors::termValues(p, p.scene.objective.terms, r.detectors);
        if (withGrad && !gradientLost) {
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

/// Run body(comm) on one thread per device (in-process ranks): over NCCL when every tile has its own
/// GPU, else over LocalComm. Returns when every rank has returned; rethrows a rank's failure.
template <class Body>
void forEachRank(const RunOptions& o, const std::vector<std::unique_ptr<device::Device>>& devs, Body&& body) {
    const int N = int(devs.size());
#if YEE_HAVE_NCCL
    std::vector<int> ids;
    for (auto& d : devs)
        ids.push_back(d->id());
    std::vector<int> distinct = ids;
    std::sort(distinct.begin(), distinct.end());
    // NCCL needs one GPU per rank; tiles sharing a GPU exchange through LocalComm. One tile goes through
    // LocalComm too, unless a test asks for the one-rank NCCL path (ncclOneTile).
    if (o.backend == Backend::Cuda && o.nccl && (N > 1 || o.ncclOneTile) && comm::ncclLoadable() &&
        std::adjacent_find(distinct.begin(), distinct.end()) == distinct.end()) {
        comm::NcclHub hub(ids);
        hub.run([&](comm::NcclComm& c) { body(c); });
        return;
    }
#else
    (void)o;
#endif
    comm::LocalHub hub(N);
    hub.run([&](comm::LocalComm& c) { body(c); });
}

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
    forEachRank(o, devs, [&](comm::Communicator& c) {
        TileRun<T> tr{plan, o, c, *devs[std::size_t(c.rank())], &board, N, &perRank[std::size_t(c.rank())]};
        tr();
    });
    result = std::move(perRank[0]);
    return result;
}

template <class T> Estimate estimateTyped(std::shared_ptr<const Plan> plan, const RunOptions& o) {
    Estimate e;
    e.gridCells = plan->geom.cells;
    e.steps = plan->steps;
    const int N = plan->tiles->count();
    const bool mpi = o.communicator != nullptr;
    e.capacityNote = capacityBasis(o, mpi ? 1 : N);
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
    checkRecorderLocation(s, o);
}

namespace {
/// Plan `s` for `o`: makePlan(), then the detector kinds. With `share` and a communicator of more than one
/// rank, each mode solve is made once in the job (solver/ModeShare.hpp); the resolver is cleared when
/// planning ends, also when it throws.
std::shared_ptr<Plan> planScene(const scene::Scene& s, const RunOptions& o, bool share) {
    solver::PlanOptions po{o.tiles, o.maxSteps};
    po.modeCache = o.modes;
    po.modeComm = share ? o.communicator : nullptr;
    struct EndSharing {
        std::shared_ptr<modes::ModeCache> cache;
        ~EndSharing() {
            if (cache)
                cache->setResolver({});
        }
    } end{o.modes};
    auto plan = makePlan(s, po);
    end.cache = plan->modeCache;
    detectors::planDetectors(*plan);
    return plan;
}
} // namespace

Estimate estimate(const scene::Scene& s, const RunOptions& o) {
    validateOptions(s, o);
    // A throwaway estimate's solves are its own (each rank may call it alone); kept ones are shared.
    auto plan = planScene(s, o, o.modes != nullptr);
    return o.precision == Precision::Float64 ? estimateTyped<double>(plan, o) : estimateTyped<float>(plan, o);
}

void checkFits(const Estimate& e) {
    for (const auto& d : e.devices)
        if (d.memory.peakTotal > d.capacity)
            throw MemoryError(d.name + ": needs " + device::formatBytes(d.memory.peakTotal) + " but has " +
                              device::formatBytes(d.capacity) + " (reduce the grid or use more tiles)");
}

namespace {
/// Validate, plan and check every device's memory: what run() and Session do before allocating.
std::shared_ptr<Plan> preparePlan(const scene::Scene& s, const RunOptions& o) {
    validateOptions(s, o);
    auto plan = planScene(s, o, true);
    // Refuse before allocating: the dry run of the same allocation path gives every device's peak.
    checkFits(o.precision == Precision::Float64 ? estimateTyped<double>(plan, o)
                                                : estimateTyped<float>(plan, o));
    return plan;
}
} // namespace

RunResult run(const scene::Scene& s, const RunOptions& o) {
    auto plan = preparePlan(s, o);
    RunResult r = o.precision == Precision::Float64 ? runTyped<double>(plan, o) : runTyped<float>(plan, o);
    guardOutputs(r);
    return r;
}

// ---------------------------------------------------------------------------------------------------------
// Session

namespace {
/// Check an update against the plan; throws InputError naming the field. Nothing is changed.
void checkUpdate(const Plan& p, const DesignUpdate& u) {
    const std::size_t D = p.scene.designs.size();
    if (!u.latent.empty() && u.latent.size() != D)
        throw InputError("designs: the update has latent values for " + std::to_string(u.latent.size()) +
                         " design regions, the scene has " + std::to_string(D));
    if (!u.beta.empty() && u.beta.size() != D)
        throw InputError("designs: the update has beta for " + std::to_string(u.beta.size()) +
                         " design regions, the scene has " + std::to_string(D));
    for (std::size_t d = 0; d < D; ++d) {
        const std::string f = "designs[" + std::to_string(d) + "]";
        if (!u.latent.empty()) {
            const std::size_t n = p.raster->designMap(int(d)).size();
            if (u.latent[d].size() != n)
                throw InputError(f + ".latent: " + std::to_string(u.latent[d].size()) +
                                 " values, the region has " + std::to_string(n) + " voxels");
            for (std::size_t i = 0; i < n; ++i)
                if (!(u.latent[d][i] >= 0 && u.latent[d][i] <= 1))
                    throw InputError(f + ".latent[" + std::to_string(i) +
                                     "]: " + std::to_string(u.latent[d][i]) + " is not in [0, 1]");
        }
        if (!u.beta.empty() && !(u.beta[d] >= 0 && std::isfinite(u.beta[d])))
            throw InputError(f + ".beta: must be a finite value >= 0");
    }
    if (!u.weights.empty()) {
        if (u.weights.size() != p.scene.objective.terms.size())
            throw InputError("objective.terms: the update has " + std::to_string(u.weights.size()) +
                             " weights, the objective has " + std::to_string(p.scene.objective.terms.size()) +
                             " terms");
        for (std::size_t t = 0; t < u.weights.size(); ++t)
            if (!std::isfinite(u.weights[t]))
                throw InputError("objective.terms[" + std::to_string(t) + "].weight: must be finite");
    }
}

/// Give the plan the update's designs and weights (`base`: the scene's own weights).
void applyUpdate(Plan& p, const DesignUpdate& u, const std::vector<double>& base) {
    for (std::size_t d = 0; d < p.scene.designs.size(); ++d) {
        if (u.latent.empty() && u.beta.empty())
            break;
        const scene::Design& g = p.scene.designs[d];
        std::vector<double> latent = !u.latent.empty() ? u.latent[d]
                                     : g.latent.empty()
                                         ? std::vector<double>(p.raster->designMap(int(d)).size(), 0.5)
                                         : g.latent;
        setDesign(p, int(d), std::move(latent), u.beta.empty() ? g.beta : u.beta[d]);
    }
    const std::vector<double>& w = u.weights.empty() ? base : u.weights;
    for (std::size_t t = 0; t < w.size(); ++t)
        p.scene.objective.terms[t].weight = w[t];
}

/// An update as int64 words (double bits) for the Setup-phase all-reduce of MPI sessions: rank 0 sends
/// its words, the others zeros, so the sum is rank 0's words exactly. Word 0: 1 = evaluate, 0 = close.
std::vector<std::int64_t> encodeUpdate(const Plan& p, const DesignUpdate* u) {
    std::vector<double> v;
    v.push_back(u ? 1.0 : 0.0);
    for (std::size_t d = 0; d < p.scene.designs.size(); ++d) {
        const std::size_t n = p.raster->designMap(int(d)).size();
        const scene::Design& g = p.scene.designs[d];
        for (std::size_t i = 0; i < n; ++i)
            v.push_back(u && !u->latent.empty() ? u->latent[d][i] : g.latent.empty() ? 0.5 : g.latent[i]);
        v.push_back(u && !u->beta.empty() ? u->beta[d] : g.beta);
    }
    for (std::size_t t = 0; t < p.scene.objective.terms.size(); ++t)
        v.push_back(u && !u->weights.empty() ? u->weights[t] : std::nan(""));
    std::vector<std::int64_t> w(v.size());
    std::memcpy(w.data(), v.data(), v.size() * sizeof(double));
    return w;
}

/// The update rank 0 sent (false: rank 0 closed the session).
bool decodeUpdate(const Plan& p, const std::vector<std::int64_t>& w, DesignUpdate& u) {
    std::vector<double> v(w.size());
    std::memcpy(v.data(), w.data(), w.size() * sizeof(double));
    if (v[0] == 0)
        return false;
    std::size_t q = 1;
    u = DesignUpdate{};
    for (std::size_t d = 0; d < p.scene.designs.size(); ++d) {
        const std::size_t n = p.raster->designMap(int(d)).size();
        u.latent.emplace_back(v.begin() + std::ptrdiff_t(q), v.begin() + std::ptrdiff_t(q + n));
        q += n;
        u.beta.push_back(v[q++]);
    }
    const std::size_t T = p.scene.objective.terms.size();
    if (T > 0 && !std::isnan(v[q]))
        u.weights.assign(v.begin() + std::ptrdiff_t(q), v.begin() + std::ptrdiff_t(q + T));
    return true;
}

/// The typed part of a session.
struct SessionCore {
    virtual ~SessionCore() = default;
    virtual RunResult evaluate(const DesignUpdate& u) = 0;
    virtual void serve() = 0;
    virtual void close() = 0;
};

template <class T> struct SessionT final : SessionCore {
    std::shared_ptr<Plan> plan;
    RunOptions opt;
    int N = 0;
    std::vector<double> baseWeights;
    // ---- in-process ranks: one parked thread per tile ----
    std::vector<std::unique_ptr<device::Device>> devs;
    Board board;
    std::vector<RunResult> perRank;
    std::thread hubThread;
    std::mutex m;
    std::condition_variable cv;
    int parked = 0;        ///< ranks waiting for the next job
    std::uint64_t job = 0; ///< number of the last job published
    bool stop = false, failed = false;
    std::exception_ptr error;
    // ---- MPI: this process's tile on the calling thread ----
    std::unique_ptr<device::Device> dev;
    RunResult mpiResult;
    std::unique_ptr<TileRun<T>> mpiRun;
    bool closed = false;

    SessionT(std::shared_ptr<Plan> p, const RunOptions& o) : plan(std::move(p)), opt(o) {
        N = plan->tiles->count();
        for (const auto& t : plan->scene.objective.terms)
            baseWeights.push_back(t.weight);
        if (opt.communicator) {
            dev = makeDevice(opt, opt.communicator->rank(), 1, false);
            mpiRun = std::make_unique<TileRun<T>>(plan, opt, *opt.communicator, *dev, nullptr, N, &mpiResult);
            mpiRun->guarded([&] { mpiRun->prepare(); });
            return;
        }
        board.devices.resize(std::size_t(N));
        for (int t = 0; t < N; ++t)
            devs.push_back(makeDevice(opt, t, N, false));
        perRank.resize(std::size_t(N));
        hubThread = std::thread([this] {
            try {
                forEachRank(opt, devs, [&](comm::Communicator& c) { rankLoop(c); });
            } catch (...) {
                std::lock_guard<std::mutex> lk(m);
                if (!error)
                    error = std::current_exception();
                failed = true;
            }
            cv.notify_all();
        });
        // Wait until every tile is prepared (or one failed), so construction errors surface here.
        std::unique_lock<std::mutex> lk(m);
        cv.wait(lk, [&] { return parked == N || failed; });
        if (failed) {
            lk.unlock();
            hubThread.join();
            std::rethrow_exception(error);
        }
    }

    ~SessionT() override {
        try {
            close();
        } catch (...) {
        }
    }

    /// One tile's life in an in-process session: prepare, then evaluate each published job.
    void rankLoop(comm::Communicator& c) {
        const std::size_t r = std::size_t(c.rank());
        TileRun<T> tr(plan, opt, c, *devs[r], &board, N, &perRank[r]);
        try {
            tr.guarded([&] {
                tr.prepare();
                std::uint64_t seen = 0;
                for (;;) {
                    {
                        std::unique_lock<std::mutex> lk(m);
                        ++parked;
                        cv.notify_all();
                        cv.wait(lk, [&] { return job > seen || stop || failed; });
                        if (stop || failed)
                            return;
                        seen = job;
                    }
                    tr.evaluate(true);
                }
            });
        } catch (...) {
            {
                std::lock_guard<std::mutex> lk(m);
                failed = true; // wake the ranks parked between jobs, and the caller
            }
            cv.notify_all();
            throw;
        }
    }

    RunResult evaluate(const DesignUpdate& u) override {
        checkUpdate(*plan, u);
        if (opt.communicator) {
            if (opt.communicator->rank() != 0)
                throw InputError(
                    "Session::evaluate: only rank 0 evaluates under MPI; other ranks call serve()");
            if (closed)
                throw RunError("Session::evaluate: the session is closed");
            std::vector<std::int64_t> w = encodeUpdate(*plan, &u);
            opt.communicator->allReduceSumInt(std::span<std::int64_t>(w), comm::Phase::Setup);
            applyUpdate(*plan, u, baseWeights);
            mpiRun->guarded([&] { mpiRun->evaluate(true); });
            return std::move(mpiResult);
        }
        std::unique_lock<std::mutex> lk(m);
        if (failed || stop)
            throw RunError("Session::evaluate: the session has stopped");
        // Every tile is parked: the plan may change.
        applyUpdate(*plan, u, baseWeights);
        parked = 0;
        ++job;
        cv.notify_all();
        cv.wait(lk, [&] { return parked == N || failed; });
        if (failed) {
            lk.unlock();
            if (hubThread.joinable())
                hubThread.join();
            std::rethrow_exception(error);
        }
        return std::move(perRank[0]);
    }

    void serve() override {
        if (!opt.communicator || opt.communicator->rank() == 0)
            throw InputError("Session::serve: only MPI ranks other than 0 serve");
        for (;;) {
            std::vector<std::int64_t> w(encodeUpdate(*plan, nullptr).size(), 0);
            opt.communicator->allReduceSumInt(std::span<std::int64_t>(w), comm::Phase::Setup);
            DesignUpdate u;
            if (!decodeUpdate(*plan, w, u))
                return;
            applyUpdate(*plan, u, baseWeights);
            mpiRun->guarded([&] { mpiRun->evaluate(true); });
        }
    }

    void close() override {
        if (opt.communicator) {
            if (opt.communicator->rank() == 0 && !closed) {
                closed = true;
                std::vector<std::int64_t> w = encodeUpdate(*plan, nullptr);
                opt.communicator->allReduceSumInt(std::span<std::int64_t>(w), comm::Phase::Setup);
            }
            return;
        }
        {
            std::lock_guard<std::mutex> lk(m);
            stop = true;
        }
        cv.notify_all();
        if (hubThread.joinable())
            hubThread.join();
    }
};
} // namespace

struct Session::Impl {
    std::shared_ptr<Plan> plan;
    std::unique_ptr<SessionCore> core;
    int evaluations = 0;
};

Session::Session(const scene::Scene& s, const RunOptions& o) : impl_(std::make_unique<Impl>()) {
    if (!o.checkpointPath.empty() || !o.resumeFrom.empty() || o.checkpointEvery > 0)
        throw InputError("run.checkpoint: restart files are not available in an optimisation session");
    impl_->plan = preparePlan(s, o);
    if (o.precision == Precision::Float64)
        impl_->core = std::make_unique<SessionT<double>>(impl_->plan, o);
    else
        impl_->core = std::make_unique<SessionT<float>>(impl_->plan, o);
}

Session::~Session() = default;

RunResult Session::evaluate(const DesignUpdate& u) {
    RunResult r = impl_->core->evaluate(u);
    guardOutputs(r);
    ++impl_->evaluations;
    return r;
}

void Session::serve() {
    impl_->core->serve();
}

void Session::close() {
    impl_->core->close();
}

int Session::evaluations() const {
    return impl_->evaluations;
}

std::vector<std::size_t> Session::designSizes() const {
    std::vector<std::size_t> n;
    for (int d = 0; d < impl_->plan->raster->designCount(); ++d)
        n.push_back(impl_->plan->raster->designMap(d).size());
    return n;
}

std::vector<std::vector<double>> Session::latent() const {
    std::vector<std::vector<double>> out;
    const auto sizes = designSizes();
    for (std::size_t d = 0; d < sizes.size(); ++d) {
        const auto& l = impl_->plan->scene.designs[d].latent;
        out.push_back(l.empty() ? std::vector<double>(sizes[d], 0.5) : l);
    }
    return out;
}

const scene::Scene& Session::scene() const {
    return impl_->plan->scene;
}

} // namespace yee::run
