/// \file ModeMonitor.cpp
/// The mode_monitor kind, a plug-in: it declares its own scene keys and objective rules (declare()) and
/// needs nothing outside this file but its line in Registry.cpp.
///
/// It records, on a port plane (an E plane like a flux plane), the running DFT phasors of the transverse
/// E on the plane and of H averaged over the two half-cells around it (FluxPlane), and at assembly expands
/// them in the modes the mode solver (modes/ModeSolver.hpp) finds on the plane's cross-section at each
/// wavelength. With the unconjugated overlaps <E, h> = sum (E_u h_w - E_w h_u) and <e, H> of the real,
/// unit-normalised mode (e, h), a forward (+) and backward (-) mode give E = (a+ + a-) e and
/// Hbar = cos(beta / 2) (a+ - a-) h on the plane, so
///   a+- = (<E, h_m> +- <e_m, Hbar> / cos(beta_m / 2)) / 2,
/// "forward" being the monitor's direction. The power in a mode is P+- = cos(beta / 2) |a+-|^2 / 2, the
/// flux detector's measure of that mode alone. Objective quantity mode_power (at_wavelength): P+ of the
/// first mode, with its exact adjoint.
#include <cmath>
#include <complex>
#include <memory>
#include <optional>

#include "yee/core/Error.hpp"
#include "yee/detectors/Flux.hpp"
#include "yee/modes/ModeCache.hpp"
#include "yee/modes/PortRequest.hpp"
#include "yee/solver/ModeSource.hpp"

