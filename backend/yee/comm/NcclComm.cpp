/// \file NcclComm.cpp
/// NcclComm and NcclHub on NCCL and the CUDA runtime (host compiler; built only with YEE_HAVE_NCCL).
///
/// Design notes:
///  - Halo exchange: one ncclGroupStart/ncclSend+ncclRecv/ncclGroupEnd per exchangeStart() on a private,
///    high-priority communication stream that first waits (event) for the compute stream. NCCL matches the
///    operations between a pair of ranks in issue order, so MPI's (peer, tag) matching is reproduced by
///    issuing, per peer, the sends and the receives of a group sorted stably by tag: the k-th message with
///    tag t from A to B meets the k-th receive with tag t on B. Self-messages (periodic wrap with one tile
///    along an axis) never reach NCCL: they are paired by tag in group order and done as device-to-device
///    cudaMemcpyAsync on the communication stream. exchangeFinish() makes the compute stream wait for the
///    communication stream (no host wait), or, without a compute stream, waits on the host.
///  - Collectives work on host data through small cached staging buffers (device: cudaMalloc; host:
///    pinned), and always wait for their result before returning. Sums and maxima are all-gathered and then
///    reduced on the host in rank order (reduce::*InRankOrder), so every rank gets the same bits as
///    LocalComm and MpiComm; integer sums use ncclAllReduce (exact).
///  - Failure: fail() may be called from any thread (NcclHub::run does so for the other ranks). It marks the
///    communicator failed and calls ncclCommAbort, which also stops NCCL kernels waiting for a peer. The
///    owning thread therefore never blocks in a CUDA or NCCL call that could wait for a peer: host waits
///    poll an event (checking the failed flag), and NCCL calls on the non-blocking communicators made by
///    NcclHub / ncclFromMpi return at once (ncclInProgress is polled with the lock released). `mu` guards
///    the NCCL handle: the owner holds it only across the short enqueueing calls, fail() takes it to abort.
#include "yee/comm/NcclComm.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "yee/comm/Accounting.hpp"
#include "yee/comm/RankThreads.hpp"
#include "yee/comm/Reduce.hpp"
#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"

