#pragma once
/// \file RecordCodec.hpp
/// The reversible recorder's number formats, written once for the host and the device: the element
/// conversions (bfloat16, binary16, scaled int8; gradient/Codec.cpp's encode() and decode() call these), and
/// the kernels that encode a record straight from the field cells of its interface layers into device
/// memory and decode it back into them (gradient/ReversibleState.cpp on staged devices), so a GPU run
/// moves each record's encoded bytes once, from the device to the recorder's host tier, and back.
///
/// The kernels give the bytes gradient::encode() gives for the same values: the scale is max |x| over the
/// record's non-NaN values (a maximum, found with atomics in any order, is exact), each value is converted
/// by the same expression, and a record's element order is gradient::encode()'s (region after region,
/// x fastest). Decoding and the linear interpolation between kept records are the same expressions as
/// ReversibleState's host path (no fused multiply-add on either side: -ffp-contract=off, nvcc -fmad=false).
///
/// C++17 (included by the CUDA translation units).
#include <cstdint>
#include <cstring>

#include "yee/core/Platform.hpp"
#include "yee/core/View.hpp"

namespace yee::kernels {

/// Storage format of one recorded value (gradient::Dtype is this type).
enum class RecordDtype { Float64, Float32, BFloat16, Float16, Int8 };

/// Bytes per stored value of format d.
YEE_HD YEE_FORCEINLINE int recordDtypeBytes(RecordDtype d) {
    switch (d) {
    case RecordDtype::Float64:
        return 8;
    case RecordDtype::Float32:
        return 4;
    case RecordDtype::BFloat16:
    case RecordDtype::Float16:
        return 2;
    case RecordDtype::Int8:
        return 1;
    }
    return 8;
}

/// Whether format d stores values divided by a per-record scale (bfloat16, float16, int8).
YEE_HD YEE_FORCEINLINE bool recordDtypeScaled(RecordDtype d) {
    return d == RecordDtype::BFloat16 || d == RecordDtype::Float16 || d == RecordDtype::Int8;
}

namespace codec {
YEE_HD YEE_FORCEINLINE std::uint32_t floatBits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
#endif
}
YEE_HD YEE_FORCEINLINE float bitsFloat(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, 4);
    return f;
#endif
}
YEE_HD YEE_FORCEINLINE std::uint64_t doubleBits(double x) {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
    std::uint64_t u;
    std::memcpy(&u, &x, 8);
    return u;
#endif
}
YEE_HD YEE_FORCEINLINE double bitsDouble(std::uint64_t u) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(static_cast<long long>(u));
#else
    double x;
    std::memcpy(&x, &u, 8);
    return x;
#endif
}
/// Store / load a U at byte address p (naturally aligned on the device: records start at multiples of
/// their value size).
template <class U> YEE_HD YEE_FORCEINLINE void storeAt(unsigned char* p, U v) {
#if defined(__CUDA_ARCH__)
    *reinterpret_cast<U*>(p) = v;
#else
    std::memcpy(p, &v, sizeof(U));
#endif
}
template <class U> YEE_HD YEE_FORCEINLINE U loadAt(const unsigned char* p) {
#if defined(__CUDA_ARCH__)
    return *reinterpret_cast<const U*>(p);
#else
    U v;
    std::memcpy(&v, p, sizeof(U));
    return v;
#endif
}
/// *word = max(*word, v), safely from many threads (unsigned 64-bit comparison).
YEE_HD YEE_FORCEINLINE void atomicMaxWord(std::uint64_t* word, std::uint64_t v) {
#if defined(__CUDA_ARCH__)
    atomicMax(reinterpret_cast<unsigned long long*>(word), static_cast<unsigned long long>(v));
#else
    std::uint64_t cur = __atomic_load_n(word, __ATOMIC_RELAXED);
    while (v > cur && !__atomic_compare_exchange_n(word, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
#endif
}
} // namespace codec

/// bfloat16 of f, rounded to nearest even (Inf and NaN kept).
YEE_HD YEE_FORCEINLINE std::uint16_t floatToBf16(float f) {
    std::uint32_t u = codec::floatBits(f);
    if ((u & 0x7f800000u) == 0x7f800000u)
        return std::uint16_t(u >> 16); // Inf/NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return std::uint16_t(u >> 16);
}

/// The float a bfloat16 stands for (exact).
YEE_HD YEE_FORCEINLINE float bf16ToFloat(std::uint16_t h) {
    return codec::bitsFloat(std::uint32_t(h) << 16);
}

/// IEEE binary16 of f, rounded to nearest even, subnormals kept, overflow to Inf.
YEE_HD YEE_FORCEINLINE std::uint16_t floatToHalf(float f) {
    const std::uint32_t u = codec::floatBits(f);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    const int exp = int((u >> 23) & 0xff) - 127 + 15;
    std::uint32_t mant = u & 0x7fffffu;
    if (((u >> 23) & 0xff) == 0xff)
        return std::uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0u));
    if (exp >= 31)
        return std::uint16_t(sign | 0x7c00u); // overflow -> Inf (never reached with scaling)
    if (exp <= 0) {
        if (exp < -10)
            return std::uint16_t(sign);
        mant |= 0x800000u;
        const int shift = 14 - exp;
        std::uint32_t h = mant >> shift;
        const std::uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1u)))
            ++h;
        return std::uint16_t(sign | h);
    }
    std::uint32_t h = (std::uint32_t(exp) << 10) | (mant >> 13);
    const std::uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        ++h; // may carry into the exponent: correct
    return std::uint16_t(sign | h);
}

