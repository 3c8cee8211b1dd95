#include "yee/gradient/GradientDriver.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <type_traits>

#include "yee/core/Error.hpp"
#include "yee/detectors/Registry.hpp"
#include "yee/device/Exec.hpp"
#include "yee/kernels/Adjoint.hpp"
#include "yee/kernels/Points.hpp"
#include "yee/kernels/Yee.hpp"
#include "yee/scene/Rasterizer.hpp"

namespace yee::gradient {

using device::Buffer;
using device::Category;
using device::launch;
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
/// Binomial bound of revolve: steps reversible with c checkpoints and r recomputation sweeps.
double beta(int c, int r) {
    double v = 1;
    for (int i = 1; i <= c; ++i)
        v = v * double(r + i) / double(i);
    return v;
}
int revolveSplit(int a, int b, int c) {
    const int l = b - a;
    int r = 1;
    while (beta(c, r) < l)
        ++r;
    int m = a + std::max(1, l - int(std::min(beta(c - 1, r), double(l))));
    return std::clamp(m, a + 1, b - 1);
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
        // What the term's detector kind can differentiate (detectors/Detector.hpp).
        detectors::kindOf(*dp).checkGradient(*dp, term, p, gp.method == scene::GradientMethod::Reversible, f);
    }
    return gp;
}

template <class T>
GradientDriver<T>::GradientDriver(solver::Tile<T>& tile, const detectors::DetectorSet<T>& dets,
                                  const GradientPlan& gp)
    : tile_(tile), dets_(dets), gp_(gp), plan_(tile.plan()) {
    device::Device& dev = tile.device();
    const ArrayShape& sh = tile.shape();
    for (int c = 0; c < 6; ++c)
        adj_.f[c] = Buffer<T>(dev, sh.size, Category::Adjoint);
    tile.buildExchanges(adj_, Category::Adjoint, 6);
    for (const auto& g : {&tile.forward().groupE, &adj_.groupE}) {
        mergedE_.sends.insert(mergedE_.sends.end(), g->sends.begin(), g->sends.end());
        mergedE_.recvs.insert(mergedE_.recvs.end(), g->recvs.begin(), g->recvs.end());
    }
    for (const auto& g : {&tile.forward().groupH, &adj_.groupH}) {
        mergedH_.sends.insert(mergedH_.sends.end(), g->sends.begin(), g->sends.end());
        mergedH_.recvs.insert(mergedH_.recvs.end(), g->recvs.begin(), g->recvs.end());
    }
    for (auto& sl : tile.slabs()) {
        SlabAdj sa;
        const std::int64_t n = sl->slab.box.cells();
        for (int q = 0; q < 2; ++q) {
            sa.psiE[q] = Buffer<T>(dev, n, Category::Adjoint);
            sa.psiH[q] = Buffer<T>(dev, n, Category::Adjoint);
            sa.w[q] = Buffer<T>(dev, n, Category::Adjoint);
        }
        slabAdj_.push_back(std::move(sa));
    }
    buildPoints();
    grad_ = Buffer<double>(dev, std::int64_t(designCells_.size()) * 3, Category::Adjoint);
    const std::int64_t K = std::int64_t(points_.size());
    cap_.pts = points_;
    preparePoints(cap_);
    buildSources();
    preparePoints(src_);
    capA_.assign(std::size_t(K), T(0));
    capB_.assign(std::size_t(K), T(0));
    const int N = plan_.steps;
    if (gp_.method == scene::GradientMethod::Full) {
        history_ = Buffer<T>(dev, std::int64_t(N) * K, Category::Checkpoints);
    } else if (gp_.method == scene::GradientMethod::Checkpointed) {
        const int C = std::max(1, std::min(gp_.numCheckpoints, std::max(1, N - 1)));
        slots_ = Buffer<T>(dev, std::int64_t(C) * stateSize(), Category::Checkpoints);
        for (int q = C - 1; q >= 0; --q)
            freeSlots_.push_back(q);
        gp_.numCheckpoints = C;
        chain_ = chainPositions();
    } else {
        // ---- reversible: the interface layers this tile owns ----
        const Box gI = plan_.scene.interiorCells();
        const Box& tb = tile.box();
        Box own = gI.intersect(tb);
        for (int a = 0; a < 3; ++a) {
            own.lo[a] -= tb.lo[a];
            own.hi[a] -= tb.lo[a];
        }
        interior_ = own;
        for (int a = 0; a < 3; ++a) {
            if (plan_.bc[a] != tiling::AxisBoundary::Pml)
                continue;
            for (int side = 0; side < 2; ++side) {
                const int g = side == 0 ? gI.lo[a] - 1 : gI.hi[a];
                if (g < tb.lo[a] || g >= tb.hi[a])
                    continue;
                Layer L;
                L.box = gI.intersect(tb);
                L.box.lo[a] = g;
                L.box.hi[a] = g + 1;
                if (L.box.empty())
                    continue;
                for (int q = 0; q < 3; ++q) {
                    L.box.lo[q] -= tb.lo[q];
                    L.box.hi[q] -= tb.lo[q];
                }
                const int base = side == 0 ? 3 : 0; // low layers carry H, high layers E
                L.comps[0] = base + (a + 1) % 3;
                L.comps[1] = base + (a + 2) % 3;
                (side == 0 ? layersH_ : layersE_).push_back(L);
                recordLen_ += 2 * L.box.cells();
            }
        }
        for (int which = 0; which < 2; ++which)
            for (const Layer& L : which == 0 ? layersH_ : layersE_)
                for (int c : L.comps)
                    layerRegions_[which].push_back({c, L.box});
        if (dev.staged())
            layerStage_ = Buffer<T>(dev, recordLen_, Category::Staging);
        keptIndex_.assign(std::size_t(std::max(N, 1)), -1);
        for (int n = 0; n < N; ++n) {
            const bool keep = n < gp_.startAfter || (n - gp_.startAfter) % gp_.everyK == 0 || n == N - 1;
            if (keep) {
                keptIndex_[std::size_t(n)] = int(kept_.size());
                kept_.push_back(n);
            }
        }
        store_ = std::make_unique<RecordStore>(dev, recordLen_ * dtypeBytes(gp_.dtype), int(kept_.size()),
                                               gp_.tier, gp_.transferInterval, gp_.ringBuffers, gp_.diskPath);
        const int C = gp_.numCheckpointsReversible;
        for (int j = 1; j <= C; ++j) {
            const int m = int(std::int64_t(j) * N / (C + 1));
            if (m > 0 && m < N)
                revCheckpointSteps_.push_back(m);
        }
        revCheckpoints_ =
            Buffer<T>(dev, std::int64_t(revCheckpointSteps_.size()) * stateSize(), Category::Checkpoints);
    }
}

