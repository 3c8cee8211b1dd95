#include "yee/solver/Tile.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <type_traits>

#include "yee/core/Error.hpp"
#include "yee/device/Exec.hpp"
#include "yee/device/SlabLaunch.hpp"
#include "yee/kernels/Cpml.hpp"
#include "yee/kernels/Halo.hpp"
#include "yee/kernels/Launch.hpp"
#include "yee/kernels/Points.hpp"
#include "yee/kernels/Wavefront.hpp"
#include "yee/kernels/Yee.hpp"
#include "yee/scene/Rasterizer.hpp"
#include "yee/solver/Wavefront.hpp"

namespace yee::device {
// The kernels reading a 1-byte index (kernels::ByteCoef) run on CPU devices only: Tile never gives a GPU
// tile one (planMaterials()), and no CUDA launcher is instantiated for them.
template <class T, bool M> struct CpuOnly<kernels::UpdateH<T, M, kernels::ByteCoef<T>>> : std::true_type {};
template <class T, bool L> struct CpuOnly<kernels::UpdateE<T, L, kernels::ByteCoef<T>>> : std::true_type {};
template <class T, int A> struct CpuOnly<kernels::CpmlE<T, A, kernels::ByteCoef<T>>> : std::true_type {};
template <class T, int A, bool M>
struct CpuOnly<kernels::CpmlH<T, A, M, kernels::ByteCoef<T>>> : std::true_type {};
} // namespace yee::device

namespace yee::solver {

using device::Buffer;
using device::Category;
using device::launch;

namespace {
Box toLocal(const Box& g, const Box& tile) {
    Box l;
    for (int a = 0; a < 3; ++a) {
        l.lo[a] = g.lo[a] - tile.lo[a];
        l.hi[a] = g.hi[a] - tile.lo[a];
    }
    return l;
}
kernels::BoxIndex boxIndex(const Box& b) {
    return {b.lo[0], b.lo[1], b.lo[2], std::int64_t(b.extent(0)), std::int64_t(b.extent(0)) * b.extent(1)};
}
} // namespace

template <class T>
Tile<T>::Tile(std::shared_ptr<const Plan> plan, int index, device::Device& dev)
    : plan_(std::move(plan)), index_(index), dev_(dev) {
    const Plan& p = *plan_;
    const tiling::TileInfo& info = p.tiles->tile(index);
    box_ = info.box;
    shape_ = ArrayShape::make(box_.extent(0), box_.extent(1), box_.extent(2));
    threads_ = dev.threads();

    for (int c = 0; c < 6; ++c)
        fwd_.f[c] = Buffer<T>(dev, shape_.size, Category::Fields);
    dbScalar_ = T(p.dt);

    for (const tiling::PmlSlab& s : info.pml) {
        auto sl = std::make_unique<Slab>();
        sl->slab = s;
        sl->local = toLocal(s.box, box_);
        sl->profLo = sl->local.lo[s.axis];
        const std::int64_t n = s.box.cells();
        for (int q = 0; q < 2; ++q) {
            sl->psiE[q] = Buffer<T>(dev, n, Category::Pml);
            sl->psiH[q] = Buffer<T>(dev, n, Category::Pml);
        }
        const int len = s.box.extent(s.axis);
        for (int q = 0; q < 3; ++q) {
            sl->profE[q] = Buffer<T>(dev, len, Category::Pml);
            sl->profH[q] = Buffer<T>(dev, len, Category::Pml);
        }
        slabs_.push_back(std::move(sl));
    }

    for (const Injection& inj : p.injections) {
        auto ti = std::make_unique<TileInjection>();
        ti->inj = &inj;
        for (std::size_t e = 0; e < inj.cells.size(); ++e) {
            const Index3& g = inj.cells[e];
            if (!box_.contains(g))
                continue;
            ti->hostCells.push_back(g);
            ti->hostAmp.push_back(inj.amp[e]);
            ti->hostOffsets.push_back(shape_.offset(g[0] - box_.lo[0], g[1] - box_.lo[1], g[2] - box_.lo[2]) -
                                      shape_.origin);
        }
        if (ti->hostCells.empty())
            continue;
        ti->offset = Buffer<std::int64_t>(dev, std::int64_t(ti->hostCells.size()), Category::Sources);
        ti->coef = Buffer<T>(dev, std::int64_t(ti->hostCells.size()), Category::Sources);
        injections_.push_back(std::move(ti));
    }

    buildExchanges(fwd_, Category::Halo, 0);

    // ---- the registry of evolving state: fields and CPML psi (Dynamics); detectors add theirs ----
    for (int c = 0; c < 6; ++c)
        state_.add(std::string("field.") + componentName(c), StateRole::Dynamics, fwd_.f[c]);
    for (std::size_t s = 0; s < slabs_.size(); ++s)
        for (int q = 0; q < 2; ++q) {
            const std::string pre = "pml." + std::to_string(s) + ".";
            state_.add(pre + "psiE." + std::to_string(q), StateRole::Dynamics, slabs_[s]->psiE[q]);
            state_.add(pre + "psiH." + std::to_string(q), StateRole::Dynamics, slabs_[s]->psiH[q]);
        }
    finiteCheck_ = device::FiniteCheck(dev);
    disp_ = std::make_unique<Dispersion<T>>(p, box_, shape_, dev, state_); // pole currents (Dynamics)
    planMaterials(); // a material index and tables where they fit, else per-cell arrays
    setupWavefront();
}

template <class T> std::int64_t Tile<T>::regionCells(const std::vector<Region>& rs) {
    std::int64_t n = 0;
    for (const Region& r : rs)
        n += r.box.empty() ? 0 : r.box.cells();
    return n;
}

template <class T>
std::vector<device::FieldBox<T>> Tile<T>::fieldBoxes(FieldSet& s, const std::vector<Region>& rs) const {
    std::vector<device::FieldBox<T>> parts;
    parts.reserve(rs.size());
    for (const Region& r : rs)
        parts.push_back({view(s, r.comp), r.box});
    return parts;
}

template <class T>
void Tile<T>::download(FieldSet& s, const std::vector<Region>& rs, Buffer<T>& stage, std::vector<T>& host) {
    device::downloadBoxes(dev_, fieldBoxes(s, rs), stage, host);
}

template <class T>
void Tile<T>::upload(FieldSet& s, const std::vector<Region>& rs, Buffer<T>& stage,
                     const std::vector<T>& host) {
    device::uploadBoxes(dev_, fieldBoxes(s, rs), stage, host);
}

template <class T> View<T> Tile<T>::regionView(T* base, const Box& box) {
    View<T> v;
    v.sy = box.extent(0);
    v.sz = v.sy * box.extent(1);
    // (i,j,k) -> base + (i - lo0) + sy (j - lo1) + sz (k - lo2): the origin (0,0,0) may lie outside the
    // block, so it is formed as an address (only in-box indices are ever dereferenced).
    const std::int64_t origin = box.lo[0] + v.sy * box.lo[1] + v.sz * box.lo[2];
    v.p = reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(base) -
                               std::uintptr_t(origin * std::int64_t(sizeof(T))));
    return v;
}

