#include "ui/SceneTreeModel.hpp"

#include <QIcon>
#include <QPainter>
#include <QPixmap>

#include <cmath>

#include "ui/Palette.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneProperties.hpp"

namespace yee::ui {

namespace {
QIcon swatch(const QColor& c) {
    QPixmap pm(12, 12);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setPen(c.darker(150));
    p.setBrush(c);
    p.drawRoundedRect(QRectF(0.5, 0.5, 11, 11), 2, 2);
    return QIcon(pm);
}
QString num(double d) {
    return QString::number(d, 'g', 6);
}

constexpr ItemKind kTopLevel[] = {ItemKind::Grid,      ItemKind::Domain,  ItemKind::Boundaries,
                                  ItemKind::Materials, ItemKind::Objects, ItemKind::Sources,
                                  ItemKind::Detectors, ItemKind::Designs, ItemKind::Objective,
                                  ItemKind::Gradient,  ItemKind::Run};
} // namespace

int SceneTreeModel::Node::row() const {
    if (!parent)
        return 0;
    for (int i = 0; i < int(parent->children.size()); ++i)
        if (parent->children[i].get() == this)
            return i;
    return 0;
}

SceneTreeModel::SceneTreeModel(SceneDocument* doc, QObject* parent) : QAbstractItemModel(parent), doc_(doc) {
    rebuild();
    connect(doc_, &SceneDocument::sceneReset, this, [this] {
        beginResetModel();
        rebuild();
        endResetModel();
    });
    connect(doc_, &SceneDocument::itemAboutToBeInserted, this, &SceneTreeModel::onAboutToBeInserted);
    connect(doc_, &SceneDocument::itemInserted, this, &SceneTreeModel::onInserted);
    connect(doc_, &SceneDocument::itemAboutToBeRemoved, this, &SceneTreeModel::onAboutToBeRemoved);
    connect(doc_, &SceneDocument::itemRemoved, this, &SceneTreeModel::onRemoved);
    connect(doc_, &SceneDocument::itemChanged, this,
            [this](const ItemRef& ref, const QString&) { onChanged(ref); });
}

SceneTreeModel::~SceneTreeModel() = default;

void SceneTreeModel::rebuild() {
    root_ = std::make_unique<Node>();
    for (ItemKind k : kTopLevel) {
        auto n = std::make_unique<Node>();
        n->ref = {k, -1};
        n->parent = root_.get();
        const ItemKind element = elementOf(k);
        for (int i = 0; i < elementCount(doc_->scene(), element); ++i) {
            auto c = std::make_unique<Node>();
            c->ref = {element, i};
            c->parent = n.get();
            n->children.push_back(std::move(c));
        }
        root_->children.push_back(std::move(n));
    }
}

SceneTreeModel::Node* SceneTreeModel::nodeOf(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : root_.get();
}

SceneTreeModel::Node* SceneTreeModel::groupNode(ItemKind group) const {
    for (auto& n : root_->children)
        if (n->ref.kind == group)
            return n.get();
    return nullptr;
}

QModelIndex SceneTreeModel::indexOfNode(const Node* n, int column) const {
    if (!n || n == root_.get())
        return {};
    return createIndex(n->row(), column, const_cast<Node*>(n));
}

QModelIndex SceneTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent))
        return {};
    Node* p = nodeOf(parent);
    return createIndex(row, column, p->children[row].get());
}

QModelIndex SceneTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid())
        return {};
    return indexOfNode(nodeOf(child)->parent);
}

int SceneTreeModel::rowCount(const QModelIndex& parent) const {
    if (parent.column() > 0)
        return 0;
    return int(nodeOf(parent)->children.size());
}

int SceneTreeModel::columnCount(const QModelIndex&) const {
    return 2;
}

Qt::ItemFlags SceneTreeModel::flags(const QModelIndex& index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == 0 && isElementKind(refOf(index).kind))
        f |= Qt::ItemIsEditable;
    return f;
}

bool SceneTreeModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    const ItemRef ref = refOf(index);
    if (role != Qt::EditRole || index.column() != 0 || !isElementKind(ref.kind))
        return false;
    if (value.toString().toStdString() == entityName(entityAt(doc_->scene(), ref)))
        return false;
    const PropertyCheck c = checkProperty(doc_->scene(), ref, QStringLiteral("name"), value.toString());
    if (!c.ok) {
        emit renameRefused(c.error);
        return false;
    }
    doc_->undoStack()->push(new SetPropertyCommand(doc_, ref, QStringLiteral("name"), c.value));
    return true;
}

QVariant SceneTreeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == 0 ? tr("Item") : tr("Summary");
}

