#include "yee/solver/Dispersion.hpp"

#include <algorithm>
#include <map>

#include "yee/core/WorkerPool.hpp"
#include "yee/device/Exec.hpp"
#include "yee/scene/MaterialCheck.hpp"
#include "yee/scene/MaterialModel.hpp"
#include "yee/scene/Rasterizer.hpp"

namespace yee::solver {

using device::Buffer;
using device::Category;

namespace {

static_assert(kernels::kMaxPolesPerList == scene::kMaxPoles, "one pole limit for the scene and the kernels");

/// The trapezoidal-rule coefficients of every pole of `m` (kernels/Dispersion.hpp), normalised
/// units: dt the normalised step, fsPerUnit the femtoseconds of one normalised time unit.
struct Coefs {
    int n = 0, slots = 0;
    double cJ[kernels::kMaxPolesPerList] = {}, cP[kernels::kMaxPolesPerList] = {},
           d[kernels::kMaxPolesPerList] = {};
    int jSlot[kernels::kMaxPolesPerList] = {}, pSlot[kernels::kMaxPolesPerList] = {};
};
Coefs coefsOf(const scene::MaterialModel& m, double dt, double fsPerUnit) {
    Coefs c;
    c.n = int(m.poles.size());
    for (int p = 0; p < c.n; ++p) {
        const scene::Pole& q = m.poles[std::size_t(p)];
        const double w0 = q.omegaEv / scene::kHbarEvFs * fsPerUnit; // normalised angular frequency
        const double g = q.gammaEv / scene::kHbarEvFs * fsPerUnit;
        c.jSlot[p] = c.pSlot[p] = -1;
        switch (q.type) {
        case scene::PoleType::Drude: { // J' + g J = w0^2 E
            const double D = 1 + 0.5 * dt * g;
            c.cJ[p] = 1 / D;
            c.d[p] = 0.5 * dt * w0 * w0 / D;
            c.jSlot[p] = c.slots++;
            break;
        }
        case scene::PoleType::Lorentz: { // P'' + g P' + w0^2 P = de w0^2 E
            const double D = 1 + 0.5 * dt * g + 0.25 * dt * dt * w0 * w0;
            c.cJ[p] = 1 / D;
            c.cP[p] = -0.5 * dt * w0 * w0 / D;
            c.d[p] = 0.5 * dt * q.deltaEps * w0 * w0 / D;
            c.pSlot[p] = c.slots++;
            c.jSlot[p] = c.slots++;
            break;
        }
        case scene::PoleType::Debye: { // tau P' + P = de E
            const double tau = q.tauFs / fsPerUnit;
            const double a = (tau / dt - 0.5) / (tau / dt + 0.5), b = q.deltaEps / (tau / dt + 0.5);
            c.cP[p] = (a - 1) / dt;
            c.d[p] = b / dt;
            c.pSlot[p] = c.slots++;
            break;
        }
        }
    }
    return c;
}

const char* compName(int c) {
    return c == 0 ? "Ex" : (c == 1 ? "Ey" : "Ez");
}

/// f(b) for the blocks of a list of `count` entries on `threads` threads (lists of up to 4096 entries
/// on the calling thread, as device::launchIndex does).
template <class F> void forBlocks(std::int64_t count, int threads, const F& f) {
    const std::int64_t blocks = (count + kernels::kPoleBlock - 1) / kernels::kPoleBlock;
    WorkerPool::run(
        count > 4096 ? threads : 1, blocks, WorkerPool::defaultGrain(blocks, threads),
        [](const void* p, std::int64_t b0, std::int64_t b1) {
            const F& g = *static_cast<const F*>(p);
            for (std::int64_t b = b0; b < b1; ++b)
                g(b);
        },
        &f);
}

} // namespace

template <class T>
Dispersion<T>::Dispersion(const Plan& plan, const Box& box, const ArrayShape& shape, device::Device& dev,
                          TileState& state)
    : plan_(plan), dev_(dev), box_(box), shape_(shape) {
    const scene::Scene& s = plan.scene;
    std::vector<int> disp;
    for (std::size_t m = 0; m < s.materials.size(); ++m)
        if (scene::isDispersive(s.materials[m]))
            disp.push_back(int(m));
    if (disp.empty())
        return;
    const double fsPerUnit = plan.dtFs / plan.dt;
    for (int m : disp) {
        const Coefs c = coefsOf(scene::materialModel(s.materials[std::size_t(m)]), plan.dt, fsPerUnit);
        for (int comp = 0; comp < 3; ++comp) {
            List l;
            l.material = m;
            l.comp = comp;
            l.stateSlots = c.slots;
            l.coef.n = c.n;
            for (int p = 0; p < c.n; ++p) {
                l.coef.cJ[p] = T(c.cJ[p]);
                l.coef.cP[p] = T(c.cP[p]);
                l.coef.d[p] = T(c.d[p]);
                l.coef.jSlot[p] = c.jSlot[p];
                l.coef.pSlot[p] = c.pSlot[p];
            }
            lists_.push_back(std::move(l));
        }
    }
    // Where a dispersive material may be: the background, or the cells of its objects' bounding boxes
    // (widened by the half-cell averaging cube). Elsewhere no location needs its volume fractions.
    const int bg = s.materialIndex(s.background);
    const bool bgDisp = bg >= 0 && scene::isDispersive(s.materials[std::size_t(bg)]);
    struct Reach {
        double lo[3], hi[3];
    };
    std::vector<Reach> reach;
    for (const auto& o : s.objects) {
        const int m = s.materialIndex(o.material);
        if (m < 0 || !scene::isDispersive(s.materials[std::size_t(m)]))
            continue;
        const auto [lo, hi] = scene::objectBounds(o);
        Reach r{};
        for (int a = 0; a < 3; ++a) {
            r.lo[a] = plan.geom.toCells(a, lo[a]) - 0.5;
            r.hi[a] = plan.geom.toCells(a, hi[a]) + 0.5;
        }
        reach.push_back(r);
    }
    const scene::Rasterizer& r = *plan.raster;
    for (int comp = 0; comp < 3; ++comp) {
        const scene::Vec3 yo = scene::Rasterizer::yeeOffset(0, comp);
        for (int k = box.lo[2]; k < box.hi[2]; ++k)
            for (int j = box.lo[1]; j < box.hi[1]; ++j)
                for (int i = box.lo[0]; i < box.hi[0]; ++i) {
                    const scene::Vec3 p{i + yo[0], j + yo[1], k + yo[2]};
                    bool may = bgDisp;
                    for (std::size_t q = 0; q < reach.size() && !may; ++q)
                        may = p[0] > reach[q].lo[0] && p[0] < reach[q].hi[0] && p[1] > reach[q].lo[1] &&
                              p[1] < reach[q].hi[1] && p[2] > reach[q].lo[2] && p[2] < reach[q].hi[2];
                    if (!may || r.designAt(i, j, k).region >= 0)
                        continue;
                    const std::vector<double> f = r.volumeFractions(p);
                    for (std::size_t q = 0; q < disp.size(); ++q) {
                        const double w = f[std::size_t(disp[q])];
                        if (!(w > 0))
                            continue;
                        List& l = lists_[3 * q + std::size_t(comp)];
                        l.hostCells.push_back({i, j, k});
                        l.hostWeights.push_back(w);
                        l.hostOffsets.push_back(shape.offset(i - box.lo[0], j - box.lo[1], k - box.lo[2]));
                    }
                }
    }
    // One pass for a list's currents and its advance is exact when no E location is in two lists; the
    // fold into the E sweep also needs no E injection on a listed location (kernels/Dispersion.hpp).
    std::array<std::vector<std::int64_t>, 3> listed;
    for (const List& l : lists_)
        listed[std::size_t(l.comp)].insert(listed[std::size_t(l.comp)].end(), l.hostOffsets.begin(),
                                           l.hostOffsets.end());
    fused_ = true;
    for (auto& v : listed) {
        std::sort(v.begin(), v.end());
        fused_ = fused_ && std::adjacent_find(v.begin(), v.end()) == v.end();
    }
    fold_ = fused_ && !dev.staged();
    if (fold_) {
        // The listed locations that E injections write after the E sweep stay with the passes.
        std::array<std::vector<std::int64_t>, 3> injected;
        for (const Injection& inj : plan.injections)
            if (inj.comp < 3)
                for (const Index3& g : inj.cells)
                    if (box.contains(g))
                        injected[std::size_t(inj.comp)].push_back(
                            shape.offset(g[0] - box.lo[0], g[1] - box.lo[1], g[2] - box.lo[2]));
        for (auto& v : injected) {
            std::sort(v.begin(), v.end());
            v.erase(std::unique(v.begin(), v.end()), v.end());
        }
        for (List& l : lists_) {
            const auto& v = injected[std::size_t(l.comp)];
            for (std::size_t e = 0; e < l.hostOffsets.size(); ++e)
                if (std::binary_search(v.begin(), v.end(), l.hostOffsets[e]))
                    l.hostSkip.push_back(std::int64_t(e));
        }
    }
    for (const auto& m : s.materials)
        caOnlyAtPoles_ = caOnlyAtPoles_ && scene::materialModel(m).sigma == 0;
    for (List& l : lists_) {
        l.count = std::int64_t(l.hostCells.size());
        l.offset = Buffer<std::int64_t>(dev, l.count, Category::Dispersive);
        l.weight = Buffer<T>(dev, l.count, Category::Dispersive);
        if (!fold_)
            l.scratch = Buffer<T>(dev, l.count, Category::Dispersive);
        const auto skips = std::int64_t(l.hostSkip.size());
        l.skip = Buffer<std::int64_t>(dev, skips, Category::Dispersive);
        l.skipSave = Buffer<T>(dev, skips, Category::Dispersive);
        l.state = Buffer<T>(dev, l.count * l.stateSlots, Category::Dispersive);
        if (fold_) {
            // The fold's run table (kernels::poleRunTable) where it is smaller than the E^n scratch the
            // fold saves (a list of long runs: bulk material); else the fold reads the offsets.
            std::vector<std::int64_t> runs = kernels::poleRunTable(
                l.hostOffsets.data(), l.count, l.hostSkip.data(), skips,
                [&l](std::int64_t e) { return double(T(l.hostWeights[std::size_t(e)])); });
            if (std::int64_t(runs.size() * sizeof(std::int64_t)) < l.count * std::int64_t(sizeof(T))) {
                l.hostRuns = std::move(runs);
                l.runs = Buffer<std::int64_t>(dev, std::int64_t(l.hostRuns.size()), Category::Dispersive);
            }
        }
        state.add("disp." + s.materials[std::size_t(l.material)].name + "." + compName(l.comp),
                  StateRole::Dynamics, l.state);
    }
}

template <class T> std::int64_t Dispersion<T>::cells() const {
    std::int64_t n = 0;
    for (const List& l : lists_)
        n += l.count;
    return n;
}

template <class T>
void Dispersion<T>::fill(device::HostFill& hf, std::array<device::Buffer<T>, 3>& cb,
                         std::array<device::Buffer<T>, 3>& ca) {
    if (lists_.empty())
        return;
    const scene::Scene& s = plan_.scene;
    const double dt = plan_.dt, fsPerUnit = plan_.dtFs / plan_.dt;
    const double sigmaScale = scene::kEta0 * s.cellUm * 1e-6; // S/m -> normalised, as Tile::fill()
    // Per E location: the sum of w d over every list holding it (the implicit part of its currents).
    std::array<std::map<std::int64_t, std::pair<Index3, double>>, 3> extra;
    for (List& l : lists_) {
        const Coefs c = coefsOf(scene::materialModel(s.materials[std::size_t(l.material)]), dt, fsPerUnit);
        double dsum = 0;
        for (int p = 0; p < c.n; ++p)
            dsum += c.d[p];
        std::int64_t* offset = hf(l.offset);
        T* weight = hf(l.weight);
        for (std::int64_t e = 0; e < l.count; ++e) {
            const std::size_t q = std::size_t(e);
            offset[e] = l.hostOffsets[q];
            weight[e] = T(l.hostWeights[q]);
            auto& x = extra[std::size_t(l.comp)][l.hostOffsets[q]];
            x.first = l.hostCells[q];
            x.second += l.hostWeights[q] * dsum;
        }
        if (!l.hostSkip.empty()) { // folded lists only (CPU devices), written through `hf` all the same
            std::int64_t* skip = hf(l.skip);
            for (std::size_t q = 0; q < l.hostSkip.size(); ++q)
                skip[q] = l.hostSkip[q];
        }
        if (!l.hostRuns.empty()) {
            std::int64_t* runs = hf(l.runs);
            for (std::size_t q = 0; q < l.hostRuns.size(); ++q)
                runs[q] = l.hostRuns[q];
        }
        l.hostOffsets.clear();
        l.hostWeights.clear();
        l.hostCells.clear();
        l.hostSkip.clear();
        l.hostRuns.clear();
    }
    const scene::Rasterizer& r = *plan_.raster;
    for (int c = 0; c < 3; ++c) {
        T* cbc = hf(cb[std::size_t(c)]);
        T* cac = hf(ca[std::size_t(c)]);
        for (const auto& [off, x] : extra[std::size_t(c)]) {
            const scene::CellMaterial m = r.atE(c, x.first[0], x.first[1], x.first[2]);
            const double sv = (m.sigma * sigmaScale + x.second) * dt / (2 * m.eps);
            if (cbc[off] != T(0)) // PEC walls keep Cb = 0
                cbc[off] = T((dt / m.eps) / (1 + sv));
            cac[off] = T((1 - sv) / (1 + sv));
        }
    }
}

template <class T>
std::vector<kernels::PoleFoldList<T>> Dispersion<T>::foldLists(const std::array<T*, 3>& e,
                                                               const std::array<const T*, 3>& cb) const {
    std::vector<kernels::PoleFoldList<T>> v;
    for (const List& l : lists_)
        if (l.count > 0)
            v.push_back({e[std::size_t(l.comp)], cb[std::size_t(l.comp)], l.offset.data(), l.weight.data(),
                         l.state.data(), l.count, l.coef, kernels::lorentzPairs(l.coef), l.runs.data(),
                         l.runs.size() / kernels::kRunWords, l.skip.data(), l.skip.size(), l.comp});
    return v;
}

template <class T> void Dispersion<T>::beforeE(const std::array<T*, 3>& e, int threads) {
    if (fold_) { // E^n of the entries the fold leaves out
        for (List& l : lists_) {
            const T* E = e[std::size_t(l.comp)];
            for (std::int64_t q = 0; q < l.skip.size(); ++q)
                l.skipSave[q] = E[l.offset[l.skip[q]]];
        }
        return;
    }
    for (List& l : lists_) {
        if (l.count == 0)
            continue;
        if (!dev_.staged()) {
            forBlocks(l.count, threads,
                      kernels::PoleSaveEBlocks<T>{e[std::size_t(l.comp)], l.offset.data(), l.scratch.data(),
                                                  l.count});
            continue;
        }
        device::launchIndex(dev_, l.count, threads,
                            kernels::PoleSaveE<T>{e[std::size_t(l.comp)], l.offset.data(), l.scratch.data()});
    }
}

template <class T>
void Dispersion<T>::afterE(const std::array<T*, 3>& e, const std::array<const T*, 3>& cb, int threads) {
    if (fold_) { // the entries the fold leaves out, each as a stretch of one cell
        for (List& l : lists_) {
            T* E = e[std::size_t(l.comp)];
            const T* CB = cb[std::size_t(l.comp)];
            for (std::int64_t q = 0; q < l.skip.size(); ++q) {
                const std::int64_t x = l.skip[q], o = l.offset[x];
                kernels::poleCurrentStretch(E + o, CB + o, l.state.data() + x, l.count, l.coef, 1);
                kernels::poleAdvanceStretch<T>(E + o, l.weight.data() + x, l.skipSave.data() + q,
                                               l.state.data() + x, l.count, T(plan_.dt), l.coef, 1);
            }
        }
        return;
    }
    if (!dev_.staged()) {
        // CPU devices: the same per-cell operations over contiguous stretches; one pass per list when
        // no E location is in two lists, else every list's currents and then every list's advance.
        auto blocks = [&](const List& l, bool current, bool advance) {
            forBlocks(l.count, threads,
                      kernels::PoleStepBlocks<T>{
                          e[std::size_t(l.comp)], cb[std::size_t(l.comp)], l.offset.data(), l.weight.data(),
                          l.scratch.data(), l.state.data(), l.count, T(plan_.dt), l.coef, current, advance});
        };
        for (List& l : lists_)
            if (l.count > 0)
                blocks(l, true, fused_);
        if (!fused_)
            for (List& l : lists_)
                if (l.count > 0)
                    blocks(l, false, true);
        return;
    }
    // Every list's explicit current first (a cell may be in several lists), then the states, which
    // read the complete E^{n+1}.
    for (List& l : lists_)
        if (l.count > 0)
            device::launchIndex(dev_, l.count, threads,
                                kernels::PoleCurrent<T>{e[std::size_t(l.comp)], cb[std::size_t(l.comp)],
                                                        l.offset.data(), l.state.data(), l.count, l.coef});
    for (List& l : lists_)
        if (l.count > 0)
            device::launchIndex(dev_, l.count, threads,
                                kernels::PoleAdvance<T>{e[std::size_t(l.comp)], l.offset.data(),
                                                        l.weight.data(), l.scratch.data(), l.state.data(),
                                                        l.count, T(plan_.dt), l.coef});
}

template class Dispersion<float>;
template class Dispersion<double>;

} // namespace yee::solver
