#include "yee/gradient/GradientDriver.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <utility>

#include "yee/core/Error.hpp"
#include "yee/detectors/Registry.hpp"
#include "yee/scene/MaterialModel.hpp"
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
    // Key ranges, recorder and storage rules were checked by scene::validateScene() (solver::makePlan
    // runs it); here only what a gradient run adds to a forward run is checked.
    for (const auto& m : g.recorder) {
        if (m.module == "LinearReconstructEveryK") {
            gp.everyK = m.k;
            gp.startAfter = m.startAfter;
        } else {
            gp.dtype = parseDtype(m.dtype, "gradient.recorder.dtype");
        }
    }
    // Design regions: lossless, non-magnetic materials (dJ/deps flows through Cb only).
    for (std::size_t d = 0; d < s.designs.size(); ++d)
        for (int q = 0; q < 2; ++q) {
            const scene::Material* m = s.findMaterial(s.designs[d].materials[q]);
            if (m && (m->sigma != 0 || m->mu != 1))
                throw InputError("designs[" + std::to_string(d) + "].materials[" + std::to_string(q) +
                                 "]: design materials must be lossless and non-magnetic (sigma = 0, mu = 1)");
        }
    // Dispersive poles: the reversible method would run them backwards, and a damped pole run
    // backwards is gain (errors grow exponentially); the stored-state methods are exact.
    if (gp.method == scene::GradientMethod::Reversible)
        for (const auto& m : s.materials)
            if (scene::isDispersive(m))
                throw InputError(
                    "gradient.method: \"reversible\" cannot run dispersive material \"" + m.name +
                    "\" backwards (a damped pole run backwards is gain: its rounding errors grow "
                    "without bound; lossless poles are not reversed either); use \"checkpointed\" "
                    "or \"full\"");
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
    : tile_(tile), dets_(dets), plan_(tile.plan()), stepper_(tile), adj_(stepper_.fields()), design_(tile) {
    buildPoints();
    cap_.pts = points_;
    cap_.prepare(tile.device());
    buildSources();
    src_.prepare(tile.device());
    forward_ = makeForwardState<T>(gp, *this);
}

template <class T> GradientDriver<T>::~GradientDriver() = default;

template <class T> void GradientDriver<T>::buildPoints() {
    // Design cells owned (E locations, all three components): the first capture points.
    design_.appendPoints(points_);
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
void GradientDriver<T>::adjointStep(int n, const std::vector<T>& after, const std::vector<T>& before,
                                    comm::Communicator& comm, const std::function<void()>& reconstructH,
                                    const AdjointPassRows* rows) {
    const auto sources = [&] {
        adjointSources(n, after, before);                // P = Cb dJ/dE^{n+1} complete now
        gather(cap_, adj_, design_.pointCount(), pVal_); // P at the design points (the first capture points)
        design_.accumulate(pVal_, after, before);
    };
    // Reconstructing strategies send the forward halos in the adjoint's groups.
    stepper_.step(comm, bool(reconstructH) || rows, sources, reconstructH, rows);
    stepDone(comm::Phase::Adjoint, adjoint_);
}

template <class T> void GradientDriver<T>::reconstructedStep(comm::Communicator&) {
    stepDone(comm::Phase::Reconstruct, reconstruct_);
}

template <class T> void GradientDriver<T>::stepDone(comm::Phase phase, SweepPhase& ph) {
    const auto now = std::chrono::steady_clock::now();
    ph.seconds += std::chrono::duration<double>(now - mark_).count();
    mark_ = now;
    ++ph.steps;
    const int every = std::max(1, monitor_.interval);
    if (!monitor_.check || ph.steps % every != 0 || ph.steps >= ph.totalSteps)
        return;
    const bool stop = monitor_.check(phase, ph.steps, ph.totalSteps, ph.seconds);
    const auto after = std::chrono::steady_clock::now(); // the check (a collective, a report) is the phase's
    ph.seconds += std::chrono::duration<double>(after - mark_).count();
    mark_ = after;
    if (stop)
        throw Cancelled();
}

template <class T> void GradientDriver<T>::afterForwardStep(int n, comm::Communicator& comm) {
    forward_->afterForwardStep(n, comm);
}

template <class T> void GradientDriver<T>::backward(comm::Communicator& comm) {
    // The update coefficients at the adjoint-source locations (filled after construction); device memory,
    // read by explicit copies.
    srcCoef_.resize(src_.pts.size());
    for (std::size_t q = 0; q < src_.pts.size(); ++q) {
        const Point& p = src_.pts[q];
        srcCoef_[q] = double(tile_.coefficient(p.comp, p.off));
    }
    stepper_.zero();
    reconstruct_ = SweepPhase{0, forward_->plannedRecomputeSteps(), 0};
    adjoint_ = SweepPhase{0, plan_.steps, 0};
    mark_ = std::chrono::steady_clock::now();
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
