#pragma once
/// \file SceneActors.hpp
/// Builds the VTK actors that draw a scene: domain outline, PML shells, tile cuts, objects coloured by
/// material (clipped to the domain; later objects drawn over earlier ones where faces coincide, as the
/// rasteriser lets later objects win), design regions, sources (propagation and polarisation arrows) and
/// detectors as glyphs, each in its layer, and the legend of the colours.
#include <QColor>
#include <QString>

#include <array>
#include <vector>

#include <vtkSmartPointer.h>

#include "ui/SceneItem.hpp"

class vtkActor;
class vtkProp;

namespace yee::ui {

/// The classes of things drawn, each with its own visibility toggle and legend entry.
enum class SceneLayer { Domain, Pml, TileCuts, Objects, Designs, Sources, Detectors, Count };
/// Human name of a layer ("PML", "Tile cuts", ...).
QString layerName(SceneLayer l);

/// One actor and the scene item it shows (invalid ref: decoration, not pickable).
struct SceneProp {
    vtkSmartPointer<vtkProp> prop;
    ItemRef ref;
    /// Base opacity (restored when the item is deselected).
    double opacity = 1.0;
    SceneLayer layer = SceneLayer::Domain;
};

/// One legend entry: a swatch colour and its text ("core (material)", "PML", "Sources").
struct LegendEntry {
    QString text;
    QColor color;
    SceneLayer layer;
};

/// Everything drawn for one scene.
struct SceneActors {
    std::vector<SceneProp> props;
    /// Domain bounds in um (xmin, xmax, ymin, ymax, zmin, zmax).
    std::array<double, 6> bounds{};
    /// Why tile cuts are not drawn (impossible tile grid), or empty.
    QString tileProblem;
    /// What the colours mean: every material in use, then PML, tile cuts, design regions, sources,
    /// detectors (those the scene has).
    std::vector<LegendEntry> legend;
};

/// Build the actors of `s`. Never throws: parts that cannot be drawn are left out.
SceneActors buildSceneActors(const scene::Scene& s);

/// Show `prop` as selected (bright edges, opaque) or not.
void setPropSelected(const SceneProp& prop, bool selected);

} // namespace yee::ui
