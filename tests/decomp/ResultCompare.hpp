#pragma once
/// Bitwise comparison of two run results (detectors, snapshots, objective).
#include <cstring>
#include <string>

#include "yee/run/Run.hpp"

namespace yee::testing {

/// Empty string when `a` and `b` are bit-identical, else a description of the first difference.
inline std::string bitDiff(const run::RunResult& a, const run::RunResult& b) {
    if (a.detectors.size() != b.detectors.size())
        return "detector count differs";
    for (std::size_t d = 0; d < a.detectors.size(); ++d) {
        const auto& x = a.detectors[d];
        const auto& y = b.detectors[d];
        if (x.arrays.size() != y.arrays.size())
            return x.name + ": array count differs";
        for (std::size_t q = 0; q < x.arrays.size(); ++q) {
            const auto& u = x.arrays[q];
            const auto& v = y.arrays[q];
            if (u.shape != v.shape || u.data.size() != v.data.size())
                return x.name + "/" + u.name + ": shape differs";
            if (!u.data.empty() &&
                std::memcmp(u.data.data(), v.data.data(), u.data.size() * sizeof(double)) != 0) {
                for (std::size_t i = 0; i < u.data.size(); ++i)
                    if (std::memcmp(&u.data[i], &v.data[i], sizeof(double)) != 0)
                        return x.name + "/" + u.name + "[" + std::to_string(i) +
                               "]: " + std::to_string(u.data[i]) + " vs " + std::to_string(v.data[i]);
            }
        }
    }
    if (a.snapshots.size() != b.snapshots.size())
        return "snapshot count differs";
    for (std::size_t s = 0; s < a.snapshots.size(); ++s) {
        const auto& u = a.snapshots[s].data;
        const auto& v = b.snapshots[s].data;
        if (u.size() != v.size())
            return "snapshot size differs";
        if (!u.empty() && std::memcmp(u.data(), v.data(), u.size() * sizeof(float)) != 0)
            return "snapshot " + a.snapshots[s].component + " differs";
    }
    if (a.objective.has_value() != b.objective.has_value())
        return "objective presence differs";
    if (a.objective && std::memcmp(&*a.objective, &*b.objective, sizeof(double)) != 0)
        return "objective differs: " + std::to_string(*a.objective) + " vs " + std::to_string(*b.objective);
    return {};
}

} // namespace yee::testing
