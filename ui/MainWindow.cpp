#include "ui/MainWindow.hpp"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QMenuBar>
#include <QMessageBox>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QTreeWidget>

#include <algorithm>
#include <cctype>

#include "ui/DevicesPanel.hpp"
#include "ui/ExportDialog.hpp"
#include "ui/Format.hpp"
#include "ui/GradientPanel.hpp"
#include "ui/HelpMenu.hpp"
#include "ui/LayoutBarrier.hpp"
#include "ui/LogPanel.hpp"
#include "ui/MaterialEditor.hpp"
#include "ui/ModePanel.hpp"
#include "ui/ObjectiveEditor.hpp"
#include "ui/OptimizePanel.hpp"
#include "ui/PropertyEditor.hpp"
#include "ui/PropertyModel.hpp"
#include "ui/Reactions.hpp"
#include "ui/ResultsView.hpp"
#include "ui/RunHistory.hpp"
#include "ui/RunMonitor.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneProperties.hpp"
#include "ui/SceneTreeModel.hpp"
#include "ui/SceneView.hpp"
#include "ui/TabWidget.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/scene/Schema.hpp"

namespace yee::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), doc_(new SceneDocument(this)), runner_(new Runner(this)),
      estimator_(new Estimator(this)) {
    setObjectName(QStringLiteral("mainWindow"));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks |
                   QMainWindow::AllowNestedDocks);
    tabs_ = new TabWidget(this);
    tabs_->setObjectName(QStringLiteral("centralTabs"));
    sceneView_ = new SceneView(doc_, tabs_);
    results_ = new ResultsView(tabs_);
    tabs_->addTab(sceneView_, tr("Scene"));
    tabs_->addTab(results_, tr("Results"));
    setCentralWidget(tabs_);

    createDocks();
    createActions();
    defaultState_ = saveState();
    statusBar()->showMessage(tr("Ready."));

    connect(doc_, &SceneDocument::sceneChanged, this, &MainWindow::requestEstimate);
    connect(doc_, &SceneDocument::sceneChanged, this, &MainWindow::stateChanged);
    connect(doc_, &SceneDocument::currentItemChanged, this, &MainWindow::stateChanged);
    connect(doc_, &SceneDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(doc_, &SceneDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(doc_, &SceneDocument::modifiedChanged, this, &MainWindow::stateChanged);
    connect(doc_, &SceneDocument::filePathChanged, this, &MainWindow::stateChanged);
    connect(doc_, &SceneDocument::sceneReset, this, &MainWindow::updateTitle);
    connect(devices_, &DevicesPanel::settingsChanged, this, &MainWindow::requestEstimate);
    connect(estimator_, &Estimator::estimated, devices_, &DevicesPanel::showEstimate);
    connect(estimator_, &Estimator::estimated, gradient_, &GradientPanel::showEstimate);
    connect(estimator_, &Estimator::estimated, this, [this](const EstimateOutcome& out) {
        if (out.estimate && out.problem.isEmpty())
            statusBar()->showMessage(tr("%1 \u00d7 %2 \u00d7 %3 cells, %4 steps, largest device peak %5")
                                         .arg(out.estimate->gridCells[0])
                                         .arg(out.estimate->gridCells[1])
                                         .arg(out.estimate->gridCells[2])
                                         .arg(out.estimate->steps)
                                         .arg(bytesText(out.estimate->maxDevicePeak())));
        else
            statusBar()->showMessage(tr("Cannot run: %1").arg(out.problem));
        emit stateChanged();
    });
    connect(properties_->model(), &PropertyModel::valueRejected, log_, &LogPanel::warning);
    connect(sceneView_, &SceneView::tileProblemChanged, this, [this](const QString& m) {
        if (!m.isEmpty())
            log_->warning(tr("Tile cuts not drawn: %1").arg(m));
    });
    connect(results_, &ResultsView::problemReported, log_, &LogPanel::warning);
    connect(treeModel_, &SceneTreeModel::renameRefused, this,
            [this](const QString& m) { log_->warning(tr("Not renamed: %1").arg(m)); });

    // A GPU request that runs on emulated CPU devices here: say so, and run.
    connect(runner_, &Runner::notice, log_, &LogPanel::warning);
    connect(runner_, &Runner::runStarted, monitor_, &RunMonitor::runStarted);
    // The window shows the start of a run (actions, run monitor) at its next paint, while the worker
    // prepares the run (rasterising, planning): the window paints in raster (the 3-D views are images),
    // so that paint costs the preparation little and nothing waits for it.
    connect(runner_, &Runner::runStarted, this, [this] { emit stateChanged(); });
    reportTimer_ = new QTimer(this);
    reportTimer_->setSingleShot(true);
    reportTimer_->setInterval(1000);
    reportTimer_->setTimerType(Qt::PreciseTimer); // a coarse timer may fire 5 % early

    connect(runner_, &Runner::telemetryReceived, this, [this](const telemetry::Report& r) {
        // A new phase is shown at once (it is news); within a phase, at most a report a second.
        if (reportTimer_->isActive() && r.phase == shownPhase_) {
            pendingReport_ = r;
            return;
        }
        pendingReport_.reset();
        shownPhase_ = r.phase;
        monitor_->showReport(r);
        reportTimer_->start();
    });
    connect(reportTimer_, &QTimer::timeout, this, [this] {
        if (!pendingReport_ || !runner_->isRunning())
            return;
        shownPhase_ = pendingReport_->phase;
        monitor_->showReport(*pendingReport_);
        pendingReport_.reset();
        reportTimer_->start();
    });
    auto dropPending = [this] {
        reportTimer_->stop();
        pendingReport_.reset();
        shownPhase_.clear();
    };
    connect(runner_, &Runner::runFinished, this, dropPending);
    connect(runner_, &Runner::runFailed, this, dropPending);
    connect(runner_, &Runner::runFinished, monitor_, &RunMonitor::runFinished);
    connect(runner_, &Runner::runFailed, monitor_, &RunMonitor::runFailed);
    connect(runner_, &Runner::runFinished, this, &MainWindow::onRunFinished);
    connect(runner_, &Runner::runFailed, this, [this](const QString& m) {
        log_->error(tr("Run failed: %1").arg(m));
        statusBar()->showMessage(tr("Run failed."));
        emit stateChanged();
    });
    connect(monitor_, &RunMonitor::cancelRequested, this, &MainWindow::cancelRun);

    resize(1280, 800);
    restoreLayout();
    updateTitle();
    requestEstimate();
    log_->info(tr("Yee Studio %1 ready.").arg(QStringLiteral(YEE_VERSION)));
    const QString gpus = devices_->gpuUnavailableText();
    log_->info(gpus.isEmpty() ? tr("%n CUDA GPU(s) available (see the Devices panel).", nullptr,
                                   devices_->gpuList()->topLevelItemCount())
                              : gpus);
}

MainWindow::~MainWindow() = default;

QDockWidget* MainWindow::addDock(QWidget* w, const QString& objectName, const QString& title,
                                 Qt::DockWidgetArea area, bool scroll) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(objectName);
    if (scroll) {
        // Narrow docks put a field under its label rather than widening the window (1024 px wide).
        for (auto* form : w->findChildren<QFormLayout*>())
            form->setRowWrapPolicy(QFormLayout::WrapLongRows);
        // Tall panels scroll instead of forcing the window taller than the screen.
        auto* area = new QScrollArea(dock);
        area->setWidget(w);
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        dock->setWidget(area);
    } else {
        dock->setWidget(w);
    }
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::createDocks() {
    treeModel_ = new SceneTreeModel(doc_, this);
    tree_ = new QTreeView(this);
    tree_->setObjectName(QStringLiteral("sceneTree"));
    tree_->setModel(treeModel_);
    tree_->setUniformRowHeights(true);
    tree_->setAlternatingRowColors(true);
    tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    // Summaries whole ("2 \u00d7 2 \u00d7 2 \u00b5m (40 \u00d7 40 \u00d7 40 cells)", not "2 \u00d7 2 \u00d7 2
    // \u00b5m (40 \u00d7 40 \u2026"): the column is as wide as its longest, and the tree scrolls sideways
    // when the dock is narrower.
    tree_->header()->setStretchLastSection(false);
    tree_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    tree_->setTextElideMode(Qt::ElideNone);
    tree_->expandAll();
    tree_->setContextMenuPolicy(Qt::ActionsContextMenu);
    tree_->setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::SelectedClicked);
    connect(treeModel_, &QAbstractItemModel::modelReset, tree_, &QTreeView::expandAll);
    connect(treeModel_, &QAbstractItemModel::rowsInserted, tree_,
            [this](const QModelIndex& parent) { tree_->expand(parent); });
    // Selection: tree -> document -> (3-D view, property editor, tree).
    connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) { doc_->setCurrentItem(treeModel_->refOf(current)); });
    connect(doc_, &SceneDocument::currentItemChanged, this, [this](const ItemRef& ref) {
        const QModelIndex i = treeModel_->indexOf(ref);
        if (i != tree_->currentIndex()) {
            if (i.isValid())
                tree_->setCurrentIndex(i);
            else
                tree_->selectionModel()->clear();
        }
    });
    properties_ = new PropertyEditor(doc_, this);
    properties_->setObjectName(QStringLiteral("propertyEditor"));
    devices_ = new DevicesPanel(doc_, this);
    devices_->setObjectName(QStringLiteral("devicesPanel"));
    gradient_ = new GradientPanel(doc_, this);
    gradient_->setObjectName(QStringLiteral("gradientPanel"));
    monitor_ = new RunMonitor(this);
    monitor_->setObjectName(QStringLiteral("runMonitor"));
    log_ = new LogPanel(this);
    history_ = new RunHistory(this);
    history_->setObjectName(QStringLiteral("runHistory"));

    auto* treeDock = addDock(tree_, QStringLiteral("sceneTreeDock"), tr("Scene"), Qt::LeftDockWidgetArea);
    auto* propDock =
        addDock(properties_, QStringLiteral("propertiesDock"), tr("Properties"), Qt::LeftDockWidgetArea);
    splitDockWidget(treeDock, propDock, Qt::Vertical);
    auto* devDock =
        addDock(devices_, QStringLiteral("devicesDock"), tr("Devices"), Qt::RightDockWidgetArea, true);
    auto* gradDock =
        addDock(gradient_, QStringLiteral("gradientDock"), tr("Gradient"), Qt::RightDockWidgetArea, true);
    // The monitor's numbers change at every report: their size hints stop at its dock (LayoutBarrier).
    auto* runDock = addDock(new LayoutBarrier(monitor_), QStringLiteral("runMonitorDock"), tr("Run monitor"),
                            Qt::RightDockWidgetArea);
    objective_ = new ObjectiveEditor(doc_, this);
    objective_->setObjectName(QStringLiteral("objectiveEditor"));
    optimize_ = new OptimizePanel(doc_, this);
    optimize_->setObjectName(QStringLiteral("optimizePanel"));
    auto* objDock =
        addDock(objective_, QStringLiteral("objectiveDock"), tr("Objective"), Qt::RightDockWidgetArea, true);
    auto* optDock =
        addDock(optimize_, QStringLiteral("optimizeDock"), tr("Optimise"), Qt::RightDockWidgetArea, true);
    // The right-hand tabs in the order of a day's work: devices, the run, its gradient, then the
    // authoring docks (objective, optimiser, materials, modes).
    tabifyDockWidget(devDock, runDock);
    tabifyDockWidget(runDock, gradDock);
    tabifyDockWidget(gradDock, objDock);
    tabifyDockWidget(objDock, optDock);
    materials_ = new MaterialEditor(doc_, this);
    materials_->setObjectName(QStringLiteral("materialEditor"));
    auto* matDock =
        addDock(materials_, QStringLiteral("materialDock"), tr("Materials"), Qt::RightDockWidgetArea, true);
    tabifyDockWidget(optDock, matDock);
    modes_ = new ModePanel(doc_, this);
    auto* modeDock = addDock(modes_, QStringLiteral("modeDock"), tr("Modes"), Qt::RightDockWidgetArea);
    tabifyDockWidget(matDock, modeDock);
    // Selecting a port shows its mode.
    connect(doc_, &SceneDocument::currentItemChanged, this, [this, modeDock](const ItemRef& ref) {
        if (hasModes(doc_->scene(), ref))
            modeDock->raise();
    });
    connect(modes_, &ModePanel::solveFailed, log_, &LogPanel::warning);
    devDock->raise();
    optimize_->setRunOptionsProvider(
        [this](const scene::Scene& s) { return devices_->settings().optionsFor(s); });
    optimize_->setHistoryPathProvider([this] {
        const QDir dir(runFolder());
        dir.mkpath(QStringLiteral("."));
        for (int n = 1;; ++n) {
            const QString p =
                dir.filePath(QStringLiteral("opt-%1.history.h5").arg(n, 3, 10, QLatin1Char('0')));
            if (!QFileInfo::exists(p))
                return p;
        }
    });
    optimize_->setBusyCheck([this] { return runner_->isRunning() ? tr("a run is in progress") : QString(); });
    connect(optimize_, &OptimizePanel::message, this,
            [this](const QString& m, bool warning) { warning ? log_->warning(m) : log_->info(m); });
    connect(objective_, &ObjectiveEditor::problem, log_, &LogPanel::warning);
    connect(materials_, &MaterialEditor::problem, log_, &LogPanel::warning);
    auto* logDock = addDock(log_, QStringLiteral("logDock"), tr("Log"), Qt::BottomDockWidgetArea);
    auto* historyDock =
        addDock(history_, QStringLiteral("runHistoryDock"), tr("Run history"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(logDock, historyDock);
    logDock->raise();
    connect(history_, &RunHistory::openRequested, this, &MainWindow::openResults);
}

void MainWindow::createActions() {
    auto action = [this](const QString& text, const QKeySequence& key = {},
                         QStyle::StandardPixmap icon = QStyle::SP_CustomBase) {
        auto* a = new QAction(text, this);
        if (!key.isEmpty())
            a->setShortcut(key);
        if (icon != QStyle::SP_CustomBase)
            a->setIcon(style()->standardIcon(icon));
        return a;
    };
    // File
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* newAct = action(tr("&New scene"), QKeySequence::New, QStyle::SP_FileIcon);
    new NewSceneReaction(newAct, this);
    QAction* openAct = action(tr("&Open scene\u2026"), QKeySequence::Open, QStyle::SP_DialogOpenButton);
    new OpenSceneReaction(openAct, this);
    QAction* saveAct = action(tr("&Save"), QKeySequence::Save, QStyle::SP_DialogSaveButton);
    new SaveSceneReaction(saveAct, this, false);
    QAction* saveAsAct = action(tr("Save &as\u2026"), QKeySequence::SaveAs);
    new SaveSceneReaction(saveAsAct, this, true);
    file->addActions({newAct, openAct});
    QMenu* examples = file->addMenu(tr("Open &example"));
    const QStringList dirs{QCoreApplication::applicationDirPath() +
                               QStringLiteral("/../share/yee-studio/scenes"),
                           QStringLiteral(YEE_EXAMPLES_DIR)};
    for (const QString& d : dirs) {
        const QFileInfoList found =
            QDir(d).entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        for (const QFileInfo& fi : found) {
            QAction* ex = examples->addAction(fi.completeBaseName().replace('_', ' '));
            new OpenSceneReaction(ex, this, fi.absoluteFilePath());
        }
        if (!found.isEmpty())
            break;
    }
    examples->setEnabled(!examples->isEmpty());
    new RecentFilesMenu(file->addMenu(tr("Open &recent")), this);
    file->addSeparator();
    file->addActions({saveAct, saveAsAct});
    file->addSeparator();
    QAction* openResultsAct =
        action(tr("Open &results\u2026"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    new OpenResultsReaction(openResultsAct, this);
    file->addAction(openResultsAct);
    file->addSeparator();
    QAction* exportAct = file->addAction(tr("&Export cluster bundle\u2026"));
    exportAct->setObjectName(QStringLiteral("exportBundleAction"));
    connect(exportAct, &QAction::triggered, this, [this] {
        ExportDialog dialog(doc_->scene(), this);
        if (!doc_->filePath().isEmpty())
            dialog.setStartFolder(QFileInfo(doc_->filePath()).absolutePath());
        if (dialog.exec() == QDialog::Accepted)
            log_->info(tr("Cluster bundle written (%1 rank(s) on %2 node(s)).")
                           .arg(dialog.resources().ranks)
                           .arg(dialog.resources().nodes));
    });
    file->addSeparator();
    QAction* quitAct = action(tr("&Quit"), QKeySequence::Quit);
    connect(quitAct, &QAction::triggered, this, &QWidget::close);
    file->addAction(quitAct);

    // Edit
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undoAct = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
    undoAct->setShortcut(QKeySequence::Undo);
    undoAct->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
    QAction* redoAct = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
    redoAct->setShortcut(QKeySequence::Redo);
    redoAct->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
    QAction* deleteAct = action(tr("&Delete item"), QKeySequence::Delete, QStyle::SP_TrashIcon);
    deleteAct->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    new DeleteItemReaction(deleteAct, this);
    tree_->addAction(deleteAct);
    sceneView_->addAction(deleteAct);
    edit->addActions({undoAct, redoAct});
    edit->addSeparator();
    edit->addAction(deleteAct);
    // Element editing, in the Edit menu and the tree's context menu, with shortcuts.
    auto elementAction = [this, edit](const QString& text, const QKeySequence& key, const char* name,
                                      auto fn) {
        QAction* a = new QAction(text, this);
        a->setObjectName(QLatin1String(name));
        a->setShortcut(key);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(a, &QAction::triggered, this, fn);
        tree_->addAction(a);
        sceneView_->addAction(a);
        edit->addAction(a);
        return a;
    };
    elementAction(tr("D&uplicate"), QKeySequence(Qt::CTRL | Qt::Key_D), "duplicateAction",
                  [this] { duplicateCurrent(); });
    elementAction(tr("&Copy"), QKeySequence::Copy, "copyAction", [this] { copyCurrent(); });
    elementAction(tr("&Paste"), QKeySequence::Paste, "pasteAction", [this] { paste(); });
    elementAction(tr("Re&name\u2026"), QKeySequence(Qt::Key_F2), "renameAction", [this] {
        const QModelIndex i = tree_->currentIndex();
        if (i.isValid() && (treeModel_->flags(i) & Qt::ItemIsEditable))
            tree_->edit(i);
    });
    elementAction(tr("&Hide / show in view"), QKeySequence(Qt::CTRL | Qt::Key_H), "hideAction",
                  [this] { toggleCurrentHidden(); });

    // Insert
    QMenu* insert = menuBar()->addMenu(tr("&Insert"));
    QList<QAction*> insertActions;
    for (NewItemKind k : {NewItemKind::Box, NewItemKind::Sphere, NewItemKind::Cylinder, NewItemKind::Prism,
                          NewItemKind::Material}) {
        if (k == NewItemKind::Material)
            insert->addSeparator();
        QAction* a = insert->addAction(newItemText(k));
        new AddItemReaction(a, this, k);
        insertActions << a;
    }
    // Every source and detector kind the backend's schema declares, by its human label.
    insert->addSection(tr("Sources"));
    for (const auto& e : scene::sourceTypes().entries) {
        QAction* a = insert->addAction(tr("%1 source").arg(QLatin1String(e.label)));
        a->setObjectName(QStringLiteral("insertSource_") + QLatin1String(e.name));
        a->setToolTip(QLatin1String(e.help));
        const auto type = scene::SourceType(e.value);
        new AddItemReaction(a, this, [type](const scene::Scene& s) { return makeNewSource(s, type); });
        insertActions << a;
    }
    insert->addSection(tr("Detectors"));
    for (const auto& e : scene::detectorTypes().entries) {
        QAction* a = insert->addAction(tr("%1 detector").arg(QLatin1String(e.label)));
        a->setObjectName(QStringLiteral("insertDetector_") + QLatin1String(e.name));
        a->setToolTip(QLatin1String(e.help));
        const auto type = scene::DetectorType(e.value);
        new AddItemReaction(a, this, [type](const scene::Scene& s) { return makeNewDetector(s, type); });
        insertActions << a;
    }
    insert->addSeparator();
    {
        QAction* a = insert->addAction(tr("Objective term (on the selected detector)"));
        a->setObjectName(QStringLiteral("insertObjectiveTerm"));
        connect(a, &QAction::triggered, this, [this] { addObjectiveTerm(); });
    }
    {
        QAction* a = insert->addAction(newItemText(NewItemKind::DesignRegion));
        new AddItemReaction(a, this, NewItemKind::DesignRegion);
        insertActions << a;
    }
    insert->setToolTipsVisible(true);

    // Run
    QMenu* run = menuBar()->addMenu(tr("&Run"));
    QAction* runAct = action(tr("&Run forward"), QKeySequence(Qt::Key_F5), QStyle::SP_MediaPlay);
    runAct->setObjectName(QStringLiteral("runAction"));
    new RunReaction(runAct, this, false);
    QAction* gradAct = action(tr("Run value and &gradient"), QKeySequence(Qt::SHIFT | Qt::Key_F5),
                              QStyle::SP_MediaSeekForward);
    gradAct->setObjectName(QStringLiteral("gradientRunAction"));
    new RunReaction(gradAct, this, true);
    QAction* cancelAct = action(tr("&Cancel run"), QKeySequence(Qt::Key_Escape), QStyle::SP_MediaStop);
    cancelAct->setObjectName(QStringLiteral("cancelAction"));
    new CancelRunReaction(cancelAct, this);
    run->addActions({runAct, gradAct, cancelAct});

    // View
    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : findChildren<QDockWidget*>())
        view->addAction(d->toggleViewAction());
    view->addSeparator();
    QAction* resetCam = view->addAction(tr("Reset &camera"));
    connect(resetCam, &QAction::triggered, sceneView_, &SceneView::resetCamera);
    QMenu* stdViews = view->addMenu(tr("&Standard views"));
    const char* axisNames[] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a)
        for (int sign : {+1, -1}) {
            QAction* v =
                stdViews->addAction(tr("From %1%2")
                                        .arg(sign > 0 ? QStringLiteral("+") : QStringLiteral("\u2212"),
                                             QLatin1String(axisNames[a])));
            v->setObjectName(
                QStringLiteral("view%1%2").arg(sign > 0 ? 'P' : 'M').arg(QLatin1String(axisNames[a])));
            connect(v, &QAction::triggered, sceneView_, [this, a, sign] { sceneView_->viewAlong(a, sign); });
        }
    QAction* ortho = view->addAction(tr("&Orthographic projection"));
    ortho->setObjectName(QStringLiteral("orthographicAction"));
    ortho->setCheckable(true);
    connect(ortho, &QAction::toggled, sceneView_, &SceneView::setOrthographic);
    QMenu* show = view->addMenu(tr("S&how in the 3-D view"));
    QAction* legend = show->addAction(tr("Legend"));
    legend->setObjectName(QStringLiteral("showLegend"));
    legend->setCheckable(true);
    legend->setChecked(true);
    connect(legend, &QAction::toggled, sceneView_, &SceneView::setLegendVisible);
    for (SceneLayer l : {SceneLayer::Objects, SceneLayer::Pml, SceneLayer::TileCuts, SceneLayer::Designs,
                         SceneLayer::Sources, SceneLayer::Detectors, SceneLayer::Domain}) {
        QAction* t = show->addAction(layerName(l));
        t->setObjectName(QStringLiteral("showLayer%1").arg(int(l)));
        t->setCheckable(true);
        t->setChecked(true);
        connect(t, &QAction::toggled, sceneView_, [this, l](bool on) { sceneView_->setLayerVisible(l, on); });
    }
    QAction* resetLay = view->addAction(tr("Reset &layout"));
    connect(resetLay, &QAction::triggered, this, &MainWindow::resetLayout);

    // Help
    buildHelpMenu(menuBar()->addMenu(tr("&Help")), this);

    QToolBar* tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("mainToolBar"));
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->addActions({newAct, openAct, saveAct});
    tb->addSeparator();
    tb->addActions({undoAct, redoAct, deleteAct});
    // Undo/redo texts name the command ("Undo Remove design region 'taper'"): icons only in the tool bar,
    // so the run buttons never overflow out of sight.
    for (QAction* a : {undoAct, redoAct})
        if (auto* button = qobject_cast<QToolButton*>(tb->widgetForAction(a)))
            button->setToolButtonStyle(Qt::ToolButtonIconOnly);
    tb->addSeparator();
    tb->addActions({insertActions[0], insertActions[1], insertActions[2]});
    tb->addSeparator();
    tb->addActions({runAct, gradAct, cancelAct});
}

