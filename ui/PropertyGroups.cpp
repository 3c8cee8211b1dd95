#include "ui/PropertyGroups.hpp"

#include <QCoreApplication>

namespace yee::ui {

namespace {
enum Group { General, Geometry, Material, TimeProfile, Recording, DesignMap, Other };
} // namespace

QStringList propertyGroups() {
    auto tr = [](const char* s) { return QCoreApplication::translate("yee::ui::PropertyGroups", s); };
    return {tr("General"),   tr("Geometry"),   tr("Material"), tr("Time profile"),
            tr("Recording"), tr("Design map"), tr("Other")};
}

int propertyGroupOf(ItemKind kind, const QString& key) {
    if (kind != ItemKind::Object && kind != ItemKind::Source && kind != ItemKind::Detector &&
        kind != ItemKind::Design && kind != ItemKind::Material)
        return -1;
    static const QStringList general = {"name", "type", "shape"};
    static const QStringList geometry = {"center_um", "size_um",   "radius_um",    "axis",     "height_um",
                                         "vertices",  "direction", "polarization", "waist_um", "normal"};
    static const QStringList material = {"material",         "eps",     "mu",   "sigma_S_per_m", "n", "k",
                                         "nk_wavelength_um", "library", "poles"};
    static const QStringList recording = {"wavelengths_um", "components", "every", "downsample"};
    if (general.contains(key))
        return General;
    if (key.startsWith(QLatin1String("profile.")))
        return TimeProfile;
    if (geometry.contains(key))
        return Geometry;
    if (material.contains(key) || key.startsWith(QLatin1String("materials[")) ||
        key.startsWith(QLatin1String("poles[")))
        return Material;
    if (recording.contains(key))
        return Recording;
    if (kind == ItemKind::Design)
        return DesignMap;
    return Other;
}

} // namespace yee::ui