template <class T> GradientDriver<T>::~GradientDriver() = default;

template <class T> void GradientDriver<T>::buildPoints() {
    const Box& tb = tile_.box();
    const ArrayShape& sh = tile_.shape();
    const scene::Rasterizer& r = *plan_.raster;
    auto off = [&](int i, int j, int k) { return sh.offset(i - tb.lo[0], j - tb.lo[1], k - tb.lo[2]); };
    // Design cells owned (E locations, all three components).
    for (int d = 0; d < r.designCount(); ++d) {
        const Box b = r.designBox(d).intersect(tb);
        if (b.empty())
            continue;
        for (int k = b.lo[2]; k < b.hi[2]; ++k)
            for (int j = b.lo[1]; j < b.hi[1]; ++j)
                for (int i = b.lo[0]; i < b.hi[0]; ++i) {
                    if (r.designAt(i, j, k).region != d)
                        continue;
                    designCells_.push_back(i + std::int64_t(plan_.geom.cells[0]) *
                                                   (j + std::int64_t(plan_.geom.cells[1]) * k));
                    designRegion_.push_back(d);
                    for (int c = 0; c < 3; ++c)
                        points_.push_back({c, off(i, j, k)});
                }
    }
    designPoints_ = int(points_.size());
    // Objective terms: the adjoint of each term from its detector's part on this tile. The fields a
    // detector's terms read are captured once per detector.
    std::vector<int> detBase(plan_.detectors.size(), -1);
    const auto& terms = plan_.scene.objective.terms;
    for (std::size_t ti = 0; ti < terms.size(); ++ti) {
        const auto& term = terms[ti];
        std::size_t di = 0;
        for (std::size_t q = 0; q < plan_.detectors.size(); ++q)
            if (plan_.detectors[q].name == term.detector)
                di = q;
        Term t;
        t.adj = dets_.part(di).adjoint(term, "objective.terms[" + std::to_string(ti) + "]");
        const std::vector<detectors::FieldPoint> cap = t.adj->capture();
        if (!cap.empty()) {
            if (detBase[di] < 0) {
                detBase[di] = int(points_.size());
                for (const auto& fp : cap)
                    points_.push_back({fp.comp, fp.off});
            }
            t.base = detBase[di];
        }
        terms_.push_back(std::move(t));
    }
}

template <class T> void GradientDriver<T>::preparePoints(PointSet& ps) {
    device::Device& dev = tile_.device();
    if (!dev.staged())
        return;
    const std::int64_t n = std::int64_t(ps.pts.size());
    ps.comp = Buffer<int>(dev, n, Category::Staging);
    ps.off = Buffer<std::int64_t>(dev, n, Category::Staging);
    ps.val = Buffer<T>(dev, n, Category::Staging);
    if (dev.dryRun())
        return;
    for (std::int64_t q = 0; q < n; ++q) {
        ps.comp[q] = ps.pts[std::size_t(q)].comp;
        ps.off[q] = ps.pts[std::size_t(q)].off;
    }
}

