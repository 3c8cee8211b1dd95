#pragma once
/// \file Accounting.hpp
/// The byte-counting rules and argument checks shared by every Communicator implementation, so that
/// LocalComm, MpiComm (and later NcclComm) fill CommStats with identical numbers for the same program.
///
/// **Counting rules** (one `CommStats::count()` per call per rank, made on entry, before any waiting,
/// so a call that later throws is still counted):
///
/// | call | kind | bytes counted on this rank |
/// | --- | --- | --- |
/// | exchangeStart | HaloExchange | sum of `bytes` of the sends whose peer is **another** rank; self-sends
/// (periodic wrap with one tile along an axis) are local copies and count 0. exchangeFinish is not counted. |
/// | allReduceSum / allReduceMax | AllReduce | `8 * n` (the contribution) when size() > 1, else 0 |
/// | allReduceSumInt | AllReduce | `8 * n` when size() > 1, else 0 |
/// | gather | Gather | `mine.size()` on non-root ranks, 0 on the root |
/// | broadcast | Broadcast | `data.size()` on the root when size() > 1 (counted once, not per receiver), else
/// 0; 0 on non-root ranks | | barrier | Barrier | 0 |
///
/// In short: the logical payload that leaves this rank, independent of the algorithm the transport uses
/// (MpiComm's all-reduce moves N times more data through MPI_Allgather, but counts the same).
#include <cstdint>
#include <string>

#include "yee/comm/Communicator.hpp"

namespace yee::comm::accounting {

/// Bytes of a grouped exchange counted for rank `me`: sends to other ranks only.
inline std::int64_t exchangeBytes(const ExchangeGroup& g, int me) {
    std::int64_t b = 0;
    for (const Message& m : g.sends)
        if (m.peer != me)
            b += m.bytes;
    return b;
}

/// Bytes of an all-reduce contribution of `payloadBytes` on a communicator of `size` ranks.
inline std::int64_t allReduceBytes(std::int64_t payloadBytes, int size) {
    return size > 1 ? payloadBytes : 0;
}

/// Bytes of a gather: the blob when it leaves this rank (non-root), else 0.
inline std::int64_t gatherBytes(std::int64_t blobBytes, int me, int root) {
    return me == root ? 0 : blobBytes;
}

/// Bytes of a broadcast: the payload once on the root when there is someone to send to, else 0.
inline std::int64_t broadcastBytes(std::int64_t bytes, int me, int root, int size) {
    return (me == root && size > 1) ? bytes : 0;
}

/// Checks a grouped exchange before anything is posted. Returns an empty string when valid, else a
/// message naming the offending entry (e.g. `sends[2].peer = 5: outside [0, 4)`).
inline std::string validateGroup(const ExchangeGroup& g, int size) {
    auto check = [size](const char* list, std::size_t i, const Message& m) -> std::string {
        const std::string where = std::string(list) + "[" + std::to_string(i) + "]";
        if (m.peer < 0 || m.peer >= size)
            return where + ".peer = " + std::to_string(m.peer) + ": outside [0, " + std::to_string(size) +
                   ")";
        if (m.tag < 0)
            return where + ".tag = " + std::to_string(m.tag) + ": must be >= 0";
        if (m.bytes < 0)
            return where + ".bytes = " + std::to_string(m.bytes) + ": must be >= 0";
        if (m.bytes > 0 && m.data == nullptr)
            return where + ".data: null with bytes > 0";
        return {};
    };
    for (std::size_t i = 0; i < g.sends.size(); ++i)
        if (auto e = check("sends", i, g.sends[i]); !e.empty())
            return e;
    for (std::size_t i = 0; i < g.recvs.size(); ++i)
        if (auto e = check("recvs", i, g.recvs[i]); !e.empty())
            return e;
    return {};
}

/// Checks a root argument. Returns an empty string when valid.
inline std::string validateRoot(int root, int size) {
    if (root < 0 || root >= size)
        return "root = " + std::to_string(root) + ": outside [0, " + std::to_string(size) + ")";
    return {};
}

} // namespace yee::comm::accounting