template <class T> Tile<T>::~Tile() = default;

template <class T> void Tile<T>::buildExchanges(FieldSet& fs, Category cat, int tagBase) {
    const Plan& p = *plan_;
    const tiling::TileInfo& info = p.tiles->tile(index_);
    const Index3 n = box_.extents();
    std::array<bool, 3> hasLo{}, hasHi{};
    for (int a = 0; a < 3; ++a) {
        hasLo[a] = info.neighbor[a][0] >= 0;
        hasHi[a] = info.neighbor[a][1] >= 0;
    }
    // E: send the low face to the low neighbour (its high halo); receive our high halo from the high one.
    // H: send the high face to the high neighbour (its low halo); receive our low halo from the low one.
    for (int field = 0; field < 2; ++field) {
        for (int a = 0; a < 3; ++a) {
            Face f;
            f.axis = a;
            f.field = field;
            Box face{{0, 0, 0}, n};
            if (field == 0) {
                f.sendBox = face;
                f.sendBox.hi[a] = 1;
                f.recvBox = face;
                f.recvBox.lo[a] = n[a];
                f.recvBox.hi[a] = n[a] + 1;
                f.hasSend = hasLo[a];
                f.hasRecv = hasHi[a];
            } else {
                f.sendBox = face;
                f.sendBox.lo[a] = n[a] - 1;
                f.recvBox = face;
                f.recvBox.lo[a] = -1;
                f.recvBox.hi[a] = 0;
                f.hasSend = hasHi[a];
                f.hasRecv = hasLo[a];
            }
            if (!f.hasSend && !f.hasRecv)
                continue;
            const std::int64_t cnt = 2 * f.sendBox.cells();
            if (f.hasSend)
                f.send = Buffer<T>(dev_, cnt, cat);
            if (f.hasRecv)
                f.recv = Buffer<T>(dev_, cnt, cat);
            fs.faces.push_back(std::move(f));
        }
    }
    for (Face& f : fs.faces) {
        comm::ExchangeGroup& g = f.field == 0 ? fs.groupE : fs.groupH;
        const int tag = tagBase + f.field * 3 + f.axis;
        const int sendTo = f.field == 0 ? info.neighbor[f.axis][0] : info.neighbor[f.axis][1];
        const int recvFrom = f.field == 0 ? info.neighbor[f.axis][1] : info.neighbor[f.axis][0];
        if (f.hasSend)
            g.sends.push_back({sendTo, tag, f.send.data(), f.send.bytes()});
        if (f.hasRecv)
            g.recvs.push_back({recvFrom, tag, f.recv.data(), f.recv.bytes()});
    }
    if (&fs != &fwd_)
        return;
    // Interior / boundary split for overlapping: the H update of the high faces needs the E halo; the
    // E update of the low faces needs the H halo. The rest is independent of the halos.
    coreH_ = Box{{0, 0, 0}, n};
    coreE_ = Box{{0, 0, 0}, n};
    for (int a = 0; a < 3; ++a) {
        if (hasHi[a])
            coreH_.hi[a] = n[a] - 1;
        if (hasLo[a])
            coreE_.lo[a] = 1;
    }
    for (int a = 0; a < 3; ++a) {
        if (hasHi[a]) {
            Box s{{0, 0, 0}, n};
            for (int b = 0; b < a; ++b)
                if (hasHi[b])
                    s.hi[b] = n[b] - 1;
            s.lo[a] = n[a] - 1;
            restH_.push_back(s);
        }
        if (hasLo[a]) {
            Box s{{0, 0, 0}, n};
            for (int b = 0; b < a; ++b)
                if (hasLo[b])
                    s.lo[b] = 1;
            s.hi[a] = 1;
            restE_.push_back(s);
        }
    }
}

template <class T> int Tile<T>::fillThreads() const {
    // A GPU tile's device has one (launching) thread; its fill is host work, spread over the host's
    // threads shared by the tiles of the plan.
    if (!dev_.isCuda())
        return threads_;
    return std::max(1, device::hostThreads() / std::max(1, plan_->tiles->count()));
}

template <class T> typename Tile<T>::TupleKey Tile<T>::keyOf(const CellTuple& t) {
    TupleKey k{};
    for (std::size_t c = 0; c < 3; ++c) {
        std::memcpy(&k[3 * c], &t[c].cb, sizeof(T));
        std::memcpy(&k[3 * c + 1], &t[c].ca, sizeof(T));
        std::memcpy(&k[3 * c + 2], &t[c].db, sizeof(T));
    }
    return k;
}

template <class T> std::size_t Tile<T>::TupleHash::operator()(const TupleKey& k) const {
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    for (std::uint64_t v : k)
        h = (h ^ v) * 0x100000001b3ull + (h >> 29);
    return std::size_t(h);
}

