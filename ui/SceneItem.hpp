#pragma once
/// \file SceneItem.hpp
/// Names one piece of a scene (a section, a group, or the i-th element of a group) so that models,
/// commands and views can refer to it without pointers into the scene.
#include <QMetaType>
#include <QString>

#include <variant>

#include "yee/scene/Scene.hpp"

namespace yee::ui {

/// What an ItemRef points at. Group kinds (Materials, Objects, ...) hold the element kinds.
enum class ItemKind {
    None,
    Grid,       ///< cell size, Courant number, duration
    Domain,     ///< domain centre / size, background material
    Boundaries, ///< group of the three axes
    Boundary,   ///< index = axis 0..2
    Materials,
    Material,
    Objects,
    Object,
    Sources,
    Source,
    Detectors,
    Detector,
    Designs,
    Design,
    Objective,
    Gradient,
    Run,
};

/// A reference to a scene item: a kind and, for elements, an index into their list.
struct ItemRef {
    ItemKind kind = ItemKind::None;
    int index = -1;

    bool valid() const { return kind != ItemKind::None; }
    bool operator==(const ItemRef&) const = default;
};

/// True for kinds that are the i-th element of a list (Material, Object, Source, Detector, Design,
/// Boundary).
bool isElementKind(ItemKind k);
/// The group holding an element kind (Object -> Objects), or None.
ItemKind groupOf(ItemKind element);
/// The element kind held by a group (Objects -> Object), or None.
ItemKind elementOf(ItemKind group);
/// Number of elements of `element` kind in the scene (e.g. objects.size()).
int elementCount(const scene::Scene& s, ItemKind element);
/// The scene file's name for a group or element list: "objects", "materials", ...
QString fileKey(ItemKind k);
/// The scene-file path of an item, e.g. "objects[2]" or "grid" (used in messages).
QString itemPath(const scene::Scene& s, const ItemRef& ref);
/// Display name of an item: the element's name, or the translated section name.
QString itemTitle(const scene::Scene& s, const ItemRef& ref);

/// One removable/insertable scene element, by value.
using SceneEntity =
    std::variant<scene::Material, scene::Object, scene::Source, scene::Detector, scene::Design>;

/// The element `ref` points at, copied. `ref` must be a Material/Object/Source/Detector/Design.
SceneEntity entityAt(const scene::Scene& s, const ItemRef& ref);
/// Element kind of an entity.
ItemKind entityKind(const SceneEntity& e);
/// The name of an entity.
std::string entityName(const SceneEntity& e);

} // namespace yee::ui

Q_DECLARE_METATYPE(yee::ui::ItemRef)
