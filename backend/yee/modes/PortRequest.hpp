#pragma once
/// \file PortRequest.hpp
/// The mode-solver request of a mode monitor's port plane, shared by the mode_monitor kind
/// (detectors/ModeMonitor.cpp) and the studio's mode preview, so both solve the same cross-section.
#include <cstddef>
#include <vector>

#include "yee/core/Box.hpp"
#include "yee/modes/ModeSolver.hpp"
#include "yee/scene/Scene.hpp"

namespace yee::modes {

/// The request of mode monitor `detector` (index into s.detectors, a mode_monitor) whose plane is `plane`
/// (global cells, one E plane thick along `normal`), at monitor wavelength `wl` of `omegas` (normalised
/// angular frequencies 2 pi cell / lambda), for `count` modes on a grid of normalised time step `dt`.
/// The monitor's keys n_guess and port_pml_cells set the shift and the edges; with
/// solve_each_wavelength false the frequency is the centre wavelength of the first mode source (else of
/// the first source; the middle monitor wavelength without sources), as a broadband source launches.
/// Throws std::out_of_range when `detector` or `wl` is out of range.
ModeRequest monitorRequest(const scene::Scene& s, std::size_t detector, int normal, const Box& plane,
                           const std::vector<double>& omegas, std::size_t wl, double dt, int count);

} // namespace yee::modes
