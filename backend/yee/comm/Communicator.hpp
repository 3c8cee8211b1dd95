#pragma once
/// \file Communicator.hpp
/// The one interface through which tiles talk: grouped halo exchange (start/finish), all-reduce,
/// gather, broadcast, barrier. Every call is counted in CommStats. Implementations: LocalComm
/// (emulated devices in one process), MpiComm (one rank per tile), NcclComm (GPUs).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "yee/comm/CommStats.hpp"

namespace yee::comm {

/// One message of a grouped exchange: `bytes` from `data` to (or from) rank `peer` with a tag.
/// Send and receive buffers are owned by the caller (halo buffers in the memory ledger) and must stay
/// valid until finish().
struct Message {
    int peer = -1;
    int tag = 0;
    void* data = nullptr;
    std::int64_t bytes = 0;
};

/// A planned grouped exchange: the sends and receives of one halo fill. Built once per tile layout.
struct ExchangeGroup {
    std::vector<Message> sends;
    std::vector<Message> recvs;
};

class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;

    /// Start a grouped exchange (send buffers already packed). Counted once as HaloExchange.
    virtual void exchangeStart(ExchangeGroup& g, Phase phase) = 0;
    /// Complete it: receive buffers are filled when this returns.
    virtual void exchangeFinish(ExchangeGroup& g) = 0;

    /// Element-wise sum over ranks, in rank order (deterministic). Result on every rank.
    virtual void allReduceSum(std::span<double> inout, Phase phase) = 0;
    /// Element-wise sum of exact (integer) accumulators; order-independent by construction.
    virtual void allReduceSumInt(std::span<std::int64_t> inout, Phase phase) = 0;
    /// Element-wise max over ranks.
    virtual void allReduceMax(std::span<double> inout, Phase phase) = 0;
    /// Gather variable-size byte blobs to `root`; on root, `out[r]` holds rank r's blob.
    virtual void gather(const std::vector<char>& mine, std::vector<std::vector<char>>& out, int root,
                        Phase phase) = 0;
    /// Broadcast bytes from root (size must match on all ranks).
    virtual void broadcast(std::span<char> data, int root, Phase phase) = 0;
    virtual void barrier(Phase phase) = 0;
    /// A rank failed: make every other rank's pending and future calls fail instead of waiting forever
    /// (LocalComm: abort the hub; MpiComm: MPI_Abort). Call it while this rank's buffers are still alive.
    virtual void fail(const std::string& msg) noexcept = 0;

    /// True when exchange messages may (and do) point at GPU memory and the transfer is ordered on the
    /// device's stream (NcclComm). False: messages are host-addressable and the caller must have
    /// finished writing the send buffers (Device::sync) before exchangeStart.
    virtual bool deviceMessages() const { return false; }
    /// The stream the caller's kernels run on (a cudaStream_t); device-aware communicators order their
    /// transfers after it. Ignored by host communicators.
    virtual void setStream(void* computeStream) { (void)computeStream; }

    CommStats& stats() { return stats_; }
    const CommStats& stats() const { return stats_; }

protected:
    CommStats stats_;
};

} // namespace yee::comm
