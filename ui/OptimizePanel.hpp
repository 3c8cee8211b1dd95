#pragma once
/// \file OptimizePanel.hpp
/// The Optimise dock: the scene's "optimization" section (optimiser, iterations, step sizes, stopping
/// rules, beta continuation; rows built from the schema, those the chosen optimiser does not use
/// disabled), its constraints (a TermTable), Start / Pause / Stop of the loop (OptRunner), a live plot
/// of the figure of merit, the objective and each term against the evaluation, the selected design
/// region's density at the evaluation shown, and a history file opened to browse its evaluations.
#include <QWidget>

#include <functional>
#include <map>
#include <vector>

#include "ui/OptRunner.hpp"

class QChart;
class QChartView;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineSeries;
class QPushButton;
class QSlider;
class QTabWidget;
class QValueAxis;

namespace yee::ui {

class DensityView;
class SceneDocument;
class TermTable;

/// The panel. Lives on the GUI thread.
class OptimizePanel : public QWidget {
    Q_OBJECT
public:
    explicit OptimizePanel(SceneDocument* doc, QWidget* parent = nullptr);

    /// How the loop's runs are configured (default: run::RunOptions::fromScene).
    void setRunOptionsProvider(std::function<run::RunOptions(const scene::Scene&)> f) {
        options_ = std::move(f);
    }
    /// Where a new optimisation writes its history (default: a new file in the temporary directory).
    void setHistoryPathProvider(std::function<QString()> f) { historyPath_ = std::move(f); }
    /// Something else (a single run) holds the devices: Start waits (the reason shows on the button).
    void setBusyCheck(std::function<QString()> f) { busy_ = std::move(f); }

    /// Set key `key` of the "optimization" section (file form). Returns why it is refused, or "".
    QString setSetting(const QString& key, const QVariant& value);
    /// The widget editing key `key` (nullptr when none).
    QWidget* settingEditor(const QString& key) const;

    /// Start an optimisation of the scene as it is. False (and `why`) when it cannot start.
    bool start(QString* why = nullptr);
    /// Hold / release the loop after the evaluation in progress.
    void setPaused(bool paused);
    /// End the loop after the evaluation in progress (the history stays valid).
    void stop();
    /// Load a history file to browse (replaces what the plot shows). False (and `error`) on failure.
    bool openHistory(const QString& path, QString* error = nullptr);

    OptRunner* runner() const { return runner_; }
    TermTable* constraints() const { return constraints_; }
    DensityView* densityView() const { return density_; }
    QSlider* iterationSlider() const { return slider_; }
    /// The evaluations shown (live or from a history file).
    const std::vector<opt::Evaluation>& evaluations() const { return evaluations_; }
    /// The plotted series: figure of merit, objective, then one per term.
    QLineSeries* meritSeries() const { return merit_; }
    QLineSeries* objectiveSeries() const { return objective_; }
    const std::vector<QLineSeries*>& termSeries() const { return terms_; }
    QChartView* chartView() const { return chartView_; }
    /// "Progress" (plot, iterate, density) and "Settings" (optimiser) and "Constraints".
    QTabWidget* pages() const { return pages_; }
    /// Show evaluation `index` (density and summary line).
    void showEvaluation(int index);
    /// The summary line of the evaluation shown.
    QString summaryText() const;
    /// The history file being written or browsed.
    QString historyPath() const { return shownPath_; }

signals:
    /// A message for the log (started, stopped, failed, opened).
    void message(const QString& text, bool warning);
    /// An optimisation ended; `path` holds its history.
    void optimizationFinished(const yee::ui::OptOutcome& outcome);

private:
    void buildSettings(QFormLayout* form);
    void syncFromScene();
    void syncButtons();
    void clearPlot(const std::vector<QString>& termNames);
    void append(const opt::Evaluation& e);
    void rescale();

    SceneDocument* doc_;
    OptRunner* runner_;
    TermTable* constraints_;
    std::map<QString, QWidget*> editors_;
    QPushButton *start_, *pause_, *stop_, *open_;
    QLabel* status_;
    QLabel* summary_;
    QChart* chart_;
    QChartView* chartView_;
    QTabWidget* pages_;
    QValueAxis *axisX_, *axisY_;
    QLineSeries* merit_;
    QLineSeries* objective_;
    std::vector<QLineSeries*> terms_;
    QComboBox* design_;
    DensityView* density_;
    QSlider* slider_;
    std::vector<opt::Evaluation> evaluations_;
    std::vector<QString> designNames_;
    std::vector<std::array<int, 3>> designVoxels_;
    QString shownPath_;
    std::function<run::RunOptions(const scene::Scene&)> options_;
    std::function<QString()> historyPath_;
    std::function<QString()> busy_;
    bool syncing_ = false;
    bool live_ = false;
};

} // namespace yee::ui
