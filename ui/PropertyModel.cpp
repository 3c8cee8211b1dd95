#include "ui/PropertyModel.hpp"

#include <QApplication>
#include <QColor>
#include <QFont>
#include <QStyle>

#include <algorithm>
#include <cmath>

#include "ui/PropertyGroups.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"

namespace yee::ui {

PropertyModel::PropertyModel(SceneDocument* doc, QObject* parent) : QAbstractTableModel(parent), doc_(doc) {
    connect(doc_, &SceneDocument::currentItemChanged, this, &PropertyModel::reload);
    connect(doc_, &SceneDocument::sceneReset, this, &PropertyModel::reload);
    // Any change may alter the visible rows (a shape change adds a radius) or values shown elsewhere
    // (a renamed material in a combo box): reload when the row set differs, else refresh values.
    connect(doc_, &SceneDocument::sceneChanged, this, [this] {
        const auto now = groupedProperties();
        bool same = now.size() == props_.size();
        for (int i = 0; same && i < now.size(); ++i)
            same = now[i].key == props_[i].key;
        if (!same) {
            reload();
            return;
        }
        props_ = now;
        if (!rows_.isEmpty())
            emit dataChanged(index(0, 0), index(rowCount() - 1, 1));
    });
    reload();
}

QList<PropertyInfo> PropertyModel::groupedProperties() const {
    QList<PropertyInfo> p = itemProperties(doc_->scene(), item_);
    // Each group once, in group order; within a group the schema's order.
    std::stable_sort(p.begin(), p.end(), [this](const PropertyInfo& a, const PropertyInfo& b) {
        return propertyGroupOf(item_.kind, a.key) < propertyGroupOf(item_.kind, b.key);
    });
    return p;
}

void PropertyModel::reload() {
    beginResetModel();
    item_ = doc_->currentItem();
    props_ = groupedProperties();
    rows_.clear();
    groupTitles_.clear();
    int last = -2, groups = 0;
    for (const PropertyInfo& p : props_)
        if (const int g = propertyGroupOf(item_.kind, p.key); g != last) {
            last = g;
            groups += g >= 0;
        }
    last = -2;
    const QStringList titles = propertyGroups();
    for (int i = 0; i < props_.size(); ++i) {
        const int g = propertyGroupOf(item_.kind, props_[i].key);
        if (groups > 1 && g != last && g >= 0) {
            rows_ << -1 - int(groupTitles_.size());
            groupTitles_ << titles.value(g);
        }
        last = g;
        rows_ << i;
    }
    endResetModel();
}

bool PropertyModel::isGroupRow(int row) const {
    return row >= 0 && row < rows_.size() && rows_[row] < 0;
}

int PropertyModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(rows_.size());
}
int PropertyModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : 2;
}

QVariant PropertyModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == 0 ? tr("Property") : tr("Value");
}

Qt::ItemFlags PropertyModel::flags(const QModelIndex& index) const {
    if (!index.isValid() || index.row() >= rows_.size())
        return Qt::NoItemFlags;
    if (isGroupRow(index.row()))
        return Qt::ItemIsEnabled;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == 1 && props_[rows_[index.row()]].type != PropertyType::ReadOnly)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant PropertyModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size())
        return {};
    if (const int r = rows_[index.row()]; r < 0) {
        // A group header: its title in bold over both columns.
        if (role == Qt::DisplayRole && index.column() == 0)
            return groupTitles_.value(-1 - r);
        if (role == Qt::FontRole) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    }
    const PropertyInfo& p = props_[rows_[index.row()]];
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == 0)
            return p.unit.isEmpty() ? p.label : QStringLiteral("%1 (%2)").arg(p.label, p.unit);
        return formatPropertyValue(p, propertyValue(doc_->scene(), item_, p.key));
    case Qt::EditRole:
        if (index.column() == 0)
            return p.label;
        if (p.type == PropertyType::Bool)
            return propertyValue(doc_->scene(), item_, p.key);
        return formatPropertyValue(p, propertyValue(doc_->scene(), item_, p.key));
    case Qt::ToolTipRole: {
        const QString path = propertyPath(doc_->scene(), item_, p.key);
        QString tip = p.toolTip.isEmpty() ? path : QStringLiteral("%1\n%2").arg(path, p.toolTip);
        const QString stair = staircaseNote(p.key);
        if (index.column() == 1 && !stair.isEmpty())
            tip = stair + QStringLiteral("\n") + tip;
        return tip;
    }
    case Qt::DecorationRole:
        if (index.column() == 1 && !staircaseNote(p.key).isEmpty())
            return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        return {};
    case Qt::ForegroundRole:
        if (index.column() == 1 && p.type == PropertyType::ReadOnly)
            return QColor(Qt::gray);
        return {};
    case KeyRole:
        return p.key;
    case ChoicesRole:
        return p.choices;
    case TypeRole:
        return int(p.type);
    default:
        return {};
    }
}

