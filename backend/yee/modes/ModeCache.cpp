#include "yee/modes/ModeCache.hpp"

namespace yee::modes {

std::shared_ptr<const ModeSet> ModeCache::get(const scene::Rasterizer& raster, const ModeRequest& req,
                                              const std::string& field) {
    const Key key{req.normal, req.plane, req.lo[0],  req.lo[1], req.hi[0],          req.hi[1],
                  req.omega,  req.dt,    req.nGuess, req.pml,   req.realEquivalent, req.groupIndex};
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = sets_.find(key); it != sets_.end() && int(it->second->modes.size()) >= req.count)
        return it->second;
    const std::function<ModeSet()> solveHere = [&] {
        ++solves_;
        return solveModes(raster, req, field);
    };
    auto set = std::make_shared<const ModeSet>(resolver_ ? resolver_(req, solveHere, traffic_) : solveHere());
    sets_[key] = set;
    return set;
}

int ModeCache::solves() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return solves_;
}

int ModeCache::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return int(sets_.size());
}

std::int64_t ModeCache::profileBytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::int64_t b = 0;
    for (const auto& [key, set] : sets_)
        for (const Mode& m : set->modes)
            for (const auto& f : m.field)
                b += std::int64_t(f.size() * sizeof(double));
    return b;
}

void ModeCache::setResolver(Resolver r) {
    std::lock_guard<std::mutex> lock(mutex_);
    resolver_ = std::move(r);
}

ShareTraffic ModeCache::takeTraffic() {
    std::lock_guard<std::mutex> lock(mutex_);
    const ShareTraffic t = traffic_;
    traffic_ = {};
    return t;
}

void ModeCache::bind(const std::string& sceneKey) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (sceneKey != sceneKey_)
        sets_.clear();
    sceneKey_ = sceneKey;
}

} // namespace yee::modes