template <class T> void Tile<T>::coefRow(int c, int gj, int gk, int gi0, int gi1, CellTuple* out) const {
    const Plan& p = *plan_;
    const scene::Rasterizer& r = *p.raster;
    const double dt = p.dt;
    const double sigmaScale = scene::kEta0 * p.scene.cellUm * 1e-6; // S/m -> normalised
    const int n = gi1 - gi0;
    thread_local std::vector<scene::CellMaterial> rowE, rowH;
    rowE.resize(static_cast<std::size_t>(n));
    rowH.resize(static_cast<std::size_t>(n));
    r.fillRow(0, c, gj, gk, gi0, gi1, rowE.data());
    if (p.magnetic)
        r.fillRow(1, c, gj, gk, gi0, gi1, rowH.data());
    for (int ii = 0; ii < n; ++ii) {
        const Index3 g{gi0 + ii, gj, gk};
        const scene::CellMaterial& m = rowE[std::size_t(ii)];
        const double s = m.sigma * sigmaScale * dt / (2 * m.eps);
        double cbv = (dt / m.eps) / (1 + s);
        // PEC walls (behind CPML or explicit): tangential E on the low face stays zero;
        // the high face's tangential E is the never-written halo.
        for (int a = 0; a < 3; ++a)
            if (a != c && g[a] == 0 && p.bc[a] != tiling::AxisBoundary::Periodic)
                cbv = 0;
        CoefTuple& t = out[ii][std::size_t(c)];
        t.cb = T(cbv);
        t.ca = p.lossy ? T((1 - s) / (1 + s)) : T(0);
        t.db = p.magnetic ? T(dt / rowH[std::size_t(ii)].mu) : T(0);
    }
}

template <class T>
const std::vector<std::pair<int, int>>& Tile<T>::tupleRow(int gj, int gk, int gi0, int gi1,
                                                          CellTuple* out) const {
    thread_local std::vector<std::pair<int, int>> runs;
    plan_->raster->uniformRuns(gj, gk, gi0, gi1, runs);
    // Cells [from, to) one by one; each run [a, b) from its first two cells: every location's material
    // is the same along it, and only the first cell can be on the PEC wall (global i = 0).
    const auto each = [&](int from, int to) {
        if (to > from)
            for (int c = 0; c < 3; ++c)
                coefRow(c, gj, gk, from, to, out + (from - gi0));
    };
    int done = gi0;
    for (const auto& [a, b] : runs) {
        each(done, std::min(a + 2, b));
        for (int i = a + 2; i < b; ++i)
            out[i - gi0] = out[a + 1 - gi0];
        done = b;
    }
    each(done, gi1);
    return runs;
}

template <class T> int Tile<T>::wallPattern(const Index3& g) const {
    int pat = 0;
    for (int a = 0; a < 3; ++a)
        if (g[a] == 0 && plan_->bc[a] != tiling::AxisBoundary::Periodic)
            pat |= 1 << a;
    return pat;
}

template <class T> int Tile<T>::designOf(const Index3& g) const {
    for (std::size_t d = 0; d < designBox_.size(); ++d)
        if (designBox_[d].contains(g))
            return int(d);
    return -1;
}

template <class T> std::int64_t Tile<T>::designSlot(int d, const Index3& g) const {
    const Box& b = designBox_[std::size_t(d)];
    const std::int64_t lin =
        (g[0] - b.lo[0]) +
        std::int64_t(b.extent(0)) * ((g[1] - b.lo[1]) + std::int64_t(b.extent(1)) * (g[2] - b.lo[2]));
    return std::int64_t(table_.size()) + designStart_[std::size_t(d)] + lin;
}

template <class T> void Tile<T>::planMaterials() {
    const Plan& p = *plan_;
    const scene::Rasterizer& r = *p.raster;
    // Design cells: one table slot each (their values change with every refill), per design in order.
    std::int64_t designSlots = 0;
    for (int d = 0; d < r.designCount(); ++d) {
        const Box g = r.designBox(d).intersect(box_);
        designBox_.push_back(g);
        designStart_.push_back(designSlots);
        designSlots += g.empty() ? 0 : g.cells();
    }
    const std::int64_t limit = std::min(p.materialTableLimit, kernels::kMaterialTableMax);
    bool fits = !p.perCellCoefficients && disp_->none() && designSlots < limit;
    const Index3 n = box_.extents();
    // Homogeneous: no design cells, and every cell's set follows from its wall pattern alone.
    bool homogeneous = designSlots == 0;
    if (fits) {
        // The distinct coefficient sets of the non-design cells, row by row on the fill's threads (each row
        // rasterised only where surfaces cut it, tupleRow()); stops early once the table would overflow.
        std::mutex m;
        std::unordered_map<TupleKey, CellTuple, TupleHash> all;
        std::array<TupleKey, 8> patternKey{};
        std::array<CellTuple, 8> patternTuple{};
        std::array<bool, 8> patternSeen{};
        std::atomic<bool> over{false};
        kernels::forEachRow(Box{{0, 0, 0}, {1, n[1], n[2]}}, fillThreads(), [&](int jj, int kk, int, int) {
            if (over.load(std::memory_order_relaxed))
                return;
            thread_local std::vector<CellTuple> row;
            row.resize(static_cast<std::size_t>(n[0]));
            const int gj = box_.lo[1] + jj, gk = box_.lo[2] + kk;
            const std::vector<std::pair<int, int>>& runs =
                tupleRow(gj, gk, box_.lo[0], box_.hi[0], row.data());
            struct Fresh {
                TupleKey key;
                CellTuple tuple;
                int pattern;
            };
            std::vector<Fresh> fresh;
            std::size_t r = 0;
            for (int ii = 0; ii < n[0]; ++ii) {
                const int gi = box_.lo[0] + ii;
                while (r < runs.size() && runs[r].second <= gi)
                    ++r;
                if (r < runs.size() && gi >= runs[r].first + 2) { // the rest of the run repeats cell gi - 1
                    ii = runs[r].second - box_.lo[0] - 1;
                    continue;
                }
                if (!designBox_.empty() && designOf({gi, gj, gk}) >= 0)
                    continue;
                const TupleKey key = keyOf(row[std::size_t(ii)]);
                const int pattern = wallPattern({gi, gj, gk});
                if (fresh.empty() || fresh.back().key != key || fresh.back().pattern != pattern)
                    fresh.push_back({key, row[std::size_t(ii)], pattern});
            }
            const std::lock_guard<std::mutex> lock(m);
            for (const Fresh& f : fresh) {
                all.emplace(f.key, f.tuple);
                const auto q = std::size_t(f.pattern);
                if (!patternSeen[q]) {
                    patternSeen[q] = true;
                    patternKey[q] = f.key;
                    patternTuple[q] = f.tuple;
                } else if (patternKey[q] != f.key) {
                    homogeneous = false;
                }
            }
            if (std::int64_t(all.size()) + designSlots > limit)
                over = true;
        });
        fits = !over;
        if (fits && homogeneous && !dev_.isCuda() && p.smallTableLimit > 0) {
            // The entry is the wall pattern (kernels::ByteCoef, CPU devices); patterns no cell has stay zero.
            wall_ = true;
            table_.assign(patternTuple.begin(), patternTuple.end());
            for (int a = 0; a < 3; ++a)
                if (box_.lo[a] == 0 && p.bc[a] != tiling::AxisBoundary::Periodic)
                    wallAt_[std::size_t(a)] = 0;
        } else if (fits && !dev_.staged() && perCellCacheResident(p, sizeof(T))) { // CUDA tiles are staged
            fits = false; // served from the cache: per-cell arrays (Plan::perCellCacheBytes)
        } else if (fits) {
            // Entries in the order of their bit patterns, so the tables do not depend on the threads.
            std::vector<std::pair<TupleKey, CellTuple>> sorted(all.begin(), all.end());
            std::sort(sorted.begin(), sorted.end(),
                      [](const auto& a, const auto& b) { return a.first < b.first; });
            for (const auto& [key, t] : sorted) {
                lookup_.emplace(key, kernels::MaterialIndex(table_.size()));
                table_.push_back(t);
            }
        }
    }
    device::Device& dev = dev_;
    indexed_ = fits;
    if (!indexed_) {
        for (int c = 0; c < 3; ++c) {
            cb_[c] = Buffer<T>(dev, shape_.size, Category::Materials);
            if (p.lossy)
                ca_[c] = Buffer<T>(dev, shape_.size, Category::Materials);
            if (p.magnetic)
                db_[c] = Buffer<T>(dev, shape_.size, Category::Materials);
        }
        return;
    }
    const std::int64_t entries = std::int64_t(table_.size()) + designSlots;
    if (!wall_) { // one index per interior cell (the kernels read coefficients only where they update)
        // One byte where the table fits, on CPU devices (the GPU kernels read 2-byte indices).
        small_ = entries <= std::min(p.smallTableLimit, kernels::kSmallTableMax) && !dev_.isCuda();
        idxSy_ = n[0];
        idxSz_ = std::int64_t(n[0]) * n[1];
        const std::int64_t cells = box_.cells();
        if (small_)
            idx8_ = Buffer<kernels::SmallMaterialIndex>(dev, cells, Category::Materials);
        else
            idx_ = Buffer<kernels::MaterialIndex>(dev, cells, Category::Materials);
        if (!dev_.isCuda()) // the CPU row drivers' one-entry rows (fill())
            rowEntry_ = Buffer<std::int32_t>(dev, std::int64_t(n[1]) * n[2], Category::Materials);
    }
    for (std::size_t c = 0; c < 3; ++c) {
        tabCb_[c] = Buffer<T>(dev, entries, Category::Materials);
        if (p.lossy)
            tabCa_[c] = Buffer<T>(dev, entries, Category::Materials);
        if (p.magnetic)
            tabDb_[c] = Buffer<T>(dev, entries, Category::Materials);
    }
}

