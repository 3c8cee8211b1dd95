#include "ui/ResultsData.hpp"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

#include "yee/io/ResultsWriter.hpp"
#include "yee/io/VtkHdfWriter.hpp"
#include "yee/scene/SceneJson.hpp"

namespace yee::ui {

ResultsData ResultsData::fromRun(std::shared_ptr<const run::RunResult> result, const scene::Scene& s,
                                 const QString& path) {
    ResultsData d;
    d.keep_ = result;
    d.path = path;
    d.sceneHash = QString::fromStdString(scene::sceneHash(s));
    d.complete = result->completed;
    d.status = result->completed
                   ? QStringLiteral("complete")
                   : QStringLiteral("incomplete: %1").arg(QString::fromStdString(result->status));
    d.steps = result->steps;
    d.totalSteps = result->totalSteps;
    d.dtFs = result->dtFs;
    d.wallSeconds = result->seconds;
    d.cellUpdates = result->cellUpdates;
    d.objective = result->objective;
    d.scene = s;
    d.detectors = result->detectors;
    d.devices = result->devices;
    try {
        d.sParameters = run::sParameters(s, *result);
    } catch (const std::exception&) {
        d.sParameters.reset(); // a port's monitor result is missing (a cancelled run): no S-parameters
    }
    for (const auto& g : result->gradients)
        d.gradients[g.name] = g;
    d.forwardSeconds = result->forwardSeconds;
    d.backwardSeconds = result->backwardSeconds;
    d.recomputedSteps = result->recomputedSteps;
    d.reconstructionDrift = result->reconstructionDrift;
    // Group snapshots by detector, then by step.
    for (const auto& snap : result->snapshots) {
        auto it = std::find_if(d.snapshots.begin(), d.snapshots.end(),
                               [&](const SnapshotSeries& ss) { return ss.detector == snap.detector; });
        if (it == d.snapshots.end()) {
            d.snapshots.push_back({snap.detector, {}, {}});
            it = d.snapshots.end() - 1;
        }
        if (std::find(it->components.begin(), it->components.end(), snap.component) == it->components.end())
            it->components.push_back(snap.component);
        auto f = std::find_if(it->frames.begin(), it->frames.end(),
                              [&](const auto& fr) { return fr.step == snap.step; });
        if (f == it->frames.end()) {
            it->frames.push_back({snap.step, snap.timeFs, {}, {}});
            f = it->frames.end() - 1;
        }
        f->components[snap.component] = &snap;
    }
    for (auto& ss : d.snapshots)
        std::sort(ss.frames.begin(), ss.frames.end(),
                  [](const auto& a, const auto& b) { return a.step < b.step; });
    return d;
}

ResultsData ResultsData::load(const QString& path) {
    const io::ResultsFile f = io::readResults(path.toStdString());
    ResultsData d;
    d.path = QFileInfo(path).absoluteFilePath();
    d.status = QString::fromStdString(f.status);
    d.sceneHash = QString::fromStdString(f.sceneHash);
    d.complete = f.complete;
    d.steps = f.steps;
    d.totalSteps = f.totalSteps;
    d.dtFs = f.dtFs;
    d.wallSeconds = f.wallSeconds;
    d.cellUpdates = f.cellUpdates;
    d.objective = f.objective;
    d.detectors = f.detectors;
    d.gradients = f.gradients;
    d.devices = f.devices;
    d.sParameters = f.sParameters;
    if (!f.sceneJson.empty()) {
        try {
            d.scene = scene::parseScene(f.sceneJson, QFileInfo(path).absolutePath().toStdString(), false);
        } catch (const std::exception&) {
            // The scene is only used to place gradient maps; results stay readable without it.
        }
    }
    const QDir base = QFileInfo(path).absoluteDir();
    for (const auto& [det, index] : f.snapshotSeries) {
        SnapshotSeries ss;
        ss.detector = det;
        const QString indexPath = base.absoluteFilePath(QString::fromStdString(index));
        const QDir indexDir = QFileInfo(indexPath).absoluteDir();
        for (const auto& e : io::readSeriesIndex(indexPath.toStdString())) {
            SnapshotSeries::Frame fr;
            fr.timeFs = e.time;
            fr.file = indexDir.absoluteFilePath(QString::fromStdString(e.name)).toStdString();
            fr.step = int(ss.frames.size());
            ss.frames.push_back(std::move(fr));
        }
        // Component names come from the first frame.
        if (!ss.frames.empty()) {
            const io::VtkImage img = io::readVtkHdf(ss.frames.front().file);
            for (const auto& [name, values] : img.pointData)
                ss.components.push_back(name);
        }
        d.snapshots.push_back(std::move(ss));
    }
    return d;
}

std::optional<solver::Snapshot> ResultsData::snapshot(std::size_t series, std::size_t frame,
                                                      const std::string& component, QString* error) const {
    if (series >= snapshots.size() || frame >= snapshots[series].frames.size())
        return std::nullopt;
    const auto& fr = snapshots[series].frames[frame];
    if (auto it = fr.components.find(component); it != fr.components.end())
        return *it->second;
    if (fr.file.empty())
        return std::nullopt;
    try {
        const io::VtkImage img = io::readVtkHdf(fr.file);
        auto it = img.pointData.find(component);
        if (it == img.pointData.end()) {
            if (error)
                *error = QObject::tr("%1 has no component %2")
                             .arg(QString::fromStdString(fr.file), QString::fromStdString(component));
            return std::nullopt;
        }
        solver::Snapshot s;
        s.detector = snapshots[series].detector;
        s.component = component;
        s.step = img.step >= 0 ? img.step : fr.step;
        s.timeFs = fr.timeFs;
        s.dims = img.dims;
        s.originUm = img.origin;
        s.spacingUm = img.spacing;
        s.data = it->second;
        return s;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return std::nullopt;
    }
}

} // namespace yee::ui
