#pragma once
/// \file View.hpp
/// Non-owning (i,j,k) accessor over a tile-local array with a one-cell halo on every side.
/// x is the contiguous (innermost) index. Captured by value in kernels on every backend.
#include <cstddef>
#include <cstdint>

#include "yee/core/Platform.hpp"

namespace yee {

/// Shape of a tile-local array: interior n[0..2] cells plus one halo cell on each side.
struct ArrayShape {
    int nx = 0, ny = 0, nz = 0;
    std::int64_t sy = 0, sz = 0; ///< strides of j and k in elements
    std::int64_t size = 0;       ///< total elements including halo
    std::int64_t origin = 0;     ///< element offset of interior cell (0,0,0)

    static ArrayShape make(int nx, int ny, int nz) {
        ArrayShape s;
        s.nx = nx;
        s.ny = ny;
        s.nz = nz;
        s.sy = nx + 2;
        s.sz = s.sy * (ny + 2);
        s.size = s.sz * (nz + 2);
        s.origin = 1 + s.sy + s.sz;
        return s;
    }
    YEE_HD std::int64_t offset(int i, int j, int k) const { return origin + i + j * sy + k * sz; }
};

/// Non-owning view of a halo-padded array; (i,j,k) are tile-local interior indices, -1 and n are halo.
template <class T> struct View {
    T* YEE_RESTRICT p = nullptr; ///< points at interior cell (0,0,0)
    std::int64_t sy = 0, sz = 0;

    View() = default;
    View(T* base, const ArrayShape& s) : p(base ? base + s.origin : nullptr), sy(s.sy), sz(s.sz) {}
    /// A view of T converts to a view of const T.
    template <class U>
    View(const View<U>& o) : p(o.p), sy(o.sy), sz(o.sz) {} // NOLINT(google-explicit-constructor)
    YEE_HD YEE_FORCEINLINE T& operator()(int i, int j, int k) const { return p[i + j * sy + k * sz]; }
    YEE_HD YEE_FORCEINLINE T* row(int j, int k) const { return p + j * sy + k * sz; }
    explicit operator bool() const { return p != nullptr; }
};

} // namespace yee
