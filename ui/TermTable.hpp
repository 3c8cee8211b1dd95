#pragma once
/// \file TermTable.hpp
/// An editable table of objective terms or of optimisation constraints. Its columns are the keys the
/// schema declares for the section (scene/Schema.cpp termKeys: detector, quantity, reduce,
/// wavelength_um, then weight, or bound and limit); the detector column offers the detectors whose
/// kind serves an objective, the quantity and reduction columns what that kind declares
/// (scene/DetectorKinds.hpp), the wavelength column the detector's wavelengths. Every edit is one
/// undo step through SetObjectiveCommand or SetOptimizationCommand.
#include <QStringList>
#include <QVariant>
#include <QWidget>

#include "yee/scene/Scene.hpp"

class QTableWidget;

namespace yee::ui {

class SceneDocument;

/// Which list a TermTable edits.
enum class TermList {
    Objective,  ///< objective.terms
    Constraints ///< optimization.constraints
};

/// The table. Lives on the GUI thread; reads the scene through the document.
class TermTable : public QWidget {
    Q_OBJECT
public:
    TermTable(SceneDocument* doc, TermList which, QWidget* parent = nullptr);

    QTableWidget* table() const { return table_; }
    /// The file keys of the columns, in order.
    const QStringList& columns() const { return keys_; }
    /// Rows (terms or constraints) in the scene.
    int rowCount() const;
    /// Append a term on the current detector (else the first that can take one): its kind's first
    /// quantity, that quantity's default reduction (at the detector's first wavelength when it is
    /// at_wavelength). Returns false and says why in `why` when no detector can take a term.
    bool addRow(QString* why = nullptr);
    /// Remove row `row`. False when there is no such row.
    bool removeRow(int row);
    /// Set key `key` of row `row` to `value` (file form: a detector name, a quantity or reduction
    /// name, a number). Columns that depend on it follow (a detector that does not offer the quantity
    /// gets its first one, a reduction it does not allow its default, a wavelength it does not record
    /// its first). Returns the reason when the edit is refused (scene unchanged), else an empty string.
    QString setValue(int row, const QString& key, const QVariant& value);
    /// The value of `key` in row `row`, as in the file (string or number); invalid when none.
    QVariant value(int row, const QString& key) const;

public slots:
    /// Rebuild the rows from the scene.
    void refresh();

signals:
    /// An edit was refused, or applied to a scene that still does not validate (the message says why).
    void problem(const QString& message);

private:
    scene::ObjectiveTerm& termOf(scene::Scene& s, int row) const;
    const scene::ObjectiveTerm& termOf(const scene::Scene& s, int row) const;
    /// Push `trial` (the whole scene edited) as one undo step named `text`.
    void commit(const scene::Scene& trial, const QString& text);
    void scheduleRefresh();
    QWidget* editorFor(int row, const QString& key);

    SceneDocument* doc_;
    TermList which_;
    QStringList keys_;
    QTableWidget* table_;
    bool refreshPending_ = false;
};

/// Make `t` consistent with detector `d`'s kind: a quantity it offers, a reduction it allows (the
/// quantity's default when allowed), one of its wavelengths for at_wavelength. False when the kind
/// serves no objective.
bool fitTermToDetector(scene::ObjectiveTerm& t, const scene::Detector& d);

} // namespace yee::ui
