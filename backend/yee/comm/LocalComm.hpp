#pragma once
/// \file LocalComm.hpp
/// N emulated devices in one process, one thread per device (rank). A LocalHub owns the shared state;
/// each rank's thread talks through its own LocalComm endpoint.
///
/// Transport: halo exchange is zero-copy until the receiver copies: exchangeStart() only publishes the
/// send buffers' addresses; the receiver memcpy's straight from the sender's buffer into its own in
/// exchangeFinish(). Collectives stage each contribution in hub-owned memory, then every rank reads
/// all contributions and reduces them itself in rank order (same bits on every rank, and the same bits
/// as MpiComm, see Reduce.hpp). Waiting is done on condition variables (no spinning), so 8 emulated
/// devices on 2 cores behave.
///
/// Counting: exactly as documented in Accounting.hpp (self-sends count 0 bytes).
///
/// Failure: any rank (or the thread driving the run) may call LocalHub::abort(). Every rank blocked in,
/// or later entering, a call on that hub then throws yee::RunError, so one failing tile cannot
/// deadlock the others. Errors the communicator detects itself (bad peer, size mismatch between a send
/// and its receive, ranks calling different collectives, timeouts) abort the hub too and throw
/// yee::RunError on every rank involved. A hub that was aborted stays aborted; make a new one.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "yee/comm/Communicator.hpp"

namespace yee::comm {

class LocalHub;

/// The Communicator of one emulated device. Owned by its LocalHub (obtain it with LocalHub::endpoint()).
///
/// Threading: each endpoint is used by exactly one thread at a time (its rank's thread); different
/// endpoints of the same hub are used concurrently. stats() is plain data, written by the owning
/// thread: read it from that thread, or after the rank threads have been joined.
///
/// Exchange semantics (as MPI point-to-point): messages between a pair of ranks with the same tag are
/// matched in order, each to the earliest-posted open receive with that source and tag (receives are
/// posted by exchangeStart(), in group order); a receive must have exactly the size of its matching send
/// (else RunError). A rank may send to itself. Several groups may be outstanding at once; each is
/// identified by the address of its ExchangeGroup, which must not move or change between start and
/// finish. Send buffers must stay valid and unmodified until exchangeFinish() returns (it returns only
/// after every peer has copied them). Receive buffers may be written at any time between start and
/// finish of their group (in practice inside this rank's exchangeFinish() calls, possibly the finish of
/// another outstanding group), as with MPI_Irecv.
///
/// Collectives must be called by every rank of the hub in the same order (as in MPI); a mismatch
/// (different kinds, roots or element counts) is detected and throws RunError on every rank.
///
/// All calls throw yee::RunError after LocalHub::abort(), or when the hub's timeout expires.
class LocalComm final : public Communicator {
public:
    ~LocalComm() override;
    LocalComm(const LocalComm&) = delete;
    LocalComm& operator=(const LocalComm&) = delete;

    /// This endpoint's rank in [0, size()).
    int rank() const override { return rank_; }
    /// Number of emulated devices of the hub.
    int size() const override;

    /// Publishes `g.sends` (addresses only, no copy) and records `g` as outstanding. Counted once as
    /// HaloExchange with the bytes of the sends to other ranks. Throws RunError (and aborts the hub) on an
    /// invalid group (peer out of range, negative tag or size, null data) or if `g` is already outstanding.
    void exchangeStart(ExchangeGroup& g, Phase phase) override;
    /// Waits for each of `g.recvs` to be published by its sender, copies it into the receive buffer,
    /// then waits until every send of `g` has been copied by its receiver. On return all receive buffers
    /// are filled and the caller may reuse its send buffers. Not counted. Throws RunError if `g` was not
    /// started, on a size mismatch, on abort or timeout.
    void exchangeFinish(ExchangeGroup& g) override;

    /// Element-wise sum in rank order 0..N-1 (see reduce::sumInRankOrder); the result, identical on every
    /// rank, replaces `inout`.
    void allReduceSum(std::span<double> inout, Phase phase) override;
    /// Element-wise exact integer sum (wrap-around on overflow).
    void allReduceSumInt(std::span<std::int64_t> inout, Phase phase) override;
    /// Element-wise max; NaN propagates (see reduce::maxInRankOrder).
    void allReduceMax(std::span<double> inout, Phase phase) override;
    /// On `root`, `out` is resized to size() and `out[r]` holds rank r's `mine`; on other ranks `out` is
    /// cleared. Blobs may differ in size (and be empty).
    void gather(const std::vector<char>& mine, std::vector<std::vector<char>>& out, int root,
                Phase phase) override;
    /// Copies root's `data` into every other rank's `data`; all sizes must equal the root's (else
    /// RunError on every rank).
    void broadcast(std::span<char> data, int root, Phase phase) override;
    /// Returns once every rank has entered the barrier.
    void barrier(Phase phase) override;

