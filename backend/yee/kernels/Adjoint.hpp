#pragma once
/// \file Adjoint.hpp
/// Hand-derived transposes of the forward kernels, and the inverse (time-reversed) Yee update. Like the
/// forward kernels they read Cb, Ca, Db through an accessor type C (per-cell arrays or a material index and
/// table, kernels/Coef.hpp), with material runs (constants per run of one table entry) where C is a table.
///
/// Adjoint variables. With Ebar = dJ/dE and Hbar = dJ/dH, the adjoint state is kept as
///   P = Cb * Ebar   (E locations)      Q = -Db * Hbar   (H locations).
/// In these variables the transpose of the interior Yee step is the forward Yee step itself
/// (the curls are transposes of each other: C_H = C_E^T), so UpdateH / UpdateE of Yee.hpp propagate the
/// adjoint, and the same halo plan serves both. Only CPML, Ca scaling and sources need their own code.
///
/// Reverse of forward step n, in order:  detector sources -> [P high halo] -> CPML-E^T (Q -= ...) ->
///   Q -= Db curl P (UpdateH), P *= Ca -> [Q low halo] -> CPML-H^T (P += ...) -> P += Cb curl Q (UpdateE,
///   no Ca). Each CPML transpose reads the psibar of the step before and writes the next one into the
///   other buffer of its pair (the caller swaps the pair after the step).
#include <cstdint>
#include <type_traits>

#include "yee/core/Platform.hpp"
#include "yee/core/View.hpp"
#include "yee/kernels/Coef.hpp"
#include "yee/kernels/Cpml.hpp"
#include "yee/kernels/Yee.hpp"