template <class T>
void GradientDriver<T>::gather(PointSet& ps, typename solver::Tile<T>::FieldSet& s, std::int64_t count,
                               std::vector<T>& out) {
    out.resize(std::max(out.size(), std::size_t(count)));
    device::Device& dev = tile_.device();
    if (!dev.staged()) {
        for (std::int64_t q = 0; q < count; ++q) {
            const Point& p = ps.pts[std::size_t(q)];
            out[std::size_t(q)] = s.f[std::size_t(p.comp)][p.off];
        }
        return;
    }
    if (count <= 0)
        return;
    kernels::GatherPoints<T> k{s.f[0].data(), s.f[1].data(),  s.f[2].data(), s.f[3].data(), s.f[4].data(),
                               s.f[5].data(), ps.comp.data(), ps.off.data(), ps.val.data()};
    device::launchIndex(dev, count, 1, k);
    dev.copy(out.data(), ps.val.data(), count * std::int64_t(sizeof(T)));
}

template <class T>
void GradientDriver<T>::scatter(PointSet& ps, typename solver::Tile<T>::FieldSet& s,
                                const std::vector<T>& in) {
    const std::int64_t n = std::int64_t(ps.pts.size());
    device::Device& dev = tile_.device();
    if (!dev.staged()) {
        for (std::int64_t q = 0; q < n; ++q) {
            const Point& p = ps.pts[std::size_t(q)];
            s.f[std::size_t(p.comp)][p.off] = in[std::size_t(q)];
        }
        return;
    }
    if (n <= 0)
        return;
    dev.copy(ps.val.data(), in.data(), n * std::int64_t(sizeof(T)));
    kernels::ScatterPoints<T> k{s.f[0].data(), s.f[1].data(),  s.f[2].data(), s.f[3].data(), s.f[4].data(),
                                s.f[5].data(), ps.comp.data(), ps.off.data(), ps.val.data()};
    device::launchIndex(dev, n, 1, k);
}

template <class T> void GradientDriver<T>::buildSources() {
    // Every location adjointSources() adds to, once each; repeated adds to one location are applied in
    // their original order to its single host value, so the sums round exactly as direct updates would.
    std::map<std::pair<int, std::int64_t>, int> index;
    auto sourceIndex = [&](int comp, std::int64_t off) {
        auto [it, fresh] = index.try_emplace({comp, off}, int(src_.pts.size()));
        if (fresh)
            src_.pts.push_back({comp, off});
        return it->second;
    };
    for (Term& t : terms_)
        for (const detectors::FieldPoint& fp : t.adj->sources())
            t.src.push_back(sourceIndex(fp.comp, fp.off));
    carry_.assign(src_.pts.size(), 0.0);
}

template <class T> void GradientDriver<T>::capture(std::vector<T>& out) {
    gather(cap_, tile_.forward(), std::int64_t(points_.size()), out);
}

template <class T>
void GradientDriver<T>::adjointSources(int n, const std::vector<T>& after, const std::vector<T>& before) {
    gather(src_, adj_, std::int64_t(src_.pts.size()), srcVal_);
    // P += Cb dJ/dE at E locations, Q -= Db dJ/dH at H locations: first what the previous reverse step
    // carried (dJ/dE^{n+1} of terms read at step n+1), then every term in objective order.
    for (std::size_t q = 0; q < carry_.size(); ++q)
        if (carry_[q] != 0) {
            srcVal_[q] += T(srcCoef_[q] * carry_[q]);
            carry_[q] = 0;
        }
    for (const Term& t : terms_) {
        if (t.src.empty())
            continue;
        const detectors::AdjointSink<T> sink{srcVal_.data(), srcCoef_.data(), carry_.data(), t.src.data()};
        const T* a = t.base >= 0 ? after.data() + t.base : nullptr;
        const T* b = t.base >= 0 ? before.data() + t.base : nullptr;
        t.adj->addSources(n, a, b, sink);
    }
    scatter(src_, adj_, srcVal_);
}

template <class T>
void GradientDriver<T>::accumulateGradient(const std::vector<T>& after, const std::vector<T>& before) {
    // dJ/deps = dJ/dCb dCb/deps with Cb = dt/eps: dJ/deps = -P (E^{n+1} - E^n) / dt.
    const double inv = 1.0 / plan_.dt;
    gather(cap_, adj_, designPoints_, pVal_); // P at the design points (the first capture points)
    for (int q = 0; q < designPoints_; ++q)
        grad_[q] -= double(pVal_[std::size_t(q)]) *
                    (double(after[std::size_t(q)]) - double(before[std::size_t(q)])) * inv;
}

