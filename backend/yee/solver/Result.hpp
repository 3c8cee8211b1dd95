#pragma once
/// \file Result.hpp
/// What a run produces, in plain C++ types shared by the solver's parts (detectors assemble into
/// them, the gradient returns NamedArrays), the run layer, io and the studio.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "yee/comm/CommStats.hpp"
#include "yee/core/Box.hpp"
#include "yee/device/MemoryLedger.hpp"

namespace yee::solver {

/// A named n-d array of a result, row-major with the LAST index fastest (C/HDF5 order).
struct NamedArray {
    std::string name;
    std::vector<std::int64_t> shape;
    std::vector<double> data;
};

/// Everything one detector produced, assembled over tiles in global order.
struct DetectorResult {
    std::string name;
    std::string type; ///< "flux", "energy", "probe", "phasor", "snapshot"
    std::vector<NamedArray> arrays;
    std::map<std::string, double> attrs;
    const NamedArray* find(const std::string& n) const {
        for (auto& a : arrays)
            if (a.name == n)
                return &a;
        return nullptr;
    }
};

/// A field snapshot on a regular grid, for VTKHDF output. Data x-fastest (VTK order), float32.
struct Snapshot {
    std::string detector;
    std::string component; ///< "Ex".."Hz"
    int step = 0;
    double timeFs = 0;
    std::array<int, 3> dims{0, 0, 0};
    std::array<double, 3> originUm{0, 0, 0};
    std::array<double, 3> spacingUm{0, 0, 0};
    std::vector<float> data;
};

struct DeviceSummary {
    std::string name;
    Box tile;
    std::int64_t capacity = 0;
    device::LedgerSnapshot memory;
    comm::CommStats comm;
    /// GPUs: memory the driver reports in use by this run on the device (Device::driverUsedBytes) when
    /// the summary was taken, the cross-check of memory.current; -1 on CPU devices and in estimates.
    std::int64_t driverBytes = -1;
    /// True when this device's halo messages moved device to device through its communicator (NCCL),
    /// false for host-coherent or host-staged exchanges (LocalComm, MpiComm).
    bool deviceMessages = false;
};

} // namespace yee::solver
