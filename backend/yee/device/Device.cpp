#include "yee/device/Device.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sched.h>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"

namespace yee::device {

namespace {
// Allocation header stored just before the returned pointer so free can find the true start.
struct Header {
    void* base;
};
constexpr std::size_t kAlign = 64;
constexpr std::size_t kHugeThreshold = std::size_t(4) << 20;
} // namespace

Device::Device(DeviceKind kind, int id, int threads, std::int64_t capacityBytes, bool dryRun)
    : kind_(kind), id_(id), threads_(threads < 1 ? 1 : threads), capacity_(capacityBytes), dryRun_(dryRun) {
    ledger_.setHostSeparate(kind_ == DeviceKind::Cuda); // a GPU's host category is not GPU memory
    if (kind_ != DeviceKind::Cuda || dryRun_)
        return;
    const int n = cuda::deviceCount();
    if (id_ < 0 || id_ >= n)
        throw RunError("cuda:" + std::to_string(id_) + ": no such GPU (" +
                       (n == 0 ? cuda::unavailableReason() : std::to_string(n) + " visible") + ")");
    std::int64_t freeB = 0, totalB = 0;
    cuda::memoryInfo(id_, freeB, totalB);
    driverBaseline_ = totalB - freeB;
    if (capacity_ <= 0)
        capacity_ = freeB;
    stream_ = cuda::createStream(id_);
}

Device::~Device() {
    if (stream_)
        cuda::destroyStream(id_, stream_);
}

void Device::activate() const {
    if (stream_)
        cuda::setDevice(id_);
}

void Device::sync() const {
    if (stream_)
        cuda::sync(stream_);
}

void Device::copy(void* dst, const void* src, std::int64_t bytes) const {
    if (bytes <= 0)
        return;
    if (stream_)
        cuda::copy(dst, src, bytes, stream_);
    else
        std::memcpy(dst, src, std::size_t(bytes));
}

void Device::copyOnDevice(void* dst, const void* src, std::int64_t bytes) const {
    if (bytes <= 0)
        return;
    if (stream_)
        cuda::copyAsync(dst, src, bytes, stream_);
    else
        std::memcpy(dst, src, std::size_t(bytes));
}

void Device::upload(void* dst, const void* src, std::int64_t bytes) const {
    if (bytes <= 0)
        return;
    if (stream_)
        cuda::upload(dst, src, bytes, stream_);
    else
        std::memcpy(dst, src, std::size_t(bytes));
}

void Device::zero(void* p, std::int64_t bytes) const {
    if (bytes <= 0 || !p)
        return;
    if (stream_)
        cuda::zero(p, bytes, stream_);
    else
        std::memset(p, 0, std::size_t(bytes));
}

void Device::prefetch(void* p, std::int64_t bytes) const {
    if (stream_ && p && bytes > 0)
        cuda::prefetch(p, bytes, id_, stream_);
}

std::int64_t Device::driverUsedBytes() const {
    if (!stream_)
        return -1;
    std::int64_t freeB = 0, totalB = 0;
    cuda::memoryInfo(id_, freeB, totalB);
    return totalB - freeB - driverBaseline_;
}

std::int64_t Device::reserveForeignMemory() {
    if (!stream_ || dryRun_)
        return 0;
    const std::int64_t other = driverUsedBytes() - ledger_.currentTotal() - foreign_;
    if (other <= 0)
        return 0;
    foreign_ += other;
    capacity_ = std::max<std::int64_t>(0, capacity_ - other);
    return other;
}

std::string Device::name() const {
    return (kind_ == DeviceKind::Cpu ? "cpu:" : "cuda:") + std::to_string(id_);
}

namespace {
/// Whether GPU allocations are CUDA managed memory (else plain device memory): YEE_CUDA_MANAGED=1 puts
/// every category there, a fallback and debugging aid. The constants the host computes at fill
/// (materials, sources, CPML profiles, pole tables) are plain device memory too, written through host
/// mirrors (device/HostFill.hpp) and copied once.
bool managedByEnvironment() {
    static const bool all = [] {
        const char* v = std::getenv("YEE_CUDA_MANAGED");
        return v && std::strcmp(v, "1") == 0;
    }();
    return all;
}
} // namespace

void* Device::allocateBytes(std::int64_t bytes, Category cat) {
    if (bytes <= 0)
        return nullptr;
    if (cat == Category::Host && ledger_.hostSeparate()) {
        // Host memory of a GPU's run: in the ledger's own row, not against the GPU's capacity.
        ledger_.add(cat, bytes);
        if (dryRun_)
            return nullptr;
        try {
            return hostAllocate(bytes);
        } catch (...) {
            ledger_.remove(cat, bytes);
            throw;
        }
    }
    if (ledger_.currentTotal() + bytes > capacity_) {
        throw MemoryError(name() + ": out of memory: needs " + formatBytes(ledger_.currentTotal() + bytes) +
                          ", has " + formatBytes(capacity_));
    }
    if (kind_ == DeviceKind::Cuda && !dryRun_) {
        // The ledger's capacity is the free memory when the device was opened; the driver has the last
        // word (another process may have taken memory since).
        std::int64_t freeB = 0, totalB = 0;
        cuda::memoryInfo(id_, freeB, totalB);
        if (bytes > freeB)
            throw MemoryError(name() + ": out of memory: needs " + formatBytes(bytes) +
                              " more, the driver reports " + formatBytes(freeB) + " free");
    }
    ledger_.add(cat, bytes);
    if (dryRun_)
        return nullptr;
    if (kind_ == DeviceKind::Cuda) {
        try {
            return cuda::allocate(id_, bytes, stream_, managedAll_ || managedByEnvironment());
        } catch (...) {
            ledger_.remove(cat, bytes);
            throw;
        }
    }
    try {
        return hostAllocate(bytes);
    } catch (...) {
        ledger_.remove(cat, bytes);
        throw;
    }
}

void* Device::hostAllocate(std::int64_t bytes) {
    // Stagger array starts by a few cache lines so streams of equal-sized arrays do not collide in
    // the same cache sets (all page-aligned starts alias modulo 4 KiB).
    std::size_t shift = kAlign * ((stagger_++ * 5u) % 32u);
    std::size_t total = std::size_t(bytes) + shift + kAlign + sizeof(Header);
    void* base = nullptr;
    std::size_t pageAlign = total >= kHugeThreshold ? (std::size_t(2) << 20) : 4096;
    if (posix_memalign(&base, pageAlign, total) != 0 || !base) {
        throw MemoryError(name() + ": host allocation of " + formatBytes(bytes) + " failed");
    }
#ifdef MADV_HUGEPAGE
    if (total >= kHugeThreshold)
        madvise(base, total, MADV_HUGEPAGE);
#endif
    auto addr = reinterpret_cast<std::uintptr_t>(base) + sizeof(Header) + shift;
    addr = (addr + kAlign - 1) & ~std::uintptr_t(kAlign - 1);
    auto* p = reinterpret_cast<void*>(addr);
    reinterpret_cast<Header*>(p)[-1].base = base;
    std::memset(p, 0, std::size_t(bytes));
    return p;
}

void Device::freeBytes(void* p, std::int64_t bytes, Category cat) {
    ledger_.remove(cat, bytes);
    if (!p)
        return;
    if (kind_ == DeviceKind::Cuda && !(cat == Category::Host && ledger_.hostSeparate())) {
        cuda::release(p);
        return;
    }
    std::free(reinterpret_cast<Header*>(p)[-1].base);
}

std::int64_t hostMemoryBytes() {
    long pages = sysconf(_SC_PHYS_PAGES);
    long size = sysconf(_SC_PAGE_SIZE);
    return std::int64_t(pages) * size;
}

int hostThreads() {
    // The CPUs this process may run on (respects taskset, cgroups cpusets and SLURM's --cpus-per-task).
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    unsigned n = std::thread::hardware_concurrency();
    return n ? int(n) : 1;
}

} // namespace yee::device
