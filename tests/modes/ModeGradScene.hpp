#pragma once
/// \file ModeGradScene.hpp
/// The gradient test scene (gradient/GradScene.hpp) with a mode source and the mode power of a monitor
/// as its objective, shared by the mode gradient, mode sharing and MPI mode tests.
#include <string>

#include "gradient/GradScene.hpp"
#include "yee/scene/DetectorKinds.hpp"

namespace yee::testing {

/// The gradient scene with its beam replaced by a mode source and the objective by the power of the
/// first mode through a mode monitor behind the designs.
/// The monitor sits at x0 + `monitorUm`, one cell or more inside the interior.
inline scene::Scene modeGradScene(int nx, const std::string& method, bool lossy, double monitorUm) {
    GradSceneOptions go;
    go.nx = nx;
    go.lossy = lossy;
    go.steps = 50;
    scene::Scene s = gradScene(go);
    setGradientMethod(s, method);
    const double x0 = -0.5 * nx * s.cellUm;
    scene::Source& beam = s.sources[0];
    beam.type = scene::SourceType::Mode;
    beam.mode = 0;
    scene::Detector m =
        detector("port2", scene::detectorType("mode_monitor"), {x0 + monitorUm, 0, 0}, {0, 0.4, 0.8});
    m.normal = 0;
    m.direction = +1;
    m.wavelengths = {go.wavelength};
    s.detectors.push_back(m);
    scene::ObjectiveTerm t;
    t.detector = "port2";
    t.quantity = scene::quantity("mode_power");
    t.reduce = scene::Reduce::AtWavelength;
    t.wavelength = go.wavelength;
    t.weight = 1.0;
    s.objective.terms = {t};
    return s;
}

} // namespace yee::testing
