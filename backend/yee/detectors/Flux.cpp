/// \file Flux.cpp
/// The flux kind: power through one plane, time series `flux` (exact sums) and, with wavelengths_um,
/// `power` per wavelength from running DFT phasors. The plane itself is FluxPlane (Flux.hpp).
#include "yee/detectors/Flux.hpp"

#include <algorithm>
#include <cmath>

#include "yee/core/Error.hpp"
#include "yee/device/Exec.hpp"
#include "yee/kernels/Accumulate.hpp"

namespace yee::detectors {

namespace {
const char* axisName(int a) {
    return a == 0 ? "x" : (a == 1 ? "y" : "z");
}
} // namespace

DetectorPlan planFluxPlane(const scene::Detector& det, int index, const solver::Plan& p) {
    DetectorPlan dp = commonPlan(det, index, p);
    // Flux planes sit on the E plane i0 along their normal.
    const int a = det.normal;
    const int i0 = std::clamp(int(std::lround(p.geom.toCells(a, det.center[a]))), 1, p.geom.cells[a] - 1);
    dp.box.lo[a] = i0;
    dp.box.hi[a] = i0 + 1;
    return dp;
}

// ---------------------------------------------------------------- FluxPlane

template <class T>
FluxPlane<T>::FluxPlane(const DetectorPlan& face, const std::vector<double>& omegas, solver::Tile<T>& tile)
    : face_(face), omegas_(omegas), tile_(tile), own_(face.box.intersect(tile.box())),
      weights_(tile.device(), omegas) {
    phasor_ = device::Buffer<double>(tile.device(), cells() * std::int64_t(omegas.size()) * 8,
                                     device::Category::Detectors);
}

template <class T> std::int64_t FluxPlane<T>::offset(const Index3& g) const {
    const Box& tb = tile_.box();
    return tile_.shape().offset(g[0] - tb.lo[0], g[1] - tb.lo[1], g[2] - tb.lo[2]);
}

template <class T> std::vector<typename FluxPlane<T>::Region> FluxPlane<T>::regions() const {
    if (own_.empty())
        return {};
    Box own;
    for (int a = 0; a < 3; ++a) {
        own.lo[a] = own_.lo[a] - tile_.box().lo[a];
        own.hi[a] = own_.hi[a] - tile_.box().lo[a];
    }
    const int a = face_.normal, pa = (a + 1) % 3, qa = (a + 2) % 3;
    Box below = own;
    below.lo[a] -= 1;
    return {{pa, own}, {qa, own}, {3 + pa, below}, {3 + qa, below}};
}

template <class T> void FluxPlane<T>::record(int n, FieldAccess<T>&, std::int64_t* sum) {
    if (own_.empty())
        return;
    // S_a = E_p Hbar_q - E_q Hbar_p on the E plane i0; Hbar averages H over the two half-cells around
    // the plane (the low one may be the H halo, valid after the H exchange). Read in place on the device.
    const int a = face_.normal, pa = (a + 1) % 3, qa = (a + 2) % 3;
    const Box& tb = tile_.box();
    const ArrayShape& sh = tile_.shape();
    kernels::FluxPlaneStep<T> k;
    k.ep = tile_.field(pa);
    k.eq = tile_.field(qa);
    k.hp = tile_.field(3 + pa);
    k.hq = tile_.field(3 + qa);
    k.cells = {own_.lo[0] - tb.lo[0], own_.lo[1] - tb.lo[1], own_.lo[2] - tb.lo[2], own_.extent(0),
               std::int64_t(own_.extent(0)) * own_.extent(1)};
    k.below = a == 0 ? 1 : (a == 1 ? sh.sy : sh.sz);
    k.nl = int(omegas_.size());
    k.wE = weights_.at(n, tile_.plan().dt);
    k.wH = k.wE + 2 * k.nl;
    k.sign = face_.sign;
    k.phasor = phasor_.data();
    k.sum = sum;
    device::launchIndex(tile_.device(), cells(), tile_.threads(), k);
}

template <class T> void FluxPlane<T>::write(ByteWriter& w) const {
    w.put(own_);
    const std::vector<double> ph = toHost(tile_.device(), phasor_);
    w.putArray(ph.data(), std::int64_t(ph.size()));
}

template <class T> const double* FluxPlane<T>::hostPhasor() const {
    if (!hostPhasorValid_) {
        hostPhasor_ = toHost(tile_.device(), phasor_);
        hostPhasorValid_ = true;
    }
    return hostPhasor_.data();
}

void normalizeSum(device::Device& dev, std::int64_t* sum) {
    device::launchIndex(dev, 1, 1, kernels::NormalizeExact{sum});
}

template <class T>
std::vector<double> FluxPlane<T>::power(const DetectorPlan& face, std::int64_t nl,
                                        std::vector<ByteReader*>& parts) {
    const std::vector<double> g = gatherCells(face.box, nl * 8, parts);
    const std::int64_t gcells = face.box.cells();
    std::vector<double> pw(std::size_t(nl), 0.0);
    for (std::int64_t w = 0; w < nl; ++w) {
        double acc = 0;
        for (std::int64_t c = 0; c < gcells; ++c) {
            const double* ph = g.data() + (c * nl + w) * 8;
            const std::complex<double> ep(ph[0], ph[1]), eq(ph[2], ph[3]), hp(ph[4], ph[5]), hq(ph[6], ph[7]);
            acc += 0.5 * (ep * std::conj(hq) - eq * std::conj(hp)).real();
        }
        pw[std::size_t(w)] = face.sign * acc;
    }
    return pw;
}

template <class T> void FluxPlane<T>::planePoints(bool hpFirst, std::vector<FieldPoint>& out) const {
    const DetectorPlan& face = face_;
    const Box& own = own_;
    const int a = face.normal, pa = (a + 1) % 3, qa = (a + 2) % 3;
    const int h1 = 3 + (hpFirst ? pa : qa), h2 = 3 + (hpFirst ? qa : pa);
    for (int k = own.lo[2]; k < own.hi[2]; ++k)
        for (int j = own.lo[1]; j < own.hi[1]; ++j)
            for (int i = own.lo[0]; i < own.hi[0]; ++i) {
                Index3 m{i, j, k};
                m[a] -= 1;
                const std::int64_t ol = offset({i, j, k}), om = offset(m);
                out.insert(out.end(), {{pa, ol}, {qa, ol}, {h1, om}, {h1, ol}, {h2, om}, {h2, ol}});
            }
}

template <class T> void FluxPlane<T>::capture(std::vector<FieldPoint>& out) const {
    planePoints(true, out);
}

template <class T>
void FluxPlane<T>::addSeries(double alpha, const T* after, int j0, const AdjointSink<T>& sink) const {
    const double s = alpha * face_.sign;
    const std::int64_t n = cells();
    for (std::int64_t c = 0; c < n; ++c) {
        const int b = int(6 * c);
        const double ep = after[b], eq = after[b + 1];
        const double hpb = 0.5 * (double(after[b + 2]) + double(after[b + 3]));
        const double hqb = 0.5 * (double(after[b + 4]) + double(after[b + 5]));
        sink.addE(j0 + b, s * hqb);
        sink.addE(j0 + b + 1, -s * hpb);
        for (int h = 2; h < 4; ++h)
            sink.addH(j0 + b + h, -0.5 * s * eq);
        for (int h = 4; h < 6; ++h)
            sink.addH(j0 + b + h, 0.5 * s * ep);
    }
}

template <class T> void FluxPlane<T>::phasorSources(std::vector<FieldPoint>& out) const {
    planePoints(false, out);
}

template <class T>
void FluxPlane<T>::addPhasor(int n, int wl, double weight, int j0, const AdjointSink<T>& sink) const {
    // P(lambda) = sign sum 0.5 Re(Ep conj(Hq) - Eq conj(Hp)), X = sum_n x_n w_n.
    const double dt = tile_.plan().dt;
    const std::int64_t nl = std::int64_t(omegas_.size());
    const double om = omegas_[std::size_t(wl)];
    const std::complex<double> wE = std::polar(dt, om * (n + 1) * dt),
                               wH = std::polar(dt, om * (n + 0.5) * dt);
    const double s = weight * face_.sign * 0.5;
    const std::int64_t cellsOwned = cells();
    for (std::int64_t idx = 0; idx < cellsOwned; ++idx) {
        const double* ph = hostPhasor() + (idx * nl + wl) * 8;
        const std::complex<double> Ep(ph[0], ph[1]), Eq(ph[2], ph[3]), Hp(ph[4], ph[5]), Hq(ph[6], ph[7]);
        const int loc = j0 + int(6 * idx); // E_p(l), E_q(l), H_q(m), H_q(l), H_p(m), H_p(l)
        sink.addE(loc, s * (wE * std::conj(Hq)).real());
        sink.addE(loc + 1, -s * (wE * std::conj(Hp)).real());
        const double dhq = 0.5 * s * (Ep * std::conj(wH)).real();
        const double dhp = -0.5 * s * (Eq * std::conj(wH)).real();
        sink.addH(loc + 2, dhq);
        sink.addH(loc + 3, dhq);
        sink.addH(loc + 4, dhp);
        sink.addH(loc + 5, dhp);
    }
}

// ---------------------------------------------------------------- adjoints

template <class T>
FluxSeriesAdjoint<T>::FluxSeriesAdjoint(const DetectorPlan& dp, const scene::ObjectiveTerm& t,
                                        std::vector<const FluxPlane<T>*> planes, double dt)
    : dp_(dp), weight_(t.weight), final_(t.reduce == scene::Reduce::Final), dt_(dt),
      planes_(std::move(planes)) {}

template <class T> std::vector<FieldPoint> FluxSeriesAdjoint<T>::capture() const {
    std::vector<FieldPoint> out;
    for (const auto* pl : planes_)
        pl->capture(out);
    return out;
}

template <class T>
void FluxSeriesAdjoint<T>::addSources(int n, const T* after, const T* before,
                                      const AdjointSink<T>& sink) const {
    // Time-domain terms, on sampled steps only.
    if ((n + 1) % dp_.every != 0)
        return;
    const int smp = (n + 1) / dp_.every - 1;
    if (smp >= dp_.samples)
        return;
    if (final_ && smp != dp_.samples - 1)
        return;
    const double alpha = final_ ? weight_ : weight_ * dt_ * dp_.every;
    int j0 = 0;
    for (const auto* pl : planes_) {
        pl->addSeries(alpha, after + j0, j0, sink);
        j0 += int(6 * pl->cells());
    }
}

template <class T>
FluxPhasorAdjoint<T>::FluxPhasorAdjoint(const scene::ObjectiveTerm& t, int wl,
                                        std::vector<const FluxPlane<T>*> planes)
    : weight_(t.weight), wl_(wl), planes_(std::move(planes)) {}

template <class T> std::vector<FieldPoint> FluxPhasorAdjoint<T>::sources() const {
    std::vector<FieldPoint> out;
    for (const auto* pl : planes_)
        pl->phasorSources(out);
    return out;
}

template <class T>
void FluxPhasorAdjoint<T>::addSources(int n, const T* after, const T* before,
                                      const AdjointSink<T>& sink) const {
    int j0 = 0;
    for (const auto* pl : planes_) {
        pl->addPhasor(n, wl_, weight_, j0, sink);
        j0 += int(6 * pl->cells());
    }
}

double fluxObjective(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::DetectorResult& res,
                     const solver::Plan& p) {
    if (t.reduce == scene::Reduce::AtWavelength || t.quantity == scene::Quantity::PhasorPower) {
        const solver::NamedArray* wl = res.find("wavelengths_um");
        const solver::NamedArray* pw = res.find("power");
        if (!wl || !pw || wl->data.empty())
            throw InputError("objective.terms: detector \"" + t.detector + "\" has no wavelengths");
        return pw->data[nearestWavelength(wl->data, t.wavelength)];
    }
    return seriesObjective(*res.find("flux"), t, dp, p);
}

void checkFluxPlaneGradient(const DetectorPlan& face, const std::string& owner, const solver::Plan& p,
                            bool reversible, const std::string& field) {
    const auto& tg = *p.tiles;
    const int a = face.normal;
    for (int t = 0; t < tg.count(); ++t)
        if (tg.tile(t).box.lo[a] == face.box.lo[a])
            throw InputError("run.tiles[" + std::to_string(a) + "]: a tile cut at " + axisName(a) + " = " +
                             std::to_string(face.box.lo[a]) +
                             " cells coincides with the flux plane of objective detector \"" + owner +
                             "\"; move the plane by a cell or change the tile grid");
    Box reach = face.box;
    reach.lo[a] -= 1; // the H average reaches one cell upstream
    if (reversible && !inside(reach, p.scene.interiorCells()))
        throw InputError(field + ".detector: \"" + owner +
                         "\" must lie outside every PML when gradient.method is \"reversible\"");
}

template class FluxPlane<float>;
template class FluxPlane<double>;
template class FluxSeriesAdjoint<float>;
template class FluxSeriesAdjoint<double>;
template class FluxPhasorAdjoint<float>;
template class FluxPhasorAdjoint<double>;

// ---------------------------------------------------------------- the flux kind

namespace {

template <class T> class FluxPart : public TilePart<T> {
public:
    FluxPart(const DetectorPlan& dp, solver::Tile<T>& tile)
        : TilePart<T>(dp, tile), plane_(dp, dp.omegas, tile) {
        // The exact sums only where the plane has cells: other tiles contribute zeros at output.
        if (plane_.cells() > 0)
            sums_ = device::Buffer<std::int64_t>(tile.device(), std::int64_t(dp.samples) * kSumWords,
                                                 device::Category::Detectors);
    }
    void registerState(solver::TileState& st) override {
        const std::string pre = "detector." + this->plan_.name + ".";
        st.add(pre + "sums", solver::StateRole::Record, sums_);
        st.add(pre + "phasor", solver::StateRole::Record, plane_.phasor());
    }
    void record(int n, FieldAccess<T>& f) override {
        const DetectorPlan& dp = this->plan_;
        if (plane_.cells() == 0)
            return;
        const bool sample = (n + 1) % dp.every == 0 && (n + 1) / dp.every - 1 < dp.samples;
        std::int64_t* sum =
            sample ? sums_.data() + std::int64_t((n + 1) / dp.every - 1) * kSumWords : nullptr;
        plane_.record(n, f, sum);
        if (sum)
            normalizeSum(this->tile_.device(), sum);
    }
    void sums(std::vector<std::int64_t>& out) const override {
        if (sums_.allocated()) {
            const std::vector<std::int64_t> h = toHost(this->tile_.device(), sums_);
            out.insert(out.end(), h.begin(), h.end());
        } else
            out.resize(out.size() + std::size_t(this->plan_.samples) * kSumWords, 0);
    }
    void write(ByteWriter& w) const override { plane_.write(w); }
    std::unique_ptr<TermAdjoint<T>> adjoint(const scene::ObjectiveTerm& t,
                                            const std::string& field) const override {
        const DetectorPlan& dp = this->plan_;
        if (t.reduce == scene::Reduce::AtWavelength || t.quantity == scene::Quantity::PhasorPower) {
            if (dp.wavelengths.empty())
                throw InputError("objective.terms: detector \"" + dp.name + "\" has no wavelengths_um");
            return std::make_unique<FluxPhasorAdjoint<T>>(
                t, int(nearestWavelength(dp.wavelengths, t.wavelength)),
                std::vector<const FluxPlane<T>*>{&plane_});
        }
        return std::make_unique<FluxSeriesAdjoint<T>>(dp, t, std::vector<const FluxPlane<T>*>{&plane_},
                                                      this->tile_.plan().dt);
    }

private:
    FluxPlane<T> plane_;
    device::Buffer<std::int64_t> sums_;
};

class FluxKind : public KindOf<FluxPart> {
public:
    std::string type() const override { return "flux"; }
    scene::DetectorType sceneType() const override { return scene::DetectorType::Flux; }
    DetectorPlan plan(const scene::Detector& d, int index, const solver::Plan& p) const override {
        return planFluxPlane(d, index, p);
    }
    std::int64_t sumWords(const DetectorPlan& dp) const override {
        return std::int64_t(dp.samples) * kSumWords;
    }
    void assemble(const DetectorPlan& dp, Gathered& g, solver::DetectorResult& res) const override {
        const std::int64_t nl = std::int64_t(dp.omegas.size());
        res.arrays.push_back(timeAxis(dp, g.plan, g.done));
        res.arrays.push_back(exactSeries(dp, g.sums, g.done, "flux"));
        res.arrays.push_back(solver::NamedArray{"wavelengths_um", {nl}, dp.wavelengths});
        res.arrays.push_back(solver::NamedArray{"power", {nl}, FluxPlane<double>::power(dp, nl, g.parts)});
        res.attrs["normal"] = dp.normal;
        res.attrs["sign"] = dp.sign;
    }
    double objective(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::DetectorResult& res,
                     const solver::Plan& p) const override {
        return fluxObjective(dp, t, res, p);
    }
    void checkGradient(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::Plan& p,
                       bool reversible, const std::string& field) const override {
        checkFluxPlaneGradient(dp, dp.name, p, reversible, field);
    }
};

} // namespace

/// The flux kind (registered in Registry.cpp).
std::unique_ptr<Kind> makeFluxKind() {
    return std::make_unique<FluxKind>();
}

} // namespace yee::detectors