namespace {
/// f(std::integral_constant<int, A>{}) for the runtime axis a (0, 1, 2).
template <class F> void withAxis(int a, F&& f) {
    if (a == 0)
        f(std::integral_constant<int, 0>{});
    else if (a == 1)
        f(std::integral_constant<int, 1>{});
    else
        f(std::integral_constant<int, 2>{});
}
template <class T, int A>
void eAdjW(device::Device& dev, View<T>* f, typename solver::Tile<T>::Slab& sl, std::array<Buffer<T>, 2>& psi,
           std::array<Buffer<T>, 2>& w, int th) {
    const Box& L = sl.local;
    kernels::SlabIndex idx{L.lo[0], L.lo[1], L.lo[2], std::int64_t(L.extent(0)),
                           std::int64_t(L.extent(0)) * L.extent(1)};
    kernels::CpmlAdjointW<T, A> k{f[(A + 1) % 3],
                                  f[(A + 2) % 3],
                                  psi[0].data(),
                                  psi[1].data(),
                                  w[0].data(),
                                  w[1].data(),
                                  idx,
                                  {sl.profE[0].data(), sl.profE[1].data(), sl.profE[2].data()},
                                  sl.profLo};
    launch(dev, L, th, k);
}
template <class T, int A, bool M>
void eAdjQ(View<T>* f, solver::Tile<T>& tile, typename solver::Tile<T>::Slab& sl, std::array<Buffer<T>, 2>& w,
           int th) {
    const Box& L = sl.local;
    kernels::SlabIndex idx{L.lo[0], L.lo[1], L.lo[2], std::int64_t(L.extent(0)),
                           std::int64_t(L.extent(0)) * L.extent(1)};
    Box hb = L;
    if (hb.lo[A] > 0)
        hb.lo[A] -= 1; // the H location just below the slab also receives -w(lo)
    kernels::CpmlEAdjointQ<T, A, M> k{f[3 + (A + 2) % 3],
                                      f[3 + (A + 1) % 3],
                                      tile.db((A + 2) % 3),
                                      tile.db((A + 1) % 3),
                                      tile.dbScalar(),
                                      w[0].data(),
                                      w[1].data(),
                                      idx,
                                      L.lo[A],
                                      L.hi[A]};
    launch(tile.device(), hb, th, k);
}
template <class T, int A>
void hAdjW(device::Device& dev, View<T>* f, typename solver::Tile<T>::Slab& sl, std::array<Buffer<T>, 2>& psi,
           std::array<Buffer<T>, 2>& w, int th) {
    const Box& L = sl.local;
    kernels::SlabIndex idx{L.lo[0], L.lo[1], L.lo[2], std::int64_t(L.extent(0)),
                           std::int64_t(L.extent(0)) * L.extent(1)};
    kernels::CpmlAdjointW<T, A> k{f[3 + (A + 1) % 3],
                                  f[3 + (A + 2) % 3],
                                  psi[0].data(),
                                  psi[1].data(),
                                  w[0].data(),
                                  w[1].data(),
                                  idx,
                                  {sl.profH[0].data(), sl.profH[1].data(), sl.profH[2].data()},
                                  sl.profLo};
    launch(dev, L, th, k);
}
template <class T, int A>
void hAdjP(View<T>* f, solver::Tile<T>& tile, typename solver::Tile<T>::Slab& sl, std::array<Buffer<T>, 2>& w,
           int th) {
    const Box& L = sl.local;
    kernels::SlabIndex idx{L.lo[0], L.lo[1], L.lo[2], std::int64_t(L.extent(0)),
                           std::int64_t(L.extent(0)) * L.extent(1)};
    Box eb = L;
    if (eb.hi[A] < tile.box().extent(A))
        eb.hi[A] += 1; // the E location just above the slab gets w(hi-1)
    kernels::CpmlHAdjointP<T, A> k{f[(A + 2) % 3],
                                   f[(A + 1) % 3],
                                   tile.cb((A + 2) % 3),
                                   tile.cb((A + 1) % 3),
                                   w[0].data(),
                                   w[1].data(),
                                   idx,
                                   L.lo[A],
                                   L.hi[A]};
    launch(tile.device(), eb, th, k);
}
} // namespace

template <class T> void GradientDriver<T>::cpmlEAdjoint() {
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = tile_.view(adj_, c);
    const int th = tile_.threads();
    const bool m = plan_.magnetic;
    auto& slabs = tile_.slabs();
    // Reverse of the forward order (z, y, x; high before low): transposes apply in reverse.
    for (int a = 2; a >= 0; --a)
        for (int s = int(slabs.size()) - 1; s >= 0; --s) {
            auto& sl = *slabs[std::size_t(s)];
            if (sl.slab.axis != a)
                continue;
            auto& sa = slabAdj_[std::size_t(s)];
            withAxis(a, [&](auto axis) {
                constexpr int A = decltype(axis)::value;
                eAdjW<T, A>(tile_.device(), f, sl, sa.psiE, sa.w, th);
                m ? eAdjQ<T, A, true>(f, tile_, sl, sa.w, th) : eAdjQ<T, A, false>(f, tile_, sl, sa.w, th);
            });
        }
}

template <class T> void GradientDriver<T>::cpmlHAdjoint() {
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = tile_.view(adj_, c);
    const int th = tile_.threads();
    auto& slabs = tile_.slabs();
    for (int a = 2; a >= 0; --a)
        for (int s = int(slabs.size()) - 1; s >= 0; --s) {
            auto& sl = *slabs[std::size_t(s)];
            if (sl.slab.axis != a)
                continue;
            auto& sa = slabAdj_[std::size_t(s)];
            withAxis(a, [&](auto axis) {
                constexpr int A = decltype(axis)::value;
                hAdjW<T, A>(tile_.device(), f, sl, sa.psiH, sa.w, th);
                hAdjP<T, A>(f, tile_, sl, sa.w, th);
            });
        }
}