namespace yee::kernels {

namespace detail {
/// The transposed psi recursion of one slab cell, shared by both CPML transposes. For CPML-E^T the inputs
/// are x = P_{A+1}, P_{A+2} (curl signs s = -1, +1) at E locations; for CPML-H^T they are x = Q_{A+1},
/// Q_{A+2} at H locations, where Db Hbar = -Q turns the signs s' = +1, -1 into the same pattern:
///   a = psibar + s x;  w = s kappa' x + c a;  psibar' = b a     with s = -1 for slot 1, +1 for slot 2.
template <class T> struct AdjointWeights {
    T w1, w2; ///< the curl weights the neighbouring field's transposed difference reads
    T a1, a2; ///< psibar + s x (psibar' = b a)
};
template <class T>
YEE_HD YEE_FORCEINLINE AdjointWeights<T> adjointWeights(T psi1, T psi2, T x1, T x2, T c, T km) {
    const T a1 = psi1 - x1;
    const T a2 = psi2 + x2;
    return {-km * x1 + c * a1, km * x2 + c * a2, a1, a2};
}
} // namespace detail

/// Which of the two slab locations a CPML transpose's cells read w at (the first, i or i-1, and the second,
/// i+1 or i) lie in the slab: kSlabTested tests both per cell (GPU launches); kSlabInner: both, no test
/// (the CPU row loop vectorises); kSlabSecondOnly / kSlabFirstOnly: the rows at the ends of a y or z slab
/// and the end cells of an x slab's rows, where the test has one answer for the whole row or cell, so the
/// row loop vectorises there too (in the tested form such a row took as long as about five test-free
/// rows: half of the y and z transposes' time, perf of the gradient benchmark). w outside the slab is the
/// same T(0) in every form: the same values.
inline constexpr int kSlabTested = 0, kSlabInner = 1, kSlabSecondOnly = 2, kSlabFirstOnly = 3;
namespace detail {
/// Whether the first and the second location of a transpose of slab part P lie in [slo, shi); c0 is the
/// first location's coordinate along the slab axis (the second's is c0 + 1).
template <int P> YEE_HD YEE_FORCEINLINE bool slabFirstIn(int c0, int slo, int shi) {
    return P == kSlabInner || P == kSlabFirstOnly || (P == kSlabTested && c0 >= slo && c0 < shi);
}
template <int P> YEE_HD YEE_FORCEINLINE bool slabSecondIn(int c0, int slo, int shi) {
    return P == kSlabInner || P == kSlabSecondOnly || (P == kSlabTested && c0 + 1 >= slo && c0 + 1 < shi);
}
} // namespace detail

/// Transpose of CpmlE on the slab of axis A, in one pass over the H locations it reaches:
///   Hbar_q(i) += w(i) - w(i+1) along A, i.e. Q_q -= Db (w(i) - w(i+1)), w = 0 outside the slab,
/// q = A+2 taking w1 and q = A+1 taking w2, with w (detail::adjointWeights) computed where it is read from
/// P and the slab's psibar of the step before (psi1, psi2), and psibar' written at the cell's own slab
/// location into the other buffer of the pair (next1, next2). Why recompute instead of storing w: the
/// stored form needed a pass of its own that wrote w and read it back from every neighbouring row, and the
/// y and z slabs' rows could not join the row sweep of Q (a row reads w of the next row or plane); the two
/// psibar buffers that replace the two w buffers keep the same memory. Each cell writes only its own Q
/// and psibar' entries and reads P and psibar, which no cell writes: the cells are independent.
/// Part (kSlabTested, ...): which of i and i+1 lie in the slab, tested per cell or known for the row.
template <class T, int A, bool Magnetic, int Part = kSlabTested, class C = View<const T>>
struct CpmlEAdjoint {
    View<T> q2, q1; ///< Q_{A+2}, Q_{A+1}
    C db2, db1;     ///< Magnetic only (read through C, kernels/Coef.hpp)
    T db;
    View<const T> x1, x2;       ///< P_{A+1}, P_{A+2}
    const T* YEE_RESTRICT psi1; ///< psibar before this step, the slab's dense indexing (read at i, i+1)
    const T* YEE_RESTRICT psi2;
    T* YEE_RESTRICT next1; ///< psibar after this step (written at i); four distinct buffers
    T* YEE_RESTRICT next2;
    SlabIndex idx; ///< the slab's E-location indexing
    PmlProfile<T> prof;
    int profLo;
    int slo, shi;                  ///< slab extent along A (tile-local)
    static constexpr int axis = A; ///< device/SlabLaunch.hpp prefetches the x slabs' arrays
    static constexpr bool cellsIndependent = true;
    static constexpr int firstOffset = 0; ///< the first location read, along A: the cell's own
    /// The same kernel as part P.
    template <int P> CpmlEAdjoint<T, A, Magnetic, P, C> part() const {
        return {q2, q1, db2, db1, db, x1, x2, psi1, psi2, next1, next2, idx, prof, profLo, slo, shi};
    }
    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        constexpr int di = A == 0, dj = A == 1, dk = A == 2;
        const int ia = A == 0 ? i : (A == 1 ? j : k);
        const bool in0 = detail::slabFirstIn<Part>(ia, slo, shi),
                   in1 = detail::slabSecondIn<Part>(ia, slo, shi);
        T u1 = T(0), u2 = T(0), v1 = T(0), v2 = T(0); // w at i and at i + 1
        if (in0) {
            const std::int64_t s = idx(i, j, k);
            const int p = ia - profLo;
            const auto r =
                detail::adjointWeights(psi1[s], psi2[s], x1(i, j, k), x2(i, j, k), prof.c[p], prof.kinvm1[p]);
            next1[s] = prof.b[p] * r.a1;
            next2[s] = prof.b[p] * r.a2;
            u1 = r.w1;
            u2 = r.w2;
        }
        if (in1) {
            const std::int64_t s = idx(i + di, j + dj, k + dk);
            const int p = ia + 1 - profLo;
            const auto r = detail::adjointWeights(psi1[s], psi2[s], x1(i + di, j + dj, k + dk),
                                                  x2(i + di, j + dj, k + dk), prof.c[p], prof.kinvm1[p]);
            v1 = r.w1;
            v2 = r.w2;
        }
        const T a1 = u1 - v1;
        const T a2 = u2 - v2;
        if constexpr (Magnetic) {
            q2(i, j, k) -= db2(i, j, k) * a1;
            q1(i, j, k) -= db1(i, j, k) * a2;
        } else {
            q2(i, j, k) -= db * a1;
            q1(i, j, k) -= db * a2;
        }
    }
};

