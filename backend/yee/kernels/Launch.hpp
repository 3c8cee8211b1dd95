#pragma once
/// \file Launch.hpp
/// CPU launch of single-source cell kernels: a functor f(i,j,k) over a box of tile-local cells.
/// Rows (j,k) are spread over the device's threads (core/WorkerPool.hpp); the innermost x loop is
/// contiguous and SIMD.
/// Every cell is computed by the same expression whatever the thread count or box split, so results
/// are bit-identical across launches, tile grids and overlap on/off.
#include <cstdint>

#include "yee/core/Box.hpp"
#include "yee/core/Platform.hpp"
#include "yee/core/WorkerPool.hpp"

namespace yee::kernels {

namespace detail {
/// One row of a box: the contiguous x loop. Kept out of line from the parallel body, with the functor
/// taken by value, on purpose: GCC 12 does not vectorise the loop inside an outlined parallel body or
/// over a local copy of a functor ("no vectype for stmt"), but does vectorise this form (with runtime alias
/// checks). The call costs nothing next to a row of cells. YEE_SIMD_CLONES (core/Platform.hpp): the loop is
/// compiled for AVX-512, AVX2 and SSE2, and the widest the CPU has runs; the bits are the same.
template <class F> __attribute__((noinline)) YEE_SIMD_CLONES void runRow(F g, int i0, int i1, int j, int k) {
    for (int i = i0; i < i1; ++i)
        g(i, j, k);
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
