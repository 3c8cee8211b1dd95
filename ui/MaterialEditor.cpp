#include "ui/MaterialEditor.hpp"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QLocale>
#include <QPushButton>
#include <QScatterSeries>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QXYSeries>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "ui/OptimizationCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneProperties.hpp"
#include "ui/WheelGuard.hpp"
#include "yee/scene/MaterialLibrary.hpp"
#include "yee/scene/MaterialModel.hpp"
#include "yee/scene/Schema.hpp"

namespace yee::ui {

namespace {
/// A stack as tall as the page it shows, not as its tallest page (QStackedWidget's size hints are the
/// largest over all pages, its height for a width too: the poles table left a 170 px gap above a constant
/// material's plot, which then did not fit a 700 px window).
class CurrentPageStack : public QStackedWidget {
public:
    explicit CurrentPageStack(QWidget* parent) : QStackedWidget(parent) {
        connect(this, &QStackedWidget::currentChanged, this, [this] { updateGeometry(); });
    }
    QSize sizeHint() const override { return currentWidget() ? currentWidget()->sizeHint() : QSize(); }
    QSize minimumSizeHint() const override {
        return currentWidget() ? currentWidget()->minimumSizeHint() : QSize();
    }
    // QStackedLayout's height for a width is also the largest over all pages; the current page's size
    // hint is what counts here.
    bool hasHeightForWidth() const override { return false; }
};
} // namespace

namespace {

constexpr int kSamples = 241;

QString num(double v) {
    return QString::number(v, 'g', 10);
}

QLineEdit* numberEdit(QWidget* parent, const QString& name) {
    auto* e = new QLineEdit(parent);
    e->setObjectName(name);
    auto* v = new QDoubleValidator(e);
    v->setLocale(QLocale::c());
    e->setValidator(v);
    return e;
}

double value(const QLineEdit* e) {
    return QLocale::c().toDouble(e->text());
}

QString cellText(const QTableWidget* t, int r, int c) {
    const auto* item = t->item(r, c);
    return item ? item->text() : QString();
}

} // namespace

MaterialEditor::MaterialEditor(SceneDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    material_ = new QComboBox(this);
    material_->setObjectName(QStringLiteral("materialChoice"));
    form_ = new QComboBox(this);
    form_->setObjectName(QStringLiteral("materialForm"));
    form_->addItem(tr("constant \u03b5"), int(Form::Constant));
    form_->addItem(tr("n, k at a wavelength"), int(Form::Nk));
    form_->addItem(tr("library material"), int(Form::Library));
    form_->addItem(tr("\u03b5\u221e + poles (Drude, Lorentz, Debye)"), int(Form::Poles));

    pages_ = new CurrentPageStack(this);
    {
        auto* w = new QWidget(pages_);
        auto* f = new QFormLayout(w);
        eps_ = numberEdit(w, QStringLiteral("materialEps"));
        mu_ = numberEdit(w, QStringLiteral("materialMu"));
        sigma_ = numberEdit(w, QStringLiteral("materialSigma"));
        f->addRow(tr("Permittivity \u03b5"), eps_);
        f->addRow(tr("Permeability \u03bc"), mu_);
        f->addRow(tr("Conductivity (S/m)"), sigma_);
        pages_->addWidget(w);
    }
    {
        auto* w = new QWidget(pages_);
        auto* f = new QFormLayout(w);
        n_ = numberEdit(w, QStringLiteral("materialN"));
        k_ = numberEdit(w, QStringLiteral("materialK"));
        nkLambda_ = numberEdit(w, QStringLiteral("materialNkWavelength"));
        f->addRow(tr("Refractive index n"), n_);
        f->addRow(tr("Extinction k"), k_);
        f->addRow(tr("at wavelength (\u00b5m)"), nkLambda_);
        pages_->addWidget(w);
    }
    {
        auto* w = new QWidget(pages_);
        auto* f = new QFormLayout(w);
        library_ = new QComboBox(w);
        library_->setObjectName(QStringLiteral("materialLibrary"));
        for (const auto& m : scene::materialLibrary())
            library_->addItem(QStringLiteral("%1 \u2014 %2")
                                  .arg(QString::fromLatin1(m.name), QString::fromLatin1(m.description)),
                              QString::fromLatin1(m.name));
        f->addRow(tr("Material"), library_);
        pages_->addWidget(w);
    }
    {
        auto* w = new QWidget(pages_);
        auto* l = new QVBoxLayout(w);
        auto* f = new QFormLayout;
        epsInf_ = numberEdit(w, QStringLiteral("materialEpsInf"));
        f->addRow(tr("\u03b5\u221e"), epsInf_);
        l->addLayout(f);
        poles_ = new QTableWidget(0, 5, w);
        poles_->setObjectName(QStringLiteral("materialPoles"));
        poles_->setHorizontalHeaderLabels({tr("Type"), tr("\u0394\u03b5"), tr("\u0127\u03c9 (eV)"),
                                           tr("\u0127\u03b3 (eV)"), tr("\u03c4 (fs)")});
        poles_->horizontalHeaderItem(2)->setToolTip(tr("Drude: plasma energy; Lorentz: resonance energy"));
        poles_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
        poles_->setMinimumHeight(90);
        l->addWidget(poles_);
        auto* b = new QHBoxLayout;
        auto* add = new QPushButton(tr("Add pole"), w);
        auto* remove = new QPushButton(tr("Remove pole"), w);
        b->addWidget(add);
        b->addWidget(remove);
        b->addStretch(1);
        l->addLayout(b);
        connect(add, &QPushButton::clicked, this, [this] {
            scene::Pole p;
            p.type = scene::PoleType::Lorentz;
            p.deltaEps = 1;
            p.omegaEv = 3;
            p.gammaEv = 0.1;
            addPoleRow(p);
        });
        connect(remove, &QPushButton::clicked, this, [this] { poles_->removeRow(poles_->currentRow()); });
        pages_->addWidget(w);
    }
    auto* applyButton = new QPushButton(tr("Apply"), this);
    applyButton->setObjectName(QStringLiteral("materialApply"));
    info_ = new QLabel(this);
    info_->setObjectName(QStringLiteral("materialInfo"));
    info_->setWordWrap(true);
    message_ = new QLabel(this);
    message_->setWordWrap(true);
    message_->setStyleSheet(QStringLiteral("color: #b00020"));

    chart_ = new QChart;
    chart_->setMargins(QMargins(2, 2, 2, 2));
    chart_->legend()->setAlignment(Qt::AlignBottom);
    axisX_ = new QValueAxis;
    axisX_->setTitleText(tr("Wavelength (\u00b5m)"));
    axisY_ = new QValueAxis;
    // Short: the plot is 180 px tall in a small window, and a longer title was cut ("Relativ\u2026").
    axisY_->setTitleText(tr("\u03b5"));

    chart_->addAxis(axisX_, Qt::AlignBottom);
    chart_->addAxis(axisY_, Qt::AlignLeft);
    auto series = [this](const QString& name, Qt::PenStyle style) {
        auto* s = new QLineSeries;
        s->setName(name);
        QPen pen = s->pen();
        pen.setStyle(style);
        pen.setWidth(2);
        s->setPen(pen);
        chart_->addSeries(s);
        s->attachAxis(axisX_);
        s->attachAxis(axisY_);
        return s;
    };
    re_ = series(tr("Re \u03b5"), Qt::SolidLine);
    im_ = series(tr("Im \u03b5 (loss)"), Qt::SolidLine);
    validLo_ = series(tr("valid range"), Qt::DashLine);
    validHi_ = series(QString(), Qt::DashLine);
    validHi_->setPen(validLo_->pen());
    auto scatter = [this](const QString& name, const QColor& colour) {
        auto* s = new QScatterSeries;
        s->setName(name);
        s->setMarkerSize(7);
        s->setColor(colour);
        s->setBorderColor(colour.darker(140));
        chart_->addSeries(s);
        s->attachAxis(axisX_);
        s->attachAxis(axisY_);
        return s;
    };
    dataRe_ = scatter(tr("data Re \u03b5"), re_->color());
    dataIm_ = scatter(tr("data Im \u03b5"), im_->color());
    auto* view = new QChartView(chart_, this);
    view->setObjectName(QStringLiteral("materialPlot"));
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(180);
    view->setToolTip(
        tr("Relative permittivity \u03b5 of the material against wavelength over the sources' band"));

    auto* top = new QFormLayout;
    top->addRow(tr("Material"), material_);
    top->addRow(tr("Given as"), form_);
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(top);
    lay->addWidget(pages_);
    lay->addWidget(applyButton, 0, Qt::AlignLeft);
    lay->addWidget(message_);
    lay->addWidget(view, 1);
    auto* dataRow = new QHBoxLayout;
    auto* loadData = new QPushButton(tr("Data (CSV)\u2026"), this);
    loadData->setObjectName(QStringLiteral("materialLoadData"));
    loadData->setToolTip(tr("Tabulated wavelength_um, n[, k] rows (as yee-fit reads), drawn over the plot"));
    fitPoles_ = new QSpinBox(this);
    fitPoles_->setObjectName(QStringLiteral("materialFitPoles"));
    fitPoles_->setRange(1, 6);
    fitPoles_->setValue(2);
    fitPoles_->setSuffix(tr(" Lorentz"));
    auto* fit = new QPushButton(tr("Fit poles"), this);
    fit->setObjectName(QStringLiteral("materialFit"));
    fit->setToolTip(
        tr("Least-squares fit of \u03b5\u221e plus Lorentz poles to the loaded data (as yee-fit)"));
    dataRow->addWidget(loadData);
    dataRow->addWidget(fitPoles_);
    dataRow->addWidget(fit);
    dataRow->addStretch(1);
    lay->addLayout(dataRow);
    lay->addWidget(info_);
    pages_->updateGeometry(); // its hint changed as pages were added: drop the layout's cached one
    connect(loadData, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("n, k data"), QString(),
                                                          tr("CSV (*.csv *.txt);;All files (*)"));
        if (path.isEmpty())
            return;
        const QString why = loadFitData(path);
        message_->setText(why);
        if (!why.isEmpty())
            emit problem(why);
    });
    connect(fit, &QPushButton::clicked, this, [this] {
        double err = 0;
        const QString why = fitLoadedData(fitPoles_->value(), &err);
        message_->setText(why.isEmpty() ? QString() : why);
        if (!why.isEmpty())
            emit problem(why);
    });

    // Long entries ("Si - crystalline silicon (Sellmeier, infrared)") must not widen the dock.
    for (QComboBox* c : {material_, form_, library_}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(12);
    }
    connect(form_, &QComboBox::currentIndexChanged, pages_, &QStackedWidget::setCurrentIndex);
    connect(material_, &QComboBox::currentIndexChanged, this, [this] {
        if (!syncing_)
            sync();
    });
    connect(applyButton, &QPushButton::clicked, this, &MaterialEditor::applyPage);
    connect(library_, &QComboBox::activated, this, &MaterialEditor::applyPage);
    connect(doc_, &SceneDocument::sceneChanged, this, &MaterialEditor::sync);
    connect(doc_, &SceneDocument::sceneReset, this, &MaterialEditor::sync);
    connect(doc_, &SceneDocument::currentItemChanged, this, [this](const ItemRef& ref) {
        if (ref.kind == ItemKind::Material)
            setMaterialIndex(ref.index);
    });
    WheelGuard::install(this);
    sync();
}

