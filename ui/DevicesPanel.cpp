#include "ui/DevicesPanel.hpp"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/Format.hpp"
#include "ui/MemoryBars.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/WheelGuard.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/device/Device.hpp"

namespace yee::ui {

namespace {
enum GpuColumn { kGpuId, kGpuName, kGpuMemory, kGpuFree, kGpuCc, kGpuColumns };
constexpr int kGpuIdRole = Qt::UserRole;

int tileCount(const scene::RunConfig& run) {
    return run.tiles[0] * run.tiles[1] * run.tiles[2];
}
} // namespace

DevicesPanel::DevicesPanel(SceneDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(3, 3, 3, 3);

    auto* local = new QGroupBox(tr("Local devices"), this);
    auto* lf = new QFormLayout(local);
    host_ = new QLabel(local);
    host_->setWordWrap(true);
    host_->setText(tr("Host: %1 hardware threads, %2 memory.")
                       .arg(device::hostThreads())
                       .arg(bytesText(device::hostMemoryBytes())));
    lf->addRow(host_);
    gpus_ = new QTreeWidget(local);
    gpus_->setObjectName(QStringLiteral("gpuList"));
    gpus_->setColumnCount(kGpuColumns);
    gpus_->setHeaderLabels({tr("GPU"), tr("Name"), tr("Memory"), tr("Free"), tr("CC")});
    gpus_->headerItem()->setToolTip(kGpuCc, tr("Compute capability"));
    gpus_->setRootIsDecorated(false);
    gpus_->setUniformRowHeights(true);
    gpus_->setSelectionMode(QAbstractItemView::NoSelection);
    gpus_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    gpus_->setToolTip(
        tr("CUDA GPUs of this machine; check the ones to run on (run.devices = \"cuda:ID,...\"), "
           "one tile each"));
    lf->addRow(gpus_);
    gpuUnavailable_ = new QLabel(local);
    gpuUnavailable_->setObjectName(QStringLiteral("gpuUnavailable"));
    gpuUnavailable_->setWordWrap(true);
    gpuUnavailable_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    lf->addRow(gpuUnavailable_);
    auto* refresh = new QToolButton(local);
    refresh->setObjectName(QStringLiteral("refreshGpus"));
    refresh->setText(tr("Refresh GPUs"));
    refresh->setToolTip(tr("Query the GPUs' free memory again"));
    lf->addRow(refresh);
    connect(refresh, &QToolButton::clicked, this, &DevicesPanel::refreshGpus);
    connect(gpus_, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem*, int column) {
        if (column == kGpuId)
            pushGpus();
    });
    devices_ = new QSpinBox(local);
    devices_->setObjectName(QStringLiteral("emulatedDevices"));
    devices_->setRange(1, 256);
    devices_->setToolTip(tr("Emulated CPU devices (run.devices = \"cpu:N\"); each tile needs one"));
    lf->addRow(tr("Emulated CPU devices"), devices_);
    devicesNote_ = new QLabel(local);
    devicesNote_->setObjectName(QStringLiteral("devicesNote"));
    devicesNote_->setWordWrap(true);
    devicesNote_->hide();
    lf->addRow(devicesNote_);
    capacity_ = new QDoubleSpinBox(local);
    capacity_->setObjectName(QStringLiteral("deviceCapacity"));
    capacity_->setRange(0, 1 << 20);
    capacity_->setDecimals(4);
    capacity_->setSuffix(tr(" GiB"));
    capacity_->setSpecialValueText(tr("auto (host share)"));
    capacity_->setToolTip(tr("Memory each device may hold; 0, auto = an equal share of host memory (emulated "
                             "devices) or the GPU's free memory"));
    lf->addRow(tr("Capacity per device"), capacity_);
    layout->addWidget(local);

    auto* grid = new QGroupBox(tr("Tile grid (one device per tile)"), this);
    auto* gl = new QHBoxLayout(grid);
    const char* names[] = {"px", "py", "pz"};
    for (int a = 0; a < 3; ++a) {
        tiles_[a] = new QSpinBox(grid);
        tiles_[a]->setObjectName(QStringLiteral("tiles%1").arg(QChar('X' + a)));
        tiles_[a]->setRange(1, 64);
        tiles_[a]->setPrefix(QStringLiteral("%1 = ").arg(QLatin1String(names[a])));
        gl->addWidget(tiles_[a]);
        if (a < 2)
            gl->addWidget(new QLabel(QStringLiteral("\u00d7"), grid));
        connect(tiles_[a], &QSpinBox::valueChanged, this, &DevicesPanel::pushTiles);
        connect(tiles_[a], &QSpinBox::editingFinished, this, [this] { tilesKey_ = 0; });
    }
    layout->addWidget(grid);

