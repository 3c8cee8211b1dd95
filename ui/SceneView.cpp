#include "ui/SceneView.hpp"

#include <QFontMetrics>

#include <QKeyEvent>
#include <QMouseEvent>

#include <cmath>

#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCellPicker.h>
#include <vtkCubeAxesActor.h>
#include <vtkLegendBoxActor.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkProp.h>
#include <vtkProperty.h>
#include <vtkProperty2D.h>
#include <vtkRenderer.h>
#include <vtkTextProperty.h>

#include "ui/SceneAxes.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneLegend.hpp"

namespace yee::ui {

SceneView::SceneView(SceneDocument* doc, QWidget* parent)
    : VtkWidget(parent), doc_(doc), legend_(vtkSmartPointer<SceneLegend>::New()),
      axes_(vtkSmartPointer<SceneAxes>::New()) {
    setObjectName(QStringLiteral("sceneView"));
    setToolTip(tr("Click: select  \u2022  Shift+drag: move object  \u2022  Ctrl+drag: resize object\n"
                  "Arrows / Page Up / Page Down: nudge by one cell  \u2022  Left drag: rotate, wheel: zoom"));
    axes_->SetCamera(renderer()->GetActiveCamera());
    axes_->SetXTitle(tr("x (\u00b5m)").toUtf8().constData());
    axes_->SetYTitle(tr("y (\u00b5m)").toUtf8().constData());
    axes_->SetZTitle(tr("z (\u00b5m)").toUtf8().constData());
    // Titles and labels as 2-D FreeType text: the default 3-D vector text is ASCII only and drops the
    // "µ" of "µm" (drawing "x (m)").
    axes_->SetUse2DMode(1);
    axes_->SetFlyModeToOuterEdges();
    axes_->SetScreenSize(7.0);
    axes_->XAxisMinorTickVisibilityOff();
    axes_->YAxisMinorTickVisibilityOff();
    axes_->ZAxisMinorTickVisibilityOff();
    axes_->SetGridLineLocation(vtkCubeAxesActor::VTK_GRID_LINES_FURTHEST);
    for (int a = 0; a < 3; ++a) {
        axes_->GetTitleTextProperty(a)->SetColor(0.2, 0.2, 0.2);
        axes_->GetLabelTextProperty(a)->SetColor(0.25, 0.25, 0.25);
    }
    axes_->GetXAxesLinesProperty()->SetColor(0.4, 0.4, 0.4);
    axes_->GetYAxesLinesProperty()->SetColor(0.4, 0.4, 0.4);
    axes_->GetZAxesLinesProperty()->SetColor(0.4, 0.4, 0.4);
    axes_->PickableOff();
    legend_->PickableOff();
    legend_->BorderOn();
    legend_->BoxOn();
    legend_->GetBoxProperty()->SetColor(1, 1, 1);
    legend_->GetBoxProperty()->SetOpacity(0.85);
    legend_->GetEntryTextProperty()->SetColor(0.1, 0.1, 0.1);
    legend_->GetEntryTextProperty()->SetFontSize(12);
    legend_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();

    connect(doc_, &SceneDocument::sceneChanged, this, &SceneView::rebuild);
    connect(doc_, &SceneDocument::sceneReset, this, [this] {
        cameraSet_ = false;
        autoFit_ = true;
    });
    connect(doc_, &SceneDocument::currentItemChanged, this, &SceneView::updateSelection);
    rebuild();
}

SceneView::~SceneView() = default;

SceneAxes* SceneView::axes() const {
    return axes_;
}

void SceneView::rebuild() {
    vtkRenderer* r = renderer();
    for (const auto& p : actors_.props)
        r->RemoveViewProp(p.prop);
    actors_ = buildSceneActors(doc_->scene());
    for (const auto& p : actors_.props)
        r->AddViewProp(p.prop);
    axes_->SetBounds(actors_.bounds.data());
    r->AddViewProp(axes_);
    if (actors_.tileProblem != tileProblem_) {
        tileProblem_ = actors_.tileProblem;
        emit tileProblemChanged(tileProblem_);
    }
    if (!cameraSet_)
        resetCamera();
    applyHidden();
    buildLegend();
    updateSelection();
}

void SceneView::buildLegend() {
    vtkRenderer* r = renderer();
    r->RemoveViewProp(legend_);
    const auto& entries = actors_.legend;
    if (!legendVisible_ || entries.empty())
        return;
    // A filled square as every entry's symbol.
    vtkNew<vtkPoints> pts;
    pts->InsertNextPoint(0, 0, 0);
    pts->InsertNextPoint(1, 0, 0);
    pts->InsertNextPoint(1, 1, 0);
    pts->InsertNextPoint(0, 1, 0);
    vtkNew<vtkCellArray> quad;
    const vtkIdType ids[4] = {0, 1, 2, 3};
    quad->InsertNextCell(4, ids);
    vtkNew<vtkPolyData> square;
    square->SetPoints(pts);
    square->SetPolys(quad);
    legend_->SetNumberOfEntries(int(entries.size()));
    for (int i = 0; i < int(entries.size()); ++i) {
        const auto& e = entries[std::size_t(i)];
        double rgb[3] = {e.color.redF(), e.color.greenF(), e.color.blueF()};
        // A space between the swatch and its text (the legend box puts the text right against it).
        legend_->SetEntry(i, square, (QStringLiteral(" ") + e.text).toUtf8().constData(), rgb);
    }
    placeLegend();
    r->AddViewProp(legend_);
}

QRect SceneView::legendRect() const {
    // In pixels, not as a share of the view: VTK fits the text to the box, so a box that grew with the
    // window drew ever larger letters (24 pt at 1600 x 1000). Rows of 20 px, as wide as the longest entry.
    const qreal dpr = devicePixelRatio();
    const int n = int(actors_.legend.size());
    QFont f = font();
    f.setPixelSize(14);
    const QFontMetrics fm(f);
    int text = 0;
    for (const auto& e : actors_.legend)
        text = std::max(text, fm.horizontalAdvance(QStringLiteral(" ") + e.text));
    const int rowHeight = 20;
    const int w = std::min(rowHeight + 14 + text, std::max(40, width() / 2));
    const int h = std::min(rowHeight * n + 8, std::max(40, height() * 2 / 3));
    return rectAt(legendCorner_, QSize(int(w * dpr), int(h * dpr)));
}

QRect SceneView::rectAt(int corner, QSize size) const {
    const qreal dpr = devicePixelRatio();
    const int W = int(width() * dpr), H = int(height() * dpr), m = int(6 * dpr);
    const int x = corner % 2 == 0 ? m : W - m - size.width();
    const int y = corner < 2 ? m : H - m - size.height();
    return QRect(QPoint(x, y), size);
}

bool SceneView::frameRendered() {
    if (!legendVisible_ || actors_.legend.empty())
        return false;
    // The axes' text boxes of this frame (VTK pixels, origin bottom-left) against each corner.
    const int H = int(height() * devicePixelRatio());
    auto covered = [&](const QRect& box) {
        long long area = 0;
        for (int a = 0; a < 3; ++a) {
            const SceneAxes::Boxes& b = axes_->boxes(a);
            if (!b.drawn)
                continue;
            std::vector<std::array<double, 4>> all = b.labels;
            all.push_back(b.title);
            for (const auto& t : all) {
                const QRect r(QPoint(static_cast<int>(t[0]), H - static_cast<int>(t[3])),
                              QPoint(static_cast<int>(t[1]), H - static_cast<int>(t[2])));
                const QRect i = r.intersected(box);
                if (!i.isEmpty())
                    area += static_cast<long long>(i.width()) * i.height();
            }
        }
        return area;
    };
    const QSize size = legendRect().size();
    int best = legendCorner_;
    long long least = covered(rectAt(legendCorner_, size));
    if (least == 0)
        return false;
    for (int c = 0; c < 4; ++c)
        if (const long long a = covered(rectAt(c, size)); a < least) {
            least = a;
            best = c;
        }
    if (best == legendCorner_)
        return false;
    legendCorner_ = best;
    placeLegend();
    return true;
}

void SceneView::placeLegend() {
    const QRect box = legendRect();
    const qreal dpr = devicePixelRatio();
    const double w = std::max(1.0, width() * dpr), h = std::max(1.0, height() * dpr);
    // VTK's normalised viewport runs upwards from the bottom-left corner.
    legend_->GetPositionCoordinate()->SetValue(box.left() / w, 1.0 - (box.top() + box.height()) / h);
    legend_->GetPosition2Coordinate()->SetValue(box.width() / w, box.height() / h);
}

void SceneView::setLegendVisible(bool visible) {
    legendVisible_ = visible;
    buildLegend();
    requestRender();
}

void SceneView::setLayerVisible(SceneLayer layer, bool visible) {
    layers_[std::size_t(layer)] = visible;
    applyHidden();
    requestRender();
}

void SceneView::viewAlong(int axis, int sign) {
    vtkCamera* cam = renderer()->GetActiveCamera();
    const auto& b = actors_.bounds;
    const double c[3] = {0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5])};
    double pos[3] = {c[0], c[1], c[2]};
    pos[axis] += sign > 0 ? 1.0 : -1.0;
    cam->SetFocalPoint(c);
    cam->SetPosition(pos);
    if (axis == 2)
        cam->SetViewUp(0, 1, 0); // looking along z: y up
    else
        cam->SetViewUp(0, 0, 1);
    renderer()->ResetCamera(b.data());
    renderer()->ResetCameraClippingRange();
    cameraSet_ = true;
    autoFit_ = false;
    requestRender();
}

