#include "ui/OptimizationCommands.hpp"

#include "ui/SceneDocument.hpp"

namespace yee::ui {

SetObjectiveCommand::SetObjectiveCommand(SceneDocument* doc, scene::Objective objective, const QString& text,
                                         QUndoCommand* parent)
    : QUndoCommand(text, parent), doc_(doc), old_(doc->scene().objective), new_(std::move(objective)) {}

void SetObjectiveCommand::redo() {
    doc_->setObjective(new_);
}

void SetObjectiveCommand::undo() {
    doc_->setObjective(old_);
}

SetOptimizationCommand::SetOptimizationCommand(SceneDocument* doc, scene::OptimizationConfig optimization,
                                               const QString& text, QUndoCommand* parent)
    : QUndoCommand(text, parent), doc_(doc), old_(doc->scene().optimization), new_(std::move(optimization)) {}

void SetOptimizationCommand::redo() {
    doc_->setOptimization(new_);
}

void SetOptimizationCommand::undo() {
    doc_->setOptimization(old_);
}

SetMaterialCommand::SetMaterialCommand(SceneDocument* doc, int index, scene::Material material,
                                       const QString& text, QUndoCommand* parent)
    : QUndoCommand(text, parent), doc_(doc), index_(index), old_(doc->scene().materials[std::size_t(index)]),
      new_(std::move(material)) {}

void SetMaterialCommand::redo() {
    doc_->replaceMaterial(index_, new_);
}

void SetMaterialCommand::undo() {
    doc_->replaceMaterial(index_, old_);
}

} // namespace yee::ui
