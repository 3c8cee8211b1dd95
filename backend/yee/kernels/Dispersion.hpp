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
///
/// CPU devices run the forward trio as PoleSaveEBlocks and PoleStepBlocks (end of this file): the same
/// operations per cell in the same order, over blocks of a list whose cells are mostly consecutive in
/// memory, so the loops are SIMD and the offsets are hardly read; PoleCurrent and PoleAdvance become one
/// pass when no E location is in two lists, and then the whole trio folds into the E sweep
/// (poleFoldRow: per row chunk, E^n on the stack, the E update, the poles while E is in cache). The
/// fold finds a list's cells from a run table (poleRunTable: offset, first entry, length and the one
/// weight of each run of consecutive cells) where that is smaller than the E^n scratch it saves, which
/// is the bulk of a material: then it reads neither offsets nor weights per cell, and a weight of 1
/// is not multiplied. A list of Lorentz poles (the common case) takes one pass per cell
/// (poleLorentzStretch: each pole variable loaded and stored once), still with the per-entry
/// functors' operations in their order. The pole state keeps its layout (variable v of entry i at
/// v * count + i, on every backend and in the adjoint) and the run's precision, so results keep their
/// bits. GPUs (and CPU devices on their data paths) launch the per-entry
/// functors.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

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

// ---- CPU forward: blocks of a list, contiguous stretches SIMD ----

/// Entries per block of the CPU forward kernels below (their per-cell temporaries live on the stack).
inline constexpr int kPoleBlock = 256;

/// Split entries [i0, i0 + n) of a list into the longest stretches whose cells are consecutive in
/// memory and call f(first entry, its field offset, length) for each. A list's offsets increase
/// strictly (its cells are found in k, j, i order), so entries s..s+m-1 are consecutive exactly when
/// off[s+m-1] - off[s] == m - 1, a condition that holds up to some m and fails beyond it: each stretch
/// end is found by bisection with a few reads, and a bulk block is one stretch found with two.
template <class F> void poleStretches(const std::int64_t* off, std::int64_t i0, std::int64_t n, const F& f) {
    const std::int64_t end = i0 + n;
    for (std::int64_t i = i0; i < end;) {
        const std::int64_t o = off[i];
        std::int64_t lo = 1, hi = end - i; // lo entries are consecutive; is hi?
        if (off[i + hi - 1] - o != hi - 1) {
            while (hi - lo > 1) {
                const std::int64_t mid = lo + (hi - lo) / 2;
                if (off[i + mid - 1] - o == mid - 1)
                    lo = mid;
                else
                    hi = mid;
            }
            hi = lo;
        }
        f(i, o, int(hi));
        i += hi;
    }
}

/// PoleSaveE on block b of a list (CPU devices): the same values, copied stretch by stretch.
template <class T> struct PoleSaveEBlocks {
    const T* e;
    const std::int64_t* off;
    T* s;
    std::int64_t count;
    void operator()(std::int64_t b) const {
        const std::int64_t i0 = b * kPoleBlock;
        const std::int64_t n = count - i0 < kPoleBlock ? count - i0 : kPoleBlock;
        poleStretches(off, i0, n, [this](std::int64_t first, std::int64_t o, int len) {
            const T* YEE_RESTRICT src = e + o;
            T* YEE_RESTRICT dst = s + first;
            for (int x = 0; x < len; ++x)
                dst[x] = src[x];
        });
    }
};

