#include "yee/modes/ModeSetBytes.hpp"

#include <stdexcept>

#include "yee/core/Bytes.hpp"

namespace yee::modes {

std::vector<char> encodeModeSet(const ModeSet& set) {
    ByteWriter w;
    w.put(set.seconds);
    w.put(set.unknowns);
    w.put(set.homogeneous);
    w.put(std::int64_t(set.modes.size()));
    for (const Mode& m : set.modes) {
        w.put(m.neff);
        w.put(m.beta);
        w.put(m.kappa);
        w.put(m.neffImag);
        w.put(m.imagFraction);
        w.put(m.ng);
        w.put(m.nu);
        w.put(m.nw);
        for (const auto& f : m.field)
            w.putArray(f.data(), std::int64_t(f.size()));
    }
    return std::move(w.buffer());
}

ModeSet decodeModeSet(const std::vector<char>& bytes, const ModeRequest& req) {
    ByteReader r(bytes);
    ModeSet set;
    set.request = req;
    set.seconds = r.get<double>();
    set.unknowns = r.get<std::int64_t>();
    set.homogeneous = r.get<bool>();
    const auto n = r.get<std::int64_t>();
    if (n < 0)
        throw std::runtime_error("decodeModeSet: corrupt mode set");
    set.modes.resize(std::size_t(n));
    for (Mode& m : set.modes) {
        m.neff = r.get<double>();
        m.beta = r.get<double>();
        m.kappa = r.get<double>();
        m.neffImag = r.get<double>();
        m.imagFraction = r.get<double>();
        m.ng = r.get<double>();
        m.nu = r.get<int>();
        m.nw = r.get<int>();
        for (auto& f : m.field)
            f = r.getArray<double>();
    }
    if (!r.done())
        throw std::runtime_error("decodeModeSet: trailing bytes");
    return set;
}

} // namespace yee::modes
