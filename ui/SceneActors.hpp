#pragma once
/// \file SceneActors.hpp
/// Builds the VTK actors that draw a scene: domain outline, PML shells, tile cuts, objects coloured by
/// material, design regions, sources and detectors as glyphs.
#include <QString>

#include <array>
#include <vector>

#include <vtkSmartPointer.h>

#include "ui/SceneItem.hpp"

class vtkActor;
class vtkProp;

namespace yee::ui {

/// One actor and the scene item it shows (invalid ref: decoration, not pickable).
struct SceneProp {
    vtkSmartPointer<vtkProp> prop;
    ItemRef ref;
    /// Base opacity (restored when the item is deselected).
    double opacity = 1.0;
};

/// Everything drawn for one scene.
struct SceneActors {
    std::vector<SceneProp> props;
    /// Domain bounds in um (xmin, xmax, ymin, ymax, zmin, zmax).
    std::array<double, 6> bounds{};
    /// Why tile cuts are not drawn (impossible tile grid), or empty.
    QString tileProblem;
};

/// Build the actors of `s`. Never throws: parts that cannot be drawn are left out.
SceneActors buildSceneActors(const scene::Scene& s);

/// Show `prop` as selected (bright edges, opaque) or not.
void setPropSelected(const SceneProp& prop, bool selected);

} // namespace yee::ui
