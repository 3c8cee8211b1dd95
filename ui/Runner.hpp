#pragma once
/// \file Runner.hpp
/// Runs the solver on a worker thread. The backend's telemetry callback and its outcome become queued
/// signals on the GUI thread; cancel goes through an atomic flag the solver checks between step batches.
#include <QObject>
#include <QString>
#include <QThread>

#include <atomic>
#include <memory>

#include "yee/run/Run.hpp"
#include "yee/telemetry/Telemetry.hpp"

namespace yee::ui {

/// Shared, immutable result of a finished (or cancelled) run.
using RunResultPtr = std::shared_ptr<const run::RunResult>;

/// What to run and where to put the results.
struct RunRequest {
    scene::Scene scene;
    run::RunOptions options; ///< cancel and onTelemetry are set by the runner
    /// HDF5 results file written through io::writeResults (empty: keep results in memory only).
    QString resultPath;
    /// Directory for VTKHDF snapshot series (empty: next to resultPath, "<stem>_snapshots").
    QString snapshotDir;
};

/// Lives on the worker thread; do not use directly (see Runner).
class RunWorker : public QObject {
    Q_OBJECT
public:
    explicit RunWorker(std::atomic<bool>* cancel) : cancel_(cancel) {}

public slots:
    void execute(const std::shared_ptr<const yee::ui::RunRequest>& request);

signals:
    void telemetryReceived(const yee::telemetry::Report& report);
    void finished(const yee::ui::RunResultPtr& result, const QString& resultPath);
    void failed(const QString& message);

private:
    std::atomic<bool>* cancel_;
};

/// Owns the worker thread. One run at a time; the GUI thread never blocks on it.
class Runner : public QObject {
    Q_OBJECT
public:
    explicit Runner(QObject* parent = nullptr);
    /// Cancels a run in progress and waits for the thread to end.
    ~Runner() override;

    /// Start a run: notice() and runStarted() are emitted (and their direct slots return) before the
    /// worker begins. Returns false (and does nothing) while another run is in progress.
    bool start(RunRequest request);
    /// Ask the run in progress to stop after the current step batch. The result is then marked
    /// incomplete ("cancelled") and still written.
    void cancel();
    bool isRunning() const { return running_; }

signals:
    void runStarted();
    /// Emitted by start(), before runStarted(), when the run's options carry a device notice (a GPU
    /// request running on emulated CPU devices, see RunOptions::deviceNotice): the run goes ahead.
    void notice(const QString& message);
    /// A throttled telemetry report (queued from the worker).
    void telemetryReceived(const yee::telemetry::Report& report);
    /// The run ended, completed or not (result->completed, result->status); results written to
    /// `resultPath` when one was given.
    void runFinished(const yee::ui::RunResultPtr& result, const QString& resultPath);
    /// The run could not start or failed (bad input, not enough memory, I/O error).
    void runFailed(const QString& message);

private:
    QThread thread_;
    RunWorker* worker_;
    std::atomic<bool> cancel_{false};
    bool running_ = false;
};

} // namespace yee::ui

Q_DECLARE_METATYPE(yee::telemetry::Report)
Q_DECLARE_METATYPE(yee::ui::RunResultPtr)
Q_DECLARE_METATYPE(std::shared_ptr<const yee::ui::RunRequest>)
