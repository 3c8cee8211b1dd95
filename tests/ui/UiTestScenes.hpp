#pragma once
/// \file UiTestScenes.hpp
/// Small scenes shared by the studio tests.
#include "ui/SceneDocument.hpp"
#include "yee/scene/Scene.hpp"

namespace yee::ui::test {

/// A valid 1.2 x 1.0 x 0.8 um scene with two materials, one box, one sphere, a plane source, a flux
/// detector, a snapshot detector, a design region and an objective: every tree group is populated.
inline scene::Scene smallScene() {
    scene::Scene s = SceneDocument::defaultScene();
    s.name = "small";
    s.cellUm = 0.05;
    s.domainSize = {1.2, 1.0, 0.8};
    s.durationFs = 4;
    for (auto& b : s.boundaries)
        b.cells = 4;
    s.materials = {{"air", 1.0, 1.0, 0.0}, {"core", 4.0, 1.0, 0.0}};
    s.background = "air";
    scene::Object box;
    box.name = "wg";
    box.shape = scene::Shape::Box;
    box.size = {1.2, 0.3, 0.2};
    box.material = "core";
    scene::Object ball;
    ball.name = "ball";
    ball.shape = scene::Shape::Sphere;
    ball.center = {0.2, 0.1, 0.0};
    ball.radius = 0.1;
    ball.size = {0.2, 0.2, 0.2};
    ball.material = "core";
    s.objects = {box, ball};
    scene::Source src;
    src.name = "in";
    src.type = scene::SourceType::UniformPlane;
    src.center = {-0.25, 0, 0};
    src.size = {0, 0.4, 0.3};
    src.normal = 0;
    src.direction = +1;
    src.polarization = {0, 1, 0};
    src.profile.wavelength = 1.55;
    src.profile.bandwidth = 0.4;
    s.sources = {src};
    scene::Detector flux;
    flux.name = "out";
    flux.type = scene::DetectorType::Flux;
    flux.center = {0.25, 0, 0};
    flux.size = {0, 0.4, 0.3};
    flux.normal = 0;
    flux.direction = +1;
    flux.wavelengths = {1.55};
    scene::Detector snap;
    snap.name = "field";
    snap.type = scene::DetectorType::Snapshot;
    snap.center = {0, 0, 0};
    snap.size = {0.8, 0.6, 0};
    snap.components = {"Ey"};
    snap.every = 10;
    s.detectors = {flux, snap};
    scene::Design d;
    d.name = "taper";
    d.center = {0, 0, 0};
    d.size = {0.2, 0.2, 0.2};
    d.voxelCells = {2, 2, 2};
    d.materials = {"air", "core"};
    s.designs = {d};
    s.objective.terms = {{"out", scene::Quantity::Flux, scene::Reduce::TimeIntegral, 0, 1.0}};
    return s;
}

} // namespace yee::ui::test