template <class T>
void GradientDriver<T>::exchange(comm::Communicator& comm, int field, bool merged, comm::Phase phase) {
    if (merged)
        tile_.pack(tile_.forward(), field);
    tile_.pack(adj_, field);
    comm::ExchangeGroup& g =
        merged ? (field == 0 ? mergedE_ : mergedH_) : (field == 0 ? adj_.groupE : adj_.groupH);
    if (solver::Tile<T>::hostStaged(comm, g))
        tile_.device().sync();
    comm.exchangeStart(g, phase);
    comm.exchangeFinish(g);
    if (merged)
        tile_.unpack(tile_.forward(), field);
    tile_.unpack(adj_, field);
}

template <class T>
void GradientDriver<T>::adjointFirstHalf(int n, const std::vector<T>& after, const std::vector<T>& before) {
    adjointSources(n, after, before); // P = Cb dJ/dE^{n+1} complete now
    accumulateGradient(after, before);
    cpmlEAdjoint();
}

template <class T> void GradientDriver<T>::adjointSecondHalf() {
    const Box all{{0, 0, 0}, tile_.box().extents()};
    tile_.updateH(adj_, all); // Q -= Db curl P  (transpose of the E update's curl H)
    if (plan_.lossy) {
        kernels::ScaleCa<T> k{tile_.view(adj_, 0), tile_.view(adj_, 1), tile_.view(adj_, 2),
                              tile_.ca(0),         tile_.ca(1),         tile_.ca(2)};
        launch(tile_.device(), all, tile_.threads(), k);
    }
    cpmlHAdjoint();
}

template <class T> void GradientDriver<T>::adjointLast() {
    const Box all{{0, 0, 0}, tile_.box().extents()};
    tile_.updateE(adj_, all, false); // P += Cb curl Q  (transpose of the H update's curl E)
}

template <class T>
void GradientDriver<T>::adjointStep(int n, const std::vector<T>& after, const std::vector<T>& before,
                                    comm::Communicator& comm) {
    adjointFirstHalf(n, after, before);
    exchange(comm, 0, false, comm::Phase::Adjoint);
    adjointSecondHalf();
    exchange(comm, 1, false, comm::Phase::Adjoint);
    adjointLast();
}

// ---------------------------------------------------------------- state snapshots
template <class T> std::int64_t GradientDriver<T>::stateSize() const {
    std::int64_t n = 6 * tile_.shape().size;
    for (auto& sl : tile_.slabs())
        n += 4 * sl->slab.box.cells();
    return n;
}
template <class T> void GradientDriver<T>::saveState(T* dst) const {
    if (!dst)
        return;
    const std::int64_t sz = tile_.shape().size;
    auto& f = tile_.forward().f;
    const device::Device& dev = tile_.device();
    for (int c = 0; c < 6; ++c, dst += sz)
        dev.copy(dst, f[std::size_t(c)].data(), sz * std::int64_t(sizeof(T)));
    for (auto& sl : tile_.slabs())
        for (auto* b : {&sl->psiE[0], &sl->psiE[1], &sl->psiH[0], &sl->psiH[1]}) {
            dev.copy(dst, b->data(), b->bytes());
            dst += b->size();
        }
}
template <class T> void GradientDriver<T>::loadState(const T* src) {
    const std::int64_t sz = tile_.shape().size;
    auto& f = tile_.forward().f;
    const device::Device& dev = tile_.device();
    for (int c = 0; c < 6; ++c, src += sz)
        dev.copy(f[std::size_t(c)].data(), src, sz * std::int64_t(sizeof(T)));
    for (auto& sl : tile_.slabs())
        for (auto* b : {&sl->psiE[0], &sl->psiE[1], &sl->psiH[0], &sl->psiH[1]}) {
            dev.copy(b->data(), src, b->bytes());
            src += b->size();
        }
}
template <class T> void GradientDriver<T>::zeroState() {
    auto& f = tile_.forward().f;
    const device::Device& dev = tile_.device();
    for (int c = 0; c < 6; ++c)
        dev.zero(f[std::size_t(c)].data(), f[std::size_t(c)].bytes());
    for (auto& sl : tile_.slabs())
        for (auto* b : {&sl->psiE[0], &sl->psiE[1], &sl->psiH[0], &sl->psiH[1]})
            dev.zero(b->data(), b->bytes());
}

// ---------------------------------------------------------------- forward hooks
template <class T> std::vector<int> GradientDriver<T>::chainPositions() const {
    std::vector<int> chain;
    int a = 0, b = plan_.steps, c = gp_.numCheckpoints;
    while (b - a > 1 && c > 0) {
        const int m = revolveSplit(a, b, c);
        chain.push_back(m);
        a = m;
        --c;
    }
    return chain;
}

