#include "ui/DetectorPlot.hpp"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineSeries>
#include <QMenu>
#include <QMouseEvent>
#include <QPushButton>
#include <QShowEvent>
#include <QTextStream>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>

#include "ui/PlotExport.hpp"
#include "yee/io/ResultsWriter.hpp"

namespace yee::ui {

namespace {
const char* const kTime = "time_fs";
const char* const kWavelength = "wavelengths_um";
const char* const kFilePrefix = "file: ";

const char* const kSParameters = "s_parameters";

/// The spectrum a detector normalises others by: a flux's power, a mode monitor's forward power of its
/// first mode; empty when it has none.
std::vector<double> spectrumOf(const solver::DetectorResult& d) {
    if (const auto* p = d.find("power"); p && p->shape.size() == 1)
        return p->data;
    if (const auto* p = d.find("power_plus"); p && p->shape.size() == 2 && p->shape[1] > 0) {
        std::vector<double> out;
        for (std::int64_t w = 0; w < p->shape[0]; ++w)
            out.push_back(p->data[std::size_t(w * p->shape[1])]);
        return out;
    }
    return {};
}

/// Arrays a normalised spectrum divides: powers.
bool isPower(const std::string& name) {
    return name == "power" || name == "power_plus" || name == "power_minus";
}

/// Linear interpolation of (x, y) at `at`; NaN outside the sampled range.
double interpolate(const std::vector<double>& x, const std::vector<double>& y, double at) {
    if (x.empty() || x.size() != y.size())
        return std::nan("");
    std::vector<std::size_t> idx(x.size());
    for (std::size_t i = 0; i < idx.size(); ++i)
        idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
    for (std::size_t k = 0; k < idx.size(); ++k) {
        const double xk = x[idx[k]];
        if (std::abs(xk - at) <= 1e-12 * std::max(1.0, std::abs(at)))
            return y[idx[k]];
        if (k + 1 < idx.size() && xk < at && at < x[idx[k + 1]]) {
            const double t = (at - xk) / (x[idx[k + 1]] - xk);
            return y[idx[k]] + t * (y[idx[k + 1]] - y[idx[k]]);
        }
    }
    return std::nan("");
}

/// True for arrays over wavelength (spectra, phasors, the wavelength axis), false for arrays over time.
bool spectral(const std::string& name) {
    auto ends = [&](const char* suffix) {
        const std::size_t n = std::strlen(suffix);
        return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
    };
    return name == kWavelength || isPower(name) || name == "neff" || ends("_re") || ends("_im") ||
           name.rfind("|S", 0) == 0;
}

/// "Nice" tick step for a range (1, 2 or 5 times a power of ten), about `n` ticks.
double niceStep(double range, int n) {
    if (!(range > 0))
        return 1;
    const double raw = range / std::max(1, n);
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * p)
            return m * p;
    return 10 * p;
}
} // namespace

QString arrayAxisTitle(const std::string& type, const std::string& array) {
    if (array == kTime)
        return DetectorPlot::tr("time (fs)");
    if (array == kWavelength)
        return DetectorPlot::tr("wavelength (\u00b5m)");
    if (array == "flux")
        return DetectorPlot::tr("flux (power, source units)");
    if (array == "power")
        return DetectorPlot::tr("spectral power |P(\u03bb)| (source units)");
    if (array == "energy")
        return DetectorPlot::tr("energy (source units)");
    if (array == "power_plus")
        return DetectorPlot::tr("mode power P\u207a (source units)");
    if (array == "power_minus")
        return DetectorPlot::tr("mode power P\u207b (source units)");
    if (array == "neff")
        return DetectorPlot::tr("effective index n_eff (1)");
    if (type == kSParameters)
        return DetectorPlot::tr("|S_ij|\u00b2 (power ratio, 1)");
    if (!array.empty() && (array[0] == 'E' || array[0] == 'H'))
        return DetectorPlot::tr("%1 (field units)").arg(QString::fromStdString(array));
    return QString::fromStdString(array);
}

