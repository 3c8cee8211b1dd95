#pragma once
/// \file SceneTreeModel.hpp
/// QAbstractItemModel adapter over an item tree of the scene (separate from the model): Grid, Domain,
/// Boundaries, Materials, Objects, Sources, Detectors, Design regions, Objective, Gradient, Run.
#include <QAbstractItemModel>

#include <memory>
#include <vector>

#include "ui/SceneItem.hpp"

namespace yee::ui {

class SceneDocument;

/// Two columns: the item's name and a one-line summary. Follows the document's signals with exact
/// insert/remove notifications so views keep their selection and expansion state.
class SceneTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    /// Data role holding the item's ItemRef.
    static constexpr int ItemRefRole = Qt::UserRole + 1;

    explicit SceneTreeModel(SceneDocument* doc, QObject* parent = nullptr);
    ~SceneTreeModel() override;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
    /// Element names (column 0) are editable: renaming is an undo command, a refused name is not applied
    /// (renameRefused() says why).
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    /// Index (column 0) of the item `ref`, or an invalid index.
    QModelIndex indexOf(const ItemRef& ref) const;
    /// Item behind an index.
    ItemRef refOf(const QModelIndex& index) const;

signals:
    /// A rename typed in the tree was refused (the message names the field and the rule).
    void renameRefused(const QString& message);

private:
    struct Node {
        ItemRef ref;
        Node* parent = nullptr;
        std::vector<std::unique_ptr<Node>> children;
        int row() const;
    };

    void rebuild();
    Node* nodeOf(const QModelIndex& index) const;
    Node* groupNode(ItemKind group) const;
    QModelIndex indexOfNode(const Node* n, int column = 0) const;
    void reindex(Node* group);
    void refreshAll();
    QString summary(const ItemRef& ref) const;

    void onAboutToBeInserted(const ItemRef& ref);
    void onInserted(const ItemRef& ref);
    void onAboutToBeRemoved(const ItemRef& ref);
    void onRemoved(const ItemRef& ref);
    void onChanged(const ItemRef& ref);

    SceneDocument* doc_;
    std::unique_ptr<Node> root_;
};

} // namespace yee::ui
