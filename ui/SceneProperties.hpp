#pragma once
/// \file SceneProperties.hpp
/// The editable properties of every scene item: their names (the scene file's keys), types, how to
/// read, check and write them. One table feeds the property editor, the undo commands and the panels.
#include <QString>
#include <QStringList>
#include <QVariant>

#include <optional>

#include "ui/SceneItem.hpp"

namespace yee::ui {

/// How a property's value is represented (canonical QVariant type in brackets).
enum class PropertyType {
    Double,      ///< double
    Int,         ///< int
    Bool,        ///< bool
    String,      ///< QString
    Enum,        ///< QString, one of PropertyInfo::choices
    MaterialRef, ///< QString, the name of a material of the scene
    DetectorRef, ///< QString, the name of a detector of the scene
    Vec3,        ///< QVariantList of 3 doubles
    IntVec3,     ///< QVariantList of 3 ints
    DoubleList,  ///< QVariantList of doubles
    StringList,  ///< QStringList
    Points2,     ///< QVariantList of QPointF (polygon vertices)
    ReadOnly,    ///< QString, shown but not editable here
};

/// Description of one property of one item.
struct PropertyInfo {
    QString key;   ///< scene-file key relative to the item ("center_um", "profile.wavelength_um")
    QString label; ///< translated label
    PropertyType type = PropertyType::Double;
    QStringList choices; ///< Enum / MaterialRef / DetectorRef choices
    QString unit;        ///< as shown: "µm", "fs", "S/m" or empty (Format.hpp unitText)
    QString toolTip;     ///< translated help text
};

/// The outcome of checking a proposed value.
struct PropertyCheck {
    bool ok = false;
    QVariant value; ///< canonical value to apply (when ok)
    QString error;  ///< why the value was rejected, naming the scene field (when !ok)
};

/// Properties shown for `ref` in the scene's current state (e.g. a sphere has a radius, a box does not).
QList<PropertyInfo> itemProperties(const scene::Scene& s, const ItemRef& ref);
/// The description of one property, or nullopt if `ref` has no such key.
std::optional<PropertyInfo> propertyInfo(const scene::Scene& s, const ItemRef& ref, const QString& key);
/// Current value of a property in its canonical type. Invalid QVariant if unknown.
QVariant propertyValue(const scene::Scene& s, const ItemRef& ref, const QString& key);
/// Scene-file path of a property, used in messages: "objects[0].size_um", "time.duration_fs".
QString propertyPath(const scene::Scene& s, const ItemRef& ref, const QString& key);
/// Human name of a property, used in undo texts and messages: "flux1 › Size", "Grid › Cell size".
QString propertyLabel(const scene::Scene& s, const ItemRef& ref, const QString& key);

/// Parse `input` (canonical type or user text such as "1, 2, 3"), check it against the property's
/// rules and, when the scene was valid before, against the backend's whole-scene validation of the
/// edited scene. A rejected value is explained in PropertyCheck::error and must not be applied.
PropertyCheck checkProperty(const scene::Scene& s, const ItemRef& ref, const QString& key,
                            const QVariant& input);
/// Write a canonical value (as produced by checkProperty) into the scene. Renaming a material or a
/// detector renames its references too. Throws std::invalid_argument on an unknown key.
void applyProperty(scene::Scene& s, const ItemRef& ref, const QString& key, const QVariant& value);

/// Text shown for a value: "0, 0.5, 1", "1.55", "yes".
QString formatPropertyValue(const PropertyInfo& info, const QVariant& value);
/// The whole-scene validation message of the backend for `s`, or an empty string when it is valid.
QString sceneProblem(const scene::Scene& s);

/// Scene-file names of enumerations, shared by the property table and the panels.
QString shapeName(scene::Shape v);
QString sourceTypeName(scene::SourceType v);
QString detectorTypeName(scene::DetectorType v);
QString gradientMethodName(scene::GradientMethod v);
QString boundaryTypeName(scene::BoundaryType v);

} // namespace yee::ui
