#pragma once
/// \file MainWindow.hpp
/// The studio's main window: a central 3-D scene view and results tab, docks (scene tree, properties,
/// devices, gradient, run monitor, log), menus whose actions are handled by reaction objects, and the
/// layout persisted with QSettings.
#include <QMainWindow>

#include <optional>

#include "ui/Estimator.hpp"
#include "ui/Runner.hpp"
#include "ui/SceneItem.hpp"

class QDockWidget;
class QTabWidget;
class QTimer;
class QTreeView;

namespace yee::ui {

class DevicesPanel;
class GradientPanel;
class LogPanel;
class MaterialEditor;
class ModePanel;
class ObjectiveEditor;
class OptimizePanel;
class PropertyEditor;
class ResultsView;
class RunHistory;
class RunMonitor;
class SceneDocument;
class SceneTreeModel;
class SceneView;

/// Main window. Owns the document, the runner and the estimator.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    SceneDocument* document() const { return doc_; }
    Runner* runner() const { return runner_; }
    Estimator* estimator() const { return estimator_; }
    SceneView* sceneView() const { return sceneView_; }
    ResultsView* resultsView() const { return results_; }
    SceneTreeModel* treeModel() const { return treeModel_; }
    QTreeView* treeView() const { return tree_; }
    PropertyEditor* propertyEditor() const { return properties_; }
    DevicesPanel* devicesPanel() const { return devices_; }
    GradientPanel* gradientPanel() const { return gradient_; }
    RunMonitor* runMonitor() const { return monitor_; }
    ObjectiveEditor* objectiveEditor() const { return objective_; }
    OptimizePanel* optimizePanel() const { return optimize_; }
    MaterialEditor* materialEditor() const { return materials_; }
    ModePanel* modePanel() const { return modes_; }
    RunHistory* runHistory() const { return history_; }
    LogPanel* log() const { return log_; }
    QTabWidget* centralTabs() const { return tabs_; }

    /// Open a scene file (asks to save unsaved changes first). Returns false on failure (logged).
    bool openScene(const QString& path);
    /// Start a new, default scene (asks to save unsaved changes first).
    bool newScene();
    /// Save to the current file, or ask for a name when there is none or `saveAs`.
    bool saveScene(bool saveAs = false);
    /// Where the save dialog starts: the scene's own file, or for an unsaved scene the folder last used
    /// for scenes with the scene's name.
    QString saveDialogPath() const;
    /// Save to `path` without asking. Returns false on failure (logged).
    bool saveSceneAs(const QString& path);
    /// Open a results file into the results tab. Returns false on failure (logged). Results computed
    /// from another scene than the open one (their scene hash differs) are shown with a warning.
    bool openResults(const QString& path);
    /// Why the results shown may not belong to the open scene, or empty.
    QString resultsWarning() const;
    /// Ask whether to save unsaved changes; false when the user cancels.
    bool maybeSave();

    /// Why the current configuration cannot run forward (`gradient`: value-and-grad), from the latest
    /// estimate, or empty.
    QString runProblem(bool gradient = false) const;
    /// Start a forward (or value-and-grad) run on the worker thread. Returns false (logged, and
    /// explained in `problem`) when it cannot start.
    bool startRun(bool gradient = false, QString* problem = nullptr);
    void cancelRun();
    /// Where the next run writes its results: setResultPath() if set, else a new numbered file in the run
    /// folder (`run-<nnn>.results.h5`), so no run ever overwrites another's results.
    QString resultPathForRun() const;
    /// The folder of this scene's runs: setRunFolder() if set, else `<scene>.runs` next to the scene
    /// file, or a folder of this session in the temporary directory for an unsaved scene.
    QString runFolder() const;
    /// Override the run folder (empty: automatic).
    void setRunFolder(const QString& dir);
    /// Override the results file of the next runs (empty: automatic).
    void setResultPath(const QString& path) { resultPath_ = path; }
    /// Limit the number of steps of the next runs (<0: the scene's duration).
    void setMaxSteps(int steps) { maxSteps_ = steps; }

    // ---- editing the current scene element (tree context menu, Edit menu) ----
    /// Insert a copy of the current element right after it, with a fresh name. False when none.
    bool duplicateCurrent();
    /// Keep a copy of the current element for paste (also as scene JSON text on the clipboard).
    bool copyCurrent();
    /// Insert the copied element (with a fresh name when its own is taken). False when none copied.
    bool paste();
    /// Rename the current element (one undo step; objective terms follow a renamed detector).
    bool renameCurrent(const QString& name);
    /// Hide or show the current element in the 3-D view (the scene is unchanged).
    bool toggleCurrentHidden();
    /// Add an objective term on the current detector (else the first detector that can be one): its
    /// kind's first quantity, integrated over time, weight 1. False (logged, naming the field) when no
    /// detector can take a term or the scene refuses it.
    bool addObjectiveTerm();

    /// The file dialog / message box free part of closing: save the layout.
    void saveLayout() const;
    void restoreLayout();
    /// Reset docks to the default arrangement.
    void resetLayout();

signals:
    /// Something that can change which actions are enabled happened.
    void stateChanged();
    /// A run ended and its results are shown (completed or not).
    void runCompleted(const yee::ui::RunResultPtr& result, const QString& resultPath);

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void childEvent(QChildEvent* e) override;

private:
    void createDocks();
    void createActions();
    QDockWidget* addDock(QWidget* w, const QString& objectName, const QString& title, Qt::DockWidgetArea area,
                         bool scroll = false);
    void updateTitle();
    void applyDefaultSizes();
    void requestEstimate();
    void onRunFinished(const RunResultPtr& result, const QString& path);
    /// A new scene document: old results leave the view, the history follows the scene's run folder.
    void sceneSwitched();
    /// Warn when the results shown were computed from another scene than the open one.
    void checkResultsScene();

    SceneDocument* doc_;
    Runner* runner_;
    Estimator* estimator_;
    SceneTreeModel* treeModel_;
    QTreeView* tree_;
    PropertyEditor* properties_;
    DevicesPanel* devices_;
    GradientPanel* gradient_;
    RunMonitor* monitor_;
    ObjectiveEditor* objective_;
    OptimizePanel* optimize_;
    MaterialEditor* materials_;
    ModePanel* modes_;
    LogPanel* log_;
    RunHistory* history_;
    SceneView* sceneView_;
    ResultsView* results_;
    QTabWidget* tabs_;
    QByteArray defaultState_;
    bool layoutRestored_ = false;
    bool shown_ = false;
    QString resultPath_;
    QString runFolder_;
    std::optional<SceneEntity> clipboard_;
    mutable QString untitledFolder_; ///< run folder of the unsaved scene (one per new scene)
    int maxSteps_ = -1;
    scene::Scene runScene_;
    /// Telemetry reaches the run monitor at once when it starts a phase, else at most once a second (a
    /// report that arrives sooner waits for the timer; a newer one replaces it), so the window repaints
    /// little while the time loop runs.
    QTimer* reportTimer_;
    std::optional<telemetry::Report> pendingReport_;
    std::string shownPhase_; ///< phase of the report the monitor shows
};

} // namespace yee::ui
