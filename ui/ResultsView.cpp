#include "ui/ResultsView.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QTabWidget>
#include <QVBoxLayout>

#include "ui/DetectorPlot.hpp"
#include "ui/FieldSlice.hpp"
#include "ui/FieldView.hpp"
#include "ui/Format.hpp"
#include "ui/PlotExport.hpp"
#include "ui/TabWidget.hpp"
#include "yee/device/MemoryLedger.hpp"
#include "yee/scene/Rasterizer.hpp"

namespace yee::ui {

namespace {
const char* const kPlanes[] = {"yz (normal x)", "xz (normal y)", "xy (normal z)"};
} // namespace

ResultsView::ResultsView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("resultsView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    header_ = new QLabel(tr("No results yet: run the scene or open a results file."), this);
    header_->setWordWrap(true);
    layout->addWidget(header_);
    notice_ = new QLabel(this);
    notice_->setObjectName(QStringLiteral("resultsNotice"));
    notice_->setWordWrap(true);
    notice_->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #5c4400; padding: 4px; }"));
    notice_->hide();
    layout->addWidget(notice_);
    tabs_ = new TabWidget(this);
    tabs_->setObjectName(QStringLiteral("resultsTabs"));
    tabs_->addTab(buildFieldTab(), tr("Fields"));
    plot_ = new DetectorPlot(tabs_);
    tabs_->addTab(plot_, tr("Detectors"));
    tabs_->addTab(buildGradientTab(), tr("Gradients"));
    summary_ = new QPlainTextEdit(tabs_);
    summary_->setReadOnly(true);
    tabs_->addTab(summary_, tr("Summary"));
    layout->addWidget(tabs_, 1);
}

QWidget* ResultsView::buildFieldTab() {
    // The controls in rows above the slice, so the slice gets the tab's whole width.
    auto* w = new QWidget(this);
    auto* l = new QVBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    auto* controls = new QWidget(w);
    auto* g = new QGridLayout(controls);
    g->setContentsMargins(4, 4, 4, 0);
    const auto label = [controls](const QString& text) { return new QLabel(text, controls); };
    series_ = new QComboBox(controls);
    series_->setObjectName(QStringLiteral("snapshotDetector"));
    component_ = new QComboBox(controls);
    component_->setObjectName(QStringLiteral("snapshotComponent"));
    plane_ = new QComboBox(controls);
    plane_->setObjectName(QStringLiteral("slicePlane"));
    for (int a = 0; a < 3; ++a)
        plane_->addItem(tr(kPlanes[a]), a);
    for (QComboBox* c : {series_, component_, plane_}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(5);
    }
    position_ = new QSlider(Qt::Horizontal, controls);
    position_->setObjectName(QStringLiteral("slicePosition"));
    positionLabel_ = new QLabel(controls);
    positionLabel_->setWordWrap(true);
    time_ = new QSlider(Qt::Horizontal, controls);
    time_->setObjectName(QStringLiteral("timeSlider"));
    timeLabel_ = new QLabel(controls);
    timeLabel_->setWordWrap(true);
    lockScale_ = new QCheckBox(tr("Lock colour scale"), controls);
    lockScale_->setObjectName(QStringLiteral("lockColourScale"));
    lockScale_->setToolTip(tr("Keep the colour range of the frame shown now, so frames can be compared"));
    outline_ = new QCheckBox(tr("Structure outline"), controls);
    outline_->setObjectName(QStringLiteral("structureOutline"));
    outline_->setToolTip(tr("Draw the material boundaries (the rasterised permittivity on this plane) over "
                            "the slice"));
    outline_->setChecked(true);
    g->addWidget(label(tr("Snapshot")), 0, 0);
    g->addWidget(series_, 0, 1);
    g->addWidget(label(tr("Component")), 0, 2);
    g->addWidget(component_, 0, 3);
    g->addWidget(label(tr("Plane")), 1, 0);
    g->addWidget(plane_, 1, 1);
    g->addWidget(lockScale_, 1, 2, 1, 2);
    g->addWidget(label(tr("Position")), 2, 0);
    g->addWidget(position_, 2, 1);
    g->addWidget(positionLabel_, 2, 2, 1, 2);
    g->addWidget(label(tr("Time")), 3, 0);
    g->addWidget(time_, 3, 1);
    g->addWidget(timeLabel_, 3, 2, 1, 2);
    field_ = new FieldView(w);
    fieldExport_ = exportButton(controls, field_, QStringLiteral("fieldExport"));
    g->addWidget(fieldExport_, 4, 0, 1, 2, Qt::AlignLeft);
    g->addWidget(outline_, 4, 2, 1, 2);
    for (const int c : {1, 3})
        g->setColumnStretch(c, 1);
    l->addWidget(controls);
    l->addWidget(field_, 1);
    connect(lockScale_, &QCheckBox::toggled, field_, &FieldView::setRangeLocked);
    connect(outline_, &QCheckBox::toggled, this, &ResultsView::updateOutline);

    connect(series_, &QComboBox::currentIndexChanged, this, &ResultsView::seriesChanged);
    connect(component_, &QComboBox::currentIndexChanged, this, &ResultsView::updateSlice);
    connect(plane_, &QComboBox::currentIndexChanged, this, [this] {
        position_->setValue(0);
        updateSlice();
    });
    connect(position_, &QSlider::valueChanged, this, &ResultsView::updateSlice);
    connect(time_, &QSlider::valueChanged, this, &ResultsView::updateSlice);
    return w;
}

QWidget* ResultsView::buildGradientTab() {
    // The controls in rows above the map, as in the Fields tab.
    auto* w = new QWidget(this);
    auto* l = new QVBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    auto* controls = new QWidget(w);
    auto* g = new QGridLayout(controls);
    g->setContentsMargins(4, 4, 4, 0);
    design_ = new QComboBox(controls);
    design_->setObjectName(QStringLiteral("gradientDesign"));
    gradientPlane_ = new QComboBox(controls);
    for (int a = 0; a < 3; ++a)
        gradientPlane_->addItem(tr(kPlanes[a]), a);
    gradientPlane_->setCurrentIndex(2);
    for (QComboBox* c : {design_, gradientPlane_}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(5);
    }
    gradientPosition_ = new QSlider(Qt::Horizontal, controls);
    g->addWidget(new QLabel(tr("Design region"), controls), 0, 0);
    g->addWidget(design_, 0, 1);
    g->addWidget(new QLabel(tr("Plane"), controls), 0, 2);
    g->addWidget(gradientPlane_, 0, 3);
    g->addWidget(new QLabel(tr("Position"), controls), 1, 0);
    g->addWidget(gradientPosition_, 1, 1, 1, 3);
    gradientField_ = new FieldView(w);
    gradientField_->setObjectName(QStringLiteral("gradientView"));
    gradientExport_ = exportButton(controls, gradientField_, QStringLiteral("gradientExport"));
    g->addWidget(gradientExport_, 2, 0, 1, 2, Qt::AlignLeft);
    for (const int c : {1, 3})
        g->setColumnStretch(c, 1);
    l->addWidget(controls);
    l->addWidget(gradientField_, 1);
    connect(design_, &QComboBox::currentIndexChanged, this, &ResultsView::updateGradient);
    connect(gradientPlane_, &QComboBox::currentIndexChanged, this, [this] {
        recentreGradient_ = true;
        updateGradient();
    });
    connect(gradientPosition_, &QSlider::valueChanged, this, &ResultsView::updateGradient);
    return w;
}

QPushButton* ResultsView::exportButton(QWidget* parent, FieldView* view, const QString& objectName) {
    auto* b = new QPushButton(tr("Export\u2026"), parent);
    b->setObjectName(objectName);
    b->setToolTip(
        tr("The slice's samples as CSV (x, y, z in \u00b5m and the value), the view as PNG or SVG"));
    b->setEnabled(false);
    connect(view, &FieldView::sliceShown, b, &QPushButton::setEnabled);
    connect(b, &QPushButton::clicked, this, [this, view] { exportSlice(view); });
    return b;
}

QString ResultsView::exportFolder() const {
    return data_.path.isEmpty() ? QString() : QFileInfo(data_.path).absolutePath();
}

void ResultsView::exportSlice(FieldView* view) {
    if (view->slice().empty())
        return;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export slice"),
        QDir(exportFolder()).filePath(fileNameOf(view->title()) + QStringLiteral(".csv")),
        plotExportFilter());
    if (path.isEmpty())
        return;
    QString error;
    if (!view->exportTo(path, &error))
        emit problemReported(error);
}

