/// yee-opt: optimise the design regions of a scene (its "optimization" section) from the command line.
///
///   yee-opt SCENE.json [--iterations N] [--history FILE.h5] [--resume FILE.h5] [--design-out FILE.json]
///                      [--export-prefix P] [--level L] [--trace smooth|staircase] [--gds-layer L[/D]]
///                      [--tiles PXxPYxPZ] [--devices cpu:N|cuda:...] [--precision float32|float64] [-q]
///   yee-opt --export HISTORY.h5 [--evaluation K|last] [--export-prefix P] [--level L] [--trace ...]
///
/// Each evaluation is one value-and-grad on the prepared scene (more for the worst-case form and
/// constraints); the history is written atomically after every evaluation and --resume continues one
/// bit for bit. Ctrl-C / SIGTERM stops after the current evaluation with a valid history. Under
/// mpirun/srun each rank runs one tile on the device yee-run would give it (GPU ranks exchange halos over
/// NCCL when each has a GPU of its own, else over MPI). Exit codes as yee-run: 0 done, 2 bad input,
/// 3 failure, 4 cancelled.
///
/// After the loop (or with --export, for any evaluation of a history) the design goes out as density
/// (P.design.h5, P.<design>.density.vtkhdf) and as traced geometry (P.geometry.json, a plain scene to
/// re-simulate with yee-run, and P.gds); see opt/DesignExport.hpp.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "RunCli.hpp"
#include "yee/core/Error.hpp"
#include "yee/opt/DesignExport.hpp"
#include "yee/opt/History.hpp"
#include "yee/opt/Optimize.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/scene/Schema.hpp"
#ifdef YEE_HAVE_MPI
#include "MpiLaunch.hpp"
#include "yee/comm/MpiComm.hpp"
#endif

using namespace yee;

