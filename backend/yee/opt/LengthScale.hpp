#pragma once
/// \file LengthScale.hpp
/// Minimum length scale of a design region: the geometric constraints of Zhou, Lazarov, Wang and
/// Sigmund (Comput. Methods Appl. Mech. Engrg. 293, 2015), as used for photonics by Hammond et al.
/// (Opt. Express 29, 2021).
///
/// With the conic filter of radius R (scene: optimization.min_length_um = b sets R = b) and the
/// thresholds eta_e = 0.75 (eroded) and eta_d = 0.25 (dilated), Qian and Sigmund's relation for the
/// conic filter, b = R (2 - 2 sqrt(1 - eta_e)), gives b = R. The constraints ask that wherever the
/// projected design is solid (void) and the filtered field is flat (its inflection region, the
/// skeleton of a feature), the filtered field exceeds eta_e (stays below eta_d):
///   g_s = 1/N sum_i rho_i exp(-c |grad rhof_i|^2) min(rhof_i - eta_e, 0)^2        <= epsilon
///   g_v = 1/N sum_i (1 - rho_i) exp(-c |grad rhof_i|^2) min(eta_d - rhof_i, 0)^2  <= epsilon
/// with rhof the filtered latent field, rho its projection at the current beta, gradients by central
/// differences on the voxel grid (one-sided at the region's faces, zero along an axis of one voxel) in
/// voxel units and c = (R / voxel)^4. What it guarantees: a design meeting both with epsilon -> 0, at
/// large beta, has no solid or void feature of the thresholded blueprint narrower than b (up to the
/// voxel size); with a finite epsilon, violations of a mean squared size epsilon remain possible.
/// The filter alone (without the constraints) only discourages smaller features.
#include <cstddef>
#include <vector>

#include "yee/scene/Scene.hpp"

namespace yee::opt {

/// The two constraint values of one design region and their gradients with respect to its latent
/// values (x fastest).
struct LengthScaleValues {
    double solid = 0, voids = 0;
    std::vector<double> dSolid, dVoid;
};

/// Thresholds of the constraints (eroded and dilated designs).
inline constexpr double kEtaEroded = 0.75;
inline constexpr double kEtaDilated = 0.25;

/// g_s and g_v of design `d` of `s` at `latent` with projection steepness `beta`. Throws
/// std::invalid_argument on a size mismatch.
LengthScaleValues lengthScaleConstraints(const scene::Scene& s, std::size_t d,
                                         const std::vector<double>& latent, double beta);

} // namespace yee::opt