namespace yee::comm {

namespace {

/// Offsets inside the staging buffers are aligned to this.
constexpr std::size_t kAlign = 256;
/// Staging allocated up front (grown on demand, never shrunk).
constexpr std::size_t kMinStaging = 64 * 1024;

/// Rank r's n values in an all-gathered table (rank-major).
std::vector<const double*> rankParts(const double* table, std::size_t n, int size) {
    std::vector<const double*> parts(static_cast<std::size_t>(size));
    for (std::size_t r = 0; r < parts.size(); ++r)
        parts[r] = table + r * n;
    return parts;
}

std::size_t alignUp(std::size_t n) {
    return (n + kAlign - 1) / kAlign * kAlign;
}

/// Polling pause: yield at first (collectives take microseconds), then sleep briefly.
class Backoff {
public:
    void pause() {
        if (++n_ < 64)
            std::this_thread::yield();
        else
            std::this_thread::sleep_for(std::chrono::microseconds(n_ < 2000 ? 20 : 200));
    }

private:
    int n_ = 0;
};

/// Makes `device` the calling thread's current device for the scope, then restores the previous one.
class DeviceScope {
public:
    DeviceScope(int device, int rank) : device_(device) {
        if (cudaGetDevice(&prev_) != cudaSuccess) {
            cudaGetLastError();
            prev_ = -1;
        }
        if (prev_ != device_) {
            const cudaError_t e = cudaSetDevice(device_);
            if (e != cudaSuccess) {
                cudaGetLastError();
                throw RunError("rank " + std::to_string(rank) + ": cudaSetDevice(" + std::to_string(device) +
                               ") failed: " + cudaGetErrorString(e));
            }
        }
    }
    ~DeviceScope() {
        if (prev_ >= 0 && prev_ != device_)
            cudaSetDevice(prev_);
    }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int device_;
    int prev_ = -1;
};

/// The same without throwing (destructors, fail()).
class QuietDeviceScope {
public:
    explicit QuietDeviceScope(int device) : device_(device) {
        if (cudaGetDevice(&prev_) != cudaSuccess)
            prev_ = -1;
        if (prev_ != device_)
            cudaSetDevice(device_);
        cudaGetLastError();
    }
    ~QuietDeviceScope() {
        if (prev_ >= 0 && prev_ != device_)
            cudaSetDevice(prev_);
        cudaGetLastError();
    }
    QuietDeviceScope(const QuietDeviceScope&) = delete;
    QuietDeviceScope& operator=(const QuietDeviceScope&) = delete;

private:
    int device_;
    int prev_ = -1;
};

/// Pairs the self-sends of `g` with its self-receives: each receive (in group order) takes the first
/// unused self-send with its tag. Returns an error message (empty when every self-message is paired and the
/// sizes agree).
std::string matchSelf(const ExchangeGroup& g, int me,
                      std::vector<std::pair<const Message*, const Message*>>& out) {
    std::vector<bool> used(g.sends.size(), false);
    for (std::size_t i = 0; i < g.recvs.size(); ++i) {
        const Message& r = g.recvs[i];
        if (r.peer != me)
            continue;
        std::size_t j = 0;
        while (j < g.sends.size() && (used[j] || g.sends[j].peer != me || g.sends[j].tag != r.tag))
            ++j;
        const std::string head = "recvs[" + std::to_string(i) + "] expects " + std::to_string(r.bytes) +
                                 " bytes from rank " + std::to_string(me) + " (tag " + std::to_string(r.tag) +
                                 ")";
        if (j == g.sends.size())
            return head + " but the group has no matching send to itself (self-messages are matched within "
                          "one group)";
        if (g.sends[j].bytes != r.bytes)
            return head + " but the send has " + std::to_string(g.sends[j].bytes);
        used[j] = true;
        out.emplace_back(&g.sends[j], &r);
    }
    for (std::size_t j = 0; j < g.sends.size(); ++j)
        if (g.sends[j].peer == me && !used[j])
            return "sends[" + std::to_string(j) + "] to itself (tag " + std::to_string(g.sends[j].tag) +
                   ") has no matching receive in the group (self-messages are matched within one group)";
    return {};
}

/// The messages of `list` that go through NCCL (other peer, non-empty), ordered by peer then tag, stably:
/// the order in which both sides issue them, so that NCCL's in-order matching pairs equal tags.
std::vector<const Message*> remoteInOrder(const std::vector<Message>& list, int me) {
    std::vector<const Message*> out;
    for (const Message& m : list)
        if (m.peer != me && m.bytes > 0)
            out.push_back(&m);
    std::stable_sort(out.begin(), out.end(), [](const Message* a, const Message* b) {
        return a->peer != b->peer ? a->peer < b->peer : a->tag < b->tag;
    });
    return out;
}

} // namespace

// ---------------------------------------------------------------------------------------------------
// Impl

struct NcclComm::Impl {
    int rank = 0;
    int device = 0;

    /// Guards `comm` and `failMsg`. Held by the owning thread only across short NCCL calls.
    std::mutex mu;
    /// The NCCL communicator; null once aborted or destroyed.
    ncclComm_t comm = nullptr;
    /// Set (under mu, after failMsg) by fail() or by an NCCL error; read without the lock while polling.
    std::atomic<bool> failed{false};
    std::string failMsg;

    cudaStream_t stream = nullptr; ///< communication stream
    cudaEvent_t ready = nullptr;   ///< recorded on the compute stream by exchangeStart
    cudaEvent_t done = nullptr;    ///< recorded on the communication stream (finish, host waits)
    char* dev = nullptr;           ///< device staging
    std::size_t devBytes = 0;
    char* host = nullptr; ///< pinned host staging
    std::size_t hostBytes = 0;
    std::vector<const ExchangeGroup*> outstanding;

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;

    ~Impl() {
        QuietDeviceScope ds(device);
        if (comm) // only on a constructor failure: NcclComm's destructor hands the communicator back itself
            ncclCommAbort(comm);
        comm = nullptr;
        if (stream)
            cudaStreamSynchronize(stream);
        if (dev)
            cudaFree(dev);
        if (host)
            cudaFreeHost(host);
        if (ready)
            cudaEventDestroy(ready);
        if (done)
            cudaEventDestroy(done);
        if (stream)
            cudaStreamDestroy(stream);
        cudaGetLastError();
    }

    std::string where(const std::string& what) const { return "rank " + std::to_string(rank) + ": " + what; }

