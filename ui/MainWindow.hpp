#pragma once
/// \file MainWindow.hpp
/// The studio's main window: a central 3-D scene view and results tab, docks (scene tree, properties,
/// devices, gradient, run monitor, log), menus whose actions are handled by reaction objects, and the
/// layout persisted with QSettings.
#include <QMainWindow>

#include "ui/Estimator.hpp"
#include "ui/Runner.hpp"

class QDockWidget;
class QTabWidget;
class QTreeView;

namespace yee::ui {

class DevicesPanel;
class GradientPanel;
class LogPanel;
class PropertyEditor;
class ResultsView;
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
    LogPanel* log() const { return log_; }
    QTabWidget* centralTabs() const { return tabs_; }

    /// Open a scene file (asks to save unsaved changes first). Returns false on failure (logged).
    bool openScene(const QString& path);
    /// Start a new, default scene (asks to save unsaved changes first).
    bool newScene();
    /// Save to the current file, or ask for a name when there is none or `saveAs`.
    bool saveScene(bool saveAs = false);
    /// Save to `path` without asking. Returns false on failure (logged).
    bool saveSceneAs(const QString& path);
    /// Open a results file into the results tab. Returns false on failure (logged).
    bool openResults(const QString& path);
    /// Ask whether to save unsaved changes; false when the user cancels.
    bool maybeSave();

    /// Why the current configuration cannot run forward (`gradient`: value-and-grad), from the latest
    /// estimate, or empty.
    QString runProblem(bool gradient = false) const;
    /// Start a forward (or value-and-grad) run on the worker thread. Returns false (logged, and
    /// explained in `problem`) when it cannot start.
    bool startRun(bool gradient = false, QString* problem = nullptr);
    void cancelRun();
    /// Where the next run writes its results: setResultPath() if set, else `<scene>.results.h5` next to
    /// the scene file (or in the temporary directory for an unsaved scene).
    QString resultPathForRun() const;
    /// Override the results file of the next runs (empty: automatic).
    void setResultPath(const QString& path) { resultPath_ = path; }
    /// Limit the number of steps of the next runs (<0: the scene's duration).
    void setMaxSteps(int steps) { maxSteps_ = steps; }

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

private:
    void createDocks();
    void createActions();
    QDockWidget* addDock(QWidget* w, const QString& objectName, const QString& title, Qt::DockWidgetArea area,
                         bool scroll = false);
    void updateTitle();
    void applyDefaultSizes();
    void requestEstimate();
    void onRunFinished(const RunResultPtr& result, const QString& path);

    SceneDocument* doc_;
    Runner* runner_;
    Estimator* estimator_;
    SceneTreeModel* treeModel_;
    QTreeView* tree_;
    PropertyEditor* properties_;
    DevicesPanel* devices_;
    GradientPanel* gradient_;
    RunMonitor* monitor_;
    LogPanel* log_;
    SceneView* sceneView_;
    ResultsView* results_;
    QTabWidget* tabs_;
    QByteArray defaultState_;
    bool layoutRestored_ = false;
    bool shown_ = false;
    QString resultPath_;
    int maxSteps_ = -1;
    scene::Scene runScene_;
};

} // namespace yee::ui
