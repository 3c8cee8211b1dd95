#pragma once
/// The scene every decomposition test runs: PML on x and y, periodic z, a dielectric sphere, a lossy
/// box, a magnetic cylinder, a dipole and a Gaussian plane source, and every detector kind, including a
/// full-volume snapshot of all six components at the last step (the fields themselves).
#include "physics/SceneBuilder.hpp"

namespace yee::testing {

inline scene::Scene decompScene(int steps = 48) {
    using scene::BoundaryType;
    const double cell = 0.05;
    scene::Scene s =
        boxScene(24, 20, 16, cell, BoundaryType::Pml, BoundaryType::Pml, BoundaryType::Periodic, 5);
    s.materials.push_back(material("glass", 2.25));
    s.materials.push_back(material("lossy", 3.0, 1.0, 2.0e4));
    s.materials.push_back(material("ferrite", 1.5, 1.8));
    scene::Object ball;
    ball.name = "ball";
    ball.shape = scene::Shape::Sphere;
    ball.center = {0.05, -0.02, 0.0};
    ball.radius = 0.22;
    ball.material = "glass";
    s.objects.push_back(ball);
    scene::Object slab;
    slab.name = "slab";
    slab.shape = scene::Shape::Box;
    slab.center = {0.3, 0.2, 0.0};
    slab.size = {0.15, 0.2, 0.3};
    slab.material = "lossy";
    s.objects.push_back(slab);
    scene::Object rod;
    rod.name = "rod";
    rod.shape = scene::Shape::Cylinder;
    rod.center = {-0.25, 0.15, 0.0};
    rod.radius = 0.08;
    rod.height = 0.8;
    rod.axis = 2;
    rod.material = "ferrite";
    s.objects.push_back(rod);
    s.sources.push_back(dipole("dip", {-0.1, -0.15, 0.05}, {0.3, 0.2, 1.0}, 0.6, 0.3));
    s.sources.push_back(planeSource("beam", scene::SourceType::GaussianPlane, {-0.3, 0, 0}, {0, 0.4, 0.8}, 0,
                                    +1, {0, 0, 1}, 0.7, 0.3));
    s.sources.back().waist = 0.2;
    s.detectors.push_back(flux("flux", {0.3, 0.0, 0.0}, {0, 0.4, 0.8}, 0, +1, {0.6, 0.7}));
    s.detectors.push_back(detector("energy", scene::DetectorType::Energy, {0, 0, 0}, {0.8, 0.6, 0.8}));
    scene::Detector probe = detector("probe", scene::DetectorType::Probe, {0.12, 0.07, -0.1}, {0, 0, 0});
    probe.components = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
    s.detectors.push_back(probe);
    scene::Detector ph = detector("phasor", scene::DetectorType::Phasor, {0, 0, 0.1}, {0.7, 0.5, 0});
    ph.components = {"Ez", "Hx"};
    ph.wavelengths = {0.6, 0.7};
    s.detectors.push_back(ph);
    scene::Detector snap = detector("fields", scene::DetectorType::Snapshot, {0, 0, 0}, {1.2, 1.0, 0.8});
    snap.components = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
    snap.every = steps;
    s.detectors.push_back(snap);
    scene::ObjectiveTerm t;
    t.detector = "flux";
    s.objective.terms.push_back(t);
    s.durationFs = (steps - 0.5) * s.dtFs();
    return s;
}

} // namespace yee::testing