    void cudaCheck(cudaError_t e, const std::string& what) const {
        if (e != cudaSuccess) {
            cudaGetLastError();
            throw RunError(where(what) + " failed: " + cudaGetErrorString(e));
        }
    }

    [[noreturn]] void throwAbortedLocked() const { throw RunError("communication aborted: " + failMsg); }

    void throwIfFailed() {
        if (failed.load(std::memory_order_acquire)) {
            std::lock_guard lk(mu);
            throwAbortedLocked();
        }
    }

    /// Locks `mu` for an NCCL call; throws if the communicator failed.
    std::unique_lock<std::mutex> lockLive() {
        std::unique_lock lk(mu);
        if (failed.load(std::memory_order_acquire))
            throwAbortedLocked();
        return lk;
    }

    /// With `mu` held: the first failure message wins; the NCCL communicator is aborted (once).
    void markFailedLocked(const std::string& msg) noexcept {
        try {
            if (!failed.load(std::memory_order_acquire)) {
                failMsg = msg;
                failed.store(true, std::memory_order_release);
            }
        } catch (...) {
            failed.store(true, std::memory_order_release); // the flag is what matters
        }
        if (comm) {
            QuietDeviceScope ds(device);
            ncclCommAbort(comm);
            comm = nullptr;
        }
    }

    /// With `mu` held: an NCCL error leaves the communicator unusable: abort it and throw.
    [[noreturn]] void ncclFailLocked(ncclResult_t r, const std::string& what) {
        std::string msg = where(what) + " failed: " + ncclGetErrorString(r);
        if (comm) {
            const char* detail = ncclGetLastError(comm);
            if (detail && *detail)
                msg += std::string(" (") + detail + ")";
        }
        markFailedLocked(msg);
        throw RunError(msg);
    }

    /// With `mu` held through `lk`: waits until an NCCL call that returned `r` has been enqueued
    /// (non-blocking communicators answer ncclInProgress while they connect), releasing the lock between
    /// polls so that fail() can abort. Throws on an NCCL error or when the communicator failed meanwhile.
    void settle(std::unique_lock<std::mutex>& lk, ncclResult_t r, const std::string& what) {
        Backoff b;
        while (r == ncclInProgress) {
            lk.unlock();
            b.pause();
            lk.lock();
            if (failed.load(std::memory_order_acquire))
                throwAbortedLocked();
            const ncclResult_t q = ncclCommGetAsyncError(comm, &r);
            if (q != ncclSuccess)
                r = q;
        }
        if (r != ncclSuccess)
            ncclFailLocked(r, what);
    }

    /// Issues the NCCL calls of `issue(note)` in one ncclGroupStart/ncclGroupEnd and settles the group.
    /// `issue` passes each call's result and name to `note`.
    template <class F> void group(const std::string& what, F&& issue) {
        auto lk = lockLive();
        const ncclResult_t s = ncclGroupStart();
        if (s != ncclSuccess)
            ncclFailLocked(s, what + ": ncclGroupStart");
        ncclResult_t first = ncclSuccess;
        const char* firstCall = "";
        issue([&](ncclResult_t q, const char* call) {
            if (q != ncclSuccess && q != ncclInProgress && first == ncclSuccess) {
                first = q;
                firstCall = call;
            }
        });
        const ncclResult_t end = ncclGroupEnd();
        if (first != ncclSuccess)
            ncclFailLocked(first, what + ": " + firstCall);
        settle(lk, end, what + ": ncclGroupEnd");
    }

    /// One NCCL call (not grouped), settled.
    template <class F> void call(const std::string& what, F&& fn) {
        auto lk = lockLive();
        settle(lk, fn(comm), what);
    }

    /// Throws when NCCL reports an asynchronous error (e.g. a lost connection), aborting the communicator.
    void checkAsync(const std::string& what) {
        std::lock_guard lk(mu);
        if (failed.load(std::memory_order_acquire))
            throwAbortedLocked();
        ncclResult_t a = ncclSuccess;
        const ncclResult_t q = ncclCommGetAsyncError(comm, &a);
        if (q != ncclSuccess)
            a = q;
        if (a != ncclSuccess && a != ncclInProgress)
            ncclFailLocked(a, what + " (asynchronous NCCL error)");
    }

