/// \file Snapshot.cpp
/// The snapshot kind: field components over a box, downsampled, every `every` steps (float32 frames for
/// VTKHDF output).
#include <algorithm>
#include <memory>

#include "yee/detectors/Detector.hpp"

namespace yee::detectors {

namespace {

/// Downsampled index range owned: global indices g in [own.lo, own.hi) with (g - det.lo) % d == 0,
/// expressed as downsampled indices.
std::pair<int, int> downRange(int detLo, int ownLo, int ownHi, int d) {
    int lo = (ownLo - detLo + d - 1) / d;
    int hi = (ownHi - 1 - detLo) / d + 1;
    if (ownHi <= ownLo)
        hi = lo;
    return {lo, std::max(lo, hi)};
}

template <class T> class SnapshotPart : public TilePart<T> {
public:
    SnapshotPart(const DetectorPlan& dp, solver::Tile<T>& tile)
        : TilePart<T>(dp, tile), own_(dp.box.intersect(tile.box())) {
        std::int64_t pts = 1;
        for (int a = 0; a < 3; ++a) {
            auto [lo, hi] = downRange(dp.box.lo[a], own_.lo[a], own_.hi[a], dp.down);
            if (own_.empty())
                lo = hi = 0;
            snapOwn_.lo[a] = lo;
            snapOwn_.hi[a] = hi;
            pts *= (hi - lo);
        }
        snap_ = device::Buffer<float>(tile.device(),
                                      std::int64_t(dp.samples) * std::int64_t(dp.comps.size()) * pts,
                                      device::Category::Host); // written on the host from downloads
    }
    std::int64_t stageCells() const override {
        return own_.empty() ? 0 : std::int64_t(this->plan_.comps.size()) * own_.cells();
    }
    void registerState(solver::TileState& st) override {
        st.add("detector." + this->plan_.name + ".snap", solver::StateRole::Record, snap_);
    }
    void record(int n, FieldAccess<T>& fa) override {
        const DetectorPlan& dp = this->plan_;
        const int s = (n + 1) / dp.every - 1;
        if (own_.empty() || (n + 1) % dp.every != 0 || s >= dp.samples)
            return;
        const Box& so = snapOwn_;
        const std::int64_t pts = so.cells();
        if (pts <= 0)
            return;
        const std::int64_t nc = std::int64_t(dp.comps.size());
        std::vector<typename TilePart<T>::Region> rs;
        for (int c : dp.comps)
            rs.push_back({c, this->toLocal(own_)});
        View<T> F[6];
        fa.views(rs, F);
        for (std::int64_t c = 0; c < nc; ++c) {
            View<T> f = F[dp.comps[std::size_t(c)]];
            float* out = snap_.data() + (std::int64_t(s) * nc + c) * pts;
            std::int64_t idx = 0;
            for (int k = so.lo[2]; k < so.hi[2]; ++k)
                for (int j = so.lo[1]; j < so.hi[1]; ++j)
                    for (int i = so.lo[0]; i < so.hi[0]; ++i, ++idx) {
                        const Index3 l = this->local({dp.box.lo[0] + i * dp.down, dp.box.lo[1] + j * dp.down,
                                                      dp.box.lo[2] + k * dp.down});
                        out[idx] = float(f(l[0], l[1], l[2]));
                    }
        }
    }
    void write(ByteWriter& w) const override {
        w.put(snapOwn_);
        w.putArray(snap_.data(), snap_.size());
    }

private:
    Box own_;
    Box snapOwn_;                ///< downsampled index box owned
    device::Buffer<float> snap_; ///< [sample][comp][owned downsampled cells]
};

class SnapshotKind : public KindOf<SnapshotPart> {
public:
    std::string type() const override { return "snapshot"; }
    scene::DetectorType sceneType() const override { return scene::DetectorType::Snapshot; }
    DetectorPlan plan(const scene::Detector& d, int index, const solver::Plan& p) const override {
        DetectorPlan dp = commonPlan(d, index, p);
        if (dp.comps.empty())
            dp.comps = {2};
        return dp;
    }
    void assemble(const DetectorPlan& dp, Gathered& g, solver::DetectorResult& res) const override {
        const solver::Plan& p = g.plan;
        const int S = std::min(dp.samples, g.done / dp.every);
        std::vector<Box> owns;
        std::vector<std::vector<float>> snaps;
        for (ByteReader* rd : g.parts) {
            owns.push_back(rd->get<Box>());
            snaps.push_back(rd->getArray<float>());
        }
        const Box& gb = dp.box;
        std::array<int, 3> dims{};
        for (int a = 0; a < 3; ++a)
            dims[a] = (gb.extent(a) + dp.down - 1) / dp.down;
        const std::int64_t npts = std::int64_t(dims[0]) * dims[1] * dims[2];
        const std::int64_t nc = std::int64_t(dp.comps.size());
        for (int s = 0; s < S; ++s)
            for (std::int64_t c = 0; c < nc; ++c) {
                solver::Snapshot sn;
                sn.detector = dp.name;
                sn.component = solver::componentName(dp.comps[std::size_t(c)]);
                sn.step = (s + 1) * dp.every;
                sn.timeFs = sn.step * p.dtFs;
                sn.dims = dims;
                for (int a = 0; a < 3; ++a) {
                    sn.originUm[a] = p.geom.position(dp.comps[std::size_t(c)], a, gb.lo[a]);
                    sn.spacingUm[a] = p.geom.cellUm * dp.down;
                }
                sn.data.assign(std::size_t(npts), 0.f);
                for (std::size_t q = 0; q < owns.size(); ++q) {
                    const Box& so = owns[q];
                    const std::int64_t pts = so.cells();
                    if (pts <= 0)
                        continue;
                    const float* src = snaps[q].data() + (std::int64_t(s) * nc + c) * pts;
                    std::int64_t idx = 0;
                    for (int k = so.lo[2]; k < so.hi[2]; ++k)
                        for (int j = so.lo[1]; j < so.hi[1]; ++j)
                            for (int i = so.lo[0]; i < so.hi[0]; ++i, ++idx)
                                sn.data[std::size_t(i + dims[0] * (j + std::int64_t(dims[1]) * k))] =
                                    src[idx];
                }
                g.snapshots.push_back(std::move(sn));
            }
        res.attrs["samples"] = S;
    }
};

} // namespace

/// The snapshot kind (registered in Registry.cpp).
std::unique_ptr<Kind> makeSnapshotKind() {
    return std::make_unique<SnapshotKind>();
}

} // namespace yee::detectors