int MaterialEditor::materialIndex() const {
    const int i = material_->currentIndex();
    return i >= 0 && i < int(doc_->scene().materials.size()) ? i : -1;
}

void MaterialEditor::setMaterialIndex(int index) {
    if (index >= 0 && index < material_->count())
        material_->setCurrentIndex(index);
}

MaterialEditor::Form MaterialEditor::formOf(const scene::Material& m) {
    if (!m.library.empty())
        return Form::Library;
    if (m.n > 0)
        return Form::Nk;
    if (!m.poles.empty())
        return Form::Poles;
    return Form::Constant;
}

MaterialEditor::Form MaterialEditor::form() const {
    const int i = materialIndex();
    return i < 0 ? Form::Constant : formOf(doc_->scene().materials[std::size_t(i)]);
}

QString MaterialEditor::apply(scene::Material m, const QString& what) {
    const int i = materialIndex();
    if (i < 0)
        return tr("materials: no material to edit");
    const scene::Scene& s = doc_->scene();
    scene::Scene trial = s;
    m.name = s.materials[std::size_t(i)].name;
    trial.materials[std::size_t(i)] = m;
    const bool wasValid = sceneProblem(s).isEmpty();
    if (const QString p = sceneProblem(trial); wasValid && !p.isEmpty()) {
        message_->setText(p);
        emit problem(p);
        return p;
    }
    message_->clear();
    doc_->undoStack()->push(
        new SetMaterialCommand(doc_, i, m, tr("%1 \u203a %2").arg(QString::fromStdString(m.name), what)));
    return {};
}