    auto* est = new QGroupBox(tr("Forward-run estimate: peak memory per device"), this);
    est->setObjectName(QStringLiteral("devicesEstimateBox"));
    auto* el = new QVBoxLayout(est);
    summary_ = new QLabel(est);
    summary_->setWordWrap(true);
    el->addWidget(summary_);
    problem_ = new QLabel(est);
    problem_->setObjectName(QStringLiteral("devicesProblem"));
    problem_->setWordWrap(true);
    problem_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    problem_->hide();
    el->addWidget(problem_);
    bars_ = new MemoryBars(MemoryBars::Mode::PeakOnly, est);
    el->addWidget(bars_, 1);
    layout->addWidget(est, 1);

    connect(devices_, &QSpinBox::valueChanged, this, &DevicesPanel::pushDevices);
    connect(devices_, &QSpinBox::editingFinished, this, [this] { devicesKey_ = 0; });
    connect(capacity_, &QDoubleSpinBox::valueChanged, this, [this](double gib) {
        settings_.deviceCapacity = std::int64_t(gib * 1024.0 * 1024.0 * 1024.0);
        emit settingsChanged(settings_);
    });
    connect(doc_, &SceneDocument::sceneChanged, this, &DevicesPanel::syncFromScene);
    refreshGpus(); // also syncs from the scene
    WheelGuard::install(this);
}

QString DevicesPanel::problem() const {
    return problemText_;
}

QString DevicesPanel::gpuUnavailableText() const {
    return gpuUnavailable_->isHidden() ? QString() : gpuUnavailable_->text();
}

QString DevicesPanel::devicesNote() const {
    return devicesNote_->isHidden() ? QString() : devicesNote_->text();
}

void DevicesPanel::refreshGpus() {
    const std::vector<cuda::DeviceInfo> list = cuda::devices();
    {
        const QSignalBlocker block(gpus_);
        gpus_->clear();
        for (const auto& g : list) {
            auto* item = new QTreeWidgetItem(gpus_);
            item->setText(kGpuId, QStringLiteral("cuda:%1").arg(g.id));
            item->setData(kGpuId, kGpuIdRole, g.id);
            item->setFlags((item->flags() | Qt::ItemIsUserCheckable) & ~Qt::ItemIsSelectable);
            item->setCheckState(kGpuId, Qt::Unchecked);
            item->setText(kGpuName, QString::fromStdString(g.name));
            item->setText(kGpuMemory, bytesText(g.totalBytes));
            item->setText(kGpuFree, bytesText(g.freeBytes));
            item->setText(kGpuCc, QStringLiteral("%1.%2").arg(g.major).arg(g.minor));
            for (int c : {kGpuMemory, kGpuFree, kGpuCc})
                item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
            const QString tip =
                g.peakBandwidthGBs > 0
                    ? tr("%1: %2 multiprocessors, %3 GB/s peak memory bandwidth")
                          .arg(QString::fromStdString(g.name))
                          .arg(g.multiprocessors)
                          .arg(g.peakBandwidthGBs, 0, 'f', 0)
                    : tr("%1: %2 multiprocessors").arg(QString::fromStdString(g.name)).arg(g.multiprocessors);
            for (int c = 0; c < kGpuColumns; ++c)
                item->setToolTip(c, tip);
        }
        for (int c = 0; c < kGpuColumns; ++c)
            gpus_->resizeColumnToContents(c);
    }
    gpus_->setVisible(!list.empty());
    if (auto* refresh = findChild<QToolButton*>(QStringLiteral("refreshGpus")))
        refresh->setVisible(!list.empty());
    if (list.empty()) {
        std::string reason = cuda::unavailableReason();
        if (reason.empty())
            reason = "no GPU";
        gpuUnavailable_->setText(
            tr("No GPU: %1. Tiles run on emulated CPU devices.").arg(QString::fromStdString(reason)));
        gpuUnavailable_->show();
    } else {
        gpuUnavailable_->clear();
        gpuUnavailable_->hide();
    }
    syncFromScene();
}

