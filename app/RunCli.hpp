#pragma once
/// \file RunCli.hpp
/// The command line of `yee-run`: parsing into a plain struct, defaults, and turning it into
/// run::RunOptions. Pure functions, no I/O, so tests can drive them with argument lists.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "yee/bundle/Bundle.hpp"
#include "yee/run/Run.hpp"

namespace yee::cli {

/// Process exit codes of yee-run.
enum ExitCode : int {
    kExitOk = 0,        ///< run complete (or --check / --help / --version)
    kExitBadInput = 2,  ///< bad scene, options or command line, or not enough memory; nothing written
    kExitFailure = 3,   ///< runtime failure: divergence, I/O or communication error
    kExitCancelled = 4, ///< SIGINT / SIGTERM: partial results written, marked incomplete
};

/// A parsed `yee-run` command line. Unset optionals mean "as the scene says".
struct RunArgs {
    std::string scene;                       ///< SCENE.json (required unless help/version)
    bool check = false;                      ///< --check: validate and estimate only
    std::optional<std::array<int, 3>> tiles; ///< --tiles PXxPYxPZ
    std::optional<std::string> devices;      ///< --devices cpu:N | cuda | cuda:all | cuda:ID[,ID...]
    std::optional<run::Precision> precision; ///< --precision float32|float64
    bool noOverlap = false;                  ///< --no-overlap
    bool gradient = false;                   ///< --grad: value and gradient (scene's "gradient" section)
    std::optional<int> maxSteps;             ///< --max-steps N
    std::optional<std::int64_t> capacity;    ///< --capacity SIZE|GPU: bytes per device (run::parseCapacity)
    std::string output;                      ///< --output FILE.h5 (empty: defaultOutputPath())
    std::string snapshotsDir;                ///< --snapshots-dir DIR (empty: defaultSnapshotsDir())
    bool quiet = false;                      ///< --quiet / -q
    bool version = false;                    ///< --version
    bool help = false;                       ///< --help / -h
    bool listDevices = false;                ///< --list-devices: print the GPUs and the host, run nothing
    // ---- restart files (forward runs) ----
    std::optional<int> checkpointEvery; ///< --checkpoint-every N: a restart file every N steps
    std::string checkpoint;             ///< --checkpoint FILE: restart file base (default <stem>.restart)
    std::string resume;                 ///< --resume FILE: continue from the restart files FILE.rank<r>
    // ---- cluster export: write a bundle (scene, sbatch script, README) and run nothing ----
    std::string exportDir;           ///< --export DIR
    std::optional<int> nodes;        ///< --nodes N (with --export)
    std::optional<int> tasksPerNode; ///< --tasks-per-node N (with --export)
    std::string timeLimit;           ///< --time D-HH:MM:SS (with --export)

    /// --output, or the default next to the current directory.
    std::string outputPath() const;
    /// --snapshots-dir, or the default next to the current directory.
    std::string snapshotsPath() const;
};

/// Parses the arguments after the program name. Options may come before or after the scene, as
/// `--name value` or `--name=value`; `--` ends options. Throws yee::InputError with a one-line
/// message naming the option (e.g. `--tiles: expected PXxPYxPZ ... got '2x1'`).
RunArgs parseRunArgs(const std::vector<std::string>& args);

/// `PXxPYxPZ` with positive integers, e.g. "2x1x1". Throws InputError naming --tiles.
std::array<int, 3> parseTiles(const std::string& text);
/// A device list: `cpu:N` (N >= 1), `cuda`, `cuda:all` or `cuda:ID[,ID...]`; returns it unchanged.
/// Checked with run::selectDevices: a malformed list, a GPU listed twice, or (on a machine with GPUs)
/// a GPU that does not exist throws InputError naming --devices. No GPU at all is not an error here (the
/// run falls back to CPU devices, see makeRunOptions).
std::string parseDevices(const std::string& text);

/// `<scene stem>.results.h5` in the current directory.
std::string defaultOutputPath(const std::string& scenePath);
/// `<scene stem>.fields` in the current directory.
std::string defaultSnapshotsDir(const std::string& scenePath);

/// RunOptions::fromScene(scene) with the command-line overrides applied. --devices goes through
/// run::selectDevices (field "--devices") once the tile grid is known, so a GPU list on a machine
/// without a usable GPU falls back to one emulated CPU device per tile and sets deviceNotice. --tiles
/// without --devices sets one CPU device per tile (a scene asking for GPUs keeps its GPU list).
run::RunOptions makeRunOptions(const scene::Scene& scene, const RunArgs& args);

/// Number of ranks the launcher (mpirun, srun, hydra) started, from OMPI_COMM_WORLD_SIZE, PMI_SIZE or
/// SLURM_NTASKS (first one set); 1 when none is set or parsable.
int launcherRanks();

/// `<scene stem>.restart` in the current directory (restart files `<stem>.restart.rank<r>`).
std::string defaultRestartPath(const std::string& scenePath);

/// The bundle options of `yee-run --export`: --tiles, --nodes, --tasks-per-node, --time,
/// --checkpoint-every, --grad, and --devices as a kind (cuda...: one GPU per rank, cpu...: CPU ranks); the
/// job name as the scene says. parseRunArgs refuses the run options a bundle does not carry.
bundle::BundleOptions makeBundleOptions(const RunArgs& args);

/// The --help text.
std::string usageText();

} // namespace yee::cli