QString MaterialEditor::setConstant(double eps, double mu, double sigma) {
    scene::Material m;
    m.eps = eps;
    m.mu = mu;
    m.sigma = sigma;
    return apply(m, tr("constant \u03b5"));
}

QString MaterialEditor::setNk(double n, double k, double lambdaUm) {
    scene::Material m;
    m.n = n;
    m.k = k;
    m.nkWavelengthUm = lambdaUm;
    if (materialIndex() >= 0)
        m.mu = doc_->scene().materials[std::size_t(materialIndex())].mu;
    return apply(m, tr("n, k"));
}

QString MaterialEditor::setLibrary(const QString& name) {
    if (!scene::findLibraryMaterial(name.toStdString())) {
        const QString e =
            tr("materials.%1.library: unknown library material \"%2\"")
                .arg(materialIndex() >= 0
                         ? QString::fromStdString(doc_->scene().materials[std::size_t(materialIndex())].name)
                         : QString(),
                     name);
        message_->setText(e);
        return e;
    }
    scene::Material m;
    m.library = name.toStdString();
    return apply(m, tr("library %1").arg(name));
}

QString MaterialEditor::setPoles(double epsInf, const std::vector<scene::Pole>& poles) {
    scene::Material m;
    m.eps = epsInf;
    m.poles = poles;
    if (materialIndex() >= 0) {
        m.mu = doc_->scene().materials[std::size_t(materialIndex())].mu;
        m.sigma = doc_->scene().materials[std::size_t(materialIndex())].sigma;
    }
    return apply(m, tr("poles"));
}

