#include "yee/scene/Resolution.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <set>

#include "yee/core/Error.hpp"
#include "yee/scene/MaterialModel.hpp"

namespace yee::scene {

namespace {

std::string num(double v, const char* fmt = "%.3g") {
    char b[64];
    std::snprintf(b, sizeof b, fmt, v);
    return b;
}

} // namespace

double shortestWavelengthUm(const Profile& p) {
    if (p.type != ProfileType::GaussianPulse || !(p.bandwidth > 0))
        return p.wavelength;
    // In frequency (c = 1): f0 = 1 / wavelength, amplitude FWHM df = bandwidth / wavelength^2.
    const double f = 1 / p.wavelength + 0.5 * p.bandwidth / (p.wavelength * p.wavelength);
    return 1 / f;
}

double yeePhaseVelocityError(double cellsPerWavelength, double courant1d) {
    const double kHalf = std::numbers::pi / cellsPerWavelength; // k dx / 2
    const double s = std::sin(courant1d * kHalf) / courant1d;   // sin(k~ dx / 2)
    if (!(cellsPerWavelength > 0) || !(courant1d > 0) || s >= 1)
        return std::numeric_limits<double>::quiet_NaN();
    return kHalf / std::asin(s) - 1; // v_grid / v = k / k~
}

namespace {

/// Longest wavelength a source emits, um: the lower half-maximum edge of its amplitude spectrum (ten
/// times the centre wavelength when that edge reaches zero frequency), the centre wavelength for CW.
double longestWavelengthUm(const Profile& p) {
    if (p.type != ProfileType::GaussianPulse || !(p.bandwidth > 0))
        return p.wavelength;
    const double f = 1 / p.wavelength - 0.5 * p.bandwidth / (p.wavelength * p.wavelength);
    return f > 0.1 / p.wavelength ? 1 / f : 10 * p.wavelength;
}

/// The index that gives a material's worst resolution over [lo, hi] um, expressed at lo: the material
/// resolves lo / n cells where it resolves its smallest lambda / n(lambda). Constant materials:
/// sqrt(eps mu). Dispersive, n/k and library materials: Re sqrt(eps(omega) mu), sampled over the band.
double bandIndex(const Material& m, double lo, double hi) {
    const bool plain = m.poles.empty() && !(m.n > 0) && m.library.empty();
    if (plain || !(lo > 0) || !(hi >= lo))
        return std::sqrt(std::max(m.eps * m.mu, 0.0));
    MaterialModel model;
    try {
        model = materialModel(m);
    } catch (const std::exception&) {
        return std::sqrt(std::max(m.eps * m.mu, 0.0)); // reported by the validator
    }
    double worst = std::numeric_limits<double>::infinity(); // smallest lambda / n
    constexpr int kSamples = 33;
    for (int i = 0; i < kSamples; ++i) {
        const double lam = lo * std::pow(hi / lo, double(i) / (kSamples - 1));
        const double n = std::sqrt(permittivity(model, omegaOfWavelength(lam)) * model.mu).real();
        if (n > 0)
            worst = std::min(worst, lam / n);
    }
    return std::isfinite(worst) ? lo / worst : 1.0;
}

} // namespace

Resolution worstResolution(const Scene& s) {
    Resolution r;
    double longest = 0;
    for (std::size_t i = 0; i < s.sources.size(); ++i) {
        const double w = shortestWavelengthUm(s.sources[i].profile);
        longest = std::max(longest, longestWavelengthUm(s.sources[i].profile));
        if (r.source < 0 || w < r.shortestWavelengthUm) {
            r.source = int(i);
            r.shortestWavelengthUm = w;
        }
    }
    std::set<std::string> used{s.background};
    for (const auto& o : s.objects)
        used.insert(o.material);
    for (const auto& d : s.designs)
        used.insert(d.materials.begin(), d.materials.end());
    for (const auto& name : used)
        if (const Material* m = s.findMaterial(name)) {
            const double n = bandIndex(*m, r.shortestWavelengthUm, longest);
            if (r.material.empty() || n > r.index) {
                r.material = name;
                r.index = n;
            }
        }
    if (!(r.index > 0))
        r.index = 1;
    if (r.source < 0 || !(s.cellUm > 0))
        return r;
    r.cellsPerWavelength = r.shortestWavelengthUm / r.index / s.cellUm;
    // The medium's Courant number along an axis: v dt / dx = (courant / sqrt 3) / n.
    r.phaseVelocityError = yeePhaseVelocityError(r.cellsPerWavelength, s.dt() / r.index);
    r.phaseErrorDegPerWavelength = std::isfinite(r.phaseVelocityError)
                                       ? 360.0 * (1 / (1 + r.phaseVelocityError) - 1)
                                       : std::numeric_limits<double>::quiet_NaN();
    return r;
}

namespace {

std::string where(const Scene& s, const Resolution& r) {
    return "the shortest wavelength of sources[" + std::to_string(r.source) + "] (\"" +
           s.sources[std::size_t(r.source)].name + "\"), " + num(r.shortestWavelengthUm) + " um, is " +
           num(r.cellsPerWavelength) + " cells in material \"" + r.material + "\" (n = " + num(r.index) + ")";
}

} // namespace

void checkResolution(const Scene& s) {
    const Resolution r = worstResolution(s);
    if (r.source < 0 || !(r.cellsPerWavelength > 0) || r.cellsPerWavelength >= kMinCellsPerWavelength)
        return;
    throw InputError(
        "grid.cell_um: " + where(s, r) + "; the grid needs at least " + num(kMinCellsPerWavelength) +
        " (use grid.cell_um <= " + num(r.shortestWavelengthUm / r.index / kWarnCellsPerWavelength) +
        " um for " + num(kWarnCellsPerWavelength) + ")");
}

std::vector<std::string> resolutionWarnings(const Scene& s) {
    const Resolution r = worstResolution(s);
    if (r.source < 0 || !(r.cellsPerWavelength > 0) || r.cellsPerWavelength >= kWarnCellsPerWavelength)
        return {};
    const std::string err =
        std::isfinite(r.phaseVelocityError)
            ? "the Yee grid's phase velocity there is " + num(-100 * r.phaseVelocityError, "%.2g") +
                  "% slow (" + num(r.phaseErrorDegPerWavelength, "%.2g") + " degrees of phase per wavelength)"
            : "the wave does not propagate on the grid there";
    return {"grid.cell_um: " + where(s, r) + "; " + err +
            "; use grid.cell_um <= " + num(r.shortestWavelengthUm / r.index / kWarnCellsPerWavelength) +
            " um for " + num(kWarnCellsPerWavelength) + " cells per wavelength"};
}

} // namespace yee::scene
