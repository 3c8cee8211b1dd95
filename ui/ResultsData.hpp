#pragma once
/// \file ResultsData.hpp
/// Results of one run as the results view needs them: from a run just finished (in memory) or from a
/// results file (io::readResults, snapshots from VTKHDF series read on demand).
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "yee/run/Run.hpp"
#include "yee/run/SParameters.hpp"
#include "yee/scene/Scene.hpp"

namespace yee::ui {

/// One detector's snapshots over time.
struct SnapshotSeries {
    std::string detector;
    std::vector<std::string> components;
    /// One frame per recorded step.
    struct Frame {
        int step = 0;
        double timeFs = 0;
        std::string file;                                          ///< VTKHDF file (from a results file)
        std::map<std::string, const solver::Snapshot*> components; ///< in memory (from a run)
    };
    std::vector<Frame> frames;
};

/// Everything shown in the results view. Copyable; in-memory snapshots are shared.
struct ResultsData {
    QString path;   ///< results file, empty for in-memory results
    QString status; ///< "complete" or "incomplete: ..."
    bool complete = false;
    int steps = 0, totalSteps = 0;
    double dtFs = 0, wallSeconds = 0;
    std::int64_t cellUpdates = 0;
    std::optional<double> objective;
    /// Value-and-grad runs just finished (not stored in results files): sweep times, recomputation, drift.
    double forwardSeconds = 0, backwardSeconds = 0;
    std::int64_t recomputedSteps = 0;
    double reconstructionDrift = 0;
    std::optional<scene::Scene> scene; ///< the scene that produced the results, when known
    QString sceneHash; ///< scene::sceneHash of that scene (from the file's scene_hash), when known
    std::vector<solver::DetectorResult> detectors;
    std::map<std::string, solver::NamedArray> gradients;
    std::vector<solver::DeviceSummary> devices;
    std::vector<SnapshotSeries> snapshots;
    /// The S-matrix column of the run (run/SParameters.hpp), when its scene names ports and one mode
    /// source excites one.
    std::optional<run::SParameters> sParameters;

    /// From a run just finished (keeps `result` alive for the in-memory snapshots).
    static ResultsData fromRun(std::shared_ptr<const run::RunResult> result, const scene::Scene& s,
                               const QString& path);
    /// From a results file. Throws yee::InputError naming the file and what is wrong with it.
    static ResultsData load(const QString& path);

    /// One component of one frame; nullopt when it cannot be read (`error` says why).
    std::optional<solver::Snapshot> snapshot(std::size_t series, std::size_t frame,
                                             const std::string& component, QString* error = nullptr) const;
    bool empty() const { return detectors.empty() && snapshots.empty() && gradients.empty(); }

private:
    std::shared_ptr<const run::RunResult> keep_;
};

} // namespace yee::ui
