#pragma once
/// \file Halo.hpp
/// Pack a face of a field into a contiguous buffer and unpack a buffer into a halo face.
#include <cstdint>

#include "yee/core/Platform.hpp"
#include "yee/core/View.hpp"

namespace yee::kernels {

/// Dense x-fastest indexing of a box (tile-local indices, may include halo positions).
struct BoxIndex {
    int lo0, lo1, lo2;
    std::int64_t n0, n01;
    YEE_HD YEE_FORCEINLINE std::int64_t operator()(int i, int j, int k) const {
        return (i - lo0) + n0 * (j - lo1) + n01 * (k - lo2);
    }
};

template <class T> struct PackFace {
    View<const T> f;
    T* buf;
    BoxIndex idx;
    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const { buf[idx(i, j, k)] = f(i, j, k); }
};

/// Unpack: `idx` indexes the buffer by the SOURCE face box; `shift` moves the face into the halo.
template <class T> struct UnpackFace {
    View<T> f;
    const T* buf;
    BoxIndex idx;
    int s0, s1, s2;
    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        f(i + s0, j + s1, k + s2) = buf[idx(i, j, k)];
    }
};

} // namespace yee::kernels