void MaterialEditor::applyPage() {
    if (syncing_)
        return;
    switch (Form(form_->currentData().toInt())) {
    case Form::Constant:
        setConstant(value(eps_), value(mu_), value(sigma_));
        break;
    case Form::Nk:
        setNk(value(n_), value(k_), value(nkLambda_));
        break;
    case Form::Library:
        setLibrary(library_->currentData().toString());
        break;
    case Form::Poles: {
        std::vector<scene::Pole> poles;
        for (int r = 0; r < poles_->rowCount(); ++r) {
            scene::Pole p;
            auto* type = qobject_cast<QComboBox*>(poles_->cellWidget(r, 0));
            const auto t = scene::enumValue<scene::PoleType>(
                type ? type->currentData().toString().toStdString() : std::string("lorentz"));
            p.type = t.value_or(scene::PoleType::Lorentz);
            p.deltaEps = QLocale::c().toDouble(cellText(poles_, r, 1));
            p.omegaEv = QLocale::c().toDouble(cellText(poles_, r, 2));
            p.gammaEv = QLocale::c().toDouble(cellText(poles_, r, 3));
            p.tauFs = QLocale::c().toDouble(cellText(poles_, r, 4));
            poles.push_back(p);
        }
        setPoles(value(epsInf_), poles);
        break;
    }
    }
}

