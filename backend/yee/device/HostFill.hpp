#pragma once
/// \file HostFill.hpp
/// Writing a device's constant arrays (update coefficients, CPML profiles, source and pole tables) on the
/// host. On staged devices (GPUs, and CPU devices emulating their data paths) the arrays are plain device
/// memory: the host writes host copies ("mirrors"), on as many threads as it likes, and commit() moves each
/// mirror to its array in one copy. On CPU devices the mirror of an array is the array itself and commit()
/// does nothing, so the fill code is the same for both and writes the same values.
///
/// The mirrors are transient host memory of the fill, outside the device's ledger (they are not device
/// memory, and a dry run, which fills nothing, could not count them).
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "yee/device/Device.hpp"

namespace yee::device {

class HostFill {
public:
    /// Mirrors for `dev`'s arrays. With `fromDevice` a mirror starts as a copy of its array's current
    /// contents (a refill that rewrites part of an array); otherwise as zeros, which is what a new array
    /// holds.
    explicit HostFill(Device& dev, bool fromDevice = false) : dev_(dev), fromDevice_(fromDevice) {}
    HostFill(const HostFill&) = delete;
    HostFill& operator=(const HostFill&) = delete;

    /// Whether the mirrors are host copies (staged devices) rather than the arrays themselves.
    bool staged() const { return dev_.staged() && !dev_.dryRun(); }

    /// The host-writable elements of `b` (b.size() of them): b's own memory on CPU devices, its mirror on
    /// staged devices (the same mirror for every call with the same array). Null for an empty array.
    template <class T> T* operator()(const Buffer<T>& b) {
        return static_cast<T*>(mirror(b.data(), b.bytes()));
    }

    /// Copies every mirror to its array (one copy each, waited for) and frees the mirrors. Throws what
    /// Device::copy throws.
    void commit() {
        for (Entry& e : entries_)
            dev_.copy(e.target, e.host.get(), e.bytes);
        entries_.clear();
    }

private:
    struct Entry {
        void* target;
        std::int64_t bytes;
        std::unique_ptr<double[]> host; ///< 8-byte aligned
    };
    void* mirror(void* target, std::int64_t bytes) {
        if (!target || bytes <= 0)
            return nullptr;
        if (!staged())
            return target;
        for (Entry& e : entries_)
            if (e.target == target)
                return e.host.get();
        Entry e{target, bytes, std::make_unique<double[]>(std::size_t((bytes + 7) / 8))}; // zeroed
        if (fromDevice_)
            dev_.copy(e.host.get(), target, bytes);
        entries_.push_back(std::move(e));
        return entries_.back().host.get();
    }

    Device& dev_;
    bool fromDevice_;
    std::vector<Entry> entries_;
};

} // namespace yee::device
