#include "ui/SceneView.hpp"

#include <QKeyEvent>
#include <QMouseEvent>

#include <cmath>

#include <vtkCamera.h>
#include <vtkCellPicker.h>
#include <vtkCubeAxesActor.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkTextProperty.h>

#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"

namespace yee::ui {

SceneView::SceneView(SceneDocument* doc, QWidget* parent)
    : VtkWidget(parent), doc_(doc), axes_(vtkSmartPointer<vtkCubeAxesActor>::New()) {
    setObjectName(QStringLiteral("sceneView"));
    setToolTip(tr("Click: select  \u2022  Shift+drag: move object  \u2022  Ctrl+drag: resize object\n"
                  "Arrows / Page Up / Page Down: nudge by one cell  \u2022  Left drag: rotate, wheel: zoom"));
    axes_->SetCamera(renderer()->GetActiveCamera());
    axes_->SetXTitle(tr("x (um)").toUtf8().constData());
    axes_->SetYTitle(tr("y (um)").toUtf8().constData());
    axes_->SetZTitle(tr("z (um)").toUtf8().constData());
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

    connect(doc_, &SceneDocument::sceneChanged, this, &SceneView::rebuild);
    connect(doc_, &SceneDocument::sceneReset, this, [this] {
        cameraSet_ = false;
        autoFit_ = true;
    });
    connect(doc_, &SceneDocument::currentItemChanged, this, &SceneView::updateSelection);
    rebuild();
}

SceneView::~SceneView() = default;

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
    updateSelection();
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