namespace yee::detectors {

namespace {

using cplx = std::complex<double>;

/// The scene detector of a plan.
const scene::Detector& sceneDetector(const DetectorPlan& dp, const solver::Plan& p) {
    return p.scene.detectors[std::size_t(dp.index)];
}

/// The modes of the monitor's cross-section at wavelength `wl` (index into dp.omegas).
std::shared_ptr<const modes::ModeSet> monitorModes(const DetectorPlan& dp, const solver::Plan& p,
                                                   std::size_t wl, int count) {
    const modes::ModeRequest q =
        modes::monitorRequest(p.scene, std::size_t(dp.index), dp.normal, dp.box, dp.omegas, wl, p.dt, count);
    return p.modeCache->get(*p.raster, q, "detectors[" + std::to_string(dp.index) + "].modes");
}

/// <E, h> and <e, Hbar> of mode `m` over phasor cells [cell][Ep, Eq, Hpbar, Hqbar][re, im] of `box`
/// (global cells, x fastest), for wavelength `wl` of `nl`.
std::pair<cplx, cplx> overlaps(const modes::Mode& m, const DetectorPlan& dp, const Box& box, const double* ph,
                               std::int64_t nl, std::int64_t wl) {
    const int a = dp.normal, u = (a + 1) % 3, w = (a + 2) % 3;
    const Box& mb = dp.box;
    cplx eh = 0, he = 0;
    std::int64_t idx = 0;
    for (int k = box.lo[2]; k < box.hi[2]; ++k)
        for (int j = box.lo[1]; j < box.hi[1]; ++j)
            for (int i = box.lo[0]; i < box.hi[0]; ++i, ++idx) {
                const Index3 g{i, j, k};
                const int iu = g[u] - mb.lo[u], iw = g[w] - mb.lo[w];
                const double* c = ph + (idx * nl + wl) * 8;
                const cplx Ep(c[0], c[1]), Eq(c[2], c[3]), Hp(c[4], c[5]), Hq(c[6], c[7]);
                eh += Ep * m.at(3 + w, iu, iw) - Eq * m.at(3 + u, iu, iw);
                he += m.at(u, iu, iw) * Hq - m.at(w, iu, iw) * Hp;
            }
    return {eh, he};
}

/// The adjoint of weight * P+ of mode 0 at one wavelength, on the tile that holds the whole plane.
template <class T> class ModePowerAdjoint : public TermAdjoint<T> {
public:
    ModePowerAdjoint(FluxPlane<T>& plane, const DetectorPlan& dp, const solver::Plan& p, int wl,
                     double weight)
        : plane_(plane), dp_(dp), dt_(p.dt), wl_(wl), weight_(weight) {
        if (plane.cells() > 0) // only the tile holding the plane solves (the cache shares it)
            modes_ = monitorModes(dp, p, std::size_t(wl), 1);
    }
    std::vector<FieldPoint> sources() const override {
        std::vector<FieldPoint> out;
        plane_.phasorSources(out); // per cell: E_p(l), E_q(l), H_q(m), H_q(l), H_p(m), H_p(l)
        return out;
    }
    void addSources(int n, const T*, const T*, const AdjointSink<T>& sink) const override {
        if (!modes_)
            return;
        const modes::Mode& m = modes_->modes[0];
        const double c = std::cos(m.beta / 2);
        const std::int64_t nl = std::int64_t(dp_.omegas.size());
        // The forward phasors are complete during the reverse sweep: a+ once, from this tile's plane (the
        // whole plane, checkGradient()).
        if (!aplus_) {
            const auto [eh, he] = overlaps(m, dp_, plane_.own(), plane_.hostPhasor(), nl, wl_);
            const double s = dp_.sign;
            aplus_ = 0.5 * (eh + s * he / c);
        }
        // J = w c |a|^2 / 2, dJ/dx = w c Re(conj(a) da/dx); a = (<E, h> + s <e, Hbar> / c) / 2 with
        // X = sum_n x_n dt exp(i omega t_n), Hbar = (H(m) + H(l)) / 2.
        const double dt = dt_;
        const double om = dp_.omegas[std::size_t(wl_)];
        const cplx wE = std::polar(dt, om * (n + 1) * dt), wH = std::polar(dt, om * (n + 0.5) * dt);
        const double f = weight_ * c;
        const cplx ca = std::conj(*aplus_);
        const double gE = 0.5, gH = 0.25 * dp_.sign / c; // da/dE = gE h, da/dH = gH e (per H sample)
        const int a = dp_.normal, u = (a + 1) % 3, w = (a + 2) % 3;
        const Box& own = plane_.own();
        int loc = 0;
        for (int k = own.lo[2]; k < own.hi[2]; ++k)
            for (int j = own.lo[1]; j < own.hi[1]; ++j)
                for (int i = own.lo[0]; i < own.hi[0]; ++i, loc += 6) {
                    const Index3 g{i, j, k};
                    const int iu = g[u] - dp_.box.lo[u], iw = g[w] - dp_.box.lo[w];
                    const double hp = m.at(3 + u, iu, iw), hq = m.at(3 + w, iu, iw);
                    const double ep = m.at(u, iu, iw), eq = m.at(w, iu, iw);
                    sink.addE(loc, f * (ca * wE).real() * gE * hq);
                    sink.addE(loc + 1, -f * (ca * wE).real() * gE * hp);
                    const double dq = f * (ca * wH).real() * gH * ep, dp = -f * (ca * wH).real() * gH * eq;
                    sink.addH(loc + 2, dq);
                    sink.addH(loc + 3, dq);
                    sink.addH(loc + 4, dp);
                    sink.addH(loc + 5, dp);
                }
    }

private:
    FluxPlane<T>& plane_;
    const DetectorPlan& dp_;
    double dt_;
    int wl_;
    double weight_;
    std::shared_ptr<const modes::ModeSet> modes_;
    mutable std::optional<cplx> aplus_;
};

template <class T> class ModeMonitorPart : public TilePart<T> {
public:
    ModeMonitorPart(const DetectorPlan& dp, solver::Tile<T>& tile)
        : TilePart<T>(dp, tile), plane_(std::make_unique<FluxPlane<T>>(dp, dp.omegas, tile)) {}
    std::int64_t stageCells() const override { return solver::Tile<T>::regionCells(plane_->regions()); }
    void registerState(solver::TileState& st) override {
        st.add("detector." + this->plan_.name + ".phasor", solver::StateRole::Record, plane_->phasor());
    }
    void record(int n, FieldAccess<T>& f) override { plane_->record(n, f, nullptr); }
    void write(ByteWriter& w) const override { plane_->write(w); }
    std::unique_ptr<TermAdjoint<T>> adjoint(const scene::ObjectiveTerm& t,
                                            const std::string&) const override {
        const DetectorPlan& dp = this->plan_;
        return std::make_unique<ModePowerAdjoint<T>>(
            *plane_, dp, this->tile_.plan(), int(nearestWavelength(dp.wavelengths, t.wavelength)), t.weight);
    }

private:
    std::unique_ptr<FluxPlane<T>> plane_; ///< the recorded plane (the adjoint reads its phasors)
};

class ModeMonitorKind : public KindOf<ModeMonitorPart> {
public:
    std::string type() const override { return "mode_monitor"; }