void MaterialEditor::addPoleRow(const scene::Pole& p) {
    const int r = poles_->rowCount();
    poles_->insertRow(r);
    auto* type = new QComboBox;
    for (const auto& e : scene::poleTypes().entries)
        type->addItem(QString::fromLatin1(e.label), QString::fromLatin1(e.name));
    type->setCurrentIndex(type->findData(QString::fromLatin1(scene::enumName(p.type))));
    poles_->setCellWidget(r, 0, type);
    const double v[] = {p.deltaEps, p.omegaEv, p.gammaEv, p.tauFs};
    for (int c = 1; c < 5; ++c)
        poles_->setItem(r, c, new QTableWidgetItem(num(v[c - 1])));
}

void MaterialEditor::sync() {
    syncing_ = true;
    const scene::Scene& s = doc_->scene();
    const int keep = material_->currentIndex();
    material_->clear();
    for (const auto& m : s.materials)
        material_->addItem(QString::fromStdString(m.name));
    material_->setCurrentIndex(std::clamp(keep, 0, int(s.materials.size()) - 1));
    const int i = materialIndex();
    if (i >= 0) {
        const scene::Material& m = s.materials[std::size_t(i)];
        const Form f = formOf(m);
        form_->setCurrentIndex(form_->findData(int(f)));
        pages_->setCurrentIndex(int(f));
        eps_->setText(num(m.eps));
        mu_->setText(num(m.mu));
        sigma_->setText(num(m.sigma));
        n_->setText(num(m.n));
        k_->setText(num(m.k));
        nkLambda_->setText(num(m.nkWavelengthUm));
        epsInf_->setText(num(m.eps));
        if (const int li = library_->findData(QString::fromStdString(m.library)); li >= 0)
            library_->setCurrentIndex(li);
        poles_->setRowCount(0);
        for (const auto& p : m.poles)
            addPoleRow(p);
    }
    // The band: every source's centre +- its bandwidth.
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const auto& src : s.sources) {
        const double w = src.profile.type == scene::ProfileType::GaussianPulse ? src.profile.bandwidth : 0.1;
        lo = std::min(lo, src.profile.wavelength - w);
        hi = std::max(hi, src.profile.wavelength + w);
    }
    band_ = hi > 0 ? std::pair<double, double>{std::max(lo, 0.05), hi} : std::pair<double, double>{0.4, 2.0};
    if (band_.second - band_.first < 1e-3)
        band_ = {band_.first * 0.9, band_.second * 1.1};
    syncing_ = false;
    replot();
}

