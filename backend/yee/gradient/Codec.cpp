#include "yee/gradient/Codec.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "yee/core/Error.hpp"

namespace yee::gradient {

Dtype parseDtype(const std::string& s, const std::string& field) {
    if (s == "float64")
        return Dtype::Float64;
    if (s == "float32")
        return Dtype::Float32;
    if (s == "bfloat16")
        return Dtype::BFloat16;
    if (s == "float16")
        return Dtype::Float16;
    if (s == "int8")
        return Dtype::Int8;
    throw InputError(field + ": unknown dtype \"" + s + "\" (float64, float32, bfloat16, float16, int8)");
}

const char* dtypeName(Dtype d) {
    switch (d) {
    case Dtype::Float64:
        return "float64";
    case Dtype::Float32:
        return "float32";
    case Dtype::BFloat16:
        return "bfloat16";
    case Dtype::Float16:
        return "float16";
    case Dtype::Int8:
        return "int8";
    }
    return "?";
}

int dtypeBytes(Dtype d) {
    switch (d) {
    case Dtype::Float64:
        return 8;
    case Dtype::Float32:
        return 4;
    case Dtype::BFloat16:
    case Dtype::Float16:
        return 2;
    case Dtype::Int8:
        return 1;
    }
    return 8;
}

std::uint16_t floatToBf16(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) == 0x7f800000u)
        return std::uint16_t(u >> 16); // Inf/NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return std::uint16_t(u >> 16);
}

float bf16ToFloat(std::uint16_t h) {
    std::uint32_t u = std::uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

std::uint16_t floatToHalf(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
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

float halfToFloat(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const int exp = (h >> 10) & 0x1f;
    const std::uint32_t mant = h & 0x3ffu;
    float f;
    if (exp == 0) {
        f = std::ldexp(float(mant), -24);
        return sign ? -f : f;
    }
    std::uint32_t u;
    if (exp == 31)
        u = sign | 0x7f800000u | (mant << 13);
    else
        u = sign | (std::uint32_t(exp - 15 + 127) << 23) | (mant << 13);
    std::memcpy(&f, &u, 4);
    return f;
}

double encode(const double* x, std::int64_t n, Dtype d, unsigned char* out) {
    if (d == Dtype::Float64) {
        std::memcpy(out, x, std::size_t(n) * 8);
        return 1.0;
    }
    if (d == Dtype::Float32) {
        for (std::int64_t i = 0; i < n; ++i) {
            const float f = float(x[i]);
            std::memcpy(out + 4 * i, &f, 4);
        }
        return 1.0;
    }
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i)
        s = std::max(s, std::abs(x[i]));
    if (!(s > 0) || !std::isfinite(s))
        s = std::isfinite(s) ? 1.0 : s;
    const double inv = 1.0 / s;
    for (std::int64_t i = 0; i < n; ++i) {
        const double q = x[i] * inv; // in [-1, 1]
        if (d == Dtype::Int8) {
            out[i] = static_cast<unsigned char>(static_cast<std::int8_t>(std::lround(q * 127.0)));
        } else {
            const std::uint16_t h = d == Dtype::BFloat16 ? floatToBf16(float(q)) : floatToHalf(float(q));
            std::memcpy(out + 2 * i, &h, 2);
        }
    }
    return s;
}

void decode(const unsigned char* in, std::int64_t n, Dtype d, double scale, double* x) {
    switch (d) {
    case Dtype::Float64:
        std::memcpy(x, in, std::size_t(n) * 8);
        return;
    case Dtype::Float32:
        for (std::int64_t i = 0; i < n; ++i) {
            float f;
            std::memcpy(&f, in + 4 * i, 4);
            x[i] = f;
        }
        return;
    case Dtype::Int8:
        for (std::int64_t i = 0; i < n; ++i)
            x[i] = double(static_cast<std::int8_t>(in[i])) / 127.0 * scale;
        return;
    case Dtype::BFloat16:
    case Dtype::Float16:
        for (std::int64_t i = 0; i < n; ++i) {
            std::uint16_t h;
            std::memcpy(&h, in + 2 * i, 2);
            x[i] = double(d == Dtype::BFloat16 ? bf16ToFloat(h) : halfToFloat(h)) * scale;
        }
        return;
    }
}

} // namespace yee::gradient
