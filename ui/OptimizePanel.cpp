#include "ui/OptimizePanel.hpp"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QLocale>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "ui/DensityView.hpp"
#include "ui/OptimizationCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneProperties.hpp"
#include "ui/TermTable.hpp"
#include "ui/WheelGuard.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/scene/Schema.hpp"
#if YEE_UI_HAVE_OPT
#include "yee/opt/Optimize.hpp"
#endif

namespace yee::ui {

namespace {

using scene::KeyType;
using scene::SectionId;

const scene::SectionSpec& optSection() {
    return scene::section(SectionId::Optimization);
}

QString numberText(double v) {
    return QString::number(v, 'g', 10);
}

/// "refl: flux at 1 µm" for term `t`.
QString termName(const scene::ObjectiveTerm& t) {
    QString n = QStringLiteral("%1: %2").arg(
        QString::fromStdString(t.detector), QString::fromLatin1(scene::quantities().nameOf(int(t.quantity))));
    if (t.reduce == scene::Reduce::AtWavelength)
        n += QStringLiteral(" at %1 \u00b5m").arg(numberText(t.wavelength));
    return n;
}

std::vector<QString> termNames(const scene::Scene& s) {
    std::vector<QString> out;
    for (const auto& t : s.objective.terms)
        out.push_back(termName(t));
    return out;
}

QString newHistoryPath() {
    static std::atomic<int> n{0};
    return QDir::temp().filePath(
        QStringLiteral("yee-studio-%1-opt-%2.history.h5").arg(QCoreApplication::applicationPid()).arg(++n));
}

} // namespace

OptimizePanel::OptimizePanel(SceneDocument* doc, QWidget* parent)
    : QWidget(parent), doc_(doc), runner_(new OptRunner(this)) {
    auto* settingsBox = new QGroupBox(tr("Optimiser"), this);
    auto* form = new QFormLayout(settingsBox);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    buildSettings(form);

    auto* constraintBox = new QGroupBox(tr("Constraints (MMA, CCSA)"), this);
    constraints_ = new TermTable(doc_, TermList::Constraints, constraintBox);
    auto* cl = new QVBoxLayout(constraintBox);
    cl->addWidget(constraints_);
    connect(constraints_, &TermTable::problem, this, [this](const QString& m) { emit message(m, true); });

    start_ = new QPushButton(tr("Start"), this);
    start_->setObjectName(QStringLiteral("optStart"));
    pause_ = new QPushButton(tr("Pause"), this);
    pause_->setObjectName(QStringLiteral("optPause"));
    pause_->setCheckable(true);
    stop_ = new QPushButton(tr("Stop"), this);
    stop_->setObjectName(QStringLiteral("optStop"));
    stop_->setToolTip(tr("End after the evaluation in progress; the history stays valid"));
    open_ = new QPushButton(tr("Open history\u2026"), this);
    open_->setObjectName(QStringLiteral("optOpenHistory"));
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {start_, pause_, stop_})
        buttons->addWidget(b);
    buttons->addStretch(1);
    status_ = new QLabel(tr("Not started."), this);
    status_->setObjectName(QStringLiteral("optStatus"));
    status_->setWordWrap(true);

    chart_ = new QChart;
    chart_->setMargins(QMargins(2, 2, 2, 2));
    chart_->legend()->setAlignment(Qt::AlignBottom);
    axisX_ = new QValueAxis;
    axisX_->setTitleText(tr("Evaluation"));
    axisX_->setLabelFormat(QStringLiteral("%d"));
    axisY_ = new QValueAxis;
    axisY_->setTitleText(tr("Value (term units: W for flux, J for energy)"));
    chart_->addAxis(axisX_, Qt::AlignBottom);
    chart_->addAxis(axisY_, Qt::AlignLeft);
    merit_ = nullptr;
    objective_ = nullptr;
    chartView_ = new QChartView(chart_, this);
    chartView_->setObjectName(QStringLiteral("optPlot"));
    chartView_->setRenderHint(QPainter::Antialiasing);
    chartView_->setMinimumHeight(160);

