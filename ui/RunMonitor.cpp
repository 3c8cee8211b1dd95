#include "ui/RunMonitor.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

#include "ui/Format.hpp"
#include "ui/MemoryBars.hpp"

namespace yee::ui {

namespace {
QString rate(double v, const QString& unit) {
    const char* prefixes[] = {"", "k", "M", "G", "T"};
    int p = 0;
    while (std::abs(v) >= 1000 && p < 4) {
        v /= 1000;
        ++p;
    }
    return QStringLiteral("%1 %2%3").arg(QString::number(v, 'f', v < 10 ? 2 : 1), QLatin1String(prefixes[p]),
                                         unit);
}
QString duration(double s) {
    if (s < 60)
        return QStringLiteral("%1 s").arg(s, 0, 'f', 1);
    return QStringLiteral("%1 min %2 s").arg(int(s) / 60).arg(int(s) % 60);
}
} // namespace

RunMonitor::RunMonitor(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    auto* top = new QHBoxLayout;
    status_ = new QLabel(tr("Idle."), this);
    status_->setObjectName(QStringLiteral("runStatus"));
    status_->setWordWrap(true);
    top->addWidget(status_, 1);
    cancel_ = new QPushButton(tr("Cancel run"), this);
    cancel_->setEnabled(false);
    top->addWidget(cancel_);
    layout->addLayout(top);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(tr("step %v of %m"));
    layout->addWidget(progress_);
    auto* numbers = new QFormLayout;
    rate_ = new QLabel(QStringLiteral("\u2014"), this);
    cells_ = new QLabel(QStringLiteral("\u2014"), this);
    elapsed_ = new QLabel(QStringLiteral("\u2014"), this);
    numbers->addRow(tr("Steps per second"), rate_);
    numbers->addRow(tr("Cell updates per second"), cells_);
    numbers->addRow(tr("Elapsed / remaining"), elapsed_);
    layout->addLayout(numbers);

    auto* split = new QSplitter(Qt::Vertical, this);
    auto* memBox = new QGroupBox(tr("Memory per device (by category)"), split);
    auto* ml = new QVBoxLayout(memBox);
    bars_ = new MemoryBars(MemoryBars::Mode::CurrentAndPeak, memBox);
    auto* scroll = new QScrollArea(memBox);
    scroll->setWidget(bars_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    ml->addWidget(scroll);
    auto* commBox = new QGroupBox(tr("Collectives per phase (calls)"), split);
    auto* cl = new QVBoxLayout(commBox);
    deviceBox_ = new QComboBox(commBox);
    deviceBox_->setObjectName(QStringLiteral("collectivesDevice"));
    cl->addWidget(deviceBox_);
    table_ = new QTableWidget(comm::kPhaseCount, comm::kKindCount, commBox);
    table_->setObjectName(QStringLiteral("collectivesTable"));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    QStringList phases, kinds;
    for (int p = 0; p < comm::kPhaseCount; ++p)
        phases << QString::fromLatin1(comm::phaseName(comm::Phase(p)));
    // Short column titles keep five columns readable in a narrow dock; tooltips give the exact names.
    const QStringList shortNames{tr("halo"), tr("reduce"), tr("gather"), tr("bcast"), tr("barrier")};
    for (int k = 0; k < comm::kKindCount; ++k)
        kinds << shortNames.value(k, QString::fromLatin1(comm::kindName(comm::Kind(k))));
    table_->setVerticalHeaderLabels(phases);
    table_->setHorizontalHeaderLabels(kinds);
    for (int k = 0; k < comm::kKindCount; ++k)
        table_->horizontalHeaderItem(k)->setToolTip(QString::fromLatin1(comm::kindName(comm::Kind(k))));
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    cl->addWidget(table_);
    split->addWidget(memBox);
    split->addWidget(commBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(cancel_, &QPushButton::clicked, this, &RunMonitor::cancelRequested);
    connect(deviceBox_, &QComboBox::currentIndexChanged, this, &RunMonitor::fillTable);
    fillTable();
}

void RunMonitor::runStarted() {
    reports_ = 0;
    status_->setText(tr("Preparing the run (rasterising, planning tiles)\u2026"));
    progress_->setRange(0, 0); // busy until the first report
    rate_->setText(QStringLiteral("\u2014"));
    cells_->setText(QStringLiteral("\u2014"));
    elapsed_->setText(QStringLiteral("\u2014"));
    cancel_->setEnabled(true);
    bars_->clear();
    comm_.clear();
    deviceNames_.clear();
    fillTable();
}

void RunMonitor::showReport(const telemetry::Report& r) {
    ++reports_;
    status_->setText(tr("Running: %1 phase").arg(QString::fromStdString(r.phase)));
    progress_->setRange(0, std::max(1, r.totalSteps));
    progress_->setValue(r.step);
    rate_->setText(rate(r.stepsPerSecond, tr("steps/s")));
    cells_->setText(rate(r.cellUpdatesPerSecond, tr("cells/s")));
    const double remaining = r.stepsPerSecond > 0 ? (r.totalSteps - r.step) / r.stepsPerSecond : 0;
    elapsed_->setText(tr("%1 / %2").arg(duration(r.elapsedSeconds), duration(remaining)));
    showDevices(r.devices);
}

void RunMonitor::showDevices(const std::vector<telemetry::DeviceReport>& devices) {
    QVector<DeviceMemory> rows;
    QStringList names;
    comm_.clear();
    for (const auto& d : devices) {
        rows.push_back({QString::fromStdString(d.name), QString(), d.capacity, d.memory});
        names << QString::fromStdString(d.name);
        comm_.push_back(d.comm);
    }
    bars_->setDevices(rows);
    if (names != deviceNames_) {
        deviceNames_ = names;
        const QSignalBlocker b(deviceBox_);
        const int keep = deviceBox_->currentIndex();
        deviceBox_->clear();
        for (const QString& n : names)
            deviceBox_->addItem(n);
        deviceBox_->setCurrentIndex(keep >= 0 && keep < names.size() ? keep : 0);
    }
    fillTable();
}

void RunMonitor::fillTable() {
    const int dev = deviceBox_->currentIndex();
    for (int p = 0; p < comm::kPhaseCount; ++p)
        for (int k = 0; k < comm::kKindCount; ++k) {
            auto* item = table_->item(p, k);
            if (!item) {
                item = new QTableWidgetItem;
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                table_->setItem(p, k, item);
            }
            if (dev < 0 || dev >= int(comm_.size())) {
                item->setText(QStringLiteral("\u2014"));
                item->setToolTip({});
                continue;
            }
            const auto& st = comm_[std::size_t(dev)];
            item->setText(QString::number(st.callsOf(comm::Phase(p), comm::Kind(k))));
            item->setToolTip(tr("%1 sent").arg(bytesText(st.bytesOf(comm::Phase(p), comm::Kind(k)))));
        }
}

void RunMonitor::runFinished(const RunResultPtr& result, const QString& path) {
    cancel_->setEnabled(false);
    progress_->setRange(0, std::max(1, result->totalSteps));
    progress_->setValue(result->steps);
    QString text =
        result->completed
            ? (result->backwardSeconds > 0
                   ? tr("Completed %1 steps: forward sweep %2, reverse sweep %3.")
                         .arg(result->steps)
                         .arg(duration(result->forwardSeconds), duration(result->backwardSeconds))
                   : tr("Completed %1 steps in %2.").arg(result->steps).arg(duration(result->seconds)))
            : tr("Stopped (%1) after %2 of %3 steps; results are marked incomplete.")
                  .arg(QString::fromStdString(result->status))
                  .arg(result->steps)
                  .arg(result->totalSteps);
    if (!path.isEmpty())
        text += QLatin1Char(' ') + tr("Results: %1").arg(path);
    status_->setText(text);
    if (result->seconds > 0) {
        rate_->setText(rate(result->steps / result->seconds, tr("steps/s")));
        cells_->setText(rate(double(result->cellUpdates) / result->seconds, tr("cells/s")));
    }
    std::vector<telemetry::DeviceReport> devices;
    for (std::size_t i = 0; i < result->devices.size(); ++i) {
        const auto& d = result->devices[i];
        devices.push_back({int(i), d.name, d.capacity, d.memory, d.comm});
    }
    if (!devices.empty())
        showDevices(devices);
}

void RunMonitor::runFailed(const QString& message) {
    cancel_->setEnabled(false);
    progress_->setRange(0, 1);
    progress_->setValue(0);
    status_->setText(tr("Run failed: %1").arg(message));
}

} // namespace yee::ui
