#pragma once
/// \file ModeShare.hpp
/// One waveguide-mode solve per port per job under MPI: while a scene is planned, each miss of the plan's
/// mode cache (modes/ModeCache.hpp) is resolved collectively. The rank that owns the port solves it, then
/// broadcasts the outcome over the run's communicator, in the Planning phase:
///   1. a 16-byte header: status (0 solved, 1 InputError, 2 other failure) and payload length;
///   2. the payload: the mode set's bytes (modes/ModeSetBytes.hpp, bit for bit), or the error's message.
/// So every rank holds the owner's bits, and a failed solve throws the same one-line message on every rank
/// (the owner rethrows its own exception; the others an InputError, or a std::runtime_error, with its text).
/// Every rank plans the same scene, so every rank misses the same requests in the same order and enters
/// each broadcast. The broadcasts are counted by the communicator (CommStats, Phase::Planning) and
/// recorded in the cache (the resolver's traffic), from where a run's first evaluation reports them.
#include "yee/comm/Communicator.hpp"
#include "yee/modes/ModeCache.hpp"
#include "yee/tiling/TileGrid.hpp"

namespace yee::solver {

/// The rank (tile t on rank t) that solves the port of `q` on `tiles`: the lowest whose tile meets the
/// cells the port's profiles touch (the E plane and the H plane behind it along the normal, the
/// transverse indices lo..hi inclusive), or 0 when no tile does.
int modeOwner(const tiling::TileGrid& tiles, const modes::ModeRequest& q);

/// Resolve the misses of `cache` collectively over `comm` (more than one rank; tile t on rank t of
/// `tiles`), as described above, until ModeCache::setResolver({}) is called. `comm` must outlive that;
/// the tile boxes are copied.
void shareModeSolves(modes::ModeCache& cache, comm::Communicator& comm, const tiling::TileGrid& tiles);

} // namespace yee::solver
