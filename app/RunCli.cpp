#include "RunCli.hpp"

#include <charconv>
#include <cstdlib>
#include <filesystem>

#include "yee/core/Error.hpp"
#include "yee/run/Devices.hpp"
#include "yee/run/Overrides.hpp"

namespace yee::cli {

namespace {

/// Whole-string positive integer, or nullopt.
std::optional<int> positiveInt(std::string_view s) {
    int v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 1)
        return std::nullopt;
    return v;
}

std::string stemOf(const std::string& scenePath) {
    std::string stem = std::filesystem::path(scenePath).stem().string();
    return stem.empty() ? std::string("scene") : stem;
}

} // namespace

std::string RunArgs::outputPath() const {
    return output.empty() ? defaultOutputPath(scene) : output;
}

std::string RunArgs::snapshotsPath() const {
    return snapshotsDir.empty() ? defaultSnapshotsDir(scene) : snapshotsDir;
}

std::array<int, 3> parseTiles(const std::string& text) {
    std::vector<std::string_view> parts;
    std::string_view rest = text;
    for (auto x = rest.find('x'); x != std::string_view::npos; x = rest.find('x')) {
        parts.push_back(rest.substr(0, x));
        rest.remove_prefix(x + 1);
    }
    parts.push_back(rest);
    std::array<int, 3> t{};
    for (std::size_t a = 0; a < 3; ++a) {
        auto v = parts.size() == 3 ? positiveInt(parts[a]) : std::nullopt;
        if (!v)
            throw InputError("--tiles: expected PXxPYxPZ with positive integers (e.g. 2x1x1), got '" + text +
                             "'");
        t[a] = *v;
    }
    return t;
}

std::string parseDevices(const std::string& text) {
    // The solver's own parser, on scratch options: one syntax for run.devices and --devices.
    run::RunOptions scratch;
    run::selectDevices(text, "--devices", 1, scratch);
    return text;
}

