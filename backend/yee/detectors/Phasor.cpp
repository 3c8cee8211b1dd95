/// \file Phasor.cpp
/// The phasor kind: running DFT phasors X(lambda) = sum_n v_n dt exp(i omega t_n) of field components over
/// a box; its objective quantity phasor_power is sum over cells and components of |X(lambda)|^2.
#include <algorithm>
#include <complex>
#include <memory>

#include "yee/core/Error.hpp"
#include "yee/detectors/Detector.hpp"
#include "yee/device/Exec.hpp"
#include "yee/kernels/Accumulate.hpp"

namespace yee::detectors {

namespace {

/// The DFT weights dt exp(i omega t) of step n at E times ((n+1) dt) and H times ((n+1/2) dt).
void weights(const std::vector<double>& omegas, double dt, int n, std::vector<std::complex<double>>& wE,
             std::vector<std::complex<double>>& wH) {
    const double tE = (n + 1) * dt, tH = (n + 0.5) * dt;
    wE.resize(omegas.size());
    wH.resize(omegas.size());
    for (std::size_t w = 0; w < omegas.size(); ++w) {
        wE[w] = std::polar(dt, omegas[w] * tE);
        wH[w] = std::polar(dt, omegas[w] * tH);
    }
}

template <class T> class PhasorPart;

/// The adjoint of weight * sum |X(lambda)|^2: X accumulates v_n w_n each step, so
/// dJ/dv_n = 2 weight Re(conj(X) w_n), added at every reverse step (E at E locations, H at H locations).
template <class T> class PhasorAdjoint : public TermAdjoint<T> {
public:
    PhasorAdjoint(const PhasorPart<T>& part, double weight, int wl) : part_(part), weight_(weight), wl_(wl) {}
    std::vector<FieldPoint> sources() const override;
    void addSources(int n, const T* after, const T* before, const AdjointSink<T>& sink) const override;

private:
    const PhasorPart<T>& part_;
    double weight_;
    int wl_;
};

template <class T> class PhasorPart : public TilePart<T> {
public:
    PhasorPart(const DetectorPlan& dp, solver::Tile<T>& tile)
        : TilePart<T>(dp, tile), own_(dp.box.intersect(tile.box())), weights_(tile.device(), dp.omegas) {
        phasor_ = device::Buffer<double>(
            tile.device(), cells() * std::int64_t(dp.comps.size()) * std::int64_t(dp.omegas.size()) * 2,
            device::Category::Detectors);
    }
    std::int64_t cells() const { return own_.empty() ? 0 : own_.cells(); }
    const Box& own() const { return own_; }
    /// Running phasors on the host: [cell][comp][lambda][re, im], copied from the device once they are
    /// final (the first call after the forward run; the adjoint reads them in the reverse sweep).
    const double* phasor() const {
        if (!hostValid_) {
            host_ = toHost(this->tile_.device(), phasor_);
            hostValid_ = true;
        }
        return host_.data();
    }
    std::int64_t offsetOf(int i, int j, int k) const { return this->offset(i, j, k); }

    void registerState(solver::TileState& st) override {
        st.add("detector." + this->plan_.name + ".phasor", solver::StateRole::Record, phasor_);
    }
    void record(int n, FieldAccess<T>&) override {
        if (cells() == 0)
            return;
        const DetectorPlan& dp = this->plan_;
        const Box& tb = this->tile_.box();
        kernels::PhasorStep<T> k;
        for (int c = 0; c < 6; ++c)
            k.f[c] = this->tile_.field(c);
        k.ncTotal = int(dp.comps.size());
        k.cells = {own_.lo[0] - tb.lo[0], own_.lo[1] - tb.lo[1], own_.lo[2] - tb.lo[2], own_.extent(0),
                   std::int64_t(own_.extent(0)) * own_.extent(1)};
        k.nl = int(dp.omegas.size());
        k.wE = weights_.at(n, this->tile_.plan().dt);
        k.wH = k.wE + 2 * k.nl;
        k.phasor = phasor_.data();
        // Six components a launch (a list may name one twice).
        for (k.c0 = 0; k.c0 < k.ncTotal; k.c0 += 6) {
            k.nc = std::min(6, k.ncTotal - k.c0);
            for (int c = 0; c < k.nc; ++c)
                k.comp[c] = dp.comps[std::size_t(k.c0 + c)];
            device::launchIndex(this->tile_.device(), cells(), this->tile_.threads(), k);
        }
    }
    void write(ByteWriter& w) const override {
        w.put(own_);
        const std::vector<double> ph = toHost(this->tile_.device(), phasor_);
        w.putArray(ph.data(), std::int64_t(ph.size()));
    }
    std::unique_ptr<TermAdjoint<T>> adjoint(const scene::ObjectiveTerm& t,
                                            const std::string& field) const override {
        return std::make_unique<PhasorAdjoint<T>>(
            *this, t.weight, int(nearestWavelength(this->plan_.wavelengths, t.wavelength)));
    }

private:
    Box own_;
    device::Buffer<double> phasor_;
    StepWeights weights_;
    mutable std::vector<double> host_; ///< phasor()'s copy
    mutable bool hostValid_ = false;
};

template <class T> std::vector<FieldPoint> PhasorAdjoint<T>::sources() const {
    std::vector<FieldPoint> out;
    const Box& own = part_.own();
    for (int k = own.lo[2]; k < own.hi[2]; ++k)
        for (int j = own.lo[1]; j < own.hi[1]; ++j)
            for (int i = own.lo[0]; i < own.hi[0]; ++i)
                for (int comp : part_.plan().comps)
                    out.push_back({comp, part_.offsetOf(i, j, k)});
    return out;
}

template <class T>
void PhasorAdjoint<T>::addSources(int n, const T* after, const T* before, const AdjointSink<T>& sink) const {
    const DetectorPlan& dp = part_.plan();
    std::vector<std::complex<double>> wE, wH;
    weights(dp.omegas, part_.tile().plan().dt, n, wE, wH);
    const std::int64_t nl = std::int64_t(dp.omegas.size()), nc = std::int64_t(dp.comps.size());
    const std::int64_t cells = part_.cells();
    for (std::int64_t idx = 0; idx < cells; ++idx)
        for (std::int64_t c = 0; c < nc; ++c) {
            const int comp = dp.comps[std::size_t(c)];
            const double* ph = part_.phasor() + ((idx * nc + c) * nl + wl_) * 2;
            const auto& wt = comp < 3 ? wE[std::size_t(wl_)] : wH[std::size_t(wl_)];
            const double dj = 2 * weight_ * (ph[0] * wt.real() + ph[1] * wt.imag());
            const int j = int(idx * nc + c);
            if (comp < 3)
                sink.addE(j, dj);
            else
                sink.addH(j, dj);
        }
}

class PhasorKind : public KindOf<PhasorPart> {
public:
    std::string type() const override { return "phasor"; }
    scene::DetectorType sceneType() const override { return scene::DetectorType::Phasor; }
    DetectorPlan plan(const scene::Detector& d, int index, const solver::Plan& p) const override {
        DetectorPlan dp = commonPlan(d, index, p);
        if (dp.comps.empty())
            dp.comps = {2};
        return dp;
    }
    void assemble(const DetectorPlan& dp, Gathered& g, solver::DetectorResult& res) const override {
        const std::int64_t nl = std::int64_t(dp.omegas.size()), nc = std::int64_t(dp.comps.size());
        const Box& gb = dp.box;
        const std::int64_t gcells = gb.cells();
        const std::vector<double> all = gatherCells(gb, nc * nl * 2, g.parts);
        res.arrays.push_back(solver::NamedArray{"wavelengths_um", {nl}, dp.wavelengths});
        for (std::int64_t c = 0; c < nc; ++c) {
            const std::string comp = solver::componentName(dp.comps[std::size_t(c)]);
            solver::NamedArray re{comp + "_re", {nl, gb.extent(2), gb.extent(1), gb.extent(0)}, {}};
            solver::NamedArray im = re;
            im.name = comp + "_im";
            for (std::int64_t w = 0; w < nl; ++w)
                for (std::int64_t cell = 0; cell < gcells; ++cell) {
                    const double* ph = all.data() + ((cell * nc + c) * nl + w) * 2;
                    re.data.push_back(ph[0]);
                    im.data.push_back(ph[1]);
                }
            res.arrays.push_back(std::move(re));
            res.arrays.push_back(std::move(im));
        }
    }
    double objective(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::DetectorResult& res,
                     const solver::Plan& p) const override {
        // Phasor power: sum over cells and components of |X(lambda)|^2 at the nearest wavelength.
        const solver::NamedArray* wl = res.find("wavelengths_um");
        if (!wl || wl->data.empty())
            throw InputError("objective.terms: detector \"" + t.detector + "\" has no wavelengths");
        const std::size_t best = nearestWavelength(wl->data, t.wavelength);
        double v = 0;
        for (const auto& a : res.arrays) {
            if (a.shape.size() != 4)
                continue;
            const std::int64_t per = a.shape[1] * a.shape[2] * a.shape[3];
            for (std::int64_t c = 0; c < per; ++c) {
                const double x = a.data[std::size_t(std::int64_t(best) * per + c)];
                v += x * x;
            }
        }
        return v;
    }
    void checkGradient(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::Plan& p,
                       bool reversible, const std::string& field) const override {
        if (reversible && !inside(dp.box, p.scene.interiorCells()))
            throw InputError(field + ".detector: \"" + t.detector +
                             "\" must lie outside every PML when gradient.method is \"reversible\"");
    }
};

} // namespace

/// The phasor kind (registered in Registry.cpp).
std::unique_ptr<Kind> makePhasorKind() {
    return std::make_unique<PhasorKind>();
}

} // namespace yee::detectors