template <class T> void Tile<T>::fillMaterials(const Box& gb, device::HostFill& hf, unsigned what) {
    const Plan& p = *plan_;
    const Index3 n = gb.extents();
    const Index3 o{gb.lo[0] - box_.lo[0], gb.lo[1] - box_.lo[1], gb.lo[2] - box_.lo[2]};
    const bool perCellOut = (what & kPerCell) && perCell();
    const bool indexOut = (what & kIndex) && indexed_ && !wall_;
    const bool designOut = (what & kDesignTable) && indexed_ && !wall_;
    if (!perCellOut && !indexOut && !designOut)
        return; // a homogeneous tile's tables are all it has (fill())
    // ---- materials: Cb, Ca at E locations, Db at H locations ----
    std::array<View<T>, 3> cb, ca, db;
    std::array<T*, 3> tcb{}, tca{}, tdb{};
    for (std::size_t c = 0; c < 3; ++c) {
        if (perCellOut) {
            cb[c] = View<T>(hf(cb_[c]), shape_);
            ca[c] = View<T>(hf(ca_[c]), shape_);
            db[c] = View<T>(hf(db_[c]), shape_);
        }
        if (designOut) {
            tcb[c] = hf(tabCb_[c]);
            tca[c] = hf(tabCa_[c]);
            tdb[c] = hf(tabDb_[c]);
        }
    }
    kernels::MaterialIndex* ix16 = indexOut && !small_ ? hf(idx_) : nullptr;
    kernels::SmallMaterialIndex* ix8 = indexOut && small_ ? hf(idx8_) : nullptr;
    const bool ix = ix16 || ix8;
    const auto setIndex = [&](std::int64_t at, std::int64_t entry) {
        if (ix8)
            ix8[at] = kernels::SmallMaterialIndex(entry);
        else
            ix16[at] = kernels::MaterialIndex(entry);
    };
    // Rows of gb on the tile's worker pool (kernels/Launch.hpp), each rasterised into this thread's row
    // buffers, written on the host (HostFill: the arrays themselves, or GPUs' host mirrors).
    kernels::forEachRow(Box{{0, 0, 0}, {1, n[1], n[2]}}, fillThreads(), [&](int jj, int kk, int, int) {
        thread_local std::vector<CellTuple> row;
        row.resize(static_cast<std::size_t>(n[0]));
        const int gj = gb.lo[1] + jj, gk = gb.lo[2] + kk;
        const int j = o[1] + jj, k = o[2] + kk;
        tupleRow(gj, gk, gb.lo[0], gb.hi[0], row.data());
        TupleKey lastKey{};
        kernels::MaterialIndex lastIndex = 0;
        bool haveLast = false;
        for (int ii = 0; ii < n[0]; ++ii) {
            const int i = o[0] + ii;
            const CellTuple& t = row[std::size_t(ii)];
            if (perCellOut)
                for (std::size_t c = 0; c < 3; ++c) {
                    cb[c](i, j, k) = t[c].cb;
                    if (p.lossy)
                        ca[c](i, j, k) = t[c].ca;
                    if (p.magnetic)
                        db[c](i, j, k) = t[c].db;
                }
            if (!indexOut && !designOut)
                continue;
            const Index3 g{gb.lo[0] + ii, gj, gk};
            const int d = designBox_.empty() ? -1 : designOf(g);
            if (d >= 0) { // a design cell: its own slot, the values written into the tables
                const std::int64_t slot = designSlot(d, g);
                if (ix)
                    setIndex(indexAt(i, j, k), slot);
                if (designOut)
                    for (std::size_t c = 0; c < 3; ++c) {
                        tcb[c][slot] = t[c].cb;
                        if (tca[c])
                            tca[c][slot] = t[c].ca;
                        if (tdb[c])
                            tdb[c][slot] = t[c].db;
                    }
                continue;
            }
            if (!ix)
                continue;
            const TupleKey key = keyOf(t);
            if (!haveLast || key != lastKey) {
                const auto it = lookup_.find(key);
                if (it == lookup_.end())
                    throw std::logic_error("Tile::fillMaterials: a coefficient set missing from the table");
                lastKey = key;
                lastIndex = it->second;
                haveLast = true;
            }
            setIndex(indexAt(i, j, k), lastIndex);
        }
    });
}

