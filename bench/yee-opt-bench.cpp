/// yee-opt-bench: what an optimisation costs beyond its value-and-grads, measured in one run.
///
///   yee-opt-bench [SCENE.json] [--evaluations N] [--devices 1,2]
///
/// For each device count: the wall time of N fresh run::run() value-and-grads at the designs an
/// optimisation visits, against the same optimisation through opt::optimize() on a prepared session
/// (history written after every evaluation). Prints per-evaluation times, the overhead ratio
/// (optimisation / fresh value-and-grads - 1: negative when reusing the prepared scene saves more than
/// the optimiser costs) and the time to reach 1e-3 of the starting merit. Default scene: the bundled
/// ar_coating_opt example.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "yee/core/Error.hpp"
#include "yee/opt/Optimize.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
    std::string path = YEE_SOURCE_DIR "/resources/scenes/ar_coating_opt.json";
    int evaluations = 10;
    std::vector<int> devices{1, 2};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--evaluations" && i + 1 < argc)
            evaluations = std::max(1, std::atoi(argv[++i]));
        else if (a == "--devices" && i + 1 < argc) {
            devices.clear();
            for (const char* p = argv[++i]; *p;) {
                devices.push_back(std::max(1, std::atoi(p)));
                while (*p && *p != ',')
                    ++p;
                if (*p == ',')
                    ++p;
            }
        } else if (a == "-h" || a == "--help") {
            std::printf("usage: yee-opt-bench [SCENE.json] [--evaluations N] [--devices 1,2]\n");
            return 0;
        } else
            path = a;
    }
    try {
        scene::Scene s = scene::loadScene(path);
        s.optimization.iterations = evaluations;
        const std::string history =
            (std::filesystem::temp_directory_path() / ("yee-opt-bench-" + std::to_string(::getpid()) + ".h5"))
                .string();
        std::printf("yee-opt-bench: %s, %d evaluations\n", path.c_str(), evaluations);
        std::printf("%8s %12s %12s %10s %14s\n", "devices", "fresh s/ev", "opt s/ev", "overhead",
                    "to 1e-3 (s)");
        for (int n : devices) {
            run::RunOptions o = run::RunOptions::fromScene(s);
            o.tiles = {n, 1, 1};
            o.devices = n;
            o.gradient = true;
            opt::OptOptions oo;
            oo.historyPath = history;
            double toTarget = -1;
            double first = 0;
            const auto t0 = Clock::now();
            oo.onEvaluation = [&](int i, const opt::Evaluation& e) {
                if (i == 0)
                    first = e.merit;
                const bool reached = s.objective.maximize ? false : e.merit <= 1e-3 * first;
                if (toTarget < 0 && reached)
                    toTarget = std::chrono::duration<double>(Clock::now() - t0).count();
            };
            const opt::OptResult r = opt::optimize(s, o, oo);
            const double optSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
            // The same designs, each as a fresh run (plan, rasterise, allocate, fill, value-and-grad).
            const auto f0 = Clock::now();
            for (const auto& e : r.history) {
                scene::Scene f = s;
                for (std::size_t d = 0; d < f.designs.size(); ++d) {
                    f.designs[d].latent = e.latent[d];
                    f.designs[d].beta = e.beta[d];
                }
                run::run(f, o);
            }
            const double freshSeconds = std::chrono::duration<double>(Clock::now() - f0).count();
            const double k = double(r.history.size());
            std::printf("%8d %12.4f %12.4f %9.1f%% %14s\n", n, freshSeconds / k, optSeconds / k,
                        100.0 * (optSeconds / freshSeconds - 1),
                        toTarget < 0 ? "not reached" : std::to_string(toTarget).c_str());
        }
        std::filesystem::remove(history);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "yee-opt-bench: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