/// Transpose of CpmlH on the slab of axis A, in one pass over the E locations it reaches:
///   Ebar_p(i) += w(i-1) - w(i), i.e. P_p += Cb (...), w from Q and psibar as in CpmlEAdjoint.
/// H_{A+1} (w1) was driven by E_{A+2}; H_{A+2} (w2) by E_{A+1}. Part: which of i-1 and i lie in the slab
/// (as CpmlEAdjoint).
template <class T, int A, int Part = kSlabTested, class C = View<const T>> struct CpmlHAdjoint {
    View<T> p2, p1;       ///< P_{A+2}, P_{A+1}
    C cb2, cb1;           ///< read through C (kernels/Coef.hpp)
    View<const T> x1, x2; ///< Q_{A+1}, Q_{A+2}
    const T* YEE_RESTRICT psi1;
    const T* YEE_RESTRICT psi2;
    T* YEE_RESTRICT next1;
    T* YEE_RESTRICT next2;
    SlabIndex idx; ///< the slab's H-location indexing
    PmlProfile<T> prof;
    int profLo;
    int slo, shi;
    static constexpr int axis = A; ///< device/SlabLaunch.hpp prefetches the x slabs' arrays
    static constexpr bool cellsIndependent = true;
    static constexpr int firstOffset = -1; ///< the first location read, along A: the cell below
    /// The same kernel as part P.
    template <int P> CpmlHAdjoint<T, A, P, C> part() const {
        return {p2, p1, cb2, cb1, x1, x2, psi1, psi2, next1, next2, idx, prof, profLo, slo, shi};
    }
    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        constexpr int di = A == 0, dj = A == 1, dk = A == 2;
        const int ia = A == 0 ? i : (A == 1 ? j : k);
        const bool inm = detail::slabFirstIn<Part>(ia - 1, slo, shi),
                   in0 = detail::slabSecondIn<Part>(ia - 1, slo, shi);
        T u1 = T(0), u2 = T(0), v1 = T(0), v2 = T(0); // w at i - 1 and at i
        if (inm) {
            const std::int64_t s = idx(i - di, j - dj, k - dk);
            const int p = ia - 1 - profLo;
            const auto r = detail::adjointWeights(psi1[s], psi2[s], x1(i - di, j - dj, k - dk),
                                                  x2(i - di, j - dj, k - dk), prof.c[p], prof.kinvm1[p]);
            u1 = r.w1;
            u2 = r.w2;
        }
        if (in0) {
            const std::int64_t s = idx(i, j, k);
            const int p = ia - profLo;
            const auto r =
                detail::adjointWeights(psi1[s], psi2[s], x1(i, j, k), x2(i, j, k), prof.c[p], prof.kinvm1[p]);
            next1[s] = prof.b[p] * r.a1;
            next2[s] = prof.b[p] * r.a2;
            v1 = r.w1;
            v2 = r.w2;
        }
        const T a1 = u1 - v1;
        const T a2 = u2 - v2;
        p2(i, j, k) += cb2(i, j, k) * a1;
        p1(i, j, k) += cb1(i, j, k) * a2;
    }
};

/// P *= Ca (transpose of the E update's Ca E term).
template <class T, class C = View<const T>> struct ScaleCa {
    View<T> p0, p1, p2;
    C c0, c1, c2;
    static constexpr bool cellsIndependent = true; ///< reads and writes P at its cell only
    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        p0(i, j, k) *= c0(i, j, k);
        p1(i, j, k) *= c1(i, j, k);
        p2(i, j, k) *= c2(i, j, k);
    }
};

/// Inverse E update (time reversal): E^n = (E^{n+1} - Cb curl H^{n+1/2}) / Ca.
template <class T, bool Lossy, class C = View<const T>> struct InverseUpdateE {
    View<T> ex, ey, ez;
    View<const T> hx, hy, hz;
    C cbx, cby, cbz;
    C cax, cay, caz;                               ///< Lossy only
    static constexpr bool cellsIndependent = true; ///< writes E at its cell, reads only H
    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        const T h0 = hx(i, j, k), h1 = hy(i, j, k), h2 = hz(i, j, k);
        const T cx = (h2 - hz(i, j - 1, k)) - (h1 - hy(i, j, k - 1));
        const T cy = (h0 - hx(i, j, k - 1)) - (h2 - hz(i - 1, j, k));
        const T cz = (h1 - hy(i - 1, j, k)) - (h0 - hx(i, j - 1, k));
        if constexpr (Lossy) {
            ex(i, j, k) = (ex(i, j, k) - cbx(i, j, k) * cx) / cax(i, j, k);
            ey(i, j, k) = (ey(i, j, k) - cby(i, j, k) * cy) / cay(i, j, k);
            ez(i, j, k) = (ez(i, j, k) - cbz(i, j, k) * cz) / caz(i, j, k);
        } else {
            ex(i, j, k) -= cbx(i, j, k) * cx;
            ey(i, j, k) -= cby(i, j, k) * cy;
            ez(i, j, k) -= cbz(i, j, k) * cz;
        }
    }
};

