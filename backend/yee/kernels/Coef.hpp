#pragma once
/// \file Coef.hpp
/// Per-cell update coefficients (Cb, Ca, Db) as the kernels read them. A tile stores them either as a
/// per-cell material index into small coefficient tables (TableCoef: one byte per cell where the tile's
/// table has at most 256 entries, the common case, else two bytes, selecting the coefficients of all three
/// components; the tables' entries are the very values per-cell arrays would hold, so every update gives
/// the same bits) or, where the table would overflow the index or another reader needs the per-cell
/// arrays, as the per-cell arrays themselves (View<const T>, which reads the same way). Kernels take the
/// accessor type as a template parameter and call coef(i, j, k) in every case.
#include <cstdint>

#include "yee/core/Platform.hpp"

namespace yee::kernels {

/// Index type of the per-cell material index (the wide one, of tables of up to kMaterialTableMax entries).
using MaterialIndex = std::uint16_t;
/// Index type of tables of at most kSmallTableMax entries: one byte per cell.
using SmallMaterialIndex = std::uint8_t;
/// Entries a coefficient table may hold (every value of MaterialIndex).
inline constexpr std::int64_t kMaterialTableMax = 65536;
/// Entries a coefficient table with a SmallMaterialIndex may hold (every value of it).
inline constexpr std::int64_t kSmallTableMax = 256;

/// Coefficient of the cells of one component from a table: tab[idx(i, j, k)]. `idx` points at the index
/// of interior cell (0, 0, 0) of an index array of the tile's interior cells (no halo: the kernels read
/// coefficients only where they update), x fastest with strides sy, sz; `tab` at the component's table. The
/// accessors of every coefficient and component of a tile share one index.
template <class T> struct TableCoef {
    const MaterialIndex* YEE_RESTRICT idx = nullptr;
    const T* YEE_RESTRICT tab = nullptr;
    std::int64_t sy = 0, sz = 0;
    YEE_HD YEE_FORCEINLINE T operator()(int i, int j, int k) const { return tab[idx[i + j * sy + k * sz]]; }
};

/// ByteCoef's wall position on an axis without a PEC wall in the tile (never equal to a cell index).
inline constexpr int kNoWall = -(1 << 30);

/// Coefficient of the cells of one component from a table of at most kSmallTableMax entries, CPU devices
/// only: tab[idx((i + j sy + k sz) & mask) | wall pattern]. An indexed tile has one byte per interior cell
/// (mask all ones, no walls: w0 = w1 = w2 = kNoWall, as TableCoef). A homogeneous tile, one whose cells take
/// one coefficient set except on the low PEC walls (global index 0 of a non-periodic axis, where the
/// tangential Cb is 0), has no index: mask 0 and `idx` at a single zero byte, and the entry is the cell's
/// wall pattern, bit a set when the cell is on the wall of axis a (w0, w1, w2: the walls' tile-local
/// indices, or kNoWall). One accessor type for both keeps the CPU kernels' code (and the GPU bundle) small.
template <class T> struct ByteCoef {
    const SmallMaterialIndex* YEE_RESTRICT idx = nullptr;
    const T* YEE_RESTRICT tab = nullptr;
    std::int64_t sy = 0, sz = 0, mask = -1;
    int w0 = kNoWall, w1 = kNoWall, w2 = kNoWall;
    YEE_HD YEE_FORCEINLINE T operator()(int i, int j, int k) const {
        const int wall = int(i == w0) | (int(j == w1) << 1) | (int(k == w2) << 2);
        return tab[idx[(i + j * sy + k * sz) & mask] | wall];
    }
};

} // namespace yee::kernels