/// The float a binary16 stands for (exact).
YEE_HD YEE_FORCEINLINE float halfToFloat(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const int exp = (h >> 10) & 0x1f;
    const std::uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        const float f = float(mant) * 5.9604644775390625e-8f; // mant 2^-24, exact
        return sign ? -f : f;
    }
    std::uint32_t u;
    if (exp == 31)
        u = sign | 0x7f800000u | (mant << 13);
    else
        u = sign | (std::uint32_t(exp - 15 + 127) << 23) | (mant << 13);
    return codec::bitsFloat(u);
}

/// int8 of y as std::lround(y) converted to std::int8_t gives it on x86-64: halves away from zero, and 0
/// where lround's result is out of range (|y| >= 2^63, Inf, NaN: lround's LONG_MIN, whose low byte is 0).
YEE_HD YEE_FORCEINLINE std::int8_t roundToInt8(double y) {
    if (!(y < 9223372036854775808.0 && y > -9223372036854775808.0))
        return 0;
    const double t = y < 0 ? -double(std::int64_t(-y)) : double(std::int64_t(y)); // trunc, exact
    const double r = y - t;                                                       // exact
    std::int64_t l = std::int64_t(t);
    if (r >= 0.5)
        ++l;
    else if (r <= -0.5)
        --l;
    return static_cast<std::int8_t>(static_cast<std::uint8_t>(static_cast<std::uint64_t>(l) & 0xffu));
}

/// The scale of a record from the bit pattern of max |x| over its non-NaN values (0 for none): 1 when
/// that is 0, the maximum itself otherwise (Inf stays Inf), as gradient::encode() chooses it.
YEE_HD YEE_FORCEINLINE double recordScale(std::uint64_t maxAbsBits) {
    double s = codec::bitsDouble(maxAbsBits);
    const bool finite = s - s == 0;
    if (!(s > 0) || !finite)
        s = finite ? 1.0 : s;
    return s;
}

/// Value i of a record in format d at `out`, from x and the inverse scale `inv` (scaled formats only).
YEE_HD YEE_FORCEINLINE void encodeValue(RecordDtype d, double x, double inv, unsigned char* out,
                                        std::int64_t i) {
    switch (d) {
    case RecordDtype::Float64:
        codec::storeAt<double>(out + 8 * i, x);
        return;
    case RecordDtype::Float32:
        codec::storeAt<float>(out + 4 * i, float(x));
        return;
    case RecordDtype::Int8: {
        const double q = x * inv; // in [-1, 1]
        out[i] = static_cast<unsigned char>(roundToInt8(q * 127.0));
        return;
    }
    case RecordDtype::BFloat16:
    case RecordDtype::Float16: {
        const double q = x * inv;
        codec::storeAt<std::uint16_t>(out + 2 * i, d == RecordDtype::BFloat16 ? floatToBf16(float(q))
                                                                              : floatToHalf(float(q)));
        return;
    }
    }
}

/// Value i of a record in format d at `in`, times `scale` for the scaled formats.
YEE_HD YEE_FORCEINLINE double decodeValue(RecordDtype d, const unsigned char* in, std::int64_t i,
                                          double scale) {
    switch (d) {
    case RecordDtype::Float64:
        return codec::loadAt<double>(in + 8 * i);
    case RecordDtype::Float32:
        return double(codec::loadAt<float>(in + 4 * i));
    case RecordDtype::Int8:
        return double(static_cast<std::int8_t>(in[i])) / 127.0 * scale;
    case RecordDtype::BFloat16:
    case RecordDtype::Float16: {
        const std::uint16_t h = codec::loadAt<std::uint16_t>(in + 2 * i);
        return double(d == RecordDtype::BFloat16 ? bf16ToFloat(h) : halfToFloat(h)) * scale;
    }
    }
    return 0;
}

