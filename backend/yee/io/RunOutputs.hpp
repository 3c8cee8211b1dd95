#pragma once
/// \file RunOutputs.hpp
/// Writes everything a finished (or stopped) run leaves behind, so that one failing output never loses
/// the others: the snapshot series first, then the results file, which is always attempted. A series
/// that cannot be written is named in the results (`failed_outputs`, `complete` = 0, status
/// "incomplete: ...") instead of ending the write.
#include <map>
#include <string>

#include "yee/io/ResultsWriter.hpp"
#include "yee/run/Run.hpp"

namespace yee::io {

/// Where the outputs go.
struct OutputPaths {
    std::string results;      ///< the HDF5 results file
    std::string snapshotsDir; ///< directory of the VTKHDF snapshot series
};

/// Writes `result`'s snapshots into `paths.snapshotsDir` (their series paths, relative to the results
/// file's directory, go to extras.snapshotSeries), then the results file. A snapshot failure is
/// recorded in result.failedOutputs ("snapshots in '<dir>': <cause>") and marks the result incomplete;
/// the results file is still written. Throws yee::RunError only when the results file itself cannot
/// be written (the previous file at that path is then left untouched).
void writeRunOutputs(const OutputPaths& paths, const scene::Scene& scene, const std::string& sceneJson,
                     run::RunResult& result, ResultsExtras& extras);

/// Marks `result` incomplete because `failure` (one line naming an output and the cause) could not
/// be written: appends it to failedOutputs, sets completed = false and extends the status.
void markOutputFailed(run::RunResult& result, const std::string& failure);

/// Snapshot index paths relative to the directory of `resultsFile`, as stored in the results.
std::map<std::string, std::string> relativeTo(const std::string& resultsFile,
                                              const std::map<std::string, std::string>& paths);

} // namespace yee::io
