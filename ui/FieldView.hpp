#pragma once
/// \file FieldView.hpp
/// A VTK view of one FieldSlice: a coloured plane in world coordinates (um) with a colour bar.
#include <QString>

#include "ui/FieldSlice.hpp"
#include "ui/VtkWidget.hpp"

class vtkActor;
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

protected:
    void resizeGL(int w, int h) override;

private:
    void fitCamera();

    FieldSlice slice_;
    double range_ = 1;
    bool locked_ = false;
    vtkSmartPointer<vtkPolyData> plane_;
    vtkSmartPointer<vtkActor> actor_;
    vtkSmartPointer<vtkColorTransferFunction> colors_;
    vtkSmartPointer<vtkScalarBarActor> bar_;
    vtkSmartPointer<vtkTextActor> title_;
};

} // namespace yee::ui
