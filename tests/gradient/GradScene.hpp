#pragma once
/// Scenes for gradient tests: small 3-D boxes with two design regions, a plane source and a dipole,
/// flux / energy / phasor-power objective terms.
#include <QtGlobal>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "physics/SceneBuilder.hpp"
#include "yee/scene/Rasterizer.hpp"

namespace yee::testing {

struct GradSceneOptions {
    int nx = 24;
    bool lossy = true; ///< a lossy box in the interior
    bool energyTerm = true;
    bool phasorTerm = true;
    int steps = 60;
    double wavelength = 0.6; ///< source centre wavelength, um
    /// Replace the objective: phasor_power of a phasor plane behind the designs (Ey, Hz).
    bool phasorPowerOnly = false;
    /// Replace the objective: a flux_box around sources and designs, one term per reduction it accepts.
    bool fluxBoxOnly = false;
};

inline scene::Scene gradScene(const GradSceneOptions& go = {}) {
    using scene::BoundaryType;
    const double cell = 0.05;
    scene::Scene s =
        boxScene(go.nx, 20, 16, cell, BoundaryType::Pml, BoundaryType::Pml, BoundaryType::Periodic, 5);
    s.materials.push_back(material("clad", 1.0));
    s.materials.push_back(material("core", 4.0));
    s.materials.push_back(material("glass", 2.25));
    if (go.lossy)
        s.materials.push_back(material("lossy", 2.0, 1.0, 1.5e4));
    const double x0 = -0.5 * go.nx * cell; // domain low x
    scene::Object rod;
    rod.name = "rod";
    rod.shape = scene::Shape::Box;
    rod.center = {0, 0.1, 0};
    rod.size = {go.nx * cell, 0.1, 2.0};
    rod.material = "glass";
    s.objects.push_back(rod);
    if (go.lossy) {
        scene::Object l;
        l.name = "absorber";
        l.shape = scene::Shape::Sphere;
        l.center = {x0 + 0.75, -0.15, 0.1};
        l.radius = 0.08;
        l.material = "lossy";
        s.objects.push_back(l);
    }
    s.sources.push_back(planeSource("beam", scene::SourceType::GaussianPlane, {x0 + 0.35, 0, 0},
                                    {0, 0.4, 0.8}, 0, +1, {0, 1, 0}, go.wavelength, 0.5 * go.wavelength));
    s.sources.back().waist = 0.2;
    s.sources.push_back(dipole("dip", {x0 + 0.4, -0.12, 0.1}, {0, 0, 1}, go.wavelength, 0.5 * go.wavelength));
    for (int d = 0; d < 2; ++d) {
        scene::Design g;
        g.name = d == 0 ? "left" : "right";
        g.center = {x0 + (d == 0 ? 0.5 : 0.7), d == 0 ? 0.0 : 0.05, d == 0 ? 0.0 : -0.1};
        g.size = {0.1, 0.2, 0.2};
        g.voxelCells = {1, 2, 2};
        g.materials = {"clad", "core"};
        g.beta = d == 0 ? 0.0 : 2.0;
        s.designs.push_back(g);
    }
    const double xf = x0 + 0.85;
    s.detectors.push_back(flux("out", {xf, 0, 0}, {0, 0.4, 0.8}, 0, +1, {go.wavelength}));
    s.detectors.push_back(detector("box", scene::DetectorType::Energy, {x0 + 0.8, 0, 0}, {0.1, 0.3, 0.3}));
    scene::ObjectiveTerm t;
    t.detector = "out";
    t.weight = 1.0;
    s.objective.terms.push_back(t);
    if (go.phasorTerm) {
        scene::ObjectiveTerm p;
        p.detector = "out";
        p.quantity = scene::Quantity::Flux;
        p.reduce = scene::Reduce::AtWavelength;
        p.wavelength = go.wavelength;
        p.weight = 30.0;
        s.objective.terms.push_back(p);
    }
    if (go.energyTerm) {
        scene::ObjectiveTerm e;
        e.detector = "box";
        e.quantity = scene::Quantity::Energy;
        e.reduce = scene::Reduce::TimeIntegral;
        e.weight = 0.5;
        s.objective.terms.push_back(e);
    }
    if (go.phasorPowerOnly) {
        scene::Detector ph = detector("ph", scene::DetectorType::Phasor, {xf, 0, 0}, {0, 0.3, 0.4});
        ph.components = {"Ey", "Hz"};
        ph.wavelengths = {go.wavelength};
        s.detectors.push_back(ph);
        scene::ObjectiveTerm p;
        p.detector = "ph";
        p.quantity = scene::Quantity::PhasorPower;
        p.reduce = scene::Reduce::AtWavelength;
        p.wavelength = go.wavelength;
        p.weight = 1.0;
        s.objective.terms = {p};
    }
    if (go.fluxBoxOnly) {
        scene::Detector box =
            detector("enclosure", scene::DetectorType::FluxBox, {x0 + 0.55, 0, 0}, {0.5, 0.4, 0.5});
        box.wavelengths = {go.wavelength};
        s.detectors.push_back(box);
        // Every reduction flux_box accepts: time_integral, final, at_wavelength (flux and phasor_power).
        scene::ObjectiveTerm f, last, p, pp;
        f.detector = last.detector = p.detector = pp.detector = "enclosure";
        last.reduce = scene::Reduce::Final;
        last.weight = 50.0;
        p.quantity = scene::Quantity::Flux;
        p.reduce = scene::Reduce::AtWavelength;
        p.wavelength = go.wavelength;
        p.weight = 10.0;
        pp = p;
        pp.quantity = scene::Quantity::PhasorPower;
        pp.weight = 20.0;
        s.objective.terms = {f, last, p, pp};
    }
    s.durationFs = (go.steps - 0.5) * s.dtFs();
    // Random latent parameters in [0.2, 0.8].
    scene::Rasterizer r(s);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.2, 0.8);
    for (int d = 0; d < 2; ++d) {
        s.designs[std::size_t(d)].latent.resize(r.designMap(d).size());
        for (double& v : s.designs[std::size_t(d)].latent)
            v = u(rng);
    }
    return s;
}

