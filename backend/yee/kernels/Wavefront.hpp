#pragma once
/// \file Wavefront.hpp
/// The fused H-then-E sweep of CPU devices (wavefront): one pass over the planes of a box along its
/// slowest axis (z) that updates, row by row (in groups of rows, kWavefrontRowGroup), H of row (j, k) and
/// then E of the same row, so the E update reads H^{n+1/2} of rows (j, k), (j - 1, k) and (j, k - 1) while
/// they are still in cache, and each field crosses the memory bus about once per step instead of twice.
///
/// Why the order is exact: the H update of row (j, k) reads E^n of rows (j, k), (j + 1, k) and
/// (j, k + 1) (forward differences), none of which has had its E update yet when H of (j, k) runs; the
/// E update of row (j, k) reads H^{n+1/2} of rows (j, k), (j - 1, k) and (j, k - 1) (backward
/// differences), all of which have had their H update. Every cell therefore sees the operands and
/// operations of the two-sweep step (all of H, then all of E), and the bits are the same.
///
/// Threads: the planes are cut into slabs of consecutive planes, handed to the worker pool's threads as
/// chunks (core/WorkerPool.hpp). A slab runs its planes fused, except the E update of its first plane
/// k0, which would read H of plane k0 - 1 (another slab's) and which that slab's H of plane k0 - 1 must
/// read as E^n. That join plane's E update may run once both slabs beside it have finished: each join
/// plane has a counter, each of its two slabs adds one when it finishes, and the slab that finishes
/// second runs the plane's E update on its own thread, inside the same parallel range (no second
/// launch and no second wait per pass). A slab's own H of its last plane reads E^n of the next slab's
/// first plane, which nobody updates before both have finished. One extra plane of E traffic per slab
/// is the price.
///
/// Slab sizes: the pool hands out slabs in order, so the last slabs handed out decide when the pass
/// ends; they are made thinner (the first slab about twice as thick as the last, wavefrontSlabBounds)
/// so that the threads run out of work at about the same time.
///
/// Column blocks: within a slab the rows go in blocks of `blockRows` consecutive j, each block through
/// all the slab's planes before the next block starts, so the H of row (j, k - 1) that E of row (j, k)
/// reads was written one block-plane earlier (blockRows rows of every array) rather than one whole
/// plane earlier, and stays in the core's cache for planes of any size. Exact for the same reason: H of
/// a block's last row reads E^n of the next block's first row, which that block updates only later; E of
/// a block's first row reads H of the previous block's last row, which that block has finished.
/// This header stays C++17-clean.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include "yee/core/Box.hpp"
#include "yee/core/WorkerPool.hpp"