void SceneView::setOrthographic(bool on) {
    renderer()->GetActiveCamera()->SetParallelProjection(on ? 1 : 0);
    renderer()->ResetCamera(actors_.bounds.data());
    renderer()->ResetCameraClippingRange();
    requestRender();
}

bool SceneView::isOrthographic() const {
    return renderer()->GetActiveCamera()->GetParallelProjection() != 0;
}

QString SceneView::hiddenKey(const ItemRef& ref) const {
    if (!isElementKind(ref.kind) || ref.index < 0 || ref.index >= elementCount(doc_->scene(), ref.kind))
        return {};
    return QString::number(int(ref.kind)) + QLatin1Char(':') +
           QString::fromStdString(entityName(entityAt(doc_->scene(), ref)));
}

void SceneView::setItemHidden(const ItemRef& ref, bool hidden) {
    const QString key = hiddenKey(ref);
    if (key.isEmpty())
        return;
    if (hidden)
        hidden_.insert(key);
    else
        hidden_.remove(key);
    applyHidden();
    requestRender();
}

bool SceneView::isItemHidden(const ItemRef& ref) const {
    const QString key = hiddenKey(ref);
    return !key.isEmpty() && hidden_.contains(key);
}

void SceneView::applyHidden() {
    for (const auto& p : actors_.props) {
        const bool shown = layers_[std::size_t(p.layer)] && !(p.ref.valid() && isItemHidden(p.ref));
        p.prop->SetVisibility(shown ? 1 : 0);
    }
}

