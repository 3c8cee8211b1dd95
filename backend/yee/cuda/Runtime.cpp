/// \file Runtime.cpp
/// cuda/Runtime.hpp on the CUDA runtime API (host compiler), or the no-CUDA answers when the build has none.
#include "yee/cuda/Runtime.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "yee/core/Error.hpp"

#if YEE_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace yee::cuda {

namespace {
/// Entry `id` of YEE_FAKE_GPU_IDENTITIES (the test hook of deviceIdentity); `set` says whether it is set.
std::string fakeIdentity(int id, bool& set) {
    const char* v = std::getenv("YEE_FAKE_GPU_IDENTITIES");
    set = v != nullptr;
    if (!v || id < 0)
        return {};
    std::string list = v;
    std::size_t start = 0;
    for (int i = 0;; ++i) {
        const std::size_t end = list.find(',', start);
        if (i == id)
            return list.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (end == std::string::npos)
            return {};
        start = end + 1;
    }
}
std::atomic<int>& zPlanes() {
    static std::atomic<int> planes{[] {
        const char* v = std::getenv("YEE_CUDA_Z_PLANES");
        const int n = v ? std::atoi(v) : 1;
        return n < 1 ? 1 : (n > 64 ? 64 : n);
    }()};
    return planes;
}
int clampBlockZ(int n) {
    return n < 1 ? 1 : (n > 1024 ? 1024 : n);
}
std::atomic<bool>& blocking() {
    static std::atomic<bool> on{[] {
        const char* v = std::getenv("YEE_CUDA_BLOCKING");
        return v && std::strcmp(v, "1") == 0;
    }()};
    return on;
}
std::atomic<int>& blockZ() {
    static std::atomic<int> planes{[] {
        const char* v = std::getenv("YEE_CUDA_BLOCK_Z");
        return clampBlockZ(v ? std::atoi(v) : 16);
    }()};
    return planes;
}
} // namespace

bool cellBlocking() {
    return blocking().load(std::memory_order_relaxed);
}

void setCellBlocking(bool on) {
    blocking().store(on, std::memory_order_relaxed);
}

int blockZPlanes() {
    return blockZ().load(std::memory_order_relaxed);
}

void setBlockZPlanes(int planes) {
    blockZ().store(clampBlockZ(planes), std::memory_order_relaxed);
}

int cellZPlanes() {
    return zPlanes().load(std::memory_order_relaxed);
}

void setCellZPlanes(int planes) {
    zPlanes().store(planes < 1 ? 1 : (planes > 64 ? 64 : planes), std::memory_order_relaxed);
}

#if YEE_HAVE_CUDA

namespace {
void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        cudaGetLastError(); // clear a sticky-free error so later calls report their own
        throw RunError(std::string("CUDA ") + what + ": " + cudaGetErrorString(e));
    }
}
cudaStream_t S(void* s) {
    return static_cast<cudaStream_t>(s);
}
} // namespace

bool built() {
    return true;
}

int deviceCount() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

std::string unavailableReason() {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return std::string("no usable CUDA driver or GPU (") + cudaGetErrorString(e) + ")";
    }
    return n == 0 ? "no GPU visible (check CUDA_VISIBLE_DEVICES)" : "";
}

std::string versionText() {
    const auto dotted = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    int runtime = 0, driver = 0;
    std::string text = "CUDA runtime ";
    text += cudaRuntimeGetVersion(&runtime) == cudaSuccess ? dotted(runtime) : std::string("unknown");
    text += " (linked statically), driver ";
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)
        text += "none (no libcuda.so.1 could be loaded)";
    else
        text += "CUDA " + dotted(driver);
    cudaGetLastError();
    if (runtime > 0 && driver > 0 && driver < runtime)
        text += ": the driver is older than the runtime (update the driver or build with an older toolkit)";
    return text;
}

std::string deviceIdentity(int id) {
    bool fake = false;
    std::string text = fakeIdentity(id, fake);
    if (fake)
        return text;
    if (id < 0 || id >= deviceCount())
        return {};
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, int(sizeof bus), id) == cudaSuccess)
        text = std::string("pci=") + bus;
    cudaGetLastError();
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, id) == cudaSuccess) {
        static const char* hex = "0123456789abcdef";
        std::string uuid = "GPU-";
        for (int i = 0; i < 16; ++i) {
            const auto b = static_cast<unsigned char>(p.uuid.bytes[i]);
            uuid += hex[b >> 4];
            uuid += hex[b & 15];
            if (i == 3 || i == 5 || i == 7 || i == 9)
                uuid += '-';
        }
        text += (text.empty() ? "uuid=" : " uuid=") + uuid;
    }
    cudaGetLastError();
    return text;
}