/// PoleCurrent on one stretch of `len` consecutive cells of a list (CPU devices), with exactly its
/// operations in its order, vectorised over the cells: E and CB point at the stretch's first cell,
/// `state` at its first entry (variable slot s of entry x at state[s * count + x]).
template <class T>
YEE_SIMD_CLONES void poleCurrentStretch(T* YEE_RESTRICT E, const T* YEE_RESTRICT CB, const T* state,
                                        std::int64_t count, const PoleCoefs<T>& c, int len) {
    T m[kPoleBlock];
    for (int x = 0; x < len; ++x)
        m[x] = 0;
    for (int p = 0; p < c.n; ++p) {
        if (c.jSlot[p] >= 0) {
            const T* YEE_RESTRICT J = state + c.jSlot[p] * count;
            const T a = c.cJ[p];
            for (int x = 0; x < len; ++x)
                m[x] += a * J[x];
        }
        if (c.pSlot[p] >= 0) {
            const T* YEE_RESTRICT P = state + c.pSlot[p] * count;
            const T a = c.cP[p];
            for (int x = 0; x < len; ++x)
                m[x] += a * P[x];
        }
    }
    for (int x = 0; x < len; ++x)
        E[x] -= CB[x] * m[x];
}

/// PoleAdvance on one stretch of `len` (at most kPoleBlock) consecutive cells of a list (CPU devices),
/// with exactly its operations in its order: E points at the stretch's first cell, W, S (E^n) and
/// `state` at its first entry (as in poleCurrentStretch). W null: every weight of the stretch is 1, whose
/// product w Ebar is Ebar bit for bit, so the weights are neither read nor multiplied.
template <class T>
YEE_SIMD_CLONES void poleAdvanceStretch(const T* YEE_RESTRICT E, const T* YEE_RESTRICT W,
                                        const T* YEE_RESTRICT S, T* state, std::int64_t count, T dt,
                                        const PoleCoefs<T>& c, int len) {
    T drive[kPoleBlock];
    if (W)
        for (int x = 0; x < len; ++x)
            drive[x] = W[x] * (T(0.5) * (S[x] + E[x]));
    else
        for (int x = 0; x < len; ++x)
            drive[x] = T(0.5) * (S[x] + E[x]);
    for (int p = 0; p < c.n; ++p) {
        const T d = c.d[p], cJ = c.cJ[p], cP = c.cP[p];
        T* YEE_RESTRICT J = c.jSlot[p] >= 0 ? state + c.jSlot[p] * count : nullptr;
        T* YEE_RESTRICT P = c.pSlot[p] >= 0 ? state + c.pSlot[p] * count : nullptr;
        if (J && P) { // Lorentz
            for (int x = 0; x < len; ++x) {
                T mm = d * drive[x];
                mm += cJ * J[x];
                mm += cP * P[x];
                P[x] += dt * mm;
                J[x] = T(2) * mm - J[x];
            }
        } else if (J) { // Drude
            for (int x = 0; x < len; ++x) {
                T mm = d * drive[x];
                mm += cJ * J[x];
                J[x] = T(2) * mm - J[x];
            }
        } else if (P) { // Debye
            for (int x = 0; x < len; ++x) {
                T mm = d * drive[x];
                mm += cP * P[x];
                P[x] += dt * mm;
            }
        }
    }
}

/// The number of poles of `c` when every one is a Lorentz pole with its P and J in slots 2p and 2p + 1
/// (the layout solver/Dispersion.cpp gives a Lorentz-only material), else 0.
template <class T> int lorentzPairs(const PoleCoefs<T>& c) {
    for (int p = 0; p < c.n; ++p)
        if (c.pSlot[p] != 2 * p || c.jSlot[p] != 2 * p + 1)
            return 0;
    return c.n;
}

/// How a stretch's weights are given to the one-pass stretches below: every weight 1 (neither read nor
/// multiplied: 1 * x is x bit for bit), one weight for the whole stretch, or one per cell (an array).
enum class StretchWeights { Unit, One, PerCell };