void SceneView::resetCamera() {
    vtkCamera* cam = renderer()->GetActiveCamera();
    const auto& b = actors_.bounds;
    const double c[3] = {0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5])};
    cam->SetFocalPoint(c);
    cam->SetPosition(c[0] + 1.0, c[1] - 1.6, c[2] + 1.1);
    cam->SetViewUp(0, 0, 1);
    // ResetCamera fits the bounding sphere to the view angle; use the renderer's aspect so a tall,
    // narrow view still shows the whole domain.
    renderer()->ResetCamera(b.data());
    cam->Zoom(1.05);
    renderer()->ResetCameraClippingRange();
    cameraSet_ = true;
    requestRender();
}

void SceneView::updateSelection() {
    const ItemRef cur = doc_->currentItem();
    for (const auto& p : actors_.props)
        if (p.ref.valid())
            setPropSelected(p, p.ref == cur);
    requestRender();
}

ItemRef SceneView::itemAt(const QPoint& pos) {
    vtkNew<vtkCellPicker> picker;
    picker->SetTolerance(0.002);
    const QPoint d = toVtkDisplay(pos);
    if (!picker->Pick(d.x(), d.y(), 0, renderer()))
        return {};
    vtkProp* picked = picker->GetViewProp();
    for (const auto& p : actors_.props)
        if (p.prop.GetPointer() == picked)
            return p.ref;
    return {};
}

std::array<double, 3> SceneView::worldAt(const QPoint& pos, const std::array<double, 3>& ref) {
    vtkRenderer* r = renderer();
    r->SetWorldPoint(ref[0], ref[1], ref[2], 1.0);
    r->WorldToDisplay();
    const double depth = r->GetDisplayPoint()[2];
    const QPoint d = toVtkDisplay(pos);
    r->SetDisplayPoint(d.x(), d.y(), depth);
    r->DisplayToWorld();
    const double* w = r->GetWorldPoint();
    const double h = w[3] != 0 ? w[3] : 1.0;
    return {w[0] / h, w[1] / h, w[2] / h};
}

