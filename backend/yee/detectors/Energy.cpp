/// \file Energy.cpp
/// The energy kind: the leapfrog-conserved electromagnetic energy in a box,
/// W(n) = 1/2 sum (eps E^n.E^{n+1} + mu |H^{n+1/2}|^2), as exact sums per sample.
#include <memory>

#include "yee/core/Error.hpp"
#include "yee/detectors/Detector.hpp"
#include "yee/device/Exec.hpp"
#include "yee/kernels/Accumulate.hpp"
#include "yee/scene/Rasterizer.hpp"

namespace yee::detectors {

namespace {

template <class T> class EnergyPart;

/// The adjoint of a time-domain energy term: dW/dE^{n+1} = eps E^n / 2 goes in at once, dW/dE^n =
/// eps E^{n+1} / 2 is carried to the previous reverse step, dW/dH^{n+1/2} = mu H^{n+1/2}.
template <class T> class EnergyAdjoint : public TermAdjoint<T> {
public:
    EnergyAdjoint(const EnergyPart<T>& part, const scene::ObjectiveTerm& t) : part_(part), t_(t) {}
    std::vector<FieldPoint> capture() const override;
    std::vector<FieldPoint> sources() const override { return capture(); }
    void addSources(int n, const T* after, const T* before, const AdjointSink<T>& sink) const override;

private:
    const EnergyPart<T>& part_;
    scene::ObjectiveTerm t_;
};

template <class T> class EnergyPart : public TilePart<T> {
public:
    using Region = typename TilePart<T>::Region;
    EnergyPart(const DetectorPlan& dp, solver::Tile<T>& tile)
        : TilePart<T>(dp, tile), own_(dp.box.intersect(tile.box())) {
        device::Device& dev = tile.device();
        const std::int64_t n = cells();
        if (n > 0)
            sums_ = device::Buffer<std::int64_t>(dev, std::int64_t(dp.samples) * kSumWords,
                                                 device::Category::Detectors);
        eps_ = device::Buffer<double>(dev, 3 * n, device::Category::Detectors);
        mu_ = device::Buffer<double>(dev, 3 * n, device::Category::Detectors);
        prevE_ = device::Buffer<double>(dev, 3 * n, device::Category::Detectors);
        if (dev.dryRun() || n == 0)
            return;
        // The materials at the detector's E and H locations (constants of the run), copied to the device
        // once; the host keeps them for the adjoint.
        const scene::Rasterizer& r = *tile.plan().raster;
        hostEps_.resize(std::size_t(3 * n));
        hostMu_.resize(std::size_t(3 * n));
        std::int64_t idx = 0;
        for (int k = own_.lo[2]; k < own_.hi[2]; ++k)
            for (int j = own_.lo[1]; j < own_.hi[1]; ++j)
                for (int i = own_.lo[0]; i < own_.hi[0]; ++i, ++idx)
                    for (int c = 0; c < 3; ++c) {
                        hostEps_[std::size_t(c * n + idx)] = r.atE(c, i, j, k).eps;
                        hostMu_[std::size_t(c * n + idx)] = r.atH(c, i, j, k).mu;
                    }
        dev.copy(eps_.data(), hostEps_.data(), eps_.bytes());
        dev.copy(mu_.data(), hostMu_.data(), mu_.bytes());
    }
    std::int64_t cells() const { return own_.empty() ? 0 : own_.cells(); }
    const Box& own() const { return own_; }
    double eps(int c, std::int64_t idx) const { return hostEps_[std::size_t(c * cells() + idx)]; }
    double mu(int c, std::int64_t idx) const { return hostMu_[std::size_t(c * cells() + idx)]; }
    std::int64_t offsetOf(int i, int j, int k) const { return this->offset(i, j, k); }

    void registerState(solver::TileState& st) override {
        const std::string pre = "detector." + this->plan_.name + ".";
        st.add(pre + "sums", solver::StateRole::Record, sums_);
        st.add(pre + "prevE", solver::StateRole::Record, prevE_);
    }
    void beforeStep(int n, FieldAccess<T>&) override {
        // E^n, saved on the device before the step replaces it.
        if (cells() == 0)
            return;
        kernels::EnergySaveE<T> k{
            this->tile_.field(0), this->tile_.field(1), this->tile_.field(2), dense(), cells(),
            prevE_.data()};
        device::launchIndex(this->tile_.device(), cells(), this->tile_.threads(), k);
    }
    void record(int n, FieldAccess<T>&) override {
        const DetectorPlan& dp = this->plan_;
        const int s = (n + 1) / dp.every - 1;
        if (cells() == 0 || (n + 1) % dp.every != 0 || s >= dp.samples)
            return;
        kernels::EnergySample<T> k;
        for (int c = 0; c < 6; ++c)
            k.f[c] = this->tile_.field(c);
        k.cells = dense();
        k.count = cells();
        k.eps = eps_.data();
        k.mu = mu_.data();
        k.prevE = prevE_.data();
        k.sum = sums_.data() + std::int64_t(s) * kSumWords;
        device::Device& dev = this->tile_.device();
        device::launchIndex(dev, cells(), this->tile_.threads(), k);
        device::launchIndex(dev, 1, 1, kernels::NormalizeExact{k.sum});
    }
    void sums(std::vector<std::int64_t>& out) const override {
        if (sums_.allocated()) {
            const std::vector<std::int64_t> h = toHost(this->tile_.device(), sums_);
            out.insert(out.end(), h.begin(), h.end());
        } else
            out.resize(out.size() + std::size_t(this->plan_.samples) * kSumWords, 0);
    }
    void write(ByteWriter& w) const override {}
    std::unique_ptr<TermAdjoint<T>> adjoint(const scene::ObjectiveTerm& t,
                                            const std::string& field) const override {
        return std::make_unique<EnergyAdjoint<T>>(*this, t);
    }

private:
    /// The owned cells, tile-local, by dense index.
    kernels::DenseCells dense() const {
        const Box& tb = this->tile_.box();
        return {own_.lo[0] - tb.lo[0], own_.lo[1] - tb.lo[1], own_.lo[2] - tb.lo[2], own_.extent(0),
                std::int64_t(own_.extent(0)) * own_.extent(1)};
    }

    Box own_;
    device::Buffer<std::int64_t> sums_;    ///< exact sums per sample (kSumWords each)
    device::Buffer<double> eps_, mu_;      ///< [3][cell] permittivity at E, permeability at H locations
    device::Buffer<double> prevE_;         ///< [3][cell] E^n saved before the step
    std::vector<double> hostEps_, hostMu_; ///< eps_, mu_ on the host (the adjoint reads them)
};

template <class T> std::vector<FieldPoint> EnergyAdjoint<T>::capture() const {
    std::vector<FieldPoint> out;
    const Box& own = part_.own();
    for (int k = own.lo[2]; k < own.hi[2]; ++k)
        for (int j = own.lo[1]; j < own.hi[1]; ++j)
            for (int i = own.lo[0]; i < own.hi[0]; ++i)
                for (int c = 0; c < 6; ++c)
                    out.push_back({c, part_.offsetOf(i, j, k)});
    return out;
}

template <class T>
void EnergyAdjoint<T>::addSources(int n, const T* after, const T* before, const AdjointSink<T>& sink) const {
    const DetectorPlan& dp = part_.plan();
    if ((n + 1) % dp.every != 0)
        return;
    const int smp = (n + 1) / dp.every - 1;
    const bool final = t_.reduce == scene::Reduce::Final;
    if (smp >= dp.samples || (final && smp != dp.samples - 1))
        return;
    const double dt = part_.tile().plan().dt;
    const double alpha = final ? t_.weight : t_.weight * dt * dp.every;
    const std::int64_t cells = part_.cells();
    for (std::int64_t c = 0; c < cells; ++c) {
        const int b = int(6 * c);
        for (int q = 0; q < 3; ++q) {
            const double eps = part_.eps(q, c), mu = part_.mu(q, c);
            sink.addE(b + q, alpha * 0.5 * eps * double(before[b + q]));
            sink.carryE(b + q, alpha * 0.5 * eps * double(after[b + q]));
            sink.addH(b + 3 + q, alpha * mu * double(after[b + 3 + q]));
        }
    }
}

class EnergyKind : public KindOf<EnergyPart> {
public:
    std::string type() const override { return "energy"; }
    scene::DetectorType sceneType() const override { return scene::DetectorType::Energy; }
    DetectorPlan plan(const scene::Detector& d, int index, const solver::Plan& p) const override {
        return commonPlan(d, index, p);
    }
    std::int64_t sumWords(const DetectorPlan& dp) const override {
        return std::int64_t(dp.samples) * kSumWords;
    }
    void assemble(const DetectorPlan& dp, Gathered& g, solver::DetectorResult& res) const override {
        res.arrays.push_back(timeAxis(dp, g.plan, g.done));
        res.arrays.push_back(exactSeries(dp, g.sums, g.done, "energy"));
    }
    double objective(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::DetectorResult& res,
                     const solver::Plan& p) const override {
        return seriesObjective(*res.find("energy"), t, dp, p);
    }
    void checkGradient(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::Plan& p,
                       bool reversible, const std::string& field) const override {
        if (t.reduce == scene::Reduce::AtWavelength || t.quantity == scene::Quantity::PhasorPower)
            throw InputError(field + ".reduce: energy terms support time_integral and final");
        if (reversible && !inside(dp.box, p.scene.interiorCells()))
            throw InputError(field + ".detector: \"" + t.detector +
                             "\" must lie outside every PML when gradient.method is \"reversible\"");
        const scene::Rasterizer& r = *p.raster;
        for (int d = 0; d < r.designCount(); ++d)
            if (!dp.box.intersect(r.designBox(d)).empty())
                throw InputError(field + ".detector: energy box \"" + t.detector +
                                 "\" overlaps a design region");
    }
};

} // namespace

/// The energy kind (registered in Registry.cpp).
std::unique_ptr<Kind> makeEnergyKind() {
    return std::make_unique<EnergyKind>();
}

} // namespace yee::detectors
