#include "yee/files/FaultInjection.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "yee/core/Error.hpp"

namespace yee::files {

namespace {

std::mutex& overrideMutex() {
    static std::mutex m;
    return m;
}

std::string& overrideKinds() {
    static std::string kinds;
    return kinds;
}

bool listed(const std::string& list, std::string_view kind) {
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        if (std::string_view(list).substr(start, comma - start) == kind)
            return true;
        start = comma + 1;
    }
    return false;
}

} // namespace

void setInjectedFailures(const std::string& kinds) {
    std::lock_guard<std::mutex> lk(overrideMutex());
    overrideKinds() = kinds;
}

bool failureInjected(std::string_view kind) {
    std::string list;
    {
        std::lock_guard<std::mutex> lk(overrideMutex());
        list = overrideKinds();
    }
    if (list.empty())
        if (const char* env = std::getenv("YEE_FAIL_OUTPUT"))
            list = env;
    return !list.empty() && listed(list, kind);
}

void failIfInjected(std::string_view kind, const std::string& path) {
    if (failureInjected(kind))
        throw RunError("'" + path + "': injected failure writing " + std::string(kind) +
                       " (YEE_FAIL_OUTPUT)");
}

} // namespace yee::files
