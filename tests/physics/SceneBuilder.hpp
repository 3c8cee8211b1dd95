#pragma once
/// Small helpers to build scenes in code for the physics and decomposition tests.
#include <string>

#include "yee/scene/Scene.hpp"

namespace yee::testing {

/// A scene of nx x ny x nz cells of size `cellUm`, centred at the origin, with boundary types per axis.
inline scene::Scene boxScene(int nx, int ny, int nz, double cellUm, scene::BoundaryType bx,
                             scene::BoundaryType by, scene::BoundaryType bz, int pmlCells = 10) {
    scene::Scene s;
    s.name = "test";
    s.cellUm = cellUm;
    s.courant = 0.99;
    s.domainSize = {nx * cellUm, ny * cellUm, nz * cellUm};
    scene::BoundaryType t[3] = {bx, by, bz};
    for (int a = 0; a < 3; ++a) {
        s.boundaries[a].type = t[a];
        s.boundaries[a].cells = pmlCells;
    }
    scene::Material vac;
    vac.name = "vacuum";
    s.materials.push_back(vac);
    s.background = "vacuum";
    s.durationFs = 10;
    return s;
}

inline scene::Material material(const std::string& name, double eps, double mu = 1, double sigma = 0) {
    scene::Material m;
    m.name = name;
    m.eps = eps;
    m.mu = mu;
    m.sigma = sigma;
    return m;
}

inline scene::Source dipole(const std::string& name, scene::Vec3 c, scene::Vec3 pol, double wl, double bw) {
    scene::Source s;
    s.name = name;
    s.type = scene::SourceType::PointDipole;
    s.center = c;
    s.polarization = pol;
    s.profile.wavelength = wl;
    s.profile.bandwidth = bw;
    return s;
}

inline scene::Source planeSource(const std::string& name, scene::SourceType type, scene::Vec3 c,
                                 scene::Vec3 size, int normal, int dir, scene::Vec3 pol, double wl,
                                 double bw) {
    scene::Source s;
    s.name = name;
    s.type = type;
    s.center = c;
    s.size = size;
    s.normal = normal;
    s.direction = dir;
    s.polarization = pol;
    s.profile.wavelength = wl;
    s.profile.bandwidth = bw;
    return s;
}

inline scene::Detector detector(const std::string& name, scene::DetectorType type, scene::Vec3 c,
                                scene::Vec3 size) {
    scene::Detector d;
    d.name = name;
    d.type = type;
    d.center = c;
    d.size = size;
    return d;
}

inline scene::Detector flux(const std::string& name, scene::Vec3 c, scene::Vec3 size, int normal, int dir,
                            std::vector<double> wls) {
    scene::Detector d = detector(name, scene::DetectorType::Flux, c, size);
    d.normal = normal;
    d.direction = dir;
    d.wavelengths = std::move(wls);
    return d;
}

} // namespace yee::testing
