#pragma once
/// \file SlabLaunch.hpp
/// The Yee update with its CPML corrections as one sweep, on any device: a plain update functor over a
/// box, then per axis the CPML functors of the slabs that box crosses. How it runs is the device's
/// business, not the solver's: CPU devices fuse them row by row (each row of the box gets the plain update
/// and then its x, y and z slab corrections while it is in cache); staged devices (GPUs, and CPU devices
/// emulating their data paths) launch the plain update over the box and then each slab's part of it, in
/// the same axis order. Either way every cell sees the same operations in the same order, so the results
/// are bit-identical.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "yee/core/Box.hpp"
#include "yee/device/Device.hpp"
#include "yee/device/Exec.hpp"
#include "yee/kernels/Launch.hpp"

namespace yee::device {

/// A CPML functor `k` with the slab box (tile-local cells) it applies to.
template <class K> struct SlabKernel {
    Box box;
    K k;
};

namespace detail {

/// Rows ahead of the current one whose CPML state an x slab's row asks for (prefetchPsiAhead).
inline constexpr int kPsiPrefetchRows = 4;

/// Ask the memory system for the slab arrays (psi; the adjoint's psibar and next psibar) of an x slab's
/// CPML functor `f` kPsiPrefetchRows rows after row (j, k) (from cell i). Why by hand: an x slab's row is
/// only its few PML cells (10 floats, 40 bytes, per array), so these arrays advance one cache line per one or
/// two rows while the field rows advance by kilobytes; the hardware prefetcher did not run ahead of such a
/// slow stream, and 42 % of the x-slab CPML's time was a stall on its psi load (perf annotate, 200^3 bench
/// box). The slab's rows are contiguous (kernels::SlabIndex), so the row n ahead is n * n0 elements on,
/// past a k step too; the address is formed as an integer (prefetching past an array's end is harmless,
/// forming such a pointer is not). A hint only: no result changes. Other axes' slabs have long rows,
/// which the hardware streams. Off with YEE_PSI_PREFETCH=0 (kernels::detail::psiPrefetchOn).
template <class K> inline void prefetchPsiAhead(const K& f, int i, int j, int k) {
#if !defined(__CUDA_ARCH__)
    if constexpr (requires { K::axis; })
        if constexpr (K::axis == 0) {
            if (!kernels::detail::psiPrefetchOn())
                return;
            const std::int64_t ahead = f.idx(i, j, k) + kPsiPrefetchRows * f.idx.n0;
            const auto hint = [ahead](const auto* base) {
                const auto at = reinterpret_cast<std::uintptr_t>(base) +
                                std::uintptr_t(ahead * std::int64_t(sizeof(*base)));
                __builtin_prefetch(reinterpret_cast<const void*>(at), 1, 3);
            };
            if constexpr (requires {
                              f.psi1;
                              f.psi2;
                          }) {
                hint(f.psi1);
                hint(f.psi2);
            }
            if constexpr (requires {
                              f.next1;
                              f.next2;
                          }) {
                hint(f.next1);
                hint(f.next2);
            }
        }
#else
    (void)f, (void)i, (void)j, (void)k;
#endif
}

/// Apply the slab kernels of one axis to the part of row (j, k, [i0, i1)) inside their slabs.
template <class K> void rowSlabs(const std::vector<SlabKernel<K>>& v, int j, int k, int i0, int i1) {
    for (const auto& s : v) {
        if (j < s.box.lo[1] || j >= s.box.hi[1] || k < s.box.lo[2] || k >= s.box.hi[2])
            continue;
        const int lo = std::max(i0, s.box.lo[0]), hi = std::min(i1, s.box.hi[0]);
        if (lo < hi) {
            prefetchPsiAhead(s.k, lo, j, k);
            kernels::detail::runRow(s.k, lo, hi, j, k);
        }
    }
}

/// Rows at most this long of an x slab run in blocks of rows (blockSlabs); longer ones row by row.
inline constexpr int kBlockSlabRowMax = 32;

/// The part of rows j0..j1-1 of plane k, cells [i0, i1), inside box b: rows [ja, jb), cells [lo, hi).
struct RowsPart {
    int ja = 0, jb = 0, lo = 0, hi = 0;
    bool empty() const { return ja >= jb || lo >= hi; }
};
inline RowsPart rowsPart(const Box& b, int j0, int j1, int k, int i0, int i1) {
    if (k < b.lo[2] || k >= b.hi[2])
        return {};
    return {std::max(j0, b.lo[1]), std::min(j1, b.hi[1]), std::max(i0, b.lo[0]), std::min(i1, b.hi[0])};
}

/// The slab kernels of one axis (the x slabs) over their part of rows j0..j1-1 of plane k, cells
/// [i0, i1): per slab the rows' short parts in one block (kernels::detail::runRowBlock), their CPML state
/// prefetched row by row first. The same operations per cell as rowSlabs for each row.
template <class K>
void blockSlabs(const std::vector<SlabKernel<K>>& v, int j0, int j1, int k, int i0, int i1) {
    for (const auto& s : v) {
        const RowsPart p = rowsPart(s.box, j0, j1, k, i0, i1);
        if (p.empty())
            continue;
        const int ja = p.ja, jb = p.jb, lo = p.lo, hi = p.hi;
        if (hi - lo > kBlockSlabRowMax) {
            for (int j = ja; j < jb; ++j) {
                prefetchPsiAhead(s.k, lo, j, k);
                kernels::detail::runRow(s.k, lo, hi, j, k);
            }
            continue;
        }
        for (int j = ja; j < jb; ++j)
            prefetchPsiAhead(s.k, lo, j, k);
        kernels::detail::runRowBlock(s.k, lo, hi, ja, jb, k);
    }
}

/// One launch per slab over its part of `b`.
template <class K> void slabPasses(Device& dev, const std::vector<SlabKernel<K>>& v, const Box& b) {
    for (const auto& s : v) {
        const Box part = s.box.intersect(b);
        if (!part.empty())
            launch(dev, part, 1, s.k);
    }
}

} // namespace detail

/// One row of the CPU form of launchWithSlabs: `main` over cells [i0, i1) of row (j, k), then the parts
/// of that row inside the x (`s0`), y (`s1`) and z (`s2`) slabs get their corrections. Row drivers
/// other than forEachRow (kernels/Wavefront.hpp) call it to run the same operations per cell.
template <class Main, class K0, class K1, class K2>
void slabRow(const Main& main, const std::vector<SlabKernel<K0>>& s0, const std::vector<SlabKernel<K1>>& s1,
             const std::vector<SlabKernel<K2>>& s2, int j, int k, int i0, int i1) {
    kernels::detail::runRow(main, i0, i1, j, k);
    detail::rowSlabs(s0, j, k, i0, i1);
    detail::rowSlabs(s1, j, k, i0, i1);
    detail::rowSlabs(s2, j, k, i0, i1);
}

/// Rows j0..j1-1 of plane k, cells [i0, i1), as slabRow runs each: `main` over every row (in blocks of
/// rows of matching material runs, kernels::detail::runRowBlock: one call and set-up per block; about
/// +5 % at 200^3), then the x slabs' short row parts in blocks of rows (detail::blockSlabs: one call per slab
/// instead of one per row and slab, which cost a fifth of the 200^3 bench's step), then each row's y and z
/// slab parts. Every cell gets the plain update, then the x, y and z corrections, in slabRow's order: the
/// same bits.
template <class Main, class K0, class K1, class K2>
void slabRows(const Main& main, const std::vector<SlabKernel<K0>>& s0, const std::vector<SlabKernel<K1>>& s1,
              const std::vector<SlabKernel<K2>>& s2, int j0, int j1, int k, int i0, int i1) {
    kernels::detail::runRowBlock(main, i0, i1, j0, j1, k);
    detail::blockSlabs(s0, j0, j1, k, i0, i1);
    if (s1.empty() && s2.empty())
        return;
    for (int j = j0; j < j1; ++j) {
        detail::rowSlabs(s1, j, k, i0, i1);
        detail::rowSlabs(s2, j, k, i0, i1);
    }
}

/// `main` over the cells of `b`, then the x (`s0`), y (`s1`) and z (`s2`) slab kernels over their parts
/// of `b`; `threads` is the CPU thread count (ignored on GPUs). See the file comment for how each device
/// runs it.
template <class Main, class K0, class K1, class K2>
void launchWithSlabs(Device& dev, const Box& b, int threads, const Main& main,
                     const std::vector<SlabKernel<K0>>& s0, const std::vector<SlabKernel<K1>>& s1,
                     const std::vector<SlabKernel<K2>>& s2) {
    if (dev.staged()) {
        launch(dev, b, threads, main);
        detail::slabPasses(dev, s0, b);
        detail::slabPasses(dev, s1, b);
        detail::slabPasses(dev, s2, b);
        return;
    }
    kernels::forEachRow(b, threads,
                        [&](int j, int k, int i0, int i1) { slabRow(main, s0, s1, s2, j, k, i0, i1); });
}

} // namespace yee::device
