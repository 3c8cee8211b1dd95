#pragma once
/// \file Devices.hpp
/// Where tiles run: turning a device list (scene::DeviceSpec) into the devices of this machine, and
/// making the device of one tile (real, or a dry-run device for estimates) through which every
/// allocation of that tile is counted.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "yee/device/Device.hpp"
#include "yee/run/Run.hpp"

namespace yee::run {

/// Bytes tile t's device may hold: RunOptions::deviceCapacity when given, else the GPU's free memory
/// (backend Cuda), else an equal share of hostUsableBytes() among `devices` emulated devices.
std::int64_t capacityFor(const RunOptions& o, int t, int devices);

/// Fraction of the memory available now that emulated CPU devices may plan to use (the rest is
/// headroom for the process itself, the page cache other programs need and what the estimate does not
/// see).
inline constexpr double kHostHeadroomShare = 0.9;

/// Host memory available to this process now, in bytes: the kernel's MemAvailable (/proc/meminfo), or
/// less when a cgroup (container, SLURM job) limits the process to less; the physical memory when
/// neither can be read.
std::int64_t hostAvailableBytes();

/// What emulated CPU devices may hold together: kHostHeadroomShare of hostAvailableBytes().
std::int64_t hostUsableBytes();

/// One line saying how the capacities of `o`'s devices were judged, for the estimate table (e.g.
/// "capacity: 90% of the 12.3 GiB available now (MemAvailable), shared by 2 emulated devices").
std::string capacityBasis(const RunOptions& o, int devices);

/// The named capacity presets of --capacity (GPU models): {name, bytes}. Names are lower case.
const std::vector<std::pair<std::string, std::int64_t>>& capacityPresets();

/// Parses a planned per-device capacity: a size with a unit ("80GiB", "40GB", "512MiB", "1.5TiB", or
/// plain bytes) or a preset name from capacityPresets() (case-insensitive, e.g. "H100", "a100-40gb").
/// Throws InputError naming `field`.
std::int64_t parseCapacity(const std::string& text, const std::string& field);

/// The device tile t runs on (or, with an external communicator, this rank's device). A dry-run device
/// has no capacity limit: it records what the run would allocate.
std::unique_ptr<device::Device> makeDevice(const RunOptions& o, int t, int devices, bool dryRun);

} // namespace yee::run
