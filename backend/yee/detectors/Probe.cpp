/// \file Probe.cpp
/// The probe kind: time series of field components at the Yee location nearest to a point.
#include <algorithm>
#include <memory>

#include "yee/detectors/Detector.hpp"
#include "yee/device/Exec.hpp"
#include "yee/kernels/Accumulate.hpp"

namespace yee::detectors {

namespace {

template <class T> class ProbePart : public TilePart<T> {
public:
    ProbePart(const DetectorPlan& dp, solver::Tile<T>& tile) : TilePart<T>(dp, tile) {
        for (std::size_t c = 0; c < dp.points.size(); ++c)
            if (tile.box().contains(dp.points[c]))
                slots_.push_back(int(c));
        series_ =
            device::Buffer<double>(tile.device(), std::int64_t(dp.samples) * std::int64_t(slots_.size()),
                                   device::Category::Detectors);
    }
    void registerState(solver::TileState& st) override {
        st.add("detector." + this->plan_.name + ".series", solver::StateRole::Record, series_);
    }
    void record(int n, FieldAccess<T>&) override {
        const DetectorPlan& dp = this->plan_;
        const int s = (n + 1) / dp.every - 1;
        if ((n + 1) % dp.every != 0 || s >= dp.samples || slots_.empty())
            return;
        // Every owned point of the sample in one launch (six a launch), written in place on the device:
        // no copy and no wait per sample; the series comes to the host once, at output.
        const std::int64_t ns = std::int64_t(slots_.size());
        for (std::int64_t q0 = 0; q0 < ns; q0 += 6) {
            kernels::ProbeSample<T> k;
            const std::int64_t count = std::min<std::int64_t>(6, ns - q0);
            for (std::int64_t q = 0; q < count; ++q) {
                const int slot = slots_[std::size_t(q0 + q)];
                const Index3 l = this->local(dp.points[std::size_t(slot)]);
                k.src[q] = &this->tile_.field(dp.comps[std::size_t(slot)])(l[0], l[1], l[2]);
            }
            k.out = series_.data() + std::int64_t(s) * ns + q0;
            device::launchIndex(this->tile_.device(), count, 1, k);
        }
    }
    void write(ByteWriter& w) const override {
        w.putArray(slots_.data(), std::int64_t(slots_.size()));
        const std::vector<double> series = toHost(this->tile_.device(), series_);
        w.putArray(series.data(), std::int64_t(series.size()));
    }

private:
    std::vector<int> slots_;        ///< which plan components this tile owns
    device::Buffer<double> series_; ///< [sample][owned slot]
};

class ProbeKind : public KindOf<ProbePart> {
public:
    std::string type() const override { return "probe"; }
    scene::DetectorType sceneType() const override { return scene::DetectorType::Probe; }
    DetectorPlan plan(const scene::Detector& d, int index, const solver::Plan& p) const override {
        DetectorPlan dp = commonPlan(d, index, p);
        if (dp.comps.empty())
            dp.comps = {2};
        for (int c : dp.comps)
            dp.points.push_back(Index3{p.geom.nearest(c, 0, d.center[0]), p.geom.nearest(c, 1, d.center[1]),
                                       p.geom.nearest(c, 2, d.center[2])});
        return dp;
    }
    void assemble(const DetectorPlan& dp, Gathered& g, solver::DetectorResult& res) const override {
        const solver::NamedArray time = timeAxis(dp, g.plan, g.done);
        const int S = int(time.data.size());
        std::vector<std::vector<int>> slots;
        std::vector<std::vector<double>> series;
        for (ByteReader* rd : g.parts) {
            slots.push_back(rd->getArray<int>());
            series.push_back(rd->getArray<double>());
        }
        res.arrays.push_back(time);
        for (std::size_t c = 0; c < dp.comps.size(); ++c) {
            solver::NamedArray a{
                solver::componentName(dp.comps[c]), {S}, std::vector<double>(std::size_t(S), 0.0)};
            for (std::size_t q = 0; q < slots.size(); ++q)
                for (std::size_t k = 0; k < slots[q].size(); ++k)
                    if (slots[q][k] == int(c))
                        for (int s = 0; s < S; ++s)
                            a.data[std::size_t(s)] = series[q][std::size_t(s) * slots[q].size() + k];
            res.arrays.push_back(std::move(a));
        }
    }
};

} // namespace

/// The probe kind (registered in Registry.cpp).
std::unique_ptr<Kind> makeProbeKind() {
    return std::make_unique<ProbeKind>();
}

} // namespace yee::detectors
