#include "ui/Palette.hpp"

namespace yee::ui {

QColor paletteColor(int i) {
    // Twenty material colours kept well away (RGB distance >= 90) from the glyph colours of sources,
    // detectors, design regions, PML, tile cuts and the selection, so a material never reads as one of
    // those, and >= 40 from each other; then the twenty again (lighter or darker repeats came near the
    // glyph colours: a lighter brown read as the source red). In an order where each colour is far from
    // the four before it, so the few materials of a typical scene (a core, a cladding, a metal) differ
    // most: a ring's cladding hole drawn translucent over its core must not read as core.
    static const QColor base[] = {
        QColor(89, 161, 79),  QColor(20, 20, 160),   QColor(95, 235, 235),  QColor(195, 80, 220),
        QColor(235, 235, 95), QColor(20, 150, 20),   QColor(110, 20, 20),   QColor(125, 25, 160),
        QColor(70, 210, 155), QColor(255, 157, 167), QColor(156, 117, 95),  QColor(20, 20, 70),
        QColor(0, 160, 120),  QColor(152, 223, 138), QColor(197, 176, 213), QColor(140, 86, 75),
        QColor(230, 150, 90), QColor(82, 82, 82),    QColor(99, 121, 57),   QColor(186, 176, 172)};
    constexpr int n = int(sizeof(base) / sizeof(base[0]));
    if (i < 0)
        return QColor(160, 160, 160);
    return base[i % n];
}

QColor materialColor(const scene::Scene& s, const std::string& material) {
    return paletteColor(s.materialIndex(material));
}

QColor categoryColor(device::Category c) {
    switch (c) {
    case device::Category::Fields:
        return QColor(78, 121, 167);
    case device::Category::Materials:
        return QColor(89, 161, 79);
    case device::Category::Pml:
        return QColor(181, 137, 0);
    case device::Category::Sources:
        return QColor(225, 87, 89);
    case device::Category::Detectors:
        return QColor(38, 139, 210);
    case device::Category::Recorder:
        return QColor(176, 122, 161);
    case device::Category::Checkpoints:
        return QColor(242, 142, 43);
    case device::Category::Adjoint:
        return QColor(118, 183, 178);
    case device::Category::Halo:
        return QColor(108, 113, 196);
    case device::Category::Staging:
        return QColor(156, 117, 95);
    default:
        return QColor(160, 160, 160);
    }
}

} // namespace yee::ui
