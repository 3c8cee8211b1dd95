#pragma once
/// \file ModeCache.hpp
/// The modes solved for one prepared scene, keyed by request: a mode source and the monitors on the same
/// plane at the same wavelength share one solve. Thread-safe (the emulated devices of one process plan,
/// record and assemble concurrently).
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "yee/modes/ModeSolver.hpp"

namespace yee::modes {

/// A cache of solved mode sets.
class ModeCache {
public:
    /// The modes of `req` on `raster`, solved on first use (solveModes(); throws as it does, naming
    /// `field`). A request for fewer modes than a cached one on the same plane and frequency reuses it.
    std::shared_ptr<const ModeSet> get(const scene::Rasterizer& raster, const ModeRequest& req,
                                       const std::string& field);
    /// Number of solves made so far.
    int solves() const;

private:
    using Key = std::tuple<int, int, int, int, int, int, double, double, double, int, bool, bool>;
    mutable std::mutex mutex_;
    std::map<Key, std::shared_ptr<const ModeSet>> sets_;
    int solves_ = 0;
};

} // namespace yee::modes
