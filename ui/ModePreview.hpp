#pragma once
/// \file ModePreview.hpp
/// The solved waveguide mode of a mode source or mode monitor's port plane, for the studio's mode panel:
/// the scene is planned as a run plans it (solver::makePlan, which rasterises it and solves the mode
/// sources), the port's request is the one the run uses (solver::modeSourceRequest for a source,
/// modes::monitorRequest on detectors::planFluxPlane's plane for a monitor), and modes::solveModes solves
/// it. Pure functions: the panel calls them off the GUI thread.
#include <QString>

#include <vector>

#include "ui/FieldSlice.hpp"
#include "ui/SceneItem.hpp"

namespace yee::ui {

/// One previewed mode.
struct ModePreview {
    QString title;              ///< "port1 (mode source): mode 0 at 1.55 µm"
    int mode = 0;               ///< the mode shown (0 = largest n_eff, or nearest n_guess)
    double wavelengthUm = 0;    ///< vacuum wavelength the mode was solved at, um
    double neff = 0;            ///< effective index
    double neffImag = 0;        ///< attenuation (leaky modes of a PML-edged solve; 0 otherwise)
    double groupIndex = 0;      ///< c d(beta)/d(omega) on the grid, 0 when not computed
    double imagFraction = 0;    ///< share of the profile dropped by making it real (modes::Mode)
    std::vector<double> neffs;  ///< n_eff of every mode of the solve, in order
    double seconds = 0;         ///< solve time
    std::array<int, 2> cells{}; ///< cross-section cells along its two transverse axes (u, v of `field`)
    /// |E| = sqrt(E_u^2 + E_w^2 + |E_a|^2) of the unit-power mode on the cross-section, in um (sample
    /// (iu, iv) at the cell corner lo + (iu, iv): each component is taken at its own Yee position, so
    /// positions hold to half a cell).
    FieldSlice field;
};

/// True when `ref` is a mode source or a mode_monitor of `s`.
bool hasModes(const scene::Scene& s, const ItemRef& ref);
/// Wavelengths (um) a preview of `ref` can be solved at: a monitor's wavelengths_um, a source's centre
/// wavelength; empty when !hasModes().
std::vector<double> previewWavelengths(const scene::Scene& s, const ItemRef& ref);
/// Modes a preview of `ref` can show: a monitor's `modes`, mode_index + 1 for a source (0 if none).
int previewModeCount(const scene::Scene& s, const ItemRef& ref);

/// Solve mode `mode` of `ref` at wavelength index `wavelength` of previewWavelengths() (a source shows
/// its own mode_index whatever `mode` says). With `groupIndex` the cross-section is solved again at
/// omega (1 -+ 1e-4) by the mode solver (ModeRequest::groupIndex, Mode::ng). Throws yee::InputError with the
/// validator's or the mode solver's message (naming the scene field) when the scene or port is refused,
/// std::invalid_argument when `ref` has no modes or an index is out of range.
ModePreview solveModePreview(const scene::Scene& s, const ItemRef& ref, int mode, std::size_t wavelength,
                             bool groupIndex);

} // namespace yee::ui
