#pragma once
/// \file RunHistory.hpp
/// The run history dock: every results file of the open scene's run folder (one file per studio run,
/// never overwritten), newest first, with its kind, status and wall time; double-click opens one.
#include <QString>
#include <QWidget>

class QTreeWidget;
class QTreeWidgetItem;

namespace yee::ui {

/// List of the runs in one run folder.
class RunHistory : public QWidget {
    Q_OBJECT
public:
    explicit RunHistory(QWidget* parent = nullptr);

    /// The results file of run number `n` in `folder`: `<folder>/run-<nnn>.results.h5`.
    static QString runFile(const QString& folder, int n);
    /// The lowest run number above every run file present in `folder` (1 for an empty or missing one).
    static int nextRunNumber(const QString& folder);

    /// Show the runs of `folder` (read from their results files; an unreadable file is listed as such).
    void setFolder(const QString& folder);
    QString folder() const { return folder_; }
    /// Re-read the folder (after a run wrote its file).
    void refresh();
    /// List the run file `path` of this folder (just written by a run) without re-reading the others;
    /// a file already listed is read again. A path outside the folder or not named like a run file
    /// re-reads the whole folder instead.
    void addRun(const QString& path);
    /// Forget every entry and the folder (a new, unsaved scene has no runs yet).
    void clear();

    /// Number of runs listed.
    int count() const;
    /// Results file of entry `row` (0: newest).
    QString pathAt(int row) const;
    /// Status of entry `row`: "complete", "incomplete: …" or "unreadable: …".
    QString statusAt(int row) const;
    QTreeWidget* list() const { return list_; }

signals:
    /// The user asked to open this results file (double-click or Enter).
    void openRequested(const QString& path);

private:
    /// Fills `item` (run number `n`, file `path`) from the file's root attributes and phase table.
    void fill(QTreeWidgetItem* item, int n, const QString& path) const;

    QTreeWidget* list_;
    QString folder_;
};

} // namespace yee::ui
