#include "yee/bundle/Bundle.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

#include "yee/core/Error.hpp"
#include "yee/device/MemoryLedger.hpp"
#include "yee/files/AtomicFile.hpp"
#include "yee/run/Run.hpp"
#include "yee/scene/SceneJson.hpp"

namespace yee::bundle {

namespace fs = std::filesystem;

namespace {

constexpr int kDefaultCpusPerTask = 4;

std::string gridText(const std::array<int, 3>& t) {
    return std::to_string(t[0]) + "x" + std::to_string(t[1]) + "x" + std::to_string(t[2]);
}

/// SLURM time formats: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, with a positive total.
bool validTimeLimit(const std::string& t) {
    static const std::regex re(
        R"(^(?:(\d{1,4})-(\d{1,2})(?::(\d{1,2})(?::(\d{1,2}))?)?|(\d{1,6})(?::(\d{1,2})(?::(\d{1,2}))?)?)$)");
    std::smatch m;
    if (!std::regex_match(t, m, re))
        return false;
    bool positive = false;
    for (std::size_t i = 1; i < m.size(); ++i)
        if (m[i].matched && std::stol(m[i].str()) > 0)
            positive = true;
    // Minutes and seconds after a colon stay below 60 (hours after a day below 24).
    if (m[1].matched) {
        if (std::stoi(m[2].str()) > 23)
            return false;
        for (int i : {3, 4})
            if (m[i].matched && std::stoi(m[i].str()) > 59)
                return false;
    } else {
        const bool hms = m[7].matched;
        if (m[6].matched && std::stoi(m[6].str()) > 59)
            return false;
        if (hms && std::stoi(m[7].str()) > 59)
            return false;
    }
    return positive;
}

std::string jobNameFor(const std::string& requested, const std::string& sceneName) {
    const std::string& src = requested.empty() ? sceneName : requested;
    std::string out;
    for (char c : src) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                        c == '_' || c == '.' || c == '-';
        if (ok)
            out += c;
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    while (!out.empty() && (out.back() == '-' || out.back() == '.'))
        out.pop_back();
    while (!out.empty() && (out.front() == '-' || out.front() == '.'))
        out.erase(out.begin());
    if (out.size() > 64)
        out.resize(64);
    return out.empty() ? std::string("yee-studio") : out;
}

bool sceneWantsCuda(const scene::Scene& s) {
    return s.run.devices.rfind("cuda", 0) == 0;
}

/// The yee-run arguments after the executable, as the script passes them (without restart options).
std::string runArguments(const BatchResources& r, bool gradient) {
    std::string a = "--tiles " + gridText(r.tiles);
    if (gradient)
        a += " --grad";
    return a;
}

std::string outputArguments() {
    return std::string(kSceneFile) + " --output " + kResultsFile + " --snapshots-dir " + kSnapshotsDir;
}

void syncDirectory(const fs::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return;
    (void)::fsync(fd); // best effort: some file systems refuse fsync on directories
    ::close(fd);
}

} // namespace

BatchResources resolveResources(const scene::Scene& s, const BundleOptions& o) {
    BatchResources r;
    r.tiles = o.tiles == std::array<int, 3>{0, 0, 0} ? s.run.tiles : o.tiles;
    for (int a = 0; a < 3; ++a)
        if (r.tiles[a] < 1)
            throw InputError("bundle.tiles[" + std::to_string(a) + "]: must be >= 1 (got " +
                             std::to_string(r.tiles[a]) + ")");
    r.ranks = r.tiles[0] * r.tiles[1] * r.tiles[2];
    if (o.nodes < 1)
        throw InputError("bundle.nodes: must be >= 1 (got " + std::to_string(o.nodes) + ")");
    if (o.nodes > r.ranks)
        throw InputError("bundle.nodes: " + std::to_string(o.nodes) + " nodes for " +
                         std::to_string(r.ranks) + " ranks (tile grid " + gridText(r.tiles) +
                         ", one rank per tile) would leave nodes idle");
    r.nodes = o.nodes;
    if (o.tasksPerNode < 0)
        throw InputError("bundle.tasks_per_node: must be >= 1 (got " + std::to_string(o.tasksPerNode) + ")");
    if (o.tasksPerNode == 0) {
        if (r.ranks % r.nodes != 0)
            throw InputError("bundle.nodes: the tile grid " + gridText(r.tiles) + " has " +
                             std::to_string(r.ranks) + " tiles, which do not spread evenly over " +
                             std::to_string(r.nodes) + " nodes (one rank per tile)");
        r.tasksPerNode = r.ranks / r.nodes;
    } else {
        if (o.tasksPerNode * r.nodes != r.ranks)
            throw InputError("bundle.tasks_per_node: " + std::to_string(o.tasksPerNode) +
                             " tasks per node x " + std::to_string(r.nodes) +
                             " nodes = " + std::to_string(o.tasksPerNode * r.nodes) +
                             " ranks, but the tile grid " + gridText(r.tiles) + " has " +
                             std::to_string(r.ranks) + " tiles (one rank per tile)");
        r.tasksPerNode = o.tasksPerNode;
    }
    if (!validTimeLimit(o.timeLimit))
        throw InputError(
            "bundle.time_limit: expected a positive SLURM time (MM, HH:MM:SS or D-HH:MM:SS, e.g. "
            "02:00:00), got '" +
            o.timeLimit + "'");
    r.timeLimit = o.timeLimit;
    r.cuda = o.devices == Devices::Cuda || (o.devices == Devices::FromScene && sceneWantsCuda(s));
    if (o.cpusPerTask < 0)
        throw InputError("bundle.cpus_per_task: must be >= 1 (got " + std::to_string(o.cpusPerTask) + ")");
    r.cpusPerTask = o.cpusPerTask > 0 ? o.cpusPerTask : (r.cuda ? 0 : kDefaultCpusPerTask);
    r.gpusPerTask = r.cuda ? 1 : 0;
    if (o.checkpointEvery < 0)
        throw InputError("bundle.checkpoint_every: must be >= 0 (got " + std::to_string(o.checkpointEvery) +
                         ")");
    if (o.checkpointEvery > 0 && o.gradient)
        throw InputError(
            "bundle.checkpoint_every: restart files hold forward runs only, not value-and-grad runs "
            "(bundle.gradient)");
    r.jobName = jobNameFor(o.jobName, s.name);

    // The bundled scene must run as exported: validate it and dry-run its allocation plan (no memory is
    // taken), which refuses tile grids the solver cannot use (thinner than the stencil, ...).
    const scene::Scene b = bundledScene(s, r);
    scene::validateScene(b);
    run::RunOptions ro = run::RunOptions::fromScene(b);
    ro.gradient = o.gradient;
    const run::Estimate e = run::estimate(b, ro);
    r.steps = e.steps;
    r.memoryPerRankBytes = e.maxDevicePeak();
    return r;
}

scene::Scene bundledScene(const scene::Scene& s, const BatchResources& r) {
    scene::Scene b = s;
    b.run.tiles = r.tiles;
    b.run.devices = r.cuda ? std::string("cuda:all") : "cpu:" + std::to_string(r.ranks);
    return b;
}

std::string sbatchScript(const scene::Scene& s, const BatchResources& r, bool gradient, int checkpointEvery) {
    const bool restart = checkpointEvery > 0;
    std::ostringstream o;
    o << "#!/bin/bash\n"
      << "# Yee Studio batch job: \"" << s.name << "\", tile grid " << gridText(r.tiles) << " = " << r.ranks
      << (r.ranks == 1 ? " rank" : " ranks") << ", one MPI rank per tile"
      << (r.cuda ? ", one GPU per rank" : "") << ".\n"
      << "# Written by Yee Studio " << YEE_VERSION << ". Submit from this folder:  sbatch " << kScriptFile
      << "\n"
      << "#\n"
      << "#SBATCH --job-name=" << r.jobName << "\n"
      << "#SBATCH --nodes=" << r.nodes << "\n"
      << "#SBATCH --ntasks-per-node=" << r.tasksPerNode << "\n"
      << "#SBATCH --ntasks=" << r.ranks << "\n";
    if (r.gpusPerTask > 0)
        o << "#SBATCH --gpus-per-task=" << r.gpusPerTask << "\n";
    if (r.cpusPerTask > 0)
        o << "#SBATCH --cpus-per-task=" << r.cpusPerTask << "\n";
    o << "#SBATCH --time=" << r.timeLimit << "\n"
      << "#SBATCH --output=slurm-%j.out\n";
    if (restart)
        o << "# Five minutes before the time limit SLURM sends SIGTERM: yee-run writes a last restart file,\n"
          << "# marks results.h5 incomplete and stops; submitting the job again resumes from there.\n"
          << "#SBATCH --signal=TERM@300\n";
    o << "#\n"
      << "# ---- SITE-SPECIFIC: partition and account (remove one '#' to enable, and edit) ----\n"
      << "##SBATCH --partition=PARTITION\n"
      << "##SBATCH --account=ACCOUNT\n"
      << "\n"
      << "set -euo pipefail\n"
      << "\n"
      << "# ---- SITE-SPECIFIC: environment modules (uncomment and edit; nothing is loaded by default) ----\n"
      << "# module load openmpi hdf5\n";
    if (r.cuda)
        o << "# module load cuda nccl\n";
    o << "\n"
      << "cd \"${SLURM_SUBMIT_DIR:-.}\"\n"
      << "YEE_RUN=\"${YEE_RUN:-yee-run}\"   # or the full path of yee-run on the compute nodes\n";
    if (r.cpusPerTask > 0)
        o << "export OMP_NUM_THREADS=" << r.cpusPerTask << "\n";
    o << "\n";
    if (r.cuda)
        o << "# GPU ranks: one GPU per tile; NCCL is bootstrapped over MPI (rank 0 creates the NCCL id and\n"
          << "# broadcasts it over MPI), then halo exchanges and reductions run over NCCL.\n";
    else
        o << "# CPU ranks: halo exchanges and reductions run over MPI alone (no NCCL).\n";
    std::string restartArgs;
    if (restart) {
        o << "# Restart files every " << checkpointEvery << " steps (" << kRestartBase
          << ".rank<r>); when they exist, this job resumes from them.\n"
          << "resume=()\n"
          << "if [ -e " << kRestartBase << ".rank0 ]; then\n"
          << "  resume=(--resume " << kRestartBase << ")\n"
          << "  echo \"resuming from restart files " << kRestartBase << ".rank*\"\n"
          << "fi\n";
        restartArgs = " --checkpoint-every " + std::to_string(checkpointEvery) + " --checkpoint " +
                      kRestartBase +
                      " ${resume[@]+\"${resume[@]}\"}"; // empty-array safe under set -u in bash < 4.4
    }
    const std::string srunOpts = r.cpusPerTask > 0 ? " --cpus-per-task=" + std::to_string(r.cpusPerTask) : "";
    o << "srun" << srunOpts << " \"$YEE_RUN\" " << runArguments(r, gradient) << restartArgs << " "
      << outputArguments() << "\n";
    if (restart)
        o << "rm -f " << kRestartBase << ".rank*   # the run completed: the next submission starts afresh\n";
    o << "\n"
      << "# Without SLURM, any MPI launcher runs the same job (one rank per tile):\n"
      << "#   mpirun -np " << r.ranks << " yee-run " << runArguments(r, gradient) << " " << outputArguments()
      << "\n";
    return o.str();
}

std::string readmeText(const scene::Scene& s, const BatchResources& r, bool gradient, int checkpointEvery,
                       bool sidecar) {
    std::ostringstream o;
    o << "# " << (s.name.empty() ? std::string("Yee Studio scene") : s.name)
      << ": Yee Studio batch bundle\n\n"
      << "Exported by Yee Studio " << YEE_VERSION << ". A " << (gradient ? "value-and-gradient" : "forward")
      << " FDTD run of " << r.steps << " time steps on a " << gridText(r.tiles) << " tile grid: " << r.ranks
      << (r.ranks == 1 ? " MPI rank" : " MPI ranks") << " (one per tile) on " << r.nodes
      << (r.nodes == 1 ? " node" : " nodes") << ", " << r.tasksPerNode << " per node, "
      << (r.cuda ? "one GPU per rank" : std::to_string(r.cpusPerTask) + " CPU cores per rank")
      << ". Memory estimate: at most " << device::formatBytes(r.memoryPerRankBytes) << " per rank.\n\n"
      << "| file | content |\n| --- | --- |\n"
      << "| `" << kSceneFile << "` | the scene (its `run` section holds the tile grid) |\n";
    if (sidecar)
        o << "| `" << kSidecarFile << "` | design parameter arrays (HDF5), read with the scene |\n";
    o << "| `" << kScriptFile << "` | the SLURM job script |\n\n"
      << "## Submit\n\n"
      << "1. Edit the places marked `SITE-SPECIFIC` in `" << kScriptFile
      << "`: partition, account and `module load` lines.\n"
      << "2. Make `yee-run` available on the compute nodes (on `PATH`, or `export "
         "YEE_RUN=/path/to/yee-run`).\n"
      << "3. From this folder: `sbatch " << kScriptFile << "`\n\n"
      << (r.cuda ? "Each rank drives one GPU; NCCL is bootstrapped over MPI.\n\n"
                 : "Ranks communicate over MPI.\n\n")
      << "Without SLURM: `mpirun -np " << r.ranks << " yee-run " << runArguments(r, gradient) << " "
      << outputArguments() << "`. On one machine without MPI, `yee-run " << kSceneFile
      << "` runs the same tiles as emulated devices.\n\n"
      << "## Results\n\n"
      << "`" << kResultsFile << "` (HDF5: detectors, objective" << (gradient ? ", gradients" : "")
      << ", telemetry; open it in Yee Studio) and `" << kSnapshotsDir
      << "/` (field snapshots as VTKHDF, open the `.vtkhdf.series` files in ParaView). They are the files a "
         "local run writes, bit for bit.\n";
    if (checkpointEvery > 0)
        o << "\n## Restart\n\n"
          << "The job writes restart files `" << kRestartBase << ".rank<r>` every " << checkpointEvery
          << " steps and when SLURM signals the end of its time limit. Submit the job again and it resumes "
             "from "
             "them; the resumed run gives the same bits as one that never stopped. They are removed when the "
             "run completes.\n";
    return o.str();
}

BatchResources exportBundle(const scene::Scene& s, const std::string& dir, const BundleOptions& o) {
    const BatchResources r = resolveResources(s, o);
    const scene::Scene b = bundledScene(s, r);
    if (dir.empty())
        throw InputError("bundle: empty folder name");
    fs::path target = fs::absolute(fs::path(dir)).lexically_normal();
    if (!target.has_filename())
        target = target.parent_path();
    const fs::path parent = target.parent_path();
    std::error_code ec;
    if (!fs::is_directory(parent, ec))
        throw InputError("bundle: folder '" + parent.string() + "' does not exist");
    if (::access(parent.c_str(), W_OK) != 0)
        throw InputError("bundle: folder '" + parent.string() + "' is not writable");
    const bool replace = fs::exists(fs::symlink_status(target, ec));
    if (replace) {
        if (!fs::is_directory(fs::symlink_status(target, ec)))
            throw InputError("bundle: '" + target.string() + "' exists and is not a folder");
        const std::set<std::string> own{kSceneFile, kSidecarFile, kScriptFile, kReadmeFile};
        for (const auto& e : fs::directory_iterator(target, ec)) {
            const std::string name = e.path().filename().string();
            if (!own.count(name) || !e.is_regular_file())
                throw InputError("bundle: folder '" + target.string() + "' already holds '" + name +
                                 "', which is not part of a bundle; choose a new folder or empty it");
        }
        if (ec)
            throw InputError("bundle: cannot list folder '" + target.string() + "': " + ec.message());
    }

    const std::string suffix = "." + std::to_string(::getpid());
    const fs::path temp = target.string() + ".tmp" + suffix;
    fs::remove_all(temp, ec); // a stale temporary of this very process id
    if (!fs::create_directory(temp, ec))
        throw RunError("cannot create folder '" + temp.string() + "': " + ec.message());
    try {
        scene::saveScene(b, (temp / kSceneFile).string());
        files::writeTextAtomically((temp / kScriptFile).string(),
                                   sbatchScript(s, r, o.gradient, o.checkpointEvery));
        fs::permissions(temp / kScriptFile,
                        fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                        fs::perm_options::add);
        const bool sidecar = fs::exists(temp / kSidecarFile);
        files::writeTextAtomically((temp / kReadmeFile).string(),
                                   readmeText(s, r, o.gradient, o.checkpointEvery, sidecar));
        syncDirectory(temp);
        if (replace) {
            // Two renames: a crash between them leaves the old bundle at <dir>.old.<pid>, never half a
            // bundle.
            const fs::path old = target.string() + ".old" + suffix;
            fs::remove_all(old, ec);
            fs::rename(target, old);
            fs::rename(temp, target);
            fs::remove_all(old, ec);
        } else {
            fs::rename(temp, target);
        }
        syncDirectory(parent);
    } catch (const fs::filesystem_error& e) {
        fs::remove_all(temp, ec);
        throw RunError("bundle: cannot write '" + target.string() + "': " + e.code().message());
    } catch (...) {
        fs::remove_all(temp, ec);
        throw;
    }
    return r;
}

} // namespace yee::bundle
