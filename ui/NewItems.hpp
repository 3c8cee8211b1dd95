#pragma once
/// \file NewItems.hpp
/// Sensible new scene elements for the Insert menu: placed at the domain centre, sized relative to the
/// domain, with unique names and existing materials.
#include <QString>

#include "ui/SceneItem.hpp"

namespace yee::ui {

/// What the Insert menu can add.
enum class NewItemKind {
    Box,
    Sphere,
    Cylinder,
    Prism,
    Material,
    PointDipole,
    PlaneSource,
    FluxDetector,
    SnapshotDetector,
    ProbeDetector,
    DesignRegion,
};

/// A new element of `kind` for scene `s` (not yet inserted).
SceneEntity makeNewItem(const scene::Scene& s, NewItemKind kind);
/// A name starting with `stem` not used by any element of `element` kind ("box1", "box2", ...).
std::string uniqueName(const scene::Scene& s, ItemKind element, const std::string& stem);
/// Translated menu text of a kind.
QString newItemText(NewItemKind kind);

} // namespace yee::ui