    design_ = new QComboBox(this);
    design_->setObjectName(QStringLiteral("optDesign"));
    density_ = new DensityView(this);
    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName(QStringLiteral("optIteration"));
    slider_->setRange(0, 0);
    slider_->setEnabled(false);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("optSummary"));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* densityRow = new QHBoxLayout;
    densityRow->addWidget(new QLabel(tr("Design:"), this));
    densityRow->addWidget(design_, 1);

    // The controls first (reachable in a short dock), then two pages: what the loop shows, and the
    // settings, the constraints (one column of both needed 1160 px, a scroll bar even at 1600x1000).
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(buttons);
    auto* statusRow = new QHBoxLayout;
    statusRow->addWidget(status_, 1);
    statusRow->addWidget(open_);
    lay->addLayout(statusRow);
    pages_ = new QTabWidget(this);
    pages_->setObjectName(QStringLiteral("optPages"));
    pages_->setDocumentMode(true);
    auto* progress = new QWidget(pages_);
    auto* pl = new QVBoxLayout(progress);
    pl->setContentsMargins(0, 4, 0, 0);
    pl->addWidget(chartView_, 2);
    pl->addWidget(slider_);
    pl->addWidget(summary_);
    pl->addLayout(densityRow);
    pl->addWidget(density_, 1);
    auto* settings = new QWidget(pages_);
    auto* sl = new QVBoxLayout(settings);
    sl->setContentsMargins(0, 4, 0, 0);
    sl->addWidget(settingsBox);
    sl->addStretch(1);
    auto* limits = new QWidget(pages_);
    auto* ll = new QVBoxLayout(limits);
    ll->setContentsMargins(0, 4, 0, 0);
    ll->addWidget(constraintBox, 1);
    pages_->addTab(progress, tr("Progress"));
    pages_->addTab(settings, tr("Settings"));
    pages_->addTab(limits, tr("Constraints"));
    lay->addWidget(pages_, 1);

    connect(start_, &QPushButton::clicked, this, [this] {
        QString why;
        if (!start(&why))
            emit message(tr("Optimisation not started: %1").arg(why), true);
    });
    connect(pause_, &QPushButton::toggled, this, &OptimizePanel::setPaused);
    connect(stop_, &QPushButton::clicked, this, &OptimizePanel::stop);
    connect(open_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open optimisation history"), QString(),
                                                          tr("Optimisation histories (*.h5);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !openHistory(path, &error))
            emit message(error, true);
    });
    connect(slider_, &QSlider::valueChanged, this, &OptimizePanel::showEvaluation);
    connect(design_, &QComboBox::currentIndexChanged, this, [this] { showEvaluation(slider_->value()); });
    connect(runner_, &OptRunner::evaluated, this, [this](int, const opt::Evaluation& e) { append(e); });
    connect(runner_, &OptRunner::finished, this, [this](const OptOutcome& out) {
        live_ = false;
        status_->setText(tr("%1: %2; %3 evaluations, best #%4. History: %5")
                             .arg(out.completed ? tr("Finished") : tr("Stopped"), out.status)
                             .arg(out.evaluations)
                             .arg(out.best)
                             .arg(out.historyPath));
        emit message(tr("Optimisation %1 (%2); history %3")
                         .arg(out.completed ? tr("finished") : tr("stopped"), out.status, out.historyPath),
                     !out.completed);
        syncButtons();
        emit optimizationFinished(out);
    });
    connect(runner_, &OptRunner::failed, this, [this](const QString& m) {
        live_ = false;
        status_->setText(tr("Failed: %1").arg(m));
        emit message(tr("Optimisation failed: %1").arg(m), true);
        syncButtons();
    });
    connect(doc_, &SceneDocument::sceneChanged, this, &OptimizePanel::syncFromScene);
    connect(doc_, &SceneDocument::sceneReset, this, &OptimizePanel::syncFromScene);
    WheelGuard::install(this);
    syncFromScene();
    syncButtons();
}

