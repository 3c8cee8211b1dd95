#pragma once
/// \file Restart.hpp
/// Restart files of a forward run: every tile's complete time-stepping state (fields with halos, CPML
/// psi, detector accumulators), written every N steps and read back to continue the run. A resumed
/// run is bit-identical to one that never stopped (detectors, snapshots, objective).
///
/// Each tile (rank) writes its own file `<base>.rank<r>`, atomically (temporary file, then rename):
///
/// ```
/// bytes 0..15   "yee-restart" padded with NULs          (format tag)
/// bytes 16..19  uint32 format version (kRestartVersion)
/// bytes 20..23  uint32 0x01020304                        (byte-order mark)
/// bytes 24..31  uint64 header length H
/// H bytes       header: yee version, scene hash, precision, tile grid, rank, ranks, step, total steps,
///               tile box, state block list (name, bytes), payload length, payload checksum
/// payload       the state blocks, raw, in list order (solver::Tile::stateBlocks(), the TileState registry)
/// ```
///
/// On resume every header is checked against the run before anything is allocated (wrong scene,
/// precision, tile grid or step count is refused with an InputError naming the file), and all ranks
/// must have saved the same step. A set of files is only as consistent as the moment it was written:
/// a job killed while ranks were writing leaves files of different steps, which resume refuses.
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "yee/core/Box.hpp"
#include "yee/run/Run.hpp"

namespace yee::comm {
class Communicator;
}

namespace yee::solver {
struct Plan;
template <class T> class Tile;
} // namespace yee::solver

namespace yee::run {

/// Format tag at the start of every restart file.
inline constexpr const char* kRestartFormat = "yee-restart";
/// Format version written; files with a higher version are refused.
inline constexpr std::uint32_t kRestartVersion = 1;

/// What a restart file belongs to: only a run with an equal key may resume from it.
struct RestartKey {
    std::string sceneHash;             ///< scene::sceneHash() of the scene
    int precisionBytes = 4;            ///< 4 (float32) or 8 (float64)
    std::array<int, 3> tiles{1, 1, 1}; ///< tile grid px, py, pz (one file per tile)
    int totalSteps = 0;                ///< time steps of the whole run

    bool operator==(const RestartKey&) const = default;
};

/// The header of one rank's restart file.
struct RestartHeader {
    std::uint32_t version = 0;
    std::string yeeVersion; ///< version of the program that wrote it
    RestartKey key;
    int rank = 0;  ///< tile index
    int ranks = 1; ///< number of tiles of the run
    int step = 0;  ///< steps completed when the state was saved; the run resumes with step `step`
    Box tile;      ///< global cells of the tile
    std::vector<std::pair<std::string, std::int64_t>> blocks; ///< state blocks (name, bytes), file order
    std::int64_t payloadBytes = 0;
    std::uint64_t checksum = 0; ///< of the payload (64-bit FNV-1a over 8-byte words)
};

/// `<base>.rank<r>`: the restart file of tile (rank) `rank`.
std::string restartFileFor(const std::string& base, int rank);

/// The key of a run of `scene` with options `o` (effective tile grid, precision and step count).
RestartKey restartKey(const scene::Scene& scene, const RunOptions& o);

/// Reads and checks the header of one restart file: format tag, version, byte order, and that the file
/// holds the whole payload. Throws InputError (`restart file '<path>': ...`) when it is missing,
/// unreadable, not a restart file, from a newer version or truncated.
RestartHeader readRestartHeader(const std::string& path);

/// Checks the restart options of a run, without allocating or communicating: checkpointEvery >= 0, a
/// checkpoint path when checkpointEvery > 0 (in an existing directory), no restart with gradient runs,
/// and, when resuming, the headers of the files this process will read (all tiles under LocalComm, its
/// own under MPI) against restartKey(): wrong scene, precision, tile grid or step count, ranks of
/// different steps. Throws InputError naming the option (`restart.checkpoint_every: ...`) or the file.
/// Called by validateOptions().
void checkRestartOptions(const scene::Scene& scene, const RunOptions& o);

/// Writes the state of `tile` after `step` completed steps to restartFileFor(base, tile.index()),
/// atomically. Completes the tile's pending halo exchange first (same bits as completing it at the
/// start of the next step). Throws RunError naming the file on I/O failure (the previous file is then
/// left as it was).
template <class T>
void saveRestart(const std::string& base, solver::Tile<T>& tile, comm::Communicator& comm,
                 const RestartKey& key, int step);

/// Loads the state of `tile` (filled, not yet stepped) from restartFileFor(base, tile.index()) and
/// returns the step the run continues with. All ranks agree on that step first (one all-reduce in the
/// Setup phase). Throws InputError when the file does not belong to this run, RunError when the ranks
/// saved different steps, the state layout differs or the payload is corrupt.
template <class T>
int loadRestart(const std::string& base, solver::Tile<T>& tile, comm::Communicator& comm,
                const RestartKey& key);

} // namespace yee::run
