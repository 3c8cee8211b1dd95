#include "ui/GradientPanel.hpp"

#include <QComboBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStyle>
#include <QVBoxLayout>

#include "ui/Format.hpp"
#include "ui/MemoryBars.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneProperties.hpp"
#include "ui/WheelGuard.hpp"
#include "yee/scene/Schema.hpp"

namespace yee::ui {

namespace {
const char* const kLinear = "LinearReconstructEveryK";
const char* const kDtype = "DtypeConversion";

/// "name \u2014 help" of an enum entry of the scene schema, for a choice list.
QString choiceText(const scene::EnumEntry& e) {
    return *e.help ? QStringLiteral("%1 \u2014 %2")
                         .arg(QLatin1String(e.name),
                              QCoreApplication::translate("yee::ui::SceneProperties", e.help))
                   : QString::fromLatin1(e.name);
}

/// The box's tooltip: the whole text of its current choice.
void showChoiceTip(QComboBox* box) {
    box->setToolTip(box->currentData(Qt::ToolTipRole).toString());
}

/// Fills a choice box with the schema's short file names ("checkpointed"), the whole "name \u2014 help"
/// in each item's tooltip and in the box's own tooltip for the current choice: the box is as wide as its
/// longest name, so no name is ever cut in a narrow dock.
void fillChoices(QComboBox* box, const scene::EnumSpec& spec) {
    for (const auto& e : spec.entries) {
        box->addItem(QLatin1String(e.name), QLatin1String(e.name));
        box->setItemData(box->count() - 1, choiceText(e), Qt::ToolTipRole);
    }
    box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    QObject::connect(box, &QComboBox::currentIndexChanged, box, [box] { showChoiceTip(box); });
    showChoiceTip(box);
}

/// A small explanation under a setting: what it does and when to change it.
QLabel* explain(const QString& text, QWidget* parent, const char* name) {
    auto* l = new QLabel(text, parent);
    l->setObjectName(QLatin1String(name));
    l->setWordWrap(true);
    QFont f = l->font();
    f.setPointSizeF(f.pointSizeF() * 0.9);
    l->setFont(f);
    l->setForegroundRole(QPalette::PlaceholderText);
    return l;
}

QString moduleText(const scene::RecorderModule& m) {
    if (m.module == kLinear) {
        QString t = QStringLiteral("LinearReconstructEveryK(k=%1").arg(m.k);
        if (m.startAfter > 0)
            t += QStringLiteral(", start_after=%1").arg(m.startAfter);
        return t + QLatin1Char(')');
    }
    if (m.module == kDtype)
        return QStringLiteral("DtypeConversion(%1)").arg(QString::fromStdString(m.dtype));
    return QString::fromStdString(m.module);
}
} // namespace

GradientPanel::GradientPanel(SceneDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(3, 3, 3, 3);

    auto* methodBox = new QGroupBox(tr("Forward state in the reverse sweep"), this);
    auto* mf = new QFormLayout(methodBox);
    method_ = new QComboBox(methodBox);
    method_->setObjectName(QStringLiteral("gradientMethod"));
    fillChoices(method_, scene::gradientMethods());
    mf->addRow(tr("Method"), method_);
    checkpoints_ = new QSpinBox(methodBox);
    checkpoints_->setObjectName(QStringLiteral("numCheckpoints"));
    checkpoints_->setRange(1, 100000);
    mf->addRow(tr("Checkpoints"), checkpoints_);
    driftCheckpoints_ = new QSpinBox(methodBox);
    driftCheckpoints_->setObjectName(QStringLiteral("numCheckpointsReversible"));
    driftCheckpoints_->setRange(0, 100000);
    driftCheckpoints_->setToolTip(tr("Full-state checkpoints bounding drift in lossy media (0 = none)"));
    mf->addRow(tr("Drift checkpoints"), driftCheckpoints_);
    mf->addRow(explain(tr("Reversible only. The reverse sweep runs the fields backward in time; in lossy "
                          "media that reconstruction drifts. Each drift checkpoint stores one full state "
                          "during the forward run and resets the reconstruction there: more checkpoints, "
                          "less drift, one full field copy of memory each. 0 for lossless scenes."),
                       methodBox, "explainDrift"));
    layout->addWidget(methodBox);

    recorderBox_ = new QGroupBox(tr("Recorder chain"), this);
    recorderBox_->setToolTip(
        tr("Modules are applied in order when a record is written and undone in reverse order "
           "when it is read (reversible method only)"));
    auto* rl = new QVBoxLayout(recorderBox_);
    chain_ = new QListWidget(recorderBox_);
    chain_->setObjectName(QStringLiteral("recorderChain"));
    chain_->setMaximumHeight(64);
    rl->addWidget(chain_);
    auto* buttons = new QHBoxLayout;
    add_ = new QPushButton(tr("Add"), recorderBox_);
    auto* addMenu = new QMenu(add_);
    for (const auto& e : scene::recorderModules().entries) {
        const QString name = QLatin1String(e.name);
        addMenu->addAction(choiceText(e), this, [this, name] { addModule(name); });
    }
    add_->setMenu(addMenu);
    remove_ = new QPushButton(tr("Remove"), recorderBox_);
    up_ = new QPushButton(style()->standardIcon(QStyle::SP_ArrowUp), QString(), recorderBox_);
    up_->setToolTip(tr("Move the module earlier in the chain"));
    down_ = new QPushButton(style()->standardIcon(QStyle::SP_ArrowDown), QString(), recorderBox_);
    down_->setToolTip(tr("Move the module later in the chain"));
    for (auto* b : {add_, remove_, up_, down_})
        buttons->addWidget(b);
    rl->addLayout(buttons);
    moduleEditor_ = new QStackedWidget(recorderBox_);
    moduleEditor_->addWidget(new QLabel(tr("Select a module to edit it."), moduleEditor_));
    auto* linear = new QWidget(moduleEditor_);
    auto* lf = new QFormLayout(linear);
    lf->setContentsMargins(0, 0, 0, 0);
    k_ = new QSpinBox(linear);
    k_->setRange(1, 10000);
    k_->setToolTip(tr("Keep every k-th step (and the last); interpolate between"));
    lf->addRow(tr("k"), k_);
    startAfter_ = new QSpinBox(linear);
    startAfter_->setRange(0, 100000000);
    startAfter_->setSuffix(tr(" steps"));
    lf->addRow(tr("Start after"), startAfter_);
    moduleEditor_->addWidget(linear);
    auto* dtypeW = new QWidget(moduleEditor_);
    auto* df = new QFormLayout(dtypeW);
    df->setContentsMargins(0, 0, 0, 0);
    dtype_ = new QComboBox(dtypeW);
    for (const auto& e : scene::dtypes().entries)
        dtype_->addItem(QLatin1String(e.name), QLatin1String(e.name));
    df->addRow(tr("Stored type"), dtype_);
    moduleEditor_->addWidget(dtypeW);
    rl->addWidget(moduleEditor_);
    layout->addWidget(recorderBox_);

    auto* storage = new QGroupBox(tr("Storage tier"), this);
    auto* sf = new QFormLayout(storage);
    tier_ = new QComboBox(storage);
    tier_->setObjectName(QStringLiteral("storageTier"));
    fillChoices(tier_, scene::storageTiers());
    sf->addRow(tr("Tier"), tier_);
    transferInterval_ = new QSpinBox(storage);
    transferInterval_->setRange(1, 100000);
    transferInterval_->setSuffix(tr(" steps"));
    transferInterval_->setToolTip(tr("Steps between asynchronous copies to the host ring"));
    sf->addRow(tr("Transfer interval"), transferInterval_);
    sf->addRow(explain(tr("Host tier: records of this many steps are gathered in one device slot and "
                          "copied to host memory together. Longer intervals mean fewer, larger copies "
                          "(better bandwidth) but bigger device slots."),
                       storage, "explainTransfer"));
    ringBuffers_ = new QSpinBox(storage);
    ringBuffers_->setRange(2, 1024);
    sf->addRow(tr("Ring buffers"), ringBuffers_);
    sf->addRow(explain(tr("Device slots in the staging ring: one being written, one being read back, the "
                          "rest reading ahead while the sweep computes. At least 3; more hides slower "
                          "host or disk transfers at the cost of one slot of device memory each."),
                       storage, "explainRing"));
    diskPath_ = new QLineEdit(storage);
    diskPath_->setPlaceholderText(tr("temporary directory"));
    sf->addRow(tr("Disk directory"), diskPath_);
    layout->addWidget(storage);

    auto* est = new QGroupBox(tr("Value-and-grad estimate (memory, time)"), this);
    est->setObjectName(QStringLiteral("gradientEstimateBox"));
    auto* el = new QVBoxLayout(est);
    summary_ = new QLabel(est);
    summary_->setWordWrap(true);
    el->addWidget(summary_);
    time_ = new QLabel(est);
    time_->setObjectName(QStringLiteral("gradientTimeEstimate"));
    time_->setWordWrap(true);
    el->addWidget(time_);
    note_ =
        new QLabel(tr("Every piece of gradient state (recorder, checkpoints, adjoint fields) lives on the "
                      "tile's own device; nothing is replicated."),
                   est);
    note_->setWordWrap(true);
    el->addWidget(note_);
    bars_ = new MemoryBars(MemoryBars::Mode::PeakOnly, est);
    el->addWidget(bars_, 1);
    // Right under the method (before the recorder chain and the storage tier): what a choice costs is
    // in sight as it is made, also in a 1024 x 700 window where the rest of the panel scrolls.
    layout->insertWidget(layout->indexOf(methodBox) + 1, est, 1);

    // Edits become undo commands; the panel then re-syncs from the scene.
    connect(method_, &QComboBox::activated, this, [this] { setMethod(method_->currentData().toString()); });
    connect(checkpoints_, &QSpinBox::valueChanged, this,
            [this](int v) { setProperty(QStringLiteral("num_checkpoints"), v, &checkpointsKey_); });
    connect(checkpoints_, &QSpinBox::editingFinished, this, [this] { checkpointsKey_ = 0; });
    connect(driftCheckpoints_, &QSpinBox::valueChanged, this,
            [this](int v) { setProperty(QStringLiteral("num_checkpoints_reversible"), v, &driftKey_); });
    connect(driftCheckpoints_, &QSpinBox::editingFinished, this, [this] { driftKey_ = 0; });
    connect(tier_, &QComboBox::activated, this,
            [this] { setProperty(QStringLiteral("storage.tier"), tier_->currentData()); });
    connect(transferInterval_, &QSpinBox::valueChanged, this,
            [this](int v) { setProperty(QStringLiteral("storage.transfer_interval"), v, &transferKey_); });
    connect(transferInterval_, &QSpinBox::editingFinished, this, [this] { transferKey_ = 0; });
    connect(ringBuffers_, &QSpinBox::valueChanged, this,
            [this](int v) { setProperty(QStringLiteral("storage.ring_buffers"), v, &ringKey_); });
    connect(ringBuffers_, &QSpinBox::editingFinished, this, [this] { ringKey_ = 0; });
    connect(diskPath_, &QLineEdit::editingFinished, this,
            [this] { setProperty(QStringLiteral("storage.path"), diskPath_->text()); });
    connect(remove_, &QPushButton::clicked, this, &GradientPanel::removeSelectedModule);
    connect(up_, &QPushButton::clicked, this, [this] { moveSelectedModule(-1); });
    connect(down_, &QPushButton::clicked, this, [this] { moveSelectedModule(+1); });
    connect(chain_, &QListWidget::currentRowChanged, this, &GradientPanel::syncModuleEditor);
    auto editModule = [this](auto apply) {
        const int row = chain_->currentRow();
        auto chain = doc_->scene().gradient.recorder;
        if (row < 0 || row >= int(chain.size()))
            return;
        apply(chain[std::size_t(row)]);
        if (moduleKey_ == 0)
            moduleKey_ = newMergeKey();
        pushChain(chain, row, moduleKey_);
    };
    connect(k_, &QSpinBox::valueChanged, this,
            [editModule](int v) { editModule([v](scene::RecorderModule& m) { m.k = v; }); });
    connect(startAfter_, &QSpinBox::valueChanged, this,
            [editModule](int v) { editModule([v](scene::RecorderModule& m) { m.startAfter = v; }); });
    connect(dtype_, &QComboBox::activated, this, [this, editModule] {
        const std::string t = dtype_->currentData().toString().toStdString();
        editModule([t](scene::RecorderModule& m) { m.dtype = t; });
        moduleKey_ = 0;
    });
    connect(k_, &QSpinBox::editingFinished, this, [this] { moduleKey_ = 0; });
    connect(startAfter_, &QSpinBox::editingFinished, this, [this] { moduleKey_ = 0; });
    connect(doc_, &SceneDocument::sceneChanged, this, &GradientPanel::syncFromScene);
    connect(doc_, &SceneDocument::sceneReset, this, [this] { keptChain_.clear(); });
    syncFromScene();
    WheelGuard::install(this);
}

void GradientPanel::setMethod(const QString& method) {
    const ItemRef ref{ItemKind::Gradient, -1};
    const auto& chain = doc_->scene().gradient.recorder;
    const bool toReversible = method == gradientMethodName(scene::GradientMethod::Reversible);
    std::vector<scene::RecorderModule> next =
        toReversible ? (chain.empty() ? keptChain_ : chain) : std::vector<scene::RecorderModule>{};
    // The method is checked on the scene as it will be, with the chain kept aside or brought back.
    scene::Scene trial = doc_->scene();
    trial.gradient.recorder = next;
    const PropertyCheck c = checkProperty(trial, ref, QStringLiteral("method"), method);
    if (!c.ok) {
        summary_->setText(tr("Not applied: %1").arg(c.error));
        syncFromScene();
        return;
    }
    if (c.value == propertyValue(doc_->scene(), ref, QStringLiteral("method")))
        return;
    if (next.size() == chain.size()) {
        doc_->undoStack()->push(new SetPropertyCommand(doc_, ref, QStringLiteral("method"), c.value));
        return;
    }
    if (!toReversible)
        keptChain_ = chain;
    doc_->undoStack()->beginMacro(tr("Gradient method %1").arg(method));
    if (!toReversible)
        doc_->undoStack()->push(new SetRecorderChainCommand(doc_, next));
    doc_->undoStack()->push(new SetPropertyCommand(doc_, ref, QStringLiteral("method"), c.value));
    if (toReversible)
        doc_->undoStack()->push(new SetRecorderChainCommand(doc_, next));
    doc_->undoStack()->endMacro();
    if (toReversible)
        keptChain_.clear();
}

double GradientPanel::costFactor(scene::GradientMethod method, std::int64_t steps, std::int64_t recompute,
                                 QString* detail) {
    const double n = double(std::max<std::int64_t>(1, steps));
    double reverse = n;
    switch (method) {
    case scene::GradientMethod::Full:
        if (detail)
            *detail = tr("%1 forward + %1 adjoint steps").arg(steps);
        break;
    case scene::GradientMethod::Checkpointed:
        reverse = n + double(recompute);
        if (detail)
            *detail = tr("%1 forward + %2 recomputed + %1 adjoint steps (recompute factor %3)")
                          .arg(steps)
                          .arg(recompute)
                          .arg(double(recompute) / n, 0, 'f', 2);
        break;
    case scene::GradientMethod::Reversible:
        reverse = 2 * n;
        if (detail)
            *detail = tr("%1 forward + %1 reverse steps, each reconstructing the forward state and "
                         "adjoining (reverse sweep ≈ 2 forward steps per step)")
                          .arg(steps);
        break;
    }
    return (n + reverse) / n;
}

QString GradientPanel::timeText() const {
    return time_->text();
}

void GradientPanel::setProperty(const QString& key, const QVariant& value, int* mergeKey) {
    const ItemRef ref{ItemKind::Gradient, -1};
    const PropertyCheck c = checkProperty(doc_->scene(), ref, key, value);
    if (!c.ok) {
        summary_->setText(tr("Not applied: %1").arg(c.error));
        syncFromScene();
        return;
    }
    if (c.value == propertyValue(doc_->scene(), ref, key))
        return;
    int key0 = 0;
    if (mergeKey) {
        if (*mergeKey == 0)
            *mergeKey = newMergeKey();
        key0 = *mergeKey;
    }
    doc_->undoStack()->push(new SetPropertyCommand(doc_, ref, key, c.value, key0));
}

void GradientPanel::pushChain(std::vector<scene::RecorderModule> chain, int select, int mergeKey) {
    doc_->undoStack()->push(new SetRecorderChainCommand(doc_, std::move(chain), mergeKey));
    chain_->setCurrentRow(select);
}

void GradientPanel::addModule(const QString& module) {
    auto chain = doc_->scene().gradient.recorder;
    scene::RecorderModule m;
    m.module = module.toStdString();
    if (module == kLinear)
        m.k = 4;
    else
        m.dtype = "bfloat16";
    const int at = chain_->currentRow() < 0 ? int(chain.size()) : chain_->currentRow() + 1;
    chain.insert(chain.begin() + at, m);
    pushChain(chain, at);
}

void GradientPanel::removeSelectedModule() {
    const int row = chain_->currentRow();
    auto chain = doc_->scene().gradient.recorder;
    if (row < 0 || row >= int(chain.size()))
        return;
    chain.erase(chain.begin() + row);
    pushChain(chain, std::min(row, int(chain.size()) - 1));
}

void GradientPanel::moveSelectedModule(int delta) {
    const int row = chain_->currentRow(), to = row + delta;
    auto chain = doc_->scene().gradient.recorder;
    if (row < 0 || row >= int(chain.size()) || to < 0 || to >= int(chain.size()))
        return;
    std::swap(chain[std::size_t(row)], chain[std::size_t(to)]);
    pushChain(chain, to);
}

void GradientPanel::syncFromScene() {
    const auto& g = doc_->scene().gradient;
    const QString method = gradientMethodName(g.method);
    {
        const QSignalBlocker b1(method_), b2(checkpoints_), b3(driftCheckpoints_), b4(tier_),
            b5(transferInterval_), b6(ringBuffers_), b7(diskPath_);
        method_->setCurrentIndex(method_->findData(method));
        checkpoints_->setValue(g.numCheckpoints);
        driftCheckpoints_->setValue(g.numCheckpointsReversible);
        tier_->setCurrentIndex(std::max(0, tier_->findData(QString::fromStdString(g.tier))));
        transferInterval_->setValue(g.transferInterval);
        ringBuffers_->setValue(g.ringBuffers);
        diskPath_->setText(QString::fromStdString(g.diskPath));
    }
    showChoiceTip(method_); // set with the signals blocked
    showChoiceTip(tier_);
    const bool checkpointed = g.method == scene::GradientMethod::Checkpointed;
    const bool reversible = g.method == scene::GradientMethod::Reversible;
    checkpoints_->setEnabled(checkpointed);
    driftCheckpoints_->setEnabled(reversible);
    recorderBox_->setEnabled(reversible);
    recorderBox_->setTitle(reversible || keptChain_.empty()
                               ? tr("Recorder chain")
                               : tr("Recorder chain (kept aside: back when the method is reversible)"));
    // Explanations where the setting applies (the panel stays short otherwise).
    if (auto* l = findChild<QLabel*>(QStringLiteral("explainDrift")))
        l->setVisible(reversible);
    for (const char* name : {"explainTransfer", "explainRing"})
        if (auto* l = findChild<QLabel*>(QLatin1String(name)))
            l->setVisible(g.tier != "device");
    transferInterval_->setEnabled(g.tier == "host");
    ringBuffers_->setEnabled(g.tier == "host");
    diskPath_->setEnabled(g.tier == "disk");

    const int row = chain_->currentRow();
    {
        const QSignalBlocker b(chain_);
        chain_->clear();
        for (std::size_t i = 0; i < g.recorder.size(); ++i)
            chain_->addItem(QStringLiteral("%1. %2").arg(i + 1).arg(moduleText(g.recorder[i])));
        if (!reversible)
            for (std::size_t i = 0; i < keptChain_.size(); ++i)
                chain_->addItem(QStringLiteral("%1. %2").arg(i + 1).arg(moduleText(keptChain_[i])));
        if (chain_->count() == 0)
            chain_->addItem(tr("(empty: records stored as computed)"));
        chain_->setCurrentRow(g.recorder.empty() ? -1 : std::min(row, int(g.recorder.size()) - 1));
    }
    if (g.recorder.empty())
        for (int i = 0; i < chain_->count(); ++i)
            chain_->item(i)->setFlags(Qt::NoItemFlags);
    syncModuleEditor();
}

void GradientPanel::syncModuleEditor() {
    const auto& chain = doc_->scene().gradient.recorder;
    const int row = chain_->currentRow();
    const bool valid = row >= 0 && row < int(chain.size());
    remove_->setEnabled(valid);
    up_->setEnabled(valid && row > 0);
    down_->setEnabled(valid && row + 1 < int(chain.size()));
    if (!valid) {
        moduleEditor_->setCurrentIndex(0);
        return;
    }
    const auto& m = chain[std::size_t(row)];
    const QSignalBlocker b1(k_), b2(startAfter_), b3(dtype_);
    if (m.module == kLinear) {
        k_->setValue(m.k);
        startAfter_->setValue(m.startAfter);
        moduleEditor_->setCurrentIndex(1);
    } else if (m.module == kDtype) {
        dtype_->setCurrentIndex(std::max(0, dtype_->findData(QString::fromStdString(m.dtype))));
        moduleEditor_->setCurrentIndex(2);
    } else {
        moduleEditor_->setCurrentIndex(0);
    }
}

QString GradientPanel::estimateText() const {
    return summary_->text();
}

void GradientPanel::showEstimate(const EstimateOutcome& out) {
    const auto& g = doc_->scene().gradient;
    if (!out.gradientEstimate) {
        summary_->setText(out.gradientProblem.isEmpty()
                              ? tr("No estimate.")
                              : tr("Value-and-grad cannot run: %1").arg(out.gradientProblem));
        summary_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
        time_->clear();
        bars_->clear();
        return;
    }
    const auto& e = *out.gradientEstimate;
    QString detail;
    const double factor = costFactor(g.method, e.steps, e.recomputeSteps, &detail);
    time_->setText(tr("Time: ≈ %1 × a forward run (%2).").arg(factor, 0, 'f', 2).arg(detail));
    std::int64_t forward = out.estimate ? out.estimate->maxDevicePeak() : 0;
    QString text = tr("Method %1: largest device peak %2 for value and gradient (forward alone: %3).")
                       .arg(gradientMethodName(g.method), bytesText(e.maxDevicePeak()), bytesText(forward));
    if (!out.gradientProblem.isEmpty())
        text += QLatin1Char(' ') + tr("Cannot run: %1").arg(out.gradientProblem);
    summary_->setText(text);
    summary_->setStyleSheet(out.gradientProblem.isEmpty() ? QString()
                                                          : QStringLiteral("QLabel { color: #b00020; }"));
    QVector<DeviceMemory> rows;
    for (std::size_t i = 0; i < e.devices.size(); ++i) {
        const auto& d = e.devices[i];
        DeviceMemory m{QString::fromStdString(d.name), boxText(d.tile), d.capacity, d.memory};
        if (i < out.gradientHostBytes.size())
            m.hostBytes = out.gradientHostBytes[i];
        rows.push_back(m);
    }
    bars_->setDevices(rows);
}

} // namespace yee::ui
