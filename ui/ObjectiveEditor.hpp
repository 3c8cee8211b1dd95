#pragma once
/// \file ObjectiveEditor.hpp
/// The objective dock: the goal (maximize / minimize) and the table of weighted terms (TermTable):
/// add, remove and edit terms, each picking a detector, a quantity its kind offers, a reduction, a
/// wavelength the detector records, and a weight. With it any scene built from scratch gets the
/// objective a value-and-grad run or an optimisation needs.
#include <QWidget>

class QComboBox;
class QLabel;

namespace yee::ui {

class SceneDocument;
class TermTable;

/// The editor. Every edit is one undo step.
class ObjectiveEditor : public QWidget {
    Q_OBJECT
public:
    explicit ObjectiveEditor(SceneDocument* doc, QWidget* parent = nullptr);

    TermTable* terms() const { return terms_; }
    QComboBox* goalBox() const { return goal_; }
    /// Set the goal ("maximize" or "minimize"). False when unchanged or unknown.
    bool setGoal(const QString& goal);
    /// The last refusal or scene problem shown under the table ("" when none).
    QString problemText() const;

signals:
    /// An edit was refused (for the log).
    void problem(const QString& message);

private:
    void sync();

    SceneDocument* doc_;
    QComboBox* goal_;
    TermTable* terms_;
    QLabel* problem_;
};

} // namespace yee::ui