namespace {

std::atomic<bool> gCancel{false};

extern "C" void onSignal(int) {
    gCancel = true;
}

struct OptArgs {
    cli::RunArgs run; ///< scene, --tiles, --devices, --precision, -q
    std::optional<int> iterations;
    std::string history; ///< default <stem>.history.h5
    std::string resume;
    std::string designOut;  ///< default <stem>.optimized.json
    std::string exportFrom; ///< --export HISTORY.h5: write one evaluation's design, do not optimise
    std::string evaluation = "last";
    opt::DesignExportOptions exportOptions; ///< prefix default <stem>
    bool help = false, version = false;
};

/// True when `a` and `b` name the same file, existing or not (lexically normalised absolute paths).
bool samePath(const std::string& a, const std::string& b) {
    const auto norm = [](const std::string& p) { return std::filesystem::absolute(p).lexically_normal(); };
    std::error_code ec;
    return norm(a) == norm(b) || std::filesystem::equivalent(a, b, ec);
}

/// The re-simulable design's sidecar (its latent values, scene::sidecarPath) must not overwrite a history
/// being written or read: `--design-out run.json --history run.h5` would leave no history. Throws
/// InputError naming --design-out.
void refuseSidecarOver(const std::string& designOut,
                       const std::vector<std::pair<std::string, std::string>>& histories) {
    const std::string sidecar = scene::sidecarPath(designOut);
    for (const auto& [option, path] : histories)
        if (!path.empty() && samePath(sidecar, path))
            throw InputError("--design-out: its latent values go to '" + sidecar + "', which is the " +
                             option + " file; choose another --design-out name");
}

std::string stem(const std::string& scene) {
    return std::filesystem::path(scene).stem().string();
}

const char* kUsage =
    "usage: yee-opt SCENE.json [options]\n"
    "Optimise the scene's design regions as its \"optimization\" section says (MMA, CCSA or Adam).\n"
    "  --iterations N        evaluations at most (default: optimization.iterations)\n"
    "  --history FILE.h5     history written after every evaluation (default <stem>.history.h5)\n"
    "  --resume FILE.h5      continue an interrupted optimisation from its history\n"
    "  --design-out FILE     the scene with the final design (default <stem>.optimized.json)\n"
    "  --export-prefix P     design files P.design.h5, P.<design>.density.vtkhdf, P.geometry.json, P.gds\n"
    "                        (default <stem>)\n"
    "  --level L             density level of the traced geometry, in (0, 1) (default 0.5)\n"
    "  --trace MODE          smooth (interpolated level set) or staircase (voxel faces) (default smooth)\n"
    "  --gds-layer L[/D]     GDSII layer and datatype of the geometry (default 1/0)\n"
    "  --export HISTORY.h5   write the design of one evaluation of a history and stop\n"
    "  --evaluation K        with --export: evaluation index or 'last' (default last)\n"
    "  --tiles PXxPYxPZ      tile grid (default: run.tiles)\n"
    "  --devices LIST        cpu:N, cuda, cuda:all or cuda:ID[,ID...] (default: run.devices)\n"
    "  --precision P         float32 or float64 (default: run.precision)\n"
    "  -q, --quiet           no per-evaluation lines\n"
    "Under mpirun/srun each rank runs one tile on the device yee-run would give it (GPU halos over NCCL\n"
    "when every rank has a GPU of its own). Ctrl-C stops after the current evaluation.\n";

double parseNumber(const std::string& option, const std::string& s) {
    try {
        std::size_t used = 0;
        const double v = std::stod(s, &used);
        if (used == s.size())
            return v;
    } catch (const std::exception&) {
    }
    throw InputError(option + ": expected a number, got '" + s + "'");
}

void parseGdsLayer(const std::string& s, opt::DesignExportOptions& o) {
    const auto slash = s.find('/');
    auto part = [&](const std::string& t) {
        try {
            std::size_t used = 0;
            const int v = std::stoi(t, &used);
            if (used == t.size() && v >= 0 && v <= 32767)
                return v;
        } catch (const std::exception&) {
        }
        throw InputError("--gds-layer: expected LAYER or LAYER/DATATYPE, each 0..32767, got '" + s + "'");
    };
    o.gdsLayer = part(s.substr(0, slash));
    o.gdsDatatype = slash == std::string::npos ? 0 : part(s.substr(slash + 1));
}

OptArgs parseArgs(const std::vector<std::string>& a) {
    OptArgs o;
    for (std::size_t i = 0; i < a.size(); ++i) {
        std::string k = a[i], v;
        const auto eq = k.find('=');
        const bool hasEq = k.rfind("--", 0) == 0 && eq != std::string::npos;
        if (hasEq) {
            v = k.substr(eq + 1);
            k = k.substr(0, eq);
        }
        auto value = [&]() -> std::string {
            if (hasEq)
                return v;
            if (i + 1 >= a.size())
                throw InputError(k + ": needs a value");
            return a[++i];
        };
        if (k == "-h" || k == "--help")
            o.help = true;
        else if (k == "--version")
            o.version = true;
        else if (k == "-q" || k == "--quiet")
            o.run.quiet = true;
        else if (k == "--iterations") {
            const std::string s = value();
            try {
                std::size_t used = 0;
                const int n = std::stoi(s, &used);
                if (used != s.size() || n < 1)
                    throw std::invalid_argument("");
                o.iterations = n;
            } catch (const std::exception&) {
                throw InputError("--iterations: expected a whole number >= 1, got '" + s + "'");
            }
        } else if (k == "--history")
            o.history = value();
        else if (k == "--resume")
            o.resume = value();
        else if (k == "--design-out")
            o.designOut = value();
        else if (k == "--export")
            o.exportFrom = value();
        else if (k == "--evaluation")
            o.evaluation = value();
        else if (k == "--export-prefix")
            o.exportOptions.prefix = value();
        else if (k == "--level") {
            const std::string t = value();
            o.exportOptions.level = parseNumber(k, t);
            if (!(o.exportOptions.level > 0 && o.exportOptions.level < 1))
                throw InputError("--level: the traced density level must lie in (0, 1), got " + t);
        } else if (k == "--trace") {
            const std::string m = value();
            if (m != "smooth" && m != "staircase")
                throw InputError("--trace: expected smooth or staircase, got '" + m + "'");
            o.exportOptions.mode = m == "smooth" ? scene::TraceMode::Smooth : scene::TraceMode::Staircase;
        } else if (k == "--gds-layer")
            parseGdsLayer(value(), o.exportOptions);
        else if (k == "--tiles")
            o.run.tiles = cli::parseTiles(value());
        else if (k == "--devices")
            o.run.devices = cli::parseDevices(value());
        else if (k == "--precision") {
            const std::string s = value();
            if (s != "float32" && s != "float64")
                throw InputError("--precision: expected float32 or float64, got '" + s + "'");
            o.run.precision = s == "float64" ? run::Precision::Float64 : run::Precision::Float32;
        } else if (!k.empty() && k[0] == '-')
            throw InputError(k + ": unknown option (see --help)");
        else if (o.run.scene.empty())
            o.run.scene = k;
        else
            throw InputError(k + ": a second scene file; yee-opt optimises one scene");
    }
    if (!o.exportFrom.empty()) {
        if (!o.run.scene.empty())
            throw InputError("--export: takes a history, not a scene ('" + o.run.scene + "')");
        if (o.exportOptions.prefix.empty())
            o.exportOptions.prefix = stem(o.exportFrom);
        if (o.designOut.empty())
            o.designOut = o.exportOptions.prefix + ".optimized.json";
        refuseSidecarOver(o.designOut, {{"--export", o.exportFrom}});
        return o;
    }
    if (!o.help && !o.version && o.run.scene.empty())
        throw InputError("SCENE.json: missing (see --help)");
    if (o.exportOptions.prefix.empty() && !o.run.scene.empty())
        o.exportOptions.prefix = stem(o.run.scene);
    if (o.history.empty() && !o.run.scene.empty())
        o.history = stem(o.run.scene) + ".history.h5";
    if (o.designOut.empty() && !o.run.scene.empty())
        o.designOut = stem(o.run.scene) + ".optimized.json";
    // The re-simulable design's sidecar (latent values) must not overwrite the history being written
    // or read: `--design-out run.json --history run.h5` would leave no history.
    refuseSidecarOver(o.designOut, {{"--history", o.history}, {"--resume", o.resume}});
    std::error_code ec;
    if (!o.resume.empty() && std::filesystem::equivalent(o.resume, o.history, ec))
        throw InputError(
            "--history: must differ from --resume (the old history is read while the new one is written)");
    return o;
}

void printError(const std::string& m) {
    std::fprintf(stderr, "yee-opt: error: %s\n", m.c_str());
}

/// Write the design at `latent`/`beta`: the scene to re-simulate with yee-run (--design-out, latent
/// values in its sidecar), then the design files (opt/DesignExport.hpp). False when a design file
/// failed (each failure printed); a failing --design-out throws.
bool writeDesign(const scene::Scene& s, const std::vector<std::vector<double>>& latent,
                 const std::vector<double>& beta, const OptArgs& args) {
    scene::Scene out = s;
    for (std::size_t d = 0; d < out.designs.size() && d < latent.size(); ++d) {
        out.designs[d].latent = latent[d];
        out.designs[d].params.clear();
        if (d < beta.size())
            out.designs[d].beta = beta[d];
    }
    scene::saveScene(out, args.designOut);
    const opt::DesignExportReport r = opt::exportDesign(s, latent, beta, args.exportOptions);
    for (const auto& n : r.notes)
        std::fprintf(stderr, "yee-opt: note: %s\n", n.c_str());
    for (const auto& f : r.failed)
        printError("design output failed: " + f);
    if (!args.run.quiet)
        for (const auto& w : r.written)
            std::printf("yee-opt: wrote %s\n", w.c_str());
    return r.failed.empty();
}

/// Places one MPI rank's tile (its GPU, its share of the host, how halos travel) in the run options and
/// adds what the user should know to the notes; may replace the options' communicator (NCCL). Collective.
using PlaceRank = std::function<void(run::RunOptions&, std::vector<std::string>&)>;

/// The whole optimisation on this process: `communicator` is the job's world under mpirun/srun (null
/// when local), `placeRank` places this rank's tile there.
int optimise(const OptArgs& args, comm::Communicator* communicator, const PlaceRank& placeRank = {}) {
    const bool root = !communicator || communicator->rank() == 0;
    scene::Scene s = scene::loadScene(args.run.scene);
    if (args.iterations)
        s.optimization.iterations = *args.iterations;
    opt::checkOptimization(s);
    run::RunOptions o = cli::makeRunOptions(s, args.run);
    o.communicator = communicator;
    std::vector<std::string> notes;
    if (!o.deviceNotice.empty())
        notes.push_back(o.deviceNotice);
    if (placeRank)
        placeRank(o, notes);
    if (root)
        for (const std::string& n : notes)
            std::fprintf(stderr, "yee-opt: note: %s\n", n.c_str());
    opt::OptOptions oo;
    oo.historyPath = args.history;
    oo.resumePath = args.resume;
    oo.cancel = &gCancel;
    const auto& cfg = s.optimization;
    if (root && !args.run.quiet) {
        std::printf("yee-opt: %s, %s, %d evaluations at most, %s of the objective\n",
                    scene::optimizers().nameOf(int(cfg.optimizer)),
                    scene::objectiveForms().nameOf(int(cfg.form)), cfg.iterations,
                    s.objective.maximize ? "maximum" : "minimum");
        std::printf("%5s %5s %14s %14s %11s %8s %6s %8s\n", "eval", "stage", "merit", "objective", "|grad|",
                    "beta", "grey", "seconds");
        std::fflush(stdout);
        oo.onEvaluation = [](int i, const opt::Evaluation& e) {
            std::printf("%5d %5d %14.6e %14.6e %11.3e %8.3g %6.3f %8.2f\n", i, e.stage, e.merit, e.objective,
                        e.gradNorm, e.beta.empty() ? 0.0 : e.beta[0], e.binarisation, e.seconds);
            std::fflush(stdout);
        };
    }
    const opt::OptResult r = opt::optimize(s, o, oo);
    if (!root)
        return cli::kExitOk;
    std::vector<double> beta;
    for (const auto& d : s.designs)
        beta.push_back(d.beta);
    if (!r.history.empty())
        beta = r.history[std::size_t(r.best < 0 ? 0 : r.best)].beta;
    const bool exported = writeDesign(s, r.latent, beta, args);
    if (!args.run.quiet) {
        if (!r.history.empty())
            std::printf("yee-opt: %s; merit %.6e -> %.6e (evaluation %d) in %zu evaluations (%d replayed)\n",
                        r.status.c_str(), r.history.front().merit, r.history[std::size_t(r.best)].merit,
                        r.best, r.history.size(), r.replayed);
        std::printf("yee-opt: history %s, design %s\n", args.history.c_str(), args.designOut.c_str());
    }
    if (!exported)
        return cli::kExitFailure;
    return r.completed ? cli::kExitOk : cli::kExitCancelled;
}

/// The design of one evaluation of a history, written without optimising.
int exportFromHistory(const OptArgs& args) {
    opt::HistoryHeader h;
    const std::vector<opt::Evaluation> ev = opt::readHistory(args.exportFrom, &h);
    if (ev.empty())
        throw InputError(args.exportFrom + ": the history holds no evaluation");
    std::size_t k = ev.size() - 1;
    if (args.evaluation != "last") {
        try {
            std::size_t used = 0;
            const long v = std::stol(args.evaluation, &used);
            if (used != args.evaluation.size() || v < 0 || std::size_t(v) >= ev.size())
                throw std::out_of_range("");
            k = std::size_t(v);
        } catch (const std::exception&) {
            throw InputError("--evaluation: expected 'last' or an index in 0.." +
                             std::to_string(ev.size() - 1) + ", got '" + args.evaluation + "'");
        }
    }
    const auto dir = std::filesystem::path(args.exportFrom).parent_path().string();
    const scene::Scene s = scene::parseScene(h.sceneJson, dir.empty() ? "." : dir);
    if (!args.run.quiet)
        std::printf("yee-opt: evaluation %zu of %s: merit %.6e; design %s\n", k, args.exportFrom.c_str(),
                    ev[k].merit, args.designOut.c_str());
    return writeDesign(s, ev[k].latent, ev[k].beta, args) ? cli::kExitOk : cli::kExitFailure;
}

int guarded(const std::function<int()>& body) {
    try {
        return body();
    } catch (const InputError& e) {
        printError(e.what());
        return cli::kExitBadInput;
    } catch (const std::exception& e) {
        printError(e.what());
        return cli::kExitFailure;
    }
}

} // namespace

