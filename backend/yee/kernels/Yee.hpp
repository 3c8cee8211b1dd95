#pragma once
/// \file Yee.hpp
/// The Yee leapfrog update, written once for every backend (CPU launcher, CUDA launcher, forward and
/// adjoint). Units: dx = c = eps0 = mu0 = 1; H is stored as eta0 * H so E and H share units.
///
/// Staggering (cell (i,j,k), positions in cells): Ex (i+1/2, j, k), Ey (i, j+1/2, k), Ez (i, j, k+1/2),
/// Hx (i, j+1/2, k+1/2), Hy (i+1/2, j, k+1/2), Hz (i+1/2, j+1/2, k).
///
///   H^{n+1/2} = H^{n-1/2} - Db * curl E^n        curl E uses forward differences  (needs E at i+1)
///   E^{n+1}   = Ca E^n + Cb * curl H^{n+1/2}     curl H uses backward differences (needs H at i-1)
///
/// with Db = dt/mu, Cb = (dt/eps)/(1 + sigma dt/(2 eps)), Ca = (1 - sigma dt/(2 eps))/(1 + sigma dt/(2 eps)).
/// Halo needs: the H update reads the high E halo, the E update reads the low H halo.
#include <type_traits>

#include "yee/core/Platform.hpp"
#include "yee/core/View.hpp"
#include "yee/kernels/Coef.hpp"

namespace yee::kernels {

/// Two field values of one cell as UpdateH::cell / UpdateE::cell read them: from their views, when read
/// (the functors' operator())...
template <class T> struct ViewPair {
    View<const T> a, b;
    int i, j, k;
    YEE_HD YEE_FORCEINLINE T first() const { return a(i, j, k); }
    YEE_HD YEE_FORCEINLINE T second() const { return b(i, j, k); }
};
/// ...or values already loaded (the z-marching columns, kernels/ZMarch.hpp).
template <class T> struct ValuePair {
    T a, b;
    YEE_HD YEE_FORCEINLINE T first() const { return a; }
    YEE_HD YEE_FORCEINLINE T second() const { return b; }
};

/// H update over the cells it is launched on. Magnetic: per-component Db (read through `C`: per-cell
/// arrays or a material index and table, kernels/Coef.hpp), else a scalar Db.
template <class T, bool Magnetic, class C = View<const T>> struct UpdateH {
    View<T> hx, hy, hz;
    View<const T> ex, ey, ez;
    C dbx, dby, dbz;                               ///< Magnetic only
    T db;                                          ///< non-magnetic Db = dt
    static constexpr bool cellsIndependent = true; ///< writes H at its cell, reads only E (Coef.hpp)

    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        const T e0 = ex(i, j, k), e1 = ey(i, j, k), e2 = ez(i, j, k);
        cell(i, j, k, e0, e1, e2, ViewPair<T>{ex, ey, i, j, k + 1});
    }
    /// The update of cell (i,j,k) from its E at k (e0, e1, e2), with Ex, Ey at k+1 read through `up`
    /// (ViewPair, ValuePair): operator() reads them from the views where the expression needs them; the
    /// GPU's z-marching column (kernels/ZMarch.hpp) passes values it carries in registers to the next cell
    /// up, where they are e0, e1. Same operations in the same order, so the same bits either way.
    template <class Z>
    YEE_HD YEE_FORCEINLINE void cell(int i, int j, int k, T e0, T e1, T e2, const Z& up) const {
        // (curl E)_x = dEz/dy - dEy/dz, etc., forward differences.
        const T cx = (ez(i, j + 1, k) - e2) - (up.second() - e1);
        const T cy = (up.first() - e0) - (ez(i + 1, j, k) - e2);
        const T cz = (ey(i + 1, j, k) - e1) - (ex(i, j + 1, k) - e0);
        if constexpr (Magnetic) {
            hx(i, j, k) -= dbx(i, j, k) * cx;
            hy(i, j, k) -= dby(i, j, k) * cy;
            hz(i, j, k) -= dbz(i, j, k) * cz;
        } else {
            hx(i, j, k) -= db * cx;
            hy(i, j, k) -= db * cy;
            hz(i, j, k) -= db * cz;
        }
    }
};

