/// \file yee-run.cpp
/// Headless runner: `yee-run [options] SCENE.json`. Validates the scene, prints the memory estimate,
/// runs the forward simulation (LocalComm, or one tile per rank under mpirun/srun; emulated CPU devices
/// or CUDA GPUs) and writes results and field snapshots atomically. `yee-run --list-devices` lists the
/// GPUs and the host. Exit codes: see yee::cli::ExitCode.
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "RunCli.hpp"
#include "RunReport.hpp"
#include "yee/bundle/Bundle.hpp"
#include "yee/core/Error.hpp"
#include "yee/core/Simd.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/device/Device.hpp"
#include "yee/files/OutputCheck.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/io/RunOutputs.hpp"
#include "yee/io/Touchstone.hpp"
#include "yee/io/VtkHdfWriter.hpp"
#include "yee/modes/ModeCache.hpp"
#include "yee/run/Devices.hpp"
#include "yee/run/Overrides.hpp"
#include "yee/run/Run.hpp"
#include "yee/run/SParameters.hpp"
#include "yee/scene/MaterialCheck.hpp"
#include "yee/scene/Resolution.hpp"
#include "yee/scene/SceneJson.hpp"

#ifdef YEE_HAVE_MPI
#include "MpiLaunch.hpp"
#endif

namespace fs = std::filesystem;
using namespace yee;

