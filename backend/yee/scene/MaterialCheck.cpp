#include "yee/scene/MaterialCheck.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "yee/core/Error.hpp"
#include "yee/scene/MaterialLibrary.hpp"
#include "yee/scene/MaterialModel.hpp"
#include "yee/scene/Schema.hpp"

namespace yee::scene {

namespace {
std::string num(double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}
[[noreturn]] void fail(const std::string& path, const std::string& msg) {
    throw InputError(path + ": " + msg);
}
} // namespace

void checkDispersive(const Scene& s, const Material& m, const std::string& path) {
    if (!m.library.empty()) {
        if (!findLibraryMaterial(m.library)) {
            std::string names;
            for (const auto& l : materialLibrary())
                names += std::string(names.empty() ? "" : ", ") + l.name;
            fail(path + ".library",
                 "unknown library material \"" + m.library + "\" (expected one of " + names + ")");
        }
        if (!m.poles.empty())
            fail(path + ".poles", "give either \"library\" or \"poles\", not both");
        if (m.n > 0)
            fail(path + ".n", "give either \"library\" or \"n\", not both");
    }
    if (m.k > 0 && m.n == 0)
        fail(path + ".k", "needs n (the refractive index) as well");
    if (m.n > 0) {
        if (!m.poles.empty())
            fail(path + ".poles", "give either \"n\" or \"poles\", not both");
        if (!(m.nkWavelengthUm > 0))
            fail(path + ".wavelength_um", "must be > 0 when n is given (the wavelength n and k hold at)");
        if (m.n * m.n - m.k * m.k <= 0)
            fail(path + ".k", "n = " + num(m.n) + ", k = " + num(m.k) +
                                  " give eps = n^2 - k^2 <= 0: give poles or a library name for a metal");
        if (m.n < 1 && m.k == 0)
            fail(path + ".n", "must be >= 1 when k = 0 (got " + num(m.n) +
                                  "; a non-dispersive index below 1 is faster than light: give poles)");
    }
    if (!isDispersive(m))
        return;
    const MaterialModel model = materialModel(m);
    if (int(model.poles.size()) > kMaxPoles)
        fail(path + ".poles", "at most " + std::to_string(kMaxPoles) + " poles per material (got " +
                                  std::to_string(model.poles.size()) + ")");
    // The E update's own Courant condition with eps_inf: c dt / dx <= sqrt(eps_inf / 3).
    if (model.epsInf < s.courant * s.courant)
        fail(path + ".eps", "eps_inf = " + num(model.epsInf) +
                                " below courant^2 = " + num(s.courant * s.courant) +
                                " makes the update unstable (lower grid.courant or raise eps)");
    const double dtFs = s.dtFs();
    for (std::size_t j = 0; j < model.poles.size(); ++j) {
        const Pole& p = model.poles[j];
        const std::string pp =
            m.library.empty() ? path + ".poles[" + std::to_string(j) + "]" : path + ".library";
        if (p.type == PoleType::Lorentz && p.omegaEv / kHbarEvFs * dtFs > 2)
            fail(pp + (m.library.empty() ? ".omega_0_eV" : ""),
                 "a resonance of " + num(p.omegaEv) + " eV is not resolved by the time step of " + num(dtFs) +
                     " fs (omega_0 dt = " + num(p.omegaEv / kHbarEvFs * dtFs) + " > 2): use smaller cells");
        if (p.type == PoleType::Debye && p.tauFs < 0.5 * dtFs)
            fail(pp + (m.library.empty() ? ".tau_fs" : ""), "a relaxation time of " + num(p.tauFs) +
                                                                " fs is shorter than half the time step (" +
                                                                num(dtFs) + " fs): use smaller cells");
    }
}

std::vector<std::string> materialWarnings(const Scene& s) {
    std::vector<std::string> out;
    double lo = 0, hi = 0; // the scene's wavelength span, um
    auto add = [&](double w) {
        if (!(w > 0))
            return;
        lo = lo > 0 ? std::min(lo, w) : w;
        hi = std::max(hi, w);
    };
    for (const auto& src : s.sources) {
        const double half = src.profile.type == ProfileType::GaussianPulse ? 0.5 * src.profile.bandwidth : 0;
        add(src.profile.wavelength - half);
        add(src.profile.wavelength + half);
    }
    for (const auto& d : s.detectors)
        for (double w : d.wavelengths)
            add(w);
    if (!(hi > 0))
        return out;
    for (const auto& m : s.materials) {
        const LibraryMaterial* l = m.library.empty() ? nullptr : findLibraryMaterial(m.library);
        if (l && (lo < l->validLoUm || hi > l->validHiUm))
            out.push_back("materials." + m.name + ".library: \"" + m.library + "\" is fitted for " +
                          num(l->validLoUm) + "-" + num(l->validHiUm) + " um; the scene uses " + num(lo) +
                          "-" + num(hi) + " um (" + l->reference + ")");
    }
    return out;
}

} // namespace yee::scene