template <class T> void Tile<T>::refillDesigns() {
    dev_.sync();                     // no kernel may read the coefficients while the host rewrites them
    device::HostFill hf(dev_, true); // GPUs: host copies of the coefficients, rewritten in the design boxes
    for (const Box& g : designBox_)
        if (!g.empty())
            fillMaterials(g, hf, kPerCell | kDesignTable); // the index of design cells never changes
    hf.commit();
}

template <class T> void Tile<T>::requirePerCellCoefficients() {
    if (perCell())
        return;
    const Plan& p = *plan_;
    for (int c = 0; c < 3; ++c) {
        cb_[c] = Buffer<T>(dev_, shape_.size, Category::Materials);
        if (p.lossy)
            ca_[c] = Buffer<T>(dev_, shape_.size, Category::Materials);
        if (p.magnetic)
            db_[c] = Buffer<T>(dev_, shape_.size, Category::Materials);
    }
    if (!filled_)
        return; // fill() writes them
    device::HostFill hf(dev_);
    fillMaterials(box_, hf, kPerCell);
    hf.commit();
}

template <class T> T Tile<T>::coefficient(int comp, std::int64_t offset) const {
    const Plan& p = *plan_;
    if (comp >= 3 && !p.magnetic)
        return dbScalar_;
    const int c = comp % 3;
    T v = 0;
    if (!indexed_) {
        const Buffer<T>& b = comp < 3 ? cb_[std::size_t(c)] : db_[std::size_t(c)];
        dev_.copy(&v, b.data() + offset, std::int64_t(sizeof(T)));
        return v;
    }
    // The table entry of the cell: its wall pattern, or its index.
    const std::int64_t kp = offset / shape_.sz, jp = (offset - kp * shape_.sz) / shape_.sy;
    const std::int64_t ip = offset - kp * shape_.sz - jp * shape_.sy;
    const int i = int(ip) - 1, j = int(jp) - 1, k = int(kp) - 1; // tile-local interior cell
    std::int64_t e = 0;
    if (wall_) {
        e = wallPattern({box_.lo[0] + i, box_.lo[1] + j, box_.lo[2] + k});
    } else if (small_) {
        kernels::SmallMaterialIndex e8 = 0;
        dev_.copy(&e8, idx8_.data() + indexAt(i, j, k), std::int64_t(sizeof(e8)));
        e = e8;
    } else {
        kernels::MaterialIndex e16 = 0;
        dev_.copy(&e16, idx_.data() + indexAt(i, j, k), std::int64_t(sizeof(e16)));
        e = e16;
    }
    const Buffer<T>& t = comp < 3 ? tabCb_[std::size_t(c)] : tabDb_[std::size_t(c)];
    dev_.copy(&v, t.data() + e, std::int64_t(sizeof(T)));
    return v;
}

template <class T> void Tile<T>::resetState() {
    dev_.sync();
    for (const StateEntry& e : state_.entries())
        if (e.data && e.bytes > 0)
            dev_.zero(e.data, e.bytes);
    dev_.sync();
}

