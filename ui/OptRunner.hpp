#pragma once
/// \file OptRunner.hpp
/// Runs the inverse-design loop (opt::optimize, backend/yee/opt/Optimize.hpp) on a worker thread, as
/// Runner does for single runs. Each evaluation becomes a queued signal on the GUI thread. Pause holds
/// the loop after the evaluation in progress until resumed; Stop ends it after the evaluation in
/// progress, and the history file (written after every evaluation) stays valid, marked not completed.
#include <QObject>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "yee/opt/History.hpp"
#include "yee/run/Run.hpp"

namespace yee::ui {

/// What to optimise and where the history goes.
struct OptRequest {
    scene::Scene scene;      ///< validated by the loop (opt::checkOptimization)
    run::RunOptions options; ///< devices, tiles, capacity (cancel and gradient are set by the loop)
    QString historyPath;     ///< HDF5 history, rewritten after every evaluation (empty: none)
    QString resumePath;      ///< history to continue (empty: start afresh)
    int maxEvaluations = -1; ///< <0: the scene's optimization.iterations
};

/// How an optimisation ended.
struct OptOutcome {
    bool completed = false; ///< false: stopped or failed
    QString status;         ///< the loop's status ("iterations done", "cancelled after 3 evaluations")
    int evaluations = 0;    ///< in the history
    int best = -1;          ///< the evaluation chosen as the result
    QString historyPath;    ///< where the history was written
};

/// Owns the worker thread. One optimisation at a time; the GUI thread never blocks on it, except in
/// the destructor (which stops the loop and waits for the evaluation in progress).
class OptRunner : public QObject {
    Q_OBJECT
public:
    explicit OptRunner(QObject* parent = nullptr);
    ~OptRunner() override;

    /// True when this build has the optimisation module (NLopt).
    static bool available();
    /// Start. False (nothing started) while another optimisation runs or without the module.
    bool start(OptRequest request);
    /// Hold (true) or release (false) the loop after the evaluation in progress.
    void setPaused(bool paused);
    /// Ask the loop to end after the evaluation in progress (a paused loop ends at once).
    void stop();
    bool isRunning() const { return running_; }
    bool isPaused() const { return paused_; }

signals:
    void started();
    /// Evaluation `index` (0-based) was made and written to the history.
    void evaluated(int index, const yee::opt::Evaluation& evaluation);
    /// The loop is held by Pause after evaluation `index` (no evaluation runs until resumed).
    void held(int index);
    /// The loop ended (completed, stopped after Stop, or converged).
    void finished(const yee::ui::OptOutcome& outcome);
    /// The loop could not start or failed (bad scene, memory, I/O); the message names the field.
    void failed(const QString& message);

private:
    void work(std::shared_ptr<const OptRequest> request);
    void join();

    std::thread thread_;
    std::atomic<bool> cancel_{false};
    std::atomic<bool> paused_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
    bool running_ = false;
};

} // namespace yee::ui