int main(int argc, char** argv) {
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    OptArgs args;
    if (const int c = guarded([&] {
            args = parseArgs(std::vector<std::string>(argv + 1, argv + argc));
            return 0;
        }))
        return c;
    if (args.help) {
        std::printf("%s", kUsage);
        return 0;
    }
    if (args.version) {
        std::printf("yee-opt %s\n", YEE_VERSION);
        return 0;
    }
    if (!args.exportFrom.empty())
        return guarded([&] { return exportFromHistory(args); });
    if (cli::launcherRanks() <= 1)
        return guarded([&] { return optimise(args, nullptr); });
#ifdef YEE_HAVE_MPI
    std::unique_ptr<comm::MpiSession> session;
    std::unique_ptr<comm::MpiComm> mpi;
    if (const int c = guarded([&] {
            session = std::make_unique<comm::MpiSession>(&argc, &argv);
            mpi = std::make_unique<comm::MpiComm>();
            return 0;
        }))
        return c;
    if (!args.run.tiles) {
        // One tile per rank: the scene's grid when it matches the job, else split along x.
        const scene::Scene s = scene::loadScene(args.run.scene);
        const auto t = s.run.tiles;
        if (t[0] * t[1] * t[2] != mpi->size())
            args.run.tiles = std::array<int, 3>{mpi->size(), 1, 1};
    }
    // Each rank runs its tile on the device yee-run would give it: GPU ranks take the GPUs they see
    // round-robin and exchange halos over NCCL when every rank has a GPU of its own, else through host
    // memory over MPI (cli::chooseGpuExchange).
    const run::RankPlace place = cli::placeOnThisNode();
    std::unique_ptr<comm::Communicator> gpuComm; // NcclComm of this rank's GPU; destroyed before `mpi`
    const PlaceRank placeRank = [&](run::RunOptions& o, std::vector<std::string>& notes) {
        const int listed = run::placeOneTilePerRank(o, place);
        if (cli::chooseGpuExchange(o, place, listed, args.run.devices ? "--devices" : "run.devices", notes)) {
            gpuComm = cli::ncclFromMpi(*mpi, o.gpus.front());
            o.communicator = gpuComm.get();
        }
    };
    const int code = guarded([&] { return optimise(args, mpi.get(), placeRank); });
    if (code == cli::kExitFailure)
        mpi->abort("yee-opt: a rank failed", code); // peers may wait in a collective
    gpuComm.reset();
    mpi.reset();
    return code;
#else
    printError("started as " + std::to_string(cli::launcherRanks()) +
               " ranks, but this yee-opt was built without MPI; run it without mpirun/srun");
    return cli::kExitBadInput;
#endif
}
