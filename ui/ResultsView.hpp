#pragma once
/// \file ResultsView.hpp
/// The results tab: field slices (detector, component, plane, position, time slider) with a colour
/// bar, detector plots, gradient maps per design region, and a summary of the run.
#include <QWidget>

#include <array>
#include <memory>
#include <vector>

#include "ui/ResultsData.hpp"

namespace yee::scene {
class Rasterizer;
}

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSlider;
class QTabWidget;

namespace yee::ui {

class DetectorPlot;
class FieldView;

/// Shows one ResultsData.
class ResultsView : public QWidget {
    Q_OBJECT
public:
    explicit ResultsView(QWidget* parent = nullptr);

    void setResults(const ResultsData& data);
    /// Show nothing (a new scene): the results, the plots and any notice are dropped.
    void clear();
    /// A warning shown above the results (e.g. "computed from another scene"); empty hides it.
    void setNotice(const QString& text);
    /// The warning shown above the results, or empty.
    QString notice() const;
    /// The header line (file, status, steps).
    QString headerText() const;
    const ResultsData& results() const { return data_; }
    /// Open a results file; on failure `error` explains why and the view is unchanged.
    bool openFile(const QString& path, QString* error = nullptr);

    FieldView* fieldView() const { return field_; }
    FieldView* gradientView() const { return gradientField_; }
    DetectorPlot* plot() const { return plot_; }
    QTabWidget* tabs() const { return tabs_; }
    QSlider* timeSlider() const { return time_; }
    QSlider* positionSlider() const { return position_; }
    QComboBox* planeBox() const { return plane_; }
    QComboBox* componentBox() const { return component_; }
    /// "Structure outline": draws the material boundaries of the results' scene over field slices.
    QCheckBox* outlineBox() const { return outline_; }
    QCheckBox* lockScaleBox() const { return lockScale_; }
    /// "Export…" of the Fields and Gradients tabs: the slice shown as CSV, PNG or SVG.
    QPushButton* fieldExportButton() const { return fieldExport_; }
    QPushButton* gradientExportButton() const { return gradientExport_; }
    /// The folder export dialogs start in: the results file's, empty for results in memory.
    QString exportFolder() const;

signals:
    /// A user action failed (unreadable snapshot, ...).
    void problemReported(const QString& message);

private:
    void seriesChanged();
    void updateSlice();
    void updateGradient();
    void updateSummary();
    void updateOutline();
    QWidget* buildFieldTab();
    QWidget* buildGradientTab();
    /// An "Export…" button for `view`, enabled while it shows a slice.
    QPushButton* exportButton(QWidget* parent, FieldView* view, const QString& objectName);
    /// Ask where to write `view`'s slice and write it (problemReported on failure).
    void exportSlice(FieldView* view);

    ResultsData data_;
    QLabel* header_;
    QTabWidget* tabs_;
    // fields
    QComboBox* series_;
    QComboBox* component_;
    QComboBox* plane_;
    QSlider* position_;
    QLabel* positionLabel_;
    QSlider* time_;
    QLabel* timeLabel_;
    FieldView* field_;
    // detectors
    DetectorPlot* plot_;
    // gradients
    QComboBox* design_;
    QComboBox* gradientPlane_;
    QSlider* gradientPosition_;
    FieldView* gradientField_;
    QPushButton* fieldExport_ = nullptr;
    QPushButton* gradientExport_ = nullptr;
    bool recentreGradient_ = true;
    // summary
    QPlainTextEdit* summary_;
    QLabel* notice_;
    QCheckBox* lockScale_;
    QCheckBox* outline_;
    /// The rasteriser of data_.scene (built on first use; null when there is no usable scene).
    std::shared_ptr<const scene::Rasterizer> raster_;
    bool rasterTried_ = false;
    /// The outline fields of the last outlined slice and that slice's geometry (reused while scrubbing time).
    std::vector<std::vector<float>> outlineFields_;
    bool outlineKnown_ = false;
    std::array<double, 7> outlineKey_{};
};

} // namespace yee::ui