template <class T> void GradientDriver<T>::afterForwardStep(int n, comm::Communicator& comm) {
    const std::int64_t K = std::int64_t(points_.size());
    if (gp_.method == scene::GradientMethod::Full) {
        capture(capA_);
        tile_.device().copy(history_.data() + std::int64_t(n) * K, capA_.data(), K * std::int64_t(sizeof(T)));
    } else if (gp_.method == scene::GradientMethod::Checkpointed) {
        if (std::find(chain_.begin(), chain_.end(), n + 1) != chain_.end()) {
            tile_.finishPending(comm);
            const int slot = freeSlots_.back();
            freeSlots_.pop_back();
            saveState(slots_.data() + std::int64_t(slot) * stateSize());
            stored_[n + 1] = slot;
        }
    } else {
        recordSlab(n);
        if (std::find(revCheckpointSteps_.begin(), revCheckpointSteps_.end(), n + 1) !=
            revCheckpointSteps_.end()) {
            tile_.finishPending(comm);
            const auto j = std::find(revCheckpointSteps_.begin(), revCheckpointSteps_.end(), n + 1) -
                           revCheckpointSteps_.begin();
            saveState(revCheckpoints_.data() + std::int64_t(j) * stateSize());
        }
    }
}

// ---------------------------------------------------------------- full
template <class T> void GradientDriver<T>::backwardFull(comm::Communicator& comm) {
    const std::int64_t K = std::int64_t(points_.size());
    for (int n = plan_.steps - 1; n >= 0; --n) {
        const device::Device& dev = tile_.device();
        dev.copy(capA_.data(), history_.data() + std::int64_t(n) * K, K * std::int64_t(sizeof(T)));
        if (n > 0)
            dev.copy(capB_.data(), history_.data() + std::int64_t(n - 1) * K, K * std::int64_t(sizeof(T)));
        else
            std::fill(capB_.begin(), capB_.end(), T(0));
        adjointStep(n, capA_, capB_, comm);
    }
}

// ---------------------------------------------------------------- checkpointed (revolve)
template <class T> void GradientDriver<T>::advance(int from, int to, comm::Communicator& comm) {
    for (int s = from; s < to; ++s) {
        tile_.step(s, comm, false, comm::Phase::Reconstruct);
        ++recomputed_;
    }
    current_ = to;
}

template <class T> void GradientDriver<T>::leaf(int n, comm::Communicator& comm) {
    if (current_ != n) {
        // Restore the nearest stored state at or below n and recompute up to it.
        int from = 0;
        for (auto& [s, slot] : stored_)
            if (s <= n)
                from = std::max(from, s);
        if (from == 0)
            zeroState();
        else
            loadState(slots_.data() + std::int64_t(stored_[from]) * stateSize());
        current_ = from;
        advance(from, n, comm);
    }
    capture(capB_);
    tile_.step(n, comm, false, comm::Phase::Reconstruct);
    ++recomputed_;
    current_ = n + 1;
    capture(capA_);
    adjointStep(n, capA_, capB_, comm);
}

template <class T> void GradientDriver<T>::revolve(int a, int b, int c, comm::Communicator& comm) {
    if (b - a == 1) {
        leaf(a, comm);
        return;
    }
    if (c == 0) {
        for (int n = b - 1; n >= a; --n)
            leaf(n, comm);
        return;
    }
    const int m = revolveSplit(a, b, c);
    if (!stored_.count(m)) {
        if (current_ != a) {
            if (a == 0)
                zeroState();
            else
                loadState(slots_.data() + std::int64_t(stored_.at(a)) * stateSize());
            current_ = a;
        }
        advance(a, m, comm);
        const int slot = freeSlots_.back();
        freeSlots_.pop_back();
        saveState(slots_.data() + std::int64_t(slot) * stateSize());
        stored_[m] = slot;
    }
    revolve(m, b, c - 1, comm);
    // State m (stored here or during the forward run) is not needed again.
    freeSlots_.push_back(stored_.at(m));
    stored_.erase(m);
    current_ = -1;
    revolve(a, m, c, comm);
}

template <class T> void GradientDriver<T>::backwardCheckpointed(comm::Communicator& comm) {
    current_ = plan_.steps; // the forward run leaves state N in the fields
    revolve(0, plan_.steps, gp_.numCheckpoints, comm);
}

// ---------------------------------------------------------------- reversible
template <class T> void GradientDriver<T>::recordSlab(int n) {
    if (recordLen_ == 0 || keptIndex_[std::size_t(n)] < 0)
        return;
    std::vector<typename solver::Tile<T>::Region> all = layerRegions_[0];
    all.insert(all.end(), layerRegions_[1].begin(), layerRegions_[1].end());
    std::vector<T> vals;
    tile_.download(tile_.forward(), all, layerStage_, vals);
    const std::vector<double> tmp(vals.begin(), vals.end());
    const int r = keptIndex_[std::size_t(n)];
    std::vector<unsigned char> bytes(static_cast<std::size_t>(recordLen_ * dtypeBytes(gp_.dtype)));
    const double scale = encode(tmp.data(), recordLen_, gp_.dtype, bytes.data());
    store_->put(r, bytes.data(), scale);
}

