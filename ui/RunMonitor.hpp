#pragma once
/// \file RunMonitor.hpp
/// The run monitor dock: progress, steps/s, cell-updates/s, per-device memory bars by category (current
/// and peak) and the table of collective counts per phase, updated live from telemetry.
#include <QElapsedTimer>
#include <QWidget>

#include "ui/Runner.hpp"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace yee::ui {

class MemoryBars;

/// Passive view of a run: fed by Runner's signals.
class RunMonitor : public QWidget {
    Q_OBJECT
public:
    explicit RunMonitor(QWidget* parent = nullptr);

    QProgressBar* progress() const { return progress_; }
    MemoryBars* bars() const { return bars_; }
    QTableWidget* collectives() const { return table_; }
    QPushButton* cancelButton() const { return cancel_; }
    /// Number of telemetry reports shown since the run started.
    int reportCount() const { return reports_; }

public slots:
    void runStarted();
    void showReport(const yee::telemetry::Report& report);
    void runFinished(const yee::ui::RunResultPtr& result, const QString& path);
    void runFailed(const QString& message);

signals:
    /// The user pressed Cancel.
    void cancelRequested();

private:
    void showDevices(const std::vector<telemetry::DeviceReport>& devices);
    void fillTable();

    QLabel* status_;
    QProgressBar* progress_;
    QLabel* rate_;
    QLabel* cells_;
    QLabel* elapsed_;
    QPushButton* cancel_;
    MemoryBars* bars_;
    QComboBox* deviceBox_;
    QTableWidget* table_;
    std::vector<comm::CommStats> comm_;
    QStringList deviceNames_;
    int reports_ = 0;
};

} // namespace yee::ui
