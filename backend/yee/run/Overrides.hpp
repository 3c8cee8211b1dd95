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

/// Where an MPI rank stands on its host: its index among the host's ranks and their number.
struct RankPlace {
    int localRank = 0;   ///< this rank among the ranks of its host (picks its GPU)
    int ranksOnNode = 1; ///< ranks sharing this host's cores, memory and GPUs
};

/// One tile per rank, the way every front end places an MPI rank (yee-run, yee-opt, the Python module).
/// GPU ranks take the listed GPUs round-robin by local rank (o.gpus becomes that one GPU, o.devices 1);
/// whether two ranks then share a GPU is decided from device identities by the caller, not here. The
/// ranks of a host split its cores (threadsPerDevice, unless set) and, on CPU devices, its usable memory
/// (deviceCapacity, unless set); a GPU's capacity stays its own memory. Returns how many GPUs the device
/// list named (0 on CPU devices). Pure: no communication.
int placeOneTilePerRank(RunOptions& o, const RankPlace& place);

} // namespace yee::run
