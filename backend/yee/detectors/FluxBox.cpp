/// \file FluxBox.cpp
/// The flux_box kind: the net power leaving a closed box through its six faces, each a flux plane on
/// the box's face (outward normal), as one exact time series `flux` and, with wavelengths_um, `power` per
/// wavelength (the sum of the six planes' powers in face order x-, x+, y-, y+, z-, z+). Usable as an
/// objective term (flux: time_integral, final, at_wavelength; phasor_power: at_wavelength) with its
/// adjoint: the six planes' adjoint sources.
#include <memory>

#include "yee/core/Error.hpp"
#include "yee/detectors/Flux.hpp"

namespace yee::detectors {

namespace {

template <class T> class FluxBoxPart : public TilePart<T> {
public:
    FluxBoxPart(const DetectorPlan& dp, solver::Tile<T>& tile) : TilePart<T>(dp, tile) {
        for (const DetectorPlan& face : dp.parts) {
            faces_.push_back(std::make_unique<FluxPlane<T>>(face, dp.omegas, tile));
            owns_ = owns_ || faces_.back()->cells() > 0;
        }
        if (owns_)
            sums_ = device::Buffer<std::int64_t>(tile.device(), std::int64_t(dp.samples) * kSumWords,
                                                 device::Category::Detectors);
    }
    void registerState(solver::TileState& st) override {
        const std::string pre = "detector." + this->plan_.name + ".";
        st.add(pre + "sums", solver::StateRole::Record, sums_);
        for (std::size_t f = 0; f < faces_.size(); ++f)
            st.add(pre + "phasor." + std::to_string(f), solver::StateRole::Record, faces_[f]->phasor());
    }
    void record(int n, FieldAccess<T>& fa) override {
        if (!owns_)
            return;
        const DetectorPlan& dp = this->plan_;
        const bool sample = (n + 1) % dp.every == 0 && (n + 1) / dp.every - 1 < dp.samples;
        // The six faces' cells in one exact sum.
        std::int64_t* sum =
            sample ? sums_.data() + std::int64_t((n + 1) / dp.every - 1) * kSumWords : nullptr;
        for (auto& f : faces_)
            f->record(n, fa, sum);
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
    void write(ByteWriter& w) const override {
        for (const auto& f : faces_)
            f->write(w);
    }
    std::unique_ptr<TermAdjoint<T>> adjoint(const scene::ObjectiveTerm& t,
                                            const std::string& field) const override {
        const DetectorPlan& dp = this->plan_;
        std::vector<const FluxPlane<T>*> planes;
        for (const auto& f : faces_)
            planes.push_back(f.get());
        if (t.reduce == scene::Reduce::AtWavelength || t.quantity == scene::Quantity::PhasorPower) {
            if (dp.wavelengths.empty())
                throw InputError(field + ".detector: \"" + dp.name + "\" has no wavelengths_um");
            return std::make_unique<FluxPhasorAdjoint<T>>(
                t, int(nearestWavelength(dp.wavelengths, t.wavelength)), planes);
        }
        return std::make_unique<FluxSeriesAdjoint<T>>(dp, t, planes, this->tile_.plan().dt);
    }

private:
    std::vector<std::unique_ptr<FluxPlane<T>>> faces_;
    bool owns_ = false;                 ///< some face has cells on this tile
    device::Buffer<std::int64_t> sums_; ///< exact sums per sample over all six faces
};

class FluxBoxKind : public KindOf<FluxBoxPart> {
public:
    std::string type() const override { return "flux_box"; }
    scene::DetectorType sceneType() const override { return scene::DetectorType::FluxBox; }
    DetectorPlan plan(const scene::Detector& d, int index, const solver::Plan& p) const override {
        DetectorPlan dp = commonPlan(d, index, p);
        for (int a = 0; a < 3; ++a)
            for (int dir : {-1, +1}) {
                scene::Detector face = d;
                face.name = d.name + "." + "xyz"[a] + (dir > 0 ? "+" : "-");
                face.normal = a;
                face.direction = dir;
                face.center[a] = d.center[a] + dir * 0.5 * d.size[a];
                face.size[a] = 0;
                dp.parts.push_back(planFluxPlane(face, index, p));
            }
        return dp;
    }
    std::int64_t sumWords(const DetectorPlan& dp) const override {
        return std::int64_t(dp.samples) * kSumWords;
    }
    void assemble(const DetectorPlan& dp, Gathered& g, solver::DetectorResult& res) const override {
        const std::int64_t nl = std::int64_t(dp.omegas.size());
        std::vector<double> power(std::size_t(nl), 0.0);
        for (const DetectorPlan& face : dp.parts) {
            const std::vector<double> pf = FluxPlane<double>::power(face, nl, g.parts);
            for (std::size_t w = 0; w < power.size(); ++w)
                power[w] += pf[w];
        }
        res.arrays.push_back(timeAxis(dp, g.plan, g.done));
        res.arrays.push_back(exactSeries(dp, g.sums, g.done, "flux"));
        res.arrays.push_back(solver::NamedArray{"wavelengths_um", {nl}, dp.wavelengths});
        res.arrays.push_back(solver::NamedArray{"power", {nl}, power});
    }
    double objective(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::DetectorResult& res,
                     const solver::Plan& p) const override {
        return fluxObjective(dp, t, res, p);
    }
    void checkGradient(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::Plan& p,
                       bool reversible, const std::string& field) const override {
        for (const DetectorPlan& face : dp.parts)
            checkFluxPlaneGradient(face, dp.name, p, reversible, field);
    }
};

} // namespace

/// The flux_box kind (registered in Registry.cpp).
std::unique_ptr<Kind> makeFluxBoxKind() {
    return std::make_unique<FluxBoxKind>();
}

} // namespace yee::detectors