DetectorPlot::DetectorPlot(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Detector"), this));
    detector_ = new QComboBox(this);
    detector_->setObjectName(QStringLiteral("plotDetector"));
    top->addWidget(detector_, 1);
    top->addWidget(new QLabel(tr("Show"), this));
    view_ = new QComboBox(this);
    view_->setObjectName(QStringLiteral("plotView"));
    view_->addItem(tr("time series"), QString::fromLatin1(kTime));
    view_->addItem(tr("spectrum"), QString::fromLatin1(kWavelength));
    top->addWidget(view_);
    // Two rows of controls: the plot keeps a narrow minimum width (a 1024 px wide window).
    layout->addLayout(top);
    top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Normalise by"), this));
    reference_ = new QComboBox(this);
    reference_->setObjectName(QStringLiteral("plotReference"));
    reference_->setToolTip(
        tr("Spectra: T(\u03bb) = P(\u03bb) / P_ref(\u03bb) against a reference detector (of these "
           "results or of a reference results file)"));
    top->addWidget(reference_, 1);
    for (QComboBox* c : {detector_, reference_}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(8);
    }
    auto* refFile = new QPushButton(tr("Reference file\u2026"), this);
    refFile->setToolTip(
        tr("Normalise by a detector of another results file (e.g. a run without the device)"));
    connect(refFile, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Reference results"), QString(), tr("Yee results (*.h5)"));
        QString error;
        if (!path.isEmpty() && !loadReferenceFile(path, &error))
            note_->setText(error);
    });
    top->addWidget(refFile);
    export_ = new QPushButton(tr("Export\u2026"), this);
    export_->setObjectName(QStringLiteral("plotExport"));
    export_->setToolTip(tr("The plotted data as CSV, the plot as PNG or SVG"));
    top->addWidget(export_);
    layout->addLayout(top);
    chart_ = new QChart;
    chart_->legend()->setAlignment(Qt::AlignBottom);
    chartView_ = new QChartView(chart_, this);
    chartView_->setRenderHint(QPainter::Antialiasing);
    // Drag a rectangle to zoom, right click to zoom out.
    chartView_->setRubberBand(QChartView::RectangleRubberBand);
    chartView_->setToolTip(
        tr("Drag to zoom in, right click to zoom out; arrow keys or a middle-button drag pan"));
    chartView_->viewport()->installEventFilter(this);
    chartView_->installEventFilter(this);
    layout->addWidget(chartView_, 1);
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    layout->addWidget(note_);
    connect(detector_, &QComboBox::currentIndexChanged, this, &DetectorPlot::replot);
    connect(view_, &QComboBox::currentIndexChanged, this, &DetectorPlot::replot);
    connect(reference_, &QComboBox::currentIndexChanged, this, &DetectorPlot::replot);
    connect(export_, &QPushButton::clicked, this, &DetectorPlot::exportDialog);
    fillReferences();
    replot();
}

void DetectorPlot::setDetectors(const std::vector<solver::DetectorResult>& detectors,
                                const std::optional<run::SParameters>& sp) {
    detectors_.clear();
    for (const auto& d : detectors)
        if (d.type != "snapshot")
            detectors_.push_back(d);
    if (sp && !sp->ports.empty() && sp->s.size() == sp->wavelengthsUm.size() * sp->ports.size()) {
        // The S-matrix column as a detector: |S_ij|^2 per port i against wavelength.
        solver::DetectorResult d;
        d.name = tr("S-parameters").toStdString();
        d.type = kSParameters;
        const std::int64_t nl = std::int64_t(sp->wavelengthsUm.size());
        d.arrays.push_back(solver::NamedArray{kWavelength, {nl}, sp->wavelengthsUm});
        const std::size_t j = std::size_t(sp->excited);
        for (std::size_t i = 0; i < sp->ports.size(); ++i) {
            solver::NamedArray a;
            a.name = "|S" + std::to_string(i + 1) + std::to_string(j + 1) + "|^2 (" + sp->ports[i] + " <- " +
                     sp->ports[j] + ")";
            a.shape = {nl};
            for (std::size_t w = 0; w < std::size_t(nl); ++w)
                a.data.push_back(std::norm(sp->at(w, i)));
            d.arrays.push_back(std::move(a));
        }
        detectors_.push_back(std::move(d));
    }
    const QSignalBlocker b(detector_);
    const QString keep = detector_->currentText();
    detector_->clear();
    for (const auto& d : detectors_)
        detector_->addItem(
            QStringLiteral("%1 (%2)").arg(QString::fromStdString(d.name), QString::fromStdString(d.type)));
    const int i = detector_->findText(keep);
    detector_->setCurrentIndex(i >= 0 ? i : 0);
    fillReferences();
    replot();
}

