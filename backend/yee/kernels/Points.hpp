#pragma once
/// \file Points.hpp
/// Small utility kernels shared by every backend: gathering field values at listed points (the
/// gradient driver's capture of design and objective fields) and the divergence guard's finiteness test.
#include <cstdint>

#include "yee/core/Platform.hpp"
#include "yee/core/View.hpp"

namespace yee::kernels {

/// out[n] = field[comp[n]][offset[n]] over six halo-padded arrays (offsets from the array start).
template <class T> struct GatherPoints {
    const T* f0;
    const T* f1;
    const T* f2;
    const T* f3;
    const T* f4;
    const T* f5;
    const int* comp;
    const std::int64_t* offset;
    T* out;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t n) const {
        const int c = comp[n];
        const T* f = c == 0 ? f0 : c == 1 ? f1 : c == 2 ? f2 : c == 3 ? f3 : c == 4 ? f4 : f5;
        out[n] = f[offset[n]];
    }
};

/// field[comp[n]][offset[n]] = in[n] (the locations are distinct, so the order does not matter).
template <class T> struct ScatterPoints {
    T* f0;
    T* f1;
    T* f2;
    T* f3;
    T* f4;
    T* f5;
    const int* comp;
    const std::int64_t* offset;
    const T* in;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t n) const {
        const int c = comp[n];
        T* f = c == 0 ? f0 : c == 1 ? f1 : c == 2 ? f2 : c == 3 ? f3 : c == 4 ? f4 : f5;
        f[offset[n]] = in[n];
    }
};

/// Sets *flag to 1 when a value of the launched cells is NaN or infinite (x - x is 0 only for finite x).
/// Every writer stores the same value, so the unordered stores are harmless.
template <class T> struct FlagNonFinite {
    View<const T> f;
    int* flag;
    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        const T v = f(i, j, k);
        if (!(v - v == T(0)))
            *flag = 1;
    }
};

} // namespace yee::kernels
