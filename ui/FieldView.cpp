#include "ui/FieldView.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

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

namespace {
/// Round ticks inside [lo, hi]: the first and last tick and their count (steps of 1, 2 or 5 times a
/// power of ten, as near six ticks as they come); [lo, hi] itself with two ticks otherwise.
std::tuple<double, double, int> niceTicks(double lo, double hi) {
    const double range = hi - lo;
    if (!(range > 0))
        return {lo, hi, 2};
    const double p = std::pow(10.0, std::floor(std::log10(range / 6)));
    std::tuple<double, double, int> best{lo, hi, 2};
    int bestMiss = 1 << 30;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        const double step = m * p;
        const double first = std::ceil(lo / step - 1e-9) * step, last = std::floor(hi / step + 1e-9) * step;
        const int count = int(std::lround((last - first) / step)) + 1;
        if (count >= 2 && std::abs(count - 6) < bestMiss) {
            bestMiss = std::abs(count - 6);
            best = {first, last, count};
        }
    }
    return best;
}
} // namespace

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
        axis->AdjustLabelsOff();
        axis->LabelVisibilityOff(); // drawn as text actors (exact round values, never "-2.2e-16")
        axis->TitleVisibilityOff(); // placed by fitCamera() clear of the labels
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
    for (auto& label : tickLabels_)
        renderer()->RemoveViewProp(label);
    tickLabels_.clear();
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
        axes_[i]->SetTitle("");
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

QStringList FieldView::tickLabels(int which) const {
    // fitCamera() adds the horizontal axis's labels first, then the vertical one's, then both titles.
    QStringList out;
    const int n0 = axes_[0]->GetNumberOfLabels(), n1 = axes_[1]->GetNumberOfLabels();
    for (int k = 0; k < std::min(int(tickLabels_.size()), n0 + n1); ++k)
        if ((k < n0) == (which == 0))
            out << QString::fromUtf8(tickLabels_[std::size_t(k)]->GetInput());
    return out;
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
    // Room for the axes' labels and titles: ~80 px on the left, ~60 px below.
    const double marginX = std::clamp(80.0 / std::max(1, width()), 0.05, 0.25);
    const double marginY = std::clamp(60.0 / std::max(1, height()), 0.05, 0.25);
    const double kUsable = kPlaneFraction - marginX;
    const double scale = 1.04 * std::max(0.5 * h / (1.0 - marginY), 0.5 * w / (aspect * kUsable));
    const double viewWidth = 2.0 * scale * aspect;
    double focal[3] = {0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5])};
    focal[u] += (0.5 - 0.5 * kUsable - marginX) * viewWidth;
    focal[v] -= 0.5 * marginY * 2.0 * scale;
    // The horizontal axis runs along the lower edge (labels below it), the vertical one down the left
    // edge from top to bottom (labels to its left, so its range runs from the top value down). Each
    // spans its round ticks inside the slice (steps of 1, 2 or 5 times a power of ten), one label each.
    for (auto& label : tickLabels_)
        renderer()->RemoveViewProp(label);
    tickLabels_.clear();
    for (int which = 0; which < 2; ++which) {
        const int a = which == 0 ? u : v;
        const auto [first, last, count] = niceTicks(b[2 * a], b[2 * a + 1]);
        double p1[3], p2[3];
        for (int i = 0; i < 3; ++i)
            p1[i] = p2[i] = b[2 * i];
        p1[a] = which == 0 ? first : last;
        p2[a] = which == 0 ? last : first;
        axes_[which]->GetPositionCoordinate()->SetValue(p1);
        axes_[which]->GetPosition2Coordinate()->SetValue(p2);
        axes_[which]->SetRange(p1[a], p2[a]);
        axes_[which]->SetNumberOfLabels(count);
        // Labels 8 px outside the edge: below the horizontal axis, left of the vertical one.
        const double px = 2.0 * scale / std::max(1, height());
        const double step = count > 1 ? (last - first) / (count - 1) : 0.0;
        for (int k = 0; k < count; ++k) {
            double value = first + k * step;
            if (std::abs(value) < 1e-9 * std::max(std::abs(step), 1e-30))
                value = 0;
            auto label = vtkSmartPointer<vtkTextActor>::New();
            label->SetInput(QString::number(value, 'g', 4).toUtf8().constData());
            label->GetPositionCoordinate()->SetCoordinateSystemToWorld();
            double at[3];
            for (int i = 0; i < 3; ++i)
                at[i] = b[2 * i];
            at[a] = value;
            const int other = which == 0 ? v : u;
            at[other] -= 8 * px;
            label->GetPositionCoordinate()->SetValue(at);
            vtkTextProperty* t = label->GetTextProperty();
            t->SetFontSize(11);
            t->SetColor(0.1, 0.1, 0.1);
            t->ShadowOff();
            if (which == 0) {
                t->SetJustificationToCentered();
                t->SetVerticalJustificationToTop();
            } else {
                t->SetJustificationToRight();
                t->SetVerticalJustificationToCentered();
            }
            renderer()->AddViewProp(label);
            tickLabels_.push_back(label);
        }
    }
    // Axis titles: below the horizontal labels, left of the vertical ones (turned to read upwards).
    for (int which = 0; which < 2; ++which) {
        const double px = 2.0 * scale / std::max(1, height());
        auto title = vtkSmartPointer<vtkTextActor>::New();
        title->SetInput(axisTitle(which).toUtf8().constData());
        title->GetPositionCoordinate()->SetCoordinateSystemToWorld();
        double at[3];
        for (int i = 0; i < 3; ++i)
            at[i] = b[2 * i];
        const int a = which == 0 ? u : v, other = which == 0 ? v : u;
        at[a] = 0.5 * (b[2 * a] + b[2 * a + 1]);
        at[other] -= (which == 0 ? 26 : 42) * px;
        title->GetPositionCoordinate()->SetValue(at);
        vtkTextProperty* t = title->GetTextProperty();
        t->SetFontSize(13);
        t->SetColor(0.1, 0.1, 0.1);
        t->ShadowOff();
        t->SetJustificationToCentered();
        // Turned a quarter to read upwards, the vertical title's "bottom" faces the labels.
        if (which == 1) {
            t->SetOrientation(90);
            t->SetVerticalJustificationToBottom();
        } else {
            t->SetVerticalJustificationToTop();
        }
        renderer()->AddViewProp(title);
        tickLabels_.push_back(title); // removed with the labels (tickLabels() skips it)
    }
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