    /// Waits on the host for everything enqueued on the communication stream so far, by polling an event
    /// (so that fail() from another thread, or an asynchronous NCCL error, ends the wait).
    void waitStream(const std::string& what) {
        cudaCheck(cudaEventRecord(done, stream), what + ": cudaEventRecord");
        Backoff b;
        for (unsigned k = 1;; ++k) {
            const cudaError_t e = cudaEventQuery(done);
            if (e == cudaSuccess) {
                throwIfFailed(); // an aborted NCCL kernel also completes, with nothing received
                return;
            }
            if (e != cudaErrorNotReady)
                cudaCheck(e, what + ": cudaEventQuery");
            throwIfFailed();
            if (k % 256 == 0)
                checkAsync(what);
            b.pause();
        }
    }

    /// Grows the staging buffers to at least the given sizes. Staging is idle between calls: every
    /// collective waits for its result before returning, and halo exchanges never use it.
    void reserve(std::size_t devNeed, std::size_t hostNeed) {
        if (devNeed > devBytes) {
            const std::size_t nb = std::max({alignUp(devNeed), 2 * devBytes, kMinStaging});
            if (dev)
                cudaCheck(cudaFree(dev), "cudaFree (device staging)");
            dev = nullptr;
            devBytes = 0;
            void* p = nullptr;
            cudaCheck(cudaMalloc(&p, nb), "cudaMalloc (device staging of " + std::to_string(nb) + " bytes)");
            dev = static_cast<char*>(p);
            devBytes = nb;
        }
        if (hostNeed > hostBytes) {
            const std::size_t nb = std::max({alignUp(hostNeed), 2 * hostBytes, kMinStaging});
            if (host)
                cudaCheck(cudaFreeHost(host), "cudaFreeHost (host staging)");
            host = nullptr;
            hostBytes = 0;
            void* p = nullptr;
            cudaCheck(cudaMallocHost(&p, nb),
                      "cudaMallocHost (host staging of " + std::to_string(nb) + " bytes)");
            host = static_cast<char*>(p);
            hostBytes = nb;
        }
    }

    void toDevice(std::size_t devOff, const void* src, std::size_t bytes, const std::string& what) {
        if (bytes == 0)
            return;
        std::memcpy(host, src, bytes);
        cudaCheck(cudaMemcpyAsync(dev + devOff, host, bytes, cudaMemcpyHostToDevice, stream),
                  what + ": cudaMemcpyAsync (to device staging)");
    }

    void toHost(std::size_t devOff, std::size_t bytes, const std::string& what) {
        if (bytes == 0)
            return;
        cudaCheck(cudaMemcpyAsync(host, dev + devOff, bytes, cudaMemcpyDeviceToHost, stream),
                  what + ": cudaMemcpyAsync (from device staging)");
    }

