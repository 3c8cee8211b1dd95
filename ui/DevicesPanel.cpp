#include "ui/DevicesPanel.hpp"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include "ui/Format.hpp"
#include "ui/MemoryBars.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "yee/device/Device.hpp"

namespace yee::ui {

namespace {
int cpuDevices(const std::string& d) {
    if (d.rfind("cpu:", 0) != 0)
        return -1;
    bool ok = false;
    const int n = QString::fromStdString(d.substr(4)).toInt(&ok);
    return ok ? n : -1;
}
} // namespace

DevicesPanel::DevicesPanel(SceneDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);

    auto* local = new QGroupBox(tr("Local devices"), this);
    auto* lf = new QFormLayout(local);
    host_ = new QLabel(local);
    host_->setWordWrap(true);
    host_->setText(tr("Host: %1 hardware threads, %2 memory.\nCUDA: no GPU support in this build; "
                      "tiles run on emulated CPU devices.")
                       .arg(device::hostThreads())
                       .arg(bytesText(device::hostMemoryBytes())));
    lf->addRow(host_);
    devices_ = new QSpinBox(local);
    devices_->setObjectName(QStringLiteral("emulatedDevices"));
    devices_->setRange(1, 256);
    devices_->setToolTip(tr("Emulated CPU devices (run.devices = \"cpu:N\"); each tile needs one"));
    lf->addRow(tr("Emulated CPU devices"), devices_);
    devicesNote_ = new QLabel(local);
    devicesNote_->setWordWrap(true);
    devicesNote_->hide();
    lf->addRow(devicesNote_);
    capacity_ = new QDoubleSpinBox(local);
    capacity_->setObjectName(QStringLiteral("deviceCapacity"));
    capacity_->setRange(0, 1 << 20);
    capacity_->setDecimals(4);
    capacity_->setSuffix(tr(" GiB"));
    capacity_->setSpecialValueText(tr("host memory / devices"));
    capacity_->setToolTip(tr("Memory each emulated device may hold; 0 = an equal share of host memory"));
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

    auto* est = new QGroupBox(tr("Estimated peak memory per device"), this);
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
    syncFromScene();
}

QString DevicesPanel::problem() const {
    return problemText_;
}

void DevicesPanel::syncFromScene() {
    const auto& run = doc_->scene().run;
    for (int a = 0; a < 3; ++a) {
        const QSignalBlocker block(tiles_[a]);
        tiles_[a]->setValue(run.tiles[a]);
    }
    const int n = cpuDevices(run.devices);
    const QSignalBlocker block(devices_);
    devices_->setEnabled(n > 0);
    if (n > 0) {
        devices_->setValue(n);
        devicesNote_->hide();
    } else {
        devicesNote_->setText(tr("The scene asks for \"%1\"; set run.devices to \"cpu:N\" to run here.")
                                  .arg(QString::fromStdString(run.devices)));
        devicesNote_->show();
    }
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
        tr("Grid %1 \u00d7 %2 \u00d7 %3 cells, %4 steps on %5 device(s); largest peak %6, all devices %7.")
            .arg(e.gridCells[0])
            .arg(e.gridCells[1])
            .arg(e.gridCells[2])
            .arg(e.steps)
            .arg(e.devices.size())
            .arg(bytesText(e.maxDevicePeak()), bytesText(e.totalPeak())));
    QVector<DeviceMemory> rows;
    for (const auto& d : e.devices)
        rows.push_back({QString::fromStdString(d.name), boxText(d.tile), d.capacity, d.memory});
    bars_->setDevices(rows);
}

} // namespace yee::ui
