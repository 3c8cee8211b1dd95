#include "yee/device/MemoryLedger.hpp"

#include <cstdio>

namespace yee::device {

const char* categoryName(Category c) {
    switch (c) {
    case Category::Fields:
        return "fields";
    case Category::Materials:
        return "materials";
    case Category::Pml:
        return "pml";
    case Category::Sources:
        return "sources";
    case Category::Detectors:
        return "detectors";
    case Category::Recorder:
        return "recorder";
    case Category::Checkpoints:
        return "checkpoints";
    case Category::Adjoint:
        return "adjoint";
    case Category::Halo:
        return "halo";
    case Category::Staging:
        return "staging";
    case Category::Dispersive:
        return "dispersive";
    case Category::Host:
        return "host";
    default:
        return "?";
    }
}

void MemoryLedger::add(Category c, std::int64_t bytes) {
    std::lock_guard<std::mutex> lk(m_);
    auto i = static_cast<int>(c);
    s_.current[i] += bytes;
    if (s_.current[i] > s_.peak[i])
        s_.peak[i] = s_.current[i];
    if (hostSeparate_ && c == Category::Host)
        return;
    s_.currentTotal += bytes;
    if (s_.currentTotal > s_.peakTotal)
        s_.peakTotal = s_.currentTotal;
}

void MemoryLedger::remove(Category c, std::int64_t bytes) {
    std::lock_guard<std::mutex> lk(m_);
    s_.current[static_cast<int>(c)] -= bytes;
    if (!(hostSeparate_ && c == Category::Host))
        s_.currentTotal -= bytes;
}

LedgerSnapshot MemoryLedger::snapshot() const {
    std::lock_guard<std::mutex> lk(m_);
    return s_;
}
std::int64_t MemoryLedger::currentTotal() const {
    std::lock_guard<std::mutex> lk(m_);
    return s_.currentTotal;
}
std::int64_t MemoryLedger::peakTotal() const {
    std::lock_guard<std::mutex> lk(m_);
    return s_.peakTotal;
}
void MemoryLedger::resetPeak() {
    std::lock_guard<std::mutex> lk(m_);
    s_.peak = s_.current;
    s_.peakTotal = s_.currentTotal;
}

std::string formatBytes(std::int64_t b) {
    char buf[64];
    double v = static_cast<double>(b);
    if (v < 1024)
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(b));
    else if (v < 1024.0 * 1024)
        std::snprintf(buf, sizeof buf, "%.1f KiB", v / 1024);
    else if (v < 1024.0 * 1024 * 1024)
        std::snprintf(buf, sizeof buf, "%.1f MiB", v / (1024.0 * 1024));
    else
        std::snprintf(buf, sizeof buf, "%.2f GiB", v / (1024.0 * 1024 * 1024));
    return buf;
}

} // namespace yee::device
