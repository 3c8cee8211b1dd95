#pragma once
/// \file Run.hpp
/// The run layer's facade: options, estimate (dry run of the allocation path) and run (forward, or
/// value-and-grad). Orchestration lives here (run/): device selection, communicator choice, the time
/// loop, telemetry and result assembly; the solver below owns the plan, the tiles and the stepper.
/// Plain C++ types only.
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "yee/comm/CommStats.hpp"
#include "yee/core/Box.hpp"
#include "yee/device/MemoryLedger.hpp"
#include "yee/scene/DeviceSpec.hpp"
#include "yee/scene/Scene.hpp"
#include "yee/solver/Result.hpp"
#include "yee/telemetry/Telemetry.hpp"

namespace yee::comm {
class Communicator;
}
namespace yee::modes {
class ModeCache;
}

namespace yee::run {

enum class Precision { Float32, Float64 };

/// Where tiles run: emulated CPU devices (one process) or CUDA GPUs.
enum class Backend { Cpu, Cuda };

/// How and where to run. Defaults come from the scene's "run" section (see fromScene()).
struct RunOptions {
    Precision precision = Precision::Float32;
    std::array<int, 3> tiles{1, 1, 1};
    int devices = 1; ///< devices available (CPU: emulated, LocalComm); one tile per device
    Backend backend = Backend::Cpu;
    std::vector<int> gpus;     ///< backend Cuda: the GPU ids, tile t on gpus[t] (MPI: this rank's GPU)
    bool nccl = true;          ///< GPUs in one process exchange halos over NCCL (false: LocalComm
                               ///< through host-coherent memory; for comparison and builds without NCCL)
    bool ncclOneTile = false;  ///< testing: one tile on one GPU also exchanges (periodic self-halos)
                               ///< through a one-rank NCCL communicator instead of LocalComm
    std::string deviceNotice;  ///< why a requested GPU run fell back to CPU devices (empty: it did not)
    bool gpuDataPaths = false; ///< testing: CPU devices take the GPU's data paths (Device::staged)
    int threadsPerDevice = 0;  ///< 0 = host threads / devices
    std::int64_t deviceCapacity = 0; ///< bytes per device; 0 = host memory / devices
    bool overlap = true;             ///< overlap halo exchange with interior updates
    bool gradient = false;           ///< value-and-grad: also run the adjoint (scene "gradient" section)
    /// Steps between NaN/cancel checks (one all-reduce each), in every phase: forward steps, and in the
    /// reverse sweep of value-and-grad runs, recomputed steps and adjoint steps (a phase's last step
    /// needs no check).
    int guardInterval = 64;
    double telemetryInterval = 0.25; ///< seconds between telemetry reports
    int maxSteps = -1;               ///< <0: scene duration
    /// Set to stop the run at the next guard step of whichever phase runs; the result is then marked
    /// incomplete (a reverse sweep stopped early gives no gradient, its forward results stay).
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(const telemetry::Report&)> onTelemetry;
    /// External communicator (MPI): this process runs tile comm->rank() only. Null: LocalComm.
    /// run() and Session share each waveguide-mode solve over it: the rank owning the port solves and
    /// broadcasts (solver/ModeShare.hpp), so every rank calls them (as it must anyway).
    comm::Communicator* communicator = nullptr;
    /// Waveguide modes kept across calls on the same scene: estimate() and run() (or Session) with the same
    /// cache solve each port once (yee-run estimates, then runs). A cache holding another scene's modes is
    /// emptied first. Null: each call solves anew. Under MPI, estimate() with a cache set shares the
    /// solves like run(), so it is then collective: every rank calls it.
    std::shared_ptr<modes::ModeCache> modes;
    // ---- restart files (forward runs only; see Restart.hpp) ----
    /// Write a restart file every N steps (0: none, except when cancelled with checkpointPath set).
    int checkpointEvery = 0;
    /// Base path of the restart files: each tile writes `<checkpointPath>.rank<r>`. Empty: none.
    std::string checkpointPath;
    /// Resume from the restart files `<resumeFrom>.rank<r>` instead of starting at step 0. Empty: no.
    std::string resumeFrom;

