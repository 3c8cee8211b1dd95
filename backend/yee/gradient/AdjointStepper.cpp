#include "yee/gradient/AdjointStepper.hpp"

#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "yee/core/WorkerPool.hpp"
#include "yee/device/Exec.hpp"
#include "yee/device/SlabLaunch.hpp"
#include "yee/kernels/Adjoint.hpp"
#include "yee/kernels/Dispersion.hpp"
#include "yee/kernels/Wavefront.hpp"
#include "yee/kernels/Yee.hpp"
#include "yee/solver/Wavefront.hpp"

namespace yee::device {
// The transposes reading a 1-byte index (kernels::ByteCoef) run on CPU devices only: no GPU tile has one
// (solver/Tile.cpp), and no CUDA launcher is instantiated for them.
template <class T, int A, bool M, int I>
struct CpuOnly<kernels::CpmlEAdjoint<T, A, M, I, kernels::ByteCoef<T>>> : std::true_type {};
template <class T, int A, int I>
struct CpuOnly<kernels::CpmlHAdjoint<T, A, I, kernels::ByteCoef<T>>> : std::true_type {};
template <class T> struct CpuOnly<kernels::ScaleCa<T, kernels::ByteCoef<T>>> : std::true_type {};
} // namespace yee::device

namespace yee::gradient {

using device::Buffer;
using device::Category;
using device::launch;

template <class T> AdjointStepper<T>::AdjointStepper(solver::Tile<T>& tile) : tile_(tile) {
    // The pole transposes index Cb per cell (cbData()); a tile with dispersive cells keeps per-cell arrays.
    if (!tile.dispersion().lists().empty() && !tile.perCell())
        throw std::logic_error("adjoint: a tile with dispersive cells has no per-cell Cb");
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
        for (int b = 0; b < 2; ++b)
            for (int q = 0; q < 2; ++q) {
                sa.psiE[b][q] = Buffer<T>(dev, n, Category::Adjoint);
                sa.psiH[b][q] = Buffer<T>(dev, n, Category::Adjoint);
            }
        slabAdj_.push_back(std::move(sa));
    }
    wavefront_ = !dev.staged() && solver::Wavefront::adjointEnabledByEnvironment();
    slabPlanes_ = solver::Wavefront::slabPlanes();
    blockRows_ = solver::Wavefront::blockRows(std::int64_t(sh.nx) * std::int64_t(sizeof(T)));
    planeCost_ = tile.planeCosts(Box{{0, 0, 0}, tile.box().extents()});
    for (auto& l : tile.dispersion().lists()) // only where the tile holds dispersive cells
        poleAdj_.push_back({Buffer<T>(dev, l.count * l.stateSlots, Category::Adjoint),
                            Buffer<T>(dev, l.count, Category::Adjoint)});
}

template <class T> const T* AdjointStepper<T>::cbData(int c) const {
    return tile_.cb(c).p - tile_.shape().origin; // the buffer start, which pole offsets index
}

template <class T> void AdjointStepper<T>::polesAfterE() {
    auto& lists = tile_.dispersion().lists();
    const int th = tile_.threads();
    // Reverse of the forward order: the advance of every list, then every list's current.
    for (std::size_t q = 0; q < lists.size(); ++q) {
        auto& l = lists[q];
        if (l.count == 0)
            continue;
        kernels::PoleAdvanceT<T> k{adj_.f[std::size_t(l.comp)].data(),
                                   cbData(l.comp),
                                   l.offset.data(),
                                   l.weight.data(),
                                   poleAdj_[q].scratch.data(),
                                   poleAdj_[q].state.data(),
                                   l.count,
                                   T(tile_.plan().dt),
                                   l.coef};
        device::launchIndex(tile_.device(), l.count, th, k);
    }
    for (std::size_t q = 0; q < lists.size(); ++q) {
        auto& l = lists[q];
        if (l.count == 0)
            continue;
        device::launchIndex(tile_.device(), l.count, th,
                            kernels::PoleCurrentT<T>{adj_.f[std::size_t(l.comp)].data(), l.offset.data(),
                                                     poleAdj_[q].state.data(), l.count, l.coef});
    }
}