    /// All-gathers `mine` (n doubles per rank) and returns the host table: rank r's values at [r * n, r * n +
    /// n).
    const double* allGatherDoubles(std::span<const double> mine, int size, const std::string& what) {
        const std::size_t bytes = mine.size_bytes();
        const std::size_t table = bytes * std::size_t(size);
        const std::size_t off = alignUp(bytes);
        reserve(off + table, std::max(bytes, table));
        toDevice(0, mine.data(), bytes, what);
        call(what + ": ncclAllGather", [&](ncclComm_t c) {
            return ncclAllGather(dev, dev + off, mine.size(), ncclFloat64, c, stream);
        });
        toHost(off, table, what);
        waitStream(what);
        return reinterpret_cast<const double*>(host);
    }
};

// ---------------------------------------------------------------------------------------------------
// NcclComm

NcclComm::NcclComm(void* ncclComm, int rank, int size, int cudaDevice, void* computeStream)
    : impl_(std::make_unique<Impl>()), rank_(rank), size_(size), device_(cudaDevice),
      compute_(computeStream) {
    Impl& I = *impl_;
    I.rank = rank;
    I.device = cudaDevice;
    I.comm = static_cast<ncclComm_t>(ncclComm); // owned from here on (Impl's destructor aborts it on a throw)
    if (!I.comm)
        throw InputError("NcclComm: the NCCL communicator is null");
    if (size < 1 || rank < 0 || rank >= size)
        throw InputError("NcclComm: rank " + std::to_string(rank) + " outside [0, " + std::to_string(size) +
                         ")");

    DeviceScope ds(device_, rank_);
    {
        // A non-blocking communicator may still be initialising: wait for it.
        std::unique_lock lk(I.mu);
        ncclResult_t st = ncclInProgress;
        I.settle(lk, st, "NcclComm: communicator initialisation");
        int n = 0, r = 0, d = 0;
        I.settle(lk, ncclCommCount(I.comm, &n), "NcclComm: ncclCommCount");
        I.settle(lk, ncclCommUserRank(I.comm, &r), "NcclComm: ncclCommUserRank");
        I.settle(lk, ncclCommCuDevice(I.comm, &d), "NcclComm: ncclCommCuDevice");
        if (n != size || r != rank || d != cudaDevice)
            throw InputError("NcclComm: the NCCL communicator is rank " + std::to_string(r) + " of " +
                             std::to_string(n) + " on CUDA device " + std::to_string(d) + ", not rank " +
                             std::to_string(rank) + " of " + std::to_string(size) + " on device " +
                             std::to_string(cudaDevice));
    }
    int lowest = 0, highest = 0;
    I.cudaCheck(cudaDeviceGetStreamPriorityRange(&lowest, &highest),
                "NcclComm: cudaDeviceGetStreamPriorityRange");
    I.cudaCheck(cudaStreamCreateWithPriority(&I.stream, cudaStreamNonBlocking, highest),
                "NcclComm: cudaStreamCreateWithPriority");
    I.cudaCheck(cudaEventCreateWithFlags(&I.ready, cudaEventDisableTiming),
                "NcclComm: cudaEventCreateWithFlags");
    I.cudaCheck(cudaEventCreateWithFlags(&I.done, cudaEventDisableTiming),
                "NcclComm: cudaEventCreateWithFlags");
    I.reserve(kMinStaging, kMinStaging);
}

NcclComm::~NcclComm() {
    if (!impl_)
        return;
    Impl& I = *impl_;
    QuietDeviceScope ds(device_);
    if (!I.failed.load(std::memory_order_acquire) && I.comm) {
        // Let transfers still in flight (the last exchange is not waited for on the host) complete; an
        // asynchronous NCCL error or a fail() from another thread ends the wait.
        try {
            I.waitStream("~NcclComm");
        } catch (...) {
        }
    }
    std::lock_guard lk(I.mu);
    if (I.comm) {
        if (I.failed.load(std::memory_order_acquire))
            ncclCommAbort(I.comm);
        else
            ncclCommDestroy(I.comm);
        I.comm = nullptr;
    }
}

void NcclComm::exchangeStart(ExchangeGroup& g, Phase phase) {
    stats_.count(phase, Kind::HaloExchange, accounting::exchangeBytes(g, rank_));
    Impl& I = *impl_;
    std::string err = accounting::validateGroup(g, size_);
    if (err.empty())
        for (const ExchangeGroup* o : I.outstanding)
            if (o == &g)
                err = "this group is already started and not finished";
    std::vector<std::pair<const Message*, const Message*>> self;
    if (err.empty())
        err = matchSelf(g, rank_, self);
    if (!err.empty())
        throw RunError(I.where("exchangeStart: " + err));
    I.throwIfFailed();

    DeviceScope ds(device_, rank_);
    // The send buffers are complete once the compute stream (or, without one, the legacy default stream,
    // which every blocking stream joins) reaches this point.
    I.cudaCheck(cudaEventRecord(I.ready, compute_ ? static_cast<cudaStream_t>(compute_) : cudaStreamLegacy),
                "exchangeStart: cudaEventRecord");
    I.cudaCheck(cudaStreamWaitEvent(I.stream, I.ready, 0), "exchangeStart: cudaStreamWaitEvent");
    for (const auto& [s, r] : self)
        if (s->bytes > 0)
            I.cudaCheck(cudaMemcpyAsync(r->data, s->data, std::size_t(s->bytes), cudaMemcpyDefault, I.stream),
                        "exchangeStart: cudaMemcpyAsync (self-message, tag " + std::to_string(s->tag) + ")");
    const std::vector<const Message*> sends = remoteInOrder(g.sends, rank_);
    const std::vector<const Message*> recvs = remoteInOrder(g.recvs, rank_);
    if (!sends.empty() || !recvs.empty())
        I.group("exchangeStart", [&](auto&& note) {
            for (const Message* m : recvs)
                note(ncclRecv(m->data, std::size_t(m->bytes), ncclChar, m->peer, I.comm, I.stream),
                     "ncclRecv");
            for (const Message* m : sends)
                note(ncclSend(m->data, std::size_t(m->bytes), ncclChar, m->peer, I.comm, I.stream),
                     "ncclSend");
        });
    I.outstanding.push_back(&g);
}

void NcclComm::exchangeFinish(ExchangeGroup& g) {
    Impl& I = *impl_;
    auto it = std::find(I.outstanding.begin(), I.outstanding.end(), &g);
    if (it == I.outstanding.end())
        throw RunError(I.where("exchangeFinish: group was not started"));
    I.outstanding.erase(it);
    I.throwIfFailed();

    DeviceScope ds(device_, rank_);
    I.checkAsync("exchangeFinish");
    if (compute_) {
        I.cudaCheck(cudaEventRecord(I.done, I.stream), "exchangeFinish: cudaEventRecord");
        I.cudaCheck(cudaStreamWaitEvent(static_cast<cudaStream_t>(compute_), I.done, 0),
                    "exchangeFinish: cudaStreamWaitEvent");
    } else {
        I.waitStream("exchangeFinish");
    }
}

void NcclComm::allReduceSum(std::span<double> inout, Phase phase) {
    stats_.count(phase, Kind::AllReduce, accounting::allReduceBytes(std::int64_t(inout.size_bytes()), size_));
    Impl& I = *impl_;
    I.throwIfFailed();
    if (inout.empty())
        return;
    DeviceScope ds(device_, rank_);
    reduce::sumInRankOrder(rankParts(I.allGatherDoubles(inout, size_, "allReduceSum"), inout.size(), size_),
                           inout);
}

void NcclComm::allReduceSumInt(std::span<std::int64_t> inout, Phase phase) {
    stats_.count(phase, Kind::AllReduce, accounting::allReduceBytes(std::int64_t(inout.size_bytes()), size_));
    Impl& I = *impl_;
    I.throwIfFailed();
    if (inout.empty())
        return;
    DeviceScope ds(device_, rank_);
    const std::size_t bytes = inout.size_bytes();
    I.reserve(bytes, bytes);
    I.toDevice(0, inout.data(), bytes, "allReduceSumInt");
    I.call("allReduceSumInt: ncclAllReduce", [&](ncclComm_t c) {
        return ncclAllReduce(I.dev, I.dev, inout.size(), ncclInt64, ncclSum, c, I.stream);
    });
    I.toHost(0, bytes, "allReduceSumInt");
    I.waitStream("allReduceSumInt");
    std::memcpy(inout.data(), I.host, bytes);
}

void NcclComm::allReduceMax(std::span<double> inout, Phase phase) {
    stats_.count(phase, Kind::AllReduce, accounting::allReduceBytes(std::int64_t(inout.size_bytes()), size_));
    Impl& I = *impl_;
    I.throwIfFailed();
    if (inout.empty())
        return;
    DeviceScope ds(device_, rank_);
    // All-gather + rank-order max rather than ncclMax: the same bits as LocalComm and MpiComm (NaN
    // propagates, the first of -0.0 / +0.0 in rank order is kept).
    reduce::maxInRankOrder(rankParts(I.allGatherDoubles(inout, size_, "allReduceMax"), inout.size(), size_),
                           inout);
}

void NcclComm::gather(const std::vector<char>& mine, std::vector<std::vector<char>>& out, int root,
                      Phase phase) {
    stats_.count(phase, Kind::Gather, accounting::gatherBytes(std::int64_t(mine.size()), rank_, root));
    Impl& I = *impl_;
    if (auto err = accounting::validateRoot(root, size_); !err.empty())
        throw RunError(I.where("gather: " + err));
    I.throwIfFailed();
    DeviceScope ds(device_, rank_);
    const bool isRoot = rank_ == root;
    const auto n = static_cast<std::size_t>(size_);

    // Every rank learns every size (so the root knows what to receive).
    const std::int64_t mySize = std::int64_t(mine.size());
    I.reserve(kAlign + n * sizeof(std::int64_t), n * sizeof(std::int64_t));
    I.toDevice(0, &mySize, sizeof mySize, "gather");
    I.call("gather: ncclAllGather (sizes)",
           [&](ncclComm_t c) { return ncclAllGather(I.dev, I.dev + kAlign, 1, ncclInt64, c, I.stream); });
    I.toHost(kAlign, n * sizeof(std::int64_t), "gather");
    I.waitStream("gather (sizes)");
    std::vector<std::int64_t> sizes(n);
    std::memcpy(sizes.data(), I.host, n * sizeof(std::int64_t));

    if (isRoot) {
        std::vector<std::size_t> off(n, 0);
        std::size_t total = 0;
        for (std::size_t r = 0; r < n; ++r)
            if (int(r) != root) {
                off[r] = total;
                total += alignUp(std::size_t(sizes[r]));
            }
        if (total > 0) {
            I.reserve(total, total);
            I.group("gather", [&](auto&& note) {
                for (std::size_t r = 0; r < n; ++r)
                    if (int(r) != root && sizes[r] > 0)
                        note(ncclRecv(I.dev + off[r], std::size_t(sizes[r]), ncclChar, int(r), I.comm,
                                      I.stream),
                             "ncclRecv");
            });
            I.toHost(0, total, "gather");
            I.waitStream("gather");
        }
        std::vector<std::vector<char>> result(n);
        for (std::size_t r = 0; r < n; ++r)
            result[r] = int(r) == root
                            ? mine
                            : std::vector<char>(I.host + off[r], I.host + off[r] + std::size_t(sizes[r]));
        out = std::move(result);
        return;
    }
    if (!mine.empty()) {
        I.reserve(mine.size(), mine.size());
        I.toDevice(0, mine.data(), mine.size(), "gather");
        I.group("gather", [&](auto&& note) {
            note(ncclSend(I.dev, mine.size(), ncclChar, root, I.comm, I.stream), "ncclSend");
        });
        I.waitStream("gather");
    }
    out.clear();
}

void NcclComm::broadcast(std::span<char> data, int root, Phase phase) {
    stats_.count(phase, Kind::Broadcast,
                 accounting::broadcastBytes(std::int64_t(data.size()), rank_, root, size_));
    Impl& I = *impl_;
    if (auto err = accounting::validateRoot(root, size_); !err.empty())
        throw RunError(I.where("broadcast: " + err));
    I.throwIfFailed();
    if (data.empty())
        return;
    DeviceScope ds(device_, rank_);
    const bool isRoot = rank_ == root;
    I.reserve(data.size(), data.size());
    if (isRoot)
        I.toDevice(0, data.data(), data.size(), "broadcast");
    I.call("broadcast: ncclBroadcast", [&](ncclComm_t c) {
        return ncclBroadcast(I.dev, I.dev, data.size(), ncclChar, root, c, I.stream);
    });
    if (!isRoot)
        I.toHost(0, data.size(), "broadcast");
    I.waitStream("broadcast");
    if (!isRoot)
        std::memcpy(data.data(), I.host, data.size());
}

void NcclComm::barrier(Phase phase) {
    stats_.count(phase, Kind::Barrier, 0);
    Impl& I = *impl_;
    I.throwIfFailed();
    DeviceScope ds(device_, rank_);
    // An all-reduce of one (meaningless) value: it completes only once every rank has contributed.
    I.call("barrier: ncclAllReduce",
           [&](ncclComm_t c) { return ncclAllReduce(I.dev, I.dev, 1, ncclInt64, ncclSum, c, I.stream); });
    I.waitStream("barrier");
}

void NcclComm::fail(const std::string& msg) noexcept {
    try {
        std::lock_guard lk(impl_->mu);
        impl_->markFailedLocked(msg);
    } catch (...) {
        impl_->failed.store(true, std::memory_order_release);
    }
}

// ---------------------------------------------------------------------------------------------------
// NcclHub

NcclHub::NcclHub(std::vector<int> cudaDevices) : devices_(std::move(cudaDevices)) {
    const int n = int(devices_.size());
    if (n < 1)
        throw InputError("NcclHub: no CUDA device given");
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j)
            if (devices_[std::size_t(i)] == devices_[std::size_t(j)])
                throw InputError("NcclHub: CUDA device " + std::to_string(devices_[std::size_t(i)]) +
                                 " listed twice (NCCL needs one GPU per rank)");
    const int visible = cuda::deviceCount();
    if (visible < 1)
        throw RunError("NcclHub: no CUDA device: " + cuda::unavailableReason());
    for (int d : devices_)
        if (d < 0 || d >= visible)
            throw InputError("NcclHub: CUDA device " + std::to_string(d) + " outside [0, " +
                             std::to_string(visible) + ")");

