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
    return kernels::recordDtypeBytes(d);
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
