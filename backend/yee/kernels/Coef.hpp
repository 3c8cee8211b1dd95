#pragma once
/// \file Coef.hpp
/// Per-cell update coefficients (Cb, Ca, Db) as the kernels read them. A tile stores them either as a
/// per-cell material index into small coefficient tables (TableCoef: 2 bytes per cell selecting the
/// coefficients of all three components; the tables' entries are the very values per-cell arrays would
/// hold, so every update gives the same bits) or, where the table would overflow the index or another reader
/// needs the per-cell arrays, as the per-cell arrays themselves (View<const T>, which reads the same way).
/// Kernels take the accessor type as a template parameter and call coef(i, j, k) in both cases.
#include <cstdint>

#include "yee/core/Platform.hpp"

namespace yee::kernels {

/// Index type of the per-cell material index.
using MaterialIndex = std::uint16_t;
/// Entries a coefficient table may hold (every value of MaterialIndex).
inline constexpr std::int64_t kMaterialTableMax = 65536;

/// Coefficient of the cells of one component from a table: tab[idx(i, j, k)]. `idx` points at interior
/// cell (0, 0, 0) of a halo-padded index array of the tile's shape (core/View.hpp); `tab` at the
/// component's table. The accessors of every coefficient and component of a tile share one index.
template <class T> struct TableCoef {
    const MaterialIndex* YEE_RESTRICT idx = nullptr;
    const T* YEE_RESTRICT tab = nullptr;
    std::int64_t sy = 0, sz = 0;
    YEE_HD YEE_FORCEINLINE T operator()(int i, int j, int k) const { return tab[idx[i + j * sy + k * sz]]; }
};

} // namespace yee::kernels