void SceneView::mousePressEvent(QMouseEvent* e) {
    setFocus(Qt::MouseFocusReason);
    pressPos_ = e->position().toPoint();
    drag_ = Drag::None;
    if (e->button() == Qt::LeftButton) {
        const ItemRef cur = doc_->currentItem();
        const bool shift = e->modifiers() & Qt::ShiftModifier, ctrl = e->modifiers() & Qt::ControlModifier;
        if ((shift || ctrl) && cur.kind == ItemKind::Object) {
            // Start moving / resizing the selected object; the camera stays where it is.
            vtkNew<vtkCellPicker> picker;
            const QPoint d = toVtkDisplay(pressPos_);
            const auto& o = doc_->scene().objects.at(cur.index);
            dragObject_ = cur.index;
            dragCenter0_ = o.center;
            dragExtents0_ = MoveResizeObjectCommand::extentsOf(o);
            dragGrab_ =
                picker->Pick(d.x(), d.y(), 0, renderer())
                    ? std::array<double, 3>{picker->GetPickPosition()[0], picker->GetPickPosition()[1],
                                            picker->GetPickPosition()[2]}
                    : o.center;
            for (int a = 0; a < 3; ++a)
                dragSign_[a] = dragGrab_[a] >= o.center[a] ? 1.0 : -1.0;
            dragKey_ = newMergeKey();
            drag_ = shift ? Drag::Move : Drag::Resize;
            return;
        }
        if (!shift && !ctrl)
            drag_ = Drag::Click;
    }
    autoFit_ = false; // the camera is the user's now
    VtkWidget::mousePressEvent(e);
}

void SceneView::mouseMoveEvent(QMouseEvent* e) {
    if (drag_ == Drag::Move || drag_ == Drag::Resize) {
        const auto w0 = worldAt(pressPos_, dragGrab_);
        const auto w1 = worldAt(e->position().toPoint(), dragGrab_);
        const double cell = doc_->scene().cellUm;
        auto snap = [cell](double v) { return std::round(v / cell) * cell; };
        scene::Vec3 center = dragCenter0_, extents = dragExtents0_;
        for (int a = 0; a < 3; ++a) {
            const double delta = w1[a] - w0[a];
            if (drag_ == Drag::Move)
                center[a] = dragCenter0_[a] + snap(delta);
            else
                extents[a] = std::max(cell, dragExtents0_[a] + snap(2.0 * delta * dragSign_[a]));
        }
        if (dragObject_ < int(doc_->scene().objects.size()))
            doc_->undoStack()->push(
                new MoveResizeObjectCommand(doc_, dragObject_, center, extents, dragKey_));
        return;
    }
    if (drag_ == Drag::Click && (e->position().toPoint() - pressPos_).manhattanLength() > 4)
        drag_ = Drag::None;
    VtkWidget::mouseMoveEvent(e);
}

void SceneView::mouseReleaseEvent(QMouseEvent* e) {
    if (drag_ == Drag::Move || drag_ == Drag::Resize) {
        drag_ = Drag::None;
        return;
    }
    VtkWidget::mouseReleaseEvent(e);
    if (drag_ == Drag::Click && e->button() == Qt::LeftButton)
        doc_->setCurrentItem(itemAt(e->position().toPoint()));
    drag_ = Drag::None;
}

void SceneView::resizeGL(int w, int h) {
    VtkWidget::resizeGL(w, h);
    placeLegend();
    if (autoFit_)
        resetCamera();
}

void SceneView::wheelEvent(QWheelEvent* e) {
    autoFit_ = false;
    VtkWidget::wheelEvent(e);
}

void SceneView::nudge(int axis, int sign) {
    const ItemRef cur = doc_->currentItem();
    if (cur.kind != ItemKind::Object)
        return;
    scene::Vec3 c = doc_->scene().objects.at(cur.index).center;
    c[axis] += sign * doc_->scene().cellUm;
    doc_->undoStack()->push(MoveResizeObjectCommand::move(doc_, cur.index, c));
}

void SceneView::keyPressEvent(QKeyEvent* e) {
    if (doc_->currentItem().kind == ItemKind::Object) {
        switch (e->key()) {
        case Qt::Key_Left:
            nudge(0, -1);
            return;
        case Qt::Key_Right:
            nudge(0, +1);
            return;
        case Qt::Key_Down:
            nudge(1, -1);
            return;
        case Qt::Key_Up:
            nudge(1, +1);
            return;
        case Qt::Key_PageDown:
            nudge(2, -1);
            return;
        case Qt::Key_PageUp:
            nudge(2, +1);
            return;
        default:
            break;
        }
    }
    VtkWidget::keyPressEvent(e);
}

} // namespace yee::ui
