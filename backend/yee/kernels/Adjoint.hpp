#pragma once
/// \file Adjoint.hpp
/// Hand-derived transposes of the forward kernels, and the inverse (time-reversed) Yee update.
///
/// Adjoint variables. With Ebar = dJ/dE and Hbar = dJ/dH, the adjoint state is kept as
///   P = Cb * Ebar   (E locations)      Q = -Db * Hbar   (H locations).
/// In these variables the transpose of the interior Yee step is the forward Yee step itself
/// (the curls are transposes of each other: C_H = C_E^T), so UpdateH / UpdateE of Yee.hpp propagate the
/// adjoint, and the same halo plan serves both. Only CPML, Ca scaling and sources need their own code.
///
/// Reverse of forward step n, in order:  detector sources -> CPML-E^T -> [P high halo] ->
///   Q -= Db curl P (UpdateH), P *= Ca -> CPML-H^T -> [Q low halo] -> P += Cb curl Q (UpdateE, no Ca).
#include <cstdint>

#include "yee/core/Platform.hpp"
#include "yee/core/View.hpp"
#include "yee/kernels/Cpml.hpp"

namespace yee::kernels {

/// Pass 1 of both CPML transposes, over the slab of axis A. For CPML-E^T the inputs are x = P_{A+1},
/// P_{A+2} (curl signs s = -1, +1) at E locations; for CPML-H^T they are x = Q_{A+1}, Q_{A+2} at H
/// locations, where Db Hbar = -Q turns the signs s' = +1, -1 into the same pattern:
///   psibar += s x;  w = s kappa' x + c psibar;  psibar *= b     with s = -1 for slot 1, +1 for slot 2.
/// w is stored for pass 2.
template <class T, int A> struct CpmlAdjointW {
    View<const T> x1, x2;
    T* YEE_RESTRICT psi1; ///< the four slab arrays are distinct buffers (restrict: the row loop vectorises)
    T* YEE_RESTRICT psi2;
    T* YEE_RESTRICT w1;
    T* YEE_RESTRICT w2;
    SlabIndex idx;
    PmlProfile<T> prof;
    int profLo;
    static constexpr int axis = A; ///< device/SlabLaunch.hpp prefetches the x slabs' arrays
    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        const int ia = (A == 0 ? i : (A == 1 ? j : k)) - profLo;
        const std::int64_t s = idx(i, j, k);
        const T b = prof.b[ia], c = prof.c[ia], km = prof.kinvm1[ia];
        const T a1 = psi1[s] - x1(i, j, k);
        const T a2 = psi2[s] + x2(i, j, k);
        w1[s] = -km * x1(i, j, k) + c * a1;
        w2[s] = km * x2(i, j, k) + c * a2;
        psi1[s] = b * a1;
        psi2[s] = b * a2;
    }
};

/// Transpose of CpmlE, pass 2 over H locations: Hbar_q(i) += w(i) - w(i+1) along A, i.e.
/// Q_q -= Db (w(i) - w(i+1)), with w = 0 outside the slab. q = A+2 takes w1, q = A+1 takes w2.
/// Inner: only for cells whose i and i+1 both lie in the slab (the same values, without the tests, so
/// the CPU row loop vectorises).
template <class T, int A, bool Magnetic, bool Inner = false> struct CpmlEAdjointQ {
    View<T> q2, q1; ///< Q_{A+2}, Q_{A+1}
    View<const T> db2, db1;
    T db;
    const T* w1;
    const T* w2;
    SlabIndex idx;                 ///< the slab's E-location indexing
    int slo, shi;                  ///< slab extent along A (tile-local)
    static constexpr int axis = A; ///< device/SlabLaunch.hpp prefetches the x slabs' arrays
    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        constexpr int di = A == 0, dj = A == 1, dk = A == 2;
        const int ia = A == 0 ? i : (A == 1 ? j : k);
        const bool in0 = Inner || (ia >= slo && ia < shi), in1 = Inner || (ia + 1 >= slo && ia + 1 < shi);
        const T a1 = (in0 ? w1[idx(i, j, k)] : T(0)) - (in1 ? w1[idx(i + di, j + dj, k + dk)] : T(0));
        const T a2 = (in0 ? w2[idx(i, j, k)] : T(0)) - (in1 ? w2[idx(i + di, j + dj, k + dk)] : T(0));
        if constexpr (Magnetic) {
            q2(i, j, k) -= db2(i, j, k) * a1;
            q1(i, j, k) -= db1(i, j, k) * a2;
        } else {
            q2(i, j, k) -= db * a1;
            q1(i, j, k) -= db * a2;
        }
    }
};

/// Transpose of CpmlH, pass 2 over E locations: Ebar_p(i) += w(i-1) - w(i), i.e. P_p += Cb (...).
/// H_{A+1} (w1) was driven by E_{A+2}; H_{A+2} (w2) by E_{A+1}. Inner: only for cells whose i-1 and i
/// both lie in the slab (as CpmlEAdjointQ).
template <class T, int A, bool Inner = false> struct CpmlHAdjointP {
    View<T> p2, p1; ///< P_{A+2}, P_{A+1}
    View<const T> cb2, cb1;
    const T* w1;
    const T* w2;
    SlabIndex idx; ///< the slab's H-location indexing
    int slo, shi;
    static constexpr int axis = A; ///< device/SlabLaunch.hpp prefetches the x slabs' arrays
    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        constexpr int di = A == 0, dj = A == 1, dk = A == 2;
        const int ia = A == 0 ? i : (A == 1 ? j : k);
        const bool in0 = Inner || (ia >= slo && ia < shi), inm = Inner || (ia - 1 >= slo && ia - 1 < shi);
        const T a1 = (inm ? w1[idx(i - di, j - dj, k - dk)] : T(0)) - (in0 ? w1[idx(i, j, k)] : T(0));
        const T a2 = (inm ? w2[idx(i - di, j - dj, k - dk)] : T(0)) - (in0 ? w2[idx(i, j, k)] : T(0));
        p2(i, j, k) += cb2(i, j, k) * a1;
        p1(i, j, k) += cb1(i, j, k) * a2;
    }
};

/// P *= Ca (transpose of the E update's Ca E term).
template <class T> struct ScaleCa {
    View<T> p0, p1, p2;
    View<const T> c0, c1, c2;
    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        p0(i, j, k) *= c0(i, j, k);
        p1(i, j, k) *= c1(i, j, k);
        p2(i, j, k) *= c2(i, j, k);
    }
};

/// Inverse E update (time reversal): E^n = (E^{n+1} - Cb curl H^{n+1/2}) / Ca.
template <class T, bool Lossy> struct InverseUpdateE {
    View<T> ex, ey, ez;
    View<const T> hx, hy, hz;
    View<const T> cbx, cby, cbz;
    View<const T> cax, cay, caz;
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
template <class T, bool Magnetic> struct InverseUpdateH {
    View<T> hx, hy, hz;
    View<const T> ex, ey, ez;
    View<const T> dbx, dby, dbz;
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

} // namespace yee::kernels