QString PropertyModel::staircaseNote(const QString& key) const {
    // Geometry that the rasteriser staircases onto the grid: sizes of boxes, planes and regions.
    if (key != QLatin1String("size_um"))
        return {};
    if (item_.kind != ItemKind::Object && item_.kind != ItemKind::Source &&
        item_.kind != ItemKind::Detector && item_.kind != ItemKind::Design)
        return {};
    const QVariant v = propertyValue(doc_->scene(), item_, key);
    const QVariantList l = v.toList();
    const double cell = doc_->scene().cellUm;
    if (l.size() != 3 || cell <= 0)
        return {};
    QStringList off;
    static const char* axes[] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a) {
        const double um = l[a].toDouble(), n = um / cell;
        if (um > 0 && std::abs(n - std::round(n)) > 1e-6)
            off << tr("%1: %2 \u00b5m is %3 cells").arg(QLatin1String(axes[a])).arg(um).arg(n, 0, 'f', 2);
    }
    if (off.isEmpty())
        return {};
    return tr("Not a whole number of cells (%1 \u00b5m): %2. The grid staircases it to whole cells.")
        .arg(cell)
        .arg(off.join(QStringLiteral("; ")));
}

bool PropertyModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || !index.isValid() || index.column() != 1 || index.row() >= rows_.size() ||
        isGroupRow(index.row()))
        return false;
    return setValue(props_[rows_[index.row()]].key, value);
}

int PropertyModel::rowOf(const QString& key) const {
    for (int i = 0; i < rows_.size(); ++i)
        if (rows_[i] >= 0 && props_[rows_[i]].key == key)
            return i;
    return -1;
}

QString PropertyModel::groupOfRow(int row) const {
    for (int i = std::min(row, int(rows_.size()) - 1); i >= 0; --i)
        if (rows_[i] < 0)
            return groupTitles_.value(-1 - rows_[i]);
    return {};
}

bool PropertyModel::setValue(const QString& key, const QVariant& value) {
    const PropertyCheck c = checkProperty(doc_->scene(), item_, key, value);
    if (!c.ok) {
        // The human name ("flux1 > Size") and the rule; the scene-file path the check starts its message
        // with stays in the row's tool tip.
        QString rule = c.error;
        const QString path = propertyPath(doc_->scene(), item_, key) + QStringLiteral(": ");
        if (rule.startsWith(path))
            rule = rule.mid(path.size());
        lastError_ = propertyLabel(doc_->scene(), item_, key) + QStringLiteral(": ") + rule;
        emit valueRejected(lastError_);
        return false;
    }
    lastError_.clear();
    if (c.value != propertyValue(doc_->scene(), item_, key))
        doc_->undoStack()->push(new SetPropertyCommand(doc_, item_, key, c.value));
    emit valueAccepted(key);
    return true;
}

} // namespace yee::ui