template <class T> void Tile<T>::fill() {
    const Plan& p = *plan_;
    const double dt = p.dt;
    // Every constant is written on the host (on GPUs into host mirrors, copied to the device once, below).
    device::HostFill hf(dev_);
    fillMaterials(box_, hf, kPerCell | kIndex | kDesignTable);
    if (indexed_) // the deduplicated entries; the design cells' follow, written above
        for (std::size_t c = 0; c < 3; ++c) {
            T* tcb = hf(tabCb_[c]);
            T* tca = hf(tabCa_[c]);
            T* tdb = hf(tabDb_[c]);
            for (std::size_t e = 0; e < table_.size(); ++e) {
                tcb[e] = table_[e][c].cb;
                if (tca)
                    tca[e] = table_[e][c].ca;
                if (tdb)
                    tdb[e] = table_[e][c].db;
            }
        }
    else
        disp_->fill(hf, cb_, ca_); // dispersive cells: the pole currents' implicit part in Ca, Cb
    if (rowEntry_.allocated()) {
        // Rows of one entry but at cell 0 (the design cells' entries are their own and never move,
        // refillDesigns()).
        const kernels::MaterialIndex* ix16 = small_ ? nullptr : hf(idx_);
        const kernels::SmallMaterialIndex* ix8 = small_ ? hf(idx8_) : nullptr;
        std::int32_t* re = hf(rowEntry_);
        const Index3 n = box_.extents();
        kernels::forEachRow(Box{{0, 0, 0}, {1, n[1], n[2]}}, fillThreads(), [&](int j, int k, int, int) {
            // Cell 0 is not compared: on the low x wall it has an entry of its own (tangential Cb 0).
            const auto oneEntry = [&](const auto* row) {
                if (n[0] <= 1)
                    return std::int32_t(row[0]);
                return kernels::detail::runEnd(row, 2, n[0], row[1]) == n[0] ? std::int32_t(row[1]) : -1;
            };
            const std::int64_t at = indexAt(0, j, k);
            re[j + std::int64_t(k) * n[1]] = ix8 ? oneEntry(ix8 + at) : oneEntry(ix16 + at);
        });
    }
    // ---- CPML grading ----
    for (auto& sl : slabs_) {
        const int a = sl->slab.axis;
        const PmlParams& pp = p.pml[a];
        const int d = sl->slab.thickness, N = p.geom.cells[a];
        const int len = sl->slab.box.extent(a);
        for (int h = 0; h < 2; ++h) {
            const auto& buf = h == 0 ? sl->profE : sl->profH;
            T* prof[3] = {hf(buf[0]), hf(buf[1]), hf(buf[2])};
            for (int q = 0; q < len; ++q) {
                const int g = sl->slab.box.lo[a] + q;
                const double pos = g + (h == 0 ? 0.0 : 0.5);
                double rho = sl->slab.side == 0 ? d - pos : pos - (N - d);
                rho = std::clamp(rho, 0.0, double(d));
                const double x = rho / d;
                const double xm = std::pow(x, pp.order);
                const double sigma = pp.sigmaMax * xm;
                const double kappa = 1 + (pp.kappaMax - 1) * xm;
                const double alpha = pp.alphaMax * (1 - x);
                const double b = std::exp(-(sigma / kappa + alpha) * dt);
                const double den = sigma * kappa + kappa * kappa * alpha;
                const double cc = den > 0 ? sigma / den * (b - 1) : 0.0;
                prof[0][q] = T(b);
                prof[1][q] = T(cc);
                prof[2][q] = T(1 / kappa - 1);
            }
        }
    }
    // ---- injections: coefficient of the cell times amplitude ----
    for (auto& ti : injections_) {
        const int comp = ti->inj->comp;
        const std::size_t c = std::size_t(comp % 3);
        const bool fromTable = indexed_ && (comp < 3 || p.magnetic);
        const kernels::MaterialIndex* ix16 = fromTable && !small_ ? hf(idx_) : nullptr;
        const kernels::SmallMaterialIndex* ix8 = fromTable && small_ ? hf(idx8_) : nullptr;
        const auto entry = [&](std::size_t e) -> std::int64_t { // the cell's table entry
            const Index3& g = ti->hostCells[e];
            if (wall_)
                return wallPattern(g);
            const std::int64_t at = indexAt(g[0] - box_.lo[0], g[1] - box_.lo[1], g[2] - box_.lo[2]);
            return ix8 ? std::int64_t(ix8[at]) : std::int64_t(ix16[at]);
        };
        const T* cbc = comp < 3 ? hf(fromTable ? tabCb_[c] : cb_[c]) : nullptr;
        const T* dbc = comp >= 3 && p.magnetic ? hf(fromTable ? tabDb_[c] : db_[c]) : nullptr;
        std::int64_t* offset = hf(ti->offset);
        T* coefs = hf(ti->coef);
        for (std::size_t e = 0; e < ti->hostCells.size(); ++e) {
            const std::int64_t at = ti->hostOffsets[e] + shape_.origin;
            const std::int64_t q = fromTable ? entry(e) : at; // the table entry, or the cell
            double coef;
            if (comp < 3) {
                coef = double(cbc[q]);
            } else {
                coef = p.magnetic ? double(dbc[q]) : dt;
            }
            offset[e] = ti->hostOffsets[e] + shape_.origin;
            coefs[e] = T(coef * ti->hostAmp[e]);
        }
    }
    hf.commit();
    filled_ = true;
}

template <class T> void Tile<T>::updateH(FieldSet& s, const Box& b) {
    const Plan& p = *plan_;
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = view(s, c);
    withCoefs([&](const auto& m) {
        using C = std::decay_t<decltype(m.db[0])>;
        if (p.magnetic) {
            kernels::UpdateH<T, true, C> k{f[3], f[4],    f[5],    f[0],    f[1],
                                           f[2], m.db[0], m.db[1], m.db[2], dbScalar_};
            launch(dev_, b, threads_, k);
        } else {
            kernels::UpdateH<T, false, C> k{f[3], f[4], f[5], f[0], f[1], f[2], {}, {}, {}, dbScalar_};
            launch(dev_, b, threads_, k);
        }
    });
}

template <class T> void Tile<T>::updateE(FieldSet& s, const Box& b, bool withCa) {
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = view(s, c);
    withCoefs([&](const auto& m) {
        using C = std::decay_t<decltype(m.cb[0])>;
        if (withCa && plan_->lossy) {
            kernels::UpdateE<T, true, C> k{f[0],    f[1],    f[2],    f[3],    f[4],    f[5],
                                           m.cb[0], m.cb[1], m.cb[2], m.ca[0], m.ca[1], m.ca[2]};
            launch(dev_, b, threads_, k);
        } else {
            kernels::UpdateE<T, false, C> k{f[0],    f[1],    f[2],    f[3], f[4], f[5],
                                            m.cb[0], m.cb[1], m.cb[2], {},   {},   {}};
            launch(dev_, b, threads_, k);
        }
    });
}

