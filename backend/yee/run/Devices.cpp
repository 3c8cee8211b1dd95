#include "yee/run/Devices.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/run/Overrides.hpp"
#if YEE_HAVE_NCCL
#include "yee/comm/NcclComm.hpp"
#endif

namespace yee::run {

namespace {
/// Capacity of one emulated device.
std::int64_t capacityOf(const RunOptions& o, int devices) {
    if (o.deviceCapacity > 0)
        return o.deviceCapacity;
    return hostUsableBytes() / std::max(1, devices);
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

void overrideTilesAndDevices(const scene::Scene& s, const std::optional<std::array<int, 3>>& tiles,
                             const std::optional<std::string>& devices, const std::string& devicesField,
                             RunOptions& o) {
    // fromScene leaves a CPU choice without a notice only when the scene itself asks for CPU devices.
    const bool sceneAsksForCpu = o.backend == Backend::Cpu && o.deviceNotice.empty();
    if (tiles)
        o.tiles = *tiles;
    const int n = o.tiles[0] * o.tiles[1] * o.tiles[2];
    if (devices)
        selectDevices(*devices, devicesField, n, o);
    else if (tiles && sceneAsksForCpu)
        o.devices = n; // one emulated device per tile
    else if (tiles)
        selectDevices(s.run.devices, "run.devices", n, o); // GPU list, or fall back per tile
}

int placeOneTilePerRank(RunOptions& o, const RankPlace& place) {
    const int ranks = std::max(1, place.ranksOnNode);
    const int local = std::max(0, place.localRank);
    int listed = 0;
    if (o.backend == Backend::Cuda && !o.gpus.empty()) {
        const std::vector<int> gpus = o.gpus;
        listed = int(gpus.size());
        o.gpus = {gpus[std::size_t(local) % gpus.size()]};
        o.devices = 1;
    }
    // Ranks on one host share its cores and memory: each rank's device gets its share, or the ranks'
    // threads fight over the cores.
    if (o.threadsPerDevice <= 0)
        o.threadsPerDevice = std::max(1, device::hostThreads() / ranks);
    if (o.deviceCapacity <= 0 && o.backend == Backend::Cpu)
        o.deviceCapacity = hostUsableBytes() / ranks;
    return listed;
}

namespace {

/// A cgroup v2 (or v1) memory limit minus the cgroup's current use; -1 when unlimited or unknown.
std::int64_t cgroupHeadroom() {
    auto readNumber = [](const char* path) -> std::int64_t {
        std::ifstream in(path);
        std::string v;
        if (!(in >> v) || v == "max")
            return -1;
        try {
            return std::int64_t(std::stoll(v));
        } catch (const std::exception&) {
            return -1;
        }
    };
    std::int64_t limit = readNumber("/sys/fs/cgroup/memory.max");
    std::int64_t used = readNumber("/sys/fs/cgroup/memory.current");
    if (limit < 0) {
        limit = readNumber("/sys/fs/cgroup/memory/memory.limit_in_bytes");
        used = readNumber("/sys/fs/cgroup/memory/memory.usage_in_bytes");
    }
    if (limit <= 0 || limit >= (std::int64_t(1) << 60) || used < 0)
        return -1;
    return std::max<std::int64_t>(0, limit - used);
}

/// MemAvailable from /proc/meminfo in bytes; -1 when missing.
std::int64_t memAvailable() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::int64_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:")
            return kib * 1024;
    return -1;
}

} // namespace

std::int64_t hostAvailableBytes() {
    std::int64_t avail = memAvailable();
    if (avail < 0)
        avail = device::hostMemoryBytes();
    if (const std::int64_t cg = cgroupHeadroom(); cg >= 0)
        avail = std::min(avail, cg);
    return avail;
}

std::int64_t hostUsableBytes() {
    return std::int64_t(double(hostAvailableBytes()) * kHostHeadroomShare);
}

std::string capacityBasis(const RunOptions& o, int devices) {
    const std::string each =
        devices == 1 ? "the device" : "each of the " + std::to_string(devices) + " devices";
    if (o.deviceCapacity > 0)
        return "capacity: " + device::formatBytes(o.deviceCapacity) + " for " + each +
               " (as planned: --capacity)";
    if (o.backend == Backend::Cuda)
        return "capacity: the free memory of each GPU now";
    char share[32];
    std::snprintf(share, sizeof share, "%.0f%%", kHostHeadroomShare * 100);
    return "capacity: " + std::string(share) + " of the " + device::formatBytes(hostAvailableBytes()) +
           " of host memory available now (MemAvailable, cgroup limit), shared by " +
           (devices == 1 ? std::string("1 emulated device") : std::to_string(devices) + " emulated devices");
}

const std::vector<std::pair<std::string, std::int64_t>>& capacityPresets() {
    constexpr std::int64_t GiB = std::int64_t(1) << 30;
    static const std::vector<std::pair<std::string, std::int64_t>> presets = {
        {"v100-16gb", 16 * GiB}, {"v100-32gb", 32 * GiB}, {"a100-40gb", 40 * GiB}, {"a100-80gb", 80 * GiB},
        {"a100", 80 * GiB},      {"h100", 80 * GiB},      {"h100-80gb", 80 * GiB}, {"h100-94gb", 94 * GiB},
        {"h200", 141 * GiB},     {"gh200", 96 * GiB},     {"l40s", 48 * GiB},      {"rtx4090", 24 * GiB},
        {"b200", 180 * GiB},
    };
    return presets;
}

std::int64_t parseCapacity(const std::string& text, const std::string& field) {
    std::string lower;
    for (char c : text)
        lower.push_back(char(std::tolower(static_cast<unsigned char>(c))));
    for (const auto& [name, bytes] : capacityPresets())
        if (lower == name)
            return bytes;
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(lower, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    const std::string unit = used > 0 ? lower.substr(used) : std::string();
    static const std::vector<std::pair<std::string, double>> units = {{"", 1},
                                                                      {"b", 1},
                                                                      {"kib", 1024.0},
                                                                      {"mib", 1048576.0},
                                                                      {"gib", 1073741824.0},
                                                                      {"tib", 1099511627776.0},
                                                                      {"kb", 1e3},
                                                                      {"mb", 1e6},
                                                                      {"gb", 1e9},
                                                                      {"tb", 1e12},
                                                                      {"k", 1024.0},
                                                                      {"m", 1048576.0},
                                                                      {"g", 1073741824.0},
                                                                      {"t", 1099511627776.0}};
    for (const auto& [u, scale] : units)
        if (used > 0 && unit == u && std::isfinite(value) && value > 0 && value * scale < 9e18 &&
            value * scale >= 1)
            return std::int64_t(value * scale);
    std::string names;
    for (const auto& [name, bytes] : capacityPresets())
        names += (names.empty() ? "" : ", ") + name;
    throw InputError(field + ": expected a size such as 80GiB, 40GB or 512MiB, or a GPU model (" + names +
                     "), got '" + text + "'");
}

} // namespace yee::run