/// Where the values of a record live: up to kMax field regions (a component's cells over a tile-local
/// box), the record holding them region after region, each x fastest. Element e of the record is region
/// r's dense cell e - start[r], for start[r] <= e < start[r + 1].
template <class T> struct RecordLayout {
    static constexpr int kMax = 12; ///< three low and three high interface layers, two components each
    View<T> field[kMax];
    int lo[kMax][3];
    std::int64_t nx[kMax], nxy[kMax];
    std::int64_t start[kMax + 1];
    int count = 0;
    /// Append the region of `field` with first cell `lo3` and extents `ext` (cells along x, y, z) after
    /// the regions already there; returns the record length so far. The caller keeps count < kMax.
    std::int64_t append(View<T> f, const int (&lo3)[3], const std::int64_t (&ext)[3]) {
        const int r = count++;
        const std::int64_t first = r == 0 ? 0 : start[r];
        field[r] = f;
        for (int a = 0; a < 3; ++a)
            lo[r][a] = lo3[a];
        nx[r] = ext[0];
        nxy[r] = ext[0] * ext[1];
        start[r] = first;
        start[r + 1] = first + ext[0] * ext[1] * ext[2];
        return start[r + 1];
    }
    /// The field value of record element e.
    YEE_HD YEE_FORCEINLINE T& at(std::int64_t e) const {
        int r = 0;
        while (r + 1 < count && e >= start[r + 1])
            ++r;
        const std::int64_t n = e - start[r];
        const int k = lo[r][2] + int(n / nxy[r]);
        const std::int64_t rem = n % nxy[r];
        return field[r](lo[r][0] + int(rem % nx[r]), lo[r][1] + int(rem / nx[r]), k);
    }
};

/// Pass 1 of encoding a record in a scaled format: *maxAbs = max(*maxAbs, bits of |x|) over the record's
/// non-NaN values x (non-negative doubles order as their bit patterns). Launched over `threads` indices;
/// index n takes the elements n, n + threads, n + 2 threads, ... of the `len` (coalesced on GPUs), so one
/// atomic per index. *maxAbs is zeroed before the launch.
template <class T> struct RecordAbsMax {
    RecordLayout<T> layout;
    std::int64_t len = 0;
    std::int64_t threads = 1;
    std::uint64_t* maxAbs = nullptr;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t n) const {
        std::uint64_t m = 0;
        for (std::int64_t e = n; e < len; e += threads) {
            const double x = double(layout.at(e));
            const double a = x < 0 ? -x : x;
            if (a == a) {
                const std::uint64_t b = codec::doubleBits(a) & ~(std::uint64_t(1) << 63); // |-0| = +0
                m = b > m ? b : m;
            }
        }
        if (m != 0)
            codec::atomicMaxWord(maxAbs, m);
    }
};

/// Pass 2: record element n in format `dtype` at `out` (scaled formats divide by recordScale(*maxAbs),
/// which pass 1 left; unused otherwise).
template <class T> struct RecordEncode {
    RecordLayout<T> layout;
    RecordDtype dtype = RecordDtype::Float64;
    const std::uint64_t* maxAbs = nullptr;
    unsigned char* out = nullptr;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t n) const {
        const double x = double(layout.at(n));
        const double inv = recordDtypeScaled(dtype) ? 1.0 / recordScale(*maxAbs) : 1.0;
        encodeValue(dtype, x, inv, out, n);
    }
};

/// Writes record elements first + n back into their field cells, as T: the decoded value of record `a`
/// (bytes in format `dtype`, scale recordScale(*maxAbsA)), or, when `b` is set, (1 - w) a + w b with record
/// `b` decoded likewise; zero when `a` is null.
template <class T> struct RecordDecode {
    RecordLayout<T> layout;
    RecordDtype dtype = RecordDtype::Float64;
    std::int64_t first = 0;
    const unsigned char* a = nullptr;
    const std::uint64_t* maxAbsA = nullptr;
    const unsigned char* b = nullptr;
    const std::uint64_t* maxAbsB = nullptr;
    double w = 0;
    YEE_HD YEE_FORCEINLINE void operator()(std::int64_t n) const {
        const std::int64_t e = first + n;
        double v = 0;
        if (a) {
            const bool scaled = recordDtypeScaled(dtype);
            v = decodeValue(dtype, a, e, scaled ? recordScale(*maxAbsA) : 1.0);
            if (b) {
                const double vb = decodeValue(dtype, b, e, scaled ? recordScale(*maxAbsB) : 1.0);
                v = (1 - w) * v + w * vb;
            }
        }
        layout.at(e) = T(v);
    }
};

} // namespace yee::kernels
