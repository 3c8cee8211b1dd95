#include "ui/SceneCommands.hpp"

#include <QCoreApplication>

#include <algorithm>

#include "ui/SceneDocument.hpp"
#include "ui/SceneProperties.hpp"

namespace yee::ui {

namespace {
QString tr(const char* t) {
    return QCoreApplication::translate("yee::ui::SceneCommands", t);
}

QString kindNoun(ItemKind k) {
    switch (k) {
    case ItemKind::Material:
        return tr("material");
    case ItemKind::Object:
        return tr("object");
    case ItemKind::Source:
        return tr("source");
    case ItemKind::Detector:
        return tr("detector");
    case ItemKind::Design:
        return tr("design region");
    default:
        return tr("item");
    }
}
} // namespace

int newMergeKey() {
    static int next = 0;
    return ++next;
}

// ---- SetPropertyCommand ----

SetPropertyCommand::SetPropertyCommand(SceneDocument* doc, const ItemRef& ref, const QString& key,
                                       const QVariant& value, int mergeKey, QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), ref_(ref), key_(key), old_(propertyValue(doc->scene(), ref, key)),
      new_(value), mergeKey_(mergeKey) {
    setText(tr("Set %1").arg(propertyLabel(doc->scene(), ref, key)));
}

void SetPropertyCommand::redo() {
    doc_->applyProperty(ref_, key_, new_);
}
void SetPropertyCommand::undo() {
    doc_->applyProperty(ref_, key_, old_);
}

bool SetPropertyCommand::mergeWith(const QUndoCommand* other) {
    auto* o = static_cast<const SetPropertyCommand*>(other);
    if (mergeKey_ == 0 || o->mergeKey_ != mergeKey_ || o->ref_ != ref_ || o->key_ != key_)
        return false;
    new_ = o->new_;
    return true;
}

// ---- AddItemCommand ----

AddItemCommand::AddItemCommand(SceneDocument* doc, const SceneEntity& entity, int index, QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), entity_(entity),
      index_(index < 0 ? elementCount(doc->scene(), entityKind(entity)) : index) {
    setText(tr("Add %1 '%2'").arg(kindNoun(entityKind(entity)), QString::fromStdString(entityName(entity))));
}

void AddItemCommand::redo() {
    doc_->insertEntity(index_, entity_);
    doc_->setCurrentItem(ref());
}

void AddItemCommand::undo() {
    doc_->removeEntity(ref());
}

// ---- RemoveItemCommand ----

RemoveItemCommand::RemoveItemCommand(SceneDocument* doc, const ItemRef& ref, QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), ref_(ref), entity_(entityAt(doc->scene(), ref)) {
    setText(tr("Remove %1 '%2'").arg(kindNoun(ref.kind), QString::fromStdString(entityName(entity_))));
}

void RemoveItemCommand::redo() {
    doc_->removeEntity(ref_);
}

void RemoveItemCommand::undo() {
    doc_->insertEntity(ref_.index, entity_);
    doc_->setCurrentItem(ref_);
}

QString RemoveItemCommand::blocker(const scene::Scene& s, const ItemRef& ref) {
    if (!isElementKind(ref.kind) || ref.kind == ItemKind::Boundary || ref.index < 0 ||
        ref.index >= elementCount(s, ref.kind))
        return tr("only materials, objects, sources, detectors and design regions can be removed");
    if (ref.kind == ItemKind::Material) {
        const std::string& name = s.materials[ref.index].name;
        if (s.background == name)
            return tr("material '%1' is the background").arg(QString::fromStdString(name));
        for (std::size_t i = 0; i < s.objects.size(); ++i)
            if (s.objects[i].material == name)
                return tr("material '%1' is used by objects[%2] ('%3')")
                    .arg(QString::fromStdString(name))
                    .arg(i)
                    .arg(QString::fromStdString(s.objects[i].name));
        for (std::size_t i = 0; i < s.designs.size(); ++i)
            for (const auto& m : s.designs[i].materials)
                if (m == name)
                    return tr("material '%1' is used by designs[%2] ('%3')")
                        .arg(QString::fromStdString(name))
                        .arg(i)
                        .arg(QString::fromStdString(s.designs[i].name));
    }
    if (ref.kind == ItemKind::Detector) {
        const std::string& name = s.detectors[ref.index].name;
        for (std::size_t t = 0; t < s.objective.terms.size(); ++t)
            if (s.objective.terms[t].detector == name)
                return tr("detector '%1' is used by objective.terms[%2]")
                    .arg(QString::fromStdString(name))
                    .arg(t);
    }
    return {};
}

// ---- MoveResizeObjectCommand ----

std::array<int, 2> MoveResizeObjectCommand::planeAxes(int axis) {
    // The two other axes in increasing order: z -> (x, y), y -> (x, z), x -> (y, z).
    return {axis == 0 ? 1 : 0, axis == 2 ? 1 : 2};
}

scene::Vec3 MoveResizeObjectCommand::extentsOf(const scene::Object& o) {
    switch (o.shape) {
    case scene::Shape::Box:
        return o.size;
    case scene::Shape::Sphere:
        return {2 * o.radius, 2 * o.radius, 2 * o.radius};
    case scene::Shape::Cylinder: {
        scene::Vec3 e{2 * o.radius, 2 * o.radius, 2 * o.radius};
        e[o.axis] = o.height;
        return e;
    }
    case scene::Shape::Polygon: {
        const auto [u, v] = planeAxes(o.axis);
        double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
        for (const auto& p : o.vertices)
            for (int k = 0; k < 2; ++k) {
                lo[k] = std::min(lo[k], p[k]);
                hi[k] = std::max(hi[k], p[k]);
            }
        scene::Vec3 e{0, 0, 0};
        if (!o.vertices.empty()) {
            e[u] = hi[0] - lo[0];
            e[v] = hi[1] - lo[1];
        }
        e[o.axis] = o.height;
        return e;
    }
    }
    return o.size;
}

scene::Object MoveResizeObjectCommand::reshaped(const scene::Object& o, const scene::Vec3& center,
                                                const scene::Vec3& extents) {
    scene::Object r = o;
    r.center = center;
    switch (o.shape) {
    case scene::Shape::Box:
        r.size = extents;
        break;
    case scene::Shape::Sphere:
        r.radius = 0.5 * std::max({extents[0], extents[1], extents[2]});
        break;
    case scene::Shape::Cylinder: {
        const int u = (o.axis + 1) % 3, v = (o.axis + 2) % 3;
        r.radius = 0.5 * std::max(extents[u], extents[v]);
        r.height = extents[o.axis];
        break;
    }
    case scene::Shape::Polygon: {
        // Vertices are absolute: move them with the centre and scale them about it.
        const auto [u, v] = planeAxes(o.axis);
        const scene::Vec3 old = extentsOf(o);
        const double su = old[u] > 0 ? extents[u] / old[u] : 1.0, sv = old[v] > 0 ? extents[v] / old[v] : 1.0;
        for (auto& p : r.vertices) {
            p[0] = center[u] + (p[0] - o.center[u]) * su;
            p[1] = center[v] + (p[1] - o.center[v]) * sv;
        }
        r.height = extents[o.axis];
        break;
    }
    }
    // Non-box shapes keep their bounding extents in `size` as the parser does.
    if (o.shape != scene::Shape::Box)
        r.size = extentsOf(r);
    return r;
}

MoveResizeObjectCommand::MoveResizeObjectCommand(SceneDocument* doc, int index, const scene::Vec3& center,
                                                 const scene::Vec3& extents, int mergeKey,
                                                 QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), index_(index), old_(doc->scene().objects.at(index)),
      new_(reshaped(old_, center, extents)), mergeKey_(mergeKey) {
    const bool moved = old_.center != new_.center;
    const bool resized = extentsOf(old_) != extentsOf(new_);
    const QString name = QString::fromStdString(old_.name);
    setText(moved && resized ? tr("Move and resize '%1'").arg(name)
            : resized        ? tr("Resize '%1'").arg(name)
                             : tr("Move '%1'").arg(name));
}

MoveResizeObjectCommand* MoveResizeObjectCommand::move(SceneDocument* doc, int index,
                                                       const scene::Vec3& center, int mergeKey) {
    return new MoveResizeObjectCommand(doc, index, center, extentsOf(doc->scene().objects.at(index)),
                                       mergeKey);
}

void MoveResizeObjectCommand::redo() {
    doc_->replaceObject(index_, new_);
}
void MoveResizeObjectCommand::undo() {
    doc_->replaceObject(index_, old_);
}

bool MoveResizeObjectCommand::mergeWith(const QUndoCommand* other) {
    auto* o = static_cast<const MoveResizeObjectCommand*>(other);
    if (mergeKey_ == 0 || o->mergeKey_ != mergeKey_ || o->index_ != index_)
        return false;
    new_ = o->new_;
    return true;
}

// ---- SetRecorderChainCommand ----

SetRecorderChainCommand::SetRecorderChainCommand(SceneDocument* doc, std::vector<scene::RecorderModule> chain,
                                                 int mergeKey, QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), old_(doc->scene().gradient.recorder), new_(std::move(chain)),
      mergeKey_(mergeKey) {
    setText(tr("Edit recorder chain"));
}

void SetRecorderChainCommand::redo() {
    doc_->setRecorderChain(new_);
}
void SetRecorderChainCommand::undo() {
    doc_->setRecorderChain(old_);
}

bool SetRecorderChainCommand::mergeWith(const QUndoCommand* other) {
    auto* o = static_cast<const SetRecorderChainCommand*>(other);
    if (mergeKey_ == 0 || o->mergeKey_ != mergeKey_)
        return false;
    new_ = o->new_;
    return true;
}

SetObjectiveTermsCommand::SetObjectiveTermsCommand(SceneDocument* doc,
                                                   std::vector<scene::ObjectiveTerm> terms,
                                                   const QString& text, QUndoCommand* parent)
    : QUndoCommand(text, parent), doc_(doc), old_(doc->scene().objective.terms), new_(std::move(terms)) {}

void SetObjectiveTermsCommand::redo() {
    doc_->setObjectiveTerms(new_);
}
void SetObjectiveTermsCommand::undo() {
    doc_->setObjectiveTerms(old_);
}

} // namespace yee::ui
