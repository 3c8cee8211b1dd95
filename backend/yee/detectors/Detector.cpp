#include "yee/detectors/Detector.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include "yee/core/Error.hpp"
#include "yee/kernels/Accumulate.hpp"

namespace yee::detectors {

template <class T> FieldAccess<T>::FieldAccess(solver::Tile<T>& tile, std::int64_t stageCells) : tile_(tile) {
    if (tile.device().staged())
        stage_ = device::Buffer<T>(tile.device(), stageCells, device::Category::Staging);
}

template <class T> void FieldAccess<T>::views(const std::vector<Region>& rs, View<T>* F) {
    for (int c = 0; c < 6; ++c)
        F[c] = tile_.field(c);
    if (!tile_.device().staged())
        return;
    tile_.download(tile_.forward(), rs, stage_, host_);
    std::int64_t off = 0;
    for (const Region& r : rs) {
        F[r.comp] = solver::Tile<T>::regionView(host_.data() + off, r.box);
        off += r.box.cells();
    }
}

static_assert(kernels::kExactWords == ExactSum::kWords && kernels::kExactOffset == ExactSum::kOffset,
              "the device exact sums use ExactSum's digit layout");

StepWeights::StepWeights(device::Device& dev, const std::vector<double>& omegas)
    : dev_(dev), omegas_(omegas), host_(4 * omegas.size(), 0.0) {
    if (dev.isCuda())
        dev_buf_ = device::Buffer<double>(dev, std::int64_t(host_.size()), device::Category::Staging);
}

const double* StepWeights::at(int n, double dt) {
    const std::size_t nl = omegas_.size();
    const double tE = (n + 1) * dt, tH = (n + 0.5) * dt;
    for (std::size_t w = 0; w < nl; ++w) {
        const std::complex<double> e = std::polar(dt, omegas_[w] * tE), h = std::polar(dt, omegas_[w] * tH);
        host_[2 * w] = e.real();
        host_[2 * w + 1] = e.imag();
        host_[2 * nl + 2 * w] = h.real();
        host_[2 * nl + 2 * w + 1] = h.imag();
    }
    if (!dev_buf_.allocated())
        return host_.data();
    if (dev_buf_.data())
        dev_.upload(dev_buf_.data(), host_.data(), dev_buf_.bytes());
    return dev_buf_.data();
}

template <class T> Box TilePart<T>::toLocal(const Box& g) const {
    Box l;
    for (int a = 0; a < 3; ++a) {
        l.lo[a] = g.lo[a] - tile_.box().lo[a];
        l.hi[a] = g.hi[a] - tile_.box().lo[a];
    }
    return l;
}

template <class T>
std::unique_ptr<TermAdjoint<T>> TilePart<T>::adjoint(const scene::ObjectiveTerm& term,
                                                     const std::string& field) const {
    throw InputError(field + ".detector: \"" + plan_.name + "\" (" + plan_.typeName +
                     ") has no adjoint, so it cannot be part of a gradient objective");
}

template class FieldAccess<float>;
template class FieldAccess<double>;
template class TilePart<float>;
template class TilePart<double>;

double Kind::objective(const DetectorPlan& dp, const scene::ObjectiveTerm& t,
                       const solver::DetectorResult& res, const solver::Plan& p) const {
    throw InputError("objective.terms: detector \"" + dp.name + "\" (" + dp.typeName +
                     ") cannot be read by an objective");
}

void Kind::checkGradient(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::Plan& p,
                         bool reversible, const std::string& field) const {
    throw InputError(field + ".detector: gradients support flux, flux_box, energy and phasor detectors (\"" +
                     dp.name + "\" is a " + dp.typeName + " detector)");
}

DetectorPlan commonPlan(const scene::Detector& det, int index, const solver::Plan& p) {
    DetectorPlan dp;
    dp.index = index;
    dp.type = det.type;
    dp.name = det.name;
    dp.normal = det.normal;
    dp.sign = det.direction >= 0 ? 1 : -1;
    dp.every = std::max(1, det.every);
    dp.down = std::max(1, det.downsample);
    dp.wavelengths = det.wavelengths;
    for (double w : det.wavelengths)
        dp.omegas.push_back(2 * std::numbers::pi * p.scene.cellUm / w);
    for (const auto& c : det.components)
        dp.comps.push_back(solver::componentFromName(c));
    for (int a = 0; a < 3; ++a) {
        // Cells are selected by their cell-centre position.
        const double lo = p.geom.toCells(a, det.center[a] - det.size[a] / 2);
        const double hi = p.geom.toCells(a, det.center[a] + det.size[a] / 2);
        int ilo = int(std::lround(lo)), ihi = int(std::lround(hi));
        if (ihi <= ilo) {
            ilo = int(std::floor(p.geom.toCells(a, det.center[a])));
            ihi = ilo + 1;
        }
        dp.box.lo[a] = std::clamp(ilo, 0, p.geom.cells[a] - 1);
        dp.box.hi[a] = std::clamp(ihi, dp.box.lo[a] + 1, p.geom.cells[a]);
    }
    dp.samples = p.steps / dp.every;
    return dp;
}

std::size_t nearestWavelength(const std::vector<double>& wls, double wl) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < wls.size(); ++i)
        if (std::abs(wls[i] - wl) < std::abs(wls[best] - wl))
            best = i;
    return best;
}

