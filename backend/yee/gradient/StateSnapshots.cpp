#include "yee/gradient/StateSnapshots.hpp"

#include <stdexcept>

namespace yee::gradient {

using solver::StateRole;

StateSnapshots::StateSnapshots(device::Device& dev, const solver::TileState& state, int count)
    : dev_(dev), state_(state), slotBytes_(state.bytes(StateRole::Dynamics)), count_(count),
      slots_(dev, std::int64_t(count) * slotBytes_, device::Category::Checkpoints) {}

std::vector<solver::StateEntry> StateSnapshots::entries() const {
    // Read from the registry at each use (an owner may re-register); the slot layout must not change.
    std::vector<solver::StateEntry> e = state_.entries(StateRole::Dynamics);
    std::int64_t bytes = 0;
    for (const auto& x : e)
        bytes += x.bytes;
    if (bytes != slotBytes_)
        throw std::logic_error("StateSnapshots: the tile's Dynamics state changed size after allocation");
    return e;
}

void StateSnapshots::save(int s) const {
    unsigned char* dst = slots_.data();
    if (!dst)
        return; // dry run, or nothing to keep
    dst += std::int64_t(s) * slotBytes_;
    for (const auto& e : entries()) {
        if (e.bytes > 0)
            dev_.copy(dst, e.data, e.bytes);
        dst += e.bytes;
    }
}

void StateSnapshots::load(int s) const {
    const unsigned char* src = slots_.data() + std::int64_t(s) * slotBytes_;
    for (const auto& e : entries()) {
        if (e.bytes > 0)
            dev_.copy(e.data, src, e.bytes);
        src += e.bytes;
    }
}

void StateSnapshots::zeroState() const {
    for (const auto& e : entries())
        if (e.bytes > 0)
            dev_.zero(e.data, e.bytes);
}

const unsigned char* StateSnapshots::find(int s, const void* data) const {
    if (!data)
        return nullptr;
    std::int64_t at = 0;
    for (const auto& e : entries()) {
        if (e.data == data)
            return slots_.data() + std::int64_t(s) * slotBytes_ + at;
        at += e.bytes;
    }
    return nullptr;
}

} // namespace yee::gradient
