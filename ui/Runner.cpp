#include "ui/Runner.hpp"

#include <QDir>
#include <QFileInfo>

#include "yee/io/ResultsWriter.hpp"
#include "yee/io/VtkHdfWriter.hpp"
#include "yee/run/SParameters.hpp"
#include "yee/scene/SceneJson.hpp"

namespace yee::ui {

void RunWorker::execute(const std::shared_ptr<const RunRequest>& request) {
    try {
        run::RunOptions o = request->options;
        o.cancel = cancel_;
        // Reports go to the GUI as queued signals and, sampled, into the results file's timeline.
        std::vector<telemetry::Report> timeline;
        o.onTelemetry = [this, &timeline](const telemetry::Report& r) {
            timeline.push_back(r);
            emit telemetryReceived(r);
        };
        auto result = std::make_shared<run::RunResult>(run::run(request->scene, o));
        if (!request->resultPath.isEmpty()) {
            io::ResultsExtras extras;
            extras.timeline = std::move(timeline);
            for (const auto& g : result->gradients)
                extras.gradients[g.name] = g;
            // The S-matrix column of named ports, as yee-run writes it (/s_parameters).
            try {
                extras.sParameters = run::sParameters(request->scene, *result);
            } catch (const std::exception&) {
                extras.sParameters.reset(); // a port's monitor result is missing (a stopped run)
            }
            if (!result->snapshots.empty()) {
                QString dir = request->snapshotDir;
                const QFileInfo fi(request->resultPath);
                if (dir.isEmpty())
                    dir = fi.absolutePath() + QLatin1Char('/') + fi.completeBaseName() + "_snapshots";
                const QDir base(fi.absolutePath());
                for (auto& [det, index] : io::writeSnapshotSeries(dir.toStdString(), result->snapshots))
                    extras.snapshotSeries[det] =
                        base.relativeFilePath(QString::fromStdString(index)).toStdString();
            }
            io::writeResults(request->resultPath.toStdString(), request->scene,
                             scene::sceneToJson(request->scene), *result, extras);
        }
        emit finished(result, request->resultPath);
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
}

Runner::Runner(QObject* parent) : QObject(parent), worker_(new RunWorker(&cancel_)) {
    qRegisterMetaType<telemetry::Report>();
    qRegisterMetaType<RunResultPtr>();
    qRegisterMetaType<std::shared_ptr<const RunRequest>>();
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &RunWorker::telemetryReceived, this, &Runner::telemetryReceived, Qt::QueuedConnection);
    connect(
        worker_, &RunWorker::finished, this,
        [this](const RunResultPtr& r, const QString& path) {
            running_ = false;
            emit runFinished(r, path);
        },
        Qt::QueuedConnection);
    connect(
        worker_, &RunWorker::failed, this,
        [this](const QString& m) {
            running_ = false;
            emit runFailed(m);
        },
        Qt::QueuedConnection);
    thread_.setObjectName(QStringLiteral("yee-run"));
    thread_.start();
}

Runner::~Runner() {
    cancel_ = true;
    thread_.quit();
    thread_.wait();
}

bool Runner::start(RunRequest request) {
    if (running_)
        return false;
    cancel_ = false;
    running_ = true;
    const QString deviceNotice = QString::fromStdString(request.options.deviceNotice);
    auto req = std::make_shared<const RunRequest>(std::move(request));
    // The GUI reacts to the start (and may paint it) before the worker takes the CPU for the time loop.
    if (!deviceNotice.isEmpty())
        emit notice(deviceNotice);
    emit runStarted();
    QMetaObject::invokeMethod(
        worker_, [w = worker_, req] { w->execute(req); }, Qt::QueuedConnection);
    return true;
}

void Runner::cancel() {
    if (running_)
        cancel_ = true;
}

} // namespace yee::ui
