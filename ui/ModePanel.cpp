#include "ui/ModePanel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QShowEvent>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include "ui/FieldView.hpp"
#include "ui/SceneDocument.hpp"

namespace yee::ui {

ModePanel::ModePanel(SceneDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    setObjectName(QStringLiteral("modePanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    title_ = new QLabel(this);
    title_->setWordWrap(true);
    layout->addWidget(title_);
    auto* form = new QFormLayout;
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    mode_ = new QSpinBox(this);
    mode_->setObjectName(QStringLiteral("modeIndex"));
    mode_->setToolTip(tr("Mode shown: 0 is the largest n_eff (or the nearest n_guess)"));
    form->addRow(tr("Mode"), mode_);
    wavelength_ = new QComboBox(this);
    wavelength_->setObjectName(QStringLiteral("modeWavelength"));
    form->addRow(tr("Wavelength"), wavelength_);
    groupIndex_ = new QCheckBox(tr("Group index (two more solves)"), this);
    groupIndex_->setObjectName(QStringLiteral("modeGroupIndex"));
    groupIndex_->setChecked(true);
    groupIndex_->setToolTip(tr("n_g = c d\u03b2/d\u03c9 by a central difference: the cross-section is solved "
                               "again at \u03c9 (1 \u00b1 10\u207b\u00b3)"));
    form->addRow(QString(), groupIndex_);
    layout->addLayout(form);
    solve_ = new QPushButton(tr("Solve"), this);
    solve_->setObjectName(QStringLiteral("modeSolve"));
    solve_->setToolTip(tr("Solve the port's modes again (after editing the scene)"));
    layout->addWidget(solve_);
    view_ = new FieldView(this);
    view_->setObjectName(QStringLiteral("modeView"));
    view_->setMagnitude(true);
    view_->setMinimumHeight(200);
    layout->addWidget(view_, 1);
    info_ = new QLabel(this);
    info_->setObjectName(QStringLiteral("modeInfo"));
    info_->setWordWrap(true);
    info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(info_);

    connect(solve_, &QPushButton::clicked, this, [this] { solve(); });
    connect(mode_, &QSpinBox::valueChanged, this, [this] { solve(); });
    connect(wavelength_, &QComboBox::currentIndexChanged, this, [this] { solve(); });
    connect(groupIndex_, &QCheckBox::toggled, this, [this] { solve(); });
    connect(doc_, &SceneDocument::currentItemChanged, this, &ModePanel::follow);
    connect(doc_, &SceneDocument::sceneReset, this, &ModePanel::follow);
    follow();
}

ModePanel::~ModePanel() {
    ++generation_;
    if (worker_)
        worker_->wait();
}

void ModePanel::follow() {
    const scene::Scene& s = doc_->scene();
    const ItemRef ref = doc_->currentItem();
    if (!hasModes(s, ref)) {
        if (!hasModes(s, item_)) {
            item_ = {};
            title_->setText(tr("Select a mode source or a mode monitor to see its waveguide mode."));
        }
        return; // keep the last port's mode on screen while other items are edited
    }
    item_ = ref;
    {
        const QSignalBlocker b1(mode_), b2(wavelength_);
        const int count = previewModeCount(s, ref);
        const bool source = ref.kind == ItemKind::Source;
        mode_->setRange(0, std::max(0, count - 1));
        mode_->setValue(source ? count - 1 : std::min(mode_->value(), count - 1));
        mode_->setEnabled(!source); // a source launches its own mode_index
        wavelength_->clear();
        for (double w : previewWavelengths(s, ref))
            wavelength_->addItem(tr("%1 \u00b5m").arg(w, 0, 'g', 6));
        wavelength_->setCurrentIndex(int(previewWavelengths(s, ref).size()) / 2);
    }
    title_->setText(itemTitle(s, ref));
    if (!isVisible()) {
        stale_ = true;
        return;
    }
    solve();
}

void ModePanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_)
        solve();
}

bool ModePanel::solve() {
    const scene::Scene& s = doc_->scene();
    if (!hasModes(s, item_))
        return false;
    if (busy_) {
        pending_ = true; // solve again with the latest choice when the running one ends
        return true;
    }
    busy_ = true;
    pending_ = false;
    stale_ = false;
    solve_->setEnabled(false);
    title_->setText(tr("Solving the modes of %1\u2026").arg(itemTitle(s, item_)));
    const std::uint64_t generation = ++generation_;
    const int mode = mode_->value();
    const std::size_t wl = std::size_t(std::max(0, wavelength_->currentIndex()));
    const bool group = groupIndex_->isChecked();
    const ItemRef ref = item_;
    auto scene = std::make_shared<const scene::Scene>(s);
    worker_ = QThread::create([this, scene, ref, mode, wl, group, generation] {
        std::optional<ModePreview> p;
        QString error;
        try {
            p = solveModePreview(*scene, ref, mode, wl, group);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            this, [this, generation, p, error] { showResult(generation, p, error); }, Qt::QueuedConnection);
    });
    worker_->setObjectName(QStringLiteral("yee-modes"));
    connect(worker_, &QThread::finished, worker_, &QObject::deleteLater);
    worker_->start();
    return true;
}

void ModePanel::showResult(std::uint64_t generation, const std::optional<ModePreview>& p,
                           const QString& error) {
    busy_ = false;
    worker_ = nullptr; // deletes itself
    solve_->setEnabled(true);
    if (generation != generation_)
        return;
    if (pending_) {
        solve();
        return;
    }
    if (!p) {
        preview_.reset();
        title_->setText(tr("No mode: %1").arg(error));
        view_->clear(tr("The port's modes could not be solved."));
        info_->setText(error);
        emit solveFailed(error);
        return;
    }
    preview_ = p;
    title_->setText(p->title);
    view_->setSlice(p->field, tr("|E| (unit power) of %1").arg(p->title), tr("|E|"));
    info_->setText(infoText());
    emit previewShown();
}

QString ModePanel::infoText() const {
    if (!preview_)
        return info_->text();
    const ModePreview& p = *preview_;
    QStringList lines;
    lines << tr("n_eff = %1").arg(p.neff, 0, 'f', 6);
    if (p.groupIndex > 0)
        lines << tr("group index n_g = %1").arg(p.groupIndex, 0, 'f', 4);
    if (p.neffImag != 0)
        lines << tr("attenuation Im n_eff = %1").arg(p.neffImag, 0, 'g', 3);
    QStringList all;
    for (double n : p.neffs)
        all << QString::number(n, 'f', 5);
    lines << tr("modes solved: %1 (n_eff %2)").arg(p.neffs.size()).arg(all.join(QStringLiteral(", ")));
    lines << tr("cross-section %1 \u00d7 %2 cells, solved in %3 s")
                 .arg(p.cells[0])
                 .arg(p.cells[1])
                 .arg(p.seconds, 0, 'f', 3);
    return lines.join(QLatin1Char('\n'));
}

} // namespace yee::ui
