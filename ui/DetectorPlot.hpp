#pragma once
/// \file DetectorPlot.hpp
/// Detector plots (Qt Charts): time series against time_fs and spectra against wavelengths_um.
#include <QWidget>

#include "yee/run/Run.hpp"

class QChart;
class QChartView;
class QComboBox;
class QLabel;

namespace yee::ui {

/// Picks a detector and a view (time series / spectrum) and plots every matching 1-D array.
class DetectorPlot : public QWidget {
    Q_OBJECT
public:
    explicit DetectorPlot(QWidget* parent = nullptr);

    void setDetectors(const std::vector<solver::DetectorResult>& detectors);
    /// Number of series currently plotted.
    int seriesCount() const;
    QComboBox* detectorBox() const { return detector_; }
    QComboBox* viewBox() const { return view_; }

private:
    void replot();

    std::vector<solver::DetectorResult> detectors_;
    QComboBox* detector_;
    QComboBox* view_;
    QChart* chart_;
    QChartView* chartView_;
    QLabel* note_;
};

} // namespace yee::ui
