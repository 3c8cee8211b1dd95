#include "yee/run/Devices.hpp"

#include <algorithm>
#include <limits>

#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"
#if YEE_HAVE_NCCL
#include "yee/comm/NcclComm.hpp"
#endif

namespace yee::run {

namespace {
/// Capacity of one emulated device.
std::int64_t capacityOf(const RunOptions& o, int devices) {
    if (o.deviceCapacity > 0)
        return o.deviceCapacity;
    return device::hostMemoryBytes() / std::max(1, devices);
}
int threadsOf(const RunOptions& o, int devices) {
    if (o.threadsPerDevice > 0)
        return o.threadsPerDevice;
    return std::max(1, device::hostThreads() / std::max(1, devices));
}

/// The GPU tile t runs on (backend Cuda).
int gpuOf(const RunOptions& o, int t) {
    return o.gpus.at(std::size_t(t) % o.gpus.size());
}

} // namespace

/// Bytes tile t's device may hold: the given capacity, else the GPU's free memory, else a share of the
/// host's memory among `devices` emulated devices.
std::int64_t capacityFor(const RunOptions& o, int t, int devices) {
    if (o.backend != Backend::Cuda)
        return capacityOf(o, devices);
    if (o.deviceCapacity > 0)
        return o.deviceCapacity;
    std::int64_t freeB = 0, totalB = 0;
    cuda::memoryInfo(gpuOf(o, t), freeB, totalB);
    return freeB;
}

/// The device tile t runs on (or, with an external communicator, this rank's device). A dry-run device
/// has no capacity limit: it records what the run would allocate (estimateTyped).
std::unique_ptr<device::Device> makeDevice(const RunOptions& o, int t, int devices, bool dryRun) {
    const bool gpu = o.backend == Backend::Cuda;
    const std::int64_t unlimited = std::numeric_limits<std::int64_t>::max() / 4;
    // A real GPU device with capacity 0 takes the driver's free memory when it opens.
    const std::int64_t capacity = dryRun ? unlimited : gpu ? o.deviceCapacity : capacityOf(o, devices);
    auto dev = std::make_unique<device::Device>(gpu ? device::DeviceKind::Cuda : device::DeviceKind::Cpu,
                                                gpu ? gpuOf(o, t) : t,
                                                gpu || dryRun ? 1 : threadsOf(o, devices), capacity, dryRun);
    dev->setStagedPaths(o.gpuDataPaths);
    return dev;
}

namespace {
/// selectDevices() with the list as the user wrote it (`spec`), for the notice.
void applyDevices(const scene::DeviceSpec& d, const std::string& spec, const std::string& field, int tiles,
                  RunOptions& o) {
    o.deviceNotice.clear();
    if (d.kind == scene::DeviceSpec::Kind::Cpu) {
        o.backend = Backend::Cpu;
        o.gpus.clear();
        o.devices = d.cpuDevices;
        return;
    }
    std::vector<int> ids = d.allGpus ? std::vector<int>{} : d.gpus;
    const int visible = cuda::deviceCount();
    if (visible == 0) {
        // No GPU here: run the same tiles on emulated CPU devices and say so.
        o.backend = Backend::Cpu;
        o.gpus.clear();
        o.devices = std::max(1, tiles);
        o.deviceNotice = field + " asks for GPUs (" + spec + ") but " + cuda::unavailableReason() +
                         ": running on " + std::to_string(o.devices) + " emulated CPU device" +
                         (o.devices == 1 ? "" : "s");
        return;
    }
    if (ids.empty())
        for (int d = 0; d < visible; ++d)
            ids.push_back(d);
    for (int id : ids)
        if (id >= visible)
            throw InputError(field + ": GPU " + std::to_string(id) + " does not exist (" +
                             std::to_string(visible) + " visible: 0.." + std::to_string(visible - 1) + ")");
    o.backend = Backend::Cuda;
    o.gpus = ids;
    o.devices = int(ids.size());
    if (ids.size() > 1) {
#if YEE_HAVE_NCCL
        std::string why;
        if (!comm::ncclLoadable(&why)) {
            o.nccl = false;
            o.deviceNotice = why + ": the GPUs exchange halos through host-coherent memory";
        }
#else
        o.nccl = false;
        o.deviceNotice = "this build has no NCCL: the GPUs exchange halos through host-coherent memory";
#endif
    }
}
} // namespace

void selectDevices(const std::string& spec, const std::string& field, int tiles, RunOptions& o) {
    applyDevices(scene::DeviceSpec::parse(spec, field), spec, field, tiles, o);
}

void selectDevices(const scene::DeviceSpec& d, const std::string& field, int tiles, RunOptions& o) {
    applyDevices(d, d.str(), field, tiles, o);
}

} // namespace yee::run
