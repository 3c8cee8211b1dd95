#include "ui/RunMonitor.hpp"

#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
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
/// Sets a bar's range and value without QProgressBar's synchronous repaint (setValue repaints at once
/// whenever the text or the chunk changes): the bar is repainted with the rest of the monitor at the next
/// update, one paint per report however many bars change.
void setBar(QProgressBar* bar, int maximum, int value) {
    bar->setUpdatesEnabled(false);
    bar->setRange(0, maximum);
    bar->setValue(value);
    bar->setUpdatesEnabled(true);
}
QString phaseTitle(const QString& name) {
    if (name == QLatin1String("forward"))
        return QObject::tr("Forward");
    if (name == QLatin1String("reconstruct"))
        return QObject::tr("Reconstruct");
    if (name == QLatin1String("adjoint"))
        return QObject::tr("Adjoint");
    return name;
}
/// The overall bar's text while (or after) phase `name` runs.
QString phaseFormat(const QString& name) {
    return QObject::tr("%1: step %v of %m").arg(phaseTitle(name));
}
} // namespace

RunMonitor::RunMonitor(QWidget* parent) : QWidget(parent) {
    // Progress bars drawn without the style's animation (Fusion animates every bar in progress, ~25
    // repaints a second of the whole window: CPU the time loop needs, most of all with software GL).
    setStyleSheet(QStringLiteral("QProgressBar { border: 1px solid palette(mid); border-radius: 3px; "
                                 "text-align: center; min-height: 16px; }"
                                 "QProgressBar::chunk { background-color: palette(highlight); }"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    auto* top = new QHBoxLayout;
    status_ = new QLabel(tr("Idle."), this);
    status_->setObjectName(QStringLiteral("runStatus"));
    status_->setWordWrap(true);
    // Two lines whatever the text: "Preparing…", "Running…" and "Completed … Results: <path>" take the
    // same room, so the panel does not move (and repaint whole) at every change of state.
    status_->setMinimumHeight(2 * status_->fontMetrics().lineSpacing());
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
    numbers->addRow(tr("Elapsed / remaining (whole run)"), elapsed_);
    layout->addLayout(numbers);
    auto* phaseBox = new QGroupBox(tr("Phases"), this);
    phaseBox->setObjectName(QStringLiteral("phasesBox"));
    phaseGrid_ = new QGridLayout(phaseBox);
    phaseGrid_->setColumnStretch(1, 1);
    // The numbers' column is as wide as their longest usual text from the start: "waiting" becoming
    // "1.23 ksteps/s, 12.3 s" at the first report moves nothing (no relayout, no repaint of the box).
    phaseGrid_->setColumnMinimumWidth(
        2, fontMetrics().horizontalAdvance(tr("%1, %2").arg(rate(999.9e3, tr("steps/s")), duration(3599))));
    layout->addWidget(phaseBox);

    auto* split = new QSplitter(Qt::Vertical, this);
    split_ = split;
    auto* memBox = new QGroupBox(tr("Memory per device (by category)"), split);
    memBox->setObjectName(QStringLiteral("memoryBox"));
    auto* ml = new QVBoxLayout(memBox);
    ml->setContentsMargins(6, 4, 6, 4); // both boxes tight: the dock is short at 1280x800
    bars_ = new MemoryBars(MemoryBars::Mode::CurrentAndPeak, memBox);
    auto* scroll = new QScrollArea(memBox);
    scroll->setObjectName(QStringLiteral("memoryScroll"));
    scroll->setWidget(bars_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    memScroll_ = scroll;
    ml->addWidget(scroll);
    auto* commBox = new QGroupBox(tr("Collectives per phase (calls)"), split);
    commBox_ = commBox;
    auto* cl = new QVBoxLayout(commBox);
    cl->setContentsMargins(6, 4, 6, 4);
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
    cl->addWidget(table_);
    split->addWidget(memBox);
    split->addWidget(commBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    split->installEventFilter(this);
    layout->addWidget(split, 1);

    connect(cancel_, &QPushButton::clicked, this, [this] {
        // Acknowledged at once; the run stops at the next guard step of whichever phase runs.
        cancel_->setEnabled(false);
        cancel_->setText(tr("Cancelling\u2026"));
        emit cancelRequested();
    });
    connect(deviceBox_, &QComboBox::currentIndexChanged, this, &RunMonitor::fillTable);
    fillTable();
    // Rows as high as their contents once: resizing them to their contents on every change of a count
    // would measure the whole table at each report.
    table_->resizeRowsToContents();
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    // The table may shrink to its header and one row (it scrolls) so that the memory bars above it show
    // whole in a short dock.
    table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() + table_->rowHeight(0) +
                             2 * table_->frameWidth());
}

bool RunMonitor::eventFilter(QObject* watched, QEvent* event) {
    if (watched == split_ && event->type() == QEvent::Resize) // after the splitter shares out the new size
        QTimer::singleShot(0, this, &RunMonitor::fitMemory);
    return QWidget::eventFilter(watched, event);
}

void RunMonitor::fitMemory() {
    // The memory bars are what the monitor is for: their pane is as high as every device's block (no
    // scroll bar), as far as the collectives table can give way; the table takes the rest and scrolls.
    // Only when the bars' height or the splitter's changes: a splitter the user dragged stays put.
    const QList<int> sizes = split_->sizes();
    if (sizes.size() != 2 || sizes[0] + sizes[1] <= 0)
        return;
    const int chrome = split_->widget(0)->height() - memScroll_->viewport()->height();
    const int need = bars_->heightForWidth(memScroll_->viewport()->width()) + chrome;
    const int total = sizes[0] + sizes[1];
    if (need == fittedNeed_ && total == fittedTotal_)
        return;
    fittedNeed_ = need;
    fittedTotal_ = total;
    const int mem = std::max(0, std::min(need, total - commBox_->minimumSizeHint().height()));
    if (mem != sizes[0])
        split_->setSizes({mem, total - mem});
}

QProgressBar* RunMonitor::phaseBar(const QString& name) const {
    if (!rowsShown_)
        return nullptr;
    for (const auto& r : phaseRows_)
        if (r.name == name)
            return r.bar;
    return nullptr;
}

QString RunMonitor::phaseText(const QString& name) const {
    if (!rowsShown_)
        return {};
    for (const auto& r : phaseRows_)
        if (r.name == name)
            return r.numbers->text();
    return {};
}

QString RunMonitor::statusText() const {
    return status_->text();
}

QString RunMonitor::timeText() const {
    return elapsed_->text();
}

void RunMonitor::showPhases(const std::vector<telemetry::PhaseProgress>& phases) {
    if (phases.empty()) {
        // Between runs the rows are hidden, not deleted: the next run of the same kind shows them again
        // instead of creating (and styling) new widgets while its time loop runs.
        for (auto& r : phaseRows_)
            for (QWidget* w : {static_cast<QWidget*>(r.label), static_cast<QWidget*>(r.bar),
                               static_cast<QWidget*>(r.numbers)})
                w->hide();
        rowsShown_ = false;
        return;
    }
    bool same = phases.size() == phaseRows_.size();
    for (std::size_t i = 0; same && i < phases.size(); ++i)
        same = phaseRows_[i].name == QString::fromStdString(phases[i].name);
    if (!same) {
        for (auto& r : phaseRows_) {
            delete r.label;
            delete r.bar;
            delete r.numbers;
        }
        phaseRows_.clear();
        for (std::size_t i = 0; i < phases.size(); ++i) {
            PhaseRow r;
            r.name = QString::fromStdString(phases[i].name);
            r.label = new QLabel(phaseTitle(r.name), this);
            r.bar = new QProgressBar(this);
            r.bar->setObjectName(QStringLiteral("phase_") + r.name);
            r.bar->setFormat(QStringLiteral("%v / %m"));
            r.numbers = new QLabel(QStringLiteral("\u2014"), this);
            r.numbers->setObjectName(QStringLiteral("phaseNumbers_") + r.name);
            phaseGrid_->addWidget(r.label, int(i), 0);
            phaseGrid_->addWidget(r.bar, int(i), 1);
            phaseGrid_->addWidget(r.numbers, int(i), 2);
            phaseRows_.push_back(r);
        }
    } else if (!rowsShown_) {
        for (auto& r : phaseRows_)
            for (QWidget* w : {static_cast<QWidget*>(r.label), static_cast<QWidget*>(r.bar),
                               static_cast<QWidget*>(r.numbers)})
                w->show();
    }
    rowsShown_ = true;
    for (std::size_t i = 0; i < phases.size(); ++i) {
        const auto& ph = phases[i];
        auto& r = phaseRows_[i];
        // Bars hold ints; a reconstruct phase of more than 2^31 steps is scaled, never cut.
        const double scale = ph.totalSteps > 1000000000 ? double(ph.totalSteps) / 1e9 : 1.0;
        setBar(r.bar, int(std::max<std::int64_t>(1, std::int64_t(double(ph.totalSteps) / scale))),
               int(double(ph.step) / scale));
        r.numbers->setText(
            ph.step == 0 ? tr("waiting")
                         : tr("%1, %2").arg(rate(ph.stepsPerSecond(), tr("steps/s")), duration(ph.seconds)));
    }
}

void RunMonitor::expectRun(std::vector<telemetry::PhaseProgress> phases, QVector<DeviceMemory> devices) {
    expectedPhases_ = std::move(phases);
    expectedDevices_ = std::move(devices);
    for (auto& p : expectedPhases_) {
        p.step = 0;
        p.seconds = 0;
    }
    for (auto& d : expectedDevices_)
        d.waiting = true;
}

void RunMonitor::runStarted() {
    reports_ = 0;
    current_.clear();
    showPhases(expectedPhases_);
    status_->setText(tr("Preparing the run (rasterising, planning tiles)\u2026"));
    setBar(progress_, 1, 0); // nothing done until the first report (a busy bar would animate)
    rate_->setText(QStringLiteral("\u2014"));
    cells_->setText(QStringLiteral("\u2014"));
    elapsed_->setText(QStringLiteral("\u2014"));
    cancel_->setEnabled(true);
    bars_->setDevices(expectedDevices_);
    fitMemory();
    expectedPhases_.clear();
    expectedDevices_.clear();
    // The device list keeps the last run's names (refilled by the first report if they differ); the
    // counts are this run's: none yet.
    comm_.clear();
    fillTable();
}

void RunMonitor::showReport(const telemetry::Report& r) {
    ++reports_;
    current_ = QString::fromStdString(r.phase);
    int index = 0;
    for (std::size_t i = 0; i < r.phases.size(); ++i)
        if (r.phases[i].name == r.phase)
            index = int(i);
    status_->setText(
        r.phases.size() > 1
            ? tr("Running: %1 phase (%2 of %3)").arg(current_).arg(index + 1).arg(r.phases.size())
            : tr("Running: %1 phase").arg(current_));
    progress_->setFormat(phaseFormat(current_));
    setBar(progress_, std::max(1, r.totalSteps), r.step);
    rate_->setText(rate(r.stepsPerSecond, tr("steps/s")));
    // Cell updates are forward (or recomputed forward) steps; the adjoint's rate is in steps.
    cells_->setText(current_ == QLatin1String("adjoint") ? QStringLiteral("\u2014")
                                                         : rate(r.cellUpdatesPerSecond, tr("cells/s")));
    const double remaining = r.remainingSeconds >= 0 ? r.remainingSeconds
                             : r.stepsPerSecond > 0  ? (r.totalSteps - r.step) / r.stepsPerSecond
                                                     : -1;
    elapsed_->setText(
        tr("%1 / %2").arg(duration(r.elapsedSeconds), remaining >= 0 ? duration(remaining) : tr("unknown")));
    showPhases(r.phases);
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
    fitMemory();
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
            QString text = QStringLiteral("\u2014"), tip;
            if (dev >= 0 && dev < int(comm_.size())) {
                const auto& st = comm_[std::size_t(dev)];
                text = QString::number(st.callsOf(comm::Phase(p), comm::Kind(k)));
                tip = tr("%1 sent").arg(bytesText(st.bytesOf(comm::Phase(p), comm::Kind(k))));
            }
            // Only what changed: each change is a model signal and a repaint of its cell.
            if (item->text() != text)
                item->setText(text);
            if (item->toolTip() != tip)
                item->setToolTip(tip);
        }
}

void RunMonitor::runFinished(const RunResultPtr& result, const QString& path) {
    cancel_->setEnabled(false);
    cancel_->setText(tr("Cancel run"));
    // The overall bar ends on the last phase of the plan that took a step, with that phase's count: a
    // run cancelled in its reverse sweep reads "Adjoint: step 8 of 40" (the reverse sweep's progress,
    // also when a checkpointed run stops in a reconstruct segment), not its forward count under the
    // adjoint's title.
    const telemetry::PhaseProgress* last = nullptr;
    for (const auto& p : result->phases)
        if (p.step > 0)
            last = &p;
    if (last) {
        progress_->setFormat(phaseFormat(QString::fromStdString(last->name)));
        setBar(progress_, int(std::max<std::int64_t>(1, last->totalSteps)), int(last->step));
    } else {
        progress_->setFormat(tr("step %v of %m"));
        setBar(progress_, std::max(1, result->totalSteps), result->steps);
    }
    showPhases(result->phases);
    QString text =
        result->completed
            ? (result->backwardSeconds > 0
                   ? tr("Completed %1 steps in %2: forward sweep %3, reverse sweep %4.")
                         .arg(result->steps)
                         .arg(duration(result->seconds), duration(result->forwardSeconds),
                              duration(result->backwardSeconds))
                   : tr("Completed %1 steps in %2.").arg(result->steps).arg(duration(result->seconds)))
            : tr("Stopped: %1, after %2; results are marked incomplete.")
                  .arg(QString::fromStdString(result->status), duration(result->seconds));
    if (!path.isEmpty())
        text += QLatin1Char(' ') + tr("Results: %1").arg(path);
    status_->setText(text);
    if (result->forwardSeconds > 0) {
        rate_->setText(rate(result->steps / result->forwardSeconds, tr("steps/s")));
        cells_->setText(rate(double(result->cellUpdates) / result->forwardSeconds, tr("cells/s")));
    }
    elapsed_->setText(tr("%1 / %2").arg(duration(result->seconds), duration(0)));
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
    setBar(progress_, 1, 0);
    status_->setText(tr("Run failed: %1").arg(message));
}

} // namespace yee::ui
