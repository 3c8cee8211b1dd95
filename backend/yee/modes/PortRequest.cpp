#include "yee/modes/PortRequest.hpp"

#include <numbers>

#include "yee/scene/DetectorKinds.hpp"

namespace yee::modes {

ModeRequest monitorRequest(const scene::Scene& s, std::size_t detector, int normal, const Box& plane,
                           const std::vector<double>& omegas, std::size_t wl, double dt, int count) {
    const scene::Detector& d = s.detectors.at(detector);
    ModeRequest q;
    q.normal = normal;
    q.plane = plane.lo[normal];
    const int u = (normal + 1) % 3, w = (normal + 2) % 3;
    q.lo = {plane.lo[u], plane.lo[w]};
    q.hi = {plane.hi[u], plane.hi[w]};
    q.omega = omegas.at(wl);
    if (!scene::detectorParam<bool>(d, "solve_each_wavelength")) {
        // One solve at the centre wavelength of the (first mode, else first) source, as a source launches.
        const scene::Source* lit = nullptr;
        for (const scene::Source& src : s.sources)
            if (!lit || (src.type == scene::SourceType::Mode && lit->type != scene::SourceType::Mode))
                lit = &src;
        q.omega = lit ? 2 * std::numbers::pi * s.cellUm / lit->profile.wavelength : omegas[omegas.size() / 2];
    }
    q.dt = dt;
    q.count = count;
    q.nGuess = scene::detectorParam<double>(d, "n_guess");
    q.pml = scene::detectorParam<int>(d, "port_pml_cells");
    return q;
}

} // namespace yee::modes
