#include "ui/Reactions.hpp"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QStatusBar>

#include "ui/LogPanel.hpp"
#include "ui/MainWindow.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"

namespace yee::ui {

Reaction::Reaction(QAction* action, MainWindow* window) : QObject(action), window_(window) {
    connect(action, &QAction::triggered, this, [this] { onTriggered(); });
    connect(window, &MainWindow::stateChanged, this, [this] { updateEnabled(); });
}

QAction* Reaction::action() const {
    return static_cast<QAction*>(parent());
}

// ---- files ----

void NewSceneReaction::onTriggered() {
    window()->newScene();
}

OpenSceneReaction::OpenSceneReaction(QAction* action, MainWindow* window, const QString& path)
    : Reaction(action, window), path_(path) {
    if (!path_.isEmpty())
        action->setToolTip(path_);
}

void OpenSceneReaction::onTriggered() {
    QString path = path_;
    if (path.isEmpty()) {
        const QString dir = window()->document()->filePath().isEmpty()
                                ? QDir::homePath()
                                : QFileInfo(window()->document()->filePath()).absolutePath();
        path = QFileDialog::getOpenFileName(window(), tr("Open scene"), dir,
                                            tr("Yee scenes (*.json);;All files (*)"));
    }
    if (!path.isEmpty())
        window()->openScene(path);
}

SaveSceneReaction::SaveSceneReaction(QAction* action, MainWindow* window, bool saveAs)
    : Reaction(action, window), saveAs_(saveAs) {
    updateEnabled();
}

void SaveSceneReaction::onTriggered() {
    window()->saveScene(saveAs_);
}

void SaveSceneReaction::updateEnabled() {
    if (!saveAs_)
        action()->setEnabled(window()->document()->isModified() ||
                             window()->document()->filePath().isEmpty());
}

void OpenResultsReaction::onTriggered() {
    const QString dir = window()->document()->filePath().isEmpty()
                            ? QDir::homePath()
                            : QFileInfo(window()->document()->filePath()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(window(), tr("Open results"), dir,
                                                      tr("Yee results (*.h5);;All files (*)"));
    if (!path.isEmpty())
        window()->openResults(path);
}

RecentFilesMenu::RecentFilesMenu(QMenu* menu, MainWindow* window)
    : QObject(menu), menu_(menu), window_(window) {
    connect(menu_, &QMenu::aboutToShow, this, &RecentFilesMenu::rebuild);
    rebuild();
}

QStringList RecentFilesMenu::files() {
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void RecentFilesMenu::add(const QString& path) {
    QStringList list = files();
    list.removeAll(path);
    list.prepend(path);
    while (list.size() > 10)
        list.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), list);
}

void RecentFilesMenu::rebuild() {
    menu_->clear();
    const QStringList list = files();
    for (const QString& f : list) {
        // The full path: two scenes of one name in different folders stay apart.
        QAction* a = menu_->addAction(QStringLiteral("%1  \u2014  %2").arg(QFileInfo(f).fileName(), f));
        a->setToolTip(f);
        a->setData(f);
        a->setEnabled(QFileInfo::exists(f));
        new OpenSceneReaction(a, window_, f);
    }
    if (list.isEmpty())
        menu_->addAction(tr("(none)"))->setEnabled(false);
}

// ---- editing ----

AddItemReaction::AddItemReaction(QAction* action, MainWindow* window, NewItemKind kind)
    : AddItemReaction(action, window, [kind](const scene::Scene& s) { return makeNewItem(s, kind); }) {}

AddItemReaction::AddItemReaction(QAction* action, MainWindow* window,
                                 std::function<SceneEntity(const scene::Scene&)> make)
    : Reaction(action, window), make_(std::move(make)) {}

void AddItemReaction::onTriggered() {
    SceneDocument* doc = window()->document();
    doc->undoStack()->push(new AddItemCommand(doc, make_(doc->scene())));
}

DeleteItemReaction::DeleteItemReaction(QAction* action, MainWindow* window) : Reaction(action, window) {
    updateEnabled();
}

void DeleteItemReaction::onTriggered() {
    SceneDocument* doc = window()->document();
    const ItemRef ref = doc->currentItem();
    const QString why = RemoveItemCommand::blocker(doc->scene(), ref);
    if (!why.isEmpty()) {
        window()->log()->warning(tr("Not removed: %1").arg(why));
        window()->statusBar()->showMessage(tr("Not removed: %1").arg(why), 5000);
        return;
    }
    doc->undoStack()->push(new RemoveItemCommand(doc, ref));
}

void DeleteItemReaction::updateEnabled() {
    const ItemRef ref = window()->document()->currentItem();
    action()->setEnabled(isElementKind(ref.kind) && ref.kind != ItemKind::Boundary);
}

// ---- running ----

RunReaction::RunReaction(QAction* action, MainWindow* window, bool gradient)
    : Reaction(action, window), gradient_(gradient) {
    updateEnabled();
}

void RunReaction::onTriggered() {
    window()->startRun(gradient_);
}

void RunReaction::updateEnabled() {
    const QString problem = window()->runProblem(gradient_);
    const bool running = window()->runner()->isRunning();
    action()->setEnabled(!running && problem.isEmpty());
    action()->setToolTip(running ? tr("A run is in progress.")
                         : problem.isEmpty()
                             ? (gradient_
                                    ? tr("Run forward and adjoint: objective and its gradient (Shift+F5)")
                                    : tr("Run the forward simulation on the worker thread (F5)"))
                             : tr("Cannot run: %1").arg(problem));
}

CancelRunReaction::CancelRunReaction(QAction* action, MainWindow* window) : Reaction(action, window) {
    updateEnabled();
}

void CancelRunReaction::onTriggered() {
    window()->cancelRun();
}

void CancelRunReaction::updateEnabled() {
    action()->setEnabled(window()->runner()->isRunning());
}

} // namespace yee::ui
