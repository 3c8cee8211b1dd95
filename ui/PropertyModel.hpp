#pragma once
/// \file PropertyModel.hpp
/// Table model of the current item's properties (name, value). Edits are checked with checkProperty()
/// and applied as SetPropertyCommands; a rejected value is explained and not applied.
#include <QAbstractTableModel>

#include "ui/SceneProperties.hpp"

namespace yee::ui {

class SceneDocument;

/// Rows: visible properties of the document's current item, under group headers (propertyGroups(), for
/// elements with properties in more than one group). Column 0: label (+ unit), column 1: value.
class PropertyModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /// Data role holding a row's PropertyInfo::key.
    static constexpr int KeyRole = Qt::UserRole + 1;
    /// Data role holding a row's PropertyInfo::choices (QStringList) for combo-box editors.
    static constexpr int ChoicesRole = Qt::UserRole + 2;
    /// Data role holding a row's PropertyType (int).
    static constexpr int TypeRole = Qt::UserRole + 3;

    explicit PropertyModel(SceneDocument* doc, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    /// Checks and applies a value (role EditRole). Returns false, and emits valueRejected(), when the
    /// value is refused; the scene and the undo stack are then untouched.
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    /// The item whose properties are shown.
    ItemRef item() const { return item_; }
    /// Why the property `key` of the current item is not exactly what the grid draws: a size that is not
    /// a whole number of cells (the rasteriser staircases it), or empty. Shown as a warning icon and tooltip.
    QString staircaseNote(const QString& key) const;
    /// Row of property `key`, or -1.
    int rowOf(const QString& key) const;
    /// True when `row` is a group header (General, Geometry, Material, Time profile, ...): not editable.
    bool isGroupRow(int row) const;
    /// The title of the group row `row` belongs to ("" when the item's properties are not grouped).
    QString groupOfRow(int row) const;
    /// Set property `key` of the shown item (as if typed into the editor). Returns false when rejected.
    bool setValue(const QString& key, const QVariant& value);
    /// The explanation of the last rejected value (empty after an accepted one).
    QString lastError() const { return lastError_; }

signals:
    /// A value was refused; `message` names the scene field and the reason.
    void valueRejected(const QString& message);
    /// A value was applied.
    void valueAccepted(const QString& key);

private:
    void reload();
    QList<PropertyInfo> groupedProperties() const;

    SceneDocument* doc_;
    ItemRef item_;
    QList<PropertyInfo> props_;
    QList<int> rows_; ///< per row: index into props_, or -1 - g for the header of group title g
    QStringList groupTitles_;
    QString lastError_;
};

} // namespace yee::ui