RunArgs parseRunArgs(const std::vector<std::string>& args) {
    RunArgs r;
    std::vector<std::string> positional;
    bool optionsEnded = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (optionsEnded || arg.empty() || arg[0] != '-' || arg == "-") {
            positional.push_back(arg);
            continue;
        }
        if (arg == "--") {
            optionsEnded = true;
            continue;
        }
        std::string name = arg;
        std::optional<std::string> inlineValue;
        if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            name = arg.substr(0, eq);
            inlineValue = arg.substr(eq + 1);
        }
        auto value = [&]() -> std::string {
            if (inlineValue)
                return *inlineValue;
            if (i + 1 >= args.size())
                throw InputError(name + ": missing value");
            return args[++i];
        };
        auto flag = [&](bool& target) {
            if (inlineValue)
                throw InputError(name + ": takes no value");
            target = true;
        };

        if (name == "--check")
            flag(r.check);
        else if (name == "--no-overlap")
            flag(r.noOverlap);
        else if (name == "--grad")
            flag(r.gradient);
        else if (name == "--quiet" || name == "-q")
            flag(r.quiet);
        else if (name == "--version")
            flag(r.version);
        else if (name == "--help" || name == "-h")
            flag(r.help);
        else if (name == "--list-devices")
            flag(r.listDevices);
        else if (name == "--tiles")
            r.tiles = parseTiles(value());
        else if (name == "--devices")
            r.devices = parseDevices(value());
        else if (name == "--precision") {
            std::string p = value();
            if (p == "float32")
                r.precision = run::Precision::Float32;
            else if (p == "float64")
                r.precision = run::Precision::Float64;
            else
                throw InputError("--precision: expected float32 or float64, got '" + p + "'");
        } else if (name == "--capacity") {
            const std::string v = value();
            r.capacity = run::parseCapacity(v, "--capacity");
        } else if (name == "--max-steps") {
            std::string v = value();
            auto n = positiveInt(v);
            if (!n)
                throw InputError("--max-steps: expected a positive integer, got '" + v + "'");
            r.maxSteps = *n;
        } else if (name == "--output" || name == "-o") {
            r.output = value();
            if (r.output.empty())
                throw InputError(name + ": empty file name");
        } else if (name == "--snapshots-dir") {
            r.snapshotsDir = value();
            if (r.snapshotsDir.empty())
                throw InputError(name + ": empty directory name");
        } else if (name == "--checkpoint-every" || name == "--nodes" || name == "--tasks-per-node") {
            std::string v = value();
            auto n = positiveInt(v);
            if (!n)
                throw InputError(name + ": expected a positive integer, got '" + v + "'");
            (name == "--checkpoint-every" ? r.checkpointEvery
             : name == "--nodes"          ? r.nodes
                                          : r.tasksPerNode) = *n;
        } else if (name == "--checkpoint" || name == "--resume" || name == "--export" || name == "--time") {
            std::string& target = name == "--checkpoint" ? r.checkpoint
                                  : name == "--resume"   ? r.resume
                                  : name == "--export"   ? r.exportDir
                                                         : r.timeLimit;
            target = value();
            if (target.empty())
                throw InputError(name + ": empty value");
        } else
            throw InputError("unknown option '" + name + "' (see yee-run --help)");
    }
    if (r.help || r.version || r.listDevices)
        return r;
    // Export options only with --export; restart options only with a run.
    if (r.exportDir.empty()) {
        if (r.nodes || r.tasksPerNode || !r.timeLimit.empty())
            throw InputError(std::string(r.nodes          ? "--nodes"
                                         : r.tasksPerNode ? "--tasks-per-node"
                                                          : "--time") +
                             ": only with --export DIR");
    } else if (r.check || !r.checkpoint.empty() || !r.resume.empty()) {
        throw InputError(std::string(r.check                 ? "--check"
                                     : !r.checkpoint.empty() ? "--checkpoint"
                                                             : "--resume") +
                         ": not with --export (the bundle's job script sets up restart files itself)");
    } else if (r.precision || r.noOverlap || r.maxSteps || r.capacity || !r.output.empty() ||
               !r.snapshotsDir.empty()) {
        // Options the bundle does not carry are refused, not dropped: the job would run otherwise than asked.
        throw InputError(
            std::string(r.precision        ? "--precision"
                        : r.noOverlap      ? "--no-overlap"
                        : r.maxSteps       ? "--max-steps"
                        : r.capacity       ? "--capacity"
                        : r.output.empty() ? "--snapshots-dir"
                                           : "--output") +
            ": not with --export (set it in the scene's run section, or edit the bundle's run.sbatch)");
    }
    if (positional.empty())
        throw InputError("missing SCENE.json (see yee-run --help)");
    if (positional.size() > 1)
        throw InputError("expected one scene file, got '" + positional[1] + "' as well");
    r.scene = positional.front();
    return r;
}

std::string defaultOutputPath(const std::string& scenePath) {
    return stemOf(scenePath) + ".results.h5";
}

std::string defaultSnapshotsDir(const std::string& scenePath) {
    return stemOf(scenePath) + ".fields";
}

run::RunOptions makeRunOptions(const scene::Scene& scene, const RunArgs& args) {
    run::RunOptions o = run::RunOptions::fromScene(scene);
    run::overrideTilesAndDevices(scene, args.tiles, args.devices, "--devices", o);
    if (args.precision)
        o.precision = *args.precision;
    if (args.noOverlap)
        o.overlap = false;
    o.gradient = args.gradient;
    if (args.maxSteps)
        o.maxSteps = *args.maxSteps;
    if (args.capacity)
        o.deviceCapacity = *args.capacity;
    o.checkpointEvery = args.checkpointEvery.value_or(0);
    o.checkpointPath =
        args.checkpoint.empty() && args.checkpointEvery ? defaultRestartPath(args.scene) : args.checkpoint;
    o.resumeFrom = args.resume;
    return o;
}

std::string defaultRestartPath(const std::string& scenePath) {
    return stemOf(scenePath) + ".restart";
}

