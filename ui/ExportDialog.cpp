#include "ui/ExportDialog.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "ui/Format.hpp"

namespace yee::ui {

ExportDialog::ExportDialog(const scene::Scene& scene, QWidget* parent) : QDialog(parent), scene_(scene) {
    setObjectName(QStringLiteral("exportDialog"));
    setWindowTitle(tr("Export cluster bundle"));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    auto* tiles = new QHBoxLayout;
    for (int a = 0; a < 3; ++a) {
        tiles_[a] = new QSpinBox(this);
        tiles_[a]->setRange(1, 4096);
        tiles_[a]->setValue(std::max(1, scene.run.tiles[std::size_t(a)]));
        tiles_[a]->setPrefix(QStringLiteral("%1: ").arg(QLatin1Char("xyz"[a])));
        tiles->addWidget(tiles_[a]);
    }
    form->addRow(tr("Tile grid (one MPI rank per tile)"), tiles);
    nodes_ = new QSpinBox(this);
    nodes_->setRange(1, 100000);
    form->addRow(tr("Nodes"), nodes_);
    tasksPerNode_ = new QSpinBox(this);
    tasksPerNode_->setRange(0, 100000);
    tasksPerNode_->setSpecialValueText(tr("automatic (tiles / nodes)"));
    form->addRow(tr("Tasks per node"), tasksPerNode_);
    devices_ = new QComboBox(this);
    devices_->addItem(tr("as the scene says (run.devices)"), int(bundle::Devices::FromScene));
    devices_->addItem(tr("CPU ranks (MPI)"), int(bundle::Devices::Cpu));
    devices_->addItem(tr("one GPU per rank (NCCL over MPI)"), int(bundle::Devices::Cuda));
    form->addRow(tr("Devices"), devices_);
    gpusPerTask_ = new QLabel(this);
    gpusPerTask_->setObjectName(QStringLiteral("gpusPerTask"));
    form->addRow(tr("GPUs per task"), gpusPerTask_);
    time_ = new QLineEdit(QStringLiteral("01:00:00"), this);
    time_->setToolTip(tr("SLURM --time: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS"));
    form->addRow(tr("Time limit"), time_);
    gradient_ = new QCheckBox(tr("value and gradient (yee-run --grad)"), this);
    form->addRow(tr("Run"), gradient_);
    checkpointEvery_ = new QSpinBox(this);
    checkpointEvery_->setRange(0, 100000000);
    checkpointEvery_->setSpecialValueText(tr("none"));
    checkpointEvery_->setSuffix(tr(" steps"));
    checkpointEvery_->setToolTip(tr("Restart files every N steps; a resubmitted job resumes from them"));
    form->addRow(tr("Restart files every"), checkpointEvery_);
    form->addRow(
        tr("Partition, account"),
        new QLabel(tr("site-specific: placeholders in the script below (remove one '#' and edit)"), this));
    layout->addLayout(form);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("exportSummary"));
    summary_->setWordWrap(true);
    layout->addWidget(summary_);
    preview_ = new QPlainTextEdit(this);
    preview_->setObjectName(QStringLiteral("sbatchPreview"));
    preview_->setReadOnly(true);
    preview_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    preview_->setMinimumSize(560, 260);
    layout->addWidget(preview_, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    QPushButton* write = buttons->addButton(tr("Write bundle\u2026"), QDialogButtonBox::AcceptRole);
    write->setObjectName(QStringLiteral("writeBundle"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(write, &QPushButton::clicked, this, &ExportDialog::chooseAndExport);
    for (QSpinBox* b : {tiles_[0], tiles_[1], tiles_[2], nodes_, tasksPerNode_, checkpointEvery_})
        connect(b, &QSpinBox::valueChanged, this, &ExportDialog::refresh);
    connect(devices_, &QComboBox::currentIndexChanged, this, &ExportDialog::refresh);
    connect(time_, &QLineEdit::textChanged, this, &ExportDialog::refresh);
    connect(gradient_, &QCheckBox::toggled, this, &ExportDialog::refresh);
    refresh();
}

bundle::BundleOptions ExportDialog::options() const {
    bundle::BundleOptions o;
    o.tiles = {tiles_[0]->value(), tiles_[1]->value(), tiles_[2]->value()};
    o.nodes = nodes_->value();
    o.tasksPerNode = tasksPerNode_->value();
    o.devices = bundle::Devices(devices_->currentData().toInt());
    o.timeLimit = time_->text().trimmed().toStdString();
    o.gradient = gradient_->isChecked();
    o.checkpointEvery = checkpointEvery_->value();
    return o;
}

void ExportDialog::setOptions(const bundle::BundleOptions& o) {
    for (int a = 0; a < 3; ++a)
        tiles_[a]->setValue(o.tiles[std::size_t(a)] > 0 ? o.tiles[std::size_t(a)]
                                                        : std::max(1, scene_.run.tiles[std::size_t(a)]));
    nodes_->setValue(o.nodes);
    tasksPerNode_->setValue(o.tasksPerNode);
    devices_->setCurrentIndex(std::max(0, devices_->findData(int(o.devices))));
    time_->setText(QString::fromStdString(o.timeLimit));
    gradient_->setChecked(o.gradient);
    checkpointEvery_->setValue(o.checkpointEvery);
    refresh();
}

void ExportDialog::refresh() {
    const bundle::BundleOptions o = options();
    try {
        resources_ = bundle::resolveResources(scene_, o);
        problem_.clear();
        preview_->setPlainText(
            QString::fromStdString(bundle::sbatchScript(scene_, resources_, o.gradient, o.checkpointEvery)));
        gpusPerTask_->setText(resources_.cuda ? tr("%1 (one GPU per rank)").arg(resources_.gpusPerTask)
                                              : tr("0 (CPU ranks)"));
        summary_->setStyleSheet(QString());
        summary_->setText(tr("%1 rank(s) on %2 node(s), %3 per node; %4 steps; largest memory per rank %5.")
                              .arg(resources_.ranks)
                              .arg(resources_.nodes)
                              .arg(resources_.tasksPerNode)
                              .arg(resources_.steps)
                              .arg(bytesText(resources_.memoryPerRankBytes)));
    } catch (const std::exception& e) {
        problem_ = QString::fromStdString(e.what());
        preview_->clear();
        gpusPerTask_->setText(QStringLiteral("\u2014"));
        summary_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
        summary_->setText(tr("Cannot export: %1").arg(problem_));
    }
    if (auto* b = findChild<QPushButton*>(QStringLiteral("writeBundle")))
        b->setEnabled(problem_.isEmpty());
}

QString ExportDialog::script() const {
    return preview_->toPlainText();
}

QString ExportDialog::problem() const {
    return problem_;
}

bool ExportDialog::exportTo(const QString& dir, QString* error) {
    try {
        bundle::exportBundle(scene_, dir.toStdString(), options());
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
}

QString ExportDialog::suggestedPath() const {
    const QString name = QString::fromStdString(scene_.name.empty() ? std::string("scene") : scene_.name) +
                         QStringLiteral("-bundle");
    return startFolder_.isEmpty() ? name : QDir(startFolder_).filePath(name);
}

void ExportDialog::chooseAndExport() {
    const QString dir = QFileDialog::getSaveFileName(this, tr("Bundle folder (created)"), suggestedPath());
    if (dir.isEmpty())
        return;
    QString error;
    if (!exportTo(dir, &error)) {
        QMessageBox::warning(this, tr("Export cluster bundle"), error);
        return;
    }
    accept();
}

} // namespace yee::ui