template <class T> void GradientDriver<T>::replay(int n, int part) {
    if (recordLen_ == 0)
        return;
    std::vector<double> rec(static_cast<std::size_t>(recordLen_), 0.0);
    if (n >= 0) {
        auto load = [&](int r, std::vector<double>& out) {
            out.resize(std::size_t(recordLen_));
            double scale = 1;
            const unsigned char* src = store_->get(r, scale);
            decode(src, recordLen_, gp_.dtype, scale, out.data());
        };
        if (keptIndex_[std::size_t(n)] >= 0) {
            load(keptIndex_[std::size_t(n)], rec);
        } else {
            // LinearReconstructEveryK: interpolate between the kept neighbours.
            const auto it = std::upper_bound(kept_.begin(), kept_.end(), n);
            const int n1 = *it, n0 = *(it - 1);
            std::vector<double> a, b;
            load(keptIndex_[std::size_t(n1)], b); // the reverse sweep reads downwards
            load(keptIndex_[std::size_t(n0)], a);
            const double w = double(n - n0) / double(n1 - n0);
            for (std::size_t q = 0; q < rec.size(); ++q)
                rec[q] = (1 - w) * a[q] + w * b[q];
        }
    }
    // The record holds the H layers, then the E layers; write back the part asked for.
    const std::int64_t lenH = solver::Tile<T>::regionCells(layerRegions_[0]);
    const auto first = rec.begin() + (part == 0 ? 0 : lenH);
    const auto last = part == 0 ? rec.begin() + lenH : rec.end();
    std::vector<T> vals(static_cast<std::size_t>(last - first));
    std::transform(first, last, vals.begin(), [](double v) { return T(v); });
    tile_.upload(tile_.forward(), layerRegions_[part], layerStage_, vals);
}

template <class T> void GradientDriver<T>::reconstructE(int n) {
    tile_.inject(0, (n + 0.5) * plan_.dt, -1.0);
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = tile_.field(c);
    if (plan_.lossy) {
        kernels::InverseUpdateE<T, true> k{f[0],        f[1],        f[2],        f[3],
                                           f[4],        f[5],        tile_.cb(0), tile_.cb(1),
                                           tile_.cb(2), tile_.ca(0), tile_.ca(1), tile_.ca(2)};
        launch(tile_.device(), interior_, tile_.threads(), k);
    } else {
        kernels::InverseUpdateE<T, false> k{f[0],        f[1],        f[2],        f[3], f[4], f[5],
                                            tile_.cb(0), tile_.cb(1), tile_.cb(2), {},   {},   {}};
        launch(tile_.device(), interior_, tile_.threads(), k);
    }
}

template <class T> void GradientDriver<T>::reconstructH(int n) {
    tile_.inject(1, n * plan_.dt, -1.0);
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = tile_.field(c);
    if (plan_.magnetic) {
        kernels::InverseUpdateH<T, true> k{f[3], f[4],        f[5],        f[0],        f[1],
                                           f[2], tile_.db(0), tile_.db(1), tile_.db(2), tile_.dbScalar()};
        launch(tile_.device(), interior_, tile_.threads(), k);
    } else {
        kernels::InverseUpdateH<T, false> k{f[3], f[4], f[5], f[0], f[1], f[2], {}, {}, {}, tile_.dbScalar()};
        launch(tile_.device(), interior_, tile_.threads(), k);
    }
}

template <class T> void GradientDriver<T>::backwardReversible(comm::Communicator& comm) {
    tile_.finishPending(comm);
    if (store_)
        store_->finishWrites();
    const std::int64_t stateN = stateSize();
    for (int n = plan_.steps - 1; n >= 0; --n) {
        // A full-state checkpoint of state n+1 replaces the reconstruction (bounds drift in lossy media).
        const auto it = std::find(revCheckpointSteps_.begin(), revCheckpointSteps_.end(), n + 1);
        if (it != revCheckpointSteps_.end()) {
            const T* ck = revCheckpoints_.data() + std::int64_t(it - revCheckpointSteps_.begin()) * stateN;
            // Drift: reconstructed vs stored fields over the capture points (design and objective fields).
            capture(capA_);
            tile_.device().sync(); // ck is read on the host
            double num = 0, den = 0;
            const std::int64_t sz = tile_.shape().size;
            for (std::size_t q = 0; q < points_.size(); ++q) {
                const double ref = double(ck[std::int64_t(points_[q].comp) * sz + points_[q].off]);
                num = std::max(num, std::abs(double(capA_[q]) - ref));
                den = std::max(den, std::abs(ref));
            }
            if (den > 0)
                drift_ = std::max(drift_, num / den);
            loadState(ck);
        }
        capture(capA_);  // E^{n+1}, H^{n+1/2}
        replay(n, 0);    // H^{n+1/2} on the low interface layers
        reconstructE(n); // E^n in the interior
        capture(capB_);  // E^n
        adjointFirstHalf(n, capA_, capB_);
        exchange(comm, 0, true, comm::Phase::Adjoint); // E^n and P halos, one group
        adjointSecondHalf();
        replay(n - 1, 1);                              // E^n on the high interface layers
        reconstructH(n);                               // H^{n-1/2} in the interior
        exchange(comm, 1, true, comm::Phase::Adjoint); // H^{n-1/2} and Q halos, one group
        adjointLast();
    }
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
    for (int c = 0; c < 6; ++c)
        tile_.device().zero(adj_.f[std::size_t(c)].data(), adj_.f[std::size_t(c)].bytes());
    if (gp_.method == scene::GradientMethod::Full)
        backwardFull(comm);
    else if (gp_.method == scene::GradientMethod::Checkpointed)
        backwardCheckpointed(comm);
    else
        backwardReversible(comm);
}