    auto ncclError = [](ncclResult_t r, const std::string& what) {
        return "NcclHub: " + what + " failed: " + ncclGetErrorString(r);
    };
    ncclUniqueId id;
    if (const ncclResult_t r = ncclGetUniqueId(&id); r != ncclSuccess)
        throw RunError(ncclError(r, "ncclGetUniqueId"));

    // Non-blocking communicators: no NCCL call ever blocks waiting for a peer, so fail() can always abort.
    std::vector<ncclComm_t> raw(std::size_t(n), nullptr);
    auto abortAll = [&raw] {
        for (ncclComm_t& c : raw)
            if (c) {
                ncclCommAbort(c);
                c = nullptr;
            }
    };
    {
        QuietDeviceScope restore(devices_[0]);
        ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
        config.blocking = 0;
        std::string err; // the first error
        if (const ncclResult_t q = ncclGroupStart(); q != ncclSuccess)
            throw RunError(ncclError(q, "ncclGroupStart"));
        for (int r = 0; r < n && err.empty(); ++r) {
            const int d = devices_[std::size_t(r)];
            if (const cudaError_t e = cudaSetDevice(d); e != cudaSuccess) {
                cudaGetLastError();
                err = "NcclHub: cudaSetDevice(" + std::to_string(d) + ") failed: " + cudaGetErrorString(e);
                break;
            }
            const ncclResult_t q = ncclCommInitRankConfig(&raw[std::size_t(r)], n, id, r, &config);
            if (q != ncclSuccess && q != ncclInProgress)
                err = ncclError(q, "ncclCommInitRankConfig (rank " + std::to_string(r) + ", CUDA device " +
                                       std::to_string(d) + ")");
        }
        const ncclResult_t end = ncclGroupEnd();
        if (err.empty() && end != ncclSuccess && end != ncclInProgress)
            err = ncclError(end, "ncclGroupEnd (communicator initialisation)");
        for (int r = 0; r < n && err.empty(); ++r) {
            ncclResult_t st = ncclInProgress;
            Backoff b;
            while (st == ncclInProgress) {
                if (const ncclResult_t q = ncclCommGetAsyncError(raw[std::size_t(r)], &st); q != ncclSuccess)
                    st = q;
                if (st == ncclInProgress)
                    b.pause();
            }
            if (st != ncclSuccess)
                err = ncclError(st, "ncclCommInitRankConfig (rank " + std::to_string(r) + ", CUDA device " +
                                        std::to_string(devices_[std::size_t(r)]) + ")");
        }
        if (!err.empty()) {
            abortAll();
            throw RunError(err);
        }
    }
    try {
        comms_.reserve(std::size_t(n));
        for (int r = 0; r < n; ++r) {
            ncclComm_t c = raw[std::size_t(r)];
            raw[std::size_t(r)] = nullptr; // the NcclComm owns it now, even if its constructor throws
            comms_.push_back(std::make_unique<NcclComm>(c, r, n, devices_[std::size_t(r)]));
        }
    } catch (...) {
        abortAll();
        for (auto& c : comms_)
            c->fail("NcclHub: construction failed");
        throw;
    }
}

NcclHub::~NcclHub() = default;

void NcclHub::run(const std::function<void(NcclComm&)>& body) {
    const int n = size();
    std::atomic<bool> failing{false};
    runRankThreads(
        n,
        [&](int r) {
            const cudaError_t e = cudaSetDevice(devices_[std::size_t(r)]);
            if (e != cudaSuccess) {
                cudaGetLastError();
                throw RunError("rank " + std::to_string(r) + ": cudaSetDevice(" +
                               std::to_string(devices_[std::size_t(r)]) +
                               ") failed: " + cudaGetErrorString(e));
            }
            body(*comms_[std::size_t(r)]);
        },
        // A failure after another rank's is (most likely) its consequence: report the first cause.
        [&] { return failing.exchange(true); },
        [&](const std::string& msg) {
            for (auto& c : comms_)
                c->fail(msg);
        });
}

} // namespace yee::comm
