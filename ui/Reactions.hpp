#pragma once
/// \file Reactions.hpp
/// Small "reaction" objects (ParaView style): each owns the behaviour of one QAction, so the main
/// window only creates actions and places them in menus and tool bars.
#include <QObject>
#include <QPointer>

#include <functional>

#include "ui/NewItems.hpp"

class QAction;
class QMenu;

namespace yee::ui {

class MainWindow;

/// Base: a reaction is a child of its action and runs onTriggered() when the action fires.
class Reaction : public QObject {
    Q_OBJECT
public:
    Reaction(QAction* action, MainWindow* window);

protected:
    virtual void onTriggered() = 0;
    /// Re-evaluate whether the action is enabled (called when the window's state changes).
    virtual void updateEnabled() {}
    QAction* action() const;
    MainWindow* window() const { return window_; }

private:
    QPointer<MainWindow> window_;
};

/// File > New.
class NewSceneReaction : public Reaction {
    Q_OBJECT
public:
    using Reaction::Reaction;

protected:
    void onTriggered() override;
};

/// File > Open... (or a fixed path: recent files and examples).
class OpenSceneReaction : public Reaction {
    Q_OBJECT
public:
    OpenSceneReaction(QAction* action, MainWindow* window, const QString& path = {});

protected:
    void onTriggered() override;

private:
    QString path_;
};

/// File > Save and File > Save As...
class SaveSceneReaction : public Reaction {
    Q_OBJECT
public:
    SaveSceneReaction(QAction* action, MainWindow* window, bool saveAs);

protected:
    void onTriggered() override;
    void updateEnabled() override;

private:
    bool saveAs_;
};

/// File > Open Results...
class OpenResultsReaction : public Reaction {
    Q_OBJECT
public:
    using Reaction::Reaction;

protected:
    void onTriggered() override;
};

/// Keeps a menu filled with the recent scene files (QSettings "recentFiles").
class RecentFilesMenu : public QObject {
    Q_OBJECT
public:
    RecentFilesMenu(QMenu* menu, MainWindow* window);
    /// Put `path` first in the list (at most 10 kept).
    static void add(const QString& path);
    static QStringList files();

private:
    void rebuild();
    QMenu* menu_;
    MainWindow* window_;
};

/// Insert > (object, source, detector, material, design region).
class AddItemReaction : public Reaction {
    Q_OBJECT
public:
    AddItemReaction(QAction* action, MainWindow* window, NewItemKind kind);
    /// Adds what `make` builds for the current scene (a source or detector of any schema type).
    AddItemReaction(QAction* action, MainWindow* window,
                    std::function<SceneEntity(const scene::Scene&)> make);

protected:
    void onTriggered() override;

private:
    std::function<SceneEntity(const scene::Scene&)> make_;
};

/// Edit > Delete: removes the current item, or explains why it cannot.
class DeleteItemReaction : public Reaction {
    Q_OBJECT
public:
    DeleteItemReaction(QAction* action, MainWindow* window);

protected:
    void onTriggered() override;
    void updateEnabled() override;
};

/// Run > Run forward / Run value and gradient, enabled while the estimate says the run can start.
class RunReaction : public Reaction {
    Q_OBJECT
public:
    RunReaction(QAction* action, MainWindow* window, bool gradient);

protected:
    void onTriggered() override;
    void updateEnabled() override;

private:
    bool gradient_;
};

/// Run > Cancel.
class CancelRunReaction : public Reaction {
    Q_OBJECT
public:
    CancelRunReaction(QAction* action, MainWindow* window);

protected:
    void onTriggered() override;
    void updateEnabled() override;
};

} // namespace yee::ui