void MaterialEditor::replot() {
    re_->clear();
    im_->clear();
    validLo_->clear();
    validHi_->clear();
    dataRe_->clear();
    dataIm_->clear();
    info_->clear();
    const int i = materialIndex();
    if (i < 0)
        return;
    const scene::Material& m = doc_->scene().materials[std::size_t(i)];
    scene::MaterialModel model;
    try {
        model = scene::materialModel(m);
    } catch (const std::exception& e) {
        info_->setText(QString::fromStdString(e.what()));
        return;
    }
    double ylo = std::numeric_limits<double>::infinity(), yhi = -ylo;
    QList<QPointF> re, im;
    for (int k = 0; k < kSamples; ++k) {
        const double um = band_.first + (band_.second - band_.first) * k / (kSamples - 1);
        const std::complex<double> eps = scene::permittivity(model, scene::omegaOfWavelength(um));
        re << QPointF(um, eps.real());
        im << QPointF(um, eps.imag());
        ylo = std::min({ylo, eps.real(), eps.imag()});
        yhi = std::max({yhi, eps.real(), eps.imag()});
    }
    re_->replace(re);
    im_->replace(im);
    // Loaded data inside the band, eps = (n + i k)^2.
    QList<QPointF> dre, dim;
    int outside = 0;
    const std::vector<scene::NkSample> data = fitData();
    for (const scene::NkSample& d : data) {
        if (d.wavelengthUm < band_.first || d.wavelengthUm > band_.second) {
            ++outside;
            continue;
        }
        const std::complex<double> e = std::complex<double>(d.n, d.k) * std::complex<double>(d.n, d.k);
        dre << QPointF(d.wavelengthUm, e.real());
        dim << QPointF(d.wavelengthUm, e.imag());
        ylo = std::min({ylo, e.real(), e.imag()});
        yhi = std::max({yhi, e.real(), e.imag()});
    }
    dataRe_->replace(dre);
    dataIm_->replace(dim);
    if (!(ylo < yhi))
        yhi = ylo + 1;
    const double pad = 0.05 * (yhi - ylo);
    axisX_->setRange(band_.first, band_.second);
    axisY_->setRange(ylo - pad, yhi + pad);
    if (model.validHiUm > 0) {
        for (auto [series, at] : {std::pair{validLo_, model.validLoUm}, std::pair{validHi_, model.validHiUm}})
            if (at >= band_.first && at <= band_.second)
                series->replace({QPointF(at, ylo - pad), QPointF(at, yhi + pad)});
        QString text;
        if (const auto* lib = scene::findLibraryMaterial(m.library))
            text = tr("%1 (%2). Valid %3\u2013%4 \u00b5m. %5")
                       .arg(QString::fromLatin1(lib->name), QString::fromLatin1(lib->description))
                       .arg(num(model.validLoUm), num(model.validHiUm))
                       .arg(QString::fromLatin1(lib->reference));
        if (band_.first < model.validLoUm || band_.second > model.validHiUm)
            text += tr(" Warning: the sources' band %1\u2013%2 \u00b5m leaves the valid range.")
                        .arg(num(band_.first), num(band_.second));
        info_->setText(text);
    }
    // The legend lists what is drawn: no entry for an empty series (data not loaded, no valid range),
    // none ever for the second valid-range line.
    for (QAbstractSeries* series : chart_->series()) {
        auto* xy = qobject_cast<QXYSeries*>(series);
        const bool shown = xy && series != validHi_ && !xy->points().isEmpty();
        for (QLegendMarker* marker : chart_->legend()->markers(series))
            marker->setVisible(shown);
    }
    if (!data.empty())
        info_->setText(
            info_->text() + (info_->text().isEmpty() ? QString() : QStringLiteral(" ")) +
            tr("Data: %1 of %2 points inside the plotted band.").arg(data.size() - outside).arg(data.size()));
}

QString MaterialEditor::loadFitData(const QString& path) {
    const int i = materialIndex();
    if (i < 0)
        return tr("Select a material first.");
    try {
        data_[doc_->scene().materials[std::size_t(i)].name] = scene::loadNkCsv(path.toStdString());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    replot();
    return {};
}

std::vector<scene::NkSample> MaterialEditor::fitData() const {
    const int i = materialIndex();
    if (i < 0)
        return {};
    const auto it = data_.find(doc_->scene().materials[std::size_t(i)].name);
    return it == data_.end() ? std::vector<scene::NkSample>{} : it->second;
}

QString MaterialEditor::fitLoadedData(int lorentz, double* maxError) {
    const std::vector<scene::NkSample> data = fitData();
    if (data.empty())
        return tr("Load n, k data (CSV) first.");
    scene::PoleFitOptions o;
    o.lorentz = lorentz;
    int inside = 0;
    for (const scene::NkSample& d : data)
        inside += d.wavelengthUm >= band_.first && d.wavelengthUm <= band_.second;
    if (inside >= 2 * (1 + 3 * lorentz)) {
        o.bandLoUm = band_.first;
        o.bandHiUm = band_.second;
    }
    scene::PoleFitResult r;
    try {
        r = scene::fitPoles(data, o);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    if (maxError)
        *maxError = r.maxRelError;
    const QString why = setPoles(r.material.eps, r.material.poles);
    if (why.isEmpty())
        info_->setText(info_->text() + tr(" Fit: %1 samples, max |\u0394\u03b5| / |\u03b5| = %2.")
                                           .arg(r.samples)
                                           .arg(r.maxRelError, 0, 'g', 3));
    return why;
}

QString MaterialEditor::infoText() const {
    return info_->text();
}

} // namespace yee::ui
