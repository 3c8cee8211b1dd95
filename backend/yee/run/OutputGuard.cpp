#include "yee/run/OutputGuard.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "yee/core/Error.hpp"
#include "yee/files/OutputCheck.hpp"

namespace yee::run {

namespace {

std::string stepText(int step, double dtFs) {
    char t[64];
    std::snprintf(t, sizeof t, "%.6g", step * dtFs);
    return "at step " + std::to_string(step) + " (t = " + t + " fs)";
}

/// Index of the first non-finite value, or -1.
template <class V> std::ptrdiff_t firstBad(const V& values) {
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(double(values[i])))
            return std::ptrdiff_t(i);
    return -1;
}

void extendStatus(RunResult& r, const std::string& what) {
    if (r.completed || r.status.empty() || r.status == "completed")
        r.status = what;
    else
        r.status += "; " + what;
    r.completed = false;
}

} // namespace

std::string firstNonFinite(const RunResult& r) {
    const std::string whole = "accumulated over steps 1.." + std::to_string(r.steps);
    for (const auto& d : r.detectors) {
        const solver::NamedArray* time = d.find("time_fs");
        for (const auto& a : d.arrays) {
            const std::ptrdiff_t i = firstBad(a.data);
            if (i < 0)
                continue;
            const std::string what = "detector '" + d.name + "' " + a.name;
            // A time series: its first axis is the detector's time axis.
            if (time && &a != time && !a.shape.empty() && a.shape[0] == std::int64_t(time->data.size()) &&
                a.shape[0] > 0) {
                const std::int64_t row =
                    i / std::max<std::int64_t>(1, std::int64_t(a.data.size()) / a.shape[0]);
                const double t = time->data[std::size_t(row)];
                const int step = r.dtFs > 0 ? int(std::lround(t / r.dtFs)) : int(row);
                return what + " " + stepText(step, r.dtFs);
            }
            return what + " (" + whole + ")";
        }
        for (const auto& [key, value] : d.attrs)
            if (!std::isfinite(value))
                return "detector '" + d.name + "' " + key + " (" + whole + ")";
    }
    for (const auto& s : r.snapshots)
        if (firstBad(s.data) >= 0)
            return "snapshot '" + s.detector + "' " + s.component + " " + stepText(s.step, r.dtFs) +
                   " (float32 overflow or non-finite field)";
    if (r.objective && !std::isfinite(*r.objective))
        return "objective (" + whole + ")";
    for (const auto& g : r.gradients)
        if (const std::ptrdiff_t i = firstBad(g.data); i >= 0)
            return "gradient '" + g.name + "' at index " + std::to_string(i) + " (reverse sweep after step " +
                   std::to_string(r.steps) + ")";
    return {};
}

void checkRecorderLocation(const scene::Scene& s, const RunOptions& o) {
    if (!o.gradient || s.gradient.tier != "disk")
        return;
    std::error_code ec;
    const std::string dir =
        s.gradient.diskPath.empty() ? std::filesystem::temp_directory_path(ec).string() : s.gradient.diskPath;
    // The recorder creates its file in this directory itself: it must exist.
    if (!std::filesystem::is_directory(dir, ec))
        throw InputError("gradient.storage.path: '" + dir + "' is not an existing directory");
    if (const std::string why = files::whyNotWritableDirectory(dir); !why.empty())
        throw InputError("gradient.storage.path: cannot write a recorder file into '" + dir + "': " + why);
}

void guardOutputs(RunResult& r) {
    for (const auto& f : r.failedOutputs)
        extendStatus(r, "output failed: " + f);
    if (const std::string bad = firstNonFinite(r); !bad.empty())
        extendStatus(r, "diverged: non-finite " + bad);
}

} // namespace yee::run
