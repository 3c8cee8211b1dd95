#pragma once
/// \file CommStats.hpp
/// Counts and bytes of every collective, per kind and per phase, for one device (rank).
#include <array>
#include <cstdint>

namespace yee::comm {

/// Kinds of communication counted. A grouped halo exchange counts once however many neighbours it has.
enum class Kind : int { HaloExchange = 0, AllReduce, Gather, Broadcast, Barrier, Count };
/// Phase of a run in which a message was sent. Planning: while the scene is planned, before the tiles
/// exist (the broadcasts that share each waveguide-mode solve under MPI, solver/ModeShare.hpp); a run
/// reports them in its table (a session in its first evaluation's), as they happen once per preparation.
enum class Phase : int { Setup = 0, Forward, Reconstruct, Adjoint, Output, Planning, Count };

constexpr int kKindCount = static_cast<int>(Kind::Count);
constexpr int kPhaseCount = static_cast<int>(Phase::Count);

const char* kindName(Kind k);
const char* phaseName(Phase p);

/// Per-device table: calls[phase][kind] and bytes[phase][kind] (bytes sent by this device).
struct CommStats {
    std::array<std::array<std::int64_t, kKindCount>, kPhaseCount> calls{};
    std::array<std::array<std::int64_t, kKindCount>, kPhaseCount> bytes{};

    void count(Phase p, Kind k, std::int64_t sentBytes) {
        calls[int(p)][int(k)] += 1;
        bytes[int(p)][int(k)] += sentBytes;
    }
    std::int64_t callsOf(Phase p, Kind k) const { return calls[int(p)][int(k)]; }
    std::int64_t bytesOf(Phase p, Kind k) const { return bytes[int(p)][int(k)]; }
    std::int64_t totalCalls(Kind k) const {
        std::int64_t s = 0;
        for (auto& row : calls)
            s += row[int(k)];
        return s;
    }
    void reset() { *this = CommStats{}; }
};

} // namespace yee::comm