bundle::BundleOptions makeBundleOptions(const RunArgs& args) {
    bundle::BundleOptions b;
    if (args.tiles)
        b.tiles = *args.tiles;
    if (args.nodes)
        b.nodes = *args.nodes;
    if (args.tasksPerNode)
        b.tasksPerNode = *args.tasksPerNode;
    if (!args.timeLimit.empty())
        b.timeLimit = args.timeLimit;
    b.checkpointEvery = args.checkpointEvery.value_or(0);
    b.gradient = args.gradient;
    // The job's ranks get their devices from the batch system: only the kind of device carries over.
    if (args.devices)
        b.devices = args.devices->rfind("cuda", 0) == 0 ? bundle::Devices::Cuda : bundle::Devices::Cpu;
    return b;
}

int launcherRanks() {
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"}) {
        const char* v = std::getenv(var);
        if (!v || !*v)
            continue;
        if (auto n = positiveInt(v))
            return *n;
    }
    return 1;
}

std::string usageText() {
    return R"(Usage: yee-run [options] SCENE.json

Runs a Yee Studio scene headless: validates it, prints the memory estimate per device, runs the
forward FDTD simulation with a progress bar on stderr, and writes the results (HDF5) and field
snapshots (VTKHDF, ParaView) atomically.

Options:
  --check                 validate and print the memory estimate per device; run nothing, write nothing
  --tiles PXxPYxPZ        tile grid, e.g. 2x1x1 (default: the scene's run.tiles)
  --devices LIST          where tiles run (default: the scene's run.devices; with --tiles alone, one
                          emulated CPU device per tile):
                            cpu:N          N emulated CPU devices, one tile each
                            cuda, cuda:all every visible GPU, one tile each
                            cuda:0,1       these GPUs (ids as --list-devices shows them)
                          without a usable GPU (no GPU, no driver, or a build without CUDA) a GPU list
                          runs on one emulated CPU device per tile, with a note on stderr
  --list-devices          print the visible GPUs (memory, compute capability, bandwidth) or why there are
                          none, and the host's threads and memory; run nothing
  --precision P           float32 or float64 (default: the scene's run.precision)
  --no-overlap            exchange halos after each update instead of overlapping them
  --grad                  also run the adjoint: write dJ/dlatent of every design to /gradient/<name>
  --max-steps N           stop after N time steps (default: the scene's duration)
  --capacity SIZE|GPU     memory each device may hold, e.g. 80GiB, 40GB, or a GPU model (h100, a100-40gb,
                          h200, ...): with --check and --tiles, sizes a cluster run from a workstation.
                          Default: a GPU's free memory; emulated CPU devices share 90% of the host memory
                          available now (MemAvailable / cgroup limit)
  -o, --output FILE.h5    results file (default: <scene-stem>.results.h5 in the current directory)
  --snapshots-dir DIR     VTKHDF snapshot files (default: <scene-stem>.fields/)
  -q, --quiet             no progress bar, estimate or summary tables
  --checkpoint-every N    write restart files every N steps (and when cancelled); forward runs only
  --checkpoint FILE       restart file base: each rank writes FILE.rank<r> (default: <scene-stem>.restart)
  --resume FILE           continue from the restart files FILE.rank<r>; the results equal an uninterrupted run
  --export DIR            write a cluster bundle (scene, SLURM run.sbatch, README.md) into DIR; run nothing
  --nodes N               with --export: nodes to request (default 1)
  --tasks-per-node N      with --export: ranks per node (default: tiles / nodes)
  --time T                with --export: wall-time limit, SLURM syntax (default 01:00:00)
  --version               print the version and exit
  -h, --help              print this help and exit

Under mpirun/srun with more than one rank, each rank runs one tile (MpiComm): the tile grid must have
exactly as many tiles as ranks; only rank 0 prints and writes. With a GPU device list each rank takes
one GPU of the list, the (node-local rank modulo list length)-th, and the ranks exchange halos GPU to
GPU over NCCL; a build without NCCL stages them through host memory over MPI (and says so).

Exit codes:
  0  success
  2  bad input: scene, options, command line, an output location that cannot be written, or not
     enough memory (nothing is written; --check gives the same verdict as the run)
  3  runtime failure: divergence, I/O or communication error (a results file marked incomplete is
     written when the run got far enough)
  4  cancelled by SIGINT/SIGTERM (a results file marked incomplete is written)
)";
}

} // namespace yee::cli