void MainWindow::updateTitle() {
    const QString name = doc_->filePath().isEmpty() ? tr("untitled") : QFileInfo(doc_->filePath()).fileName();
    setWindowTitle(tr("%1[*] \u2014 Yee Studio").arg(name));
    setWindowModified(doc_->isModified());
}

void MainWindow::requestEstimate() {
    estimator_->request(doc_->scene(), devices_->settings(), doc_->revision());
}

QString MainWindow::runProblem(bool gradient) const {
    const EstimateOutcome& out = estimator_->latest();
    if (estimator_->busy() && out.generation == 0)
        return tr("estimating\u2026");
    return gradient ? out.gradientProblem : out.problem;
}

bool MainWindow::maybeSave() {
    if (!doc_->isModified())
        return true;
    const auto answer = QMessageBox::warning(
        this, tr("Unsaved changes"), tr("The scene has unsaved changes. Save them first?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Save)
        return saveScene(false);
    return true;
}

bool MainWindow::openScene(const QString& path) {
    if (!maybeSave())
        return false;
    QString error, problem;
    if (!doc_->load(path, &error, &problem)) {
        log_->error(tr("Cannot open %1: %2").arg(path, error));
        statusBar()->showMessage(tr("Cannot open %1").arg(QFileInfo(path).fileName()));
        return false;
    }
    RecentFilesMenu::add(doc_->filePath());
    QSettings().setValue(QStringLiteral("lastSceneDir"), QFileInfo(doc_->filePath()).absolutePath());
    log_->info(tr("Opened %1").arg(doc_->filePath()));
    if (!problem.isEmpty())
        log_->warning(tr("The scene cannot run yet: %1").arg(problem));
    sceneSwitched();
    tabs_->setCurrentWidget(sceneView_);
    emit stateChanged();
    return true;
}

bool MainWindow::newScene() {
    if (!maybeSave())
        return false;
    doc_->newScene();
    sceneSwitched();
    log_->info(tr("New scene."));
    return true;
}

namespace {
/// `e` renamed to a name of its kind not used in `s` (its own name when free).
SceneEntity withFreeName(const scene::Scene& s, SceneEntity e) {
    const ItemKind k = entityKind(e);
    const std::string name = entityName(e);
    bool used = false;
    for (int i = 0; i < elementCount(s, k); ++i)
        used = used || entityName(entityAt(s, {k, i})) == name;
    if (!used)
        return e;
    // "flux1" -> stem "flux"; "ring" -> stem "ring".
    std::string stem = name;
    while (!stem.empty() && std::isdigit(static_cast<unsigned char>(stem.back())))
        stem.pop_back();
    const std::string fresh = uniqueName(s, k, stem.empty() ? name : stem);
    std::visit([&](auto& v) { v.name = fresh; }, e);
    return e;
}
} // namespace

bool MainWindow::duplicateCurrent() {
    const ItemRef ref = doc_->currentItem();
    if (!isElementKind(ref.kind) || ref.index < 0 || ref.index >= elementCount(doc_->scene(), ref.kind))
        return false;
    SceneEntity e = withFreeName(doc_->scene(), entityAt(doc_->scene(), ref));
    auto* cmd = new AddItemCommand(doc_, e, ref.index + 1);
    cmd->setText(tr("Duplicate %1").arg(itemTitle(doc_->scene(), ref)));
    doc_->undoStack()->push(cmd);
    return true;
}

bool MainWindow::copyCurrent() {
    const ItemRef ref = doc_->currentItem();
    if (!isElementKind(ref.kind) || ref.index < 0 || ref.index >= elementCount(doc_->scene(), ref.kind))
        return false;
    clipboard_ = entityAt(doc_->scene(), ref);
    QApplication::clipboard()->setText(QString::fromStdString(entityName(*clipboard_)));
    statusBar()->showMessage(tr("Copied %1.").arg(itemTitle(doc_->scene(), ref)), 3000);
    return true;
}

bool MainWindow::paste() {
    if (!clipboard_)
        return false;
    // A material pasted into a scene that has it already is a copy under a new name, like the others.
    SceneEntity e = withFreeName(doc_->scene(), *clipboard_);
    auto* cmd = new AddItemCommand(doc_, e);
    cmd->setText(tr("Paste %1").arg(QString::fromStdString(entityName(e))));
    doc_->undoStack()->push(cmd);
    return true;
}

bool MainWindow::renameCurrent(const QString& name) {
    const ItemRef ref = doc_->currentItem();
    if (!isElementKind(ref.kind))
        return false;
    const PropertyCheck c = checkProperty(doc_->scene(), ref, QStringLiteral("name"), name);
    if (!c.ok) {
        log_->warning(tr("Not renamed: %1").arg(c.error));
        return false;
    }
    doc_->undoStack()->push(new SetPropertyCommand(doc_, ref, QStringLiteral("name"), c.value));
    return true;
}

bool MainWindow::addObjectiveTerm() {
    const scene::Scene& s = doc_->scene();
    std::vector<int> order;
    const ItemRef cur = doc_->currentItem();
    if (cur.kind == ItemKind::Detector)
        order.push_back(cur.index);
    for (int i = 0; i < int(s.detectors.size()); ++i)
        order.push_back(i);
    QString why = tr("objective.terms: add a flux, energy or phasor detector first");
    for (int i : order) {
        // Every quantity and reduction the schema has, first accepted wins (the validator holds the rules).
        for (const auto& q : scene::quantities().entries)
            for (const auto& r : scene::reductions().entries) {
                scene::ObjectiveTerm t;
                t.detector = s.detectors[std::size_t(i)].name;
                t.quantity = scene::Quantity(q.value);
                t.reduce = scene::Reduce(r.value);
                t.weight = 1.0;
                if (t.reduce == scene::Reduce::AtWavelength) {
                    if (s.detectors[std::size_t(i)].wavelengths.empty())
                        continue;
                    t.wavelength = s.detectors[std::size_t(i)].wavelengths[0];
                }
                scene::Scene trial = s;
                trial.objective.terms.push_back(t);
                try {
                    scene::validateScene(trial);
                } catch (const std::exception& e) {
                    if (i == order.front())
                        why = QString::fromStdString(e.what());
                    continue;
                }
                doc_->undoStack()->push(new SetObjectiveTermsCommand(
                    doc_, trial.objective.terms,
                    tr("Add objective term on %1").arg(QString::fromStdString(t.detector))));
                return true;
            }
    }
    log_->warning(tr("No objective term added: %1").arg(why));
    return false;
}

bool MainWindow::toggleCurrentHidden() {
    const ItemRef ref = doc_->currentItem();
    if (!isElementKind(ref.kind) || ref.kind == ItemKind::Material)
        return false;
    const bool hide = !sceneView_->isItemHidden(ref);
    sceneView_->setItemHidden(ref, hide);
    statusBar()->showMessage(hide ? tr("%1 hidden in the view.").arg(itemTitle(doc_->scene(), ref))
                                  : tr("%1 shown.").arg(itemTitle(doc_->scene(), ref)),
                             3000);
    return true;
}

void MainWindow::sceneSwitched() {
    results_->clear();
    untitledFolder_.clear();
    if (doc_->filePath().isEmpty() && runFolder_.isEmpty())
        history_->clear(); // an unsaved scene has no runs until its first
    else
        history_->setFolder(runFolder());
}

QString MainWindow::runFolder() const {
    if (!runFolder_.isEmpty())
        return runFolder_;
    if (!doc_->filePath().isEmpty()) {
        const QFileInfo fi(doc_->filePath());
        return fi.absolutePath() + QLatin1Char('/') + fi.completeBaseName() + QStringLiteral(".runs");
    }
    if (untitledFolder_.isEmpty()) {
        // One folder per unsaved scene, so runs of earlier sessions' untitled scenes are not listed as its.
        const QString base =
            QStandardPaths::writableLocation(QStandardPaths::TempLocation) + QStringLiteral("/yee-studio");
        QString name = QStringLiteral("untitled-%1-%2")
                           .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss")))
                           .arg(QCoreApplication::applicationPid());
        QString dir = base + QLatin1Char('/') + name + QStringLiteral(".runs");
        for (int k = 2; QFileInfo::exists(dir); ++k)
            dir = base + QLatin1Char('/') + name + QStringLiteral("-%1.runs").arg(k);
        untitledFolder_ = dir;
    }
    return untitledFolder_;
}

void MainWindow::setRunFolder(const QString& dir) {
    runFolder_ = dir;
    history_->setFolder(runFolder());
}

QString MainWindow::resultsWarning() const {
    return results_->notice();
}

void MainWindow::checkResultsScene() {
    const QString shown = results_->results().sceneHash;
    const QString open = QString::fromStdString(scene::sceneHash(doc_->scene()));
    if (shown.isEmpty() || shown == open) {
        results_->setNotice({});
        return;
    }
    const QString text = tr("These results were computed from a different scene than the one open (scene "
                            "hash %1, open scene %2): detectors, objects and gradients may not match.")
                             .arg(shown.left(12), open.left(12));
    results_->setNotice(text);
    log_->warning(text);
}

bool MainWindow::saveSceneAs(const QString& path) {
    QString error;
    if (!doc_->save(path, &error)) {
        log_->error(tr("Cannot save %1: %2").arg(path, error));
        return false;
    }
    RecentFilesMenu::add(doc_->filePath());
    QSettings().setValue(QStringLiteral("lastSceneDir"), QFileInfo(doc_->filePath()).absolutePath());
    log_->info(tr("Saved %1").arg(doc_->filePath()));
    statusBar()->showMessage(tr("Saved."), 3000);
    return true;
}

QString MainWindow::saveDialogPath() const {
    if (!doc_->filePath().isEmpty())
        return QFileInfo(doc_->filePath()).absoluteFilePath();
    // An unsaved scene: the folder last used for scenes, the scene's own name.
    const QString dir = QSettings().value(QStringLiteral("lastSceneDir"), QDir::homePath()).toString();
    QString name = QString::fromStdString(doc_->scene().name).trimmed();
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._ -]")), QStringLiteral("_"));
    if (name.isEmpty())
        name = QStringLiteral("untitled");
    return QDir(dir).filePath(name + QStringLiteral(".json"));
}

bool MainWindow::saveScene(bool saveAs) {
    QString path = doc_->filePath();
    if (saveAs || path.isEmpty()) {
        path =
            QFileDialog::getSaveFileName(this, tr("Save scene"), saveDialogPath(), tr("Yee scenes (*.json)"));
        if (path.isEmpty())
            return false;
    }
    return saveSceneAs(path);
}

bool MainWindow::openResults(const QString& path) {
    QString error;
    if (!results_->openFile(path, &error)) {
        log_->error(tr("Cannot open results %1: %2").arg(path, error));
        return false;
    }
    log_->info(tr("Opened results %1 (%2)").arg(path, results_->results().status));
    checkResultsScene();
    tabs_->setCurrentWidget(results_);
    return true;
}

QString MainWindow::resultPathForRun() const {
    if (!resultPath_.isEmpty())
        return resultPath_;
    const QString folder = runFolder();
    QDir().mkpath(folder);
    return RunHistory::runFile(folder, RunHistory::nextRunNumber(folder));
}

bool MainWindow::startRun(bool gradient, QString* why) {
    if (runner_->isRunning() || optimize_->runner()->isRunning()) {
        if (why)
            *why = runner_->isRunning() ? tr("a run is in progress") : tr("an optimisation is in progress");
        return false;
    }
    RunSettings settings = devices_->settings();
    settings.maxSteps = maxSteps_;
    settings.gradient = gradient;
    // The last word before allocating: the same checks the estimate ran, on the scene as it is now. The
    // background estimate of this very scene and settings is that word already (the scene has not
    // changed since, see SceneDocument::revision); else it is computed here.
    const EstimateOutcome* known = estimator_->current(doc_->revision(), settings);
    const EstimateOutcome check = known ? *known : Estimator::compute(doc_->scene(), settings);
    const QString problem = gradient ? check.gradientProblem : check.problem;
    const auto& estimate = gradient ? check.gradientEstimate : check.estimate;
    if (!problem.isEmpty()) {
        if (why)
            *why = problem;
        log_->error(tr("Cannot run: %1").arg(problem));
        statusBar()->showMessage(tr("Cannot run: %1").arg(problem));
        return false;
    }
    RunRequest req;
    req.scene = doc_->scene();
    req.options = settings.optionsFor(req.scene);
    req.resultPath = resultPathForRun();
    const QString deviceNotice = QString::fromStdString(req.options.deviceNotice);
    runScene_ = req.scene;
    log_->info(tr("Running %1 (%2 steps) on %3 device(s); results go to %4")
                   .arg(gradient ? tr("value and gradient") : tr("forward"))
                   .arg(estimate ? estimate->steps : 0)
                   .arg(estimate ? int(estimate->devices.size()) : 0)
                   .arg(req.resultPath));
    if (gradient) {
        if (auto* dock = findChild<QDockWidget*>(QStringLiteral("gradientDock")))
            dock->raise();
    }
    // Everything the window shows for the run first: Runner::start() then paints it (runStarted) before
    // the worker starts.
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("runMonitorDock")))
        dock->raise();
    statusBar()->showMessage(deviceNotice.isEmpty() ? tr("Running\u2026")
                                                    : tr("Running\u2026 (%1)").arg(deviceNotice));
    // The monitor takes the run's shape now (its phases and devices, from the estimate), not when the
    // first report comes.
    if (estimate) {
        std::vector<telemetry::PhaseProgress> phases{{"forward", 0, estimate->steps, 0}};
        if (gradient) {
            if (estimate->recomputeSteps > 0)
                phases.push_back({"reconstruct", 0, estimate->recomputeSteps, 0});
            phases.push_back({"adjoint", 0, estimate->steps, 0});
        }
        QVector<DeviceMemory> devices;
        for (const auto& d : estimate->devices)
            devices.push_back({QString::fromStdString(d.name), QString(), d.capacity, d.memory});
        monitor_->expectRun(std::move(phases), std::move(devices));
    }
    return runner_->start(std::move(req));
}

