#pragma once
/// \file ModeCache.hpp
/// The modes solved for one prepared scene, keyed by request: a mode source and the monitors on the same
/// plane at the same wavelength share one solve. Thread-safe (the emulated devices of one process plan,
/// record and assemble concurrently).
///
/// Under MPI the ranks of a job share each solve: while the scene is planned a resolver
/// (solver/ModeShare.hpp, setResolver()) makes every miss collective, so one rank solves and the others
/// receive its bits. A cache may outlive one plan (RunOptions::modes: yee-run's memory estimate and its
/// run plan the scene twice and solve once); it remembers the scene it holds modes of (bind()).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "yee/modes/ModeSolver.hpp"

namespace yee::modes {

/// Messages a process exchanged to share solves (counted by the communicator as broadcasts).
struct ShareTraffic {
    std::int64_t broadcasts = 0; ///< broadcast calls made by this process
    std::int64_t bytes = 0;      ///< bytes this process sent in them (the CommStats rule)
};

/// A cache of solved mode sets.
class ModeCache {
public:
    /// Resolves a miss: returns the modes of `req`, calling `solveHere` (the solve on this process, which
    /// throws as solveModes() does) where this process is the one to solve, and adds to `traffic` what it
    /// exchanged. Must throw, on every process that shares the solve, what `solveHere` threw on the solving
    /// one. Called with the cache locked.
    using Resolver = std::function<ModeSet(const ModeRequest& req, const std::function<ModeSet()>& solveHere,
                                           ShareTraffic& traffic)>;

    /// The modes of `req` on `raster`, solved on first use (solveModes(); throws as it does, naming
    /// `field`). A request for fewer modes than a cached one on the same plane and frequency reuses it.
    /// With a resolver set, a miss goes through it (every process sharing the cache must then miss the
    /// same requests in the same order: they plan the same scene).
    std::shared_ptr<const ModeSet> get(const scene::Rasterizer& raster, const ModeRequest& req,
                                       const std::string& field);
    /// Number of solves made by this process so far (solveModes() calls; a miss resolved by another
    /// process's solve is not one).
    int solves() const;
    /// Number of mode sets held.
    int size() const;
    /// Bytes of profile values held (the six components of every mode of every set).
    std::int64_t profileBytes() const;

    /// Set (or, empty, clear) the resolver of misses. Not while another thread calls get().
    void setResolver(Resolver r);
    /// What sharing the solves exchanged since the last call, then zero (a run's first evaluation reports
    /// it).
    ShareTraffic takeTraffic();

    /// Hold modes of the scene identified by `sceneKey` (scene::sceneHash): a cache that holds modes of
    /// another scene is emptied first (its solve count and traffic stay).
    void bind(const std::string& sceneKey);

private:
    using Key = std::tuple<int, int, int, int, int, int, double, double, double, int, bool, bool>;
    mutable std::mutex mutex_;
    std::map<Key, std::shared_ptr<const ModeSet>> sets_;
    int solves_ = 0;
    Resolver resolver_;
    ShareTraffic traffic_;
    std::string sceneKey_;
};

} // namespace yee::modes