std::vector<DeviceInfo> devices() {
    std::vector<DeviceInfo> out;
    const int n = deviceCount();
    for (int d = 0; d < n; ++d) {
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, d) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        DeviceInfo info;
        info.id = d;
        info.name = p.name;
        info.totalBytes = std::int64_t(p.totalGlobalMem);
        info.major = p.major;
        info.minor = p.minor;
        info.multiprocessors = p.multiProcessorCount;
        int clockKHz = 0, busBits = 0;
        if (cudaDeviceGetAttribute(&clockKHz, cudaDevAttrMemoryClockRate, d) == cudaSuccess &&
            cudaDeviceGetAttribute(&busBits, cudaDevAttrGlobalMemoryBusWidth, d) == cudaSuccess)
            info.peakBandwidthGBs = 2.0 * clockKHz * 1e3 * (busBits / 8.0) / 1e9; // double data rate
        cudaGetLastError();
        std::size_t fr = 0, tot = 0;
        if (cudaSetDevice(d) == cudaSuccess && cudaMemGetInfo(&fr, &tot) == cudaSuccess)
            info.freeBytes = std::int64_t(fr);
        cudaGetLastError();
        out.push_back(info);
    }
    return out;
}

void setDevice(int id) {
    check(cudaSetDevice(id), "cudaSetDevice");
}

void* createStream(int id) {
    setDevice(id);
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    return s;
}

void destroyStream(int id, void* stream) noexcept {
    if (cudaSetDevice(id) == cudaSuccess)
        cudaStreamSynchronize(S(stream));
    cudaStreamDestroy(S(stream));
    cudaGetLastError();
}

void* allocate(int id, std::int64_t bytes, void* stream, bool managed) {
    setDevice(id);
    void* p = nullptr;
    const cudaError_t e = managed ? cudaMallocManaged(&p, std::size_t(bytes), cudaMemAttachGlobal)
                                  : cudaMalloc(&p, std::size_t(bytes));
    if (e != cudaSuccess) {
        cudaGetLastError();
        throw MemoryError("cuda:" + std::to_string(id) + ": allocation of " + std::to_string(bytes) +
                          " bytes failed (" + cudaGetErrorString(e) + ")");
    }
    if (managed) {
        // Prefer the GPU: pages live there once the host has written them and they were prefetched.
        cudaMemLocation loc{};
        loc.type = cudaMemLocationTypeDevice;
        loc.id = id;
        cudaMemAdvise(p, std::size_t(bytes), cudaMemAdviseSetPreferredLocation, loc);
        cudaGetLastError(); // advice is optional (e.g. not supported on this platform)
    }
    try {
        check(cudaMemsetAsync(p, 0, std::size_t(bytes), S(stream)), "cudaMemset");
        check(cudaStreamSynchronize(S(stream)), "cudaStreamSynchronize");
    } catch (...) {
        cudaFree(p);
        throw;
    }
    return p;
}

void release(void* p) noexcept {
    cudaFree(p);
    cudaGetLastError();
}

void sync(void* stream) {
    check(cudaStreamSynchronize(S(stream)), "kernel or copy on the stream");
}

void* eventRecord(void* stream) {
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    const cudaError_t r = cudaEventRecord(e, S(stream));
    if (r != cudaSuccess) {
        cudaEventDestroy(e);
        check(r, "cudaEventRecord");
    }
    return e;
}

void streamWait(void* waiter, void* event) {
    const cudaError_t r = cudaStreamWaitEvent(S(waiter), static_cast<cudaEvent_t>(event), 0);
    cudaEventDestroy(static_cast<cudaEvent_t>(event)); // released once the wait has been enqueued
    check(r, "cudaStreamWaitEvent");
}

void eventRelease(void* event) noexcept {
    if (event)
        cudaEventDestroy(static_cast<cudaEvent_t>(event));
    cudaGetLastError();
}

void copy(void* dst, const void* src, std::int64_t bytes, void* stream) {
    check(cudaMemcpyAsync(dst, src, std::size_t(bytes), cudaMemcpyDefault, S(stream)), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(S(stream)), "cudaMemcpy (wait)");
}

void copyAsync(void* dst, const void* src, std::int64_t bytes, void* stream) {
    check(cudaMemcpyAsync(dst, src, std::size_t(bytes), cudaMemcpyDeviceToDevice, S(stream)),
          "cudaMemcpyAsync");
}

void upload(void* dst, const void* src, std::int64_t bytes, void* stream) {
    check(cudaMemcpyAsync(dst, src, std::size_t(bytes), cudaMemcpyHostToDevice, S(stream)),
          "cudaMemcpyAsync");
}

void copyBlocking(void* dst, const void* src, std::int64_t bytes) {
    // Not plain cudaMemcpy: it returns before a device-to-device copy has run, and before a pageable
    // host-to-device copy has reached the device (CUDA's "API synchronization behavior"), and its legacy
    // stream does not order against the devices' non-blocking streams. A caller that next launches a
    // kernel reading `dst` (LocalComm between tiles sharing a GPU, MpiComm's staged receives) or lets the
    // sender overwrite `src` would race the copy. Enqueued on the legacy stream and waited for instead.
    check(cudaMemcpyAsync(dst, src, std::size_t(bytes), cudaMemcpyDefault, cudaStreamLegacy),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(cudaStreamLegacy), "cudaMemcpy (wait)");
}

