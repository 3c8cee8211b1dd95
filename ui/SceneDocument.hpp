#pragma once
/// \file SceneDocument.hpp
/// The open scene: a yee::scene::Scene, the file it came from, its undo stack, and the current item.
/// Views observe it through signals; every edit goes through a QUndoCommand (SceneCommands.hpp) that
/// calls the primitive mutators below.
#include <QObject>
#include <QString>
#include <QUndoStack>

#include "ui/SceneItem.hpp"

namespace yee::ui {

/// A scene being edited. Owns its undo stack. Not thread-safe: lives on the GUI thread; runs get a
/// copy of scene().
class SceneDocument : public QObject {
    Q_OBJECT
public:
    explicit SceneDocument(QObject* parent = nullptr);

    /// A small valid scene to start from: air box with PML, one material, no objects.
    static scene::Scene defaultScene();

    const scene::Scene& scene() const { return scene_; }
    QUndoStack* undoStack() const { return undo_; }
    /// Absolute path of the scene file, empty for a new scene.
    QString filePath() const { return filePath_; }
    /// Directory against which relative sidecar paths resolve.
    QString baseDir() const;
    /// True when the scene differs from what was last loaded or saved.
    bool isModified() const { return !undo_->isClean(); }
    /// Counts sceneChanged() emissions: two equal revisions are the same scene (an estimate made of
    /// revision N still holds while revision() is N).
    quint64 revision() const { return revision_; }

    /// Replace the document by a new default scene (clears undo history).
    void newScene();
    /// Replace the document by `s` read from `path` (clears undo history, not modified).
    void resetScene(const scene::Scene& s, const QString& path);
    /// Load a scene file. On failure the document is unchanged and `error` explains why. A scene that
    /// parses but would not run (still being worked on) is opened, and `problem` says what is wrong.
    bool load(const QString& path, QString* error = nullptr, QString* problem = nullptr);
    /// Save atomically to `path` (or the current path when empty). On success the document becomes
    /// unmodified and takes `path`; on failure `error` explains why and nothing changes.
    bool save(const QString& path = {}, QString* error = nullptr);

    /// The selected item (shared by the tree, the 3-D view and the property editor).
    ItemRef currentItem() const { return current_; }
    void setCurrentItem(const ItemRef& ref);

    // ---- primitive mutators, called by undo commands only ----

    /// Set one property (canonical value, already checked). Emits itemChanged().
    void applyProperty(const ItemRef& ref, const QString& key, const QVariant& value);
    /// Insert an element at `index` of its list. Emits itemAboutToBeInserted()/itemInserted().
    void insertEntity(int index, const SceneEntity& entity);
    /// Remove and return the element `ref` points at. Emits itemAboutToBeRemoved()/itemRemoved().
    SceneEntity removeEntity(const ItemRef& ref);
    /// Replace object `index` as a whole (move / resize in one step). Emits itemChanged().
    void replaceObject(int index, const scene::Object& object);
    /// Replace the gradient recorder chain. Emits itemChanged() for the Gradient item.
    void setRecorderChain(const std::vector<scene::RecorderModule>& chain);
    /// Replace the objective's terms. Emits itemChanged() for the Objective item.
    void setObjectiveTerms(const std::vector<scene::ObjectiveTerm>& terms);
    /// Replace the whole objective (goal and terms). Emits itemChanged() for the Objective item.
    void setObjective(const scene::Objective& objective);
    /// Replace material `index` as a whole (its name unchanged). Emits itemChanged() for it.
    void replaceMaterial(int index, const scene::Material& material);
    /// Replace the "optimization" section. Emits sceneChanged().
    void setOptimization(const scene::OptimizationConfig& optimization);

signals:
    /// The whole scene was replaced (load, new).
    void sceneReset();
    /// A property of `ref` changed (`key` empty: several properties).
    void itemChanged(const yee::ui::ItemRef& ref, const QString& key);
    void itemAboutToBeInserted(const yee::ui::ItemRef& ref);
    void itemInserted(const yee::ui::ItemRef& ref);
    void itemAboutToBeRemoved(const yee::ui::ItemRef& ref);
    void itemRemoved(const yee::ui::ItemRef& ref);
    /// Emitted after every change of the scene, whatever its kind (for estimates and the 3-D view).
    void sceneChanged();
    void currentItemChanged(const yee::ui::ItemRef& ref);
    void filePathChanged(const QString& path);
    void modifiedChanged(bool modified);

private:
    scene::Scene scene_;
    QString filePath_;
    QUndoStack* undo_;
    ItemRef current_;
    quint64 revision_ = 0;
};

} // namespace yee::ui
