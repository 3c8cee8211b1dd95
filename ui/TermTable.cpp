#include "ui/TermTable.hpp"

#include <QComboBox>
#include <QDoubleValidator>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "ui/Format.hpp"
#include "ui/OptimizationCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneProperties.hpp"
#include "yee/scene/DetectorKinds.hpp"
#include "yee/scene/Schema.hpp"

namespace yee::ui {

namespace {

using scene::KeyType;
using scene::SectionId;

SectionId sectionOf(TermList w) {
    return w == TermList::Objective ? SectionId::Term : SectionId::Constraint;
}

/// The kind of detector `name` in `s`, or nullptr.
const scene::Detector* findDetector(const scene::Scene& s, const std::string& name) {
    for (const auto& d : s.detectors)
        if (d.name == name)
            return &d;
    return nullptr;
}

/// True when detector `d`'s kind offers any objective quantity.
bool servesObjective(const scene::Detector& d) {
    const auto* k = scene::detectorKind(d.type);
    return k && !k->objective.empty();
}

/// A label without the section's prefix ("Term detector" -> "Detector").
QString columnLabel(const char* label) {
    QString l = QString::fromLatin1(label);
    for (const char* p : {"Term ", "Constraint "})
        if (l.startsWith(QLatin1String(p)))
            l = l.mid(int(qstrlen(p)));
    if (!l.isEmpty())
        l[0] = l[0].toUpper();
    return l;
}

QVariant toVariant(const scene::SchemaValue& v) {
    if (const auto* d = std::get_if<double>(&v))
        return *d;
    if (const auto* i = std::get_if<int>(&v))
        return *i;
    if (const auto* s = std::get_if<std::string>(&v))
        return QString::fromStdString(*s);
    return {};
}

QString numberText(double v) {
    return QString::number(v, 'g', 10);
}

} // namespace

bool fitTermToDetector(scene::ObjectiveTerm& t, const scene::Detector& d) {
    const auto* kind = scene::detectorKind(d.type);
    if (!kind || kind->objective.empty())
        return false;
    const scene::ObjectiveUse* use = kind->use(t.quantity);
    if (!use) {
        t.quantity = scene::quantity(kind->objective.front().quantity);
        use = kind->use(t.quantity);
    }
    const auto& allowed = use->reductions;
    if (std::find(allowed.begin(), allowed.end(), t.reduce) == allowed.end()) {
        const auto& qs = scene::quantitySpecs();
        const std::size_t qi = std::size_t(t.quantity);
        const scene::Reduce def = qi < qs.size() ? qs[qi].defaultReduce : scene::Reduce::AtWavelength;
        t.reduce = std::find(allowed.begin(), allowed.end(), def) != allowed.end() || allowed.empty()
                       ? def
                       : allowed.front();
    }
    if (t.reduce == scene::Reduce::AtWavelength && !d.wavelengths.empty() &&
        std::find(d.wavelengths.begin(), d.wavelengths.end(), t.wavelength) == d.wavelengths.end())
        t.wavelength = d.wavelengths.front();
    return true;
}

TermTable::TermTable(SceneDocument* doc, TermList which, QWidget* parent)
    : QWidget(parent), doc_(doc), which_(which) {
    const scene::SectionSpec& sec = scene::section(sectionOf(which));
    QStringList labels;
    for (const auto& k : sec.keys) {
        const QString name = QString::fromLatin1(k.name);
        if (keys_.contains(name))
            continue;
        keys_ << name;
        QString label = columnLabel(k.label);
        if (*k.unit)
            label += QStringLiteral(" (%1)").arg(unitText(QString::fromLatin1(k.unit)));
        labels << label;
    }
    table_ = new QTableWidget(0, int(keys_.size()), this);
    table_->setObjectName(which == TermList::Objective ? QStringLiteral("objectiveTerms")
                                                       : QStringLiteral("constraintTerms"));
    table_->setHorizontalHeaderLabels(labels);
    for (int c = 0; c < keys_.size(); ++c)
        if (const auto* k = sec.findAny(keys_[c].toStdString()))
            table_->horizontalHeaderItem(c)->setToolTip(QString::fromLatin1(k->help));
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->setVisible(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setMinimumHeight(90);

    auto* add = new QPushButton(which == TermList::Objective ? tr("Add term") : tr("Add constraint"), this);
    add->setObjectName(QStringLiteral("addRow"));
    auto* remove = new QPushButton(tr("Remove"), this);
    remove->setObjectName(QStringLiteral("removeRow"));
    connect(add, &QPushButton::clicked, this, [this] {
        QString why;
        if (!addRow(&why))
            emit problem(why);
    });
    connect(remove, &QPushButton::clicked, this, [this] { removeRow(table_->currentRow()); });

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch(1);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(table_, 1);
    lay->addLayout(buttons);

    connect(doc_, &SceneDocument::sceneChanged, this, &TermTable::scheduleRefresh);
    connect(doc_, &SceneDocument::sceneReset, this, &TermTable::scheduleRefresh);
    refresh();
}

int TermTable::rowCount() const {
    const auto& s = doc_->scene();
    return int(which_ == TermList::Objective ? s.objective.terms.size() : s.optimization.constraints.size());
}

scene::ObjectiveTerm& TermTable::termOf(scene::Scene& s, int row) const {
    return which_ == TermList::Objective ? s.objective.terms[std::size_t(row)]
                                         : s.optimization.constraints[std::size_t(row)].term;
}

const scene::ObjectiveTerm& TermTable::termOf(const scene::Scene& s, int row) const {
    return which_ == TermList::Objective ? s.objective.terms[std::size_t(row)]
                                         : s.optimization.constraints[std::size_t(row)].term;
}

void TermTable::commit(const scene::Scene& trial, const QString& text) {
    if (which_ == TermList::Objective)
        doc_->undoStack()->push(new SetObjectiveCommand(doc_, trial.objective, text));
    else
        doc_->undoStack()->push(new SetOptimizationCommand(doc_, trial.optimization, text));
}

bool TermTable::addRow(QString* why) {
    const scene::Scene& s = doc_->scene();
    const scene::Detector* det = nullptr;
    const ItemRef cur = doc_->currentItem();
    if (cur.kind == ItemKind::Detector && cur.index >= 0 && cur.index < int(s.detectors.size()) &&
        servesObjective(s.detectors[std::size_t(cur.index)]))
        det = &s.detectors[std::size_t(cur.index)];
    for (std::size_t i = 0; !det && i < s.detectors.size(); ++i)
        if (servesObjective(s.detectors[i]))
            det = &s.detectors[i];
    const QString path = which_ == TermList::Objective ? QStringLiteral("objective.terms")
                                                       : QStringLiteral("optimization.constraints");
    if (!det) {
        if (why)
            *why = tr("%1: add a detector that can serve an objective (flux, energy, phasor, mode monitor) "
                      "first")
                       .arg(path);
        return false;
    }
    scene::Scene trial = s;
    const int row = scene::section(sectionOf(which_)).append(trial);
    scene::ObjectiveTerm& t = termOf(trial, row);
    t.detector = det->name;
    t.quantity = scene::quantity(scene::detectorKind(det->type)->objective.front().quantity);
    t.reduce = scene::quantitySpecs()[std::size_t(t.quantity)].defaultReduce;
    fitTermToDetector(t, *det);
    commit(trial, which_ == TermList::Objective
                      ? tr("Add objective term on %1").arg(QString::fromStdString(det->name))
                      : tr("Add constraint on %1").arg(QString::fromStdString(det->name)));
    scheduleRefresh();
    return true;
}

bool TermTable::removeRow(int row) {
    if (row < 0 || row >= rowCount())
        return false;
    scene::Scene trial = doc_->scene();
    if (which_ == TermList::Objective)
        trial.objective.terms.erase(trial.objective.terms.begin() + row);
    else
        trial.optimization.constraints.erase(trial.optimization.constraints.begin() + row);
    commit(trial, which_ == TermList::Objective ? tr("Remove objective term %1").arg(row + 1)
                                                : tr("Remove constraint %1").arg(row + 1));
    scheduleRefresh();
    return true;
}

QVariant TermTable::value(int row, const QString& key) const {
    if (row < 0 || row >= rowCount())
        return {};
    const auto* k = scene::section(sectionOf(which_)).findAny(key.toStdString());
    if (!k || !k->get)
        return {};
    return toVariant(k->get(doc_->scene(), row));
}

QString TermTable::setValue(int row, const QString& key, const QVariant& value) {
    const QString what = which_ == TermList::Objective ? QStringLiteral("objective.terms[%1].%2")
                                                       : QStringLiteral("optimization.constraints[%1].%2");
    const QString path = what.arg(row).arg(key);
    if (row < 0 || row >= rowCount())
        return tr("%1: no such row").arg(path);
    const auto* k = scene::section(sectionOf(which_)).findAny(key.toStdString());
    if (!k || !k->set)
        return tr("%1: no such key").arg(path);
    scene::SchemaValue v;
    switch (k->type) {
    case KeyType::Number: {
        bool ok = false;
        const double d = value.typeId() == QMetaType::QString ? QLocale::c().toDouble(value.toString(), &ok)
                                                              : value.toDouble(&ok);
        if (!ok || !std::isfinite(d))
            return tr("%1: '%2' is not a number").arg(path, value.toString());
        if (const std::string e = scene::checkNumber(*k, d); !e.empty())
            return tr("%1: %2").arg(path, QString::fromStdString(e));
        v = d;
        break;
    }
    case KeyType::Integer:
        v = value.toInt();
        break;
    case KeyType::Enum:
        if (k->choices && !k->choices->find(value.toString().toStdString()))
            return tr("%1: %2").arg(
                path, QString::fromStdString(k->choices->unknownText(value.toString().toStdString())));
        v = value.toString().toStdString();
        break;
    default:
        v = value.toString().toStdString();
        break;
    }
    scene::Scene trial = doc_->scene();
    try {
        k->set(trial, row, v);
    } catch (const std::exception& e) {
        return tr("%1: %2").arg(path, QString::fromStdString(e.what()));
    }
    scene::ObjectiveTerm& t = termOf(trial, row);
    if (const scene::Detector* d = findDetector(trial, t.detector)) {
        if (!fitTermToDetector(t, *d))
            return tr("%1: detector '%2' serves no objective").arg(path, QString::fromStdString(t.detector));
        // The detector's own choice wins over a quantity or reduction it does not offer; a quantity or
        // reduction picked here that the detector refuses is refused.
        if (key == QLatin1String("quantity") && toVariant(k->get(trial, row)).toString() != value.toString())
            return tr("%1: detector '%2' does not offer %3")
                .arg(path, QString::fromStdString(t.detector), value.toString());
        if (key == QLatin1String("reduce") && toVariant(k->get(trial, row)).toString() != value.toString())
            return tr("%1: %2 of detector '%3' cannot be reduced by %4")
                .arg(path, QString::fromLatin1(scene::quantities().nameOf(int(t.quantity))),
                     QString::fromStdString(t.detector), value.toString());
        if (key == QLatin1String("wavelength_um") && t.wavelength != std::get<double>(v))
            return tr("%1: detector '%2' records no wavelength %3 µm")
                .arg(path, QString::fromStdString(t.detector), numberText(std::get<double>(v)));
    } else {
        return tr("%1: no detector named '%2'").arg(path, QString::fromStdString(t.detector));
    }
    const bool wasValid = sceneProblem(doc_->scene()).isEmpty();
    const QString problemText = sceneProblem(trial);
    if (wasValid && !problemText.isEmpty())
        return problemText;
    const QString label = table_->horizontalHeaderItem(int(keys_.indexOf(key)))
                              ? table_->horizontalHeaderItem(int(keys_.indexOf(key)))->text()
                              : key;
    commit(trial,
           (which_ == TermList::Objective ? tr("Objective term %1 \u203a %2") : tr("Constraint %1 \u203a %2"))
               .arg(row + 1)
               .arg(label));
    if (!problemText.isEmpty())
        emit problem(problemText);
    scheduleRefresh();
    return {};
}

void TermTable::scheduleRefresh() {
    if (refreshPending_)
        return;
    refreshPending_ = true;
    QMetaObject::invokeMethod(this, &TermTable::refresh, Qt::QueuedConnection);
}

QWidget* TermTable::editorFor(int row, const QString& key) {
    const scene::Scene& s = doc_->scene();
    const scene::ObjectiveTerm& t = termOf(s, row);
    const scene::Detector* d = findDetector(s, t.detector);
    const auto* k = scene::section(sectionOf(which_)).findAny(key.toStdString());
    const QString current = value(row, key).toString();
    auto combo = [&](const QStringList& names, const QStringList& labels) {
        auto* c = new QComboBox;
        for (int i = 0; i < names.size(); ++i)
            c->addItem(labels.value(i, names[i]), names[i]);
        c->setCurrentIndex(std::max(0, int(names.indexOf(current))));
        connect(c, &QComboBox::activated, this, [this, c, row, key](int i) {
            if (QString e = setValue(row, key, c->itemData(i)); !e.isEmpty()) {
                emit problem(e);
                scheduleRefresh();
            }
        });
        return c;
    };
    if (k->type == KeyType::DetectorRef) {
        QStringList names;
        for (const auto& det : s.detectors)
            if (servesObjective(det))
                names << QString::fromStdString(det.name);
        if (!names.contains(current))
            names.prepend(current);
        return combo(names, names);
    }
    if (key == QLatin1String("quantity")) {
        QStringList names, labels;
        if (const auto* kind = d ? scene::detectorKind(d->type) : nullptr)
            for (const auto& u : kind->objective) {
                names << QString::fromStdString(u.quantity);
                const auto* e = scene::quantities().find(u.quantity);
                labels << (e ? QString::fromLatin1(e->label) : names.back());
            }
        return combo(names, labels);
    }
    if (key == QLatin1String("reduce")) {
        QStringList names, labels;
        if (const auto* kind = d ? scene::detectorKind(d->type) : nullptr)
            if (const auto* use = kind->use(t.quantity))
                for (scene::Reduce r : use->reductions) {
                    const auto* e = scene::reductions().find(int(r));
                    names << QString::fromLatin1(e ? e->name : "?");
                    labels << (e ? QString::fromLatin1(e->label) : names.back());
                }
        return combo(names, labels);
    }
    if (key == QLatin1String("wavelength_um")) {
        QStringList names;
        if (d)
            for (double w : d->wavelengths)
                names << numberText(w);
        auto* c = new QComboBox;
        for (const QString& n : names)
            c->addItem(n, n.toDouble());
        c->setCurrentIndex(std::max(0, int(names.indexOf(numberText(t.wavelength)))));
        c->setEnabled(t.reduce == scene::Reduce::AtWavelength);
        connect(c, &QComboBox::activated, this, [this, c, row, key](int i) {
            if (QString e = setValue(row, key, c->itemData(i)); !e.isEmpty()) {
                emit problem(e);
                scheduleRefresh();
            }
        });
        return c;
    }
    if (k->type == KeyType::Enum && k->choices) {
        QStringList names, labels;
        for (const auto& e : k->choices->entries) {
            names << QString::fromLatin1(e.name);
            labels << QString::fromLatin1(e.label);
        }
        return combo(names, labels);
    }
    auto* e = new QLineEdit(k->type == KeyType::Number ? numberText(value(row, key).toDouble()) : current);
    if (k->type == KeyType::Number) {
        auto* val = new QDoubleValidator(e);
        val->setLocale(QLocale::c());
        e->setValidator(val);
    }
    connect(e, &QLineEdit::editingFinished, this, [this, e, row, key] {
        if (e->text() == (value(row, key).typeId() == QMetaType::Double
                              ? numberText(value(row, key).toDouble())
                              : value(row, key).toString()))
            return;
        if (QString err = setValue(row, key, e->text()); !err.isEmpty()) {
            emit problem(err);
            scheduleRefresh();
        }
    });
    return e;
}

void TermTable::refresh() {
    refreshPending_ = false;
    const int rows = rowCount();
    table_->setRowCount(rows);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < keys_.size(); ++c)
            table_->setCellWidget(r, c, editorFor(r, keys_[c]));
}

} // namespace yee::ui
