#pragma once
/// \file ModeSolver.hpp
/// Waveguide modes of a 2-D cross-section of the Yee grid, solved as eigenmodes of the discrete grid.
///
/// The port plane is normal to axis a (0, 1, 2); u = (a + 1) % 3 and w = (a + 2) % 3 are its transverse
/// axes. For fields ~ exp(i omega t - i beta s) along a, the 3-D Yee update is satisfied exactly when the
/// difference along a is replaced by its symbol -i K, K = 2 sin(beta / 2) (beta in radians per cell),
/// and the time difference by i W, W = 2 sin(omega dt / 2) / dt, keeping the transverse Yee differences
/// and the rasterised (subpixel-averaged) eps and mu of every component. Eliminating the longitudinal
/// components (with the discrete div B = 0) leaves, for the transverse magnetic field h = (H_u, H_w),
///
///   K^2 h = W^2 diag(eps_w mu_u, eps_u mu_w) h + [eps_w D_w; -eps_u D_u] eps_a^-1 [-D'_w, D'_u] h
///           + [D'_u; D'_w] mu_a^-1 [D_u mu_u, D_w mu_w] h,
///
/// with D (forward) and D' = -D^T (backward) the transverse Yee differences. The largest K^2 (or those
/// nearest a guess) are found by shift-invert Arnoldi (Spectra, with Eigen's sparse LU).
///
/// Edges. By default (ModeRequest::pml = 0) the edges of the cross-section are perfect electric
/// conductors (tangential E and normal H vanish there): exact for a metal guide, a perturbation of a
/// dielectric guide's mode when its tail reaches the port's edge. With pml = P > 0 the solve window is
/// the port grown by P cells on every side (materials sampled from the scene there, as the 3-D grid
/// sees them), and those P cells are a uniaxial stretched-coordinate PML: every transverse difference
/// is divided by s = kappa(t) - i sigma(t) / W at its own Yee position, t the depth into the layer
/// (0 at the port's edge, 1 at the window's PEC back wall), kappa = 1 + 2 t^3 (faster decay of
/// evanescent tails), sigma = 4 ln(1e6) / (2 P) t^3 (1e-6 round-trip reflection of a normally incident
/// wave). The operator is then complex non-Hermitian; it is solved by ARPACK's complex shift-invert
/// Arnoldi (modes/ComplexEigs.hpp, Eigen's complex sparse LU) or, without ARPACK, as its real 2n x 2n
/// equivalent (Spectra's real Arnoldi), and modes living mostly in the layer (PML modes) are dropped. The
/// returned mode is the part of the window inside the port, phase-rotated to be as real as possible and
/// stored as its real part (Mode::imagFraction says how much was dropped: ~0 for a guided mode, larger for a
/// leaky one), normalised to unit power over the port. So a mode source injects, and a mode monitor projects
/// on, the open-boundary mode cut at the port's edges; power outside the port is not counted. Conductivity is
/// ignored (the modes of the lossless guide).
///
/// Normalised units: cell = 1, c = 1, eps0 = mu0 = 1 (as the solver's fields).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "yee/core/Box.hpp"
#include "yee/scene/Rasterizer.hpp"