namespace {

static_assert(std::atomic<bool>::is_always_lock_free, "the cancel flag is set from a signal handler");
std::atomic<bool> gCancel{false};

extern "C" void onSignal(int) {
    gCancel.store(true);
}

/// SIGINT/SIGTERM ask the run to stop at the next guard interval; a second signal of the same kind
/// gets the default action (SA_RESETHAND), so an impatient user can still kill the process. Installed
/// first thing, so a signal during loading is not lost (a background job may inherit SIGINT ignored).
void installSignalHandlers() {
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

std::string oneLine(std::string message) {
    std::replace(message.begin(), message.end(), '\n', ' ');
    std::replace(message.begin(), message.end(), '\r', ' ');
    return message;
}

void printError(const std::string& message) {
    std::fprintf(stderr, "yee-run: error: %s\n", oneLine(message).c_str());
}

/// Something the user should know that does not stop the run (e.g. a GPU request running on the CPU).
void printNote(const std::string& message) {
    std::fprintf(stderr, "yee-run: note: %s\n", oneLine(message).c_str());
    std::fflush(stderr);
}

/// Refuses an output file that cannot be written, before hours of computing (also with --check: the
/// probe leaves nothing behind).
void checkOutputFile(const std::string& path, const char* option) {
    if (const std::string why = files::whyNotWritableFile(path); !why.empty())
        throw InputError(std::string(option) + ": cannot write '" + path + "': " + why);
}

/// The same for an output directory (created by the run when missing).
void checkOutputDirectory(const std::string& dir, const char* option) {
    if (const std::string why = files::whyNotWritableDirectory(dir); !why.empty())
        throw InputError(std::string(option) + ": cannot write into '" + dir + "': " + why);
}

/// Where this process stands in the job.
struct Launch {
    bool rank0 = true;
    comm::Communicator* communicator = nullptr; ///< MpiComm under mpirun/srun, else null (LocalComm)
    int ranksOnNode = 1;                        ///< MPI ranks sharing this host's cores and memory
    int localRank = 0;                          ///< this rank among them (picks its GPU)
};

/// Everything decided before the run.
struct Plan {
    scene::Scene scene;
    run::RunOptions options;
    std::string output;
    std::string snapshotsDir;
    std::vector<std::string> notes; ///< printed once (rank 0) on stderr before anything runs
    int gpusListed = 0;             ///< MPI with GPUs: how many GPUs the device list names on this node
};

/// An exit code and, for failures, the one-line message to print.
struct Outcome {
    int code = cli::kExitOk;
    std::string message;
};

/// Runs `body` and maps exceptions to exit codes and messages.
Outcome guarded(const std::function<int()>& body) {
    try {
        return {body(), {}};
    } catch (const InputError& e) {
        return {cli::kExitBadInput, e.what()};
    } catch (const Cancelled& e) {
        return {cli::kExitCancelled, e.what()};
    } catch (const std::exception& e) {
        return {cli::kExitFailure, e.what()};
    }
}

void report(const Outcome& o) {
    if (o.message.empty())
        return;
    if (o.code == cli::kExitCancelled)
        std::fprintf(stderr, "yee-run: %s\n", o.message.c_str());
    else
        printError(o.message);
}

/// Loads and validates the scene and the options. Local to this process: no communication.
Plan prepare(const cli::RunArgs& args, const Launch& launch) {
    Plan p;
    p.scene = scene::loadScene(args.scene);
    for (const std::string& w : scene::materialWarnings(p.scene)) // library materials out of range
        p.notes.push_back("warning: " + w);
    p.options = cli::makeRunOptions(p.scene, args);
    p.options.communicator = launch.communicator;
    p.options.modes = std::make_shared<modes::ModeCache>(); // the estimate's mode solves serve the run
    if (!p.options.deviceNotice.empty())
        p.notes.push_back(p.options.deviceNotice);
#ifndef YEE_HAVE_NCCL
    if (p.options.backend == run::Backend::Cuda && !launch.communicator && p.options.gpus.size() > 1) {
        p.options.nccl = false;
        p.notes.push_back("this build has no NCCL: the GPUs exchange halos through host-coherent memory");
    }
#endif
    if (launch.communicator) {
        // One tile per rank: GPU ranks take the GPUs they see round-robin (whether two ended up on the
        // same GPU is decided from device identities, cli::chooseGpuExchange), and the ranks of a host
        // share its cores and memory.
        p.gpusListed = run::placeOneTilePerRank(p.options, {launch.localRank, launch.ranksOnNode});
        const auto& t = p.options.tiles;
        const int tiles = t[0] * t[1] * t[2];
        if (tiles != launch.communicator->size())
            throw InputError(std::string(args.tiles ? "--tiles" : "run.tiles") + ": the tile grid " +
                             std::to_string(t[0]) + "x" + std::to_string(t[1]) + "x" + std::to_string(t[2]) +
                             " has " + std::to_string(tiles) + " tiles but " +
                             std::to_string(launch.communicator->size()) +
                             " MPI ranks were started (one rank per tile)");
    }
    run::validateOptions(p.scene, p.options);
    if (!args.quiet)
        for (const auto& w : scene::resolutionWarnings(p.scene))
            p.notes.push_back("warning: " + w);
    p.output = args.outputPath();
    p.snapshotsDir = args.snapshotsPath();
    // Every output location is checked before step 0 (with --check too: same verdict as the run).
    checkOutputFile(p.output, "--output");
    const bool snapshots = std::any_of(p.scene.detectors.begin(), p.scene.detectors.end(),
                                       [](const auto& d) { return d.type == scene::DetectorType::Snapshot; });
    if (snapshots)
        checkOutputDirectory(p.snapshotsDir, "--snapshots-dir");
    return p;
}

/// Prints the plan's notes (rank 0), the memory estimate (refusing a plan that does not fit) and, with
/// --check, stops there.
int estimate(const cli::RunArgs& args, const Launch& launch, const Plan& p) {
    // The plan's notes only once the plan is known to be valid: a refused input gets its one line alone.
    run::Estimate e = run::estimate(p.scene, p.options);
    if (launch.rank0)
        for (const auto& n : p.notes)
            printNote(n);
    if (launch.rank0 && (args.check || !args.quiet))
        std::printf("%s", cli::formatEstimate(e).c_str());
    std::fflush(stdout);
    run::checkFits(e); // the run's own verdict: --check refuses what the run would refuse
    if (args.check && launch.rank0)
        std::printf("%s: ok (nothing run, nothing written)\n", args.scene.c_str());
    std::fflush(stdout);
    return cli::kExitOk;
}

/// Runs the plan and writes results (rank 0). Returns the exit code.
int execute(const cli::RunArgs& args, const Launch& launch, Plan& p) {
    const bool talk = launch.rank0 && !args.quiet;
    io::ResultsExtras extras;
    cli::ProgressBar progress(stderr, ::isatty(STDERR_FILENO) != 0);
    p.options.cancel = &gCancel;
    p.options.onTelemetry = [&](const telemetry::Report& r) {
        extras.timeline.push_back(r);
        if (talk)
            progress.update(r);
    };
    // Interrupted while loading: nothing run, nothing written. (Ranks of an MPI job decide together,
    // at the run's first guard interval.)
    if (gCancel.load() && !launch.communicator)
        throw Cancelled();

    run::RunResult result = run::run(p.scene, p.options);
    if (talk)
        progress.finish();
    // Other ranks hold only their device summary (see RunResult); rank 0 reports the outcome.
    if (!launch.rank0)
        return cli::kExitOk;

    for (const auto& g : result.gradients)
        extras.gradients[g.name] = g;
    // S-parameters of named ports: into the results, and (a complete run) a Touchstone file beside them.
    extras.sParameters = run::sParameters(p.scene, result);
    std::string touchstone;
    if (extras.sParameters && result.completed) {
        touchstone = io::touchstonePath(p.output, extras.sParameters->ports.size());
        try {
            io::writeTouchstone(touchstone, *extras.sParameters, p.scene.name);
        } catch (const RunError& e) {
            io::markOutputFailed(result, "S-parameters '" + touchstone + "': " + e.what());
            touchstone.clear();
        }
    }
    // Snapshots first (the results file points at their series indexes); a failing series is named in
    // the results, which are written all the same.
    io::writeRunOutputs({p.output, p.snapshotsDir}, p.scene, scene::sceneToJson(p.scene), result, extras);
    if (talk) {
        std::printf("\nPeak memory per device:\n%s", cli::formatMemoryTable(result.devices).c_str());
        std::printf("\nCollectives per device (calls):\n%s", cli::formatCommTable(result.devices).c_str());
        const double rate =
            result.forwardSeconds > 0 ? double(result.cellUpdates) / result.forwardSeconds / 1e6 : 0.0;
        std::printf("\n%d/%d steps in %.2f s (%.1f Mcell/s); results: %s\n", result.steps, result.totalSteps,
                    result.seconds, rate, p.output.c_str());
        if (result.objective)
            std::printf("objective: %.10g\n", *result.objective);
        if (!result.gradients.empty())
            std::printf(
                "gradient: %zu design region(s), reverse sweep %.2f s (value-and-grad / forward = %.2f)%s\n",
                result.gradients.size(), result.backwardSeconds,
                result.forwardSeconds > 0
                    ? (result.forwardSeconds + result.backwardSeconds) / result.forwardSeconds
                    : 0.0,
                result.recomputedSteps > 0
                    ? (", " + std::to_string(result.recomputedSteps) + " steps recomputed").c_str()
                    : "");
        if (result.phases.size() > 1)
            std::printf("%s", cli::formatPhases(result.phases).c_str());
        if (!touchstone.empty())
            std::printf("S-parameters: %s\n", touchstone.c_str());
        if (!result.snapshots.empty() && extras.snapshotSeries.size() > 0)
            std::printf("snapshots: %s\n", p.snapshotsDir.c_str());
        std::fflush(stdout);
    }
    if (result.completed)
        return cli::kExitOk;
    if (!result.failedOutputs.empty() && !gCancel.load()) {
        for (const auto& f : result.failedOutputs)
            printError("output failed: " + f);
        printError("results written to " + p.output + ", marked incomplete (" + result.status + ")");
        return cli::kExitFailure;
    }
    if (gCancel.load()) {
        std::fprintf(stderr, "yee-run: %s; partial results in %s\n", result.status.c_str(), p.output.c_str());
        return cli::kExitCancelled;
    }
    printError("run stopped: " + result.status + " (partial results in " + p.output + ")");
    return cli::kExitFailure;
}

/// --export DIR: writes the scene's cluster bundle (scene, sbatch script, README) and runs nothing.
int exportOnly(const cli::RunArgs& args) {
    Outcome o = guarded([&] {
        if (cli::launcherRanks() > 1)
            throw InputError("--export: run it once, without mpirun/srun");
        const scene::Scene s = scene::loadScene(args.scene);
        const bundle::BatchResources r =
            bundle::exportBundle(s, args.exportDir, cli::makeBundleOptions(args));
        if (!args.quiet)
            std::printf("bundle written to %s: tile grid %dx%dx%d, %d rank(s) on %d node(s), %s\n"
                        "submit it with: cd %s && sbatch %s\n",
                        args.exportDir.c_str(), r.tiles[0], r.tiles[1], r.tiles[2], r.ranks, r.nodes,
                        r.cuda ? "one GPU per rank" : "CPU ranks", args.exportDir.c_str(),
                        bundle::kScriptFile);
        return cli::kExitOk;
    });
    report(o);
    return o.code;
}

/// --list-devices: the visible GPUs (or why there are none) and the host.
int listDevices() {
    const std::vector<cuda::DeviceInfo> gpus = cuda::devices();
    std::printf("CPU loops: %s\n", yee::simdLevel().c_str());
    std::printf("%s", cli::formatDeviceList(gpus, gpus.empty() ? cuda::unavailableReason() : std::string(),
                                            device::hostThreads(), device::hostMemoryBytes())
                          .c_str());
    std::fflush(stdout);
    return cli::kExitOk;
}

/// The whole job in one process (LocalComm drives all tiles).
int runLocal(const cli::RunArgs& args) {
    const Launch launch;
    Plan plan;
    Outcome o = guarded([&] {
        plan = prepare(args, launch);
        if (int rc = estimate(args, launch, plan); rc != cli::kExitOk || args.check)
            return rc;
        return execute(args, launch, plan);
    });
    report(o);
    return o.code;
}

#ifdef YEE_HAVE_MPI
/// Makes every rank take the same decision after a local step: the worst exit code wins, and the
/// lowest failing rank prints its message (so a failure shared by all ranks is printed once).
/// Uses MPI directly, not the communicator, so the CommStats of the run stay exactly the solver's.
Outcome agree(const Outcome& mine, int rank, int size) {
    int code = mine.code;
    int firstFailing = mine.code != cli::kExitOk ? rank : size;
    MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &firstFailing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == firstFailing)
        report(mine);
    return {code, {}};
}

/// One tile per rank under mpirun/srun. Every rank validates; the ranks agree before anything that
/// communicates, so a refusal on any rank ends all of them cleanly instead of leaving peers waiting.
int runMpi(int& argc, char**& argv, const cli::RunArgs& args) {
    std::unique_ptr<comm::MpiSession> session;
    std::unique_ptr<comm::MpiComm> mpi;
    Outcome started = guarded([&] {
        session = std::make_unique<comm::MpiSession>(&argc, &argv);
        mpi = std::make_unique<comm::MpiComm>();
        return cli::kExitOk;
    });
    if (started.code != cli::kExitOk) {
        report(started);
        return started.code;
    }
    const int rank = mpi->rank(), size = mpi->size();
    if (size == 1) {
        mpi.reset();
        return runLocal(args);
    }
    const run::RankPlace place = cli::placeOnThisNode();
    const Launch launch{rank == 0, mpi.get(), place.ranksOnNode, place.localRank};
    Plan plan;
    std::unique_ptr<comm::Communicator> gpuComm; // NcclComm of this rank's GPU; destroyed before `mpi`
    int code = agree(guarded([&] {
                         plan = prepare(args, launch);
                         return cli::kExitOk;
                     }),
                     rank, size)
                   .code;
    bool nccl = false;
    if (code == cli::kExitOk)
        code = agree(guarded([&] {
                         nccl =
                             cli::chooseGpuExchange(plan.options, place, plan.gpusListed,
                                                    args.devices ? "--devices" : "run.devices", plan.notes);
                         return cli::kExitOk;
                     }),
                     rank, size)
                   .code;
    if (code == cli::kExitOk)
        code = agree(guarded([&] { return estimate(args, launch, plan); }), rank, size).code;
    if (code == cli::kExitOk && !args.check && nccl) {
        // The run's halos go GPU to GPU over NCCL; MpiComm stays for what yee-run does itself.
        // ncclFromMpi is collective and agrees on failure (every rank throws), so the ranks end together.
        code = agree(guarded([&] {
                         gpuComm = cli::ncclFromMpi(*mpi, plan.options.gpus.front());
                         plan.options.communicator = gpuComm.get();
                         return cli::kExitOk;
                     }),
                     rank, size)
                   .code;
    }
    if (code == cli::kExitOk && !args.check) {
        Outcome o = guarded([&] { return execute(args, launch, plan); });
        // An exception inside the run may leave peers waiting in a collective: end the whole job.
        if (!o.message.empty() && o.code == cli::kExitFailure)
            mpi->abort("yee-run: error: " + o.message, o.code);
        report(o);
        code = o.code;
    }
    plan.options.communicator = nullptr;
    gpuComm.reset();
    mpi.reset();
    return code;
}
#endif

} // namespace

int main(int argc, char** argv) {
    installSignalHandlers();
    cli::RunArgs args;
    Outcome parsed = guarded([&] {
        args = cli::parseRunArgs(std::vector<std::string>(argv + 1, argv + argc));
        return cli::kExitOk;
    });
    if (parsed.code != cli::kExitOk) {
        report(parsed);
        return parsed.code;
    }
    if (args.help) {
        std::printf("%s", cli::usageText().c_str());
        return cli::kExitOk;
    }
    if (args.version) {
        std::printf("yee-run %s\n", YEE_VERSION);
        return cli::kExitOk;
    }
    if (args.listDevices)
        return listDevices();
    if (!args.exportDir.empty())
        return exportOnly(args);
    if (cli::launcherRanks() <= 1)
        return runLocal(args);
#ifdef YEE_HAVE_MPI
    return runMpi(argc, argv, args);
#else
    printError("started as " + std::to_string(cli::launcherRanks()) +
               " ranks, but this yee-run was built without MPI; run it without mpirun/srun");
    return cli::kExitBadInput;
#endif
}
