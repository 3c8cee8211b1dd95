#pragma once
/// \file PropertyGroups.hpp
/// The groups the property editor shows an element's properties in: General (name, kind), Geometry,
/// Material, Time profile, Recording, Design map, Other, in that order.
#include <QString>
#include <QStringList>

#include "ui/SceneItem.hpp"

namespace yee::ui {

/// The groups, in display order (translated).
QStringList propertyGroups();
/// Position of property `key` of an element of kind `kind` in propertyGroups(); -1 for items whose
/// properties are not grouped (sections such as Grid or Gradient).
int propertyGroupOf(ItemKind kind, const QString& key);

} // namespace yee::ui
