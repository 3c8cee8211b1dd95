#pragma once
/// \file Resolution.hpp
/// Is the grid fine enough where the light is? The shortest wavelength a source emits, in the
/// highest-index material of the scene, judged in cells, with the phase-velocity error the Yee scheme
/// makes there (from its numerical dispersion relation). The validator refuses fewer than
/// kMinCellsPerWavelength cells (the light cannot propagate on the grid); the runner and the studio
/// warn below kWarnCellsPerWavelength.
#include <string>
#include <vector>

#include "yee/scene/Scene.hpp"

namespace yee::scene {

/// Below this many cells per wavelength in a material the grid cannot carry the wave at all.
inline constexpr double kMinCellsPerWavelength = 2;
/// Below this many a warning gives the phase-velocity error.
inline constexpr double kWarnCellsPerWavelength = 10;

/// The worst place for resolution in a scene.
struct Resolution {
    int source = -1;                 ///< index in Scene::sources (-1: no source)
    double shortestWavelengthUm = 0; ///< shortest free-space wavelength of that source's spectrum
    std::string material;            ///< the highest-index material the scene uses
    /// Its refractive index sqrt(eps * mu) (>= 1 is not assumed). For dispersive, n/k and library
    /// materials Re sqrt(eps(omega) mu) where lambda / n is smallest across the sources' band, expressed
    /// at shortestWavelengthUm (so cellsPerWavelength is that material's worst).
    double index = 1;
    double cellsPerWavelength = 0; ///< shortestWavelengthUm / index / cellUm
    /// Relative phase-velocity error of the Yee grid at that wavelength along a grid axis (the worst
    /// direction): v_grid / v - 1, negative (the grid is slow). NaN when the wave does not propagate.
    double phaseVelocityError = 0;
    /// The phase the grid wave lags behind the true wave per wavelength travelled, degrees.
    double phaseErrorDegPerWavelength = 0;
};

/// Shortest wavelength a source emits, um: its centre wavelength for CW; for a Gaussian pulse the
/// upper half-maximum edge of its amplitude spectrum, c / (f0 + df / 2) with df = c * bandwidth /
/// wavelength^2 (bandwidth_um is the amplitude FWHM in wavelength).
double shortestWavelengthUm(const Profile& p);

/// Relative phase-velocity error v_grid / v - 1 of the 3-D Yee scheme along an axis for a wave of
/// `cellsPerWavelength` cells per wavelength in the medium, with the medium's Courant number
/// `courant1d` = v dt / dx. From sin(w dt / 2) / (v dt) = sin(k~ dx / 2) / dx. NaN when no real k~
/// exists (the wave does not propagate on the grid).
double yeePhaseVelocityError(double cellsPerWavelength, double courant1d);

/// The worst resolution over every source and the materials the scene uses (background, objects,
/// designs). Needs a scene whose cell, courant, materials and source profiles are valid.
Resolution worstResolution(const Scene& s);

/// Throws InputError naming grid.cell_um when a source's shortest wavelength has fewer than
/// kMinCellsPerWavelength cells in the highest-index material.
void checkResolution(const Scene& s);

/// The warnings (one line each, empty when none) for a scene below kWarnCellsPerWavelength: the cells
/// per wavelength, the phase-velocity error and the cell size that would give 10 cells. For yee-run
/// and the studio.
std::vector<std::string> resolutionWarnings(const Scene& s);

} // namespace yee::scene
