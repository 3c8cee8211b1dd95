#pragma once
/// \file Devices.hpp
/// Where tiles run: turning a device list (scene::DeviceSpec) into the devices of this machine, and
/// making the device of one tile (real, or a dry-run device for estimates) through which every
/// allocation of that tile is counted.
#include <cstdint>
#include <memory>
#include <string>

#include "yee/device/Device.hpp"
#include "yee/run/Run.hpp"

namespace yee::run {

/// Bytes tile t's device may hold: RunOptions::deviceCapacity when given, else the GPU's free memory
/// (backend Cuda), else an equal share of the host's memory among `devices` emulated devices.
std::int64_t capacityFor(const RunOptions& o, int t, int devices);

/// The device tile t runs on (or, with an external communicator, this rank's device). A dry-run device
/// has no capacity limit: it records what the run would allocate.
std::unique_ptr<device::Device> makeDevice(const RunOptions& o, int t, int devices, bool dryRun);

} // namespace yee::run