void DetectorPlot::setReferenceDetectors(const std::vector<solver::DetectorResult>& detectors,
                                         const QString& label) {
    referenceFile_ = detectors;
    referenceLabel_ = label;
    fillReferences();
    replot();
}

bool DetectorPlot::loadReferenceFile(const QString& path, QString* error) {
    try {
        const io::ResultsFile f = io::readResults(path.toStdString());
        setReferenceDetectors(f.detectors, QFileInfo(path).fileName());
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
}

void DetectorPlot::fillReferences() {
    const QSignalBlocker b(reference_);
    const QString keep = reference_->currentData().toString();
    reference_->clear();
    reference_->addItem(tr("none"), QString());
    for (const auto& d : detectors_)
        if (!spectrumOf(d).empty())
            reference_->addItem(QString::fromStdString(d.name), QString::fromStdString(d.name));
    for (const auto& d : referenceFile_)
        if (!spectrumOf(d).empty())
            reference_->addItem(
                QStringLiteral("%1 (%2)").arg(QString::fromStdString(d.name), referenceLabel_),
                QLatin1String(kFilePrefix) + QString::fromStdString(d.name));
    const int i = reference_->findData(keep);
    reference_->setCurrentIndex(i >= 0 ? i : 0);
}

int DetectorPlot::seriesCount() const {
    ensurePlotted();
    return int(chart_->series().size());
}

QString DetectorPlot::xTitle() const {
    ensurePlotted();
    const auto axes = chart_->axes(Qt::Horizontal);
    return axes.isEmpty() ? QString() : axes.first()->titleText();
}

QString DetectorPlot::yTitle() const {
    ensurePlotted();
    const auto axes = chart_->axes(Qt::Vertical);
    return axes.isEmpty() ? QString() : axes.first()->titleText();
}

QString DetectorPlot::seriesName(int i) const {
    ensurePlotted();
    const auto series = chart_->series();
    return i >= 0 && i < series.size() ? series[i]->name() : QString();
}

QList<QPointF> DetectorPlot::seriesPoints(int i) const {
    ensurePlotted();
    const auto series = chart_->series();
    if (i < 0 || i >= series.size())
        return {};
    auto* s = qobject_cast<QLineSeries*>(series[i]);
    return s ? s->points() : QList<QPointF>();
}

void DetectorPlot::replot() {
    dirty_ = true;
    if (isVisible())
        plotNow();
}

void DetectorPlot::ensurePlotted() const {
    if (dirty_)
        const_cast<DetectorPlot*>(this)->plotNow();
}

void DetectorPlot::showEvent(QShowEvent* e) {
    ensurePlotted();
    QWidget::showEvent(e);
}

void DetectorPlot::plotNow() {
    dirty_ = false;
    chart_->removeAllSeries();
    for (QAbstractAxis* a : chart_->axes()) {
        chart_->removeAxis(a);
        delete a;
    }
    const int di = detector_->currentIndex();
    if (di < 0 || di >= int(detectors_.size())) {
        chart_->setTitle(tr("No detector results."));
        note_->clear();
        return;
    }
    const auto& det = detectors_[std::size_t(di)];
    std::string xName = view_->currentData().toString().toStdString();
    const solver::NamedArray* x = det.find(xName);
    if (!x || x->data.empty()) {
        // A detector with only one kind of axis (a mode monitor, the S-parameters) opens on that one.
        const int other = 1 - view_->currentIndex();
        const std::string otherName = view_->itemData(other).toString().toStdString();
        if (const solver::NamedArray* o = det.find(otherName); o && !o->data.empty()) {
            const QSignalBlocker b(view_);
            view_->setCurrentIndex(other);
            xName = otherName;
            x = o;
        }
    }
    chart_->setTitle(QString::fromStdString(det.name));
    if (!x || x->data.empty()) {
        note_->setText(view_->currentIndex() == 0
                           ? tr("This detector records no time series.")
                           : tr("This detector records no spectrum (no wavelengths)."));
        return;
    }
    // The reference spectrum, when normalising a spectrum.
    const solver::DetectorResult* ref = nullptr;
    const QString refKey = reference_->currentData().toString();
    const bool spectrum = xName == kWavelength;
    if (spectrum && !refKey.isEmpty()) {
        const bool file = refKey.startsWith(QLatin1String(kFilePrefix));
        const std::string name = (file ? refKey.mid(int(std::strlen(kFilePrefix))) : refKey).toStdString();
        for (const auto& d : file ? referenceFile_ : detectors_)
            if (d.name == name)
                ref = &d;
    }
    auto* ax = new QValueAxis;
    ax->setTitleText(arrayAxisTitle(det.type, xName));
    ax->setLabelFormat(QStringLiteral("%.4g"));
    auto* ay = new QValueAxis;
    ay->setLabelFormat(QStringLiteral("%.3g"));
    chart_->addAxis(ax, Qt::AlignBottom);
    chart_->addAxis(ay, Qt::AlignLeft);
    double ymin = 0, ymax = 0;
    bool first = true;
    int plotted = 0;
    QString yTitle;
    // Normalising: the reference spectrum at these wavelengths.
    std::vector<double> refAt;
    if (ref) {
        const solver::NamedArray* rx = ref->find(kWavelength);
        const std::vector<double> ry = spectrumOf(*ref);
        if (rx && ry.size() == rx->data.size())
            for (double w : x->data)
                refAt.push_back(interpolate(rx->data, ry, w));
    }
    const std::size_t nx = x->data.size();
    for (const auto& a : det.arrays) {
        // 1-D arrays over x, or [x, modes] arrays (a mode monitor's): one series per column.
        std::size_t columns = 0;
        if (a.shape.size() == 1 && a.data.size() == nx)
            columns = 1;
        else if (a.shape.size() == 2 && a.shape[0] == std::int64_t(nx) && a.shape[1] > 0)
            columns = std::size_t(a.shape[1]);
        if (a.name == xName || columns == 0 || spectral(a.name) != spectrum)
            continue;
        // Mode monitors: the mode powers (n_eff and the amplitudes are in the mode panel and the file).
        if (det.type == "mode_monitor" && !isPower(a.name))
            continue;
        if (ref && (!isPower(a.name) || refAt.size() != nx))
            continue;
        for (std::size_t c = 0; c < columns; ++c) {
            std::vector<double> y(nx);
            for (std::size_t i = 0; i < nx; ++i)
                y[i] = a.data[i * columns + c];
            QString name = QString::fromStdString(a.name);
            if (a.shape.size() == 2)
                name = tr("%1 (mode %2)").arg(name).arg(c);
            if (ref) {
                for (std::size_t i = 0; i < nx; ++i)
                    y[i] = y[i] / refAt[i];
                name = tr("T = %1 %2 / %3")
                           .arg(QString::fromStdString(det.name), name, reference_->currentText());
                yTitle = tr("transmission T(\u03bb) (1)");
            } else if (yTitle.isEmpty()) {
                yTitle = arrayAxisTitle(det.type, a.name);
            } else if (yTitle != arrayAxisTitle(det.type, a.name)) {
                yTitle = det.type == "mode_monitor" ? tr("mode power P\u00b1 (source units)")
                                                    : tr("value (see legend)");
            }
            auto* s = new QLineSeries;
            s->setName(name);
            QList<QPointF> pts;
            pts.reserve(qsizetype(y.size()));
            for (std::size_t i = 0; i < y.size(); ++i) {
                if (!std::isfinite(y[i]))
                    continue;
                pts.append({x->data[i], y[i]});
                ymin = first ? y[i] : std::min(ymin, y[i]);
                ymax = first ? y[i] : std::max(ymax, y[i]);
                first = false;
            }
            s->replace(pts);
            if (pts.size() <= 16)
                s->setPointsVisible(true);
            chart_->addSeries(s);
            s->attachAxis(ax);
            s->attachAxis(ay);
            ++plotted;
        }
    }
    ay->setTitleText(yTitle);
    const auto [xmin, xmax] = std::minmax_element(x->data.begin(), x->data.end());
    ax->setRange(*xmin, *xmax > *xmin ? *xmax : *xmin + 1);
    const double pad = ymax > ymin ? 0.05 * (ymax - ymin) : (ymax != 0 ? 0.1 * std::abs(ymax) : 1.0);
    ay->setRange(ymin - pad, ymax + pad);
    ax->applyNiceNumbers();
    ay->applyNiceNumbers();
    note_->setText(plotted ? QString()
                   : ref   ? tr("The reference has no spectrum at these wavelengths.")
                           : tr("Nothing to plot against %1.").arg(QString::fromStdString(xName)));
}

bool DetectorPlot::eventFilter(QObject* watched, QEvent* event) {
    // Pan: arrow keys move by a tenth of the view, a middle-button drag follows the mouse.
    if (event->type() == QEvent::KeyPress) {
        auto* k = static_cast<QKeyEvent*>(event);
        const QRectF area = chart_->plotArea();
        const qreal dx = 0.1 * area.width(), dy = 0.1 * area.height();
        switch (k->key()) {
        case Qt::Key_Left:
            chart_->scroll(-dx, 0);
            return true;
        case Qt::Key_Right:
            chart_->scroll(dx, 0);
            return true;
        case Qt::Key_Up:
            chart_->scroll(0, dy);
            return true;
        case Qt::Key_Down:
            chart_->scroll(0, -dy);
            return true;
        default:
            break;
        }
    } else if (event->type() == QEvent::MouseButtonPress) {
        auto* m = static_cast<QMouseEvent*>(event);
        if (m->button() == Qt::MiddleButton) {
            panning_ = true;
            panFrom_ = m->position().toPoint();
            return true;
        }
    } else if (event->type() == QEvent::MouseMove && panning_) {
        auto* m = static_cast<QMouseEvent*>(event);
        const QPoint d = m->position().toPoint() - panFrom_;
        chart_->scroll(-d.x(), d.y());
        panFrom_ = m->position().toPoint();
        return true;
    } else if (event->type() == QEvent::MouseButtonRelease && panning_) {
        panning_ = false;
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

QString DetectorPlot::csv() const {
    ensurePlotted();
    const auto series = chart_->series();
    if (series.isEmpty())
        return {};
    auto quote = [](QString t) {
        t.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        return QLatin1Char('"') + t + QLatin1Char('"');
    };
    QStringList header{quote(xTitle())};
    for (auto* s : series)
        header << quote(s->name());
    QString out = header.join(QLatin1Char(',')) + QLatin1Char('\n');
    // Rows by x of the first series; a series without that x leaves its cell empty.
    const auto base = seriesPoints(0);
    for (qsizetype r = 0; r < base.size(); ++r) {
        QStringList row{QString::number(base[r].x(), 'g', 17)};
        for (int i = 0; i < series.size(); ++i) {
            const auto pts = seriesPoints(i);
            QString cell;
            for (const auto& p : pts)
                if (p.x() == base[r].x())
                    cell = QString::number(p.y(), 'g', 17);
            row << cell;
        }
        out += row.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return out;
}

QString DetectorPlot::svg(int width, int height) const {
    ensurePlotted();
    const auto series = chart_->series();
    auto* ax = chart_->axes(Qt::Horizontal).isEmpty()
                   ? nullptr
                   : qobject_cast<QValueAxis*>(chart_->axes(Qt::Horizontal).first());
    auto* ay = chart_->axes(Qt::Vertical).isEmpty()
                   ? nullptr
                   : qobject_cast<QValueAxis*>(chart_->axes(Qt::Vertical).first());
    QString out;
    QTextStream o(&out);
    o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    auto esc = [](QString t) { return t.toHtmlEscaped(); };
    o << "<text x=\"" << width / 2 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">"
      << esc(chart_->title()) << "</text>\n";
    if (ax && ay) {
        const double l = 80, r = width - 20.0, t = 36, b = height - 70.0;
        const double x0 = ax->min(), x1 = ax->max(), y0 = ay->min(), y1 = ay->max();
        auto px = [&](double x) { return l + (x - x0) / (x1 - x0) * (r - l); };
        auto py = [&](double y) { return b - (y - y0) / (y1 - y0) * (b - t); };
        o << "<rect x=\"" << l << "\" y=\"" << t << "\" width=\"" << r - l << "\" height=\"" << b - t
          << "\" fill=\"none\" stroke=\"#444\"/>\n";
        for (int axis = 0; axis < 2; ++axis) {
            const double lo = axis == 0 ? x0 : y0, hi = axis == 0 ? x1 : y1;
            const double step = niceStep(hi - lo, 6);
            for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) {
                const QString label = QString::number(std::abs(v) < 1e-12 * step ? 0.0 : v, 'g', 4);
                if (axis == 0)
                    o << "<line x1=\"" << px(v) << "\" y1=\"" << b << "\" x2=\"" << px(v) << "\" y2=\""
                      << b + 5 << "\" stroke=\"#444\"/><text x=\"" << px(v) << "\" y=\"" << b + 18
                      << "\" text-anchor=\"middle\">" << label << "</text>\n";
                else
                    o << "<line x1=\"" << l - 5 << "\" y1=\"" << py(v) << "\" x2=\"" << l << "\" y2=\""
                      << py(v) << "\" stroke=\"#444\"/><text x=\"" << l - 8 << "\" y=\"" << py(v) + 4
                      << "\" text-anchor=\"end\">" << label << "</text>\n";
            }
        }
        o << "<text x=\"" << (l + r) / 2 << "\" y=\"" << b + 38 << "\" text-anchor=\"middle\">"
          << esc(ax->titleText()) << "</text>\n"
          << "<text transform=\"translate(18," << (t + b) / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
          << esc(ay->titleText()) << "</text>\n";
        for (int i = 0; i < series.size(); ++i) {
            auto* s = qobject_cast<QLineSeries*>(series[i]);
            if (!s)
                continue;
            const QColor c = s->color();
            o << "<polyline fill=\"none\" stroke=\"" << c.name() << "\" stroke-width=\"1.5\" points=\"";
            for (const auto& p : s->points())
                o << px(p.x()) << ',' << py(p.y()) << ' ';
            o << "\"><title>" << esc(s->name()) << "</title></polyline>\n"
              << "<text x=\"" << l + 10 + 160 * i << "\" y=\"" << height - 10 << "\" fill=\"" << c.name()
              << "\">" << esc(s->name()) << "</text>\n";
        }
    }
    o << "</svg>\n";
    return out;
}

QImage DetectorPlot::image() const {
    ensurePlotted();
    return chartView_->grab().toImage();
}

bool DetectorPlot::exportTo(const QString& path, QString* error) const {
    return exportPlot(path, {[this] { return csv(); }, [this] { return svg(); }, [this] { return image(); }},
                      error);
}

void DetectorPlot::exportDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export plot"),
        QDir(startFolder_).filePath(fileNameOf(chart_->title()) + QStringLiteral(".csv")),
        plotExportFilter());
    if (path.isEmpty())
        return;
    QString error;
    if (!exportTo(path, &error))
        note_->setText(error);
}

} // namespace yee::ui
