#pragma once
/// \file Telemetry.hpp
/// Live run reports: progress, throughput, per-device memory by category and collective counts.
#include <cstdint>
#include <string>
#include <vector>

#include "yee/comm/CommStats.hpp"
#include "yee/device/MemoryLedger.hpp"

namespace yee::telemetry {

struct DeviceReport {
    int device = 0;   ///< tile / rank index
    std::string name; ///< "cpu:0", "cuda:1", "rank:3"
    std::int64_t capacity = 0;
    device::LedgerSnapshot memory;
    comm::CommStats comm;
};

/// One throttled report. Emitted on the driving thread (rank 0) through RunOptions::onTelemetry.
struct Report {
    std::string phase; ///< "forward", "adjoint", ...
    int step = 0;
    int totalSteps = 0;
    double elapsedSeconds = 0;
    double stepsPerSecond = 0;
    double cellUpdatesPerSecond = 0;
    std::vector<DeviceReport> devices;
};

} // namespace yee::telemetry
