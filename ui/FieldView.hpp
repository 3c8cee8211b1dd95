#pragma once
/// \file FieldView.hpp
/// A VTK view of one FieldSlice: a coloured plane in world coordinates (um) with a colour bar, axes in um
/// along its lower and left edges, and optionally the structure's outline (material boundaries) over it.
/// The mouse pans (middle button, or shift + left) and zooms (wheel, right button); it never rotates.
#include <QString>
#include <QStringList>

#include <array>
#include <utility>
#include <vector>

#include "ui/FieldSlice.hpp"
#include "ui/VtkWidget.hpp"

class vtkActor;
class vtkAxisActor2D;
class vtkColorTransferFunction;
class vtkPolyData;
class vtkScalarBarActor;
class vtkTextActor;

namespace yee::ui {

/// Shows a slice with a diverging colour map symmetric about zero (fields and gradients change sign),
/// looking along the slice normal with a parallel projection.
class FieldView : public VtkWidget {
    Q_OBJECT
public:
    explicit FieldView(QWidget* parent = nullptr);
    ~FieldView() override;

    /// Show `slice` titled `title`; the colour bar is labelled `quantity`.
    void setSlice(const FieldSlice& slice, const QString& title, const QString& quantity);
    /// Remove the slice and show `message` instead.
    void clear(const QString& message = {});
    const FieldSlice& slice() const { return slice_; }
    /// Colour range in use (symmetric: [-range, range]).
    double range() const { return range_; }
    /// Keep the current colour range for every following slice (true), or fit each slice (false).
    void setRangeLocked(bool locked);
    bool rangeLocked() const { return locked_; }
    /// The colour range chosen for `values`: the 99.5th percentile of |value| (1 if all are zero).
    static double colourRange(const std::vector<float>& values);
    /// Colour by magnitude (a sequential map from 0, white to dark red: |E| of a mode) instead of the
    /// diverging map symmetric about zero. Applies from the next setSlice().
    void setMagnitude(bool magnitude);
    bool magnitude() const { return magnitude_; }

    /// Draw the structure's outline over the slice shown: the contour lines of `eps` (one value per
    /// sample of slice(), same order) at each of `levels` (midpoints between the materials' permittivities,
    /// outlineLevels()). Empty `eps` removes the outline; so does the next setSlice().
    void setOutline(const std::vector<float>& eps, const std::vector<double>& levels);
    /// Line segments of the outline drawn (0 without one).
    int outlineSegments() const;
    /// World bounds (um) of the outline drawn: x lo, x hi, y lo, y hi, z lo, z hi (all 0 without one).
    std::array<double, 6> outlineBounds() const;
    /// The axis titles shown ("x (µm)"), horizontal then vertical; empty without a slice.
    QString axisTitle(int which) const;
    /// The range (um) the horizontal (0) or vertical (1) axis spans.
    std::pair<double, double> axisRange(int which) const;
    /// The tick labels of axis `which` as drawn, in order ("-0.8", "-0.4", "0", ...).
    QStringList tickLabels(int which) const;

protected:
    void resizeGL(int w, int h) override;

private:
    void fitCamera();

    FieldSlice slice_;
    double range_ = 1;
    bool locked_ = false;
    bool magnitude_ = false;
    vtkSmartPointer<vtkPolyData> plane_;
    vtkSmartPointer<vtkActor> actor_;
    vtkSmartPointer<vtkColorTransferFunction> colors_;
    vtkSmartPointer<vtkScalarBarActor> bar_;
    vtkSmartPointer<vtkTextActor> title_;
    vtkSmartPointer<vtkPolyData> outline_;
    vtkSmartPointer<vtkActor> outlineActor_;
    vtkSmartPointer<vtkAxisActor2D> axes_[2];
    /// Tick labels of both axes (placed in world coordinates by fitCamera()).
    std::vector<vtkSmartPointer<vtkTextActor>> tickLabels_;
};

} // namespace yee::ui