namespace {
kernels::SlabIndex slabIndex(const Box& L) {
    return {L.lo[0], L.lo[1], L.lo[2], std::int64_t(L.extent(0)), std::int64_t(L.extent(0)) * L.extent(1)};
}

/// A row of `main` with the corrections of slabs s0, s1, s2 (device::slabRow), and a group of rows in one
/// call (device::slabRows), for the row drivers (kernels::RowRef).
template <class Main, class V0, class V1, class V2> struct SlabRowFn {
    const Main& main;
    const V0& s0;
    const V1& s1;
    const V2& s2;
    void operator()(int j, int k, int i0, int i1) const { device::slabRow(main, s0, s1, s2, j, k, i0, i1); }
    void rows(int j0, int j1, int k, int i0, int i1) const {
        device::slabRows(main, s0, s1, s2, j0, j1, k, i0, i1);
    }
};

/// `main` over b with the CPML corrections of every slab: build(axisTag, slab) makes the CPML functor of
/// one slab along axis decltype(axisTag)::value; the slabs go to their axis' list in tile order, and
/// device::launchWithSlabs runs the sweep as the device runs it (row-fused on CPUs, passes on GPUs).
/// With `fold` (CPU devices whose pole update is folded into the E sweep, solver/Dispersion.hpp) each
/// row goes through fold(j, k, i0, i1, update), which calls update(c0, c1, poles) for its chunks:
/// `main` (or `plain`, the Ca-free update, where `poles` is false and `plain` is given) and the slab
/// corrections over [c0, c1), the same operations per cell as the row-fused sweep.
/// With a `sink` (CPU devices, the fused H-then-E pass of Tile::stepFused) nothing runs over b: the row
/// is handed to the sink, which runs it for the rows it chooses.
template <class Main, class Slabs, class Build, class Plain = std::nullptr_t, class Fold = std::nullptr_t>
void sweepWithSlabs(device::Device& dev, const Box& b, int threads, const kernels::RowSink* sink,
                    const Main& main, const Slabs& slabs, Build&& build, const Plain& plain = nullptr,
                    const Fold& fold = nullptr) {
    using A0 = std::integral_constant<int, 0>;
    using A1 = std::integral_constant<int, 1>;
    using A2 = std::integral_constant<int, 2>;
    std::vector<device::SlabKernel<decltype(build(A0{}, *slabs.front()))>> s0;
    std::vector<device::SlabKernel<decltype(build(A1{}, *slabs.front()))>> s1;
    std::vector<device::SlabKernel<decltype(build(A2{}, *slabs.front()))>> s2;
    for (auto& sl : slabs) {
        if (sl->slab.axis == 0)
            s0.push_back({sl->local, build(A0{}, *sl)});
        else if (sl->slab.axis == 1)
            s1.push_back({sl->local, build(A1{}, *sl)});
        else
            s2.push_back({sl->local, build(A2{}, *sl)});
    }
    if constexpr (std::is_same_v<Fold, std::nullptr_t>) {
        if (sink) {
            const SlabRowFn<Main, decltype(s0), decltype(s1), decltype(s2)> row{main, s0, s1, s2};
            (*sink)(kernels::RowRef::of(row));
            return;
        }
        device::launchWithSlabs(dev, b, threads, main, s0, s1, s2);
    } else {
        const auto row = [&](int j, int k, int i0, int i1) {
            fold(j, k, i0, i1, [&](int c0, int c1, bool poles) {
                if constexpr (!std::is_same_v<Plain, std::nullptr_t>) {
                    if (!poles)
                        kernels::detail::runRow(plain, c0, c1, j, k);
                    else
                        kernels::detail::runRow(main, c0, c1, j, k);
                } else {
                    kernels::detail::runRow(main, c0, c1, j, k);
                }
                device::detail::rowSlabs(s0, j, k, c0, c1);
                device::detail::rowSlabs(s1, j, k, c0, c1);
                device::detail::rowSlabs(s2, j, k, c0, c1);
            });
        };
        if (sink)
            (*sink)(kernels::RowRef::of(row));
        else
            kernels::forEachRow(b, threads, row);
    }
}
} // namespace

template <class T> void Tile<T>::updateEWithPml(const Box& b, const kernels::RowSink* sink) {
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = field(c);
    withCoefs([&](const auto& m) {
        using C = std::decay_t<decltype(m.cb[0])>;
        auto build = [&](auto axisTag, Slab& sl) {
            constexpr int A = decltype(axisTag)::value;
            constexpr int p1 = (A + 1) % 3, p2 = (A + 2) % 3;
            return kernels::CpmlE<T, A, C>{f[p1],
                                           f[p2],
                                           f[3 + p2],
                                           f[3 + p1],
                                           m.cb[p1],
                                           m.cb[p2],
                                           sl.psiE[0].data(),
                                           sl.psiE[1].data(),
                                           slabIndex(sl.local),
                                           {sl.profE[0].data(), sl.profE[1].data(), sl.profE[2].data()},
                                           sl.profLo};
        };
        const kernels::UpdateE<T, true, C> lossy{f[0],    f[1],    f[2],    f[3],    f[4],    f[5],
                                                 m.cb[0], m.cb[1], m.cb[2], m.ca[0], m.ca[1], m.ca[2]};
        const kernels::UpdateE<T, false, C> plain{f[0],    f[1],    f[2],    f[3], f[4], f[5],
                                                  m.cb[0], m.cb[1], m.cb[2], {},   {},   {}};
        if constexpr (std::is_same_v<C, View<const T>>) { // dispersive scenes keep per-cell arrays
            if (disp_->folded()) {
                // CPU: the pole currents and advance of each row chunk right after its E update (and
                // CPML), while E is in cache; where Ca is 1 but at listed cells, chunks without poles
                // skip Ca.
                const std::vector<kernels::PoleFoldList<T>> lists =
                    disp_->foldLists({fwd_.f[0].data(), fwd_.f[1].data(), fwd_.f[2].data()},
                                     {cb_[0].data(), cb_[1].data(), cb_[2].data()});
                const int nl = int(lists.size());
                const T pdt = disp_->dt();
                auto fold = [&](int j, int k, int i0, int i1, const auto& update) {
                    thread_local std::vector<std::int64_t> cursor;
                    cursor.resize(std::size_t(2 * nl));
                    kernels::poleFoldRow(lists.data(), nl, pdt, shape_.offset(0, j, k), i0, i1, cursor.data(),
                                         update);
                };
                if (disp_->caOnlyAtPoles())
                    sweepWithSlabs(dev_, b, threads_, sink, lossy, slabs_, build, plain, fold);
                else
                    sweepWithSlabs(dev_, b, threads_, sink, lossy, slabs_, build, nullptr, fold);
                return;
            }
        }
        if (plan_->lossy)
            sweepWithSlabs(dev_, b, threads_, sink, lossy, slabs_, build);
        else
            sweepWithSlabs(dev_, b, threads_, sink, plain, slabs_, build);
    });
}

