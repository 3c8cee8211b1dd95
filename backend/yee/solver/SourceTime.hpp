#pragma once
/// \file SourceTime.hpp
/// Temporal source profiles in normalised time (unit dx/c).
#include "yee/scene/Scene.hpp"

namespace yee::solver {

/// g(t) of one scene profile, converted to normalised units for a grid of cell size `cellUm`.
class SourceTime {
public:
    SourceTime(const scene::Profile& p, double cellUm);
    /// Value at normalised time t.
    double operator()(double t) const;
    /// Angular frequency, normalised (2 pi dx / lambda).
    double omega() const { return omega_; }
    /// Pulse width sigma_t (normalised), 0 for CW.
    double sigma() const { return tau_; }
    /// Pulse centre (normalised).
    double delay() const { return t0_; }

private:
    scene::ProfileType type_;
    double omega_ = 0, tau_ = 0, t0_ = 0, ramp_ = 0, amp_ = 1, phase_ = 0;
};

} // namespace yee::solver