void OptimizePanel::buildSettings(QFormLayout* form) {
    for (const auto& k : optSection().keys) {
        const QString name = QString::fromLatin1(k.name);
        if (k.type == KeyType::SectionList || editors_.count(name))
            continue;
        QWidget* w = nullptr;
        if (k.type == KeyType::Enum && k.choices) {
            auto* c = new QComboBox(this);
            for (const auto& e : k.choices->entries)
                c->addItem(QString::fromLatin1(e.label), QString::fromLatin1(e.name));
            connect(c, &QComboBox::activated, this, [this, c, name](int i) {
                if (QString e = setSetting(name, c->itemData(i)); !e.isEmpty()) {
                    emit message(e, true);
                    syncFromScene();
                }
            });
            w = c;
        } else if (k.type == KeyType::Integer) {
            auto* sp = new QSpinBox(this);
            sp->setRange(int(std::max(k.range.lo, -1e9)), int(std::min(k.range.hi, 1e9)));
            sp->setKeyboardTracking(false);
            connect(sp, &QSpinBox::valueChanged, this, [this, name](int v) {
                if (syncing_)
                    return;
                if (QString e = setSetting(name, v); !e.isEmpty()) {
                    emit message(e, true);
                    syncFromScene();
                }
            });
            w = sp;
        } else {
            auto* e = new QLineEdit(this);
            auto* val = new QDoubleValidator(e);
            val->setLocale(QLocale::c());
            e->setValidator(val);
            connect(e, &QLineEdit::editingFinished, this, [this, e, name] {
                if (syncing_)
                    return;
                if (QString err = setSetting(name, e->text()); !err.isEmpty()) {
                    emit message(err, true);
                    syncFromScene();
                }
            });
            w = e;
        }
        w->setObjectName(QStringLiteral("opt_") + name);
        w->setToolTip(QString::fromLatin1(k.help));
        editors_[name] = w;
        form->addRow(QString::fromLatin1(k.label), w);
    }
}

QWidget* OptimizePanel::settingEditor(const QString& key) const {
    const auto it = editors_.find(key);
    return it == editors_.end() ? nullptr : it->second;
}

QString OptimizePanel::setSetting(const QString& key, const QVariant& value) {
    const QString path = QStringLiteral("optimization.%1").arg(key);
    scene::Scene trial = doc_->scene();
    const auto& sec = optSection();
    const int variant = sec.variantOf(trial, -1);
    const scene::KeySpec* k = sec.find(key.toStdString(), variant);
    if (!k)
        k = sec.findAny(key.toStdString());
    if (!k || !k->set)
        return tr("%1: no such setting").arg(path);
    scene::SchemaValue v;
    if (k->type == KeyType::Number || k->type == KeyType::Integer) {
        bool ok = false;
        const double d = value.typeId() == QMetaType::QString ? QLocale::c().toDouble(value.toString(), &ok)
                                                              : value.toDouble(&ok);
        if (!ok || !std::isfinite(d))
            return tr("%1: '%2' is not a number").arg(path, value.toString());
        if (k->type == KeyType::Integer && d != std::floor(d))
            return tr("%1: '%2' is not a whole number").arg(path, value.toString());
        if (const std::string e = scene::checkNumber(*k, d); !e.empty())
            return tr("%1: %2").arg(path, QString::fromStdString(e));
        if (k->type == KeyType::Integer)
            v = int(d);
        else
            v = d;
    } else {
        const std::string s = value.toString().toStdString();
        if (k->choices && !k->choices->find(s))
            return tr("%1: %2").arg(path, QString::fromStdString(k->choices->unknownText(s)));
        v = s;
    }
    k->set(trial, -1, v);
    const bool wasValid = sceneProblem(doc_->scene()).isEmpty();
    if (const QString p = sceneProblem(trial); wasValid && !p.isEmpty())
        return p;
    doc_->undoStack()->push(new SetOptimizationCommand(
        doc_, trial.optimization, tr("Optimization \u203a %1").arg(QString::fromLatin1(k->label))));
    return {};
}

void OptimizePanel::syncFromScene() {
    syncing_ = true;
    const scene::Scene& s = doc_->scene();
    const auto& sec = optSection();
    const int variant = sec.variantOf(s, -1);
    for (auto& [name, w] : editors_) {
        const scene::KeySpec* k = sec.find(name.toStdString(), variant);
        w->setEnabled(k != nullptr);
        if (!k)
            k = sec.findAny(name.toStdString());
        const scene::SchemaValue v = k->get(s, -1);
        if (auto* c = qobject_cast<QComboBox*>(w)) {
            if (const auto* str = std::get_if<std::string>(&v))
                c->setCurrentIndex(c->findData(QString::fromStdString(*str)));
        } else if (auto* sp = qobject_cast<QSpinBox*>(w)) {
            if (const auto* i = std::get_if<int>(&v))
                sp->setValue(*i);
        } else if (auto* e = qobject_cast<QLineEdit*>(w)) {
            if (const auto* d = std::get_if<double>(&v))
                e->setText(numberText(*d));
        }
    }
    if (!live_) {
        // The design list follows the scene unless a history is being shown.
        if (shownPath_.isEmpty() && design_->count() != int(s.designs.size())) {
            const QSignalBlocker block(design_);
            design_->clear();
            for (const auto& d : s.designs)
                design_->addItem(QString::fromStdString(d.name));
        }
    }
    syncing_ = false;
}

