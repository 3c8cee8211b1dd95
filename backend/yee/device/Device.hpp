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

/// One device. A CPU device is a slice of the host (threads + a memory budget); a CUDA device is a GPU
/// with its own stream (see cuda/Runtime.hpp for the memory model).
/// In dry-run mode allocations are recorded in the ledger but no memory is taken, which is how
/// memory estimates are produced by the very code path that allocates for real.
///
/// Work launched on a device (device::launch) is asynchronous on CUDA: host code that reads or writes
/// device memory calls sync() first. On CPU devices launches are synchronous and sync() costs nothing.
class Device {
public:
    /// A CUDA device needs a CUDA build and a visible GPU `id` (else RunError naming it); capacity <= 0
    /// then means the GPU's free memory at creation. Dry-run CUDA devices touch no GPU at all.
    Device(DeviceKind kind, int id, int threads, std::int64_t capacityBytes, bool dryRun = false);
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

    bool isCuda() const { return kind_ == DeviceKind::Cuda; }
    /// True when data leaves device memory only in packed blocks (GPUs): detectors download their
    /// cells, captures gather point lists, CPML corrections run as separate passes. A CPU device can be
    /// told to take these paths too (setStagedPaths), which is how the GPU's data paths are tested
    /// bit for bit on machines without a GPU.
    bool staged() const { return kind_ == DeviceKind::Cuda || stagedPaths_; }
    void setStagedPaths(bool on) { stagedPaths_ = on; }
    /// CUDA: put every later allocation of this device in managed memory, which the host may read and write
    /// between launches after sync() (YEE_CUDA_MANAGED=1 does it for every device). For tests that touch
    /// device buffers from the host; the solver reaches device memory only through copies.
    void setManagedMemory(bool on) { managedAll_ = on; }
    bool managedMemory() const { return managedAll_; }
    /// CUDA: the device's stream (a cudaStream_t); null on CPU devices and in dry runs.
    void* stream() const { return stream_; }
    /// Make this device current on the calling thread (CUDA: cudaSetDevice). No-op on CPU.
    void activate() const;
    /// Wait until the work launched on this device so far has finished. No-op on CPU.
    void sync() const;
    /// Copy bytes between host and/or this device's memory; waits for earlier work and for the copy.
    void copy(void* dst, const void* src, std::int64_t bytes) const;
    /// Copy `bytes` within this device's memory, ordered on the stream like a launch, without waiting.
    /// A plain copy on CPU devices.
    void copyOnDevice(void* dst, const void* src, std::int64_t bytes) const;
    /// Copy `bytes` of pageable host memory to this device's memory, ordered on the stream before later
    /// launches, without waiting (CUDA stages a pageable source at once, so `src` may change as soon as
    /// this returns). A plain copy on CPU devices.
    void upload(void* dst, const void* src, std::int64_t bytes) const;
    /// CUDA: start moving bytes written on the host back to the GPU (a hint; ordered on the stream).
    void prefetch(void* p, std::int64_t bytes) const;
    /// Zero bytes of this device's memory (asynchronous on CUDA, like a launch).
    void zero(void* p, std::int64_t bytes) const;
    /// CUDA: bytes the driver reports in use on this GPU minus what it reported when this device was
    /// opened, i.e. what this process allocated since (any other process's use shows up too). -1 on CPU.
    std::int64_t driverUsedBytes() const;

    /// CUDA: counts the GPU memory this process took outside the ledger since the device was opened (NCCL's
    /// own buffers, measured once its communicator exists) and lowers the capacity by it, so the ledger's
    /// capacity checks see what is really left. Returns those bytes (0 on CPU devices and in dry runs).
    std::int64_t reserveForeignMemory();
    /// Bytes reserveForeignMemory() took off the capacity.
    std::int64_t foreignBytes() const { return foreign_; }

    /// Raw allocation of `bytes` in `cat`. Returns nullptr in dry-run mode. Throws MemoryError
    /// when the ledger would exceed capacity. On GPUs the memory is plain device memory (cudaMalloc:
    /// the host reaches it only through copy(); the fill writes constants through host mirrors,
    /// device/HostFill.hpp), except Category::Host (host memory, outside the GPU's capacity; see
    /// MemoryLedger) and, with YEE_CUDA_MANAGED=1 or setManagedMemory(true), managed memory for all.
    void* allocateBytes(std::int64_t bytes, Category cat);
    void freeBytes(void* p, std::int64_t bytes, Category cat);

private:
    /// Zeroed, aligned host memory (CPU devices' buffers, GPUs' host category); throws MemoryError.
    void* hostAllocate(std::int64_t bytes);

    DeviceKind kind_;
    int id_;
    int threads_;
    std::int64_t capacity_;
    bool dryRun_ = false;
    bool stagedPaths_ = false;
    bool managedAll_ = false;
    unsigned stagger_ = 0;
    void* stream_ = nullptr;
    std::int64_t driverBaseline_ = 0;
    std::int64_t foreign_ = 0;
    MemoryLedger ledger_;
};

/// Owning, move-only typed allocation on a device, reported to its ledger. Zero-initialised.
template <class T> class Buffer {
public:
    Buffer() = default;
    Buffer(Device& dev, std::int64_t n, Category cat) : dev_(&dev), n_(n), cat_(cat) {
        if (n_ > 0)
            p_ = static_cast<T*>(dev.allocateBytes(n_ * std::int64_t(sizeof(T)), cat));
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
        if (dev_ && n_ > 0)
            dev_->freeBytes(p_, n_ * std::int64_t(sizeof(T)), cat_);
        dev_ = nullptr;
        p_ = nullptr;
        n_ = 0;
    }
    T* data() const { return p_; }
    std::int64_t size() const { return n_; }
    std::int64_t bytes() const { return n_ * std::int64_t(sizeof(T)); }
    bool allocated() const { return n_ > 0; }
    /// The ledger category this buffer was allocated under.
    Category category() const { return cat_; }
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