template <class T> void GradientDriver<T>::serialize(ByteWriter& w) const {
    w.putArray(designCells_.data(), std::int64_t(designCells_.size()));
    w.putArray(designRegion_.data(), std::int64_t(designRegion_.size()));
    w.putArray(grad_.data(), grad_.size());
}

template <class T>
std::vector<solver::NamedArray>
GradientDriver<T>::assembleWith(const Plan& p, std::vector<ByteReader*>& readers,
                                std::vector<std::int64_t>& recomputed, std::vector<double>& drift) {
    return assembleImpl(p, readers, &recomputed, &drift);
}

template <class T>
std::vector<solver::NamedArray> GradientDriver<T>::assemble(const Plan& p,
                                                            std::vector<ByteReader*>& readers) {
    return assembleImpl(p, readers, nullptr, nullptr);
}

template <class T>
std::vector<solver::NamedArray>
GradientDriver<T>::assembleImpl(const Plan& p, std::vector<ByteReader*>& readers,
                                std::vector<std::int64_t>* recomputed, std::vector<double>* drift) {
    const scene::Rasterizer& r = *p.raster;
    const int D = r.designCount();
    // Per-cell dJ/deps placed in global order, then summed per voxel in that order (tiling-independent).
    std::vector<std::vector<double>> cellGrad(static_cast<std::size_t>(D));
    for (int d = 0; d < D; ++d)
        cellGrad[std::size_t(d)].assign(std::size_t(r.designBox(d).cells()), 0.0);
    for (std::size_t q = 0; q < readers.size(); ++q) {
        ByteReader* rd = readers[q];
        const auto cells = rd->getArray<std::int64_t>();
        const auto regions = rd->getArray<int>();
        const auto g = rd->getArray<double>();
        if (recomputed)
            (*recomputed)[q] = rd->get<std::int64_t>();
        if (drift)
            (*drift)[q] = rd->get<double>();
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const int d = regions[c];
            const Box& b = r.designBox(d);
            const std::int64_t gi = cells[c];
            const int i = int(gi % p.geom.cells[0]), j = int((gi / p.geom.cells[0]) % p.geom.cells[1]),
                      k = int(gi / (std::int64_t(p.geom.cells[0]) * p.geom.cells[1]));
            const std::int64_t li =
                (i - b.lo[0]) +
                std::int64_t(b.extent(0)) * ((j - b.lo[1]) + std::int64_t(b.extent(1)) * (k - b.lo[2]));
            cellGrad[std::size_t(d)][std::size_t(li)] = g[3 * c] + g[3 * c + 1] + g[3 * c + 2];
        }
    }
    std::vector<solver::NamedArray> out;
    for (int d = 0; d < D; ++d) {
        const scene::DesignMap& map = r.designMap(d);
        const Box& b = r.designBox(d);
        std::vector<double> dRho(map.size(), 0.0);
        std::int64_t li = 0;
        for (int k = b.lo[2]; k < b.hi[2]; ++k)
            for (int j = b.lo[1]; j < b.hi[1]; ++j)
                for (int i = b.lo[0]; i < b.hi[0]; ++i, ++li) {
                    const scene::DesignHit h = r.designAt(i, j, k);
                    if (h.region == d && h.voxel >= 0)
                        dRho[std::size_t(h.voxel)] += cellGrad[std::size_t(d)][std::size_t(li)];
                }
        for (double& v : dRho)
            v *= map.epsDerivative();
        std::vector<double> latent = p.scene.designs[std::size_t(d)].latent;
        if (latent.empty())
            latent.assign(map.size(), 0.5);
        const std::vector<double> g = map.backward(latent, dRho);
        const auto v = map.voxels();
        out.push_back(solver::NamedArray{p.scene.designs[std::size_t(d)].name, {v[2], v[1], v[0]}, g});
    }
    return out;
}

template class GradientDriver<float>;
template class GradientDriver<double>;

} // namespace yee::gradient
