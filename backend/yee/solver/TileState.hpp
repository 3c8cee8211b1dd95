#pragma once
/// \file TileState.hpp
/// The registry of a tile's evolving state: every per-tile buffer whose contents change during a run
/// (fields, CPML psi, detector accumulators, later dispersive polarisation currents) is registered
/// here once, with a stable name, its ledger category and its role. Everything that must visit all
/// evolving state — gradient checkpoints, restart files, state reports — iterates the registry
/// instead of listing buffers by hand, so a new kind of state is added in exactly one place.
///
/// Roles:
///  - Dynamics: determines the future field evolution (E, H, CPML psi, pole currents). Gradient
///    checkpoints save and restore exactly these; a reverse sweep that replays forward steps needs
///    nothing else.
///  - Record:   what detectors accumulate (sums, phasors, time series, snapshots). Restart files need
///    them (the results of a resumed run must equal an uninterrupted one); gradient checkpoints do not,
///    because replayed steps never record.
///
/// Constants rebuilt by Tile::fill() (materials, CPML profiles, injection coefficients) and halo
/// message buffers (refilled every step) are not state and are not registered.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "yee/device/Device.hpp"

namespace yee::solver {

/// What a registered buffer is for (see the file comment).
enum class StateRole { Dynamics, Record };

/// One registered buffer: raw bytes in the device's memory (host-addressable on CPU devices).
struct StateEntry {
    std::string name; ///< stable, unique within the tile: "field.Ex", "pml.0.psiE.1", "detector.out.sums"
    device::Category category = device::Category::Fields; ///< the ledger category it was allocated under
    StateRole role = StateRole::Dynamics;
    void* data = nullptr; ///< null when empty (a tile that owns none of a detector's cells)
    std::int64_t bytes = 0;
};

/// The registry of one tile. Entries are kept in registration order, which is the order of restart
/// files and checkpoint slots (so it must not depend on anything but the plan and the tile).
class TileState {
public:
    /// Register `buf` under `name`. The buffer must outlive the registry's use and must not be
    /// reallocated afterwards (the registry keeps its address). Empty buffers are registered too (with
    /// zero bytes) so names do not depend on which cells a tile owns.
    template <class U> void add(std::string name, StateRole role, device::Buffer<U>& buf) {
        entries_.push_back({std::move(name), buf.category(), role, buf.data(), buf.bytes()});
    }
    /// All entries, in registration order.
    const std::vector<StateEntry>& entries() const { return entries_; }
    /// Entries of one role, in registration order.
    std::vector<StateEntry> entries(StateRole role) const {
        std::vector<StateEntry> out;
        for (const auto& e : entries_)
            if (e.role == role)
                out.push_back(e);
        return out;
    }
    /// Total bytes of one role.
    std::int64_t bytes(StateRole role) const {
        std::int64_t n = 0;
        for (const auto& e : entries_)
            if (e.role == role)
                n += e.bytes;
        return n;
    }
    /// Forget every entry (before the owner's buffers are rebuilt).
    void clear() { entries_.clear(); }
    /// Forget the entries after the first `n` (e.g. the detectors' ones, before a new DetectorSet
    /// registers its buffers again on a tile that is kept).
    void truncate(std::size_t n) {
        if (n < entries_.size())
            entries_.resize(n);
    }

private:
    std::vector<StateEntry> entries_;
};

} // namespace yee::solver