/// PoleCurrent then PoleAdvance on one stretch of consecutive cells of a list of N Lorentz poles
/// (lorentzPairs(c) == N), per cell in one pass (CPU devices): each pole variable is loaded once and
/// stored once, the current's sum, the E correction, the drive and every pole's advance follow in
/// registers with exactly the per-entry functors' operations in their order, so the bits are theirs.
/// E and CB point at the stretch's first cell, S (E^n) and `state` at its first entry (variable v of
/// cell x at state[v * count + x], count >= len); the weights are W[x] (PerCell) or w (One).
template <class T, int N, StretchWeights Mode>
YEE_SIMD_CLONES void poleLorentzStretch(T* YEE_RESTRICT E, const T* YEE_RESTRICT CB, const T* YEE_RESTRICT W,
                                        T w, const T* YEE_RESTRICT S, T* YEE_RESTRICT state,
                                        std::int64_t count, T dt, const PoleCoefs<T>& c, int len) {
    T cJ[N], cP[N], d[N];
    for (int p = 0; p < N; ++p) {
        cJ[p] = c.cJ[p];
        cP[p] = c.cP[p];
        d[p] = c.d[p];
    }
    for (int x = 0; x < len; ++x) {
        T P[N], J[N];
        for (int p = 0; p < N; ++p) {
            P[p] = state[2 * p * count + x];
            J[p] = state[(2 * p + 1) * count + x];
        }
        T m = 0;
        for (int p = 0; p < N; ++p) {
            m += cJ[p] * J[p];
            m += cP[p] * P[p];
        }
        const T e = E[x] - CB[x] * m;
        E[x] = e;
        T drive = T(0.5) * (S[x] + e);
        if constexpr (Mode == StretchWeights::PerCell)
            drive = W[x] * drive;
        else if constexpr (Mode == StretchWeights::One)
            drive = w * drive;
        for (int p = 0; p < N; ++p) {
            T mm = d[p] * drive;
            mm += cJ[p] * J[p];
            mm += cP[p] * P[p];
            state[2 * p * count + x] = P[p] + dt * mm;
            state[(2 * p + 1) * count + x] = T(2) * mm - J[p];
        }
    }
}

/// PoleCurrent then PoleAdvance on one stretch of at most kPoleBlock cells (CPU devices; pointers as in
/// poleLorentzStretch; the weights W[x], or w for every cell when W is null; `pairs` =
/// lorentzPairs(c)): one pass per cell for lists of up to four Lorentz poles, else poleCurrentStretch
/// and poleAdvanceStretch. The same bits either way.
template <class T>
void poleStepStretch(T* E, const T* CB, const T* W, T w, const T* S, T* state, std::int64_t count, T dt,
                     const PoleCoefs<T>& c, int pairs, int len) {
    auto lorentz = [&](auto n) {
        constexpr int N = decltype(n)::value;
        if (W)
            poleLorentzStretch<T, N, StretchWeights::PerCell>(E, CB, W, w, S, state, count, dt, c, len);
        else if (w == T(1))
            poleLorentzStretch<T, N, StretchWeights::Unit>(E, CB, W, w, S, state, count, dt, c, len);
        else
            poleLorentzStretch<T, N, StretchWeights::One>(E, CB, W, w, S, state, count, dt, c, len);
    };
    switch (pairs) {
    case 1:
        lorentz(std::integral_constant<int, 1>{});
        return;
    case 2:
        lorentz(std::integral_constant<int, 2>{});
        return;
    case 3:
        lorentz(std::integral_constant<int, 3>{});
        return;
    case 4:
        lorentz(std::integral_constant<int, 4>{});
        return;
    default:
        break;
    }
    poleCurrentStretch(E, CB, state, count, c, len);
    if (W || w == T(1)) {
        poleAdvanceStretch<T>(E, W, S, state, count, dt, c, len);
        return;
    }
    T ws[kPoleBlock];
    for (int x = 0; x < len; ++x)
        ws[x] = w;
    poleAdvanceStretch<T>(E, ws, S, state, count, dt, c, len);
}