    /// The hub this endpoint belongs to.
    LocalHub& hub() { return *hub_; }
    /// Same as hub().abort(msg): wakes every waiter of the hub with RunError.
    void abort(const std::string& msg);
    /// Same as abort(): Communicator's failure hook.
    void fail(const std::string& msg) noexcept override;
    /// A GPU rank's stream (non-null): from then on halo messages of the hub are copied with CUDA (the
    /// buffers of ranks sharing a GPU are device memory); host collectives are unchanged.
    void setStream(void* computeStream) override;

private:
    friend class LocalHub;
    LocalComm(LocalHub& hub, int rank);

    enum class Op : int;
    struct Outstanding;
    struct RecvSlot;
    /// The common path of all collectives: stage `bytes` of `src`, rendezvous, verify the headers match.
    /// Returns the parity of the staging slots to read the contributions from.
    int collective(Op op, int root, std::int64_t count, const void* src, std::int64_t bytes);
    std::vector<const char*> contributions(int parity) const;
    [[noreturn]] void failAborted(std::unique_lock<std::mutex>& lock);

    LocalHub* hub_;
    int rank_;
    std::uint64_t collectiveSeq_ = 0;
    std::vector<std::unique_ptr<Outstanding>> outstanding_;
    std::vector<RecvSlot> recvQueue_; ///< open receives of all outstanding groups, in posting order
};

/// Shared state of N emulated devices: owns the N LocalComm endpoints, the mailboxes, the collective
/// staging memory, and the abort flag. Must outlive every use of its endpoints. Not copyable or movable.
///
/// Typical use: `LocalHub hub(4); hub.run([&](LocalComm& c) { ... tile c.rank() ... });`, or start one
/// thread per rank yourself, give rank r `hub.endpoint(r)`, and call `hub.abort(msg)` when any of them
/// fails.
class LocalHub {
public:
    /// N emulated devices, N >= 1 (throws yee::InputError otherwise).
    explicit LocalHub(int n);
    ~LocalHub();
    LocalHub(const LocalHub&) = delete;
    LocalHub& operator=(const LocalHub&) = delete;

    /// Number of emulated devices (ranks).
    int size() const { return n_; }
    /// The endpoint of rank `r` (owned by the hub; use it from one thread only). Throws std::out_of_range.
    LocalComm& endpoint(int r);

    /// Marks the hub failed with `msg` (the first message wins), wakes every waiter, and withdraws every
    /// unconsumed message. When it returns, no rank reads or writes any caller buffer through this hub any
    /// more (copies in flight have completed), so the caller may free its buffers. Thread-safe, idempotent,
    /// never throws. Every current and future call on the hub's endpoints throws yee::RunError whose
    /// message contains `msg`.
    ///
    /// A rank that fails between exchangeStart() and exchangeFinish() must call abort() *before* its send
    /// buffers are destroyed (e.g. in a catch block inside the scope that owns them).
    void abort(const std::string& msg) noexcept;
    /// True once abort() has been called (or the communicator aborted itself).
    bool aborted() const;
    /// The message given to the first abort(), or empty.
    std::string abortMessage() const;

    /// Bounds every wait: a rank that waits longer than `t` in one call aborts the hub with a message naming
    /// the rank and the call, and throws RunError. Zero (the default) waits forever. Set before the run.
    void setTimeout(std::chrono::milliseconds t);

    /// Runs `body(endpoint(r))` on N threads (one per rank) and joins them. If any body throws, the hub is
    /// aborted with that exception's message (so the others stop waiting), and after the join the first
    /// exception that was not itself caused by the abort is rethrown. Must not be called concurrently
    /// with another run() on the same hub.
    void run(const std::function<void(LocalComm&)>& body);

private:
    friend class LocalComm;
    struct Impl;
    int n_;
    std::unique_ptr<Impl> impl_;
    std::vector<std::unique_ptr<LocalComm>> endpoints_;
};

} // namespace yee::comm
