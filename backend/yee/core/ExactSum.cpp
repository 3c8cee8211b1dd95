#include "yee/core/ExactSum.hpp"

#include <cmath>
#include <limits>

namespace yee {

namespace {
__extension__ typedef __int128 Int128;
}

void ExactSum::add(double x) {
    if (x == 0.0)
        return;
    if (!std::isfinite(x)) {
        nonFinite_ = 1;
        return;
    }
    int e = 0;
    double m = std::frexp(x, &e);                           // x = m 2^e, 0.5 <= |m| < 1
    auto mi = static_cast<std::int64_t>(std::ldexp(m, 53)); // exact: |mi| < 2^53
    int pos = e - 53 + kOffset;                             // bit position of mi's unit
    int wi = pos >> 5;
    int sh = pos & 31;
    Int128 v = static_cast<Int128>(mi) << sh; // up to 85 significant bits
    // Split into two unsigned 32-bit digits and a signed top digit.
    auto d0 = static_cast<std::int64_t>(v & 0xffffffff);
    v >>= 32;
    auto d1 = static_cast<std::int64_t>(v & 0xffffffff);
    v >>= 32;
    auto d2 = static_cast<std::int64_t>(v);
    w_[wi] += d0;
    w_[wi + 1] += d1;
    w_[wi + 2] += d2;
    // Each word grows by < 2^32 per add: normalise long before int64 could overflow.
    if (++pending_ >= (std::int64_t(1) << 29))
        normalize();
}

void ExactSum::addProduct(double x, double y) {
    double p = x * y;
    if (!std::isfinite(p)) {
        add(p);
        return;
    }
    double err = std::fma(x, y, -p); // x*y = p + err exactly
    add(p);
    add(err);
}

void ExactSum::merge(const ExactSum& o) {
    for (int i = 0; i < kWords; ++i)
        w_[i] += o.w_[i];
    nonFinite_ |= o.nonFinite_;
    normalize();
}

void ExactSum::normalize() {
    for (int i = 0; i < kWords - 1; ++i) {
        std::int64_t carry = w_[i] >> 32; // arithmetic shift: floor division by 2^32
        w_[i] -= carry * (std::int64_t(1) << 32);
        w_[i + 1] += carry;
    }
    pending_ = 0;
}

double ExactSum::value() const {
    if (nonFinite_)
        return std::numeric_limits<double>::quiet_NaN();
    ExactSum c = *this;
    c.normalize();
    // Canonical digits; if the top word is negative the value is negative. Sum from the top with
    // long double, which carries 64 bits: ample for a faithful double of the exact value.
    long double s = 0;
    for (int i = kWords - 1; i >= 0; --i) {
        if (c.w_[i] != 0)
            s += std::ldexp(static_cast<long double>(c.w_[i]), 32 * i - kOffset);
    }
    return static_cast<double>(s);
}

void ExactSum::clear() {
    w_.fill(0);
    nonFinite_ = 0;
    pending_ = 0;
}

} // namespace yee