void MainWindow::cancelRun() {
    if (!runner_->isRunning())
        return;
    runner_->cancel();
    log_->warning(tr("Cancelling the run after the current step batch\u2026"));
}

void MainWindow::onRunFinished(const RunResultPtr& result, const QString& path) {
    if (result->completed && result->backwardSeconds > 0)
        log_->info(tr("Run completed: %1 steps, forward sweep %2 s, reverse sweep %3 s, objective %4.")
                       .arg(result->steps)
                       .arg(result->forwardSeconds, 0, 'f', 2)
                       .arg(result->backwardSeconds, 0, 'f', 2)
                       .arg(result->objective ? QString::number(*result->objective, 'g', 8) : tr("none")));
    else if (result->completed)
        log_->info(tr("Run completed: %1 steps in %2 s.").arg(result->steps).arg(result->seconds, 0, 'f', 2));
    else if (const QString status = QString::fromStdString(result->status);
             status.contains(QLatin1String("at step")))
        // The status names the phase and its step ("cancelled in the adjoint phase at step 448 of 525");
        // the forward count beside it read as a contradiction ("... after 525 of 525 steps").
        log_->warning(tr("Run stopped: %1; results marked incomplete.").arg(status));
    else
        log_->warning(tr("Run stopped: %1 after %2 of %3 steps; results marked incomplete.")
                          .arg(status)
                          .arg(result->steps)
                          .arg(result->totalSteps));
    // Shown from memory: the run's own arrays (snapshots included) are what the file was written from, so
    // reading the file straight back would only cost time (the History opens the file).
    results_->setResults(ResultsData::fromRun(
        result, runScene_, path.isEmpty() ? QString() : QFileInfo(path).absoluteFilePath()));
    checkResultsScene();
    if (!path.isEmpty() && QFileInfo(path).absoluteDir() == QDir(runFolder())) {
        if (history_->folder() == runFolder())
            history_->addRun(path); // the new file only, not every earlier run's again
        else
            history_->setFolder(runFolder());
    }
    tabs_->setCurrentWidget(results_);
    statusBar()->showMessage(result->completed ? tr("Run completed.") : tr("Run stopped."));
    emit stateChanged();
    emit runCompleted(result, path);
}

