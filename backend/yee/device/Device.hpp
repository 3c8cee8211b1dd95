#pragma once
/// \file Device.hpp
/// A compute device (an emulated CPU device or a CUDA GPU), its allocator and its memory ledger.
/// Every device allocation goes through Device::allocate so the ledger sees it.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "yee/device/MemoryLedger.hpp"

namespace yee::device {

enum class DeviceKind { Cpu, Cuda };

/// One device. A CPU device is a slice of the host (threads + a memory budget); a CUDA device is a GPU.
/// In dry-run mode allocations are recorded in the ledger but no memory is taken, which is how
/// memory estimates are produced by the very code path that allocates for real.
class Device {
public:
    Device(DeviceKind kind, int id, int threads, std::int64_t capacityBytes);
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    DeviceKind kind() const { return kind_; }
    int id() const { return id_; }
    /// Worker threads used by kernels on this device (CPU only).
    int threads() const { return threads_; }
    /// Bytes this device may hold.
    std::int64_t capacity() const { return capacity_; }
    std::string name() const;

    MemoryLedger& ledger() { return ledger_; }
    const MemoryLedger& ledger() const { return ledger_; }

    bool dryRun() const { return dryRun_; }
    void setDryRun(bool on) { dryRun_ = on; }

    /// Raw allocation of `bytes` in `cat`. Returns nullptr in dry-run mode. Throws MemoryError
    /// when the ledger would exceed capacity.
    void* allocateBytes(std::int64_t bytes, Category cat);
    void freeBytes(void* p, std::int64_t bytes, Category cat);

private:
    DeviceKind kind_;
    int id_;
    int threads_;
    std::int64_t capacity_;
    bool dryRun_ = false;
    unsigned stagger_ = 0;
    MemoryLedger ledger_;
};

/// Owning, move-only typed allocation on a device, reported to its ledger. Zero-initialised.
template <class T> class Buffer {
public:
    Buffer() = default;
    Buffer(Device& dev, std::int64_t n, Category cat) : dev_(&dev), n_(n), cat_(cat) {
        if (n_ > 0) p_ = static_cast<T*>(dev.allocateBytes(n_ * std::int64_t(sizeof(T)), cat));
    }
    ~Buffer() { reset(); }
    Buffer(Buffer&& o) noexcept { swap(o); }
    Buffer& operator=(Buffer&& o) noexcept {
        if (this != &o) {
            reset();
            swap(o);
        }
        return *this;
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    void reset() {
        if (dev_ && n_ > 0) dev_->freeBytes(p_, n_ * std::int64_t(sizeof(T)), cat_);
        dev_ = nullptr;
        p_ = nullptr;
        n_ = 0;
    }
    T* data() const { return p_; }
    std::int64_t size() const { return n_; }
    std::int64_t bytes() const { return n_ * std::int64_t(sizeof(T)); }
    bool allocated() const { return n_ > 0; }
    T& operator[](std::int64_t i) const { return p_[i]; }

private:
    void swap(Buffer& o) noexcept {
        std::swap(dev_, o.dev_);
        std::swap(p_, o.p_);
        std::swap(n_, o.n_);
        std::swap(cat_, o.cat_);
    }
    Device* dev_ = nullptr;
    T* p_ = nullptr;
    std::int64_t n_ = 0;
    Category cat_ = Category::Staging;
};

/// Total physical memory of this host in bytes.
std::int64_t hostMemoryBytes();
/// Hardware threads of this host.
int hostThreads();

} // namespace yee::device
