#pragma once
/// \file ModeSource.hpp
/// Mode sources: the solved mode of a port plane (modes/ModeSolver.hpp, cached in Plan::modeCache) as the
/// plan's injection lists, launched one way (total-field/scattered-field style).
#include <cstddef>

#include "yee/modes/ModeSolver.hpp"
#include "yee/solver/Plan.hpp"

namespace yee::solver {

/// The mode-solver request of mode source `si` of p.scene: the E plane i0 = round(center) along the
/// normal (kept off the domain faces), the cross-section of cells whose faces are nearest the plane's
/// transverse extent (its PEC walls), the profile's centre wavelength and mode_index + 1 modes.
modes::ModeRequest modeSourceRequest(const Plan& p, std::size_t si);

/// True when the cross-section of `q` spans the grid between PEC domain boundaries along both transverse
/// axes (a metal waveguide: a homogeneous cross-section is then a valid port).
bool onPecWalls(const Plan& p, const modes::ModeRequest& q);

/// Solve (or fetch from the cache) the modes of mode source `si` and append its injections to p: the
/// transverse E and H of mode mode_index, unit power, times the source's profile. Throws InputError naming
/// sources[si].mode_index when the plane guides fewer modes, and sources[si] when the plane cuts no core
/// (one material, not between PEC walls).
void planModeSource(Plan& p, std::size_t si);

} // namespace yee::solver
