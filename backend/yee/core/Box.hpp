#pragma once
/// \file Box.hpp
/// Integer index boxes on the Yee grid: half-open [lo, hi) in cell indices.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "yee/core/Platform.hpp"

namespace yee {

using Index3 = std::array<int, 3>;

/// Half-open integer box [lo, hi) in global cell indices.
struct Box {
    Index3 lo{0, 0, 0};
    Index3 hi{0, 0, 0};

    int extent(int a) const { return hi[a] - lo[a]; }
    Index3 extents() const { return {extent(0), extent(1), extent(2)}; }
    bool empty() const { return extent(0) <= 0 || extent(1) <= 0 || extent(2) <= 0; }
    std::int64_t cells() const { return empty() ? 0 : std::int64_t(extent(0)) * extent(1) * extent(2); }
    bool contains(const Index3& p) const {
        return p[0] >= lo[0] && p[0] < hi[0] && p[1] >= lo[1] && p[1] < hi[1] && p[2] >= lo[2] &&
               p[2] < hi[2];
    }
    /// Intersection (may be empty).
    Box intersect(const Box& o) const {
        Box r;
        for (int a = 0; a < 3; ++a) {
            r.lo[a] = std::max(lo[a], o.lo[a]);
            r.hi[a] = std::min(hi[a], o.hi[a]);
        }
        return r;
    }
    bool operator==(const Box& o) const { return lo == o.lo && hi == o.hi; }
    std::string str() const {
        std::string s;
        for (int a = 0; a < 3; ++a) {
            if (a > 0)
                s += 'x';
            s += '[';
            s += std::to_string(lo[a]);
            s += ',';
            s += std::to_string(hi[a]);
            s += ')';
        }
        return s;
    }
};

} // namespace yee
