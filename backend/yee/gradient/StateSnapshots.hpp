#pragma once
/// \file StateSnapshots.hpp
/// Full copies of a tile's dynamic state, for checkpoints of the reverse sweep. What is copied comes
/// from the tile's state registry (solver/TileState.hpp): every entry of role Dynamics — today the six
/// fields and the CPML psi, later any material's pole currents — so a new kind of evolving state is
/// checkpointed without a change here. A slot is the Dynamics entries back to back, in registration
/// order.
#include <cstdint>
#include <vector>

#include "yee/device/Device.hpp"
#include "yee/solver/TileState.hpp"

namespace yee::gradient {

class StateSnapshots {
public:
    /// `count` slots of the registry's Dynamics bytes on `dev` (category Checkpoints; dry-run aware).
    /// The registry must outlive this object; its Dynamics entries are read at each use and must keep
    /// their total size (else std::logic_error).
    StateSnapshots(device::Device& dev, const solver::TileState& state, int count);

    /// Bytes of one slot (the registry's Dynamics bytes).
    std::int64_t slotBytes() const { return slotBytes_; }
    /// Number of slots.
    int count() const { return count_; }
    /// Copy the current state into slot s (nothing in a dry run).
    void save(int s) const;
    /// Copy slot s back into the state.
    void load(int s) const;
    /// Zero the state (the forward run's initial condition).
    void zeroState() const;
    /// Where the registered buffer starting at `data` lies inside slot s, to read its saved bytes on the
    /// host (after a device sync). Entries are packed back to back, so the address need not be aligned
    /// for the buffer's element type: copy values out (std::memcpy) rather than dereference. Null when
    /// no Dynamics entry starts at `data`.
    const unsigned char* find(int s, const void* data) const;

private:
    /// The registry's Dynamics entries, in registration order (checked against slotBytes_).
    std::vector<solver::StateEntry> entries() const;

    device::Device& dev_;
    const solver::TileState& state_;
    std::int64_t slotBytes_ = 0;
    int count_ = 0;
    device::Buffer<unsigned char> slots_;
};

} // namespace yee::gradient
