#include "ui/SceneAxes.hpp"

#include <vtkAxisActor.h>
#include <vtkObjectFactory.h>
#include <vtkTextActor.h>
#include <vtkViewport.h>

#include <algorithm>
#include <cmath>

namespace yee::ui {

vtkStandardNewMacro(SceneAxes);

namespace {
/// The axis' 2-D text actors: private members of vtkAxisActor (VTK 9.1) without getters. Names in an
/// explicit instantiation are exempt from access checks ([temp.spec.general]), so this template hands
/// out the member pointers, read-only use, nothing else of the class touched.
template <class Tag, typename Tag::type Member> struct MemberOf {
    friend typename Tag::type member(Tag) { return Member; }
};
struct TitleTag {
    using type = vtkTextActor* vtkAxisActor::*;
    friend type member(TitleTag);
};
struct LabelsTag {
    using type = vtkTextActor** vtkAxisActor::*;
    friend type member(LabelsTag);
};
template struct MemberOf<TitleTag, &vtkAxisActor::TitleActor2D>;
template struct MemberOf<LabelsTag, &vtkAxisActor::LabelActors2D>;
/// Which of the four aligned axes of each direction the cube draws this frame (private as well).
struct RenderedX {
    using type = int (vtkCubeAxesActor::*)[4];
    friend type member(RenderedX);
};
struct RenderedY {
    using type = int (vtkCubeAxesActor::*)[4];
    friend type member(RenderedY);
};
struct RenderedZ {
    using type = int (vtkCubeAxesActor::*)[4];
    friend type member(RenderedZ);
};
struct CountX {
    using type = int vtkCubeAxesActor::*;
    friend type member(CountX);
};
struct CountY {
    using type = int vtkCubeAxesActor::*;
    friend type member(CountY);
};
struct CountZ {
    using type = int vtkCubeAxesActor::*;
    friend type member(CountZ);
};
template struct MemberOf<RenderedX, &vtkCubeAxesActor::RenderAxesX>;
template struct MemberOf<RenderedY, &vtkCubeAxesActor::RenderAxesY>;
template struct MemberOf<RenderedZ, &vtkCubeAxesActor::RenderAxesZ>;
template struct MemberOf<CountX, &vtkCubeAxesActor::NumberOfAxesX>;
template struct MemberOf<CountY, &vtkCubeAxesActor::NumberOfAxesY>;
template struct MemberOf<CountZ, &vtkCubeAxesActor::NumberOfAxesZ>;

struct AxisText {
    static vtkTextActor* title(vtkAxisActor* a) { return a->*member(TitleTag{}); }
    static vtkTextActor* label(vtkAxisActor* a, int i) { return (a->*member(LabelsTag{}))[i]; }
};

using Box = std::array<double, 4>; // xmin, xmax, ymin, ymax

bool overlaps(const Box& a, const Box& b, double gap) {
    return a[0] < b[1] + gap && b[0] < a[1] + gap && a[2] < b[3] + gap && b[2] < a[3] + gap;
}

/// Where `text` is drawn, in viewport pixels (its bounding box is relative to its position).
Box boxOf(vtkViewport* v, vtkTextActor* text) {
    Box b;
    text->GetBoundingBox(v, b.data());
    const double* p = text->GetPosition();
    return {b[0] + p[0], b[1] + p[0], b[2] + p[1], b[3] + p[1]};
}

std::array<double, 2> toDisplay(vtkViewport* v, const double p[3]) {
    v->SetWorldPoint(p[0], p[1], p[2], 1.0);
    v->WorldToDisplay();
    double d[3];
    v->GetDisplayPoint(d);
    return {d[0], d[1]};
}
} // namespace

int SceneAxes::RenderOverlay(vtkViewport* viewport) {
    // Every pass before this one may have rebuilt the axes (and put the titles back on the labels):
    // the 2-D text is drawn here, as it stands now.
    for (auto& b : boxes_)
        b = Boxes{};
    if (GetUse2DMode())
        placeTitles(viewport);
    return vtkCubeAxesActor::RenderOverlay(viewport);
}

int SceneAxes::RenderOpaqueGeometry(vtkViewport* viewport) {
    // The geometry pass comes first and builds the axes of the frame: decide here which are drawn.
    hideEndOnAxes(viewport);
    return vtkCubeAxesActor::RenderOpaqueGeometry(viewport);
}

void SceneAxes::hideEndOnAxes(vtkViewport* viewport) {
    const double* b = GetBounds();
    const double lo[3] = {b[0], b[2], b[4]};
    const auto d0 = toDisplay(viewport, lo);
    for (int a = 0; a < 3; ++a) {
        double hi[3] = {lo[0], lo[1], lo[2]};
        hi[a] = b[2 * a + 1];
        const auto d1 = toDisplay(viewport, hi);
        const vtkTypeBool show = std::hypot(d1[0] - d0[0], d1[1] - d0[1]) >= kMinAxisPixels ? 1 : 0;
        // The line, its ticks, and its labels and title (one flag in vtkCubeAxesActor); each setter marks
        // the actor modified only on a change, and the axes are rebuilt from them in this very pass.
        if (a == 0) {
            SetXAxisVisibility(show);
            SetXAxisTickVisibility(show);
            SetXAxisLabelVisibility(show);
        } else if (a == 1) {
            SetYAxisVisibility(show);
            SetYAxisTickVisibility(show);
            SetYAxisLabelVisibility(show);
        } else {
            SetZAxisVisibility(show);
            SetZAxisTickVisibility(show);
            SetZAxisLabelVisibility(show);
        }
    }
}

void SceneAxes::placeTitles(vtkViewport* viewport) {
    vtkAxisActor** axes[3] = {XAxes, YAxes, ZAxes};
    const int* rendered[3] = {this->*member(RenderedX{}), this->*member(RenderedY{}),
                              this->*member(RenderedZ{})};
    const int counts[3] = {this->*member(CountX{}), this->*member(CountY{}), this->*member(CountZ{})};
    for (int a = 0; a < 3; ++a)
        for (int i = 0; i < counts[a]; ++i) {
            vtkAxisActor* axis = axes[a][rendered[a][i]];
            if (axis && axis->GetVisibility() && axis->GetTitleVisibility())
                placeTitle(viewport, axis, a);
        }
}

void SceneAxes::placeTitle(vtkViewport* viewport, vtkAxisActor* axis, int type) {
    vtkTextActor* title = AxisText::title(axis);
    if (!title || !title->GetInput() || !*title->GetInput())
        return;
    Boxes& out = boxes_[std::size_t(type)];
    out = Boxes{}; // one drawn axis of each direction (outer edges)
    if (axis->GetLabelVisibility())
        for (int i = 0; i < axis->GetNumberOfLabelsBuilt(); ++i)
            if (vtkTextActor* l = AxisText::label(axis, i); l && l->GetInput() && *l->GetInput()) {
                out.labels.push_back(boxOf(viewport, l));
            }
    const Box t = boxOf(viewport, title);
    // Outwards: perpendicular to the axis on screen, on the side away from the box's centre.
    const auto p1 = toDisplay(viewport, axis->GetPoint1()), p2 = toDisplay(viewport, axis->GetPoint2());
    const double* bb = GetBounds();
    const double centre3[3] = {(bb[0] + bb[1]) / 2, (bb[2] + bb[3]) / 2, (bb[4] + bb[5]) / 2};
    const auto c = toDisplay(viewport, centre3);
    double ux = p2[0] - p1[0], uy = p2[1] - p1[1];
    const double len = std::hypot(ux, uy);
    double nx = 0, ny = -1; // an axis seen end-on: downwards
    if (len > 1e-6) {
        ux /= len;
        uy /= len;
        nx = -uy;
        ny = ux;
        const double mx = (p1[0] + p2[0]) / 2 - c[0], my = (p1[1] + p2[1]) / 2 - c[1];
        if (nx * mx + ny * my < 0) {
            nx = -nx;
            ny = -ny;
        }
    }
    // Step outwards until the title clears every label (the boxes are exact, so is the step's end).
    const int* size = viewport->GetSize();
    double shift = 0;
    auto moved = [&](double s) { return Box{t[0] + s * nx, t[1] + s * nx, t[2] + s * ny, t[3] + s * ny}; };
    auto clear = [&](const Box& b) {
        return std::none_of(out.labels.begin(), out.labels.end(),
                            [&](const Box& l) { return overlaps(b, l, kTitleGap); });
    };
    while (!clear(moved(shift)) && shift < 400)
        shift += 1.0;
    Box placed = moved(shift);
    // Inside the view: a title pushed past the edge comes back (over the box's side, not the labels').
    const double dx = std::max(0.0, 2.0 - placed[0]) - std::max(0.0, placed[1] - (size[0] - 2.0));
    const double dy = std::max(0.0, 2.0 - placed[2]) - std::max(0.0, placed[3] - (size[1] - 2.0));
    placed = {placed[0] + dx, placed[1] + dx, placed[2] + dy, placed[3] + dy};
    if (shift > 0 || dx != 0 || dy != 0) {
        const double* pos = title->GetPosition();
        title->SetPosition(pos[0] + shift * nx + dx, pos[1] + shift * ny + dy);
    }
    out.title = placed;
    out.drawn = true;
}

} // namespace yee::ui
