#include "yee/gradient/GradientDriver.hpp"

#include <cmath>
#include <complex>
#include <map>
#include <utility>

#include "yee/core/Error.hpp"
#include "yee/scene/Rasterizer.hpp"

namespace yee::gradient {

using solver::DetectorPlan;
using solver::Plan;

namespace {
const char* axisName(int a) {
    return a == 0 ? "x" : (a == 1 ? "y" : "z");
}

bool inside(const Box& inner, const Box& outer) {
    for (int a = 0; a < 3; ++a)
        if (inner.lo[a] < outer.lo[a] || inner.hi[a] > outer.hi[a])
            return false;
    return true;
}
} // namespace

GradientPlan makeGradientPlan(const Plan& p) {
    const scene::Scene& s = p.scene;
    const scene::GradientConfig& g = s.gradient;
    GradientPlan gp;
    gp.method = g.method;
    gp.numCheckpoints = g.numCheckpoints;
    gp.numCheckpointsReversible = g.numCheckpointsReversible;
    gp.tier = g.tier;
    gp.transferInterval = g.transferInterval;
    gp.ringBuffers = g.ringBuffers;
    gp.diskPath = g.diskPath;
    if (!s.objective.defined())
        throw InputError("objective.terms: a gradient run needs an objective");
    if (s.designs.empty())
        throw InputError("designs: a gradient run needs at least one design region");
    if (gp.method == scene::GradientMethod::Checkpointed && gp.numCheckpoints < 1)
        throw InputError("gradient.num_checkpoints: must be >= 1 for method checkpointed");
    if (gp.numCheckpointsReversible < 0)
        throw InputError("gradient.num_checkpoints_reversible: must be >= 0");
    for (std::size_t i = 0; i < g.recorder.size(); ++i) {
        const auto& m = g.recorder[i];
        const std::string f = "gradient.recorder[" + std::to_string(i) + "]";
        if (gp.method != scene::GradientMethod::Reversible)
            throw InputError(f + ".module: recorder modules apply to method \"reversible\" only");
        if (m.module == "LinearReconstructEveryK") {
            if (m.k < 1)
                throw InputError(f + ".k: must be >= 1");
            if (m.startAfter < 0)
                throw InputError(f + ".start_after: must be >= 0");
            gp.everyK = m.k;
            gp.startAfter = m.startAfter;
        } else if (m.module == "DtypeConversion") {
            gp.dtype = parseDtype(m.dtype, f + ".dtype");
        } else {
            throw InputError(f + ".module: unknown module \"" + m.module + "\"");
        }
    }
    if (gp.tier != "device" && gp.tier != "host" && gp.tier != "disk")
        throw InputError("gradient.storage.tier: unknown tier \"" + gp.tier + "\" (device, host, disk)");
    if (gp.tier != "device" && gp.method != scene::GradientMethod::Reversible)
        throw InputError("gradient.storage.tier: \"" + gp.tier +
                         "\" stages the recorder of method \"reversible\" only");
    if (gp.tier != "device" && gp.ringBuffers < 3)
        throw InputError("gradient.storage.ring_buffers: staging needs at least 3 ring slots (writing, "
                         "reading, read-ahead)");
    // Design regions: lossless, non-magnetic materials (dJ/deps flows through Cb only).
    for (std::size_t d = 0; d < s.designs.size(); ++d)
        for (int q = 0; q < 2; ++q) {
            const scene::Material* m = s.findMaterial(s.designs[d].materials[q]);
            if (m && (m->sigma != 0 || m->mu != 1))
                throw InputError("designs[" + std::to_string(d) + "].materials[" + std::to_string(q) +
                                 "]: design materials must be lossless and non-magnetic (sigma = 0, mu = 1)");
        }
    // Tile cuts must stay clear of the PML slabs along their axis (the CPML adjoint is tile-local).
    const auto& tg = *p.tiles;
    for (int a = 0; a < 3; ++a) {
        if (p.bc[a] != tiling::AxisBoundary::Pml)
            continue;
        const int d = p.pml[a].cells, N = p.geom.cells[a];
        for (int t = 0; t < tg.count(); ++t) {
            const Box& b = tg.tile(t).box;
            for (int c : {b.lo[a], b.hi[a]}) {
                if (c == 0 || c == N)
                    continue;
                if (c < d + 1 || c > N - d - 1)
                    throw InputError("run.tiles[" + std::to_string(a) + "]: a tile cut at " + axisName(a) +
                                     " = " + std::to_string(c) + " cells lies in or next to the " +
                                     axisName(a) + " PML (" + std::to_string(d) +
                                     " cells); gradient runs need the first and last tiles at least " +
                                     std::to_string(d + 1) + " cells thick");
            }
        }
    }
    // A flux plane of the objective must not sit on a tile cut along its normal: its H average reaches
    // one cell upstream, and that cell's adjoint source would land in another tile's halo.
    for (const auto& term : s.objective.terms)
        for (const auto& dp : p.detectors) {
            if (dp.name != term.detector || dp.type != scene::DetectorType::Flux)
                continue;
            for (int t = 0; t < tg.count(); ++t)
                if (tg.tile(t).box.lo[dp.normal] == dp.box.lo[dp.normal])
                    throw InputError("run.tiles[" + std::to_string(dp.normal) + "]: a tile cut at " +
                                     axisName(dp.normal) + " = " + std::to_string(dp.box.lo[dp.normal]) +
                                     " cells coincides with the flux plane of objective detector \"" +
                                     dp.name + "\"; move the plane by a cell or change the tile grid");
        }
    const Box interior = p.scene.interiorCells();
    const scene::Rasterizer& r = *p.raster;
    for (std::size_t si = 0; si < p.scene.sources.size(); ++si) {
        for (const auto& inj : p.injections) {
            if (inj.source != int(si))
                continue;
            for (const Index3& c : inj.cells) {
                if (r.designAt(c[0], c[1], c[2]).region >= 0)
                    throw InputError("sources[" + std::to_string(si) + "]: lies inside a design region");
                if (gp.method == scene::GradientMethod::Reversible && !interior.contains(c))
                    throw InputError("sources[" + std::to_string(si) +
                                     "]: must lie outside every PML when gradient.method is \"reversible\"");
            }
        }
    }
    for (int d = 0; d < r.designCount(); ++d)
        if (gp.method == scene::GradientMethod::Reversible && !inside(r.designBox(d), interior))
            throw InputError("designs[" + std::to_string(d) +
                             "]: must lie outside every PML when gradient.method is \"reversible\"");
    for (std::size_t t = 0; t < s.objective.terms.size(); ++t) {
        const auto& term = s.objective.terms[t];
        const std::string f = "objective.terms[" + std::to_string(t) + "]";
        const DetectorPlan* dp = nullptr;
        for (const auto& d : p.detectors)
            if (d.name == term.detector)
                dp = &d;
        if (!dp)
            throw InputError(f + ".detector: unknown detector \"" + term.detector + "\"");
        const bool flux = dp->type == scene::DetectorType::Flux,
                   energy = dp->type == scene::DetectorType::Energy;
        if (!flux && !energy)
            throw InputError(f + ".detector: gradients support flux and energy detectors (\"" +
                             term.detector + "\" is neither)");
        if (energy &&
            (term.reduce == scene::Reduce::AtWavelength || term.quantity == scene::Quantity::PhasorPower))
            throw InputError(f + ".reduce: energy terms support time_integral and final");
        Box reach = dp->box;
        if (flux)
            reach.lo[dp->normal] -= 1; // the H average reaches one cell upstream
        if (gp.method == scene::GradientMethod::Reversible && !inside(reach, interior))
            throw InputError(f + ".detector: \"" + term.detector +
                             "\" must lie outside every PML when gradient.method is \"reversible\"");
        if (energy)
            for (int d = 0; d < r.designCount(); ++d)
                if (!dp->box.intersect(r.designBox(d)).empty())
                    throw InputError(f + ".detector: energy box \"" + term.detector +
                                     "\" overlaps a design region");
    }
    return gp;
}

template <class T>
GradientDriver<T>::GradientDriver(solver::Tile<T>& tile, const GradientPlan& gp)
    : tile_(tile), plan_(tile.plan()), stepper_(tile), adj_(stepper_.fields()), design_(tile) {
    buildPoints();
    cap_.pts = points_;
    cap_.prepare(tile.device());
    buildSources();
    src_.prepare(tile.device());
    forward_ = makeForwardState<T>(gp, *this);
}

template <class T> GradientDriver<T>::~GradientDriver() = default;

template <class T> void GradientDriver<T>::buildPoints() {
    const Box& tb = tile_.box();
    const ArrayShape& sh = tile_.shape();
    auto off = [&](int i, int j, int k) { return sh.offset(i - tb.lo[0], j - tb.lo[1], k - tb.lo[2]); };
    // Design cells owned (E locations, all three components): the first capture points.
    design_.appendPoints(points_);
    // Objective detectors: the fields each time-domain term reads.
    std::vector<int> detBase(plan_.detectors.size(), -1);
    const auto& terms = plan_.scene.objective.terms;
    for (const auto& term : terms) {
        int di = 0;
        for (std::size_t q = 0; q < plan_.detectors.size(); ++q)
            if (plan_.detectors[q].name == term.detector)
                di = int(q);
        const DetectorPlan& dp = plan_.detectors[std::size_t(di)];
        const Box own = dp.box.intersect(tb);
        Term t;
        t.det = di;
        t.weight = term.weight;
        t.final = term.reduce == scene::Reduce::Final;
        t.cells = own.empty() ? 0 : int(own.cells());
        if (dp.type == scene::DetectorType::Flux &&
            (term.reduce == scene::Reduce::AtWavelength || term.quantity == scene::Quantity::PhasorPower)) {
            t.kind = 1;
            std::size_t best = 0;
            for (std::size_t w = 1; w < dp.wavelengths.size(); ++w)
                if (std::abs(dp.wavelengths[w] - term.wavelength) <
                    std::abs(dp.wavelengths[best] - term.wavelength))
                    best = w;
            t.wl = int(best);
            if (dp.wavelengths.empty())
                throw InputError("objective.terms: detector \"" + dp.name + "\" has no wavelengths_um");
        } else {
            t.kind = dp.type == scene::DetectorType::Flux ? 0 : 2;
            if (detBase[std::size_t(di)] < 0 && !own.empty()) {
                detBase[std::size_t(di)] = int(points_.size());
                const int a = dp.normal, pa = (a + 1) % 3, qa = (a + 2) % 3;
                for (int k = own.lo[2]; k < own.hi[2]; ++k)
                    for (int j = own.lo[1]; j < own.hi[1]; ++j)
                        for (int i = own.lo[0]; i < own.hi[0]; ++i) {
                            if (t.kind == 0) {
                                Index3 m{i, j, k};
                                m[a] -= 1;
                                points_.push_back({pa, off(i, j, k)});
                                points_.push_back({qa, off(i, j, k)});
                                points_.push_back({3 + pa, off(m[0], m[1], m[2])});
                                points_.push_back({3 + pa, off(i, j, k)});
                                points_.push_back({3 + qa, off(m[0], m[1], m[2])});
                                points_.push_back({3 + qa, off(i, j, k)});
                            } else {
                                for (int c = 0; c < 6; ++c)
                                    points_.push_back({c, off(i, j, k)});
                            }
                        }
            }
            t.base = detBase[std::size_t(di)];
        }
        terms_.push_back(t);
    }
    pendingEnergy_.assign(points_.size(), 0.0);
}

template <class T>
void GradientDriver<T>::gather(PointSet& ps, typename solver::Tile<T>::FieldSet& s, std::int64_t count,
                               std::vector<T>& out) {
    ps.gather(tile_.device(), s, count, out);
}

template <class T>
void GradientDriver<T>::scatter(PointSet& ps, typename solver::Tile<T>::FieldSet& s,
                                const std::vector<T>& in) {
    ps.scatter(tile_.device(), s, in);
}

template <class T> void GradientDriver<T>::buildSources() {
    // Every location adjointSources() adds to, once each; repeated adds to one location are applied in
    // their original order to its single host value, so the sums round exactly as direct updates would.
    srcOfPoint_.assign(points_.size(), -1);
    std::map<std::pair<int, std::int64_t>, int> index;
    auto sourceIndex = [&](int comp, std::int64_t off) {
        auto [it, fresh] = index.try_emplace({comp, off}, int(src_.pts.size()));
        if (fresh)
            src_.pts.push_back({comp, off});
        return it->second;
    };
    const ArrayShape& sh = tile_.shape();
    const Box& tb = tile_.box();
    for (Term& t : terms_) {
        if (t.cells == 0)
            continue;
        if (t.kind == 1) {
            const DetectorPlan& dp = plan_.detectors[std::size_t(t.det)];
            const int a = dp.normal, pa = (a + 1) % 3, qa = (a + 2) % 3;
            const Box own = dp.box.intersect(tb);
            for (int k = own.lo[2]; k < own.hi[2]; ++k)
                for (int j = own.lo[1]; j < own.hi[1]; ++j)
                    for (int i = own.lo[0]; i < own.hi[0]; ++i) {
                        const Index3 l{i - tb.lo[0], j - tb.lo[1], k - tb.lo[2]};
                        Index3 m = l;
                        m[a] -= 1;
                        const std::int64_t ol = sh.offset(l[0], l[1], l[2]), om = sh.offset(m[0], m[1], m[2]);
                        for (const auto& [c, o] : {std::pair<int, std::int64_t>{pa, ol},
                                                   {qa, ol},
                                                   {3 + qa, om},
                                                   {3 + qa, ol},
                                                   {3 + pa, om},
                                                   {3 + pa, ol}})
                            t.src.push_back(sourceIndex(c, o));
                    }
            continue;
        }
        for (int q = t.base; q < t.base + 6 * t.cells; ++q)
            srcOfPoint_[std::size_t(q)] =
                sourceIndex(points_[std::size_t(q)].comp, points_[std::size_t(q)].off);
    }
}

template <class T> void GradientDriver<T>::capture(std::vector<T>& out) {
    gather(cap_, tile_.forward(), std::int64_t(points_.size()), out);
}

template <class T>
void GradientDriver<T>::adjointSources(int n, const std::vector<T>& after, const std::vector<T>& before) {
    const double dt = plan_.dt;
    gather(src_, adj_, std::int64_t(src_.pts.size()), srcVal_);
    // P += Cb dJ/dE at E locations, Q -= Db dJ/dH at H locations, in the order of the terms.
    auto addE = [&](int idx, double dj) { srcVal_[std::size_t(idx)] += T(srcCoef_[std::size_t(idx)] * dj); };
    auto addH = [&](int idx, double dj) { srcVal_[std::size_t(idx)] -= T(srcCoef_[std::size_t(idx)] * dj); };
    // Energy contributions dW(n+1)/dE^{n+1} carried from the previous reverse step.
    for (std::size_t q = 0; q < points_.size(); ++q)
        if (pendingEnergy_[q] != 0) {
            addE(srcOfPoint_[q], pendingEnergy_[q]);
            pendingEnergy_[q] = 0;
        }
    for (const Term& t : terms_) {
        if (t.cells == 0)
            continue;
        const DetectorPlan& dp = plan_.detectors[std::size_t(t.det)];
        if (t.kind == 1) {
            // P(lambda) = sign sum 0.5 Re(Ep conj(Hq) - Eq conj(Hp)), X = sum_n x_n w_n.
            const auto& td = tile_.detectors()[std::size_t(t.det)];
            const std::int64_t nl = std::int64_t(dp.omegas.size());
            const double om = dp.omegas[std::size_t(t.wl)];
            const std::complex<double> wE = std::polar(dt, om * (n + 1) * dt),
                                       wH = std::polar(dt, om * (n + 0.5) * dt);
            const double s = t.weight * dp.sign * 0.5;
            for (std::int64_t idx = 0; idx < t.cells; ++idx) {
                const double* ph = td.phasor.data() + (idx * nl + t.wl) * 8;
                const std::complex<double> Ep(ph[0], ph[1]), Eq(ph[2], ph[3]), Hp(ph[4], ph[5]),
                    Hq(ph[6], ph[7]);
                const int* loc = t.src.data() + 6 * idx; // E_p(l), E_q(l), H_q(m), H_q(l), H_p(m), H_p(l)
                addE(loc[0], s * (wE * std::conj(Hq)).real());
                addE(loc[1], -s * (wE * std::conj(Hp)).real());
                const double dhq = 0.5 * s * (Ep * std::conj(wH)).real();
                const double dhp = -0.5 * s * (Eq * std::conj(wH)).real();
                addH(loc[2], dhq);
                addH(loc[3], dhq);
                addH(loc[4], dhp);
                addH(loc[5], dhp);
            }
            continue;
        }
        // Time-domain terms, on sampled steps only.
        if ((n + 1) % dp.every != 0)
            continue;
        const int smp = (n + 1) / dp.every - 1;
        if (smp >= dp.samples)
            continue;
        if (t.final && smp != dp.samples - 1)
            continue;
        const double alpha = t.final ? t.weight : t.weight * dt * dp.every;
        const int* loc = srcOfPoint_.data();
        if (t.kind == 0) {
            const double s = alpha * dp.sign;
            for (int c = 0; c < t.cells; ++c) {
                const int b = t.base + 6 * c;
                const double ep = after[std::size_t(b)], eq = after[std::size_t(b + 1)];
                const double hpb =
                    0.5 * (double(after[std::size_t(b + 2)]) + double(after[std::size_t(b + 3)]));
                const double hqb =
                    0.5 * (double(after[std::size_t(b + 4)]) + double(after[std::size_t(b + 5)]));
                addE(loc[b], s * hqb);
                addE(loc[b + 1], -s * hpb);
                for (int h = 2; h < 4; ++h)
                    addH(loc[b + h], -0.5 * s * eq);
                for (int h = 4; h < 6; ++h)
                    addH(loc[b + h], 0.5 * s * ep);
            }
        } else {
            // W(n) = 1/2 sum (eps E^n.E^{n+1} + mu |H^{n+1/2}|^2)
            const auto& td = tile_.detectors()[std::size_t(t.det)];
            const std::int64_t cells = t.cells;
            for (int c = 0; c < t.cells; ++c) {
                const int b = t.base + 6 * c;
                for (int q = 0; q < 3; ++q) {
                    const double eps = td.eps[q * cells + c], mu = td.mu[q * cells + c];
                    addE(loc[b + q], alpha * 0.5 * eps * double(before[std::size_t(b + q)]));
                    pendingEnergy_[std::size_t(b + q)] +=
                        alpha * 0.5 * eps * double(after[std::size_t(b + q)]);
                    addH(loc[b + 3 + q], alpha * mu * double(after[std::size_t(b + 3 + q)]));
                }
            }
        }
    }
    scatter(src_, adj_, srcVal_);
}

template <class T>
void GradientDriver<T>::adjointStep(int n, const std::vector<T>& after, const std::vector<T>& before,
                                    comm::Communicator& comm, const std::function<void()>& reconstructH) {
    const auto sources = [&] {
        adjointSources(n, after, before);                // P = Cb dJ/dE^{n+1} complete now
        gather(cap_, adj_, design_.pointCount(), pVal_); // P at the design points (the first capture points)
        design_.accumulate(pVal_, after, before);
    };
    // Reconstructing strategies send the forward halos in the adjoint's groups.
    stepper_.step(comm, bool(reconstructH), sources, reconstructH);
}

template <class T> void GradientDriver<T>::afterForwardStep(int n, comm::Communicator& comm) {
    forward_->afterForwardStep(n, comm);
}

template <class T> void GradientDriver<T>::backward(comm::Communicator& comm) {
    // The update coefficients at the adjoint-source locations (filled after construction).
    tile_.device().sync();
    srcCoef_.resize(src_.pts.size());
    for (std::size_t q = 0; q < src_.pts.size(); ++q) {
        const Point& p = src_.pts[q];
        const std::int64_t e = p.off - tile_.shape().origin;
        srcCoef_[q] = p.comp < 3
                          ? double(tile_.cb(p.comp).p[e])
                          : (plan_.magnetic ? double(tile_.db(p.comp - 3).p[e]) : double(tile_.dbScalar()));
    }
    stepper_.zero();
    forward_->backward(comm);
}

template <class T> void GradientDriver<T>::serialize(ByteWriter& w) const {
    design_.serialize(w);
}

template <class T>
std::vector<solver::NamedArray>
GradientDriver<T>::assembleWith(const Plan& p, std::vector<ByteReader*>& readers,
                                std::vector<std::int64_t>& recomputed, std::vector<double>& drift) {
    return DesignGradient<T>::assemble(p, readers, &recomputed, &drift);
}

template <class T>
std::vector<solver::NamedArray> GradientDriver<T>::assemble(const Plan& p,
                                                            std::vector<ByteReader*>& readers) {
    return DesignGradient<T>::assemble(p, readers, nullptr, nullptr);
}

template class GradientDriver<float>;
template class GradientDriver<double>;

} // namespace yee::gradient
