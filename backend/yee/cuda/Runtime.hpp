#pragma once
/// \file Runtime.hpp
/// The CUDA runtime as the rest of libyee sees it: plain C++ (no CUDA headers), safe to call in a build
/// without CUDA or on a machine without a driver or GPU (deviceCount() is then 0 and unavailableReason()
/// says why). device::Device and NcclComm are built on these calls; nothing else calls CUDA directly.
///
/// Memory model: device allocations are plain device memory (cudaMalloc), zeroed on the GPU; the host
/// reaches them only through explicit copies (copy, upload), so asking for more than the card has free
/// fails at once instead of oversubscribing, and no page ever migrates. The constants the host computes at
/// fill are written into host mirrors and copied (device/HostFill.hpp). Managed memory with the GPU as
/// preferred location remains as a fallback (YEE_CUDA_MANAGED=1, device::Device::setManagedMemory).
#include <cstdint>
#include <string>
#include <vector>

namespace yee::cuda {

/// One visible GPU.
struct DeviceInfo {
    int id = 0;
    std::string name;
    std::int64_t totalBytes = 0;
    std::int64_t freeBytes = 0;
    int major = 0, minor = 0; ///< compute capability
    int multiprocessors = 0;
    double peakBandwidthGBs = 0; ///< DRAM bandwidth from the memory clock and bus width (0 if unknown)
};

/// True when libyee was built with CUDA (nvcc found at configure time).
bool built();
/// Number of CUDA devices visible (0 without CUDA build, driver or GPU).
int deviceCount();
/// Why deviceCount() is 0 ("this build has no CUDA", "no CUDA driver: ...", "no GPU"); empty otherwise.
std::string unavailableReason();
/// The CUDA versions this process sees, for reports: "CUDA runtime 13.0, driver 13.0 (R580 ...)" style
/// text naming the runtime libyee was linked with and the driver's CUDA version ("driver: none" when no
/// driver could be loaded); "this build has no CUDA" in a build without it. Never throws.
std::string versionText();

/// A stable identity of visible GPU `id` across processes: "pci=DDDD:BB:DD.F uuid=GPU-xxxxxxxx-...", the
/// same physical GPU giving the same text whatever CUDA_VISIBLE_DEVICES renumbers. Ranks compare these to
/// find out whether they share a GPU. Test hook: when the environment sets YEE_FAKE_GPU_IDENTITIES (a comma
/// list, one entry per emulated visible GPU), entry `id` is returned without asking CUDA. Empty when `id` is
/// not a visible GPU (or the hook's list is shorter). Never throws.
std::string deviceIdentity(int id);

/// The visible GPUs with their memory.
std::vector<DeviceInfo> devices();

// ---- low-level calls used by device::Device; failures throw yee::RunError with the CUDA message ----
void setDevice(int id);
void* createStream(int id);
void destroyStream(int id, void* stream) noexcept;
/// `bytes` of device memory on GPU `id` (`managed`: managed memory preferring the GPU), zeroed on the GPU
/// (stream-ordered on `stream`, then waited).
void* allocate(int id, std::int64_t bytes, void* stream, bool managed);
void release(void* p) noexcept;
/// Wait for all work launched on `stream`.
void sync(void* stream);
/// A marker of the work launched on `stream` so far (a cudaEvent_t), for streamWait(); the caller passes it
/// to exactly one streamWait() or eventRelease().
void* eventRecord(void* stream);
/// Make `waiter` wait (on the device, the host does not block) until the work marked by `event` has run,
/// then release the event.
void streamWait(void* waiter, void* event);
/// Release an event without waiting for it.
void eventRelease(void* event) noexcept;
/// Copy `bytes` (any combination of host and device addresses), ordered on `stream`, then waited.
void copy(void* dst, const void* src, std::int64_t bytes, void* stream);
/// Copy `bytes` between device addresses, ordered on `stream`, not waited for.
void copyAsync(void* dst, const void* src, std::int64_t bytes, void* stream);
/// Copy `bytes` of pageable host memory at `src` to device memory, ordered on `stream`, not waited for
/// (the runtime stages a pageable source before returning, so it may be reused at once).
void upload(void* dst, const void* src, std::int64_t bytes, void* stream);
/// Copy `bytes` between any two addresses (host, device, managed; any GPU), waiting for the copy. For
/// host-side exchanges between buffers of ranks that share a process (comm::LocalComm); the caller has
/// waited for the work that wrote `src`.
void copyBlocking(void* dst, const void* src, std::int64_t bytes);
/// Zero `bytes` of device memory, ordered on `stream` (asynchronous); host memory is cleared on the host
/// after the stream's work.
void zero(void* p, std::int64_t bytes, void* stream);
/// Start moving `bytes` at `p` to GPU `id` (>= 0) or to the host (-1), ordered on `stream`.
void prefetch(void* p, std::int64_t bytes, int id, void* stream);
/// Driver's free and total memory of GPU `id`.
void memoryInfo(int id, std::int64_t& freeBytes, std::int64_t& totalBytes);
/// Page-lock host memory for fast asynchronous copies (pinned staging of the recorder's host tier).
void pinHost(void* p, std::int64_t bytes);
void unpinHost(void* p) noexcept;
/// Measured device-memory bandwidth of GPU `id` in GB/s: a device-to-device copy of `bytes` (read + write
/// counted), best of a few. The achievable figure a memory-bound kernel can approach (below the spec peak).
double measureCopyBandwidthGBs(int id, std::int64_t bytes);
/// Launch shape of the cell kernels (CudaLaunch.cuh): each GPU thread updates this many consecutive z
/// planes of its (x, y) column, marching along z so a plane one thread has read is still in cache for its
/// next cell; 1 (the default, or YEE_CUDA_Z_PLANES) is one cell per thread. Every shape gives the same
/// bits (each cell is computed by the same expression). For benchmarks (yee-bench --gpus compares shapes).
int cellZPlanes();
/// Sets cellZPlanes() for later launches (clamped to [1, 64]); process-wide.
void setCellZPlanes(int planes);
/// Launch of the Yee updates (kernels::UpdateH, kernels::UpdateE; CudaMarch.cuh): true runs them z-marching
/// with register reuse (2.5-D blocking): thread (x, y) updates blockZPlanes() consecutive cells up its z
/// column, x coalesced across the warp, and carries the values the next cell needs from this one in
/// registers (the H update's Ex, Ey at k+1 are the next cell's Ex, Ey at k; the E update's Hx, Hy at k are
/// the next cell's Hx, Hy at k-1), so each column loads those planes once. False (the default, or
/// YEE_CUDA_BLOCKING=0) launches them as every other cell kernel (cellZPlanes()). Every other kernel (CPML
/// slabs, injections, pole passes, halo packing, the adjoint's inverse updates) always takes the plain
/// launch. Both give the same bits: the same functor computes each cell with the same operations (only
/// where the operands are loaded from differs). YEE_CUDA_BLOCKING=1 turns it on; process-wide.
bool cellBlocking();
/// Sets cellBlocking() for later launches; process-wide.
void setCellBlocking(bool on);
/// Cells each thread of the z-marching launch updates up its column (YEE_CUDA_BLOCK_Z, default 16;
/// clamped to [1, 1024]).
int blockZPlanes();
/// Sets blockZPlanes() for later launches (clamped to [1, 1024]); process-wide.
void setBlockZPlanes(int planes);
/// Debug aid: when the environment sets YEE_CUDA_SYNC=1 every kernel launch is waited for and checked.
bool syncEveryLaunch();

} // namespace yee::cuda
