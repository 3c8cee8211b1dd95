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
/// A new source of type `type` (any entry of scene::sourceTypes()) for `s`: its geometry follows the
/// keys the schema declares for that type (a plane where it has a size, a point otherwise).
SceneEntity makeNewSource(const scene::Scene& s, scene::SourceType type);
/// A new detector of type `type` (any entry of scene::detectorTypes()) for `s`: a plane where the type
/// has a direction, a closed box where its size must be > 0, a slice where it may be flat, a point
/// where it has no size; wavelengths, components and intervals where the type has those keys.
SceneEntity makeNewDetector(const scene::Scene& s, scene::DetectorType type);
/// A name starting with `stem` not used by any element of `element` kind ("box1", "box2", ...).
std::string uniqueName(const scene::Scene& s, ItemKind element, const std::string& stem);
/// Translated menu text of a kind.
QString newItemText(NewItemKind kind);

} // namespace yee::ui
