#include "yee/solver/SourceTime.hpp"

#include <cmath>
#include <numbers>

namespace yee::solver {

SourceTime::SourceTime(const scene::Profile& p, double cellUm)
    : type_(p.type), amp_(p.amplitude), phase_(p.phase) {
    const double fsPerUnit = cellUm / scene::kC_um_per_fs; // fs per normalised time unit
    omega_ = 2 * std::numbers::pi * cellUm / p.wavelength;
    if (type_ == scene::ProfileType::GaussianPulse) {
        // Spectral amplitude FWHM df = c dlambda / lambda^2 (normalised: cell / lambda^2 * dlambda);
        // a Gaussian exp(-t^2 / (2 tau^2)) has amplitude FWHM in omega of 2 sqrt(2 ln 2) / tau.
        const double df = cellUm * p.bandwidth / (p.wavelength * p.wavelength);
        tau_ = 2 * std::sqrt(2 * std::log(2.0)) / (2 * std::numbers::pi * df);
        t0_ = p.delay >= 0 ? p.delay / fsPerUnit : 5 * tau_;
    } else {
        ramp_ = p.ramp / fsPerUnit;
    }
}

double SourceTime::operator()(double t) const {
    if (type_ == scene::ProfileType::GaussianPulse) {
        const double u = t - t0_;
        return amp_ * std::exp(-u * u / (2 * tau_ * tau_)) * std::sin(omega_ * u + phase_);
    }
    double r = 1;
    if (t <= 0)
        r = 0;
    else if (t < ramp_)
        r = 0.5 * (1 - std::cos(std::numbers::pi * t / ramp_));
    return amp_ * r * std::sin(omega_ * t + phase_);
}

} // namespace yee::solver
