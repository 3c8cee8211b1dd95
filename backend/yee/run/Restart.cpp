#include "yee/run/Restart.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <unistd.h>
#include <vector>

#include "yee/comm/Communicator.hpp"
#include "yee/core/Bytes.hpp"
#include "yee/core/Error.hpp"
#include "yee/files/AtomicFile.hpp"
#include "yee/files/FaultInjection.hpp"
#include "yee/files/OutputCheck.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/solver/Plan.hpp"
#include "yee/solver/Tile.hpp"

namespace yee::run {

using namespace yee::solver;

namespace {

constexpr std::size_t kTagBytes = 16;
constexpr std::size_t kPreambleBytes = kTagBytes + 4 + 4 + 8;
constexpr std::uint32_t kByteOrderMark = 0x01020304u;
constexpr std::uint64_t kMaxHeaderBytes = std::uint64_t(64) << 20;

using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

std::string quoted(const std::string& path) {
    return "restart file '" + path + "'";
}

std::string gridText(const std::array<int, 3>& t) {
    return std::to_string(t[0]) + "x" + std::to_string(t[1]) + "x" + std::to_string(t[2]);
}

std::string precisionText(int bytes) {
    return bytes == 8 ? "float64" : bytes == 4 ? "float32" : std::to_string(bytes) + "-byte values";
}

/// 64-bit FNV-1a over 8-byte words (then the tail bytes), chained across calls.
struct Checksum {
    std::uint64_t h = 1469598103934665603ull;
    void add(const void* data, std::int64_t bytes) {
        const auto* p = static_cast<const unsigned char*>(data);
        std::int64_t i = 0;
        for (; i + 8 <= bytes; i += 8) {
            std::uint64_t w;
            std::memcpy(&w, p + i, 8);
            h = (h ^ w) * 1099511628211ull;
        }
        for (; i < bytes; ++i)
            h = (h ^ p[i]) * 1099511628211ull;
    }
};

std::vector<char> encodeHeader(const RestartHeader& h) {
    ByteWriter w;
    w.putString(h.yeeVersion);
    w.putString(h.key.sceneHash);
    w.put(std::int32_t(h.key.precisionBytes));
    for (int t : h.key.tiles)
        w.put(std::int32_t(t));
    w.put(std::int32_t(h.key.totalSteps));
    w.put(std::int32_t(h.rank));
    w.put(std::int32_t(h.ranks));
    w.put(std::int32_t(h.step));
    for (int a = 0; a < 3; ++a)
        w.put(std::int32_t(h.tile.lo[a]));
    for (int a = 0; a < 3; ++a)
        w.put(std::int32_t(h.tile.hi[a]));
    w.put(std::int64_t(h.blocks.size()));
    for (const auto& [name, bytes] : h.blocks) {
        w.putString(name);
        w.put(bytes);
    }
    w.put(h.payloadBytes);
    w.put(h.checksum);
    return std::move(w.buffer());
}

void decodeHeader(const std::vector<char>& buf, RestartHeader& h) {
    ByteReader r(buf);
    h.yeeVersion = r.getString();
    h.key.sceneHash = r.getString();
    h.key.precisionBytes = r.get<std::int32_t>();
    for (int& t : h.key.tiles)
        t = r.get<std::int32_t>();
    h.key.totalSteps = r.get<std::int32_t>();
    h.rank = r.get<std::int32_t>();
    h.ranks = r.get<std::int32_t>();
    h.step = r.get<std::int32_t>();
    for (int a = 0; a < 3; ++a)
        h.tile.lo[a] = r.get<std::int32_t>();
    for (int a = 0; a < 3; ++a)
        h.tile.hi[a] = r.get<std::int32_t>();
    const auto n = r.get<std::int64_t>();
    if (n < 0 || n > 1'000'000)
        throw std::runtime_error("bad block count");
    for (std::int64_t i = 0; i < n; ++i) {
        std::string name = r.getString();
        const auto bytes = r.get<std::int64_t>();
        if (bytes < 0)
            throw std::runtime_error("bad block size");
        h.blocks.emplace_back(std::move(name), bytes);
    }
    h.payloadBytes = r.get<std::int64_t>();
    h.checksum = r.get<std::uint64_t>();
    if (!r.done())
        throw std::runtime_error("trailing header bytes");
}

/// Opens `path` for reading and reads its header; `f` is left positioned at the payload.
RestartHeader openAndReadHeader(const std::string& path, FilePtr& f) {
    f = FilePtr(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f)
        throw InputError(quoted(path) + ": cannot open: " + std::strerror(errno));
    char pre[kPreambleBytes];
    if (std::fread(pre, 1, kPreambleBytes, f.get()) != kPreambleBytes ||
        std::memcmp(pre, kRestartFormat, std::strlen(kRestartFormat) + 1) != 0)
        throw InputError(quoted(path) + ": not a Yee Studio restart file");
    RestartHeader h;
    std::uint32_t bom = 0;
    std::uint64_t headerBytes = 0;
    std::memcpy(&h.version, pre + kTagBytes, 4);
    std::memcpy(&bom, pre + kTagBytes + 4, 4);
    std::memcpy(&headerBytes, pre + kTagBytes + 8, 8);
    if (bom != kByteOrderMark)
        throw InputError(quoted(path) + ": written on a machine with another byte order");
    if (h.version > kRestartVersion || h.version == 0)
        throw InputError(quoted(path) + ": format version " + std::to_string(h.version) +
                         " is not readable by this version (reads up to " + std::to_string(kRestartVersion) +
                         ")");
    if (headerBytes > kMaxHeaderBytes)
        throw InputError(quoted(path) + ": corrupt header");
    std::vector<char> buf(static_cast<std::size_t>(headerBytes));
    if (std::fread(buf.data(), 1, buf.size(), f.get()) != buf.size())
        throw InputError(quoted(path) + ": truncated header");
    try {
        decodeHeader(buf, h);
    } catch (const std::exception&) {
        throw InputError(quoted(path) + ": corrupt header");
    }
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    const std::uint64_t expected = kPreambleBytes + headerBytes + std::uint64_t(h.payloadBytes);
    if (ec || size != expected)
        throw InputError(quoted(path) + ": truncated or padded (" + std::to_string(ec ? 0 : size) +
                         " bytes, expected " + std::to_string(expected) + ")");
    return h;
}

/// Refuses a header that does not belong to tile `rank` of a run with key `key`.
void checkHeader(const std::string& path, const RestartHeader& h, const RestartKey& key, int rank) {
    const std::string f = quoted(path);
    if (h.key.sceneHash != key.sceneHash)
        throw InputError(f + ": written for another scene (scene hash " + h.key.sceneHash + ", this scene " +
                         key.sceneHash + ")");
    if (h.key.precisionBytes != key.precisionBytes)
        throw InputError(f + ": written in " + precisionText(h.key.precisionBytes) + ", this run uses " +
                         precisionText(key.precisionBytes) + " (run.precision)");
    if (h.key.tiles != key.tiles)
        throw InputError(f + ": written for tile grid " + gridText(h.key.tiles) + ", this run uses " +
                         gridText(key.tiles) + " (run.tiles)");
    if (h.key.totalSteps != key.totalSteps)
        throw InputError(f + ": written for a run of " + std::to_string(h.key.totalSteps) +
                         " steps, this run has " + std::to_string(key.totalSteps) +
                         " (time.duration_fs or the step limit changed)");
    const int tiles = key.tiles[0] * key.tiles[1] * key.tiles[2];
    if (h.rank != rank || h.ranks != tiles)
        throw InputError(f + ": holds tile " + std::to_string(h.rank) + " of " + std::to_string(h.ranks) +
                         ", expected tile " + std::to_string(rank) + " of " + std::to_string(tiles));
    if (h.step < 0 || h.step > key.totalSteps)
        throw InputError(f + ": step " + std::to_string(h.step) + " is outside the run (0.." +
                         std::to_string(key.totalSteps) + ")");
}

/// Wait for the device so the state copied here is the current one.
template <class T> void requireHostMemory(Tile<T>& tile) {
    tile.device().sync();
}

/// The bytes of one state block on the host: an explicit copy from the device's memory (GPUs: plain
/// device memory), one block at a time so the host holds at most the largest block.
std::vector<char>& hostCopy(device::Device& dev, const solver::StateEntry& b, std::vector<char>& buf) {
    buf.resize(std::size_t(b.bytes));
    dev.copy(buf.data(), b.data, b.bytes);
    return buf;
}

} // namespace

std::string restartFileFor(const std::string& base, int rank) {
    return base + ".rank" + std::to_string(rank);
}

RestartKey restartKey(const scene::Scene& scene, const RunOptions& o) {
    RestartKey k;
    k.sceneHash = scene::sceneHash(scene);
    k.precisionBytes = o.precision == Precision::Float64 ? 8 : 4;
    k.tiles = o.tiles;
    // Same rule as makePlan(): the step limit shortens the run (and so every detector's sample count).
    k.totalSteps = o.maxSteps >= 0 ? std::min(o.maxSteps, scene.steps()) : scene.steps();
    return k;
}

RestartHeader readRestartHeader(const std::string& path) {
    FilePtr f(nullptr, &std::fclose);
    return openAndReadHeader(path, f);
}

void checkRestartOptions(const scene::Scene& scene, const RunOptions& o) {
    if (o.checkpointEvery < 0)
        throw InputError("restart.checkpoint_every: must be >= 0 (got " + std::to_string(o.checkpointEvery) +
                         ")");
    if (o.checkpointEvery > 0 && o.checkpointPath.empty())
        throw InputError("restart.checkpoint_path: needed to write a restart file every " +
                         std::to_string(o.checkpointEvery) + " steps");
    if (o.gradient && (!o.checkpointPath.empty() || !o.resumeFrom.empty()))
        throw InputError("restart: restart files hold forward runs only; a value-and-grad run (gradient) "
                         "cannot write or resume from them");
    if (!o.checkpointPath.empty()) {
        if (std::filesystem::path(o.checkpointPath).filename().empty())
            throw InputError("restart.checkpoint_path: '" + o.checkpointPath +
                             "' names a directory, not a file");
        // Each tile writes <path>.rank<r>: probe the first (the others share its directory).
        const std::string first =
            restartFileFor(o.checkpointPath, o.communicator ? o.communicator->rank() : 0);
        if (const std::string why = files::whyNotWritableFile(first); !why.empty())
            throw InputError("restart.checkpoint_path: cannot write '" + first + "': " + why);
    }
    if (o.resumeFrom.empty())
        return;
    const RestartKey key = restartKey(scene, o);
    const int tiles = o.tiles[0] * o.tiles[1] * o.tiles[2];
    // Under MPI each rank reads only its own file; the ranks agree on the step when loading.
    const int first = o.communicator ? o.communicator->rank() : 0;
    const int last = o.communicator ? first + 1 : tiles;
    int step = -1, stepRank = -1;
    for (int r = first; r < last; ++r) {
        const std::string path = restartFileFor(o.resumeFrom, r);
        const RestartHeader h = readRestartHeader(path);
        checkHeader(path, h, key, r);
        if (step >= 0 && h.step != step)
            throw InputError("restart files '" + o.resumeFrom + ".rank*': tile " + std::to_string(stepRank) +
                             " was saved at step " + std::to_string(step) + " but tile " + std::to_string(r) +
                             " at step " + std::to_string(h.step) +
                             " (the job stopped while writing them; resume from a complete set)");
        step = h.step;
        stepRank = r;
    }
}

template <class T>
void saveRestart(const std::string& base, Tile<T>& tile, comm::Communicator& comm, const RestartKey& key,
                 int step) {
    requireHostMemory(tile);
    // E^{step} halo of the last step in place: the saved state is complete and needs no message in flight.
    tile.finishPending(comm);
    const auto blocks = tile.stateBlocks();
    RestartHeader h;
    h.version = kRestartVersion;
    h.yeeVersion = YEE_VERSION;
    h.key = key;
    h.rank = tile.index();
    h.ranks = key.tiles[0] * key.tiles[1] * key.tiles[2];
    h.step = step;
    h.tile = tile.box();
    Checksum sum;
    std::vector<char> buf;
    for (const auto& b : blocks) {
        h.blocks.emplace_back(b.name, b.bytes);
        h.payloadBytes += b.bytes;
        if (b.bytes > 0)
            sum.add(hostCopy(tile.device(), b, buf).data(), b.bytes);
    }
    h.checksum = sum.h;
    const std::vector<char> header = encodeHeader(h);
    const std::string path = restartFileFor(base, tile.index());
    files::writeAtomically(path, [&](const std::string& temp) {
        FilePtr f(std::fopen(temp.c_str(), "wb"), &std::fclose);
        if (!f)
            throw RunError("cannot create '" + temp + "': " + std::strerror(errno));
        files::failIfInjected("restart", path);
        char pre[kPreambleBytes] = {};
        std::memcpy(pre, kRestartFormat, std::strlen(kRestartFormat));
        const std::uint32_t version = kRestartVersion, bom = kByteOrderMark;
        const std::uint64_t headerBytes = header.size();
        std::memcpy(pre + kTagBytes, &version, 4);
        std::memcpy(pre + kTagBytes + 4, &bom, 4);
        std::memcpy(pre + kTagBytes + 8, &headerBytes, 8);
        bool ok = std::fwrite(pre, 1, kPreambleBytes, f.get()) == kPreambleBytes &&
                  std::fwrite(header.data(), 1, header.size(), f.get()) == header.size();
        for (const auto& b : blocks)
            if (ok && b.bytes > 0)
                ok = std::fwrite(hostCopy(tile.device(), b, buf).data(), 1, std::size_t(b.bytes), f.get()) ==
                     std::size_t(b.bytes);
        const int err = errno;
        if (std::fclose(f.release()) != 0 && ok)
            throw RunError("cannot write '" + temp + "': " + std::strerror(errno));
        if (!ok)
            throw RunError("cannot write '" + temp + "': " + std::strerror(err));
    });
}

template <class T>
int loadRestart(const std::string& base, Tile<T>& tile, comm::Communicator& comm, const RestartKey& key) {
    requireHostMemory(tile);
    const std::string path = restartFileFor(base, tile.index());
    FilePtr f(nullptr, &std::fclose);
    const RestartHeader h = openAndReadHeader(path, f);
    checkHeader(path, h, key, tile.index());
    // Every tile must continue from the same step (one all-reduce: max of step and of -step).
    double steps[2] = {double(h.step), -double(h.step)};
    comm.allReduceMax(std::span<double>(steps, 2), comm::Phase::Setup);
    if (steps[0] != -steps[1])
        throw RunError("restart files '" + base + ".rank*': the tiles were saved at different steps (" +
                       std::to_string(int(-steps[1])) + " to " + std::to_string(int(steps[0])) +
                       "); the job stopped while writing them: resume from a complete set");
    if (!(h.tile == tile.box()))
        throw RunError(quoted(path) + ": tile box differs from this run's tiling (written by yee " +
                       h.yeeVersion + ")");
    const auto blocks = tile.stateBlocks();
    bool same = blocks.size() == h.blocks.size();
    for (std::size_t i = 0; same && i < blocks.size(); ++i)
        same = blocks[i].name == h.blocks[i].first && blocks[i].bytes == h.blocks[i].second;
    if (!same)
        throw RunError(quoted(path) + ": its state layout differs from this run's (written by yee " +
                       h.yeeVersion + ", this is " + YEE_VERSION + ")");
    Checksum sum;
    std::vector<char> buf;
    for (const auto& b : blocks) {
        if (b.bytes <= 0)
            continue;
        buf.resize(std::size_t(b.bytes));
        if (std::fread(buf.data(), 1, std::size_t(b.bytes), f.get()) != std::size_t(b.bytes))
            throw RunError(quoted(path) + ": cannot read " + b.name);
        sum.add(buf.data(), b.bytes);
        tile.device().copy(b.data, buf.data(), b.bytes);
    }
    if (sum.h != h.checksum)
        throw RunError(quoted(path) + ": corrupt (payload checksum mismatch)");
    return h.step;
}

template void saveRestart<float>(const std::string&, Tile<float>&, comm::Communicator&, const RestartKey&,
                                 int);
template void saveRestart<double>(const std::string&, Tile<double>&, comm::Communicator&, const RestartKey&,
                                  int);
template int loadRestart<float>(const std::string&, Tile<float>&, comm::Communicator&, const RestartKey&);
template int loadRestart<double>(const std::string&, Tile<double>&, comm::Communicator&, const RestartKey&);

} // namespace yee::run