void zero(void* p, std::int64_t bytes, void* stream) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) == cudaSuccess &&
        (a.type == cudaMemoryTypeHost || a.type == cudaMemoryTypeUnregistered)) {
        check(cudaStreamSynchronize(S(stream)), "cudaStreamSynchronize");
        std::memset(p, 0, std::size_t(bytes));
        return;
    }
    cudaGetLastError();
    check(cudaMemsetAsync(p, 0, std::size_t(bytes), S(stream)), "cudaMemsetAsync");
}

void prefetch(void* p, std::int64_t bytes, int id, void* stream) {
    cudaMemLocation loc{};
    loc.type = id >= 0 ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
    loc.id = id >= 0 ? id : 0;
    cudaMemPrefetchAsync(p, std::size_t(bytes), loc, 0, S(stream));
    cudaGetLastError(); // a hint only
}

void memoryInfo(int id, std::int64_t& freeBytes, std::int64_t& totalBytes) {
    setDevice(id);
    std::size_t fr = 0, tot = 0;
    check(cudaMemGetInfo(&fr, &tot), "cudaMemGetInfo");
    freeBytes = std::int64_t(fr);
    totalBytes = std::int64_t(tot);
}

void pinHost(void* p, std::int64_t bytes) {
    if (bytes > 0)
        check(cudaHostRegister(p, std::size_t(bytes), cudaHostRegisterDefault), "cudaHostRegister");
}

void unpinHost(void* p) noexcept {
    cudaHostUnregister(p);
    cudaGetLastError();
}

double measureCopyBandwidthGBs(int id, std::int64_t bytes) {
    setDevice(id);
    void* a = nullptr;
    void* b = nullptr;
    check(cudaMalloc(&a, std::size_t(bytes)), "cudaMalloc (bandwidth probe)");
    if (cudaMalloc(&b, std::size_t(bytes)) != cudaSuccess) {
        cudaFree(a);
        check(cudaGetLastError(), "cudaMalloc (bandwidth probe)");
    }
    cudaEvent_t t0 = nullptr, t1 = nullptr;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    cudaMemset(a, 1, std::size_t(bytes));
    cudaMemcpy(b, a, std::size_t(bytes), cudaMemcpyDeviceToDevice); // warm-up
    float best = 0;
    for (int rep = 0; rep < 5; ++rep) {
        cudaEventRecord(t0);
        cudaMemcpy(b, a, std::size_t(bytes), cudaMemcpyDeviceToDevice);
        cudaEventRecord(t1);
        cudaEventSynchronize(t1);
        float ms = 0;
        cudaEventElapsedTime(&ms, t0, t1);
        if (ms > 0 && (best == 0 || ms < best))
            best = ms;
    }
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    cudaFree(a);
    cudaFree(b);
    check(cudaGetLastError(), "bandwidth probe");
    return best > 0 ? 2.0 * double(bytes) / (best * 1e-3) / 1e9 : 0.0;
}

bool syncEveryLaunch() {
    static const bool on = [] {
        const char* v = std::getenv("YEE_CUDA_SYNC");
        return v && std::strcmp(v, "1") == 0;
    }();
    return on;
}

#else // no CUDA in this build

namespace {
[[noreturn]] void none() {
    throw RunError("this build of Yee Studio has no CUDA (nvcc was not found at configure time)");
}
} // namespace

bool built() {
    return false;
}
int deviceCount() {
    return 0;
}
std::string unavailableReason() {
    return "this build has no CUDA (nvcc was not found at configure time)";
}
std::string versionText() {
    return "this build has no CUDA";
}
std::string deviceIdentity(int id) {
    bool fake = false;
    return fakeIdentity(id, fake);
}
std::vector<DeviceInfo> devices() {
    return {};
}
void setDevice(int) {
    none();
}
void* createStream(int) {
    none();
}
void destroyStream(int, void*) noexcept {}
void* allocate(int, std::int64_t, void*, bool) {
    none();
}
void copyBlocking(void*, const void*, std::int64_t) {
    none();
}
void release(void*) noexcept {}
void sync(void*) {}
void* eventRecord(void*) {
    none();
}
void streamWait(void*, void*) {
    none();
}
void eventRelease(void*) noexcept {}
void copy(void*, const void*, std::int64_t, void*) {
    none();
}
void copyAsync(void*, const void*, std::int64_t, void*) {
    none();
}
void upload(void*, const void*, std::int64_t, void*) {
    none();
}
void zero(void*, std::int64_t, void*) {
    none();
}
void prefetch(void*, std::int64_t, int, void*) {}
void memoryInfo(int, std::int64_t& f, std::int64_t& t) {
    f = t = 0;
}
void pinHost(void*, std::int64_t) {}
double measureCopyBandwidthGBs(int, std::int64_t) {
    return 0;
}
void unpinHost(void*) noexcept {}
bool syncEveryLaunch() {
    return false;
}

#endif

} // namespace yee::cuda
