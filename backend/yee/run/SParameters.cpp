#include "yee/run/SParameters.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "yee/scene/DetectorKinds.hpp"

namespace yee::run {

namespace {

const solver::NamedArray& arrayOf(const RunResult& r, const std::string& det, const std::string& name) {
    for (const auto& d : r.detectors)
        if (d.name == det)
            if (const solver::NamedArray* a = d.find(name))
                return *a;
    throw std::runtime_error("S-parameters: the result has no " + det + "/" + name);
}

} // namespace

std::optional<SParameters> sParameters(const scene::Scene& scene, const RunResult& result, std::string* why) {
    auto none = [&](const std::string& reason) -> std::optional<SParameters> {
        if (why)
            *why = reason;
        return std::nullopt;
    };
    SParameters sp;
    const scene::DetectorType monitor = scene::detectorType("mode_monitor");
    for (const scene::Detector& d : scene.detectors)
        if (d.type == monitor) {
            const std::string port = scene::detectorParam<std::string>(d, "port");
            if (!port.empty()) {
                sp.ports.push_back(port);
                sp.detectors.push_back(d.name);
            }
        }
    if (sp.ports.empty())
        return none("no mode monitor names a port");
    int excited = -1;
    for (const scene::Source& src : scene.sources)
        for (std::size_t i = 0; i < sp.ports.size(); ++i)
            if (src.type == scene::SourceType::Mode && src.name == sp.ports[i])
                excited = int(i);
    if (excited < 0 || scene.sources.size() != 1)
        return none("S-parameters need exactly one source, a mode source named like a port");
    sp.excited = excited;
    const std::size_t N = sp.ports.size();
    sp.wavelengthsUm = arrayOf(result, sp.detectors[0], "wavelengths_um").data;
    const std::size_t L = sp.wavelengthsUm.size();
    sp.s.resize(L * N);
    // cos(beta / 2) a of mode 0 at every port and wavelength; a+ of the excited port, a- of all.
    auto amplitude = [&](std::size_t i, std::size_t w, bool incoming) {
        const std::string& det = sp.detectors[i];
        const solver::NamedArray& re = arrayOf(result, det, incoming ? "a_plus_re" : "a_minus_re");
        const solver::NamedArray& im = arrayOf(result, det, incoming ? "a_plus_im" : "a_minus_im");
        const solver::NamedArray& ne = arrayOf(result, det, "neff");
        const std::size_t M = std::size_t(re.shape[1]);
        const double omega = 2 * std::numbers::pi * scene.cellUm / sp.wavelengthsUm[w];
        const double c = std::cos(ne.data[w * M] * omega / 2);
        return std::complex<double>(re.data[w * M], im.data[w * M]) * std::sqrt(c);
    };
    for (std::size_t w = 0; w < L; ++w) {
        const std::complex<double> in = amplitude(std::size_t(excited), w, true);
        for (std::size_t i = 0; i < N; ++i)
            sp.s[w * N + i] = amplitude(i, w, false) / in;
    }
    return sp;
}

} // namespace yee::run