    std::optional<scene::DetectorKindSpec> declare() const override {
        using scene::KeyType;
        scene::DetectorKindSpec k;
        k.name = "mode_monitor";
        k.label = "Mode monitor";
        k.help = "forward and backward amplitudes of the waveguide modes on a port plane";
        scene::KeySpec modes = scene::detectorParamKey("modes", KeyType::Integer, "Modes", "",
                                                       "Number of modes expanded, largest n_eff first", 1);
        modes.range.lo = 1;
        modes.range.hi = 32;
        scene::KeySpec guess =
            scene::detectorParamKey("n_guess", KeyType::Number, "n_eff guess", "",
                                    "0: the modes of largest n_eff; > 0: the modes nearest this n_eff", 0.0);
        guess.range.lo = 0;
        scene::KeySpec pml = scene::detectorParamKey(
            "port_pml_cells", KeyType::Integer, "Port PML", "cells",
            "0: modes solved between PEC walls at the plane's edges; > 0: with a PML this thick outside them",
            0);
        pml.range.lo = 0;
        pml.range.hi = 64;
        scene::KeySpec each = scene::detectorParamKey(
            "solve_each_wavelength", KeyType::Boolean, "Solve each wavelength", "",
            "true: the modes are re-solved at every monitor wavelength (n_eff and profile follow the guide's "
            "dispersion); false: one solve at the source's centre wavelength, as a broadband mode source "
            "launches",
            true);
        scene::KeySpec port =
            scene::detectorParamKey("port", KeyType::String, "Port", "",
                                    "Name of the S-parameter port this plane is (empty: none); its direction "
                                    "points into the device, and a mode source of the same name excites it",
                                    std::string());
        k.keys = {scene::detectorRegionKey(),
                  scene::detectorDirectionKey("Forward direction of the port (a+ travels this way)"),
                  scene::detectorWavelengthsKey(true),
                  modes,
                  guess,
                  pml,
                  each,
                  port};
        k.insideDomain = false;
        k.check = [](const scene::DetectorCheck& c) {
            c.plane("mode monitor");
            c.planeInInterior("mode monitor");
            const scene::Detector& d = c.detector();
            // Every wavelength inside some source's spectrum (FWHM around a pulse's centre, a CW's own).
            for (std::size_t w = 0; w < d.wavelengths.size(); ++w) {
                bool lit = c.scene().sources.empty();
                for (const scene::Source& src : c.scene().sources) {
                    const scene::Profile& pr = src.profile;
                    const double half =
                        pr.type == scene::ProfileType::Cw ? 1e-9 * pr.wavelength : pr.bandwidth;
                    lit = lit || std::fabs(d.wavelengths[w] - pr.wavelength) <= half;
                }
                if (!lit)
                    c.fail("wavelengths_um[" + std::to_string(w) + "]",
                           "lies outside every source's spectrum (centre +- bandwidth_um)");
            }
            // Ports: unique names, one wavelength list for all (the S-matrix is tabulated on it).
            const std::string name = scene::detectorParam<std::string>(d, "port");
            if (!name.empty())
                for (const scene::Detector& o : c.scene().detectors) {
                    if (&o == &d)
                        break;
                    if (o.type != d.type || scene::detectorParam<std::string>(o, "port").empty())
                        continue;
                    if (scene::detectorParam<std::string>(o, "port") == name)
                        c.fail("port",
                               "port \"" + name + "\" is named by detector \"" + o.name + "\" already");
                    if (o.wavelengths != d.wavelengths)
                        c.fail("wavelengths_um", "every port lists the same wavelengths (port detector \"" +
                                                     o.name + "\" lists others)");
                }
            for (const scene::Design& g : c.scene().designs) {
                bool touch = true;
                for (int a = 0; a < 3; ++a)
                    touch = touch && d.center[a] + 0.5 * d.size[a] >= g.center[a] - 0.5 * g.size[a] &&
                            g.center[a] + 0.5 * g.size[a] >= d.center[a] - 0.5 * d.size[a];
                if (touch)
                    c.fail("center_um",
                           "the mode monitor plane crosses design \"" + g.name +
                               "\"; its modes would depend on the design (move the port out of it)");
            }
        };
        k.quantities = {{"mode_power", "Mode power",
                         "power of the first mode travelling forward through a mode "
                         "monitor",
                         scene::Reduce::AtWavelength}};
        k.objective = {{"mode_power", {scene::Reduce::AtWavelength}}};
        return k;
    }

