#pragma once
/// \file RunReport.hpp
/// Human-readable output of yee-run: memory estimate table, end-of-run per-device table (peak memory
/// by category, collective counts per phase) and the throttled progress bar.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "yee/cuda/Runtime.hpp"
#include "yee/run/Run.hpp"
#include "yee/telemetry/Telemetry.hpp"

namespace yee::cli {

/// Renders rows as aligned columns: the first `leftColumns` left-aligned, the others right-aligned,
/// two spaces apart, a rule under the header. Every line ends with '\n'.
std::string renderTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows, int leftColumns = 1);

/// The pre-run estimate: grid, steps, then per device its tile, peak bytes of every category used by
/// any device, peak total, capacity and the share of capacity.
std::string formatEstimate(const run::Estimate& estimate);

/// Per-device peak memory by category (categories used by any device), peak total and capacity.
std::string formatMemoryTable(const std::vector<solver::DeviceSummary>& devices);

/// Per-device collective counts: one row per device and phase in which any device communicated,
/// columns halo_exchange, all_reduce, gather, broadcast, barrier and the bytes sent in that phase.
std::string formatCommTable(const std::vector<solver::DeviceSummary>& devices);

/// `yee-run --list-devices`: a table of the visible GPUs (`cuda:ID`, name, memory total and free in
/// GiB, compute capability, multiprocessors, peak DRAM bandwidth), or one line with `unavailable` (why
/// there are none) when `gpus` is empty; then one line for the host (threads, memory).
std::string formatDeviceList(const std::vector<cuda::DeviceInfo>& gpus, const std::string& unavailable,
                             int hostThreads, std::int64_t hostMemoryBytes);

/// "1:02:03" / "2:03" / "--" for an unknown (non-finite or negative) duration in seconds.
std::string formatDuration(double seconds);

/// One line per phase of a run: `phase forward      1234/1234 steps  1.52 s  812 steps/s`.
std::string formatPhases(const std::vector<telemetry::PhaseProgress>& phases);

/// Progress on a terminal line, redrawn in place at most every `minInterval` (interactive), or one
/// plain line at most every `plainInterval` (log files, pipes). The last step is always shown.
class ProgressBar {
public:
    ProgressBar(std::FILE* out, bool interactive,
                std::chrono::duration<double> minInterval = std::chrono::milliseconds(200),
                std::chrono::duration<double> plainInterval = std::chrono::seconds(10));
    /// Shows `report` unless the last drawing is too recent.
    void update(const telemetry::Report& report);
    /// Ends the line if one is drawn in place.
    void finish();

    /// One progress line: `[#####.....] 1234/5000  24.7%  512 steps/s  85.1 Mcell/s  ETA 0:07`. Runs of
    /// several phases start with the phase and its place (`adjoint 3/3 [...`); the numbers are the
    /// reporting phase's and the ETA is the whole run's (report.remainingSeconds).
    static std::string line(const telemetry::Report& report, int barWidth = 24);

private:
    std::FILE* out_;
    bool interactive_;
    std::chrono::duration<double> minInterval_;
    std::chrono::duration<double> plainInterval_;
    std::chrono::steady_clock::time_point last_{};
    bool drawn_ = false;
    bool open_ = false;
};

} // namespace yee::cli