void OptimizePanel::syncButtons() {
    const bool running = runner_->isRunning();
    start_->setEnabled(!running && OptRunner::available());
    if (!OptRunner::available())
        start_->setToolTip(tr("This build has no optimisation module (NLopt)"));
    pause_->setEnabled(running);
    stop_->setEnabled(running);
    open_->setEnabled(!running);
    if (!running) {
        const QSignalBlocker block(pause_);
        pause_->setChecked(false);
    }
}

bool OptimizePanel::start(QString* why) {
    auto refuse = [why](const QString& m) {
        if (why)
            *why = m;
        return false;
    };
    if (runner_->isRunning())
        return refuse(tr("an optimisation is in progress"));
    if (!OptRunner::available())
        return refuse(tr("this build has no optimisation module (NLopt)"));
    if (busy_)
        if (const QString b = busy_(); !b.isEmpty())
            return refuse(b);
    const scene::Scene& s = doc_->scene();
    if (const QString p = sceneProblem(s); !p.isEmpty())
        return refuse(p);
#if YEE_UI_HAVE_OPT
    try {
        opt::checkOptimization(s);
    } catch (const std::exception& e) {
        return refuse(QString::fromStdString(e.what()));
    }
#endif
    OptRequest req;
    req.scene = s;
    req.options = options_ ? options_(s) : run::RunOptions::fromScene(s);
    req.historyPath = historyPath_ ? historyPath_() : newHistoryPath();
    shownPath_ = req.historyPath;
    designNames_.clear();
    designVoxels_.clear();
    for (std::size_t d = 0; d < s.designs.size(); ++d) {
        designNames_.push_back(QString::fromStdString(s.designs[d].name));
        designVoxels_.push_back(s.designVoxels(d));
    }
    {
        const QSignalBlocker block(design_);
        design_->clear();
        for (const QString& n : designNames_)
            design_->addItem(n);
    }
    evaluations_.clear();
    clearPlot(termNames(s));
    if (!runner_->start(std::move(req)))
        return refuse(tr("the optimisation could not start"));
    live_ = true;
    status_->setText(tr("Running: history %1").arg(shownPath_));
    emit message(tr("Optimisation started (%1, at most %2 evaluations); history %3")
                     .arg(QString::fromLatin1(scene::optimizers().nameOf(int(s.optimization.optimizer))))
                     .arg(s.optimization.iterations)
                     .arg(shownPath_),
                 false);
    syncButtons();
    return true;
}

void OptimizePanel::setPaused(bool paused) {
    if (!runner_->isRunning())
        return;
    runner_->setPaused(paused);
    {
        const QSignalBlocker block(pause_);
        pause_->setChecked(paused);
    }
    status_->setText(paused
                         ? tr("Paused after evaluation %1 (Pause again to resume).").arg(evaluations_.size())
                         : tr("Running: history %1").arg(shownPath_));
}

void OptimizePanel::stop() {
    if (!runner_->isRunning())
        return;
    runner_->stop();
    status_->setText(tr("Stopping after the evaluation in progress\u2026"));
}

void OptimizePanel::clearPlot(const std::vector<QString>& names) {
    chart_->removeAllSeries();
    terms_.clear();
    auto add = [this](const QString& name) {
        auto* series = new QLineSeries;
        series->setName(name);
        series->setPointsVisible(true);
        chart_->addSeries(series);
        series->attachAxis(axisX_);
        series->attachAxis(axisY_);
        return series;
    };
    merit_ = add(tr("figure of merit"));
    objective_ = add(tr("objective"));
    for (const QString& n : names)
        terms_.push_back(add(n));
    axisX_->setRange(0, 1);
    axisY_->setRange(0, 1);
    slider_->setRange(0, 0);
    slider_->setEnabled(false);
    density_->setDensity({}, {0, 0, 0}, QString());
    summary_->clear();
}

void OptimizePanel::append(const opt::Evaluation& e) {
    const int i = int(evaluations_.size());
    evaluations_.push_back(e);
    merit_->append(i, e.merit);
    objective_->append(i, e.objective);
    for (std::size_t t = 0; t < terms_.size() && t < e.terms.size(); ++t)
        terms_[t]->append(i, e.terms[t]);
    rescale();
    const bool follow = !slider_->isEnabled() || slider_->value() == slider_->maximum();
    slider_->setEnabled(true);
    slider_->setRange(0, i);
    if (follow) {
        slider_->setValue(i);
        showEvaluation(i);
    }
    if (live_ && !runner_->isPaused())
        status_->setText(tr("Running: evaluation %1, objective %2").arg(i).arg(e.objective, 0, 'g', 6));
}

