#include "yee/scene/DeviceSpec.hpp"

#include <algorithm>

#include "yee/core/Error.hpp"

namespace yee::scene {

namespace {

/// A non-negative decimal of at most six digits, or -1.
int smallNumber(const std::string& t) {
    if (t.empty() || t.size() > 6 ||
        !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return -1;
    return std::stoi(t);
}

} // namespace

DeviceSpec DeviceSpec::parse(const std::string& text, const std::string& field,
                             const std::string& syntaxMessage) {
    const std::string bad =
        field + ": " +
        (syntaxMessage.empty() ? "expected cpu:N, cuda:all or cuda:ID[,ID...], got '" + text + "'"
                               : syntaxMessage);
    DeviceSpec d;
    if (text == "cpu" || text.rfind("cpu:", 0) == 0) {
        const int n = text == "cpu" ? 1 : smallNumber(text.substr(4));
        if (n < 1)
            throw InputError(bad);
        if (n > kMaxDevices)
            throw InputError(field + ": cpu device count must be in [1, " + std::to_string(kMaxDevices) +
                             "]");
        d.kind = Kind::Cpu;
        d.cpuDevices = n;
        return d;
    }
    if (text != "cuda" && text.rfind("cuda:", 0) != 0)
        throw InputError(bad);
    d.kind = Kind::Cuda;
    const std::string list = text == "cuda" ? "all" : text.substr(5);
    if (list == "all") {
        d.allGpus = true;
        return d;
    }
    std::size_t pos = 0;
    while (pos <= list.size()) {
        const std::size_t comma = std::min(list.find(',', pos), list.size());
        const std::string t = list.substr(pos, comma - pos);
        const int id = smallNumber(t);
        if (id < 0)
            throw InputError(bad);
        if (std::find(d.gpus.begin(), d.gpus.end(), id) != d.gpus.end())
            throw InputError(field + ": GPU " + t + " is listed twice");
        d.gpus.push_back(id);
        pos = comma + 1;
    }
    if (int(d.gpus.size()) > kMaxDevices)
        throw InputError(field + ": at most " + std::to_string(kMaxDevices) + " GPUs");
    return d;
}

int DeviceSpec::count() const {
    if (kind == Kind::Cpu)
        return cpuDevices;
    return allGpus ? 0 : int(gpus.size());
}

std::string DeviceSpec::str() const {
    if (kind == Kind::Cpu)
        return "cpu:" + std::to_string(cpuDevices);
    if (allGpus)
        return "cuda:all";
    std::string s = "cuda:";
    for (std::size_t i = 0; i < gpus.size(); ++i)
        s += (i ? "," : "") + std::to_string(gpus[i]);
    return s;
}

} // namespace yee::scene