/// Inverse H update: H^{n-1/2} = H^{n+1/2} + Db curl E^n.
template <class T, bool Magnetic, class C = View<const T>> struct InverseUpdateH {
    View<T> hx, hy, hz;
    View<const T> ex, ey, ez;
    C dbx, dby, dbz;                               ///< Magnetic only
    static constexpr bool cellsIndependent = true; ///< writes H at its cell, reads only E
    T db;
    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        const T e0 = ex(i, j, k), e1 = ey(i, j, k), e2 = ez(i, j, k);
        const T cx = (ez(i, j + 1, k) - e2) - (ey(i, j, k + 1) - e1);
        const T cy = (ex(i, j, k + 1) - e0) - (ez(i + 1, j, k) - e2);
        const T cz = (ey(i + 1, j, k) - e1) - (ex(i, j + 1, k) - e0);
        if constexpr (Magnetic) {
            hx(i, j, k) += dbx(i, j, k) * cx;
            hy(i, j, k) += dby(i, j, k) * cy;
            hz(i, j, k) += dbz(i, j, k) * cz;
        } else {
            hx(i, j, k) += db * cx;
            hy(i, j, k) += db * cy;
            hz(i, j, k) += db * cz;
        }
    }
};

/// Material runs of the adjoint kernels (kernels/Coef.hpp): their coefficients of one table entry as
/// constants, the same values and operations as per cell.
template <class T, int A, bool Magnetic, int Part, class C>
struct MaterialRuns<CpmlEAdjoint<T, A, Magnetic, Part, C>, std::enable_if_t<kRunCoef<C>>> {
    using F = CpmlEAdjoint<T, A, Magnetic, Part, C>;
    static constexpr bool enabled = Magnetic; // the non-magnetic transpose reads no table
    static auto rowOf(const F& f, int j, int k) { return runsOfRow(j, k, f.db2, f.db1); }
    static CpmlEAdjoint<T, A, Magnetic, Part, ConstCoef<T>> at(const F& f, int m) {
        return {f.q2,
                f.q1,
                constCoef(f.db2, m),
                constCoef(f.db1, m),
                f.db,
                f.x1,
                f.x2,
                f.psi1,
                f.psi2,
                f.next1,
                f.next2,
                f.idx,
                f.prof,
                f.profLo,
                f.slo,
                f.shi};
    }
};
template <class T, int A, int Part, class C>
struct MaterialRuns<CpmlHAdjoint<T, A, Part, C>, std::enable_if_t<kRunCoef<C>>> {
    using F = CpmlHAdjoint<T, A, Part, C>;
    static constexpr bool enabled = true;
    static auto rowOf(const F& f, int j, int k) { return runsOfRow(j, k, f.cb2, f.cb1); }
    static CpmlHAdjoint<T, A, Part, ConstCoef<T>> at(const F& f, int m) {
        return {f.p2,
                f.p1,
                constCoef(f.cb2, m),
                constCoef(f.cb1, m),
                f.x1,
                f.x2,
                f.psi1,
                f.psi2,
                f.next1,
                f.next2,
                f.idx,
                f.prof,
                f.profLo,
                f.slo,
                f.shi};
    }
};
template <class T, class C> struct MaterialRuns<ScaleCa<T, C>, std::enable_if_t<kRunCoef<C>>> {
    using F = ScaleCa<T, C>;
    static constexpr bool enabled = true;
    static auto rowOf(const F& f, int j, int k) { return runsOfRow(j, k, f.c0, f.c1, f.c2); }
    static ScaleCa<T, ConstCoef<T>> at(const F& f, int m) {
        return {f.p0, f.p1, f.p2, constCoef(f.c0, m), constCoef(f.c1, m), constCoef(f.c2, m)};
    }
};
template <class T, bool Lossy, class C>
struct MaterialRuns<InverseUpdateE<T, Lossy, C>, std::enable_if_t<kRunCoef<C>>>
    : EUpdateRuns<InverseUpdateE, T, Lossy, C> {};
template <class T, bool Magnetic, class C>
struct MaterialRuns<InverseUpdateH<T, Magnetic, C>, std::enable_if_t<kRunCoef<C>>>
    : HUpdateRuns<InverseUpdateH, T, Magnetic, C> {};

} // namespace yee::kernels
