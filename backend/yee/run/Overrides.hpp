#pragma once
/// \file Overrides.hpp
/// Command-line and scripting overrides of a scene's run section, shared by every front end.
#include <array>
#include <optional>
#include <string>

#include "yee/run/Run.hpp"

namespace yee::run {

/// Override the tile grid and devices of `o` (made by RunOptions::fromScene(s)) the way every front end
/// does (yee-run, yee-opt, the Python module): a device list from `devicesField` when given; else a new
/// tile grid gets one emulated CPU device per tile when the scene asks for CPU devices, or the scene's
/// device list (GPUs, or the CPU fallback per tile). Throws InputError naming the field.
void overrideTilesAndDevices(const scene::Scene& s, const std::optional<std::array<int, 3>>& tiles,
                             const std::optional<std::string>& devices, const std::string& devicesField,
                             RunOptions& o);

} // namespace yee::run