solver::NamedArray timeAxis(const DetectorPlan& dp, const solver::Plan& p, int done) {
    const int S = std::min(dp.samples, done / dp.every);
    solver::NamedArray time{"time_fs", {S}, {}};
    for (int s = 0; s < S; ++s)
        time.data.push_back((s + 1) * dp.every * p.dtFs);
    return time;
}

solver::NamedArray exactSeries(const DetectorPlan& dp, const std::int64_t* words, int done,
                               const std::string& name) {
    const int S = std::min(dp.samples, done / dp.every);
    solver::NamedArray a{name, {S}, {}};
    for (int s = 0; s < S; ++s) {
        ExactSum e;
        const std::int64_t* wds = words + std::size_t(s) * kSumWords;
        std::copy(wds, wds + ExactSum::kWords, e.words().begin());
        a.data.push_back(wds[ExactSum::kWords] != 0 ? std::nan("") : e.value());
    }
    return a;
}

void storeSum(ExactSum& acc, std::int64_t* out) {
    acc.normalize();
    std::copy(acc.words().begin(), acc.words().end(), out);
    out[ExactSum::kWords] = acc.nonFinite() ? 1 : 0;
}

std::vector<double> gatherCells(const Box& gb, std::int64_t per, std::vector<ByteReader*>& parts) {
    std::vector<double> g(std::size_t(gb.cells() * per), 0.0);
    auto gidx = [&](int i, int j, int k) {
        return std::int64_t(i - gb.lo[0]) +
               std::int64_t(gb.extent(0)) *
                   (std::int64_t(j - gb.lo[1]) + std::int64_t(gb.extent(1)) * (k - gb.lo[2]));
    };
    for (ByteReader* rd : parts) {
        const Box own = rd->get<Box>();
        const std::vector<double> v = rd->getArray<double>();
        if (own.empty())
            continue;
        std::int64_t idx = 0;
        for (int k = own.lo[2]; k < own.hi[2]; ++k)
            for (int j = own.lo[1]; j < own.hi[1]; ++j)
                for (int i = own.lo[0]; i < own.hi[0]; ++i, ++idx)
                    std::copy_n(v.data() + idx * per, per, g.data() + gidx(i, j, k) * per);
    }
    return g;
}

double seriesObjective(const solver::NamedArray& s, const scene::ObjectiveTerm& t, const DetectorPlan& dp,
                       const solver::Plan& p) {
    if (t.reduce == scene::Reduce::Final)
        return s.data.empty() ? 0 : s.data.back();
    double v = 0;
    for (double x : s.data)
        v += x;
    v *= p.dt * dp.every;
    return v;
}

bool inside(const Box& inner, const Box& outer) {
    for (int a = 0; a < 3; ++a)
        if (inner.lo[a] < outer.lo[a] || inner.hi[a] > outer.hi[a])
            return false;
    return true;
}

} // namespace yee::detectors
