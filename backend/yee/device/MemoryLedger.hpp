#pragma once
/// \file MemoryLedger.hpp
/// Per-device accounting of every allocation, by category: current and peak bytes.
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace yee::device {

/// What an allocation is for. Every device allocation names one.
enum class Category : int {
    Fields = 0,  ///< E, H
    Materials,   ///< update coefficients
    Pml,         ///< CPML psi and profiles
    Sources,     ///< source profiles on this tile
    Detectors,   ///< detector accumulators and histories
    Recorder,    ///< reversible-gradient interface records
    Checkpoints, ///< full-state checkpoints
    Adjoint,     ///< adjoint fields and gradient accumulators
    Halo,        ///< halo send/receive buffers
    Staging,     ///< host staging, scratch
    Dispersive,  ///< dispersive pole currents, their cell lists and scratch (only where poles are)
    Host,        ///< host-only state of the device's run (snapshot frames, the design-gradient
                 ///< accumulator): host memory, not counted against a GPU's capacity
    Count
};

/// Lower-case name used in tables, JSON and HDF5 (`fields`, `halo`, ...).
const char* categoryName(Category c);
constexpr int kCategoryCount = static_cast<int>(Category::Count);

/// Snapshot of a ledger: bytes by category, current and peak (peak of the total is tracked separately
/// because category peaks need not coincide).
struct LedgerSnapshot {
    std::array<std::int64_t, kCategoryCount> current{};
    std::array<std::int64_t, kCategoryCount> peak{};
    std::int64_t currentTotal = 0;
    std::int64_t peakTotal = 0;
};

/// Thread-safe byte ledger of one device. Buffers report to it on allocate and free.
///
/// The totals (currentTotal, peakTotal) are the bytes held against the device's capacity. On GPUs the
/// host category lives in host memory, so it is counted in its own row but not in the totals
/// (setHostSeparate(true)); on CPU devices, where every category is host memory, it is in the totals.
class MemoryLedger {
public:
    /// Whether Category::Host is left out of the totals (GPUs: true). Set before the first allocation.
    void setHostSeparate(bool on) { hostSeparate_ = on; }
    bool hostSeparate() const { return hostSeparate_; }
    void add(Category c, std::int64_t bytes);
    void remove(Category c, std::int64_t bytes);
    LedgerSnapshot snapshot() const;
    std::int64_t currentTotal() const;
    std::int64_t peakTotal() const;
    /// Forget peaks (current stays); used between runs that reuse a prepared scene.
    void resetPeak();

private:
    mutable std::mutex m_;
    LedgerSnapshot s_;
    bool hostSeparate_ = false;
};

/// Human-readable byte count ("12.3 MiB").
std::string formatBytes(std::int64_t bytes);

} // namespace yee::device
