#pragma once
/// \file MaterialCheck.hpp
/// The validator's rules across a material's keys (SceneJson.cpp calls them): one form per material
/// (eps with optional poles, n and k, or a library name), known library names, eps_inf and pole
/// frequencies the time step can integrate.
#include <string>
#include <vector>

#include "yee/scene/Scene.hpp"

namespace yee::scene {

/// Most poles one material may carry (the pole kernels keep their coefficients in registers).
inline constexpr int kMaxPoles = 8;

/// Throws InputError naming the field of material `m` (at scene path `path`, "materials.<name>") that
/// breaks a rule. The scene's grid and Courant number must already be valid.
void checkDispersive(const Scene& s, const Material& m, const std::string& path);

/// Warnings (not errors) about a valid scene's materials: a library material used at wavelengths
/// (sources' bands, detectors' wavelengths) outside the range its fit is valid for. One line each,
/// naming the field.
std::vector<std::string> materialWarnings(const Scene& s);

} // namespace yee::scene
