#pragma once
/// \file DetectorPlot.hpp
/// Detector plots (Qt Charts): time series against time (fs) and spectra against wavelength (µm), with
/// units on both axes, rubber-band zoom (right click zooms out; the arrow keys or a middle-button drag
/// pan), a normalised transmission T(λ) against a reference detector of the same results or of a
/// reference results file, and export of the plotted data as CSV and of the plot as PNG or SVG. Mode
/// monitors plot the power of each mode forward and backward (P⁺_m, P⁻_m); results with S-parameters get
/// an "S-parameters" entry plotting |S_ij|² of the excited port j against wavelength.
#include <QWidget>

#include <optional>

#include "yee/run/Run.hpp"
#include "yee/run/SParameters.hpp"

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QPushButton;

namespace yee::ui {

/// Picks a detector and a view (time series / spectrum) and plots every matching 1-D array.
class DetectorPlot : public QWidget {
    Q_OBJECT
public:
    explicit DetectorPlot(QWidget* parent = nullptr);
    /// The detectors to plot, and the S-matrix column of the run when it has one (an extra entry).
    void setDetectors(const std::vector<solver::DetectorResult>& detectors,
                      const std::optional<run::SParameters>& sParameters = std::nullopt);
    /// Detectors of another results file to normalise against (its name shown as `label`).
    void setReferenceDetectors(const std::vector<solver::DetectorResult>& detectors, const QString& label);
    /// Read the detectors of results file `path` as references (setReferenceDetectors). False with
    /// `error` set when it cannot be read.
    bool loadReferenceFile(const QString& path, QString* error = nullptr);
    /// Number of series currently plotted.
    int seriesCount() const;
    QComboBox* detectorBox() const { return detector_; }
    QComboBox* viewBox() const { return view_; }
    /// "none", or a detector (of these results, or "file: name" of the reference file) whose spectrum
    /// divides the plotted one: T(λ) = P(λ) / P_ref(λ).
    QComboBox* referenceBox() const { return reference_; }
    /// Axis titles with units, as shown.
    QString xTitle() const;
    QString yTitle() const;
    /// The plotted data: a header of x and every series, one row per x value.
    QString csv() const;
    /// The plot as an SVG document (axes, ticks, series, legend), drawn from the plotted data.
    QString svg(int width = 800, int height = 500) const;
    /// The plot as an image of the chart view.
    QImage image() const;
    /// The points of series `i` as plotted (after normalisation).
    QList<QPointF> seriesPoints(int i) const;
    /// The name of series `i` as in the legend.
    QString seriesName(int i) const;
    /// Write csv(), image() or svg() to `path` by its extension (.csv, .png, .svg). False on failure.
    bool exportTo(const QString& path, QString* error = nullptr) const;
    /// The folder the Export dialog starts in (the results file's; empty: the working folder).
    void setStartFolder(const QString& folder) { startFolder_ = folder; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* e) override;

private:
    /// Plot again now when shown, else when next shown or asked (the chart of a hidden tab waits).
    void replot();
    /// Plot now if a replot is pending.
    void ensurePlotted() const;
    void plotNow();
    void fillReferences();
    void exportDialog();

    std::vector<solver::DetectorResult> detectors_;
    std::vector<solver::DetectorResult> referenceFile_;
    QString referenceLabel_;
    QString startFolder_;
    QComboBox* detector_;
    QComboBox* view_;
    QComboBox* reference_;
    QPushButton* export_;
    QChart* chart_;
    QChartView* chartView_;
    QLabel* note_;
    QPoint panFrom_;
    bool panning_ = false;
    bool dirty_ = false;
};

/// Unit text of a detector array for axis titles: "power (source units)", "energy (source units)",
/// "Ez (field units)", "mode power P⁺ (source units)", "|S_ij|² (power ratio)"; x axes "time (fs)" and
/// "wavelength (µm)".
QString arrayAxisTitle(const std::string& detectorType, const std::string& array);

} // namespace yee::ui
