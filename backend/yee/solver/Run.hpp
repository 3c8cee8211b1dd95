#pragma once
/// \file Run.hpp
/// Public entry points of the forward solver: estimate (dry run) and run. Plain C++ types only.
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
#include "yee/scene/Scene.hpp"
#include "yee/telemetry/Telemetry.hpp"

namespace yee::comm {
class Communicator;
}

namespace yee::solver {

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
    std::string deviceNotice;  ///< why a requested GPU run fell back to CPU devices (empty: it did not)
    bool gpuDataPaths = false; ///< testing: CPU devices take the GPU's data paths (Device::staged)
    int threadsPerDevice = 0;  ///< 0 = host threads / devices
    std::int64_t deviceCapacity = 0; ///< bytes per device; 0 = host memory / devices
    bool overlap = true;             ///< overlap halo exchange with interior updates
    bool gradient = false;           ///< value-and-grad: also run the adjoint (scene "gradient" section)
    int guardInterval = 64;          ///< steps between NaN/cancel checks (one all-reduce each)
    double telemetryInterval = 0.25; ///< seconds between telemetry reports
    int maxSteps = -1;               ///< <0: scene duration
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(const telemetry::Report&)> onTelemetry;
    /// External communicator (MPI): this process runs tile comm->rank() only. Null: LocalComm.
    comm::Communicator* communicator = nullptr;
    // ---- restart files (forward runs only; see Restart.hpp) ----
    /// Write a restart file every N steps (0: none, except when cancelled with checkpointPath set).
    int checkpointEvery = 0;
    /// Base path of the restart files: each tile writes `<checkpointPath>.rank<r>`. Empty: none.
    std::string checkpointPath;
    /// Resume from the restart files `<resumeFrom>.rank<r>` instead of starting at step 0. Empty: no.
    std::string resumeFrom;

    static RunOptions fromScene(const scene::Scene& s);
};

/// A named n-d array of a result, row-major with the LAST index fastest (C/HDF5 order).
struct NamedArray {
    std::string name;
    std::vector<std::int64_t> shape;
    std::vector<double> data;
};

/// Everything one detector produced, assembled over tiles in global order.
struct DetectorResult {
    std::string name;
    std::string type; ///< "flux", "energy", "probe", "phasor", "snapshot"
    std::vector<NamedArray> arrays;
    std::map<std::string, double> attrs;
    const NamedArray* find(const std::string& n) const {
        for (auto& a : arrays)
            if (a.name == n)
                return &a;
        return nullptr;
    }
};

/// A field snapshot on a regular grid, for VTKHDF output. Data x-fastest (VTK order), float32.
struct Snapshot {
    std::string detector;
    std::string component; ///< "Ex".."Hz"
    int step = 0;
    double timeFs = 0;
    std::array<int, 3> dims{0, 0, 0};
    std::array<double, 3> originUm{0, 0, 0};
    std::array<double, 3> spacingUm{0, 0, 0};
    std::vector<float> data;
};

struct DeviceSummary {
    std::string name;
    Box tile;
    std::int64_t capacity = 0;
    device::LedgerSnapshot memory;
    comm::CommStats comm;
    /// GPUs: memory the driver reports in use by this run on the device (Device::driverUsedBytes) when
    /// the summary was taken, the cross-check of memory.current; -1 on CPU devices and in estimates.
    std::int64_t driverBytes = -1;
};

/// Result of a forward run (on rank 0: assembled; on other ranks: devices only).
struct RunResult {
    bool completed = false;
    std::string status; ///< "completed", "cancelled", "diverged at step N", ...
    int steps = 0;      ///< steps taken
    int totalSteps = 0;
    double dt = 0; ///< normalised
    double dtFs = 0;
    double seconds = 0; ///< wall time of the time loop
    std::int64_t cellUpdates = 0;
    std::array<int, 3> gridCells{0, 0, 0};
    std::vector<DetectorResult> detectors;
    std::vector<Snapshot> snapshots;
    std::optional<double> objective;
    std::vector<DeviceSummary> devices;
    // ---- value-and-grad runs ----
    /// dJ/dlatent per design region (name = design name, shape [vz, vy, vx]); empty for forward runs.
    std::vector<NamedArray> gradients;
    double forwardSeconds = 0;        ///< wall time of the forward sweep
    double backwardSeconds = 0;       ///< wall time of the reverse sweep (reconstruction + adjoint)
    std::int64_t recomputedSteps = 0; ///< forward steps recomputed during the reverse sweep (tile 0)
    double reconstructionDrift = 0;   ///< reversible: max relative drift seen at checkpoints (max over tiles)
};

/// Per-device memory estimate produced by a dry run of the same allocation path.
struct Estimate {
    std::array<int, 3> gridCells{0, 0, 0};
    int steps = 0;
    std::vector<DeviceSummary> devices; ///< memory.peak per device
    std::int64_t maxDevicePeak() const;
    std::int64_t totalPeak() const;
};

/// Apply a device list from `field` ("run.devices" or "--devices"): "cpu:N", "cuda:0,1", "cuda:all" or
/// "cuda" (= all). A GPU list on a machine without a usable GPU (or a build without CUDA) falls back to
/// `tiles` emulated CPU devices and says why in o.deviceNotice; a GPU id that does not exist while others
/// do is an InputError naming the field.
void selectDevices(const std::string& spec, const std::string& field, int tiles, RunOptions& o);

/// Validate run options against the scene (tile grid, devices). Throws InputError naming the field.
void validateOptions(const scene::Scene& s, const RunOptions& o);
/// Dry-run the allocation plan; no field memory is taken. Throws InputError / MemoryError.
Estimate estimate(const scene::Scene& s, const RunOptions& o);
/// Run the forward simulation. Throws InputError before allocating on bad input; returns with
/// completed=false on cancel or divergence.
RunResult run(const scene::Scene& s, const RunOptions& o);

} // namespace yee::solver
