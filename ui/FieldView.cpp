#include "ui/FieldView.hpp"

#include <algorithm>
#include <cmath>

#include <vtkActor.h>
#include <vtkAxisActor2D.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkColorTransferFunction.h>
#include <vtkContourFilter.h>
#include <vtkCoordinate.h>
#include <vtkFloatArray.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyleImage.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkProperty2D.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>

namespace yee::ui {

void FieldView::setRangeLocked(bool locked) {
    locked_ = locked;
}

void FieldView::setMagnitude(bool magnitude) {
    magnitude_ = magnitude;
}

double FieldView::colourRange(const std::vector<float>& values) {
    // The 99.5th percentile of |value|: one hot cell (a point source) must not wash out the wave around
    // it. Values beyond the range saturate at the ends of the colour bar.
    std::vector<float> mag(values.size());
    std::transform(values.begin(), values.end(), mag.begin(), [](float v) { return std::abs(v); });
    if (mag.empty())
        return 1.0;
    const std::size_t k = std::min(mag.size() - 1, std::size_t(0.995 * double(mag.size())));
    std::nth_element(mag.begin(), mag.begin() + std::ptrdiff_t(k), mag.end());
    double r = mag[k];
    if (!(r > 0))
        r = *std::max_element(mag.begin(), mag.end());
    return r > 0 ? r : 1.0;
}

FieldView::FieldView(QWidget* parent)
    : VtkWidget(parent), plane_(vtkSmartPointer<vtkPolyData>::New()),
      actor_(vtkSmartPointer<vtkActor>::New()), colors_(vtkSmartPointer<vtkColorTransferFunction>::New()),
      bar_(vtkSmartPointer<vtkScalarBarActor>::New()), title_(vtkSmartPointer<vtkTextActor>::New()),
      outline_(vtkSmartPointer<vtkPolyData>::New()), outlineActor_(vtkSmartPointer<vtkActor>::New()) {
    setObjectName(QStringLiteral("fieldView"));
    // A slice is looked at, not turned: pan and zoom only (vtkInteractorStyleImage without an image).
    vtkNew<vtkInteractorStyleImage> style;
    interactor()->SetInteractorStyle(style);
    renderer()->GradientBackgroundOff();
    renderer()->SetBackground(1, 1, 1);

    colors_->SetColorSpaceToDiverging();
    auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
    mapper->SetInputData(plane_);
    mapper->SetLookupTable(colors_);
    mapper->SetScalarModeToUsePointData();
    mapper->ScalarVisibilityOn();
    mapper->SetColorModeToMapScalars();
    mapper->InterpolateScalarsBeforeMappingOn();
    actor_->SetMapper(mapper);
    actor_->GetProperty()->LightingOff();
    actor_->VisibilityOff();
    renderer()->AddActor(actor_);

    bar_->SetLookupTable(colors_);
    bar_->SetNumberOfLabels(5);
    bar_->SetLabelFormat("%-#.3g");
    bar_->SetHeight(0.8);
    bar_->GetLabelTextProperty()->SetColor(0.1, 0.1, 0.1);
    bar_->GetLabelTextProperty()->ShadowOff();
    bar_->GetLabelTextProperty()->ItalicOff();
    bar_->GetTitleTextProperty()->SetColor(0.1, 0.1, 0.1);
    bar_->GetTitleTextProperty()->ShadowOff();
    bar_->GetTitleTextProperty()->ItalicOff();
    bar_->UnconstrainedFontSizeOn();
    bar_->GetLabelTextProperty()->SetFontSize(12);
    bar_->GetTitleTextProperty()->SetFontSize(13);
    bar_->VisibilityOff();
    renderer()->AddViewProp(bar_);

    // The structure's outline: thin black lines just in front of the slice.
    auto outlineMapper = vtkSmartPointer<vtkPolyDataMapper>::New();
    outlineMapper->SetInputData(outline_);
    outlineMapper->ScalarVisibilityOff();
    outlineActor_->SetMapper(outlineMapper);
    outlineActor_->GetProperty()->SetColor(0.05, 0.05, 0.05);
    outlineActor_->GetProperty()->SetLineWidth(1.5);
    outlineActor_->GetProperty()->LightingOff();
    outlineActor_->VisibilityOff();
    renderer()->AddActor(outlineActor_);

    // Axes in um along the lower and left edges of the slice (world coordinates, nice tick labels).
    for (auto& axis : axes_) {
        axis = vtkSmartPointer<vtkAxisActor2D>::New();
        axis->GetPositionCoordinate()->SetCoordinateSystemToWorld();
        axis->GetPosition2Coordinate()->SetCoordinateSystemToWorld();
        axis->AdjustLabelsOn();
        axis->SetNumberOfLabels(6);
        axis->SetLabelFormat("%-#.3g");
        axis->SetFontFactor(1.0);
        axis->SetLabelFactor(0.8);
        axis->GetProperty()->SetColor(0.1, 0.1, 0.1);
        for (vtkTextProperty* t : {axis->GetLabelTextProperty(), axis->GetTitleTextProperty()}) {
            t->SetColor(0.1, 0.1, 0.1);
            t->ShadowOff();
            t->ItalicOff();
            t->BoldOff();
        }
        axis->VisibilityOff();
        renderer()->AddViewProp(axis);
    }

    title_->GetTextProperty()->SetColor(0.1, 0.1, 0.1);
    title_->GetTextProperty()->SetFontSize(14);
    title_->SetPosition(10, 10);
    renderer()->AddViewProp(title_);
    clear();
}

FieldView::~FieldView() = default;

void FieldView::clear(const QString& message) {
    slice_ = {};
    actor_->VisibilityOff();
    bar_->VisibilityOff();
    setOutline({}, {});
    for (auto& axis : axes_)
        axis->VisibilityOff();
    title_->SetInput((message.isEmpty() ? tr("No field to show.") : message).toUtf8().constData());
    requestRender();
}

void FieldView::setSlice(const FieldSlice& slice, const QString& title, const QString& quantity) {
    if (slice.empty()) {
        clear(tr("The selected data is empty."));
        return;
    }
    slice_ = slice;
    // Points at sample positions, quads between them (a single row or column is widened to half a sample).
    const int nu = std::max(2, slice.nu), nv = std::max(2, slice.nv);
    vtkNew<vtkPoints> pts;
    pts->SetNumberOfPoints(vtkIdType(nu) * nv);
    vtkNew<vtkFloatArray> scalars;
    scalars->SetName("value");
    scalars->SetNumberOfTuples(vtkIdType(nu) * nv);
    const double du = slice.du > 0 ? slice.du : 1.0, dv = slice.dv > 0 ? slice.dv : 1.0;
    for (int iv = 0; iv < nv; ++iv)
        for (int iu = 0; iu < nu; ++iu) {
            const int su = std::min(iu, slice.nu - 1), sv = std::min(iv, slice.nv - 1);
            double p[3] = {slice.origin[0], slice.origin[1], slice.origin[2]};
            p[slice.u] += (slice.nu > 1 ? iu : iu - 0.5) * du;
            p[slice.v] += (slice.nv > 1 ? iv : iv - 0.5) * dv;
            const vtkIdType id = iu + vtkIdType(nu) * iv;
            pts->SetPoint(id, p);
            scalars->SetValue(id, slice.values[std::size_t(su + slice.nu * sv)]);
        }
    vtkNew<vtkCellArray> quads;
    for (int iv = 0; iv + 1 < nv; ++iv)
        for (int iu = 0; iu + 1 < nu; ++iu) {
            const vtkIdType a = iu + vtkIdType(nu) * iv;
            const vtkIdType q[4] = {a, a + 1, a + 1 + nu, a + nu};
            quads->InsertNextCell(4, q);
        }
    plane_->Initialize();
    plane_->SetPoints(pts);
    plane_->SetPolys(quads);
    plane_->GetPointData()->SetScalars(scalars);
    plane_->Modified();

    // A locked scale keeps the range of the frame it was locked on, so frames can be compared.
    if (!locked_ || !(range_ > 0))
        range_ = colourRange(slice.values);
    colors_->RemoveAllPoints();
    if (magnitude_) {
        colors_->AddRGBPoint(0.0, 1.0, 1.0, 1.0);
        colors_->AddRGBPoint(0.5 * range_, 0.957, 0.647, 0.510);
        colors_->AddRGBPoint(range_, 0.706, 0.016, 0.150);
        actor_->GetMapper()->SetScalarRange(0.0, range_);
    } else {
        colors_->AddRGBPoint(-range_, 0.230, 0.299, 0.754);
        colors_->AddRGBPoint(0.0, 0.865, 0.865, 0.865);
        colors_->AddRGBPoint(range_, 0.706, 0.016, 0.150);
        actor_->GetMapper()->SetScalarRange(-range_, range_);
    }
    setOutline({}, {});
    actor_->VisibilityOn();
    bar_->SetTitle(quantity.toUtf8().constData());
    bar_->VisibilityOn();
    title_->SetInput(title.toUtf8().constData());
    for (int i = 0; i < 2; ++i) {
        axes_[i]->SetTitle(axisTitle(i).toUtf8().constData());
        axes_[i]->VisibilityOn();
    }

    fitCamera();
    requestRender();
}

void FieldView::setOutline(const std::vector<float>& eps, const std::vector<double>& levels) {
    outline_->Initialize();
    outlineActor_->VisibilityOff();
    if (eps.empty() || levels.empty() || slice_.empty() || plane_->GetNumberOfPoints() == 0 ||
        eps.size() != slice_.values.size()) {
        requestRender();
        return;
    }
    // The slice's points with eps as scalars (same widening of a single row as the coloured plane).
    const int nu = std::max(2, slice_.nu), nv = std::max(2, slice_.nv);
    vtkNew<vtkPolyData> grid;
    grid->SetPoints(plane_->GetPoints());
    grid->SetPolys(plane_->GetPolys());
    vtkNew<vtkFloatArray> e;
    e->SetName("eps");
    e->SetNumberOfTuples(vtkIdType(nu) * nv);
    for (int iv = 0; iv < nv; ++iv)
        for (int iu = 0; iu < nu; ++iu) {
            const int su = std::min(iu, slice_.nu - 1), sv = std::min(iv, slice_.nv - 1);
            e->SetValue(iu + vtkIdType(nu) * iv, eps[std::size_t(su + slice_.nu * sv)]);
        }
    grid->GetPointData()->SetScalars(e);
    vtkNew<vtkContourFilter> contour;
    contour->SetInputData(grid);
    contour->SetNumberOfContours(int(levels.size()));
    for (std::size_t i = 0; i < levels.size(); ++i)
        contour->SetValue(int(i), levels[i]);
    contour->Update();
    outline_->DeepCopy(contour->GetOutput());
    // Lift the lines a little towards the camera so they never hide behind the coloured plane.
    const double lift = 1e-3 * std::max(slice_.du * slice_.nu, slice_.dv * slice_.nv);
    outlineActor_->SetPosition(0, 0, 0);
    double pos[3] = {0, 0, 0};
    pos[slice_.normal] = (slice_.normal == 1 ? -1.0 : 1.0) * lift;
    outlineActor_->SetPosition(pos);
    outlineActor_->SetVisibility(outline_->GetNumberOfCells() > 0);
    requestRender();
}

int FieldView::outlineSegments() const {
    return int(outline_->GetNumberOfCells());
}

std::array<double, 6> FieldView::outlineBounds() const {
    std::array<double, 6> b{0, 0, 0, 0, 0, 0};
    if (outline_->GetNumberOfCells() > 0) {
        outline_->GetBounds(b.data());
        double p[3];
        outlineActor_->GetPosition(p);
        for (int a = 0; a < 3; ++a) {
            b[std::size_t(2 * a)] += p[a];
            b[std::size_t(2 * a + 1)] += p[a];
        }
    }
    return b;
}

QString FieldView::axisTitle(int which) const {
    if (slice_.empty())
        return {};
    const int axis = which == 0 ? slice_.u : slice_.v;
    return tr("%1 (\u00b5m)").arg(QChar('x' + axis));
}

std::pair<double, double> FieldView::axisRange(int which) const {
    if (slice_.empty() || plane_->GetNumberOfPoints() == 0)
        return {0, 0};
    double b[6];
    plane_->GetBounds(b);
    const int axis = which == 0 ? slice_.u : slice_.v;
    return {b[2 * axis], b[2 * axis + 1]};
}

void FieldView::fitCamera() {
    if (slice_.empty())
        return;
    if (width() <= 0 || height() <= 0)
        return;
    // Look along the normal with u to the right and v up, the plane filling the left part of the view
    // and the colour bar the right part.
    double b[6];
    plane_->GetBounds(b);
    const int u = slice_.u, v = slice_.v, n = slice_.normal;
    const double w = std::max(1e-9, b[2 * u + 1] - b[2 * u]), h = std::max(1e-9, b[2 * v + 1] - b[2 * v]);
    const double aspect = height() > 0 ? double(width()) / double(height()) : 1.0;
    // The colour bar (with its labels) takes a fixed ~90 px on the right; the plane gets the rest.
    const double barFraction = std::clamp(90.0 / std::max(1, width()), 0.08, 0.35);
    bar_->SetPosition(1.0 - barFraction, 0.1);
    bar_->SetWidth(barFraction - 0.01);
    const double kPlaneFraction = 1.0 - barFraction - 0.03;
    // Room for the axes' labels and titles: ~60 px on the left and below.
    const double marginX = std::clamp(60.0 / std::max(1, width()), 0.05, 0.2);
    const double marginY = std::clamp(60.0 / std::max(1, height()), 0.05, 0.25);
    const double kUsable = kPlaneFraction - marginX;
    const double scale = 1.04 * std::max(0.5 * h / (1.0 - marginY), 0.5 * w / (aspect * kUsable));
    const double viewWidth = 2.0 * scale * aspect;
    double focal[3] = {0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5])};
    focal[u] += (0.5 - 0.5 * kUsable - marginX) * viewWidth;
    focal[v] -= 0.5 * marginY * 2.0 * scale;
    // The horizontal axis runs along the lower edge (labels below it), the vertical one down the left
    // edge from top to bottom (labels to its left, so its range runs from the top value down).
    double p1[3], p2[3];
    for (int i = 0; i < 3; ++i)
        p1[i] = p2[i] = b[2 * i];
    p2[u] = b[2 * u + 1];
    axes_[0]->GetPositionCoordinate()->SetValue(p1);
    axes_[0]->GetPosition2Coordinate()->SetValue(p2);
    axes_[0]->SetRange(b[2 * u], b[2 * u + 1]);
    for (int i = 0; i < 3; ++i)
        p1[i] = p2[i] = b[2 * i];
    p1[v] = b[2 * v + 1];
    axes_[1]->GetPositionCoordinate()->SetValue(p1);
    axes_[1]->GetPosition2Coordinate()->SetValue(p2);
    axes_[1]->SetRange(b[2 * v + 1], b[2 * v]);
    double pos[3] = {focal[0], focal[1], focal[2]}, up[3] = {0, 0, 0};
    // A y-normal plane is seen from -y so that x runs to the right with z up.
    pos[n] += (n == 1 ? -1.0 : 1.0) * 10.0 * std::max(w, h);
    up[v] = 1;
    vtkCamera* cam = renderer()->GetActiveCamera();
    cam->ParallelProjectionOn();
    cam->SetFocalPoint(focal);
    cam->SetPosition(pos);
    cam->SetViewUp(up);
    cam->SetParallelScale(scale);
    renderer()->ResetCameraClippingRange();
    requestRender();
}

void FieldView::resizeGL(int w, int h) {
    VtkWidget::resizeGL(w, h);
    fitCamera();
}

} // namespace yee::ui
