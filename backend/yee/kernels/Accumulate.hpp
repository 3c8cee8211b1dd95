#pragma once
/// \file Accumulate.hpp
/// Single-source detector accumulation kernels: the per-step work of the flux, flux_box, phasor, energy
/// and probe detectors, run on the device that holds the fields (device::launchIndex: the CPU launcher on
/// emulated devices, CUDA on GPUs), so a GPU step never waits for the host. The per-cell arithmetic is the
/// detectors' own, written once here; the running DFT sums are plain float64 additions in step order (each
/// cell owns its accumulators, so the order is fixed), and the per-sample sums over cells are exact
/// (ExactSum's digits, added with integer atomics, whose result does not depend on the order), so CPU and
/// GPU values are equal to the last bit.
///
/// C++17 (included by the CUDA translation units).
#include <cstdint>
#include <cstring>

#include "yee/core/Platform.hpp"
#include "yee/core/View.hpp"

namespace yee::kernels {

/// The digit layout of yee::ExactSum (checked against it in detectors/Detector.cpp): kExactWords signed
/// 64-bit words of 32-bit digits, bit kExactOffset of the accumulator is 2^0, then one non-finite flag word.
inline constexpr int kExactWords = 70;
inline constexpr int kExactOffset = 1126;

namespace detail {
YEE_HD YEE_FORCEINLINE void atomicAddWord(std::int64_t* p, std::int64_t v) {
#if defined(__CUDA_ARCH__)
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
#else
    __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}
YEE_HD YEE_FORCEINLINE void atomicSetWord(std::int64_t* p) {
#if defined(__CUDA_ARCH__)
    atomicOr(reinterpret_cast<unsigned long long*>(p), 1ull);
#else
    __atomic_store_n(p, std::int64_t(1), __ATOMIC_RELAXED);
#endif
}
YEE_HD YEE_FORCEINLINE std::uint64_t bitsOf(double x) {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
#endif
}
} // namespace detail

/// Adds x exactly to the exact-sum digits `words` (kExactWords words, then the non-finite flag), safely
/// from many threads at once. The digits are not canonical afterwards (NormalizeExact makes them so); the
/// value they hold is the exact sum, whatever the order of the additions.
YEE_HD YEE_FORCEINLINE void exactAdd(std::int64_t* words, double x) {
    const std::uint64_t b = detail::bitsOf(x);
    const int e = int((b >> 52) & 0x7ff);
    std::uint64_t m = b & ((std::uint64_t(1) << 52) - 1);
    if (e == 0x7ff) { // NaN or infinite
        detail::atomicSetWord(words + kExactWords);
        return;
    }
    if (e == 0 && m == 0)
        return;
    // |x| = m 2^(p - kExactOffset) with p the bit position of m's unit in the accumulator.
    int p = 1 - 1075 + kExactOffset;
    if (e != 0) {
        m |= std::uint64_t(1) << 52;
        p = e - 1075 + kExactOffset;
    }
    const int wi = p >> 5, sh = p & 31;
    // m << sh (up to 85 bits) as three 32-bit digits.
    const std::uint64_t lo = (m & 0xffffffffu) << sh; // < 2^64
    const std::uint64_t hi = (m >> 32) << sh;         // < 2^53
    const std::uint64_t t = hi + (lo >> 32);
    const std::int64_t d0 = std::int64_t(lo & 0xffffffffu), d1 = std::int64_t(t & 0xffffffffu),
                       d2 = std::int64_t(t >> 32);
    const bool neg = (b >> 63) != 0;
    detail::atomicAddWord(words + wi, neg ? -d0 : d0);
    detail::atomicAddWord(words + wi + 1, neg ? -d1 : d1);
    if (d2 != 0)
        detail::atomicAddWord(words + wi + 2, neg ? -d2 : d2);
}

/// Carry-normalises one exact sum's digits to ExactSum's canonical form (every word but the last in
/// [0, 2^32)); the flag word is left as it is. Launched over one index.
struct NormalizeExact {
    std::int64_t* words;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t) const {
        for (int i = 0; i < kExactWords - 1; ++i) {
            const std::int64_t carry = words[i] >> 32; // arithmetic shift: floor division by 2^32
            words[i] -= carry * (std::int64_t(1) << 32);
            words[i + 1] += carry;
        }
    }
};

/// The cells of a box of `nx` by `ny` cells starting at tile-local (i0, j0, k0), by dense index (x fastest).
struct DenseCells {
    int i0 = 0, j0 = 0, k0 = 0;
    std::int64_t nx = 1, nxy = 1;
    YEE_HD YEE_FORCEINLINE void cell(std::int64_t n, int& i, int& j, int& k) const {
        k = k0 + int(n / nxy);
        const std::int64_t r = n % nxy;
        j = j0 + int(r / nx);
        i = i0 + int(r % nx);
    }
};

