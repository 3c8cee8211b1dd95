#pragma once
/// \file CudaKernels.hpp
/// Host-side view of the CUDA build: device discovery. Safe to call on machines without a GPU or driver
/// (returns no devices).
#include <cstdint>
#include <string>
#include <vector>

namespace yee::cuda {

struct DeviceInfo {
    int id = 0;
    std::string name;
    std::int64_t memoryBytes = 0;
};

/// Number of CUDA devices visible (0 without a driver or GPU).
int deviceCount();
/// The visible CUDA devices with their memory.
std::vector<DeviceInfo> devices();
/// Compiles (instantiates) every shared kernel for the device; launching nothing.
void compileAllKernels();

} // namespace yee::cuda
