#include "yee/io/RunOutputs.hpp"

#include <exception>
#include <filesystem>

#include "yee/core/Error.hpp"
#include "yee/io/VtkHdfWriter.hpp"

namespace fs = std::filesystem;

namespace yee::io {

std::map<std::string, std::string> relativeTo(const std::string& resultsFile,
                                              const std::map<std::string, std::string>& paths) {
    const fs::path base = fs::absolute(fs::path(resultsFile)).parent_path().lexically_normal();
    std::map<std::string, std::string> out;
    for (const auto& [name, path] : paths)
        out[name] = fs::absolute(path).lexically_normal().lexically_relative(base).string();
    return out;
}

void markOutputFailed(run::RunResult& result, const std::string& failure) {
    result.failedOutputs.push_back(failure);
    const std::string what = "output failed: " + failure;
    if (result.completed || result.status.empty() || result.status == "completed")
        result.status = what;
    else
        result.status += "; " + what;
    result.completed = false;
}

void writeRunOutputs(const OutputPaths& paths, const scene::Scene& scene, const std::string& sceneJson,
                     run::RunResult& result, ResultsExtras& extras) {
    if (!result.snapshots.empty()) {
        try {
            extras.snapshotSeries =
                relativeTo(paths.results, writeSnapshotSeries(paths.snapshotsDir, result.snapshots));
        } catch (const std::exception& e) {
            extras.snapshotSeries.clear();
            markOutputFailed(result, "snapshots in '" + paths.snapshotsDir + "': " + e.what());
        }
    }
    try {
        writeResults(paths.results, scene, sceneJson, result, extras);
    } catch (const RunError& e) {
        if (result.failedOutputs.empty())
            throw;
        std::string all = e.what();
        for (const auto& f : result.failedOutputs)
            all += "; also failed: " + f;
        throw RunError(all);
    }
}

} // namespace yee::io
