#pragma once
/// \file Launch.hpp
/// CPU launch of single-source cell kernels: a functor f(i,j,k) over a box of tile-local cells.
/// Rows (j,k) are spread over the device's threads (core/WorkerPool.hpp); the innermost x loop is
/// contiguous and SIMD.
/// Every cell is computed by the same expression whatever the thread count or box split, so results
/// are bit-identical across launches, tile grids and overlap on/off.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "yee/core/Box.hpp"
#include "yee/core/Platform.hpp"
#include "yee/core/WorkerPool.hpp"
#include "yee/kernels/Coef.hpp"

namespace yee::kernels {

namespace detail {
/// An on/off switch of the CPU row loop read from the environment: on, unless `var`=0 was there when it
/// was first asked or at the last resetRowSwitches() (A/B benches; results are the same either
/// way). `state` is the switch's cached value (-1: read again).
inline bool envSwitchOn(std::atomic<int>& state, const char* var) {
    int v = state.load(std::memory_order_relaxed);
    if (v < 0) {
        const char* e = std::getenv(var);
        v = e && e[0] == '0' && e[1] == 0 ? 0 : 1;
        state.store(v, std::memory_order_relaxed);
    }
    return v != 0;
}
inline std::atomic<int> materialRunsState{-1};
inline std::atomic<int> psiPrefetchState{-1};
inline std::atomic<int> rowEntryState{-1};
inline std::atomic<int> fixedRowsState{-1};

/// Whether runRow splits rows into material runs (YEE_MATERIAL_RUNS).
inline bool materialRunsOn() {
    return envSwitchOn(materialRunsState, "YEE_MATERIAL_RUNS");
}

/// Whether the CPU row drivers prefetch an x slab's CPML state a few rows ahead (device/SlabLaunch.hpp;
/// YEE_PSI_PREFETCH).
inline bool psiPrefetchOn() {
    return envSwitchOn(psiPrefetchState, "YEE_PSI_PREFETCH");
}

/// Whether runRow takes a row of one material entry as one run without scanning its index (the tile's
/// per-row entries, kernels::TableCoef::rowEntry; YEE_ROW_ENTRY).
inline bool rowEntryOn() {
    return envSwitchOn(rowEntryState, "YEE_ROW_ENTRY");
}

/// Read YEE_MATERIAL_RUNS, YEE_PSI_PREFETCH and YEE_ROW_ENTRY again at the next row.
inline void resetRowSwitches() {
    materialRunsState.store(-1, std::memory_order_relaxed);
    psiPrefetchState.store(-1, std::memory_order_relaxed);
    rowEntryState.store(-1, std::memory_order_relaxed);
    fixedRowsState.store(-1, std::memory_order_relaxed);
}

/// One row of a box: the contiguous x loop. Kept out of line from the parallel body on purpose: GCC 12
/// does not vectorise the loop inside an outlined parallel body or over a local copy of a functor ("no
/// vectype for stmt"), but does vectorise this form, with run-time alias checks unless the functor's cells
/// are independent (kCellsIndependent, kernels/Coef.hpp: YEE_IVDEP; on the 10-cell rows of an x slab's
/// CPML the checks took a sixth of the instructions). The functor is taken by a restrict reference: no
/// array it points at overlaps it, so its members stay in registers. (Taken by value, each call copied the
/// functor, a few hundred bytes, with `rep movs`: 43 % of the x-slab CPML's row driver's samples, perf;
/// the 200^3 bench ran 1.08-1.10x faster without the copy.) YEE_SIMD_CLONES (core/Platform.hpp): the loop is
/// compiled for AVX-512, AVX2 and SSE2, and the widest the CPU has runs; the bits are the same.
template <class F> YEE_FORCEINLINE void cellLoop(const F& YEE_RESTRICT g, int i0, int i1, int j, int k) {
    if constexpr (kCellsIndependent<F>) {
        YEE_IVDEP
        for (int i = i0; i < i1; ++i)
            g(i, j, k);
    } else {
        for (int i = i0; i < i1; ++i)
            g(i, j, k);
    }
}
template <class F>
__attribute__((noinline)) YEE_SIMD_CLONES void runCells(const F& YEE_RESTRICT g, int i0, int i1, int j,
                                                        int k) {
    cellLoop(g, i0, i1, j, k);
}

/// Where the run of entry m starting at ix[i] ends: the first n in [i, i1) with ix[n] != m, or i1. Four
/// 64-bit words at a time (16 two-byte or 32 one-byte entries), held in registers.
template <class I> inline int runEnd(const I* ix, int i, int i1, I m) {
    static_assert(std::is_unsigned_v<I> && sizeof(I) <= 2);
    constexpr int per = int(8 / sizeof(I)); // entries per word
    const std::uint64_t p =
        std::uint64_t(m) * (~std::uint64_t(0) / ((std::uint64_t(1) << (8 * sizeof(I))) - 1));
    while (i + 4 * per <= i1) {
        std::uint64_t a, b, c, d;
        std::memcpy(&a, ix + i, 8);
        std::memcpy(&b, ix + i + per, 8);
        std::memcpy(&c, ix + i + 2 * per, 8);
        std::memcpy(&d, ix + i + 3 * per, 8);
        if (((a ^ p) | (b ^ p) | (c ^ p) | (d ^ p)) != 0)
            break;
        i += 4 * per;
    }
    while (i < i1 && ix[i] == m)
        ++i;
    return i;
}

/// Runs shorter than this (unless they fill the whole row) go through the table with their neighbours: a
/// run costs a call.
inline constexpr int kMinMaterialRun = 8;

/// Cells [i0, i1) of row (j, k) of an indexed tile's functor g, cut into runs of one table entry: each run
/// at least kMinMaterialRun cells long (or the whole row) runs with that entry's coefficients as constants
/// (broadcast, no per-cell lookup; on wide SIMD a lookup is a scalar load per lane), and the stretches of
/// shorter runs between them read the table per cell (a stretch shorter than kMinMaterialRun, such as the
/// boundary cell that starts every row, right here, without a call).
template <class F, class I> inline void runIndexedRow(const F& g, const I* ix, int i0, int i1, int j, int k) {
    for (int i = i0; i < i1;) {
        // The stretch of short runs from i up to the next long run [s, e) (or the row's end); every entry
        // is scanned once.
        int s = i, e = i1;
        bool found = false;
        I m = 0;
        while (s < i1) {
            m = ix[s];
            e = runEnd(ix, s + 1, i1, m);
            if (e - s >= kMinMaterialRun || (s == i0 && e == i1)) {
                found = true;
                break;
            }
            s = e;
        }
        if (s - i >= kMinMaterialRun) {
            runCells(g, i, s, j, k);
        } else {
            for (int c = i; c < s; ++c) // a cell or a few (e.g. a boundary cell): no call
                g(c, j, k);
        }
        if (!found)
            break;
        runCells(MaterialRuns<F>::at(g, int(m)), s, e, j, k);
        i = e;
    }
}

/// Cells [i0, i1) of row (j, k) of functor g. Where g reads its coefficients through a table
/// (MaterialRuns<F>, kernels/Coef.hpp) the row runs in runs of one entry with that entry's coefficients
/// as constants: the runs of the material index (runIndexedRow; a row of one entry, which the tile
/// marks when it is filled, as one run without a scan), or on a homogeneous tile the
/// cells before and after the x wall's cell, which reads its table. Every cell gets the very coefficient
/// values and operations of the per-cell form: the same bits (no contraction, element-wise SIMD).
template <class F> inline void runRow(const F& g, int i0, int i1, int j, int k) {
    if constexpr (MaterialRuns<F>::enabled) {
        if (i0 < i1 && materialRunsOn()) {
            const auto r = MaterialRuns<F>::rowOf(g, j, k);
            if (r.ok && r.ix) {
                if (r.uniform >= 0 && rowEntryOn()) {
                    // One entry along the row but at cell 0 (found at the tile's fill); cell 0 (the x
                    // wall's, where there is one) reads its own entry, right here.
                    int c = i0;
                    if (c == 0)
                        g(c++, j, k);
                    if (c < i1)
                        runCells(MaterialRuns<F>::at(g, r.uniform), c, i1, j, k);
                } else {
                    runIndexedRow(g, r.ix, i0, i1, j, k);
                }
                return;
            }
            if (r.ok) {
                const auto c = MaterialRuns<F>::at(g, r.pattern);
                const int w = r.wall >= i0 && r.wall < i1 ? r.wall : i1;
                if (w > i0)
                    runCells(c, i0, w, j, k);
                if (w < i1) {
                    g(w, j, k); // the wall's cell reads its own entry
                    if (w + 1 < i1)
                        runCells(c, w + 1, i1, j, k);
                }
                return;
            }
        }
    }
    runCells(g, i0, i1, j, k);
}

/// Whether the short rows of x-slab CPML functors run through loops of fixed length (shortRows;
/// YEE_FIXED_ROWS=0: the general loop, for A/B; the same bits either way).
inline bool fixedRowsOn() {
    return envSwitchOn(fixedRowsState, "YEE_FIXED_ROWS");
}
/// Rows j0..j1-1 of N cells from i0 for the N of `n` in [kShortRowMin, kShortRowMax] (cellLoop over
/// [i0, i0 + N), whose trip count is then a constant); false for others.
/// Why: an x slab's row part is its few PML cells (10 in the benches); with the length known only at run
/// time GCC 12 vectorises such a loop as a 16-wide main loop that never runs, an 8-wide epilogue and a
/// scalar remainder of two cells with the loop's bookkeeping, while a known length compiles to straight
/// code (8-wide, then the rest). Measured with `yee-bench --n 200 --steps 100 --ab YEE_FIXED_ROWS --reps 4`:
/// 1.16x per CPU second in both precisions (wall 1.03-1.04x, the step being memory-bound), and the
/// gradient waveguide's `yee-run --grad` median 1.32 against 1.40 s (5 alternating).
inline constexpr int kShortRowMin = 4, kShortRowMax = 16;
template <class F, int N = kShortRowMin>
YEE_FORCEINLINE bool shortRows(const F& YEE_RESTRICT g, int n, int i0, int j0, int j1, int k) {
    if constexpr (N > kShortRowMax) {
        (void)g, (void)n, (void)i0, (void)j0, (void)j1, (void)k;
        return false;
    } else {
        if (n != N)
            return shortRows<F, N + 1>(g, n, i0, j0, j1, k);
        for (int j = j0; j < j1; ++j)
            cellLoop(g, i0, i0 + N, j, k);
        return true;
    }
}
/// Whether F is a CPML functor of an x slab (its rows are the slab's few cells): it has `axis` == 0.
template <class F, class = void> struct IsXSlab : std::false_type {};
template <class F> struct IsXSlab<F, std::void_t<decltype(F::axis)>> : std::bool_constant<F::axis == 0> {};

/// Cells [i0, i1) of rows j0..j1-1 of plane k of g in one call: the short rows of an x slab's CPML,
/// whose per-row call and set-up cost more than their few cells (runCells' form, with the row loop
/// inside).
template <class F>
__attribute__((noinline)) YEE_SIMD_CLONES void runCellsRows(const F& YEE_RESTRICT g, int i0, int i1, int j0,
                                                            int j1, int k) {
    if constexpr (IsXSlab<F>::value) {
        if (i1 - i0 <= kShortRowMax && fixedRowsOn() && shortRows(g, i1 - i0, i0, j0, j1, k))
            return;
    }
    for (int j = j0; j < j1; ++j)
        cellLoop(g, i0, i1, j, k);
}

/// Whether rows of one functor run alike: the same table entries in the same places.
template <class I> inline bool sameRuns(const RowRuns<I>& a, const RowRuns<I>& b) {
    return a.ok == b.ok && (a.ix == nullptr) == (b.ix == nullptr) && a.uniform == b.uniform &&
           a.pattern == b.pattern && a.wall == b.wall;
}

/// Cells [i0, i1) of rows j0..j1-1 of plane k of g: runRow's operations for every row (the same bits),
/// with consecutive rows whose material runs match (a homogeneous tile's rows off the y wall, an indexed
/// tile's rows of one entry) taken as one block: runCellsRows over the entry's constant form, and the
/// cell that reads its own entry (the x wall's, or an indexed row's cell 0) per row.
template <class F> inline void runRowBlock(const F& g, int i0, int i1, int j0, int j1, int k) {
    if (i0 >= i1)
        return;
    if constexpr (MaterialRuns<F>::enabled) {
        if (!materialRunsOn()) {
            runCellsRows(g, i0, i1, j0, j1, k);
            return;
        }
        auto next = MaterialRuns<F>::rowOf(g, j0, k); // the runs of row j, carried from the scan before
        for (int j = j0; j < j1;) {
            const auto r = next;
            const bool blockable = r.ok && (r.ix == nullptr || (r.uniform >= 0 && rowEntryOn()));
            int e = j + 1;
            while (e < j1) {
                next = MaterialRuns<F>::rowOf(g, e, k);
                if (!blockable || !sameRuns(next, r))
                    break;
                ++e;
            }
            if (!blockable || e - j == 1) {
                runRow(g, i0, i1, j, k);
                j = e;
                continue;
            }
            // The one cell of each row with an entry of its own: the x wall's (homogeneous) or cell 0.
            const int own = r.ix ? 0 : r.wall;
            const int m = r.ix ? r.uniform : r.pattern;
            const auto c = MaterialRuns<F>::at(g, m);
            if (own >= i0 && own < i1) {
                for (int q = j; q < e; ++q)
                    g(own, q, k);
                if (own > i0)
                    runCellsRows(c, i0, own, j, e, k);
                if (own + 1 < i1)
                    runCellsRows(c, own + 1, i1, j, e, k);
            } else {
                runCellsRows(c, i0, i1, j, e, k);
            }
            j = e;
        }
        return;
    }
    runCellsRows(g, i0, i1, j0, j1, k);
}

} // namespace detail

/// Run rowFn(j, k, i0, i1) for every row (j, k) of `b` on `threads` threads of the calling thread's
/// worker pool (core/WorkerPool.hpp: chunks of rows to whichever thread runs, sleeping waits); rowFn
/// typically calls detail::runRow for one or more functors, so several passes over a row share its
/// cache lines.
template <class R> void forEachRow(const Box& b, int threads, const R& rowFn) {
    if (b.empty())
        return;
    struct Ctx {
        const R* fn;
        int ny, lo1, lo2, i0, i1;
    };
    const Ctx c{&rowFn, b.extent(1), b.lo[1], b.lo[2], b.lo[0], b.hi[0]};
    const std::int64_t rows = std::int64_t(c.ny) * b.extent(2);
    WorkerPool::run(
        threads, rows, WorkerPool::defaultGrain(rows, threads),
        [](const void* p, std::int64_t r0, std::int64_t r1) {
            const Ctx& x = *static_cast<const Ctx*>(p);
            for (std::int64_t r = r0; r < r1; ++r)
                (*x.fn)(x.lo1 + int(r % x.ny), x.lo2 + int(r / x.ny), x.i0, x.i1);
        },
        &c);
}

/// Run f(i,j,k) for every cell of `b` on `threads` threads (rows as forEachRow spreads them).
template <class F> void forEachCell(const Box& b, int threads, const F& f) {
    forEachRow(b, threads, [&f](int j, int k, int i0, int i1) { detail::runRow(f, i0, i1, j, k); });
}

/// Run f(n) for n in [0, count) (sparse lists: sources, detector points, pole lists); lists of up to
/// 4096 entries run on the calling thread.
template <class F> void forEachIndex(std::int64_t count, int threads, const F& f) {
    if (count <= 0)
        return;
    WorkerPool::run(
        count > 4096 ? threads : 1, count, WorkerPool::defaultGrain(count, threads),
        [](const void* p, std::int64_t n0, std::int64_t n1) {
            const F& g = *static_cast<const F*>(p);
            for (std::int64_t n = n0; n < n1; ++n)
                g(n);
        },
        &f);
}

} // namespace yee::kernels
