#pragma once
/// \file PropertyEditor.hpp
/// The properties dock's widget: a two-column table of the current item's properties with in-place
/// editors, and a message line that explains rejected values.
#include <QStyledItemDelegate>
#include <QWidget>

class QLabel;
class QTableView;

namespace yee::ui {

class PropertyModel;
class SceneDocument;

/// Combo boxes for enumerations and references, line edits for everything else.
class PropertyDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                          const QModelIndex& index) const override;
    void setEditorData(QWidget* editor, const QModelIndex& index) const override;
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override;
};

/// Property editor of the document's current item.
class PropertyEditor : public QWidget {
    Q_OBJECT
public:
    explicit PropertyEditor(SceneDocument* doc, QWidget* parent = nullptr);

    PropertyModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    /// The text of the message line (the last rejection, or empty).
    QString message() const;

private:
    void updateTitle();

    SceneDocument* doc_;
    PropertyModel* model_;
    QTableView* view_;
    QLabel* title_;
    QLabel* message_;
};

} // namespace yee::ui