QString SceneTreeModel::summary(const ItemRef& ref) const {
    const scene::Scene& s = doc_->scene();
    switch (ref.kind) {
    case ItemKind::Grid:
        return tr("dx %1 \u00b5m, %2 fs").arg(num(s.cellUm), num(s.durationFs));
    case ItemKind::Domain: {
        QStringList cells;
        for (int a = 0; a < 3; ++a)
            cells << QString::number(std::lround(s.domainSize[a] / s.cellUm));
        return tr("%1 \u00d7 %2 \u00d7 %3 \u00b5m (%4 cells)")
            .arg(num(s.domainSize[0]), num(s.domainSize[1]), num(s.domainSize[2]),
                 cells.join(QString::fromUtf8(" \u00d7 ")));
    }
    case ItemKind::Boundary: {
        const auto& b = s.boundaries[ref.index];
        return b.type == scene::BoundaryType::Pml ? tr("pml, %1 cells").arg(b.cells)
                                                  : boundaryTypeName(b.type);
    }
    case ItemKind::Material: {
        const auto& m = s.materials[ref.index];
        QString t = tr("eps %1").arg(num(m.eps));
        if (m.mu != 1)
            t += tr(", mu %1").arg(num(m.mu));
        if (m.sigma != 0)
            t += tr(", sigma %1 S/m").arg(num(m.sigma));
        return t;
    }
    case ItemKind::Object: {
        const auto& o = s.objects[ref.index];
        return QStringLiteral("%1 \u00b7 %2").arg(shapeName(o.shape), QString::fromStdString(o.material));
    }
    case ItemKind::Source: {
        const auto& src = s.sources[ref.index];
        return tr("%1 \u00b7 %2 \u00b5m").arg(sourceTypeName(src.type), num(src.profile.wavelength));
    }
    case ItemKind::Detector:
        return detectorTypeName(s.detectors[ref.index].type);
    case ItemKind::Design: {
        const auto& d = s.designs[ref.index];
        return tr("%1 \u2192 %2")
            .arg(QString::fromStdString(d.materials[0]), QString::fromStdString(d.materials[1]));
    }
    case ItemKind::Objective:
        return s.objective.defined() ? tr("%1, %n term(s)", nullptr, int(s.objective.terms.size()))
                                           .arg(s.objective.maximize ? tr("maximize") : tr("minimize"))
                                     : tr("none");
    case ItemKind::Gradient:
        return gradientMethodName(s.gradient.method);
    case ItemKind::Run:
        return tr("tiles %1\u00d7%2\u00d7%3 on %4")
            .arg(s.run.tiles[0])
            .arg(s.run.tiles[1])
            .arg(s.run.tiles[2])
            .arg(QString::fromStdString(s.run.devices));
    default: {
        const int n = elementCount(s, elementOf(ref.kind));
        return ref.kind == ItemKind::Boundaries ? QString() : tr("%n item(s)", nullptr, n);
    }
    }
}

QVariant SceneTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid())
        return {};
    const ItemRef ref = nodeOf(index)->ref;
    const scene::Scene& s = doc_->scene();
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        return index.column() == 0 ? itemTitle(s, ref) : summary(ref);
    case Qt::ToolTipRole:
        return itemPath(s, ref);
    case Qt::DecorationRole:
        if (index.column() != 0)
            return {};
        if (ref.kind == ItemKind::Material)
            return swatch(paletteColor(ref.index));
        if (ref.kind == ItemKind::Object)
            return swatch(materialColor(s, s.objects[ref.index].material));
        if (ref.kind == ItemKind::Source)
            return swatch(colors::source());
        if (ref.kind == ItemKind::Detector)
            return swatch(colors::detector());
        if (ref.kind == ItemKind::Design)
            return swatch(colors::design());
        return {};
    case ItemRefRole:
        return QVariant::fromValue(ref);
    default:
        return {};
    }
}

QModelIndex SceneTreeModel::indexOf(const ItemRef& ref) const {
    if (!ref.valid())
        return {};
    if (isElementKind(ref.kind)) {
        Node* g = groupNode(groupOf(ref.kind));
        if (!g || ref.index < 0 || ref.index >= int(g->children.size()))
            return {};
        return indexOfNode(g->children[ref.index].get());
    }
    return indexOfNode(groupNode(ref.kind));
}

ItemRef SceneTreeModel::refOf(const QModelIndex& index) const {
    return index.isValid() ? nodeOf(index)->ref : ItemRef{};
}

void SceneTreeModel::reindex(Node* group) {
    for (int i = 0; i < int(group->children.size()); ++i)
        group->children[i]->ref.index = i;
}

void SceneTreeModel::onAboutToBeInserted(const ItemRef& ref) {
    Node* g = groupNode(groupOf(ref.kind));
    beginInsertRows(indexOfNode(g), ref.index, ref.index);
}

void SceneTreeModel::onInserted(const ItemRef& ref) {
    Node* g = groupNode(groupOf(ref.kind));
    auto n = std::make_unique<Node>();
    n->ref = ref;
    n->parent = g;
    g->children.insert(g->children.begin() + ref.index, std::move(n));
    reindex(g);
    endInsertRows();
    onChanged({groupOf(ref.kind), -1});
}

void SceneTreeModel::onAboutToBeRemoved(const ItemRef& ref) {
    Node* g = groupNode(groupOf(ref.kind));
    beginRemoveRows(indexOfNode(g), ref.index, ref.index);
}

void SceneTreeModel::onRemoved(const ItemRef& ref) {
    Node* g = groupNode(groupOf(ref.kind));
    g->children.erase(g->children.begin() + ref.index);
    reindex(g);
    endRemoveRows();
    onChanged({groupOf(ref.kind), -1});
}

void SceneTreeModel::onChanged(const ItemRef& ref) {
    // Renaming a material or detector, or recolouring, shows up in other rows: refresh every summary.
    if (ref.kind == ItemKind::Material || ref.kind == ItemKind::Detector || ref.kind == ItemKind::Grid) {
        refreshAll();
        return;
    }
    const QModelIndex i = indexOf(ref);
    if (i.isValid())
        emit dataChanged(i, i.siblingAtColumn(1));
}

void SceneTreeModel::refreshAll() {
    for (auto& g : root_->children) {
        emit dataChanged(indexOfNode(g.get(), 0), indexOfNode(g.get(), 1));
        if (!g->children.empty())
            emit dataChanged(indexOfNode(g->children.front().get(), 0),
                             indexOfNode(g->children.back().get(), 1));
    }
}

} // namespace yee::ui
