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

/// Progress of one phase of a run. A forward run has the phase "forward"; a value-and-grad run also
/// "reconstruct" (forward steps recomputed from checkpoints, method checkpointed) and "adjoint" (the
/// reverse steps; with method reversible each one includes the reconstruction of its forward state).
struct PhaseProgress {
    std::string name;            ///< "forward", "reconstruct" or "adjoint"
    std::int64_t step = 0;       ///< steps of this phase done so far
    std::int64_t totalSteps = 0; ///< steps this phase takes in all (planned)
    double seconds = 0;          ///< wall time spent in this phase so far (s)
    /// Steps per second measured in this phase (0 before its first step).
    double stepsPerSecond() const { return seconds > 0 ? double(step) / seconds : 0; }
};

/// One throttled report. Emitted on the driving thread (rank 0) through RunOptions::onTelemetry.
struct Report {
    std::string phase;               ///< the phase reporting: "forward", "reconstruct" or "adjoint"
    int step = 0;                    ///< steps of that phase done
    int totalSteps = 0;              ///< steps of that phase in all
    double elapsedSeconds = 0;       ///< wall time of the whole run so far (s)
    double stepsPerSecond = 0;       ///< rate of the reporting phase (steps/s)
    double cellUpdatesPerSecond = 0; ///< rate of the reporting phase (cell updates/s)
    /// Estimated wall time until the whole run (every phase) ends (s); < 0 when unknown. Phases not
    /// started yet are estimated at the forward phase's rate.
    double remainingSeconds = -1;
    /// Every phase of the run in order, those to come included (step 0).
    std::vector<PhaseProgress> phases;
    std::vector<DeviceReport> devices;
};

/// Estimated seconds until the end of the run from `phases`: each phase's remaining steps at its own
/// rate, or, for a phase without a measured rate yet, at the rate of the nearest phase before it that
/// has one. Returns -1 when no phase has a rate.
inline double remainingSeconds(const std::vector<PhaseProgress>& phases) {
    double rate = 0, total = 0;
    for (const auto& p : phases) {
        if (p.stepsPerSecond() > 0)
            rate = p.stepsPerSecond();
        const std::int64_t left = p.totalSteps - p.step;
        if (left <= 0)
            continue;
        if (rate <= 0)
            return -1;
        total += double(left) / rate;
    }
    return total;
}

} // namespace yee::telemetry