void MainWindow::saveLayout() const {
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
}

void MainWindow::restoreLayout() {
    QSettings settings;
    const QByteArray geometry = settings.value(QStringLiteral("mainWindow/geometry")).toByteArray();
    const QByteArray state = settings.value(QStringLiteral("mainWindow/state")).toByteArray();
    if (!geometry.isEmpty())
        restoreGeometry(geometry);
    layoutRestored_ = !state.isEmpty() && restoreState(state);
}

void MainWindow::resetLayout() {
    restoreState(defaultState_);
    applyDefaultSizes();
}

void MainWindow::applyDefaultSizes() {
    // The central 3-D view gets what the docks do not need.
    auto dock = [this](const char* name) { return findChild<QDockWidget*>(QLatin1String(name)); };
    // A narrow window (1024 px) gives the scene tree less, so the right-hand panels keep their width; a
    // wide one (1600 px) lets the tree show its summaries and the seven right-hand tabs fit without
    // scroll buttons.
    const int left = std::clamp(width() / 4, 220, 360);
    const int right = std::clamp(width() * 36 / 100, 345, 580);
    resizeDocks({dock("sceneTreeDock"), dock("devicesDock")}, {left, right}, Qt::Horizontal);
    // The tree takes the larger share of the left column on a tall window (the property list is short).
    const int tree = std::clamp(height() * 45 / 100, 300, 480);
    resizeDocks({dock("sceneTreeDock"), dock("propertiesDock")}, {tree, 320}, Qt::Vertical);
    resizeDocks({dock("logDock")}, {110}, Qt::Vertical);
}

void MainWindow::childEvent(QChildEvent* e) {
    QMainWindow::childEvent(e);
    // The docks' tab bars (QMainWindow makes them as docks are tabbed) show whole titles and scroll:
    // seven titles elided to fit 380 px read "De…", "G…", "O…".
    if (e->polished())
        if (auto* bar = qobject_cast<QTabBar*>(e->child())) {
            bar->setElideMode(Qt::ElideNone);
            bar->setUsesScrollButtons(true);
        }
}

void MainWindow::showEvent(QShowEvent* e) {
    QMainWindow::showEvent(e);
    if (!shown_ && !layoutRestored_)
        QTimer::singleShot(0, this, &MainWindow::applyDefaultSizes);
    shown_ = true;
}

void MainWindow::closeEvent(QCloseEvent* e) {
    if (!maybeSave()) {
        e->ignore();
        return;
    }
    runner_->cancel();
    saveLayout();
    e->accept();
}

} // namespace yee::ui