void OptimizePanel::rescale() {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    auto scan = [&](QLineSeries* s) {
        for (const QPointF& p : s->points()) {
            lo = std::min(lo, p.y());
            hi = std::max(hi, p.y());
        }
    };
    scan(merit_);
    scan(objective_);
    for (QLineSeries* s : terms_)
        scan(s);
    if (!(lo <= hi))
        return;
    const double pad = hi > lo ? 0.05 * (hi - lo) : std::max(std::abs(hi) * 0.05, 1e-30);
    axisY_->setRange(lo - pad, hi + pad);
    axisX_->setRange(0, std::max<qsizetype>(1, qsizetype(evaluations_.size()) - 1));
}

void OptimizePanel::showEvaluation(int index) {
    if (index < 0 || index >= int(evaluations_.size()))
        return;
    const opt::Evaluation& e = evaluations_[std::size_t(index)];
    QStringList beta;
    for (double b : e.beta)
        beta << numberText(b);
    summary_->setText(tr("Evaluation %1 (stage %2): objective %3, merit %4, |grad| %5, binarisation %6, "
                         "beta %7, %8 s")
                          .arg(index)
                          .arg(e.stage)
                          .arg(e.objective, 0, 'g', 8)
                          .arg(e.merit, 0, 'g', 8)
                          .arg(e.gradNorm, 0, 'g', 4)
                          .arg(e.binarisation, 0, 'g', 4)
                          .arg(beta.isEmpty() ? QStringLiteral("-") : beta.join(QStringLiteral(", ")))
                          .arg(e.seconds, 0, 'f', 2));
    const int d = std::max(0, design_->currentIndex());
    if (std::size_t(d) < e.density.size() && std::size_t(d) < designVoxels_.size())
        density_->setDensity(e.density[std::size_t(d)], designVoxels_[std::size_t(d)],
                             tr("%1, evaluation %2").arg(designNames_[std::size_t(d)]).arg(index));
    if (slider_->value() != index) {
        const QSignalBlocker block(slider_);
        slider_->setValue(index);
    }
}

QString OptimizePanel::summaryText() const {
    return summary_->text();
}

bool OptimizePanel::openHistory(const QString& path, QString* error) {
    if (runner_->isRunning()) {
        if (error)
            *error = tr("%1: an optimisation is in progress").arg(path);
        return false;
    }
    std::vector<opt::Evaluation> ev;
    opt::HistoryHeader h;
#if YEE_UI_HAVE_OPT
    try {
        ev = opt::readHistory(path.toStdString(), &h);
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
#else
    if (error)
        *error = tr("%1: this build has no optimisation module (NLopt)").arg(path);
    return false;
#endif
    std::vector<QString> names;
    try {
        for (const QString& n : termNames(scene::parseScene(h.sceneJson, ".", false)))
            names.push_back(n);
    } catch (const std::exception&) {
        for (std::size_t t = 0; !ev.empty() && t < ev.front().terms.size(); ++t)
            names.push_back(tr("term %1").arg(t + 1));
    }
    shownPath_ = path;
    designNames_.clear();
    designVoxels_.clear();
    for (std::size_t d = 0; d < h.designNames.size(); ++d) {
        designNames_.push_back(QString::fromStdString(h.designNames[d]));
        const auto& sh = d < h.designShapes.size() ? h.designShapes[d] : std::array<std::int64_t, 3>{0, 0, 0};
        designVoxels_.push_back({int(sh[2]), int(sh[1]), int(sh[0])});
    }
    {
        const QSignalBlocker block(design_);
        design_->clear();
        for (const QString& n : designNames_)
            design_->addItem(n);
    }
    evaluations_.clear();
    clearPlot(names);
    for (const auto& e : ev)
        append(e);
    status_->setText(tr("History %1: %2 evaluations, %3 (%4)")
                         .arg(path)
                         .arg(ev.size())
                         .arg(QString::fromStdString(h.status))
                         .arg(h.completed ? tr("completed") : tr("not completed")));
    emit message(tr("Opened optimisation history %1 (%2 evaluations)").arg(path).arg(ev.size()), false);
    return true;
}

} // namespace yee::ui
