#include "yee/gradient/StateSnapshots.hpp"

namespace yee::gradient {

StateSnapshots::StateSnapshots(device::Device& dev, const solver::TileState& state, int count)
    : dev_(dev), entries_(state.entries(solver::StateRole::Dynamics)), count_(count) {
    for (const auto& e : entries_)
        slotBytes_ += e.bytes;
    slots_ =
        device::Buffer<unsigned char>(dev, std::int64_t(count) * slotBytes_, device::Category::Checkpoints);
}

void StateSnapshots::save(int s) const {
    unsigned char* dst = slots_.data();
    if (!dst)
        return;
    dst += std::int64_t(s) * slotBytes_;
    for (const auto& e : entries_) {
        if (e.bytes > 0)
            dev_.copy(dst, e.data, e.bytes);
        dst += e.bytes;
    }
}

void StateSnapshots::load(int s) const {
    const unsigned char* src = slots_.data() + std::int64_t(s) * slotBytes_;
    for (const auto& e : entries_) {
        if (e.bytes > 0)
            dev_.copy(e.data, src, e.bytes);
        src += e.bytes;
    }
}

void StateSnapshots::zeroState() const {
    for (const auto& e : entries_)
        if (e.bytes > 0)
            dev_.zero(e.data, e.bytes);
}

const void* StateSnapshots::find(int s, const void* data) const {
    if (!data)
        return nullptr;
    std::int64_t at = 0;
    for (const auto& e : entries_) {
        if (e.data == data)
            return slots_.data() + std::int64_t(s) * slotBytes_ + at;
        at += e.bytes;
    }
    return nullptr;
}

} // namespace yee::gradient
