#include "yee/modes/ModeCache.hpp"

namespace yee::modes {

std::shared_ptr<const ModeSet> ModeCache::get(const scene::Rasterizer& raster, const ModeRequest& req,
                                              const std::string& field) {
    const Key key{req.normal, req.plane, req.lo[0],  req.lo[1], req.hi[0],          req.hi[1],
                  req.omega,  req.dt,    req.nGuess, req.pml,   req.realEquivalent, req.groupIndex};
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = sets_.find(key); it != sets_.end() && int(it->second->modes.size()) >= req.count)
        return it->second;
    auto set = std::make_shared<const ModeSet>(solveModes(raster, req, field));
    ++solves_;
    sets_[key] = set;
    return set;
}

int ModeCache::solves() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return solves_;
}

} // namespace yee::modes
