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
#include <type_traits>

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
    /// CPU devices: the entry of every cell of row (j, k) but cell 0 (the x wall's, where there is one)
    /// where those cells have one entry only, else -1, at
    /// rowEntry[j + k * ny] (the rows' runs found once, when the tile is filled, instead of scanned at
    /// every row of every pass: kernels/Launch.hpp); null where the tile keeps none (GPUs). Read by the
    /// row driver, never by operator().
    const std::int32_t* rowEntry = nullptr;
    std::int64_t ny = 0;
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
    const std::int32_t* rowEntry = nullptr; ///< indexed tiles: as TableCoef's
    std::int64_t ny = 0;
    YEE_HD YEE_FORCEINLINE T operator()(int i, int j, int k) const {
        const int wall = int(i == w0) | (int(j == w1) << 1) | (int(k == w2) << 2);
        return tab[idx[(i + j * sy + k * sz) & mask] | wall];
    }
};

/// The coefficient of a run of cells of one table entry m: the value the table accessor (TableCoef or
/// ByteCoef) reads at every cell of the run, tab[m], read once and broadcast, so the vectorised row loop
/// needs no per-cell lookup (material runs, kernels/Launch.hpp). Same value, same operations: the same bits.
template <class T> struct ConstCoef {
    T v = T(0);
    YEE_HD YEE_FORCEINLINE T operator()(int, int, int) const { return v; }
};

/// Whether the cells of a row of functor F are independent: F declares `static constexpr bool
/// cellsIndependent = true` when each cell writes only its own entries of arrays that no cell of the
/// launch reads at another index (the Yee and CPML updates: E written at (i, j, k), H read around it, and
/// the other way round), so the CPU row loop may run without alias checks (YEE_IVDEP, kernels/Launch.hpp).
template <class F, class = void> inline constexpr bool kCellsIndependent = false;
template <class F>
inline constexpr bool kCellsIndependent<F, std::void_t<decltype(F::cellsIndependent)>> = F::cellsIndependent;

/// Whether C is a table accessor whose rows split into runs of one entry.
template <class C> inline constexpr bool kRunCoef = false;
template <class T> inline constexpr bool kRunCoef<TableCoef<T>> = true;
template <class T> inline constexpr bool kRunCoef<ByteCoef<T>> = true;

/// The constant accessor of entry m of table accessor `c` (0 where `c` has no table: coefficients the
/// functor does not read, e.g. Ca of a lossless update).
template <class T> inline ConstCoef<T> constCoef(const TableCoef<T>& c, int m) {
    return {c.tab ? c.tab[m] : T(0)};
}
template <class T> inline ConstCoef<T> constCoef(const ByteCoef<T>& c, int m) {
    return {c.tab ? c.tab[m] : T(0)};
}

/// The runs of one row (j, k) of a functor's table accessors. With `ix`, entry i of ix is the table entry
/// of cell (i, j, k) (an indexed tile). Without, every cell takes entry `pattern` but cell `wall` (the low
/// PEC wall of x, or kNoWall), which takes pattern | 1 (a homogeneous tile). `ok` false: the accessors do
/// not share one index and walls, and every cell reads its table as usual.
template <class I> struct RowRuns {
    const I* ix = nullptr;
    int wall = kNoWall;
    int pattern = 0;
    bool ok = false;
    int uniform = -1; ///< with `ix`: the one entry of the row's cells i >= 1, or -1 (several, or not known)
};

/// The one entry of row (j, k) of a table accessor, or -1 (TableCoef::rowEntry).
template <class A> inline int uniformEntry(const A& a, int j, int k) {
    return a.rowEntry ? int(a.rowEntry[j + std::int64_t(k) * a.ny]) : -1;
}

/// Material runs of functor F (kernels::detail::runRow): a specialisation, next to each functor whose
/// coefficients are table accessors (kRunCoef), gives
///   static rowOf(const F& f, int j, int k): the RowRuns of row (j, k);
///   static at(const F& f, int m): the same update with the coefficients of entry m as ConstCoef constants.
/// The primary template: no material runs (per-cell arrays, or no coefficient read through a table).
template <class F, class = void> struct MaterialRuns { static constexpr bool enabled = false; };

/// The runs of row (j, k) of the table accessors `a` and `r...` (of one type).
template <class T, class... R>
inline RowRuns<MaterialIndex> runsOfRow(int j, int k, const TableCoef<T>& a, const R&... r) {
    if (a.idx == nullptr ||
        ((r.idx != a.idx || r.sy != a.sy || r.sz != a.sz || r.rowEntry != a.rowEntry) || ...))
        return {};
    return {a.idx + j * a.sy + k * a.sz, kNoWall, 0, true, uniformEntry(a, j, k)};
}
template <class T, class... R>
inline RowRuns<SmallMaterialIndex> runsOfRow(int j, int k, const ByteCoef<T>& a, const R&... r) {
    if (a.idx == nullptr || ((r.idx != a.idx || r.sy != a.sy || r.sz != a.sz || r.mask != a.mask ||
                              r.w0 != a.w0 || r.w1 != a.w1 || r.w2 != a.w2 || r.rowEntry != a.rowEntry) ||
                             ...))
        return {};
    if (a.mask == 0) // homogeneous: idx is one zero byte
        return {nullptr, a.w0, int(a.idx[0]) | (int(j == a.w1) << 1) | (int(k == a.w2) << 2), true};
    if (a.mask == -1 && a.w0 == kNoWall && a.w1 == kNoWall && a.w2 == kNoWall)
        return {a.idx + j * a.sy + k * a.sz, kNoWall, 0, true, uniformEntry(a, j, k)};
    return {};
}

} // namespace yee::kernels
