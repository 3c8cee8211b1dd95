#pragma once
/// \file Cpml.hpp
/// Convolutional PML (Roden & Gedney 2000) as a correction applied after the plain Yee update on the
/// cells of one PML slab, for one axis a. With the stretched coordinate s = kappa + sigma/(alpha + j w),
/// the derivative d/da becomes (1/kappa) d/da + psi with the recursive convolution
///   psi^{n} = b psi^{n-1} + c (dF/da),  b = exp(-(sigma/kappa + alpha) dt),
///   c = sigma / (sigma kappa + kappa^2 alpha) (b - 1).
/// The plain update already added s*dF/da, so the correction adds s*((1/kappa - 1) dF/da + psi).
///
/// For E_p with the a-derivative of H_q the curl sign is s = eps_{p a q}; for the two components
/// transverse to a, p1 = a+1 (sign -1) and p2 = a+2 (sign +1). For H_q with the a-derivative of E_p the
/// sign is -eps_{q a p}: q1 = a+1 (sign +1), q2 = a+2 (sign -1).
#include <cstdint>

#include <type_traits>

#include "yee/core/Platform.hpp"
#include "yee/core/View.hpp"
#include "yee/kernels/Coef.hpp"

namespace yee::kernels {

/// Grading of one slab along its axis: per tile-local position along the axis (index - lo).
template <class T> struct PmlProfile {
    const T* b;      ///< exp(-(sigma/kappa + alpha) dt)
    const T* c;      ///< sigma/(sigma kappa + kappa^2 alpha) (b - 1)
    const T* kinvm1; ///< 1/kappa - 1
};

/// Slab-local dense indexing of psi arrays: x fastest over the slab box.
struct SlabIndex {
    int lo0, lo1, lo2;
    std::int64_t n0, n01;
    YEE_HD YEE_FORCEINLINE std::int64_t operator()(int i, int j, int k) const {
        return (i - lo0) + n0 * (j - lo1) + n01 * (k - lo2);
    }
};

/// E correction on one slab of axis A (template so the offsets are compile-time). Cb is read through
/// `C` (per-cell arrays or a material index and table, kernels/Coef.hpp).
template <class T, int A, class C = View<const T>> struct CpmlE {
    View<T> e1, e2;       ///< E_{A+1}, E_{A+2}
    View<const T> h2, h1; ///< H_{A+2} (enters E_{A+1}), H_{A+1} (enters E_{A+2})
    C cb1, cb2;
    T* psi1;
    T* psi2;
    SlabIndex idx;
    PmlProfile<T> prof;
    int profLo; ///< tile-local coordinate along A of prof[0]
    /// Writes E and psi at its cell only, reads H (Coef.hpp).
    static constexpr bool cellsIndependent = true;
    static constexpr int axis = A;

    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        constexpr int di = A == 0, dj = A == 1, dk = A == 2;
        const int ia = (A == 0 ? i : (A == 1 ? j : k)) - profLo;
        const std::int64_t s = idx(i, j, k);
        const T d1 = h2(i, j, k) - h2(i - di, j - dj, k - dk); // d H_{A+2} / dA
        const T d2 = h1(i, j, k) - h1(i - di, j - dj, k - dk); // d H_{A+1} / dA
        const T b = prof.b[ia], c = prof.c[ia], km = prof.kinvm1[ia];
        const T p1 = b * psi1[s] + c * d1;
        const T p2 = b * psi2[s] + c * d2;
        psi1[s] = p1;
        psi2[s] = p2;
        e1(i, j, k) -= cb1(i, j, k) * (km * d1 + p1);
        e2(i, j, k) += cb2(i, j, k) * (km * d2 + p2);
    }
};

/// H correction on one slab of axis A. Magnetic: per-component Db (read through `C`, as CpmlE's Cb),
/// else scalar db.
template <class T, int A, bool Magnetic, class C = View<const T>> struct CpmlH {
    View<T> h1, h2;       ///< H_{A+1}, H_{A+2}
    View<const T> e2, e1; ///< E_{A+2} (enters H_{A+1}), E_{A+1} (enters H_{A+2})
    C db1, db2;
    T db;
    T* psi1;
    T* psi2;
    SlabIndex idx;
    PmlProfile<T> prof;
    int profLo;
    /// Writes H and psi at its cell only, reads E (Coef.hpp).
    static constexpr bool cellsIndependent = true;
    static constexpr int axis = A;

    YEE_HD YEE_FORCEINLINE void operator()(int i, int j, int k) const {
        constexpr int di = A == 0, dj = A == 1, dk = A == 2;
        const int ia = (A == 0 ? i : (A == 1 ? j : k)) - profLo;
        const std::int64_t s = idx(i, j, k);
        const T d1 = e2(i + di, j + dj, k + dk) - e2(i, j, k); // d E_{A+2} / dA
        const T d2 = e1(i + di, j + dj, k + dk) - e1(i, j, k); // d E_{A+1} / dA
        const T b = prof.b[ia], c = prof.c[ia], km = prof.kinvm1[ia];
        const T p1 = b * psi1[s] + c * d1;
        const T p2 = b * psi2[s] + c * d2;
        psi1[s] = p1;
        psi2[s] = p2;
        if constexpr (Magnetic) {
            h1(i, j, k) += db1(i, j, k) * (km * d1 + p1);
            h2(i, j, k) -= db2(i, j, k) * (km * d2 + p2);
        } else {
            h1(i, j, k) += db * (km * d1 + p1);
            h2(i, j, k) -= db * (km * d2 + p2);
        }
    }
};

/// Material runs of the E correction (kernels/Coef.hpp): Cb of one material as constants.
template <class T, int A, class C> struct MaterialRuns<CpmlE<T, A, C>, std::enable_if_t<kRunCoef<C>>> {
    using F = CpmlE<T, A, C>;
    static constexpr bool enabled = true;
    static auto rowOf(const F& f, int j, int k) { return runsOfRow(j, k, f.cb1, f.cb2); }
    static CpmlE<T, A, ConstCoef<T>> at(const F& f, int m) {
        return {f.e1,   f.e2,  f.h2,   f.h1,    constCoef(f.cb1, m), constCoef(f.cb2, m), f.psi1,
                f.psi2, f.idx, f.prof, f.profLo};
    }
};

/// Material runs of the magnetic H correction (kernels/Coef.hpp): Db of one material as constants.
template <class T, int A, bool Magnetic, class C>
struct MaterialRuns<CpmlH<T, A, Magnetic, C>, std::enable_if_t<kRunCoef<C>>> {
    using F = CpmlH<T, A, Magnetic, C>;
    static constexpr bool enabled = Magnetic; // the non-magnetic correction reads no table
    static auto rowOf(const F& f, int j, int k) { return runsOfRow(j, k, f.db1, f.db2); }
    static CpmlH<T, A, Magnetic, ConstCoef<T>> at(const F& f, int m) {
        return {f.h1,   f.h2,  f.e2,   f.e1,    constCoef(f.db1, m), constCoef(f.db2, m), f.db, f.psi1,
                f.psi2, f.idx, f.prof, f.profLo};
    }
};

} // namespace yee::kernels