namespace yee::kernels {

/// Whether row callable R also runs rows j0..j1-1 of a plane in one call: r.rows(j0, j1, k, i0, i1).
template <class R, class = void> struct HasRows : std::false_type {};
template <class R>
struct HasRows<R, std::void_t<decltype(std::declval<const R&>().rows(0, 0, 0, 0, 0))>> : std::true_type {};

/// Rows j0..j1-1 of plane k, cells [i0, i1), of row callable r: r.rows where it has that form, else row by
/// row.
template <class R> inline void runRows(const R& r, int j0, int j1, int k, int i0, int i1) {
    if constexpr (HasRows<R>::value) {
        r.rows(j0, j1, k, i0, i1);
    } else {
        for (int j = j0; j < j1; ++j)
            r(j, k, i0, i1);
    }
}

/// A type-erased row callback: fn(ctx, j, k, i0, i1) updates cells [i0, i1) of row (j, k), and rowsFn,
/// where the callable has a rows form, rows j0..j1-1 of plane k in one call. Does not own `ctx`, which must
/// outlive every call.
struct RowRef {
    void (*fn)(const void* ctx, int j, int k, int i0, int i1) = nullptr;
    const void* ctx = nullptr;
    void (*rowsFn)(const void* ctx, int j0, int j1, int k, int i0, int i1) = nullptr; ///< or null
    /// Run the row.
    void operator()(int j, int k, int i0, int i1) const { fn(ctx, j, k, i0, i1); }
    /// Run rows j0..j1-1 of plane k: in one call where the callable has a rows form (HasRows).
    void rows(int j0, int j1, int k, int i0, int i1) const {
        if (rowsFn) {
            rowsFn(ctx, j0, j1, k, i0, i1);
        } else {
            for (int j = j0; j < j1; ++j)
                fn(ctx, j, k, i0, i1);
        }
    }
    /// A reference to the callable `r` (row(j, k, i0, i1), and r.rows(j0, j1, k, i0, i1) where it has
    /// that), which must outlive the RowRef.
    template <class R> static RowRef of(const R& r) {
        RowRef x{
            [](const void* c, int j, int k, int i0, int i1) { (*static_cast<const R*>(c))(j, k, i0, i1); },
            &r, nullptr};
        if constexpr (HasRows<R>::value)
            x.rowsFn = [](const void* c, int j0, int j1, int k, int i0, int i1) {
                static_cast<const R*>(c)->rows(j0, j1, k, i0, i1);
            };
        return x;
    }
};

/// A type-erased consumer of a row callback (the sweep builders hand it their row instead of running it
/// over a box). Does not own `ctx`.
struct RowSink {
    void (*fn)(const void* ctx, const RowRef& row) = nullptr;
    const void* ctx = nullptr;
    /// Hand `row` to the consumer; the row stays valid only during this call.
    void operator()(const RowRef& row) const { fn(ctx, row); }
    /// A reference to the callable `f` (f(const RowRef&)), which must outlive the RowSink.
    template <class F> static RowSink of(const F& f) {
        return {[](const void* c, const RowRef& r) { (*static_cast<const F*>(c))(r); }, &f};
    }
};

/// Rows of a plane that the fused pass hands its row callables at a time (runRows): H of the group, then E
/// of the group. Exact for the file comment's reason: H of a row reads E^n of that row and the next ones,
/// none of which has had its E update yet; E of a row reads H of that row and earlier ones, all of which
/// have had theirs. A group's rows are few enough that E finds their H in the core's L2 (16 rows of 200
/// cells: 77 KB of the six fields; at 200^3, 16 rows ran 1.00-1.28x as fast as 8 in six alternating runs).
inline constexpr int kWavefrontRowGroup = 16;

/// How many slabs the planes [0, planes) are cut into on `threads` threads: one on one thread; else
/// about four per thread (a thread taken off its core by another job holds at most a quarter of its
/// share), each at least `minPlanes` (>= 1) planes thick, so that the extra plane per slab stays a few
/// percent; and, where that allows more slabs than threads, a multiple of the thread count: the threads
/// then take as many slabs each, and the thinning slabs even out (40 planes on 2 threads: 5 slabs left
/// one thread 3 of them, a pass of 26 plane-times against 22 for 4 slabs).
inline int wavefrontSlabs(int planes, int threads, int minPlanes) {
    if (threads <= 1)
        return 1;
    const int n = std::max(1, std::min(4 * threads, planes / std::max(1, minPlanes)));
    return n > threads ? n - n % threads : n;
}

namespace detail {
/// The slab weights 2n - 1 - t of slab t < n (the first about twice the last): their sum, and the sum of
/// those of the slabs before slab t.
inline std::int64_t slabWeightTotal(std::int64_t n) {
    return n * (3 * n - 1) / 2;
}
inline std::int64_t slabWeightBefore(std::int64_t n, std::int64_t t) {
    return t * (2 * n - 1) - t * (t - 1) / 2;
}
} // namespace detail

/// The first plane, relative to the box's first plane, of slab s (0 <= s <= slabs; s == slabs gives
/// `planes`) when [0, planes) is cut into `slabs` slabs whose thickness falls linearly from the first to
/// the last, about 2:1 (weights 2 slabs - 1 - s); uniform where the thinnest would be under one plane.
/// Every slab has at least one plane when slabs <= planes.
inline int wavefrontSlabBounds(int planes, int slabs, int s) {
    const std::int64_t n = slabs, p = planes, t = s;
    if (n <= 1 || 2 * p < 3 * n - 1) // thinnest exact width p n / total < 1
        return int(p * t / std::max<std::int64_t>(1, n));
    return int(p * detail::slabWeightBefore(n, t) / detail::slabWeightTotal(n));
}

/// The slab bounds bounds[0..slabs] (bounds[0] = 0, bounds[slabs] = planes) of planes whose costs are
/// cost[0..planes): the cuts of wavefrontSlabBounds (each slab's share of the total falling about 2:1)
/// placed by cumulative cost instead of by plane count, each slab at least one plane thick (requires 1 <=
/// slabs <= planes). Why: the planes of a CPML slab normal to z cost more than interior planes (the
/// gradient benchmark's waveguide, 10 PML planes on each side of 40: by plane count one thread got 18 PML
/// planes of 20, and the threads' kernel samples of the forward run were 45.9 and 36.9 %; cut by cost,
/// 42.4 and 41.7 %, perf). Without costs (null) it is wavefrontSlabBounds.
inline void wavefrontCostBounds(const std::int64_t* cost, int planes, int slabs, int* bounds) {
    bounds[0] = 0;
    bounds[slabs] = planes;
    if (!cost) {
        for (int s = 1; s < slabs; ++s)
            bounds[s] = wavefrontSlabBounds(planes, slabs, s);
        return;
    }
    std::int64_t total = 0;
    for (int p = 0; p < planes; ++p)
        total += cost[p];
    // The cut of slab s at the plane boundary whose cumulative cost lies nearest the cost share that
    // wavefrontSlabBounds gives the first s slabs of `planes` uniform planes.
    std::int64_t before = 0;
    int p = 0;
    for (int s = 1; s < slabs; ++s) {
        const double target = double(total) * double(detail::slabWeightBefore(slabs, s)) /
                              double(detail::slabWeightTotal(slabs));
        while (p < planes && double(before + cost[p]) <= target) {
            before += cost[p];
            ++p;
        }
        // p: the first plane whose end passes the target; cut before or after it, whichever is nearer.
        int cut = p;
        if (p < planes && double(before + cost[p]) - target < target - double(before))
            cut = p + 1;
        bounds[s] = std::clamp(cut, bounds[s - 1] + 1, planes - (slabs - s));
    }
}

/// The fused pass: hRow(j, k, bh.lo[0], bh.hi[0]) for every row of `bh` and eRow(j, k, be.lo[0],
/// be.hi[0]) for every row of `be`, on `threads` threads of the calling thread's worker pool in slabs
/// of at least `minPlanes` planes (wavefrontSlabs) and column blocks of `blockRows` rows (<= 0: whole
/// planes), ordered as the file comment says; `planeCost` (or null): the cost of each plane of `bh`
/// (bh.extent(2) entries), by which the slabs are cut (wavefrontCostBounds). Requires the rows (j,
/// k) of `be` to be rows of `bh` and the x range of `be` to lie in that of `bh`; the E update of a cell of
/// `be` may read H only of cells of `bh` or of cells no H update of this pass writes, and the H update of a
/// cell of `bh` may read E only of cells of `be` or of cells no E update of this pass writes (the two sweeps'
/// box pairs of Tile::step satisfy this).
template <class H, class E>
void wavefrontRows(const Box& bh, const Box& be, int threads, int minPlanes, int blockRows, const H& hRow,
                   const E& eRow, const std::int64_t* planeCost = nullptr) {
    if (bh.empty())
        return;
    struct Ctx {
        const H* h;
        const E* e;
        Box bh, be;
        int k0, planes, slabs, block;
        bool anyE;
        std::atomic<int>* joins; // joins[s]: slabs finished beside the first plane of slab s (s >= 1)
        const int* bounds;       // wavefrontCostBounds
        int slabLo(int s) const { return k0 + bounds[s]; }
        /// E of rows [j0, j1) of plane k where `be` has them.
        void eRows(int j0, int j1, int k) const {
            if (!anyE || k < be.lo[2] || k >= be.hi[2])
                return;
            const int a = std::max(j0, be.lo[1]), b = std::min(j1, be.hi[1]);
            if (a < b)
                runRows(*e, a, b, k, be.lo[0], be.hi[0]);
        }
        /// Planes [lo, hi) block by block; `deferFirst`: no E update on plane lo.
        void slab(int lo, int hi, bool deferFirst) const {
            for (int j0 = bh.lo[1]; j0 < bh.hi[1]; j0 += block) {
                const int j1 = std::min(bh.hi[1], j0 + block);
                for (int k = lo; k < hi; ++k) {
                    const bool withE = !(deferFirst && k == lo);
                    for (int g0 = j0; g0 < j1; g0 += kWavefrontRowGroup) {
                        const int g1 = std::min(j1, g0 + kWavefrontRowGroup);
                        runRows(*h, g0, g1, k, bh.lo[0], bh.hi[0]);
                        if (withE)
                            eRows(g0, g1, k);
                    }
                }
            }
        }
        /// E of the first plane of slab s, if this call is the second of its two slabs to finish (the
        /// acquire-release add makes the other slab's H writes visible here).
        void joinDone(int s) const {
            if (joins[s].fetch_add(1, std::memory_order_acq_rel) != 1)
                return;
            const int k = slabLo(s);
            for (int g0 = be.lo[1]; g0 < be.hi[1]; g0 += kWavefrontRowGroup)
                eRows(g0, std::min(be.hi[1], g0 + kWavefrontRowGroup), k);
        }
    };
    Ctx c{&hRow,       &eRow,        bh,     be,
          bh.lo[2],    bh.extent(2), 1,      blockRows > 0 ? blockRows : bh.extent(1),
          !be.empty(), nullptr,      nullptr};
    c.slabs = wavefrontSlabs(c.planes, threads, minPlanes);
    if (c.slabs == 1) {
        c.slab(bh.lo[2], bh.hi[2], false);
        return;
    }
    // One counter per join plane and the slab bounds; on the stack for the slab counts of up to 32 threads.
    constexpr int kStackJoins = 128;
    std::atomic<int> stackJoins[kStackJoins];
    int stackBounds[kStackJoins + 1];
    std::unique_ptr<std::atomic<int>[]> heapJoins;
    std::unique_ptr<int[]> heapBounds;
    c.joins = stackJoins;
    int* bounds = stackBounds;
    if (c.slabs > kStackJoins) {
        heapJoins.reset(new std::atomic<int>[std::size_t(c.slabs)]);
        heapBounds.reset(new int[std::size_t(c.slabs) + 1]);
        c.joins = heapJoins.get();
        bounds = heapBounds.get();
    }
    wavefrontCostBounds(planeCost, c.planes, c.slabs, bounds);
    c.bounds = bounds;
    for (int s = 0; s < c.slabs; ++s)
        c.joins[s].store(0, std::memory_order_relaxed);
    WorkerPool::run(
        threads, c.slabs, 1,
        [](const void* p, std::int64_t s0, std::int64_t s1) {
            const Ctx& x = *static_cast<const Ctx*>(p);
            for (int s = int(s0); s < int(s1); ++s) {
                x.slab(x.slabLo(s), x.slabLo(s + 1), s > 0);
                if (!x.anyE)
                    continue;
                if (s > 0)
                    x.joinDone(s);
                if (s + 1 < x.slabs)
                    x.joinDone(s + 1);
            }
        },
        &c);
}

} // namespace yee::kernels