/// One flux plane's step at its owned cell n: E_p, E_q on the plane, Hbar_p, Hbar_q averaged over the
/// two half-cells around it (`below` is the element stride one cell upstream along the normal), the
/// running DFT phasors [cell][lambda][Ep, Eq, Hpbar, Hqbar][re, im] += value * weight (wE, wH: [lambda][re,
/// im], the DFT weights dt exp(i omega t) at the E and H times of the step), and, when `sum` is set, the
/// Poynting flux sign (E_p Hbar_q - E_q Hbar_p) of the cell added to the exact sum `sum`.
template <class T> struct FluxPlaneStep {
    View<const T> ep, eq, hp, hq;
    DenseCells cells;
    std::int64_t below = 0;
    const double* wE = nullptr;
    const double* wH = nullptr;
    int nl = 0;
    double sign = 1;
    double* phasor = nullptr;
    std::int64_t* sum = nullptr;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t n) const {
        int i, j, k;
        cells.cell(n, i, j, k);
        const std::int64_t o = i + j * ep.sy + k * ep.sz; // the same in all four (one shape)
        const double vp = ep.p[o], vq = eq.p[o];
        const double hpb = 0.5 * (double(hp.p[o - below]) + double(hp.p[o]));
        const double hqb = 0.5 * (double(hq.p[o - below]) + double(hq.p[o]));
        if (sum)
            exactAdd(sum, sign * (vp * hqb - vq * hpb));
        double* ph = phasor + n * std::int64_t(nl) * 8;
        for (int w = 0; w < nl; ++w, ph += 8) {
            const double er = wE[2 * w], ei = wE[2 * w + 1], hr = wH[2 * w], hi = wH[2 * w + 1];
            ph[0] += vp * er;
            ph[1] += vp * ei;
            ph[2] += vq * er;
            ph[3] += vq * ei;
            ph[4] += hpb * hr;
            ph[5] += hpb * hi;
            ph[6] += hqb * hr;
            ph[7] += hqb * hi;
        }
    }
};

/// A phasor detector's step at its owned cell n: for `nc` (<= 6) of its `ncTotal` components, from
/// number `c0` on (E components take the E weights, H components the H weights),
/// phasor[cell][comp][lambda][re, im] += value * weight.
template <class T> struct PhasorStep {
    View<const T> f[6];
    int comp[6] = {0, 0, 0, 0, 0, 0};
    int nc = 0, c0 = 0, ncTotal = 0;
    DenseCells cells;
    const double* wE = nullptr;
    const double* wH = nullptr;
    int nl = 0;
    double* phasor = nullptr;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t n) const {
        int i, j, k;
        cells.cell(n, i, j, k);
        for (int c = 0; c < nc; ++c) {
            const int q = comp[c];
            const double v = f[q](i, j, k);
            const double* wt = q < 3 ? wE : wH;
            double* ph = phasor + ((n * ncTotal + c0 + c) * nl) * 2;
            for (int w = 0; w < nl; ++w) {
                ph[2 * w] += v * wt[2 * w];
                ph[2 * w + 1] += v * wt[2 * w + 1];
            }
        }
    }
};

/// An energy detector's save of E^n before the step: prevE[c][cell n] = E_c for c = 0..2.
template <class T> struct EnergySaveE {
    View<const T> e0, e1, e2;
    DenseCells cells;
    std::int64_t count = 0;
    double* prevE = nullptr;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t n) const {
        int i, j, k;
        cells.cell(n, i, j, k);
        prevE[n] = double(e0(i, j, k));
        prevE[count + n] = double(e1(i, j, k));
        prevE[2 * count + n] = double(e2(i, j, k));
    }
};

/// An energy detector's sample at its owned cell n: the leapfrog-conserved energy centred at n+1/2,
/// sum_c (eps E^n E^{n+1} + mu |H^{n+1/2}|^2) / 2, added to the exact sum `sum` (eps, mu, prevE: [c][cell]).
template <class T> struct EnergySample {
    View<const T> f[6];
    DenseCells cells;
    std::int64_t count = 0;
    const double* eps = nullptr;
    const double* mu = nullptr;
    const double* prevE = nullptr;
    std::int64_t* sum = nullptr;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t n) const {
        int i, j, k;
        cells.cell(n, i, j, k);
        double u = 0;
        for (int c = 0; c < 3; ++c) {
            const double e = f[c](i, j, k);
            const double h = f[3 + c](i, j, k);
            const std::int64_t q = c * count + n;
            u += 0.5 * (eps[q] * prevE[q] * e + mu[q] * h * h);
        }
        exactAdd(sum, u);
    }
};

/// A probe's sample: out[q] = double(*src[q]) for its `count` (<= 6) owned points, one launch a sample.
template <class T> struct ProbeSample {
    const T* src[6] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    double* out = nullptr;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t q) const { out[q] = double(*src[q]); }
};

} // namespace yee::kernels