/// PoleCurrent and/or PoleAdvance on block b of a list (CPU devices), per cell with exactly their
/// operations in their order (so the same bits), vectorised over each contiguous stretch: the poles
/// are the outer loop and the cells the inner one. With both halves in one pass (`current` and
/// `advance`), which is exact when no E location is in two lists (the advance must read the E^{n+1}
/// that every list's current has finished), each cell's E is read and written once, and a list of
/// Lorentz poles takes poleStepStretch's one pass per cell.
template <class T> struct PoleStepBlocks {
    T* e;
    const T* cb;
    const std::int64_t* off;
    const T* w;
    const T* s;
    T* state;
    std::int64_t count;
    T dt;
    PoleCoefs<T> c;
    bool current, advance;

    void operator()(std::int64_t b) const {
        const std::int64_t i0 = b * kPoleBlock;
        const std::int64_t n = count - i0 < kPoleBlock ? count - i0 : kPoleBlock;
        const int pairs = lorentzPairs(c);
        poleStretches(off, i0, n, [this, pairs](std::int64_t first, std::int64_t o, int len) {
            if (current && advance) {
                poleStepStretch(e + o, cb + o, w + first, T(1), s + first, state + first, count, dt, c, pairs,
                                len);
                return;
            }
            if (current)
                poleCurrentStretch(e + o, cb + o, state + first, count, c, len);
            if (advance)
                poleAdvanceStretch<T>(e + o, w + first, s + first, state + first, count, dt, c, len);
        });
    }
};

/// The run table of a list for the row fold below (CPU devices): the list's entries as runs of
/// consecutive cells, kRunWords words per run: the field offset of its first cell, its first entry, its
/// length with its kind above bit 32, and the weight of all its cells (a double's bits). A run is a
/// longest stretch of consecutive entries with consecutive offsets, one kind and one weight: kRunPoles,
/// or kRunSkip (one entry that the fold leaves to the separate passes). The fold reads a few words per
/// run instead of an offset and a weight per entry; a cell inside one material has weight 1, so the bulk
/// of a material is a run per row and its interface cells runs of their own (a plane: one more per row).
inline constexpr int kRunWords = 4;
inline constexpr std::int64_t kRunPoles = 0, kRunSkip = 1;

/// Build the run table (see kRunWords) of the `count` entries at increasing offsets `off`, of which
/// `skip` (increasing entry indices, `skipCount` of them) are left to the passes; weight(e) is entry e's
/// weight as the list holds it (rounded to the precision, as a double). Host code; the table is what
/// Dispersion stores per list.
template <class Weight>
std::vector<std::int64_t> poleRunTable(const std::int64_t* off, std::int64_t count, const std::int64_t* skip,
                                       std::int64_t skipCount, const Weight& weight) {
    std::vector<std::int64_t> t;
    std::int64_t q = 0; // the next skip entry
    for (std::int64_t e = 0; e < count;) {
        const bool skipped = q < skipCount && skip[q] == e;
        const double w = weight(e);
        std::int64_t n = 1;
        if (skipped)
            ++q;
        else
            while (e + n < count && off[e + n] == off[e] + n && !(q < skipCount && skip[q] == e + n) &&
                   weight(e + n) == w && n < (std::int64_t(1) << 30))
                ++n;
        std::int64_t bits = 0;
        std::memcpy(&bits, &w, sizeof w);
        t.push_back(off[e]);
        t.push_back(e);
        t.push_back(n | ((skipped ? kRunSkip : kRunPoles) << 32));
        t.push_back(bits);
        e += n;
    }
    return t;
}

/// One pole list as the row fold below sees it (CPU devices): its E component's array and Cb (buffer
/// starts, which the offsets index), its entries' offsets, weights and state, its coefficients with
/// lorentzPairs() of them, and either its run table (poleRunTable, `runCount` runs, which hold the
/// offsets and weights the fold reads) or, without one (runs null), the entries the fold leaves out
/// (increasing entry indices: cells that something else writes between the E update and the pole
/// currents, updated by separate passes).
template <class T> struct PoleFoldList {
    T* e;
    const T* cb;
    const std::int64_t* off;
    const T* w;
    T* state;
    std::int64_t count;
    PoleCoefs<T> c;
    int pairs; ///< lorentzPairs(c)
    const std::int64_t* runs;
    std::int64_t runCount;
    const std::int64_t* skip;
    std::int64_t skipCount;
    int comp; ///< the E component 0..2 (lists of one component share `e`)
};