bool ResultsView::openFile(const QString& path, QString* error) {
    try {
        setResults(ResultsData::load(path));
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
}

void ResultsView::clear() {
    setResults(ResultsData{});
    header_->setText(tr("No results yet: run the scene or open a results file."));
    setNotice({});
}

void ResultsView::setNotice(const QString& text) {
    notice_->setText(text);
    notice_->setVisible(!text.isEmpty());
}

QString ResultsView::notice() const {
    return notice_->text();
}

QString ResultsView::headerText() const {
    return header_->text();
}

void ResultsView::setResults(const ResultsData& data) {
    data_ = data;
    raster_.reset();
    rasterTried_ = false;
    outlineFields_.clear();
    outlineKnown_ = false;
    QString where = data_.path.isEmpty() ? tr("in memory") : QFileInfo(data_.path).fileName();
    header_->setText(tr("<b>%1</b> \u2014 %2, %3 of %4 steps")
                         .arg(where.toHtmlEscaped(), data_.status.toHtmlEscaped())
                         .arg(data_.steps)
                         .arg(data_.totalSteps));
    header_->setToolTip(data_.path);
    {
        const QSignalBlocker b(series_);
        series_->clear();
        for (const auto& s : data_.snapshots)
            series_->addItem(QString::fromStdString(s.detector));
        series_->setCurrentIndex(data_.snapshots.empty() ? -1 : 0);
    }
    seriesChanged();
    plot_->setDetectors(data_.detectors, data_.sParameters);
    plot_->setStartFolder(exportFolder());
    {
        const QSignalBlocker b(design_);
        design_->clear();
        for (const auto& [name, g] : data_.gradients)
            design_->addItem(QString::fromStdString(name));
    }
    tabs_->setTabEnabled(2, !data_.gradients.empty());
    recentreGradient_ = true; // start in the middle of the region along the chosen normal
    updateGradient();
    updateSummary();
    // Open on something to look at: fields, else gradients, else detector plots.
    if (!data_.snapshots.empty())
        tabs_->setCurrentIndex(0);
    else if (!data_.gradients.empty())
        tabs_->setCurrentIndex(2);
    else if (!data_.detectors.empty())
        tabs_->setCurrentIndex(1);
}

void ResultsView::seriesChanged() {
    const int si = series_->currentIndex();
    const QSignalBlocker b1(component_), b2(time_), b3(plane_), b4(position_);
    component_->clear();
    if (si < 0) {
        field_->clear(data_.empty() ? tr("No results.") : tr("This run recorded no field snapshots."));
        return;
    }
    const auto& ss = data_.snapshots[std::size_t(si)];
    for (const auto& c : ss.components)
        component_->addItem(QString::fromStdString(c));
    time_->setRange(0, std::max(0, int(ss.frames.size()) - 1));
    time_->setValue(time_->maximum());
    // Plane snapshots are shown in their own plane.
    if (auto snap = data_.snapshot(std::size_t(si), 0,
                                   ss.components.empty() ? std::string() : ss.components.front())) {
        plane_->setCurrentIndex(naturalNormal(*snap));
        position_->setValue(snap->dims[naturalNormal(*snap)] / 2);
    }
    updateSlice();
}

void ResultsView::updateSlice() {
    const int si = series_->currentIndex();
    if (si < 0 || component_->currentIndex() < 0)
        return;
    const auto& ss = data_.snapshots[std::size_t(si)];
    const std::size_t frame = std::size_t(time_->value());
    QString error;
    auto snap = data_.snapshot(std::size_t(si), frame, component_->currentText().toStdString(), &error);
    if (!snap) {
        field_->clear(tr("Cannot read this snapshot."));
        if (!error.isEmpty())
            emit problemReported(error);
        return;
    }
    const int normal = plane_->currentData().toInt();
    {
        const QSignalBlocker b(position_);
        position_->setRange(0, std::max(0, snap->dims[normal] - 1));
    }
    const FieldSlice slice = sliceOf(*snap, normal, position_->value());
    const double pos = slice.origin[normal];
    positionLabel_->setText(tr("%1 = %2 \u00b5m (%3 of %4)")
                                .arg(QChar('x' + normal))
                                .arg(pos, 0, 'g', 4)
                                .arg(position_->value() + 1)
                                .arg(snap->dims[normal]));
    const double t = frame < ss.frames.size() ? ss.frames[frame].timeFs : snap->timeFs;
    timeLabel_->setText(
        tr("t = %1 fs (frame %2 of %3)").arg(t, 0, 'f', 2).arg(frame + 1).arg(ss.frames.size()));
    field_->setSlice(slice,
                     tr("%1  %2   t = %3 fs")
                         .arg(QString::fromStdString(ss.detector), component_->currentText())
                         .arg(t, 0, 'f', 2),
                     component_->currentText());
    updateOutline();
}

void ResultsView::updateOutline() {
    if (!outline_->isChecked() || !data_.scene || field_->slice().empty()) {
        field_->setOutlineFields({});
        return;
    }
    if (!rasterTried_) {
        rasterTried_ = true;
        try {
            raster_ = std::make_shared<const scene::Rasterizer>(*data_.scene);
        } catch (const std::exception&) {
            raster_.reset(); // a scene the rasteriser refuses has no outline
        }
    }
    if (!raster_)
        return;
    const FieldSlice& f = field_->slice();
    const std::array<double, 7> key{double(f.normal),          f.origin[0], f.origin[1], f.origin[2],
                                    double(f.nu) + 1e6 * f.nv, f.du,        f.dv};
    if (!outlineKnown_ || key != outlineKey_) {
        outlineFields_ = outlineFields(*data_.scene, *raster_, f);
        outlineKey_ = key;
        outlineKnown_ = true;
    }
    field_->setOutlineFields(outlineFields_);
}

void ResultsView::updateGradient() {
    const QString name = design_->currentText();
    auto it = data_.gradients.find(name.toStdString());
    if (it == data_.gradients.end()) {
        gradientField_->clear(tr("No gradients in these results (forward run)."));
        return;
    }
    std::size_t index = std::size_t(-1);
    scene::Scene s;
    if (data_.scene) {
        s = *data_.scene;
        for (std::size_t i = 0; i < s.designs.size(); ++i)
            if (s.designs[i].name == it->first)
                index = i;
    }
    const solver::Snapshot vol = gradientVolume(s, index, it->second);
    const int normal = gradientPlane_->currentData().toInt();
    {
        const QSignalBlocker b(gradientPosition_);
        gradientPosition_->setRange(0, std::max(0, vol.dims[normal] - 1));
        if (recentreGradient_)
            gradientPosition_->setValue(vol.dims[normal] / 2);
        recentreGradient_ = false;
    }
    gradientField_->setSlice(sliceOf(vol, normal, gradientPosition_->value()),
                             tr("d objective / d latent: %1").arg(name), tr("gradient"));
}

void ResultsView::updateSummary() {
    QStringList lines;
    lines << tr("Status: %1").arg(data_.status);
    lines << tr("Steps: %1 of %2 (dt = %3 fs)")
                 .arg(data_.steps)
                 .arg(data_.totalSteps)
                 .arg(data_.dtFs, 0, 'g', 6);
    if (data_.wallSeconds > 0)
        lines << tr("Wall time: %1 s, %2 cell updates/s")
                     .arg(data_.wallSeconds, 0, 'f', 2)
                     .arg(double(data_.cellUpdates) / data_.wallSeconds, 0, 'g', 4);
    if (data_.objective)
        lines << tr("Objective: %1").arg(*data_.objective, 0, 'g', 10);
    if (!data_.gradients.empty()) {
        lines << tr("Gradient of %n design region(s)", nullptr, int(data_.gradients.size()));
        if (data_.backwardSeconds > 0)
            lines << tr("  forward sweep %1 s, reverse sweep %2 s, %3 steps recomputed, reconstruction drift "
                        "%4")
                         .arg(data_.forwardSeconds, 0, 'f', 2)
                         .arg(data_.backwardSeconds, 0, 'f', 2)
                         .arg(data_.recomputedSteps)
                         .arg(data_.reconstructionDrift, 0, 'g', 3);
    }
    lines << QString() << tr("Devices:");
    for (const auto& d : data_.devices)
        lines << tr("  %1  tile %2  peak %3 of %4")
                     .arg(QString::fromStdString(d.name), boxText(d.tile), bytesText(d.memory.peakTotal),
                          bytesText(d.capacity));
    lines << QString() << tr("Detectors:");
    for (const auto& d : data_.detectors) {
        QStringList arrays;
        for (const auto& a : d.arrays)
            arrays << QString::fromStdString(a.name);
        lines << QStringLiteral("  %1 (%2): %3")
                     .arg(QString::fromStdString(d.name), QString::fromStdString(d.type), arrays.join(", "));
    }
    summary_->setPlainText(lines.join('\n'));
}

} // namespace yee::ui
