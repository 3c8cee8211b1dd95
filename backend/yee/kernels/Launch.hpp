#pragma once
/// \file Launch.hpp
/// CPU launch of single-source cell kernels: a functor f(i,j,k) over a box of tile-local cells.
/// Rows (j,k) are spread over the device's threads; the innermost x loop is contiguous and SIMD.
/// Every cell is computed by the same expression whatever the thread count or box split, so results
/// are bit-identical across launches, tile grids and overlap on/off.
#include <cstdint>

#include "yee/core/Box.hpp"

namespace yee::kernels {

namespace detail {
/// One row of a box: the contiguous x loop. Kept out of line from the OpenMP region, with the functor
/// taken by value, on purpose: GCC 12 does not vectorise the loop inside an outlined OpenMP body or over
/// a local copy of a functor ("no vectype for stmt"), but does vectorise this form (with runtime alias
/// checks). The call costs nothing next to a row of cells.
template <class F> __attribute__((noinline)) void runRow(F g, int i0, int i1, int j, int k) {
    for (int i = i0; i < i1; ++i)
        g(i, j, k);
}
} // namespace detail

/// Run f(i,j,k) for every cell of `b` with `threads` OpenMP threads.
template <class F> void forEachCell(const Box& b, int threads, const F& f) {
    if (b.empty())
        return;
    const int ny = b.extent(1);
    const std::int64_t rows = std::int64_t(ny) * b.extent(2);
    const int i0 = b.lo[0], i1 = b.hi[0];
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && rows > 1)
    for (std::int64_t r = 0; r < rows; ++r)
        detail::runRow(f, i0, i1, b.lo[1] + int(r % ny), b.lo[2] + int(r / ny));
}

/// Run rowFn(j, k, i0, i1) for every row (j, k) of `b` with `threads` OpenMP threads; rowFn typically
/// calls detail::runRow for one or more functors, so several passes over a row share its cache lines.
template <class R> void forEachRow(const Box& b, int threads, const R& rowFn) {
    if (b.empty())
        return;
    const int ny = b.extent(1);
    const std::int64_t rows = std::int64_t(ny) * b.extent(2);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && rows > 1)
    for (std::int64_t r = 0; r < rows; ++r)
        rowFn(b.lo[1] + int(r % ny), b.lo[2] + int(r / ny), b.lo[0], b.hi[0]);
}

/// Run f(n) for n in [0, count) (sparse lists: sources, detector points).
template <class F> void forEachIndex(std::int64_t count, int threads, const F& f) {
    if (count <= 0)
        return;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && count > 4096)
    for (std::int64_t n = 0; n < count; ++n)
        f(n);
}

} // namespace yee::kernels