/// E update over the cells it is launched on. Lossy: per-component Ca, else Ca = 1. Cb and Ca are read
/// through `C` (per-cell arrays or a material index and table, kernels/Coef.hpp).
template <class T, bool Lossy, class C = View<const T>> struct UpdateE {
    View<T> ex, ey, ez;
    View<const T> hx, hy, hz;
    C cbx, cby, cbz;
    C cax, cay, caz;                               ///< Lossy only
    static constexpr bool cellsIndependent = true; ///< writes E at its cell, reads only H (Coef.hpp)

    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        const T h0 = hx(i, j, k), h1 = hy(i, j, k), h2 = hz(i, j, k);
        cell(i, j, k, h0, h1, h2, ViewPair<T>{hx, hy, i, j, k - 1});
    }
    /// The update of cell (i,j,k) from its H at k (h0, h1, h2), with Hx, Hy at k-1 read through `down`
    /// (ViewPair, ValuePair): operator() reads them from the views where the expression needs them; the
    /// GPU's z-marching column (kernels/ZMarch.hpp) passes the h0, h1 it kept in registers from the cell
    /// below. Same operations in the same order, so the same bits either way.
    template <class Z>
    YEE_HD YEE_FORCEINLINE void cell(int i, int j, int k, T h0, T h1, T h2, const Z& down) const {
        // (curl H)_x = dHz/dy - dHy/dz, etc., backward differences.
        const T cx = (h2 - hz(i, j - 1, k)) - (h1 - down.second());
        const T cy = (h0 - down.first()) - (h2 - hz(i - 1, j, k));
        const T cz = (h1 - hy(i - 1, j, k)) - (h0 - hx(i, j - 1, k));
        if constexpr (Lossy) {
            ex(i, j, k) = cax(i, j, k) * ex(i, j, k) + cbx(i, j, k) * cx;
            ey(i, j, k) = cay(i, j, k) * ey(i, j, k) + cby(i, j, k) * cy;
            ez(i, j, k) = caz(i, j, k) * ez(i, j, k) + cbz(i, j, k) * cz;
        } else {
            ex(i, j, k) += cbx(i, j, k) * cx;
            ey(i, j, k) += cby(i, j, k) * cy;
            ez(i, j, k) += cbz(i, j, k) * cz;
        }
    }
};

/// Material runs of an H-update-shaped functor K<T, Magnetic, C> (members hx, hy, hz, ex, ey, ez, dbx,
/// dby, dbz, db in that order: UpdateH, and the inverse update of kernels/Adjoint.hpp): Db of one material
/// as constants (kernels/Coef.hpp).
template <template <class, bool, class> class K, class T, bool Magnetic, class C> struct HUpdateRuns {
    using F = K<T, Magnetic, C>;
    static constexpr bool enabled = Magnetic; // the non-magnetic update reads no table
    static auto rowOf(const F& f, int j, int k) { return runsOfRow(j, k, f.dbx, f.dby, f.dbz); }
    static K<T, Magnetic, ConstCoef<T>> at(const F& f, int m) {
        return {
            f.hx, f.hy, f.hz, f.ex, f.ey, f.ez, constCoef(f.dbx, m), constCoef(f.dby, m), constCoef(f.dbz, m),
            f.db};
    }
};

/// Material runs of an E-update-shaped functor K<T, Lossy, C> (members ex, ey, ez, hx, hy, hz, cbx, cby,
/// cbz, cax, cay, caz in that order: UpdateE, and the inverse update): Cb (and Ca) as constants.
template <template <class, bool, class> class K, class T, bool Lossy, class C> struct EUpdateRuns {
    using F = K<T, Lossy, C>;
    static constexpr bool enabled = true;
    static auto rowOf(const F& f, int j, int k) {
        if constexpr (Lossy)
            return runsOfRow(j, k, f.cbx, f.cby, f.cbz, f.cax, f.cay, f.caz);
        else
            return runsOfRow(j, k, f.cbx, f.cby, f.cbz);
    }
    static K<T, Lossy, ConstCoef<T>> at(const F& f, int m) {
        return {f.ex,
                f.ey,
                f.ez,
                f.hx,
                f.hy,
                f.hz,
                constCoef(f.cbx, m),
                constCoef(f.cby, m),
                constCoef(f.cbz, m),
                constCoef(f.cax, m),
                constCoef(f.cay, m),
                constCoef(f.caz, m)};
    }
};

template <class T, bool Magnetic, class C>
struct MaterialRuns<UpdateH<T, Magnetic, C>, std::enable_if_t<kRunCoef<C>>>
    : HUpdateRuns<UpdateH, T, Magnetic, C> {};
template <class T, bool Lossy, class C>
struct MaterialRuns<UpdateE<T, Lossy, C>, std::enable_if_t<kRunCoef<C>>> : EUpdateRuns<UpdateE, T, Lossy, C> {
};

/// Sparse injection: field[offset[n]] += coef[n] * amplitude (sources, TFSF corrections).
template <class T> struct Inject {
    T* field;
    const std::int64_t* offset;
    const T* coef;
    T amplitude;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t n) const { field[offset[n]] += coef[n] * amplitude; }
};

} // namespace yee::kernels