template <class T> void AdjointStepper<T>::polesBeforeE() {
    auto& lists = tile_.dispersion().lists();
    for (std::size_t q = 0; q < lists.size(); ++q) {
        auto& l = lists[q];
        if (l.count == 0)
            continue;
        device::launchIndex(tile_.device(), l.count, tile_.threads(),
                            kernels::PoleSaveET<T>{adj_.f[std::size_t(l.comp)].data(), cbData(l.comp),
                                                   l.offset.data(), poleAdj_[q].scratch.data()});
    }
}

template <class T> void AdjointStepper<T>::zero() {
    for (int c = 0; c < 6; ++c)
        tile_.device().zero(adj_.f[std::size_t(c)].data(), adj_.f[std::size_t(c)].bytes());
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
template <class T> kernels::SlabIndex slabIndex(const typename solver::Tile<T>::Slab& sl) {
    const Box& L = sl.local;
    return {L.lo[0], L.lo[1], L.lo[2], std::int64_t(L.extent(0)), std::int64_t(L.extent(0)) * L.extent(1)};
}
/// A slab kernel: the tested form `k` over `box`, the test-free form `inner` for the cells whose
/// coordinate along the slab axis lies in [lo, hi) (both slab locations they read lie in the slab), and for
/// the end rows of a y or z slab the forms that read only the second or only the first location
/// (kernels::kSlabSecondOnly, kSlabFirstOnly). All compute the same values where they apply.
template <class G> struct SplitSlab {
    using Inner = decltype(std::declval<G>().template part<kernels::kSlabInner>());
    using SecondOnly = decltype(std::declval<G>().template part<kernels::kSlabSecondOnly>());
    using FirstOnly = decltype(std::declval<G>().template part<kernels::kSlabFirstOnly>());
    Box box;
    G k;
    int axis, lo, hi;
    Inner inner = k.template part<kernels::kSlabInner>();
    SecondOnly second = k.template part<kernels::kSlabSecondOnly>();
    FirstOnly first = k.template part<kernels::kSlabFirstOnly>();
    /// The form for a cell or row whose first slab location lies at c0 along the axis: kSlabSecondOnly,
    /// kSlabFirstOnly, or kSlabTested where neither applies (no location in the slab).
    int partAt(int c0) const {
        using kernels::kSlabTested;
        const bool in0 = kernels::detail::slabFirstIn<kSlabTested>(c0, k.slo, k.shi),
                   in1 = kernels::detail::slabSecondIn<kSlabTested>(c0, k.slo, k.shi);
        return !in0 && in1 ? kernels::kSlabSecondOnly
                           : (in0 && !in1 ? kernels::kSlabFirstOnly : kernels::kSlabTested);
    }
    /// Row (j, kk, [i0, i1)) of a y or z slab (axis 1 or 2) whose coordinate along the axis is c, in the
    /// form whose locations are known for the whole row.
    void yzRow(int c, int i0, int i1, int j, int kk) const {
        using kernels::detail::runRow;
        if (c >= lo && c < hi)
            return runRow(inner, i0, i1, j, kk);
        switch (partAt(c + G::firstOffset)) {
        case kernels::kSlabSecondOnly:
            return runRow(second, i0, i1, j, kk);
        case kernels::kSlabFirstOnly:
            return runRow(first, i0, i1, j, kk);
        default:
            return runRow(k, i0, i1, j, kk);
        }
    }
    /// Cells [i0, i1) of rows j0..j1-1 of plane kk of an x slab (axis 0), outside [lo, hi): the ends of
    /// the rows, one or two cells each, run inline (a loop call per end cell cost an eighth of the reverse
    /// sweep, perf of the gradient benchmark's waveguide) as columns over the rows, each cell in the form
    /// whose locations are known for it. The cells are independent (the kernels' cellsIndependent), and
    /// each computes the same expression in every form (no contraction): the same bits.
    void xEnds(int i0, int i1, int j0, int j1, int kk) const {
        if (i1 - i0 > 2) {
            for (int j = j0; j < j1; ++j)
                kernels::detail::runRow(k, i0, i1, j, kk);
            return;
        }
        for (int i = i0; i < i1; ++i) {
            switch (partAt(i + G::firstOffset)) {
            case kernels::kSlabSecondOnly:
                for (int j = j0; j < j1; ++j)
                    second(i, j, kk);
                break;
            case kernels::kSlabFirstOnly:
                for (int j = j0; j < j1; ++j)
                    first(i, j, kk);
                break;
            default:
                for (int j = j0; j < j1; ++j)
                    k(i, j, kk);
            }
        }
    }
};
/// CPML-E^T of one slab, over the H locations it covers; `psi`: the slab's psibar buffers this step
/// (AdjointStepper::Psi), `m` the tile's coefficients (Tile::withCoefs).
template <class T, int A, bool M, class C, class Psi>
SplitSlab<kernels::CpmlEAdjoint<T, A, M, kernels::kSlabTested, C>>
eAdjoint(const View<T>* f, solver::Tile<T>& tile, typename solver::Tile<T>::Slab& sl, const Psi& psi,
         const typename solver::Tile<T>::template Coefs<C>& m) {
    const Box& L = sl.local;
    Box hb = L;
    if (hb.lo[A] > 0)
        hb.lo[A] -= 1; // the H location just below the slab also receives -w(lo)
    const kernels::PmlProfile<T> prof{sl.profE[0].data(), sl.profE[1].data(), sl.profE[2].data()};
    const kernels::CpmlEAdjoint<T, A, M, kernels::kSlabTested, C> k{f[3 + (A + 2) % 3],
                                                                    f[3 + (A + 1) % 3],
                                                                    m.db[(A + 2) % 3],
                                                                    m.db[(A + 1) % 3],
                                                                    tile.dbScalar(),
                                                                    f[(A + 1) % 3],
                                                                    f[(A + 2) % 3],
                                                                    psi.in1,
                                                                    psi.in2,
                                                                    psi.out1,
                                                                    psi.out2,
                                                                    slabIndex<T>(sl),
                                                                    prof,
                                                                    sl.profLo,
                                                                    L.lo[A],
                                                                    L.hi[A]};
    return {hb, k, A, L.lo[A], L.hi[A] - 1};
}
/// CPML-H^T of one slab, over the E locations it covers (as eAdjoint).
template <class T, int A, class C, class Psi>
SplitSlab<kernels::CpmlHAdjoint<T, A, kernels::kSlabTested, C>>
hAdjoint(const View<T>* f, solver::Tile<T>& tile, typename solver::Tile<T>::Slab& sl, const Psi& psi,
         const typename solver::Tile<T>::template Coefs<C>& m) {
    const Box& L = sl.local;
    Box eb = L;
    if (eb.hi[A] < tile.box().extent(A))
        eb.hi[A] += 1; // the E location just above the slab gets w(hi-1)
    const kernels::PmlProfile<T> prof{sl.profH[0].data(), sl.profH[1].data(), sl.profH[2].data()};
    const kernels::CpmlHAdjoint<T, A, kernels::kSlabTested, C> k{
        f[(A + 2) % 3],     f[(A + 1) % 3], m.cb[(A + 2) % 3], m.cb[(A + 1) % 3], f[3 + (A + 1) % 3],
        f[3 + (A + 2) % 3], psi.in1,        psi.in2,           psi.out1,          psi.out2,
        slabIndex<T>(sl),   prof,           sl.profLo,         L.lo[A],           L.hi[A]};
    return {eb, k, A, L.lo[A] + 1, L.hi[A]};
}

/// Row (j, k, [i0, i1)) of every kernel of v, in order.
template <class G> void rowOf(const std::vector<SplitSlab<G>>& v, int j, int k, int i0, int i1) {
    using kernels::detail::runRow;
    for (const auto& s : v) {
        if (j < s.box.lo[1] || j >= s.box.hi[1] || k < s.box.lo[2] || k >= s.box.hi[2])
            continue;
        const int lo = std::max(i0, s.box.lo[0]), hi = std::min(i1, s.box.hi[0]);
        if (lo >= hi)
            continue;
        device::detail::prefetchPsiAhead(s.k, lo, j, k);
        if (s.axis == 0) { // tested cells at the slab's ends, test-free between
            const int a = std::clamp(s.lo, lo, hi), b = std::clamp(s.hi, a, hi);
            if (lo < a)
                s.xEnds(lo, a, j, j + 1, k);
            if (a < b)
                runRow(s.inner, a, b, j, k);
            if (b < hi)
                s.xEnds(b, hi, j, j + 1, k);
        } else {
            s.yzRow(s.axis == 1 ? j : k, lo, hi, j, k);
        }
    }
}
/// Rows j0..j1-1 of plane k, cells [i0, i1), of every x-slab kernel of v, in order: the cells at the
/// slab's ends as columns over the rows (SplitSlab::xEnds), and the test-free middles of the rows in one
/// block (kernels::detail::runRowBlock: one call instead of one per row, as the forward's x slabs,
/// device/SlabLaunch.hpp). The same operations per cell as rowOf row by row.
template <class G> void xBlockOf(const std::vector<SplitSlab<G>>& v, int j0, int j1, int k, int i0, int i1) {
    for (const auto& s : v) {
        const device::detail::RowsPart p = device::detail::rowsPart(s.box, j0, j1, k, i0, i1);
        if (p.empty())
            continue;
        const int ja = p.ja, jb = p.jb, lo = p.lo, hi = p.hi;
        const int a = std::clamp(s.lo, lo, hi), b = std::clamp(s.hi, a, hi);
        if (lo < a)
            s.xEnds(lo, a, ja, jb, k);
        if (b < hi)
            s.xEnds(b, hi, ja, jb, k);
        if (a >= b)
            continue;
        if (b - a <= device::detail::kBlockSlabRowMax) {
            for (int j = ja; j < jb; ++j)
                device::detail::prefetchPsiAhead(s.k, lo, j, k);
            kernels::detail::runRowBlock(s.inner, a, b, ja, jb, k);
        } else {
            for (int j = ja; j < jb; ++j) {
                device::detail::prefetchPsiAhead(s.k, lo, j, k);
                kernels::detail::runRow(s.inner, a, b, j, k);
            }
        }
    }
}
/// One launch per kernel of v over its box, in order (staged devices: the tested form only).
template <class E> void passesOf(device::Device& dev, const std::vector<E>& v) {
    for (const auto& s : v)
        launch(dev, s.box, 1, s.k);
}

/// One kind of per-slab kernel (SplitSlab), one list per axis; each list in the order its kernels apply.
template <class E0, class E1, class E2> struct AxisLists {
    std::vector<E0> x;
    std::vector<E1> y;
    std::vector<E2> z;
    /// Row (j, k, [i0, i1)) of every kernel, axis z first, then y, then x (the transposes' order).
    void row(int j, int k, int i0, int i1) const {
        rowOf(z, j, k, i0, i1);
        rowOf(y, j, k, i0, i1);
        rowOf(x, j, k, i0, i1);
    }
    /// Rows j0..j1-1 of plane k: each row's z and y kernels, then the x kernels of all the rows
    /// (xBlockOf); every cell in row()'s order.
    void rows(int j0, int j1, int k, int i0, int i1) const {
        for (int j = j0; j < j1; ++j) {
            rowOf(z, j, k, i0, i1);
            rowOf(y, j, k, i0, i1);
        }
        xBlockOf(x, j0, j1, k, i0, i1);
    }
    /// One launch per kernel over its box, in the same order (staged devices).
    void passes(device::Device& dev) const {
        passesOf(dev, z);
        passesOf(dev, y);
        passesOf(dev, x);
    }
};
/// Push make(axisTag, slab index) onto the list of the slab's axis, for the slabs from last to first
/// (the reverse of the forward order; with AxisLists::row's z, y, x order: the forward order reversed).
template <class L, class Slabs, class Make> void collect(L& lists, const Slabs& slabs, Make&& make) {
    for (int s = int(slabs.size()) - 1; s >= 0; --s)
        withAxis(slabs[std::size_t(s)]->slab.axis, [&](auto axis) {
            constexpr int A = decltype(axis)::value;
            auto v = make(axis, s);
            if constexpr (A == 0)
                lists.x.push_back(std::move(v));
            else if constexpr (A == 1)
                lists.y.push_back(std::move(v));
            else
                lists.z.push_back(std::move(v));
        });
}
template <class T, int A, bool M, class C>
using ESplit = SplitSlab<kernels::CpmlEAdjoint<T, A, M, kernels::kSlabTested, C>>;
template <class T, int A, class C>
using HSplit = SplitSlab<kernels::CpmlHAdjoint<T, A, kernels::kSlabTested, C>>;

/// One half of the adjoint step: the CPML transposes of every slab (`slabs`, AxisLists) and the curl
/// update after them, per cell.
template <class L, class U> struct AdjointHalf {
    L slabs;
    U update;
    /// Row (j, k, [i0, i1)): the slab transposes in their order, then the curl (CPU devices).
    void row(int j, int k, int i0, int i1) const {
        slabs.row(j, k, i0, i1);
        kernels::detail::runRow(update, i0, i1, j, k);
    }
    /// Rows j0..j1-1 of plane k, each cell as row() (the fused pass's row groups).
    void rows(int j0, int j1, int k, int i0, int i1) const {
        slabs.rows(j0, j1, k, i0, i1);
        for (int j = j0; j < j1; ++j)
            kernels::detail::runRow(update, i0, i1, j, k);
    }
};
/// The first half on the tile's adjoint views f: the CPML-E^T kernels of every slab (psiOf(slab, true):
/// its psibar buffers this step) and Q -= Db curl P, for one accessor kind C.
template <class T, bool M, class C>
struct QHalf : AdjointHalf<AxisLists<ESplit<T, 0, M, C>, ESplit<T, 1, M, C>, ESplit<T, 2, M, C>>,
                           kernels::UpdateH<T, M, C>> {
    template <class PsiOf>
    QHalf(const View<T>* f, solver::Tile<T>& tile, const typename solver::Tile<T>::template Coefs<C>& m,
          PsiOf&& psiOf) {
        this->update = {f[3], f[4], f[5], f[0], f[1], f[2], m.db[0], m.db[1], m.db[2], tile.dbScalar()};
        auto& sl = tile.slabs();
        collect(this->slabs, sl, [&](auto axis, int s) {
            constexpr int A = decltype(axis)::value;
            return eAdjoint<T, A, M, C>(f, tile, *sl[std::size_t(s)], psiOf(std::size_t(s), true), m);
        });
    }
};
/// The second half: the CPML-H^T kernels of every slab (psiOf(slab, false)) and P += Cb curl Q.
template <class T, class C>
struct PHalf : AdjointHalf<AxisLists<HSplit<T, 0, C>, HSplit<T, 1, C>, HSplit<T, 2, C>>,
                           kernels::UpdateE<T, false, C>> {
    template <class PsiOf>
    PHalf(const View<T>* f, solver::Tile<T>& tile, const typename solver::Tile<T>::template Coefs<C>& m,
          PsiOf&& psiOf) {
        this->update = {f[0], f[1], f[2], f[3], f[4], f[5], m.cb[0], m.cb[1], m.cb[2], {}, {}, {}};
        auto& sl = tile.slabs();
        collect(this->slabs, sl, [&](auto axis, int s) {
            constexpr int A = decltype(axis)::value;
            return hAdjoint<T, A, C>(f, tile, *sl[std::size_t(s)], psiOf(std::size_t(s), false), m);
        });
    }
};

/// The fused pass's row callables of the adjoint step (kernels::wavefrontRows): Q of a row or group of
/// rows, and P (after P *= Ca where the scene is lossy).
/// `extra` (or null): the caller's forward rows after each (AdjointPassRows).
template <class Q> struct QRows {
    const Q& q;
    const kernels::RowRef* extra;
    void operator()(int j, int k, int i0, int i1) const {
        q.row(j, k, i0, i1);
        if (extra)
            (*extra)(j, k, i0, i1);
    }
    void rows(int j0, int j1, int k, int i0, int i1) const {
        q.rows(j0, j1, k, i0, i1);
        if (extra)
            extra->rows(j0, j1, k, i0, i1);
    }
};
template <class P, class S> struct PRows {
    const P& p;
    const S& scale;
    bool lossy;
    const kernels::RowRef* extra;
    void operator()(int j, int k, int i0, int i1) const {
        if (lossy)
            kernels::detail::runRow(scale, i0, i1, j, k);
        p.row(j, k, i0, i1);
        if (extra)
            (*extra)(j, k, i0, i1);
    }
    void rows(int j0, int j1, int k, int i0, int i1) const {
        if (lossy)
            for (int j = j0; j < j1; ++j)
                kernels::detail::runRow(scale, i0, i1, j, k);
        p.rows(j0, j1, k, i0, i1);
        if (extra)
            extra->rows(j0, j1, k, i0, i1);
    }
};
} // namespace

