#pragma once
/// \file Dispersion.hpp
/// Auxiliary-differential-equation (ADE) update of dispersive poles, and its exact transpose, written
/// once for every backend. Each functor runs over one pole list: the cells of one E component where
/// one dispersive material is present (cell offset, volume weight w), with every pole of that
/// material. Normalised units as in Yee.hpp (dx = c = eps0 = 1).
///
/// Each pole obeys a linear ODE driven by w E: Drude  J' + gamma J = omega_p^2 w E;  Lorentz
/// P'' + gamma P' + omega_0^2 P = delta_eps omega_0^2 w E (J = P');  Debye  tau P' + P = delta_eps w E.
/// All are integrated with the trapezoidal rule (second order, A-stable: the poles add nothing to the
/// Courant limit) against Ebar = (E^n + E^{n+1}) / 2. The polarisation current of step n, the one
/// in  eps_inf (E^{n+1} - E^n) / dt + sigma Ebar + m = curl H^{n+1/2},  is then affine in Ebar:
///   m = cJ J^n + cP P^n + d w Ebar,
/// and the state advances as  P^{n+1} = P^n + dt m,  J^{n+1} = 2 m - J^n  (a pole keeps only the
/// variables it has: Drude J, Lorentz P and J, Debye P). The d w Ebar part is folded into the E
/// update's coefficients as a conductivity (sigma += d w in Ca and Cb, solver/Dispersion.cpp), so one
/// forward step per list is
///   PoleSaveE    before the E update:  S = E^n
///   (the Yee E update with the modified Ca, Cb; sources)
///   PoleCurrent  after it:            E -= Cb (cJ J + cP P)        (every list, then)
///   PoleAdvance                       m = cJ J + cP P + d w (S + E) / 2;  P += dt m;  J = 2 m - J
/// The numerical permittivity is exactly the model's at omega~ = (2 / dt) tan(omega dt / 2).
///
/// Adjoint (kernels/Adjoint.hpp variables, P_adj = Cb Ebar_adj at E locations): the transposes run
/// in reverse order: PoleAdvanceT, PoleCurrentT right after the step's adjoint sources, PoleSaveET
/// after the transposed E update (P_adj *= Ca).
#include <cstdint>

#include "yee/core/Platform.hpp"

namespace yee::kernels {

/// Most poles per list (scene::kMaxPoles).
inline constexpr int kMaxPolesPerList = 8;

/// The coefficients of one list's poles and where each keeps its state: variable v of pole p lives at
/// state[slot * count + e] (slot -1: the pole has no such variable).
template <class T> struct PoleCoefs {
    int n = 0;
    T cJ[kMaxPolesPerList] = {};
    T cP[kMaxPolesPerList] = {};
    T d[kMaxPolesPerList] = {};
    int jSlot[kMaxPolesPerList] = {};
    int pSlot[kMaxPolesPerList] = {};
};

/// S[e] = E[off[e]] (E^n, before the E update).
template <class T> struct PoleSaveE {
    const T* e;
    const std::int64_t* off;
    T* s;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t i) const { s[i] = e[off[i]]; }
};

/// E[off] -= Cb[off] (sum over poles of cJ J + cP P), with the state of step n.
template <class T> struct PoleCurrent {
    T* e;
    const T* cb;
    const std::int64_t* off;
    const T* state;
    std::int64_t count;
    PoleCoefs<T> c;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t i) const {
        T m = 0;
        for (int p = 0; p < c.n; ++p) {
            if (c.jSlot[p] >= 0)
                m += c.cJ[p] * state[c.jSlot[p] * count + i];
            if (c.pSlot[p] >= 0)
                m += c.cP[p] * state[c.pSlot[p] * count + i];
        }
        const std::int64_t o = off[i];
        e[o] -= cb[o] * m;
    }
};

/// The state of step n to step n + 1, from E^n (S) and the complete E^{n+1}.
template <class T> struct PoleAdvance {
    const T* e;
    const std::int64_t* off;
    const T* w;
    const T* s;
    T* state;
    std::int64_t count;
    T dt;
    PoleCoefs<T> c;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t i) const {
        const T drive = w[i] * (T(0.5) * (s[i] + e[off[i]]));
        for (int p = 0; p < c.n; ++p) {
            T* J = c.jSlot[p] >= 0 ? state + c.jSlot[p] * count + i : nullptr;
            T* P = c.pSlot[p] >= 0 ? state + c.pSlot[p] * count + i : nullptr;
            T m = c.d[p] * drive;
            if (J)
                m += c.cJ[p] * *J;
            if (P)
                m += c.cP[p] * *P;
            if (P)
                *P += dt * m;
            if (J)
                *J = T(2) * m - *J;
        }
    }
};

/// Transpose of PoleAdvance: the state adjoint of step n + 1 to that of step n (its PoleAdvance part),
/// the adjoint of S into sBar, and the E^{n+1} part into P_adj.
template <class T> struct PoleAdvanceT {
    T* padj;
    const T* cb;
    const std::int64_t* off;
    const T* w;
    T* sBar;
    T* stateBar;
    std::int64_t count;
    T dt;
    PoleCoefs<T> c;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t i) const {
        T driveBar = 0;
        for (int p = 0; p < c.n; ++p) {
            T* J = c.jSlot[p] >= 0 ? stateBar + c.jSlot[p] * count + i : nullptr;
            T* P = c.pSlot[p] >= 0 ? stateBar + c.pSlot[p] * count + i : nullptr;
            T mBar = 0;
            if (P)
                mBar += dt * *P;
            if (J)
                mBar += T(2) * *J;
            if (J)
                *J = c.cJ[p] * mBar - *J;
            if (P)
                *P += c.cP[p] * mBar;
            driveBar += c.d[p] * mBar;
        }
        const T half = T(0.5) * (w[i] * driveBar);
        sBar[i] = half;
        const std::int64_t o = off[i];
        padj[o] += cb[o] * half;
    }
};

/// Transpose of PoleCurrent: the state adjoint gains -(cJ, cP) P_adj[off] (P_adj = Cb Ebar_adj).
template <class T> struct PoleCurrentT {
    const T* padj;
    const std::int64_t* off;
    T* stateBar;
    std::int64_t count;
    PoleCoefs<T> c;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t i) const {
        const T a = padj[off[i]];
        for (int p = 0; p < c.n; ++p) {
            if (c.jSlot[p] >= 0)
                stateBar[c.jSlot[p] * count + i] -= c.cJ[p] * a;
            if (c.pSlot[p] >= 0)
                stateBar[c.pSlot[p] * count + i] -= c.cP[p] * a;
        }
    }
};

/// Transpose of PoleSaveE: P_adj[off] += Cb[off] sBar (the E^n part).
template <class T> struct PoleSaveET {
    T* padj;
    const T* cb;
    const std::int64_t* off;
    const T* sBar;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t i) const {
        const std::int64_t o = off[i];
        padj[o] += cb[o] * sBar[i];
    }
};

} // namespace yee::kernels
