#pragma once
/// \file Launch.hpp
/// CPU launch of single-source cell kernels: a functor f(i,j,k) over a box of tile-local cells.
/// Rows (j,k) are spread over the device's threads; the innermost x loop is contiguous and SIMD.
/// Every cell is computed by the same expression whatever the thread count or box split, so results
/// are bit-identical across launches, tile grids and overlap on/off.
#include <cstdint>

#include "yee/core/Box.hpp"

namespace yee::kernels {

/// Run f(i,j,k) for every cell of `b` with `threads` OpenMP threads.
template <class F> void forEachCell(const Box& b, int threads, const F& f) {
    if (b.empty()) return;
    const int ny = b.extent(1);
    const std::int64_t rows = std::int64_t(ny) * b.extent(2);
    const int i0 = b.lo[0], i1 = b.hi[0];
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && rows > 1)
    for (std::int64_t r = 0; r < rows; ++r) {
        const int j = b.lo[1] + int(r % ny);
        const int k = b.lo[2] + int(r / ny);
#pragma omp simd
        for (int i = i0; i < i1; ++i) f(i, j, k);
    }
}

/// Run f(n) for n in [0, count) (sparse lists: sources, detector points).
template <class F> void forEachIndex(std::int64_t count, int threads, const F& f) {
    if (count <= 0) return;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && count > 4096)
    for (std::int64_t n = 0; n < count; ++n) f(n);
}

} // namespace yee::kernels
