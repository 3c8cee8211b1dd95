#include "ui/ObjectiveEditor.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "ui/OptimizationCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/TermTable.hpp"
#include "ui/WheelGuard.hpp"
#include "yee/scene/Schema.hpp"

namespace yee::ui {

ObjectiveEditor::ObjectiveEditor(SceneDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    goal_ = new QComboBox(this);
    goal_->setObjectName(QStringLiteral("objectiveGoal"));
    const auto* gk = scene::section(scene::SectionId::Objective).findAny("goal");
    for (const auto& e : scene::goals().entries)
        goal_->addItem(QString::fromLatin1(e.label), QString::fromLatin1(e.name));
    if (gk)
        goal_->setToolTip(QString::fromLatin1(gk->help));
    terms_ = new TermTable(doc_, TermList::Objective, this);
    problem_ = new QLabel(this);
    problem_->setObjectName(QStringLiteral("objectiveProblem"));
    problem_->setWordWrap(true);
    problem_->setStyleSheet(QStringLiteral("color: #b00020"));

    auto* form = new QFormLayout;
    form->addRow(gk ? QString::fromLatin1(gk->label) : tr("Goal"), goal_);
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(form);
    lay->addWidget(terms_, 1);
    lay->addWidget(problem_);

    connect(goal_, &QComboBox::activated, this, [this](int i) { setGoal(goal_->itemData(i).toString()); });
    connect(terms_, &TermTable::problem, this, [this](const QString& m) {
        problem_->setText(m);
        emit problem(m);
    });
    connect(doc_, &SceneDocument::sceneChanged, this, &ObjectiveEditor::sync);
    connect(doc_, &SceneDocument::sceneReset, this, &ObjectiveEditor::sync);
    WheelGuard::install(this);
    sync();
}

bool ObjectiveEditor::setGoal(const QString& goal) {
    const auto* e = scene::goals().find(goal.toStdString());
    if (!e)
        return false;
    scene::Objective o = doc_->scene().objective;
    const bool maximize = e->value != 0;
    if (o.maximize == maximize)
        return false;
    o.maximize = maximize;
    doc_->undoStack()->push(new SetObjectiveCommand(doc_, o, tr("Objective \u203a Goal: %1").arg(e->label)));
    return true;
}

QString ObjectiveEditor::problemText() const {
    return problem_->text();
}

void ObjectiveEditor::sync() {
    const QSignalBlocker block(goal_);
    goal_->setCurrentIndex(goal_->findData(doc_->scene().objective.maximize ? QStringLiteral("maximize")
                                                                            : QStringLiteral("minimize")));
    if (doc_->scene().objective.terms.empty())
        problem_->setText(tr("No terms: a value-and-grad run or an optimisation needs at least one."));
    else if (problem_->text().startsWith(tr("No terms")))
        problem_->clear();
}

} // namespace yee::ui