template <class T> typename AdjointStepper<T>::Psi AdjointStepper<T>::psiPair(std::size_t s, bool eField) {
    auto& pair = eField ? slabAdj_[s].psiE : slabAdj_[s].psiH;
    auto& in = pair[std::size_t(parity_)];
    auto& out = pair[std::size_t(1 - parity_)];
    return {in[0].data(), in[1].data(), out[0].data(), out[1].data()};
}

template <class T> template <bool M> void AdjointStepper<T>::qAndUpdateH() {
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = tile_.view(adj_, c);
    const Box all{{0, 0, 0}, tile_.box().extents()};
    device::Device& dev = tile_.device();
    tile_.withCoefs([&](const auto& m) {
        using C = std::decay_t<decltype(m.cb[0])>;
        const QHalf<T, M, C> q(f, tile_, m, [this](std::size_t s, bool e) { return psiPair(s, e); });
        if (dev.staged()) {
            q.slabs.passes(dev);
            tile_.updateH(adj_, all);
            return;
        }
        // Per H cell: the slab transposes in their order, then Q -= Db curl P. Nothing reads another cell's
        // Q, and the transposes read P and the psibar of the step before only, so one row sweep keeps every
        // cell's operations and their order.
        kernels::forEachRow(all, tile_.threads(), [&](int j, int k, int i0, int i1) { q.row(j, k, i0, i1); });
    });
}