/// Set the gradient method by name: "full", "checkpointed" (3 checkpoints) or "reversible" (float64
/// recorder, exact).
inline void setGradientMethod(scene::Scene& s, const std::string& method) {
    s.gradient.recorder.clear();
    if (method == "full")
        s.gradient.method = scene::GradientMethod::Full;
    else if (method == "checkpointed") {
        s.gradient.method = scene::GradientMethod::Checkpointed;
        s.gradient.numCheckpoints = 3;
    } else {
        s.gradient.method = scene::GradientMethod::Reversible;
        scene::RecorderModule m;
        m.module = "DtypeConversion";
        m.dtype = "float64";
        s.gradient.recorder.push_back(m);
    }
}

/// The scene the decomposition tests of every gradient method share: 48 cells along x (room for
/// 8 tiles), 40 steps, lossless for `reversible` (the interior runs backward), lossy otherwise.
inline scene::Scene decomposableGradScene(const std::string& method) {
    GradSceneOptions go;
    go.nx = 48;
    go.lossy = method != "reversible";
    go.steps = 40;
    scene::Scene s = gradScene(go);
    setGradientMethod(s, method);
    return s;
}

/// A LinearReconstructEveryK(k) + DtypeConversion(dtype) recorder for the reversible method.
inline void setLossyRecorder(scene::Scene& s, int k, const std::string& dtype) {
    s.gradient.method = scene::GradientMethod::Reversible;
    scene::RecorderModule every, conv;
    every.module = "LinearReconstructEveryK";
    every.k = k;
    conv.module = "DtypeConversion";
    conv.dtype = dtype;
    s.gradient.recorder = {every, conv};
}

/// Central finite differences (step h) at the three largest-magnitude gradient entries of each design
/// region, where a relative error is meaningful. `objectiveAt(d, v, value)` runs the forward simulation
/// with latent v of design d set to `value` and returns the objective. Returns the worst relative error
/// (infinity when a difference quotient is 0); `checked` counts the entries compared.
template <class F>
double worstFdError(const scene::Scene& s, const std::vector<solver::NamedArray>& grads, F&& objectiveAt,
                    int& checked, const char* label, double h = 1e-4) {
    double worst = 0;
    checked = 0;
    for (std::size_t d = 0; d < grads.size(); ++d) {
        const auto& g = grads[d].data;
        if (g.size() != s.designs[d].latent.size())
            return std::numeric_limits<double>::infinity();
        std::vector<std::size_t> idx(g.size());
        for (std::size_t q = 0; q < idx.size(); ++q)
            idx[q] = q;
        std::sort(idx.begin(), idx.end(),
                  [&](std::size_t a, std::size_t b) { return std::abs(g[a]) > std::abs(g[b]); });
        for (int q = 0; q < 3 && q < int(idx.size()); ++q) {
            const std::size_t v = idx[std::size_t(q)];
            const double x = s.designs[d].latent[v];
            const double fd = (objectiveAt(int(d), v, x + h) - objectiveAt(int(d), v, x - h)) / (2 * h);
            const double rel =
                fd != 0 ? std::abs(g[v] - fd) / std::abs(fd) : std::numeric_limits<double>::infinity();
            qInfo("%s design %zu voxel %zu: adjoint %.12e  fd %.12e  rel %.2e", label, d, v, g[v], fd, rel);
            worst = std::max(worst, rel);
            ++checked;
        }
    }
    return worst;
}

} // namespace yee::testing
