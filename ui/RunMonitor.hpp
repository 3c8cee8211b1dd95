#pragma once
/// \file RunMonitor.hpp
/// The run monitor dock: progress of every phase (forward, reconstruct, adjoint) with its rate and time,
/// the whole run's elapsed and remaining time, per-device memory bars by category (current and peak) and
/// the table of collective counts per phase, updated live from telemetry.
#include <QElapsedTimer>
#include <QWidget>

#include "ui/MemoryBars.hpp"
#include "ui/Runner.hpp"

class QComboBox;
class QGridLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSplitter;
class QTableWidget;

namespace yee::ui {

/// Passive view of a run: fed by Runner's signals.
class RunMonitor : public QWidget {
    Q_OBJECT
public:
    explicit RunMonitor(QWidget* parent = nullptr);

    QProgressBar* progress() const { return progress_; }
    MemoryBars* bars() const { return bars_; }
    QTableWidget* collectives() const { return table_; }
    QPushButton* cancelButton() const { return cancel_; }
    /// The bar of phase `name` ("forward", "reconstruct", "adjoint"), or nullptr when the run has none.
    QProgressBar* phaseBar(const QString& name) const;
    /// The numbers shown next to phase `name` (rate and time), or empty.
    QString phaseText(const QString& name) const;
    /// The phase of the latest report ("forward", ...; empty before the first).
    QString currentPhase() const { return current_; }
    /// The status line ("Running: adjoint phase (3 of 3)", "Completed …", "Stopped …").
    QString statusText() const;
    /// The elapsed / remaining line of the whole run.
    QString timeText() const;
    /// Number of telemetry reports shown since the run started.
    int reportCount() const { return reports_; }

    /// What the run about to start will show: its phases (none done) and its devices (nothing reported
    /// yet, see DeviceMemory::waiting). The next runStarted() shows them in place of the last run's, so
    /// the panel has its shape while the run prepares and keeps it when the first report comes (no
    /// relayout and repaint of the dock then). Without it, runStarted() shows no phase and no device.
    void expectRun(std::vector<telemetry::PhaseProgress> phases, QVector<DeviceMemory> devices);

public slots:
    void runStarted();
    void showReport(const yee::telemetry::Report& report);
    void runFinished(const yee::ui::RunResultPtr& result, const QString& path);
    void runFailed(const QString& message);

signals:
    /// The user pressed Cancel.
    void cancelRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fitMemory();
    void showDevices(const std::vector<telemetry::DeviceReport>& devices);
    /// One row per phase: name, bar, rate and time; rebuilt when the list of phases changes.
    void showPhases(const std::vector<telemetry::PhaseProgress>& phases);
    void fillTable();

    QLabel* status_;
    QProgressBar* progress_;
    QLabel* rate_;
    QLabel* cells_;
    QLabel* elapsed_;
    QGridLayout* phaseGrid_;
    struct PhaseRow {
        QString name;
        QLabel* label;
        QProgressBar* bar;
        QLabel* numbers;
    };
    std::vector<PhaseRow> phaseRows_;
    bool rowsShown_ = false; ///< false between runs: the rows are kept hidden for the next run
    QString current_;
    QPushButton* cancel_;
    MemoryBars* bars_;
    QSplitter* split_;
    QScrollArea* memScroll_;
    QWidget* commBox_;
    int fittedNeed_ = -1;  ///< the memory pane's height fitMemory last set, and
    int fittedTotal_ = -1; ///< the splitter's height then
    QComboBox* deviceBox_;
    QTableWidget* table_;
    std::vector<telemetry::PhaseProgress> expectedPhases_;
    QVector<DeviceMemory> expectedDevices_;
    std::vector<comm::CommStats> comm_;
    QStringList deviceNames_;
    int reports_ = 0;
};

} // namespace yee::ui
