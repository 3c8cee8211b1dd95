#pragma once
/// \file Estimator.hpp
/// Per-device memory estimates (run::estimate, a dry run of the allocation path) computed off the
/// GUI thread whenever the scene or the run settings change. Panels show the latest one.
#include <QObject>
#include <QThreadPool>
#include <QTimer>

#include <atomic>
#include <memory>
#include <optional>

#include "yee/run/Run.hpp"

namespace yee::ui {

/// What the UI adds to the scene's own "run" section before estimating or running.
struct RunSettings {
    /// Bytes each emulated device may hold; 0 = host memory / devices (the solver's default).
    std::int64_t deviceCapacity = 0;
    /// Stop after this many steps (<0: the scene's duration).
    int maxSteps = -1;
    /// Value-and-grad: run the adjoint too (the scene's "gradient" section says how).
    bool gradient = false;

    /// RunOptions for `s`: the scene's run section (RunOptions::fromScene) plus these settings.
    run::RunOptions optionsFor(const scene::Scene& s) const;
};

/// Outcome of one estimate: the forward and the value-and-grad estimates, or why they are impossible.
struct EstimateOutcome {
    /// Forward run (no gradient state is allocated).
    std::optional<run::Estimate> estimate;
    /// Why a forward run cannot run (bad tile grid, too few devices, not enough memory on a device),
    /// naming the scene field; empty when it can run.
    QString problem;
    /// Value-and-grad run: forward state plus recorder / checkpoints / adjoint, per device.
    std::optional<run::Estimate> gradientEstimate;
    /// Why a value-and-grad run cannot run (no objective, no design region, gradient settings, memory).
    QString gradientProblem;
    /// Value-and-grad with the recorder staged to the host ("host" or "disk" tier): bytes per device
    /// that the staging moves off it (its recorder with tier "device" less its recorder staged); empty
    /// for the device tier.
    std::vector<std::int64_t> gradientHostBytes;
    /// Generation counter; larger is newer.
    quint64 generation = 0;
};

/// Debounced, asynchronous estimator. Only the newest request's outcome is published.
class Estimator : public QObject {
    Q_OBJECT
public:
    explicit Estimator(QObject* parent = nullptr);
    ~Estimator() override;

    /// Schedule an estimate of `s` with `settings` (after a short debounce; older requests are dropped).
    /// `revision` names this version of the scene (SceneDocument::revision) for current().
    void request(const scene::Scene& s, const RunSettings& settings, quint64 revision = 0);
    /// Compute synchronously on this thread (tests, and the run action's final check). The forward and
    /// value-and-grad estimates are both computed; `settings.gradient` is ignored.
    static EstimateOutcome compute(const scene::Scene& s, const RunSettings& settings);
    /// The newest published outcome.
    const EstimateOutcome& latest() const { return latest_; }
    /// True while a computation is scheduled or running.
    bool busy() const { return pending_ > 0 || debounce_.isActive(); }
    /// The published outcome when it is that of scene `revision` with `settings` (their device capacity
    /// and step limit; both estimates are computed whatever settings.gradient says) and no newer request
    /// is scheduled or running: what compute() would return now. nullptr otherwise.
    const EstimateOutcome* current(quint64 revision, const RunSettings& settings) const;

signals:
    /// A new outcome is available (see latest()).
    void estimated(const yee::ui::EstimateOutcome& outcome);

private:
    void launch();

    QThreadPool pool_;
    QTimer debounce_;
    std::shared_ptr<const scene::Scene> scene_;
    RunSettings settings_;
    quint64 revision_ = 0;
    quint64 generation_ = 0;
    std::atomic<int> pending_{0};
    EstimateOutcome latest_;
};

} // namespace yee::ui

Q_DECLARE_METATYPE(yee::ui::EstimateOutcome)
