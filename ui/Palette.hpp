#pragma once
/// \file Palette.hpp
/// Colours shared by the 3-D view, the tree and the legends: one per material, per memory category and
/// per scene element kind.
#include <QColor>

#include <string>

#include "yee/device/MemoryLedger.hpp"
#include "yee/scene/Scene.hpp"

namespace yee::ui {

/// Colour of a material by its position in the scene's material list (stable while editing).
/// Unknown materials are grey. The background material is light and faint in the view.
QColor materialColor(const scene::Scene& s, const std::string& material);
/// Colour of the i-th entry of the material palette.
QColor paletteColor(int i);
/// Colour of a memory ledger category in the memory bars.
QColor categoryColor(device::Category c);

/// Fixed colours of the scene view's non-material glyphs.
namespace colors {
inline QColor source() {
    return QColor(220, 50, 47);
}
inline QColor detector() {
    return QColor(38, 139, 210);
}
inline QColor design() {
    return QColor(211, 54, 130);
}
inline QColor pml() {
    return QColor(181, 137, 0);
}
inline QColor tileCut() {
    return QColor(108, 113, 196);
}
inline QColor selection() {
    return QColor(255, 200, 0);
}
} // namespace colors

} // namespace yee::ui
