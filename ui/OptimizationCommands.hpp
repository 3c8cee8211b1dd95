#pragma once
/// \file OptimizationCommands.hpp
/// Undo commands of the objective editor, the Optimise panel and the material editor: each replaces the
/// scene's objective, its "optimization" section or one material as a whole (one edit is one step).
#include <QUndoCommand>

#include "yee/scene/Scene.hpp"

namespace yee::ui {

class SceneDocument;

/// Replace the objective (goal and terms).
class SetObjectiveCommand : public QUndoCommand {
public:
    /// `objective` must be what the scene should hold afterwards; `text` is the undo text.
    SetObjectiveCommand(SceneDocument* doc, scene::Objective objective, const QString& text,
                        QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;

private:
    SceneDocument* doc_;
    scene::Objective old_, new_;
};

/// Replace the "optimization" section (optimiser settings, continuation, constraints).
class SetOptimizationCommand : public QUndoCommand {
public:
    /// `optimization` must be what the scene should hold afterwards; `text` is the undo text.
    SetOptimizationCommand(SceneDocument* doc, scene::OptimizationConfig optimization, const QString& text,
                           QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;

private:
    SceneDocument* doc_;
    scene::OptimizationConfig old_, new_;
};

/// Replace one material as a whole (the material editor: its form, constants, poles or library name).
class SetMaterialCommand : public QUndoCommand {
public:
    /// `material` keeps the name of material `index`; `text` is the undo text.
    SetMaterialCommand(SceneDocument* doc, int index, scene::Material material, const QString& text,
                       QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;

private:
    SceneDocument* doc_;
    int index_;
    scene::Material old_, new_;
};

} // namespace yee::ui