/// poleStretches over the entries [a, b) of `l` that it does not skip (a list without a run table).
template <class T, class F>
void poleFoldPieces(const PoleFoldList<T>& l, std::int64_t a, std::int64_t b, const F& f) {
    if (l.skipCount == 0) {
        poleStretches(l.off, a, b - a, f);
        return;
    }
    std::int64_t lo = 0, hi = l.skipCount; // the first skipped entry at or after a
    while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (l.skip[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (std::int64_t q = lo; a < b; ++q) {
        const std::int64_t stop = q < l.skipCount && l.skip[q] < b ? l.skip[q] : b;
        if (stop > a)
            poleStretches(l.off, a, stop - a, f);
        a = stop + 1;
    }
}

/// The forward pole update folded into the E sweep of one row (CPU devices), for lists of which no
/// E location is in two: the row's cells [i0, i1) (buffer offsets rowBase + i) go in chunks of at
/// most kPoleBlock cells; per chunk with listed cells, E^n of its cells is kept on the stack
/// (PoleSaveE), update(c0, c1, poles) runs the E update of the chunk's cells (`poles`: some cell of it
/// is listed), then each list's stretches in the chunk get their currents and advance (PoleCurrent,
/// PoleAdvance, poleStepStretch) while E is in cache: from its run table, or from its offsets
/// (prefetched during the E update) and weights. Every listed cell sees the operations of PoleSaveE,
/// the E update, PoleCurrent and PoleAdvance in that order, as in the separate passes, so the bits are
/// theirs provided nothing else writes a folded E between the E update and the pole currents (the
/// kRunSkip runs, or the `skip` entries, which the fold leaves alone). `cursor` holds 2 * nLists entries
/// that the caller keeps per thread between rows (hints, see below).
template <class T, class Update>
void poleFoldRow(const PoleFoldList<T>* lists, int nLists, T dt, std::int64_t rowBase, int i0, int i1,
                 std::int64_t* cursor, const Update& update) {
    constexpr std::int64_t lenMask = (std::int64_t(1) << 32) - 1;
    // cursor[2q]: the first run (entry) of list q that ends after (lies at or after) the chunk start;
    // cursor[2q + 1]: the same for the chunk end. On entry cursor[2q + 1] is a hint (where the previous
    // row of the calling thread ended, any value is valid): the row's first run (entry) is searched from
    // there, galloping, so a thread that sweeps rows in order reads a few words near the last ones
    // instead of bisecting the whole list.
    for (int q = 0; q < nLists; ++q) {
        const PoleFoldList<T>& l = lists[q];
        const std::int64_t o = rowBase + i0;
        const std::int64_t* R = l.runs;
        const std::int64_t* off = l.off;
        const std::int64_t n = R ? l.runCount : l.count;
        auto before = [R, off, o](std::int64_t r) { // run r ends at or before o (entry r lies before o)
            return R ? R[kRunWords * r] + (R[kRunWords * r + 2] & lenMask) <= o : off[r] < o;
        };
        std::int64_t h = cursor[2 * q + 1];
        h = h < 0 ? 0 : (h > n ? n : h);
        std::int64_t lo = 0, hi = n; // the first one not before o is in [lo, hi]
        if (h > 0 && !before(h - 1)) {
            hi = h - 1;
        } else {
            lo = h;
            // lo - 1 is before o throughout; the step that fails checks index lo + (lo - h).
            for (std::int64_t step = 1; lo + step - 1 < n && before(lo + step - 1); step *= 2)
                lo += step;
            hi = lo + (lo - h) < n ? lo + (lo - h) : n;
        }
        while (lo < hi) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            if (before(mid))
                lo = mid + 1;
            else
                hi = mid;
        }
        cursor[2 * q] = cursor[2 * q + 1] = lo;
    }
    T* ePlanes[3] = {nullptr, nullptr, nullptr};
    for (int q = 0; q < nLists; ++q)
        ePlanes[lists[q].comp] = lists[q].e;
    T save[3][kPoleBlock]; // E^n of the chunk's cells, per component that has listed cells in it
    for (int c0 = i0; c0 < i1; c0 += kPoleBlock) {
        const int c1 = i1 - c0 < kPoleBlock ? i1 : c0 + kPoleBlock;
        const std::int64_t chunk = rowBase + c0, end = rowBase + c1;
        bool poles = false, comps[3] = {false, false, false};
        for (int q = 0; q < nLists; ++q) {
            const PoleFoldList<T>& l = lists[q];
            const std::int64_t a = cursor[2 * q + 1];
            cursor[2 * q] = a;
            if (l.runs) {
                if (a < l.runCount && l.runs[kRunWords * a] < end)
                    poles = comps[l.comp] = true;
            } else if (a < l.count && l.off[a] < end) {
                poles = comps[l.comp] = true;
                // The chunk's offsets are read after its E update: fetch them meanwhile.
                const std::int64_t n = c1 - c0 < l.count - a ? c1 - c0 : l.count - a;
                for (std::int64_t x = 0; x < n; x += 64 / std::int64_t(sizeof(std::int64_t)))
                    __builtin_prefetch(l.off + a + x);
            }
        }
        if (poles)
            for (int c = 0; c < 3; ++c)
                if (comps[c]) {
                    const T* YEE_RESTRICT src = ePlanes[c] + chunk;
                    T* YEE_RESTRICT d = save[c];
                    for (int x = 0; x < c1 - c0; ++x)
                        d[x] = src[x];
                }
        update(c0, c1, poles);
        if (!poles)
            continue;
        for (int q = 0; q < nLists; ++q) {
            const PoleFoldList<T>& l = lists[q];
            const T* S = save[l.comp];
            if (!l.runs) {
                const std::int64_t a = cursor[2 * q];
                std::int64_t b = a; // the entries in the chunk are fewer than its cells
                std::int64_t hi = a + (c1 - c0) < l.count ? a + (c1 - c0) : l.count;
                while (b < hi) {
                    const std::int64_t mid = b + (hi - b) / 2;
                    if (l.off[mid] < end)
                        b = mid + 1;
                    else
                        hi = mid;
                }
                cursor[2 * q + 1] = b;
                if (a < b)
                    poleFoldPieces(l, a, b, [&](std::int64_t first, std::int64_t o, int len) {
                        poleStepStretch<T>(l.e + o, l.cb + o, l.w + first, T(1), S + (o - chunk),
                                           l.state + first, l.count, dt, l.c, l.pairs, len);
                    });
                continue;
            }
            std::int64_t r = cursor[2 * q];
            for (; r < l.runCount; ++r) {
                const std::int64_t* run = l.runs + kRunWords * r;
                const std::int64_t o = run[0];
                if (o >= end)
                    break;
                const std::int64_t len = run[2] & lenMask, kind = run[2] >> 32;
                const std::int64_t s0 = o > chunk ? o : chunk, s1 = o + len < end ? o + len : end;
                if (kind != kRunSkip) {
                    const std::int64_t first = run[1] + (s0 - o);
                    double w;
                    std::memcpy(&w, run + 3, sizeof w);
                    poleStepStretch<T>(l.e + s0, l.cb + s0, nullptr, T(w), S + (s0 - chunk), l.state + first,
                                       l.count, dt, l.c, l.pairs, int(s1 - s0));
                }
                if (o + len > end)
                    break; // the run goes on in the next chunk
            }
            cursor[2 * q + 1] = r;
        }
    }
}

} // namespace yee::kernels