namespace yee::modes {

/// What to solve.
struct ModeRequest {
    int normal = 0;              ///< axis a of the plane normal
    int plane = 0;               ///< global index along a of the E-type plane (E_u, E_w sit there)
    std::array<int, 2> lo{0, 0}; ///< first global cell of the cross-section along u and w
    std::array<int, 2> hi{0, 0}; ///< one past the last cell along u and w (the PEC walls are cell faces)
    double omega = 0;            ///< normalised angular frequency 2 pi cell / wavelength
    double dt = 0;               ///< normalised time step (> 0; the grid's numerical frequency is used)
    int count = 1;               ///< number of modes, in order of decreasing n_eff (or distance from nGuess)
    double nGuess = 0;           ///< > 0: the modes whose n_eff is nearest this; 0: the largest n_eff
    int pml = 0;                 ///< 0: PEC port edges; > 0: a PML of this many cells outside each edge
    /// PML-edged solves: false (default) uses ARPACK's complex Arnoldi when the build has it
    /// (arpackAvailable()); true, or a build without ARPACK, Spectra's real Arnoldi on the real
    /// 2n x 2n equivalent (same modes to the solver's tolerance, several times slower; for comparisons).
    bool realEquivalent = false;
    /// Also compute each mode's group index (Mode::ng) by two more solves at omega (1 +- 1e-4).
    bool groupIndex = false;
};

/// One mode. Profiles are stored per component c (0..5 = Ex..Hz) on the cross-section's local index
/// grid (iu, iw) in [0, nu] x [0, nw], at the component's own Yee position: global transverse indices
/// (lo[0] + iu, lo[1] + iw). Transverse components are real phasor amplitudes referred to the
/// component's own position along a; the longitudinal ones hold the factor of -i (E_a) and -i (H_a):
/// phasor E_a = -i value, H_a = -i value. Normalised to unit power sum (E_u H_w - E_w H_u) = 1 over the
/// cross-section (pairs sharing a transverse position), positive along +a.
struct Mode {
    double neff = 0;  ///< effective index beta / omega
    double beta = 0;  ///< propagation constant, radians per cell
    double kappa = 0; ///< K = 2 sin(beta / 2), the grid's symbol
    /// Attenuation -Im(beta) / omega of a PML-edged solve (> 0: the mode leaks; 0 with PEC edges).
    double neffImag = 0;
    /// |Im|^2 / |value|^2 of the phase-rotated complex profile over the port (0 with PEC edges).
    double imagFraction = 0;
    /// Group index d beta / d omega (c = 1) of the grid's own dispersion (the discrete time and
    /// longitudinal differences included, so a pulse's envelope moves at 1 / ng cells per unit time on
    /// the grid), by a central difference of two solves at omega (1 +- 1e-4) (error ~1e-8 relative).
    /// Computed when ModeRequest::groupIndex is set (else 0, also when a side solve finds no mode).
    double ng = 0;
    int nu = 0, nw = 0;
    std::array<std::vector<double>, 6> field; ///< (nu + 1) * (nw + 1) values each, iu slow
    /// The value of component c at local index (iu, iw) (0 outside the grid).
    double at(int c, int iu, int iw) const {
        if (iu < 0 || iw < 0 || iu > nu || iw > nw)
            return 0;
        return field[std::size_t(c)][std::size_t(iu) * std::size_t(nw + 1) + std::size_t(iw)];
    }
};

/// The solved modes of one request.
struct ModeSet {
    ModeRequest request;
    std::vector<Mode> modes;   ///< in order (decreasing n_eff, or increasing distance from nGuess)
    double seconds = 0;        ///< solve time
    std::int64_t unknowns = 0; ///< size of the eigenproblem
    bool homogeneous = false;  ///< the cross-section holds one material (no core: only the walls guide)
};

/// Solve `req` on the materials of `raster`. Throws InputError (naming `field`) when the cross-section
/// has fewer than 2 cells along a transverse axis or fewer than req.count guided modes (K^2 in (0, 4))
/// exist near the shift, or when req.pml is negative; std::runtime_error when the eigen solver does not
/// converge.
ModeSet solveModes(const scene::Rasterizer& raster, const ModeRequest& req, const std::string& field);

/// True when this build has ARPACK, so PML-edged solves use its complex Arnoldi (else the real 2n route).
bool arpackAvailable();

/// sum (E_u H'_w - E_w H'_u) over the cross-section for E of `a` and H of `b` (the unconjugated overlap
/// that the mode normalisation and the orthogonality of distinct modes use).
double overlap(const Mode& a, const Mode& b, int normal);

} // namespace yee::modes
