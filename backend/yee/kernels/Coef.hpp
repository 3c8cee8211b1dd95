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

/// The coefficient of a run of cells of one material m: the value TableCoef reads at every cell of the
/// run, tab[m], read once and broadcast, so the vectorised row loop needs no per-cell lookup (material
/// runs, kernels/Launch.hpp). Same value, same operations: the same bits.
template <class T> struct ConstCoef {
    T v = T(0);
    YEE_HD YEE_FORCEINLINE T operator()(int, int, int) const { return v; }
};

/// The constant accessor of material m from table accessor `c` (0 where `c` has no table: coefficients
/// the functor does not read, e.g. Ca of a lossless update).
template <class T> inline ConstCoef<T> constCoef(const TableCoef<T>& c, MaterialIndex m) {
    return {c.tab ? c.tab[m] : T(0)};
}

/// Material runs of functor F (kernels::detail::runRow): a specialisation, next to each functor whose
/// coefficients are TableCoef accessors, gives
///   static const MaterialIndex* row(const F& f, int j, int k): the index of row (j, k) (entry i is that
///       of cell (i, j, k)), or nullptr where the accessors do not share one index (then every cell reads
///       its table as usual);
///   static auto at(const F& f, MaterialIndex m): the same update with the coefficients of material m as
///       ConstCoef constants.
/// The primary template: no material runs (per-cell arrays, or no coefficient read through the index).
template <class F> struct MaterialRuns { static constexpr bool enabled = false; };

/// The index row (j, k) shared by the table accessors `a` and `r...`, or nullptr where they do not share
/// one index and shape.
template <class T, class... R>
inline const MaterialIndex* sharedIndexRow(int j, int k, const TableCoef<T>& a, const R&... r) {
    if (a.idx == nullptr || ((r.idx != a.idx || r.sy != a.sy || r.sz != a.sz) || ...))
        return nullptr;
    return a.idx + j * a.sy + k * a.sz;
}

} // namespace yee::kernels