template <class T> void Tile<T>::updateHWithPml(const Box& b, const kernels::RowSink* sink) {
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = field(c);
    withCoefs([&](const auto& m) {
        using C = std::decay_t<decltype(m.db[0])>;
        auto run = [&](auto magTag) {
            constexpr bool M = decltype(magTag)::value;
            auto build = [&](auto axisTag, Slab& sl) {
                constexpr int A = decltype(axisTag)::value;
                constexpr int q1 = (A + 1) % 3, q2 = (A + 2) % 3;
                return kernels::CpmlH<T, A, M, C>{
                    f[3 + q1],
                    f[3 + q2],
                    f[q2],
                    f[q1],
                    m.db[q1],
                    m.db[q2],
                    dbScalar_,
                    sl.psiH[0].data(),
                    sl.psiH[1].data(),
                    slabIndex(sl.local),
                    {sl.profH[0].data(), sl.profH[1].data(), sl.profH[2].data()},
                    sl.profLo};
            };
            sweepWithSlabs(dev_, b, threads_, sink,
                           kernels::UpdateH<T, M, C>{f[3], f[4], f[5], f[0], f[1], f[2], m.db[0], m.db[1],
                                                     m.db[2], dbScalar_},
                           slabs_, build);
        };
        if (plan_->magnetic)
            run(std::true_type{});
        else
            run(std::false_type{});
    });
}

template <class T> void Tile<T>::inject(int fieldGroup, double t, double sign) {
    const Plan& p = *plan_;
    for (auto& ti : injections_) {
        const int comp = ti->inj->comp;
        if ((comp < 3) != (fieldGroup == 0))
            continue;
        const T amp = T(sign * p.sourceTimes[ti->inj->source](t + ti->inj->shift));
        kernels::Inject<T> k{fwd_.f[comp].data(), ti->offset.data(), ti->coef.data(), amp};
        device::launchIndex(dev_, ti->offset.size(), 1, k);
    }
}

template <class T> void Tile<T>::pack(FieldSet& s, int fieldGroup) {
    for (Face& f : s.faces) {
        if (f.field != fieldGroup || !f.hasSend)
            continue;
        const int c1 = (f.axis + 1) % 3 + 3 * fieldGroup, c2 = (f.axis + 2) % 3 + 3 * fieldGroup;
        const std::int64_t half = f.sendBox.cells();
        kernels::PackFace<T> k1{view(s, c1), f.send.data(), boxIndex(f.sendBox)};
        kernels::PackFace<T> k2{view(s, c2), f.send.data() + half, boxIndex(f.sendBox)};
        launch(dev_, f.sendBox, 1, k1);
        launch(dev_, f.sendBox, 1, k2);
    }
}

template <class T> void Tile<T>::unpack(FieldSet& s, int fieldGroup) {
    for (Face& f : s.faces) {
        if (f.field != fieldGroup || !f.hasRecv)
            continue;
        const int c1 = (f.axis + 1) % 3 + 3 * fieldGroup, c2 = (f.axis + 2) % 3 + 3 * fieldGroup;
        const std::int64_t half = f.recvBox.cells();
        kernels::BoxIndex bi = boxIndex(f.recvBox);
        kernels::UnpackFace<T> k1{view(s, c1), f.recv.data(), bi, 0, 0, 0};
        kernels::UnpackFace<T> k2{view(s, c2), f.recv.data() + half, bi, 0, 0, 0};
        launch(dev_, f.recvBox, 1, k1);
        launch(dev_, f.recvBox, 1, k2);
    }
}

template <class T> void Tile<T>::step(int n, comm::Communicator& comm, bool overlap, comm::Phase phase) {
    if (wavefront_ && !dev_.staged()) {
        stepFused(n, comm, overlap, phase); // TileWavefront.cpp
        return;
    }
    if (!dev_.staged())
        Wavefront::count(0, 0, 2 * box_.cells());
    const double dt = plan_->dt;
    // ---- H^{n-1/2} -> H^{n+1/2}: curl of E^n; the high E halo arrives from the previous step ----
    if (overlap) {
        updateHWithPml(coreH_); // independent of the E halo
        finishPending(comm);
        for (const Box& b : restH_)
            updateHWithPml(b);
    } else {
        finishPending(comm);
        updateHWithPml(coreH_);
        for (const Box& b : restH_)
            updateHWithPml(b);
    }
    inject(1, n * dt); // magnetic-side plane-source corrections, E^n time
    // H^{n+1/2} valid on owned cells; low H halo stale.
    pack(fwd_, 1);
    if (hostStaged(comm, fwd_.groupH))
        dev_.sync(); // host communicators read the packed faces now
    comm.exchangeStart(fwd_.groupH, phase);
    // ---- E^n -> E^{n+1}: curl of H^{n+1/2}; the low H halo is needed on the low faces ----
    if (!disp_->none())
        disp_->beforeE({fwd_.f[0].data(), fwd_.f[1].data(), fwd_.f[2].data()}, threads_); // keeps E^n
    if (overlap) {
        updateEWithPml(coreE_);
        comm.exchangeFinish(fwd_.groupH);
        unpack(fwd_, 1);
        for (const Box& b : restE_)
            updateEWithPml(b);
    } else {
        comm.exchangeFinish(fwd_.groupH);
        unpack(fwd_, 1);
        updateEWithPml(coreE_);
        for (const Box& b : restE_)
            updateEWithPml(b);
    }
    inject(0, (n + 0.5) * dt); // electric currents J^{n+1/2}
    if (!disp_->none())        // pole currents, then the pole state to n + 1 (where not folded)
        disp_->afterE({fwd_.f[0].data(), fwd_.f[1].data(), fwd_.f[2].data()},
                      {cb_[0].data(), cb_[1].data(), cb_[2].data()}, threads_);
    // E^{n+1} valid on owned cells; high E halo stale until the exchange completes.
    pack(fwd_, 0);
    if (hostStaged(comm, fwd_.groupE))
        dev_.sync();
    comm.exchangeStart(fwd_.groupE, phase);
    fwd_.pendingE = true;
    if (!overlap)
        finishPending(comm);
}

template <class T> void Tile<T>::finishPending(comm::Communicator& comm) {
    if (!fwd_.pendingE)
        return;
    comm.exchangeFinish(fwd_.groupE);
    unpack(fwd_, 0);
    fwd_.pendingE = false;
}

template <class T> bool Tile<T>::finite() const {
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = field(c);
    return finiteCheck_.allFinite(dev_, threads_, f, 6, box_.extents());
}

template <class T> std::vector<typename Tile<T>::StateBlock> Tile<T>::stateBlocks() {
    dev_.sync(); // the bytes are read or overwritten on the host
    return state_.entries();
}

template class Tile<float>;
template class Tile<double>;

} // namespace yee::solver