    DetectorPlan plan(const scene::Detector& d, int index, const solver::Plan& p) const override {
        DetectorPlan dp = planFluxPlane(d, index, p);
        // Solve every wavelength's modes now (cached for assembly): a plane that guides too few modes or
        // cuts no core is refused before the run.
        const int M = scene::detectorParam<int>(d, "modes");
        for (std::size_t w = 0; w < dp.omegas.size(); ++w) {
            const auto set = monitorModes(dp, p, w, M);
            if (set->homogeneous && !solver::onPecWalls(p, set->request))
                throw InputError(
                    "detectors[" + std::to_string(index) +
                    "]: the mode monitor's plane cuts no waveguide core (its cross-section is one "
                    "material)");
        }
        return dp;
    }

    void assemble(const DetectorPlan& dp, Gathered& g, solver::DetectorResult& res) const override {
        const std::int64_t nl = std::int64_t(dp.omegas.size());
        const int M = scene::detectorParam<int>(sceneDetector(dp, g.plan), "modes");
        const std::vector<double> ph = gatherCells(dp.box, nl * 8, g.parts);
        std::vector<double> neff, apr, api, amr, ami, pp, pm;
        for (std::int64_t w = 0; w < nl; ++w) {
            const auto set = monitorModes(dp, g.plan, std::size_t(w), M);
            for (int m = 0; m < M; ++m) {
                const modes::Mode& md = set->modes[std::size_t(m)];
                const double c = std::cos(md.beta / 2);
                const auto [eh, he] = overlaps(md, dp, dp.box, ph.data(), nl, w);
                const cplx ap = 0.5 * (eh + double(dp.sign) * he / c),
                           am = 0.5 * (eh - double(dp.sign) * he / c);
                neff.push_back(md.neff);
                apr.push_back(ap.real());
                api.push_back(ap.imag());
                amr.push_back(am.real());
                ami.push_back(am.imag());
                pp.push_back(0.5 * c * std::norm(ap));
                pm.push_back(0.5 * c * std::norm(am));
            }
        }
        const std::vector<std::int64_t> shape{nl, std::int64_t(M)};
        res.arrays.push_back(solver::NamedArray{"wavelengths_um", {nl}, dp.wavelengths});
        res.arrays.push_back(solver::NamedArray{"neff", shape, neff});
        res.arrays.push_back(solver::NamedArray{"a_plus_re", shape, apr});
        res.arrays.push_back(solver::NamedArray{"a_plus_im", shape, api});
        res.arrays.push_back(solver::NamedArray{"a_minus_re", shape, amr});
        res.arrays.push_back(solver::NamedArray{"a_minus_im", shape, ami});
        res.arrays.push_back(solver::NamedArray{"power_plus", shape, pp});
        res.arrays.push_back(solver::NamedArray{"power_minus", shape, pm});
        res.attrs["normal"] = dp.normal;
        res.attrs["sign"] = dp.sign;
    }

    double objective(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::DetectorResult& res,
                     const solver::Plan&) const override {
        const solver::NamedArray* pp = res.find("power_plus");
        const std::size_t M = std::size_t(pp->shape[1]);
        return pp->data[nearestWavelength(dp.wavelengths, t.wavelength) * M];
    }

    void checkGradient(const DetectorPlan& dp, const scene::ObjectiveTerm&, const solver::Plan& p,
                       bool reversible, const std::string& field) const override {
        checkFluxPlaneGradient(dp, dp.name, p, reversible, field);
        Box reach = dp.box;
        reach.lo[dp.normal] -= 1;
        for (int t = 0; t < p.tiles->count(); ++t) {
            const Box in = reach.intersect(p.tiles->tile(t).box);
            if (!in.empty() && !(in == reach))
                throw InputError(
                    field + ".detector: mode monitor \"" + dp.name +
                    "\" must lie within one tile to be differentiated (its mode amplitude is a sum "
                    "over the whole plane); change run.tiles");
        }
    }
};

} // namespace

/// The mode_monitor kind (registered in Registry.cpp).
std::unique_ptr<Kind> makeModeMonitorKind() {
    return std::make_unique<ModeMonitorKind>();
}

} // namespace yee::detectors