template <class T> void AdjointStepper<T>::pAndUpdateE() {
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = tile_.view(adj_, c);
    const Box all{{0, 0, 0}, tile_.box().extents()};
    device::Device& dev = tile_.device();
    tile_.withCoefs([&](const auto& m) {
        using C = std::decay_t<decltype(m.cb[0])>;
        const PHalf<T, C> p(f, tile_, m, [this](std::size_t s, bool e) { return psiPair(s, e); });
        if (dev.staged()) {
            p.slabs.passes(dev);
            tile_.updateE(adj_, all, false);
            return;
        }
        // Per E cell: the slab transposes in their order (they read Q, final since qAndUpdateH), then
        // P += Cb curl Q (no other cell's P is read).
        kernels::forEachRow(all, tile_.threads(), [&](int j, int k, int i0, int i1) { p.row(j, k, i0, i1); });
    });
}

template <class T> bool AdjointStepper<T>::fusable() const {
    const comm::ExchangeGroup& g = adj_.groupH;
    return wavefront_ && tile_.dispersion().lists().empty() && g.sends.empty() && g.recvs.empty();
}

template <class T> bool AdjointStepper<T>::passTakesRows() const {
    return fusable() && mergedH_.sends.empty() && mergedH_.recvs.empty();
}

template <class T> template <bool M> void AdjointStepper<T>::fusedSweep(const AdjointPassRows* rows) {
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = tile_.view(adj_, c);
    const Box all{{0, 0, 0}, tile_.box().extents()};
    const bool lossy = tile_.plan().lossy;
    tile_.withCoefs([&](const auto& m) {
        using C = std::decay_t<decltype(m.cb[0])>;
        const auto psiOf = [this](std::size_t s, bool e) { return psiPair(s, e); };
        const QHalf<T, M, C> q(f, tile_, m, psiOf);
        const PHalf<T, C> p(f, tile_, m, psiOf);
        const kernels::ScaleCa<T, C> scale{f[0], f[1], f[2], m.ca[0], m.ca[1], m.ca[2]};
        // The step's two halves have the forward step's shape (the transpose of the interior step is the
        // forward step itself, kernels/Adjoint.hpp): Q of row (j, k) reads P of rows (j, k), (j + 1, k),
        // (j, k + 1) only (the curl's and the CPML-E^T's forward differences), P of row (j, k) reads Q of
        // rows (j, k), (j - 1, k), (j, k - 1) only, and P *= Ca is pointwise; so the wavefront order gives
        // every cell the operands of the two sweeps (kernels/Wavefront.hpp), and the same bits.
        // The forward rows (rows) read and write only forward fields, in the same dependency shape.
        const kernels::RowRef* hx = rows && rows->h.fn ? &rows->h : nullptr;
        const kernels::RowRef* ex = rows && rows->e.fn ? &rows->e : nullptr;
        const QRows<QHalf<T, M, C>> qRow{q, hx};
        const PRows<PHalf<T, C>, kernels::ScaleCa<T, C>> pRow{p, scale, lossy, ex};
        kernels::wavefrontRows(all, all, tile_.threads(), slabPlanes_, blockRows_, qRow, pRow,
                               planeCost_.data());
    });
}