void DevicesPanel::syncFromScene() {
    const auto& run = doc_->scene().run;
    for (int a = 0; a < 3; ++a) {
        const QSignalBlocker block(tiles_[a]);
        tiles_[a]->setValue(run.tiles[a]);
    }
    // Where run.devices runs here, decided by the solver's own parser exactly as a run would.
    run::RunOptions o;
    QString note;
    bool valid = true;
    try {
        run::selectDevices(run.devices, "run.devices", tileCount(run), o);
        if (!o.deviceNotice.empty()) {
            note = QString::fromStdString(o.deviceNotice);
        } else if (o.backend == run::Backend::Cuda) {
            QStringList ids;
            for (int id : o.gpus)
                ids << QStringLiteral("cuda:%1").arg(id);
            note = tr("Tiles run on %n GPU(s): %1.", nullptr, int(o.gpus.size()))
                       .arg(ids.join(QStringLiteral(", ")));
        }
    } catch (const std::exception& e) {
        valid = false;
        note = QString::fromUtf8(e.what());
    }
    const bool cpu = valid && o.backend == run::Backend::Cpu && o.deviceNotice.empty();
    {
        const QSignalBlocker block(devices_);
        devices_->setEnabled(cpu);
        if (valid && o.backend == run::Backend::Cpu)
            devices_->setValue(o.devices); // a GPU request falling back: the devices it runs on, read-only
    }
    {
        const QSignalBlocker block(gpus_);
        for (int i = 0; i < gpus_->topLevelItemCount(); ++i) {
            QTreeWidgetItem* item = gpus_->topLevelItem(i);
            const int id = item->data(kGpuId, kGpuIdRole).toInt();
            const bool used = valid && o.backend == run::Backend::Cuda &&
                              std::find(o.gpus.begin(), o.gpus.end(), id) != o.gpus.end();
            item->setCheckState(kGpuId, used ? Qt::Checked : Qt::Unchecked);
        }
    }
    devicesNote_->setText(note);
    devicesNote_->setVisible(!note.isEmpty());
}

void DevicesPanel::pushTiles() {
    // One spin-box session (arrows, wheel) is one undo step.
    if (tilesKey_ == 0)
        tilesKey_ = newMergeKey();
    const QVariantList v{tiles_[0]->value(), tiles_[1]->value(), tiles_[2]->value()};
    doc_->undoStack()->push(
        new SetPropertyCommand(doc_, {ItemKind::Run, -1}, QStringLiteral("tiles"), v, tilesKey_));
}

void DevicesPanel::pushDevices() {
    if (devicesKey_ == 0)
        devicesKey_ = newMergeKey();
    doc_->undoStack()->push(new SetPropertyCommand(doc_, {ItemKind::Run, -1}, QStringLiteral("devices"),
                                                   QStringLiteral("cpu:%1").arg(devices_->value()),
                                                   devicesKey_));
}

void DevicesPanel::pushGpus() {
    QStringList ids;
    for (int i = 0; i < gpus_->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = gpus_->topLevelItem(i);
        if (item->checkState(kGpuId) == Qt::Checked)
            ids << QString::number(item->data(kGpuId, kGpuIdRole).toInt());
    }
    // Every GPU: "cuda:all" (the scene then runs on any machine's GPUs); none: one CPU device per tile.
    const QString devices = ids.isEmpty() ? QStringLiteral("cpu:%1").arg(tileCount(doc_->scene().run))
                            : ids.size() == gpus_->topLevelItemCount()
                                ? QStringLiteral("cuda:all")
                                : QStringLiteral("cuda:") + ids.join(QLatin1Char(','));
    if (devices.toStdString() == doc_->scene().run.devices)
        return;
    doc_->undoStack()->push(
        new SetPropertyCommand(doc_, {ItemKind::Run, -1}, QStringLiteral("devices"), devices));
}

QString DevicesPanel::summaryText() const {
    return summary_->text();
}

void DevicesPanel::showEstimate(const EstimateOutcome& out) {
    problemText_ = out.problem;
    if (out.problem.isEmpty()) {
        problem_->hide();
    } else {
        problem_->setText(tr("Cannot run: %1").arg(out.problem));
        problem_->show();
    }
    if (!out.estimate) {
        summary_->clear();
        bars_->clear();
        return;
    }
    const auto& e = *out.estimate;
    summary_->setText(
        tr("Forward run (value-and-grad: see the Gradient panel): grid %1 \u00d7 %2 \u00d7 %3 cells, %4 "
           "steps on %5 device(s); largest peak %6, all devices %7.")
            .arg(e.gridCells[0])
            .arg(e.gridCells[1])
            .arg(e.gridCells[2])
            .arg(e.steps)
            .arg(e.devices.size())
            .arg(bytesText(e.maxDevicePeak()), bytesText(e.totalPeak())));
    QVector<DeviceMemory> rows;
    for (const auto& d : e.devices)
        rows.push_back({QString::fromStdString(d.name), boxText(d.tile), d.capacity, d.memory});
    // Devices beyond the tile count get no tile: they are idle, and said to be.
    const run::RunOptions o = settings_.optionsFor(doc_->scene());
    if (o.backend == run::Backend::Cuda)
        for (std::size_t g = e.devices.size(); g < o.gpus.size(); ++g) {
            DeviceMemory idle;
            idle.name = QStringLiteral("cuda:%1").arg(o.gpus[g]);
            idle.idle = true;
            rows.push_back(idle);
        }
    else
        for (int t = int(e.devices.size()); t < o.devices; ++t) {
            DeviceMemory idle;
            idle.name = QStringLiteral("cpu:%1").arg(t);
            idle.idle = true;
            rows.push_back(idle);
        }
    bars_->setDevices(rows);
}

} // namespace yee::ui
