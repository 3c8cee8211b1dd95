#pragma once
/// \file SParameters.hpp
/// S-parameters of a run from its mode-monitor ports.
///
/// A port is a mode_monitor with a non-empty `port` name; its direction points into the device, so at
/// port i the first mode's a+ is the incoming and a- the outgoing amplitude. Ports are numbered 1..N in
/// detector order. A run whose only source is a mode source named like port j excites port j and gives
/// column j of the S-matrix at the ports' (common) wavelengths:
///   S_ij = a-_i sqrt(cos(beta_i / 2)) / (a+_j sqrt(cos(beta_j / 2))),
/// the power-wave ratio (|S_ij|^2 = P-_i / P+_j, the mode monitor's powers), phase referred to the
/// monitor planes. Only the first mode of each port enters.
#include <complex>
#include <optional>
#include <string>
#include <vector>

#include "yee/run/Run.hpp"

namespace yee::run {

/// One S-matrix column of a run.
struct SParameters {
    std::vector<std::string> ports;      ///< port names, port i + 1 = ports[i]
    std::vector<std::string> detectors;  ///< the mode monitor of each port
    int excited = 0;                     ///< index (0-based) of the excited port j
    std::vector<double> wavelengthsUm;   ///< as the port monitors list them
    std::vector<std::complex<double>> s; ///< [wavelength][port i]: S_ij
    /// S_ij at wavelength w.
    std::complex<double> at(std::size_t w, std::size_t i) const { return s[w * ports.size() + i]; }
};

/// The S-matrix column `result` gives for `scene`, or nothing when the scene has no port or no single
/// mode source named like a port (`why`, when given, then says which). Throws std::runtime_error when a
/// port's mode monitor result is missing from `result`.
std::optional<SParameters> sParameters(const scene::Scene& scene, const RunResult& result,
                                       std::string* why = nullptr);

} // namespace yee::run
