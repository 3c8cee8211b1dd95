#pragma once
/// \file SceneCommands.hpp
/// Every edit of a scene is one of these QUndoCommands. redo() does the work, undo() reverts it;
/// they touch only the scene model (through SceneDocument's primitive mutators).
#include <QUndoCommand>
#include <QVariant>

#include "ui/SceneItem.hpp"

namespace yee::ui {

class SceneDocument;

/// Command ids for mergeWith().
enum CommandId { SetPropertyId = 1, MoveResizeObjectId = 2, SetRecorderChainId = 3 };

/// A fresh non-zero merge key for one interaction (one drag, one editing session of a spin box).
int newMergeKey();

/// Set one property of one item. Successive edits of the same property with the same non-zero
/// `mergeKey` (one drag, one spin box being scrolled) fold into one undo step.
class SetPropertyCommand : public QUndoCommand {
public:
    /// `value` must be canonical and checked (see checkProperty()).
    SetPropertyCommand(SceneDocument* doc, const ItemRef& ref, const QString& key, const QVariant& value,
                       int mergeKey = 0, QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;
    int id() const override { return SetPropertyId; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    SceneDocument* doc_;
    ItemRef ref_;
    QString key_;
    QVariant old_, new_;
    int mergeKey_;
};

/// Add a material, object, source, detector or design region at `index` (-1: at the end).
class AddItemCommand : public QUndoCommand {
public:
    AddItemCommand(SceneDocument* doc, const SceneEntity& entity, int index = -1,
                   QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;
    /// Where the item went.
    ItemRef ref() const { return {entityKind(entity_), index_}; }

private:
    SceneDocument* doc_;
    SceneEntity entity_;
    int index_;
};

/// Remove a material, object, source, detector or design region.
class RemoveItemCommand : public QUndoCommand {
public:
    RemoveItemCommand(SceneDocument* doc, const ItemRef& ref, QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;

    /// Why `ref` cannot be removed (a material still used, a detector used by the objective), or an
    /// empty string when it can.
    static QString blocker(const scene::Scene& s, const ItemRef& ref);

private:
    SceneDocument* doc_;
    ItemRef ref_;
    SceneEntity entity_;
};

/// Move and/or resize an object in one step. Polygon vertices move with the centre. Steps of the same
/// object with the same non-zero `mergeKey` (one drag in the 3-D view) fold into one undo step.
class MoveResizeObjectCommand : public QUndoCommand {
public:
    /// Move object `index` to `center` (um) with bounding `extents` (um; see reshaped()). Pass the
    /// object's own extents to only move.
    MoveResizeObjectCommand(SceneDocument* doc, int index, const scene::Vec3& center,
                            const scene::Vec3& extents, int mergeKey = 0, QUndoCommand* parent = nullptr);
    /// Convenience: move only.
    static MoveResizeObjectCommand* move(SceneDocument* doc, int index, const scene::Vec3& center,
                                         int mergeKey = 0);
    void redo() override;
    void undo() override;
    int id() const override { return MoveResizeObjectId; }
    bool mergeWith(const QUndoCommand* other) override;

    /// The two in-plane axes (u, v) of a polygon extruded along `axis`, in increasing axis order.
    static std::array<int, 2> planeAxes(int axis);
    /// Bounding extents of an object (box size; 2r or height for spheres and cylinders).
    static scene::Vec3 extentsOf(const scene::Object& o);
    /// `o` moved to `center` and resized to bounding `extents`: a box takes them as its size; a sphere's
    /// radius is half the largest extent; a cylinder takes its height along its axis and its radius from
    /// the largest transverse extent; polygon vertices scale about the centre in their plane.
    static scene::Object reshaped(const scene::Object& o, const scene::Vec3& center,
                                  const scene::Vec3& extents);

private:
    SceneDocument* doc_;
    int index_;
    scene::Object old_, new_;
    int mergeKey_;
};

/// Replace the gradient recorder chain (add, remove, reorder or edit a module).
class SetRecorderChainCommand : public QUndoCommand {
public:
    /// Edits with the same non-zero `mergeKey` (a spin box of one module being scrolled) fold together.
    SetRecorderChainCommand(SceneDocument* doc, std::vector<scene::RecorderModule> chain, int mergeKey = 0,
                            QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;
    int id() const override { return SetRecorderChainId; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    SceneDocument* doc_;
    std::vector<scene::RecorderModule> old_, new_;
    int mergeKey_;
};

/// Replace the objective's terms (add or remove a term).
class SetObjectiveTermsCommand : public QUndoCommand {
public:
    SetObjectiveTermsCommand(SceneDocument* doc, std::vector<scene::ObjectiveTerm> terms, const QString& text,
                             QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;

private:
    SceneDocument* doc_;
    std::vector<scene::ObjectiveTerm> old_, new_;
};

} // namespace yee::ui