    static RunOptions fromScene(const scene::Scene& s);
};

/// Result of a forward run (on rank 0: assembled; on other ranks: devices only).
struct RunResult {
    bool completed = false;
    std::string status; ///< "completed", "cancelled", "diverged at step N", ...
    /// Outputs that could not be written, one line each naming the output and the cause (e.g.
    /// "restart file 'run.restart.rank0': No space left on device"). Not empty: completed is false.
    std::vector<std::string> failedOutputs;
    int steps = 0; ///< steps taken
    int totalSteps = 0;
    double dt = 0; ///< normalised
    double dtFs = 0;
    double seconds = 0; ///< wall time of the whole time loop: forward sweep, and reverse sweep if any (s)
    std::int64_t cellUpdates = 0;
    std::array<int, 3> gridCells{0, 0, 0};
    std::vector<solver::DetectorResult> detectors;
    std::vector<solver::Snapshot> snapshots;
    std::optional<double> objective;
    std::vector<double> objectiveTerms; ///< unweighted value of each objective term (term order)
    std::vector<solver::DeviceSummary> devices;
    // ---- value-and-grad runs ----
    /// dJ/dlatent per design region (name = design name, shape [vz, vy, vx]); empty for forward runs.
    std::vector<solver::NamedArray> gradients;
    double forwardSeconds = 0;        ///< wall time of the forward sweep
    double backwardSeconds = 0;       ///< wall time of the reverse sweep (reconstruction + adjoint)
    std::int64_t recomputedSteps = 0; ///< forward steps recomputed during the reverse sweep (tile 0)
    double reconstructionDrift = 0;   ///< reversible: max relative drift seen at checkpoints (max over tiles)
    /// Every phase of the run in order (tile 0): "forward", then for value-and-grad runs "reconstruct"
    /// (only when steps are recomputed) and "adjoint"; steps done, planned and wall time of each.
    std::vector<telemetry::PhaseProgress> phases;
};

/// Per-device memory estimate produced by a dry run of the same allocation path.
struct Estimate {
    std::array<int, 3> gridCells{0, 0, 0};
    int steps = 0;
    std::vector<solver::DeviceSummary> devices; ///< memory.peak per device
    std::string capacityNote; ///< how the capacities were judged (run::capacityBasis), for the table
    /// Value-and-grad: forward steps the reverse sweep recomputes (method checkpointed; else 0).
    std::int64_t recomputeSteps = 0;
    std::int64_t maxDevicePeak() const;
    std::int64_t totalPeak() const;
};

/// Apply a device list from `field` ("run.devices" or "--devices"): "cpu:N", "cuda:0,1", "cuda:all" or
/// "cuda" (= all). A GPU list on a machine without a usable GPU (or a build without CUDA) falls back to
/// `tiles` emulated CPU devices and says why in o.deviceNotice; a GPU id that does not exist while others
/// do is an InputError naming the field.
void selectDevices(const scene::DeviceSpec& spec, const std::string& field, int tiles, RunOptions& o);
/// As above for a device list still in text form (parsed once by scene::DeviceSpec::parse).
void selectDevices(const std::string& spec, const std::string& field, int tiles, RunOptions& o);

/// Validate run options against the scene (tile grid, devices). Throws InputError naming the field.
void validateOptions(const scene::Scene& s, const RunOptions& o);
/// Dry-run the allocation plan; no field memory is taken. Throws InputError / MemoryError.
Estimate estimate(const scene::Scene& s, const RunOptions& o);
/// The run's memory verdict on an estimate: throws MemoryError ("<device>: needs X but has Y ...") for
/// the first device whose peak exceeds its capacity. run() refuses with exactly this; `yee-run --check`
/// applies it too, so both give the same verdict.
void checkFits(const Estimate& e);
/// Run the forward simulation. Throws InputError before allocating on bad input; returns with
/// completed=false on cancel or divergence.
RunResult run(const scene::Scene& s, const RunOptions& o);

} // namespace yee::run
