#pragma once
/// \file SceneView.hpp
/// The central 3-D view of the scene. Click an item to select it (the tree follows); Shift+drag moves
/// the selected object in the view plane, Ctrl+drag resizes it; arrow keys and Page Up/Down nudge it by
/// one cell. Every change is an undoable command.
#include "ui/SceneActors.hpp"
#include "ui/VtkWidget.hpp"

#include <QSet>

namespace yee::ui {

class SceneAxes;
class SceneLegend;
class SceneDocument;

/// VTK view of a SceneDocument.
class SceneView : public VtkWidget {
    Q_OBJECT
public:
    explicit SceneView(SceneDocument* doc, QWidget* parent = nullptr);
    ~SceneView() override;

    /// Item drawn at widget position `pos` (logical pixels), or an invalid ref.
    ItemRef itemAt(const QPoint& pos);
    /// Fit the camera to the domain.
    void resetCamera();
    /// The actors currently shown (for tests and picking).
    const SceneActors& actors() const { return actors_; }
    /// Hide (or show again) the item `ref` in the view only; the scene is unchanged. Kept by name, so
    /// it survives edits that move the item in its list.
    void setItemHidden(const ItemRef& ref, bool hidden);
    /// True when `ref` is hidden in the view.
    bool isItemHidden(const ItemRef& ref) const;
    /// Show or hide a whole class of things (PML, tile cuts, objects, designs, sources, detectors).
    void setLayerVisible(SceneLayer layer, bool visible);
    bool isLayerVisible(SceneLayer layer) const { return layers_[std::size_t(layer)]; }
    /// Show or hide the legend (what each colour means), drawn in the view's top-left corner.
    void setLegendVisible(bool visible);
    bool isLegendVisible() const { return legendVisible_; }
    /// Look along an axis: from the +axis side (`sign` > 0, looking towards -axis) or the -axis side.
    void viewAlong(int axis, int sign);
    /// Orthographic (parallel) projection instead of perspective.
    void setOrthographic(bool on);
    bool isOrthographic() const;
    /// The legend's box in device pixels (of grabFramebuffer()): fixed-height rows as wide as the longest
    /// entry, the same size in every window size, in the top-left corner unless the axes' labels are
    /// there (see frameRendered).
    QRect legendRect() const;
    /// The axes (titles, tick labels), for tests.
    SceneAxes* axes() const;

signals:
    /// The tile grid cannot be drawn (message names the field), or "" when it can again.
    void tileProblemChanged(const QString& message);

protected:
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void resizeGL(int w, int h) override;
    /// Put the legend's box where legendRect() says (after a resize or a new legend).
    void placeLegend();
    /// Moves the legend to the corner of the view where it covers the least of the axes' labels and
    /// titles (top-left unless that covers some and another corner covers less).
    bool frameRendered() override;
    void wheelEvent(QWheelEvent* e) override;

private:
    void rebuild();
    void updateSelection();
    /// World point under `pos` at the depth of world point `ref`.
    std::array<double, 3> worldAt(const QPoint& pos, const std::array<double, 3>& ref);
    void nudge(int axis, int sign);

    /// "kind:name" of the element `ref`, the key of hidden items.
    QString hiddenKey(const ItemRef& ref) const;
    void applyHidden();

    void buildLegend();
    /// A box of `size` (device pixels) in `corner` (see legendCorner_), 6 px from the edges.
    QRect rectAt(int corner, QSize size) const;

    SceneDocument* doc_;
    SceneActors actors_;
    QSet<QString> hidden_;
    std::array<bool, std::size_t(SceneLayer::Count)> layers_{true, true, true, true, true, true, true};
    vtkSmartPointer<SceneLegend> legend_;
    bool legendVisible_ = true;
    int legendCorner_ = 0; ///< 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right
    vtkSmartPointer<SceneAxes> axes_;
    bool cameraSet_ = false;
    /// The camera follows the domain (refit on resize) until the user moves it.
    bool autoFit_ = true;
    QString tileProblem_;

    enum class Drag { None, Click, Move, Resize };
    Drag drag_ = Drag::None;
    QPoint pressPos_;
    int dragObject_ = -1;
    int dragKey_ = 0;
    std::array<double, 3> dragCenter0_{}, dragExtents0_{}, dragGrab_{}, dragSign_{};
};

} // namespace yee::ui
