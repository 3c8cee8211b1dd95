#pragma once
/// \file Reduce.hpp
/// The element-wise reductions shared by every Communicator implementation, so that LocalComm and
/// MpiComm produce the same bits: contributions are combined strictly in rank order 0, 1, ..., N-1.
///
/// Each function takes one pointer per rank (`parts[r]` points at rank r's `out.size()` values, in
/// memory that does not overlap `out` unless it is rank 0's and equals `out.data()`) and writes `out`.
/// They allocate nothing and never throw. `parts` must not be empty.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

namespace yee::comm::reduce {

/// `out[i] = ((p0[i] + p1[i]) + p2[i]) + ... + p_{N-1}[i]`. The sum starts from rank 0's value (not from
/// 0.0), so with one rank the input comes back unchanged, bit for bit (including -0.0).
inline void sumInRankOrder(std::span<const double* const> parts, std::span<double> out) {
    const std::size_t n = out.size();
    for (std::size_t i = 0; i < n; ++i) {
        double s = parts[0][i];
        for (std::size_t r = 1; r < parts.size(); ++r)
            s += parts[r][i];
        out[i] = s;
    }
}

/// Element-wise maximum in rank order. A NaN anywhere makes the result that first NaN (in rank order);
/// between -0.0 and +0.0 the value met first in rank order is kept.
inline void maxInRankOrder(std::span<const double* const> parts, std::span<double> out) {
    const std::size_t n = out.size();
    for (std::size_t i = 0; i < n; ++i) {
        double m = parts[0][i];
        for (std::size_t r = 1; r < parts.size() && !std::isnan(m); ++r) {
            const double v = parts[r][i];
            if (std::isnan(v) || v > m)
                m = v;
        }
        out[i] = m;
    }
}

/// Element-wise integer sum with two's-complement wrap-around (never undefined behaviour).
inline void sumIntInRankOrder(std::span<const std::int64_t* const> parts, std::span<std::int64_t> out) {
    const std::size_t n = out.size();
    for (std::size_t i = 0; i < n; ++i) {
        auto s = static_cast<std::uint64_t>(parts[0][i]);
        for (std::size_t r = 1; r < parts.size(); ++r)
            s += static_cast<std::uint64_t>(parts[r][i]);
        out[i] = static_cast<std::int64_t>(s);
    }
}

} // namespace yee::comm::reduce
