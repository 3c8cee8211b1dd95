#include "RunReport.hpp"

#include <algorithm>
#include <cmath>

namespace yee::cli {

namespace {

std::string printf1(const char* fmt, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

/// Categories with a non-zero peak on any device, in ledger order.
std::vector<int> usedCategories(const std::vector<solver::DeviceSummary>& devices) {
    std::vector<int> used;
    for (int c = 0; c < device::kCategoryCount; ++c)
        for (const auto& d : devices)
            if (d.memory.peak[std::size_t(c)] != 0) {
                used.push_back(c);
                break;
            }
    return used;
}

std::string share(std::int64_t bytes, std::int64_t capacity) {
    return capacity > 0 ? printf1("%.1f%%", 100.0 * double(bytes) / double(capacity)) : std::string("-");
}

} // namespace

std::string renderTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows, int leftColumns) {
    std::vector<std::size_t> width(header.size(), 0);
    for (std::size_t c = 0; c < header.size(); ++c)
        width[c] = header[c].size();
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
            width[c] = std::max(width[c], row[c].size());
    auto renderRow = [&](const std::vector<std::string>& row) {
        std::string line;
        for (std::size_t c = 0; c < width.size(); ++c) {
            const std::string cell = c < row.size() ? row[c] : std::string();
            const std::string pad(width[c] - cell.size(), ' ');
            if (c > 0)
                line += "  ";
            line += int(c) < leftColumns ? cell + pad : pad + cell;
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        return line + "\n";
    };
    std::string out = renderRow(header);
    std::size_t total = 0;
    for (auto w : width)
        total += w;
    out += std::string(total + 2 * (width.empty() ? 0 : width.size() - 1), '-') + "\n";
    for (const auto& row : rows)
        out += renderRow(row);
    return out;
}

std::string formatMemoryTable(const std::vector<solver::DeviceSummary>& devices) {
    const auto cats = usedCategories(devices);
    std::vector<std::string> header{"device", "tile"};
    for (int c : cats)
        header.emplace_back(device::categoryName(device::Category(c)));
    header.insert(header.end(), {"total", "capacity", "use"});
    // GPUs: the driver's figure for what the run holds at the end, next to the ledger's current bytes.
    const bool driver = std::any_of(devices.begin(), devices.end(),
                                    [](const solver::DeviceSummary& d) { return d.driverBytes >= 0; });
    if (driver)
        header.insert(header.end(), {"held", "driver"});
    std::vector<std::vector<std::string>> rows;
    for (const auto& d : devices) {
        std::vector<std::string> row{d.name, d.tile.str()};
        for (int c : cats)
            row.push_back(device::formatBytes(d.memory.peak[std::size_t(c)]));
        row.push_back(device::formatBytes(d.memory.peakTotal));
        row.push_back(d.capacity > 0 ? device::formatBytes(d.capacity) : std::string("-"));
        row.push_back(share(d.memory.peakTotal, d.capacity));
        if (driver) {
            row.push_back(device::formatBytes(d.memory.currentTotal));
            row.push_back(d.driverBytes >= 0 ? device::formatBytes(d.driverBytes) : std::string("-"));
        }
        rows.push_back(std::move(row));
    }
    return renderTable(header, rows, 2);
}

std::string formatEstimate(const run::Estimate& e) {
    std::string out = "Memory estimate: grid " + std::to_string(e.gridCells[0]) + "x" +
                      std::to_string(e.gridCells[1]) + "x" + std::to_string(e.gridCells[2]) + " cells, " +
                      std::to_string(e.steps) + " steps, " + std::to_string(e.devices.size()) +
                      (e.devices.size() == 1 ? " device" : " devices") + " (peak bytes by category)\n";
    out += formatMemoryTable(e.devices);
    out += "largest device: " + device::formatBytes(e.maxDevicePeak()) +
           ", all devices: " + device::formatBytes(e.totalPeak()) + "\n";
    if (!e.capacityNote.empty())
        out += e.capacityNote + "\n";
    return out;
}

std::string formatCommTable(const std::vector<solver::DeviceSummary>& devices) {
    std::vector<int> phases;
    for (int p = 0; p < comm::kPhaseCount; ++p)
        for (const auto& d : devices) {
            bool any = false;
            for (int k = 0; k < comm::kKindCount; ++k)
                any = any || d.comm.calls[std::size_t(p)][std::size_t(k)] != 0;
            if (any) {
                phases.push_back(p);
                break;
            }
        }
    std::vector<std::string> header{"device", "phase"};
    for (int k = 0; k < comm::kKindCount; ++k)
        header.emplace_back(comm::kindName(comm::Kind(k)));
    header.emplace_back("bytes sent");
    std::vector<std::vector<std::string>> rows;
    for (const auto& d : devices)
        for (int p : phases) {
            std::vector<std::string> row{d.name, comm::phaseName(comm::Phase(p))};
            std::int64_t bytes = 0;
            for (int k = 0; k < comm::kKindCount; ++k) {
                row.push_back(std::to_string(d.comm.calls[std::size_t(p)][std::size_t(k)]));
                bytes += d.comm.bytes[std::size_t(p)][std::size_t(k)];
            }
            row.push_back(device::formatBytes(bytes));
            rows.push_back(std::move(row));
        }
    if (rows.empty())
        return "no collectives\n";
    return renderTable(header, rows, 2);
}

std::string formatDeviceList(const std::vector<cuda::DeviceInfo>& gpus, const std::string& unavailable,
                             int hostThreads, std::int64_t hostMemoryBytes) {
    auto gib = [](std::int64_t b) { return printf1("%.1f GiB", double(b) / (1024.0 * 1024.0 * 1024.0)); };
    std::string out;
    if (gpus.empty()) {
        out = "GPUs: none; " + (unavailable.empty() ? std::string("no GPU") : unavailable) + "\n";
    } else {
        out = "GPUs: " + std::to_string(gpus.size()) + " (use with --devices cuda:ID[,ID...] or cuda:all)\n";
        std::vector<std::vector<std::string>> rows;
        for (const auto& g : gpus)
            rows.push_back(
                {"cuda:" + std::to_string(g.id), g.name, gib(g.totalBytes), gib(g.freeBytes),
                 std::to_string(g.major) + "." + std::to_string(g.minor), std::to_string(g.multiprocessors),
                 g.peakBandwidthGBs > 0 ? printf1("%.0f GB/s", g.peakBandwidthGBs) : std::string("-")});
        out += renderTable({"device", "name", "memory", "free", "CC", "SMs", "bandwidth"}, rows, 2);
    }
    out += "Host: " + std::to_string(hostThreads) + " hardware thread" + (hostThreads == 1 ? "" : "s") +
           ", " + gib(hostMemoryBytes) + " memory (emulated CPU devices: --devices cpu:N)\n";
    return out;
}

std::string formatDuration(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0)
        return "--";
    auto s = static_cast<long long>(std::llround(seconds));
    char buf[48];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
    return buf;
}

std::string formatPhases(const std::vector<telemetry::PhaseProgress>& phases) {
    std::string out;
    char buf[160];
    for (const auto& ph : phases) {
        std::snprintf(buf, sizeof buf, "phase %-12s %lld/%lld steps  %.2f s  %.0f steps/s\n", ph.name.c_str(),
                      static_cast<long long>(ph.step), static_cast<long long>(ph.totalSteps), ph.seconds,
                      ph.stepsPerSecond());
        out += buf;
    }
    return out;
}

ProgressBar::ProgressBar(std::FILE* out, bool interactive, std::chrono::duration<double> minInterval,
                         std::chrono::duration<double> plainInterval)
    : out_(out), interactive_(interactive), minInterval_(minInterval), plainInterval_(plainInterval) {}

std::string ProgressBar::line(const telemetry::Report& r, int barWidth) {
    const double fraction = r.totalSteps > 0 ? std::clamp(double(r.step) / r.totalSteps, 0.0, 1.0) : 0.0;
    const int filled = int(fraction * barWidth + 0.5);
    std::string s = r.phase.empty() || r.phase == "forward" ? std::string() : r.phase + " ";
    // Runs of several phases (value-and-grad) name every phase and its place: "adjoint 3/3 [...".
    if (r.phases.size() > 1)
        for (std::size_t i = 0; i < r.phases.size(); ++i)
            if (r.phases[i].name == r.phase)
                s = r.phase + " " + std::to_string(i + 1) + "/" + std::to_string(r.phases.size()) + " ";
    s += '[';
    s.append(std::size_t(filled), '#');
    s.append(std::size_t(barWidth - filled), '.');
    s += "] ";
    s += std::to_string(r.step);
    s += '/';
    s += std::to_string(r.totalSteps);
    s += printf1("  %5.1f%%", 100.0 * fraction);
    s += printf1("  %.0f steps/s", r.stepsPerSecond);
    s += printf1("  %.1f Mcell/s", r.cellUpdatesPerSecond / 1e6);
    // The whole run's remaining time when the run reports it (every phase), else this phase's.
    const double eta = !r.phases.empty()      ? r.remainingSeconds
                       : r.stepsPerSecond > 0 ? double(r.totalSteps - r.step) / r.stepsPerSecond
                                              : -1.0;
    s += "  ETA " + formatDuration(eta);
    return s;
}

void ProgressBar::update(const telemetry::Report& r) {
    const auto now = std::chrono::steady_clock::now();
    const bool last = r.step >= r.totalSteps;
    if (drawn_ && !last && now - last_ < (interactive_ ? minInterval_ : plainInterval_))
        return;
    last_ = now;
    drawn_ = true;
    if (interactive_) {
        std::fprintf(out_, "\r%s\033[K", line(r).c_str());
        open_ = true;
    } else {
        std::fprintf(out_, "%s\n", line(r).c_str());
    }
    std::fflush(out_);
}

void ProgressBar::finish() {
    if (open_)
        std::fputc('\n', out_);
    open_ = false;
    std::fflush(out_);
}

} // namespace yee::cli