template <class T> void AdjointStepper<T>::exchange(comm::Communicator& comm, int field, bool merged) {
    if (merged)
        tile_.pack(tile_.forward(), field);
    tile_.pack(adj_, field);
    comm::ExchangeGroup& g =
        merged ? (field == 0 ? mergedE_ : mergedH_) : (field == 0 ? adj_.groupE : adj_.groupH);
    if (solver::Tile<T>::hostStaged(comm, g))
        tile_.device().sync();
    comm.exchangeStart(g, comm::Phase::Adjoint);
    comm.exchangeFinish(g);
    if (merged)
        tile_.unpack(tile_.forward(), field);
    tile_.unpack(adj_, field);
}

template <class T>
void AdjointStepper<T>::step(comm::Communicator& comm, bool withForward, const std::function<void()>& sources,
                             const std::function<void()>& betweenHalves, const AdjointPassRows* rows) {
    const Box all{{0, 0, 0}, tile_.box().extents()};
    if (rows && (!passTakesRows() || betweenHalves))
        throw std::logic_error("adjoint step: forward rows given to a step that cannot take them");
    // Each CPML transpose is one pass per slab, run with the transposed curl of the same field in one
    // sweep; the order of every cell's operations is the order of the transposed forward step.
    sources(); // P = Cb dJ/dE^{n+1} complete now
    polesAfterE();
    exchange(comm, 0, withForward); // P halos (and the forward E^n's when merged), one group
    if (fusable()) {
        // Both halves in one pass; what ran between them reads and writes neither P nor Q (no poles; the
        // forward H reconstruction touches the forward fields only), and the Q exchange has no faces (the
        // call keeps the step's message count). Forward rows (rows) ride in the same pass.
        if (tile_.plan().magnetic)
            fusedSweep<true>(rows);
        else
            fusedSweep<false>(rows);
        if (betweenHalves)
            betweenHalves();
        exchange(comm, 1, withForward);
        parity_ ^= 1;
        solver::Wavefront::countAdjoint(2 * all.cells(), 0, rows ? 1 : 0);
        return;
    }
    if (!tile_.device().staged())
        solver::Wavefront::countAdjoint(0, 2 * all.cells());
    // CPML-E^T (reads P), Q -= Db curl P (the transpose of the E update's curl H)
    if (tile_.plan().magnetic)
        qAndUpdateH<true>();
    else
        qAndUpdateH<false>();
    if (tile_.plan().lossy)
        tile_.withCoefs([&](const auto& m) {
            using C = std::decay_t<decltype(m.ca[0])>;
            const kernels::ScaleCa<T, C> k{
                tile_.view(adj_, 0), tile_.view(adj_, 1), tile_.view(adj_, 2), m.ca[0], m.ca[1], m.ca[2]};
            launch(tile_.device(), all, tile_.threads(), k);
        });
    polesBeforeE(); // the E^n the poles read, after the Ca scaling
    if (betweenHalves)
        betweenHalves();
    exchange(comm, 1, withForward); // Q halos (and the forward H^{n-1/2}'s when merged), one group
    pAndUpdateE(); // CPML-H^T (reads Q), then P += Cb curl Q (transpose of the H update's curl E)
    parity_ ^= 1;  // the psibar written this step is the one the next step reads
}

template class AdjointStepper<float>;
template class AdjointStepper<double>;

} // namespace yee::gradient
