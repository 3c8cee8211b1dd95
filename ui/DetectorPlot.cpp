#include "ui/DetectorPlot.hpp"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace yee::ui {

namespace {
const char* const kTime = "time_fs";
const char* const kWavelength = "wavelengths_um";
} // namespace

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
    layout->addLayout(top);
    chart_ = new QChart;
    chart_->legend()->setAlignment(Qt::AlignBottom);
    chartView_ = new QChartView(chart_, this);
    chartView_->setRenderHint(QPainter::Antialiasing);
    layout->addWidget(chartView_, 1);
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    layout->addWidget(note_);
    connect(detector_, &QComboBox::currentIndexChanged, this, &DetectorPlot::replot);
    connect(view_, &QComboBox::currentIndexChanged, this, &DetectorPlot::replot);
    replot();
}

void DetectorPlot::setDetectors(const std::vector<solver::DetectorResult>& detectors) {
    detectors_.clear();
    for (const auto& d : detectors)
        if (d.type != "snapshot")
            detectors_.push_back(d);
    const QSignalBlocker b(detector_);
    const QString keep = detector_->currentText();
    detector_->clear();
    for (const auto& d : detectors_)
        detector_->addItem(
            QStringLiteral("%1 (%2)").arg(QString::fromStdString(d.name), QString::fromStdString(d.type)));
    const int i = detector_->findText(keep);
    detector_->setCurrentIndex(i >= 0 ? i : 0);
    replot();
}

int DetectorPlot::seriesCount() const {
    return int(chart_->series().size());
}

void DetectorPlot::replot() {
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
    const std::string xName = view_->currentData().toString().toStdString();
    const solver::NamedArray* x = det.find(xName);
    chart_->setTitle(QString::fromStdString(det.name));
    if (!x || x->data.empty()) {
        note_->setText(view_->currentIndex() == 0
                           ? tr("This detector records no time series.")
                           : tr("This detector records no spectrum (no wavelengths)."));
        return;
    }
    auto* ax = new QValueAxis;
    ax->setTitleText(xName == kTime ? tr("time (fs)") : tr("wavelength (um)"));
    auto* ay = new QValueAxis;
    ay->setTitleText(tr("value"));
    chart_->addAxis(ax, Qt::AlignBottom);
    chart_->addAxis(ay, Qt::AlignLeft);
    double ymin = 0, ymax = 0;
    bool first = true;
    int plotted = 0;
    for (const auto& a : det.arrays) {
        if (a.name == xName || a.shape.size() != 1 || a.data.size() != x->data.size())
            continue;
        auto* s = new QLineSeries;
        s->setName(QString::fromStdString(a.name));
        QList<QPointF> pts;
        pts.reserve(qsizetype(a.data.size()));
        for (std::size_t i = 0; i < a.data.size(); ++i) {
            if (!std::isfinite(a.data[i]))
                continue;
            pts.append({x->data[i], a.data[i]});
            ymin = first ? a.data[i] : std::min(ymin, a.data[i]);
            ymax = first ? a.data[i] : std::max(ymax, a.data[i]);
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
    const auto [xmin, xmax] = std::minmax_element(x->data.begin(), x->data.end());
    ax->setRange(*xmin, *xmax > *xmin ? *xmax : *xmin + 1);
    const double pad = ymax > ymin ? 0.05 * (ymax - ymin) : (ymax != 0 ? 0.1 * std::abs(ymax) : 1.0);
    ay->setRange(ymin - pad, ymax + pad);
    note_->setText(plotted ? QString()
                           : tr("Nothing to plot against %1.").arg(QString::fromStdString(xName)));
}

} // namespace yee::ui
