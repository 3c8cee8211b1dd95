#include "ui/FieldView.hpp"

#include <algorithm>
#include <cmath>

#include <vtkActor.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkColorTransferFunction.h>
#include <vtkFloatArray.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>

namespace yee::ui {

void FieldView::setRangeLocked(bool locked) {
    locked_ = locked;
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
      bar_(vtkSmartPointer<vtkScalarBarActor>::New()), title_(vtkSmartPointer<vtkTextActor>::New()) {
    setObjectName(QStringLiteral("fieldView"));
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
    colors_->AddRGBPoint(-range_, 0.230, 0.299, 0.754);
    colors_->AddRGBPoint(0.0, 0.865, 0.865, 0.865);
    colors_->AddRGBPoint(range_, 0.706, 0.016, 0.150);
    actor_->GetMapper()->SetScalarRange(-range_, range_);
    actor_->VisibilityOn();
    bar_->SetTitle(quantity.toUtf8().constData());
    bar_->VisibilityOn();
    title_->SetInput(title.toUtf8().constData());

    fitCamera();
    requestRender();
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
    const double scale = 1.08 * std::max(0.5 * h, 0.5 * w / (aspect * kPlaneFraction));
    const double viewWidth = 2.0 * scale * aspect;
    double focal[3] = {0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5])};
    focal[u] += (0.5 - 0.5 * kPlaneFraction) * viewWidth;
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
