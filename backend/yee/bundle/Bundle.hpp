#pragma once
/// \file Bundle.hpp
/// Cluster export bundles: a folder that takes a scene from a workstation to a SLURM cluster.
///
/// ```
/// <dir>/scene.json   the scene, its run section set to the bundle's tile grid
/// <dir>/scene.h5     sidecar arrays (design parameters), only when the scene has some
/// <dir>/run.sbatch   the job script: one MPI rank per tile, `srun yee-run --tiles PXxPYxPZ ...`
/// <dir>/README.md    what is in the folder and how to submit, run elsewhere, read results, resume
/// ```
///
/// The job writes `results.h5` and `fields/` into the folder: the same files, with the same bits, as a
/// local run of the scene. No Qt here; the studio and `yee-run --export` both call exportBundle().
#include <array>
#include <cstdint>
#include <string>

#include "yee/scene/Scene.hpp"

namespace yee::bundle {

/// File names inside a bundle folder.
inline constexpr const char* kSceneFile = "scene.json";
inline constexpr const char* kSidecarFile = "scene.h5"; ///< written by scene::saveScene() when needed
inline constexpr const char* kScriptFile = "run.sbatch";
inline constexpr const char* kReadmeFile = "README.md";
/// What the job writes into the folder.
inline constexpr const char* kResultsFile = "results.h5";
inline constexpr const char* kSnapshotsDir = "fields";
inline constexpr const char* kRestartBase = "restart"; ///< restart files restart.rank<r>

/// Which devices the ranks of the job use.
enum class Devices {
    FromScene, ///< CUDA when the scene's run.devices is "cuda:...", else CPU
    Cpu,       ///< CPU ranks: MPI alone
    Cuda,      ///< one GPU per rank: NCCL bootstrapped over MPI
};

/// How the batch job is laid out. Every field is checked by resolveResources().
struct BundleOptions {
    std::array<int, 3> tiles{0, 0, 0}; ///< tile grid px, py, pz; {0, 0, 0}: the scene's run.tiles
    int nodes = 1;                     ///< nodes requested (`--nodes`)
    int tasksPerNode = 0;              ///< ranks per node; 0: tiles / nodes (must divide evenly)
    std::string timeLimit =
        "01:00:00";        ///< `--time` in SLURM syntax: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS
    bool gradient = false; ///< value-and-grad run (`yee-run --grad`)
    Devices devices = Devices::FromScene;
    int cpusPerTask = 0;     ///< cores per rank; 0: 4 on CPU ranks, not requested on GPU ranks
    int checkpointEvery = 0; ///< > 0: restart files every N steps; a resubmitted job resumes from them
    std::string jobName;     ///< `--job-name`; empty: made from the scene name
};

/// The resources a bundle's job requests, resolved from the options and the scene.
struct BatchResources {
    std::array<int, 3> tiles{1, 1, 1};
    int ranks = 1;        ///< = tiles, one rank per tile
    int nodes = 1;        ///< `--nodes`
    int tasksPerNode = 1; ///< `--ntasks-per-node`
    int cpusPerTask = 0;  ///< `--cpus-per-task` (0: not requested)
    int gpusPerTask = 0;  ///< `--gpus-per-task` (1 on GPU ranks, else 0)
    bool cuda = false;    ///< GPU ranks (NCCL over an MPI bootstrap) rather than CPU ranks (MPI)
    std::string timeLimit;
    std::string jobName;
    int steps = 0; ///< time steps of the run
    std::int64_t memoryPerRankBytes =
        0; ///< largest per-rank memory estimate (same dry run as yee-run --check)
};

/// Checks the options against the scene and resolves the job's resources. Also validates the bundled
/// scene (its run section set to the tile grid) and dry-runs its allocation plan, so an impossible tile
/// grid is refused here rather than on the cluster. Throws yee::InputError with one line naming the
/// field, e.g. `bundle.tasks_per_node: 3 tasks per node x 2 nodes = 6 ranks, but the tile grid 2x2x1 has
/// 4 tiles (one rank per tile)`, or the scene field at fault.
BatchResources resolveResources(const scene::Scene& scene, const BundleOptions& options);

/// The scene as the bundle stores it: `scene` with run.tiles set to the tile grid and run.devices to
/// "cpu:<ranks>" (CPU) or "cuda:all" (GPU), so the file also runs as is with a local `yee-run`.
scene::Scene bundledScene(const scene::Scene& scene, const BatchResources& resources);

/// The text of run.sbatch for resolved resources. `gradient` adds `--grad`; `checkpointEvery` > 0
/// adds restart files, a time-limit signal and automatic resume.
std::string sbatchScript(const scene::Scene& scene, const BatchResources& resources, bool gradient,
                         int checkpointEvery);

/// The text of README.md for resolved resources (`sidecar`: the folder holds scene.h5).
std::string readmeText(const scene::Scene& scene, const BatchResources& resources, bool gradient,
                       int checkpointEvery, bool sidecar);

/// Writes the bundle folder `dir` atomically: everything is written into a temporary sibling folder that
/// is then renamed to `dir`. An existing `dir` is replaced only when it is empty or holds nothing but
/// an earlier bundle's own files (never results or anything else). The parent folder must exist.
/// Returns the resolved resources. Throws InputError (bad options or scene, unusable `dir`) before
/// writing anything, RunError on I/O failure (then `dir` is left as it was).
BatchResources exportBundle(const scene::Scene& scene, const std::string& dir, const BundleOptions& options);

} // namespace yee::bundle
