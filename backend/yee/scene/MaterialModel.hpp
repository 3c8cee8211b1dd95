#pragma once
/// \file MaterialModel.hpp
/// One resolved form of a scene material: eps_inf, mu, sigma and dispersive poles, whichever way the
/// scene gave it (eps/sigma with optional poles, n + i k at one wavelength, or a library name).
///
/// Conventions (stated once, no implicit conversion anywhere else):
///  - time dependence exp(-i omega t): a passive material has Im eps(omega) >= 0;
///  - pole frequencies and dampings are photon energies in eV, omega [rad/fs] = E [eV] / hbar with
///    hbar = 0.6582119569 eV fs; Debye relaxation times in fs;
///  - n, k at vacuum wavelength lambda (um): eps = n^2 - k^2 and sigma = 2 n k omega eps0 with
///    omega = 2 pi c / lambda, i.e. sigma [S/m] = 4 pi n k / (eta0 lambda [m]); this reproduces
///    eps(omega) = (n + i k)^2 exactly at lambda and is a constant-conductivity model elsewhere.
#include <complex>
#include <string>
#include <vector>

#include "yee/scene/Scene.hpp"

namespace yee::scene {

/// hbar in eV fs (CODATA 2018).
inline constexpr double kHbarEvFs = 0.6582119569;

/// The resolved model of one material.
struct MaterialModel {
    double epsInf = 1;       ///< high-frequency (or constant) relative permittivity
    double mu = 1;           ///< relative permeability
    double sigma = 0;        ///< conductivity, S/m
    std::vector<Pole> poles; ///< dispersive poles
    double validLoUm = 0;    ///< library materials: valid vacuum wavelengths [lo, hi] um (0, 0: any)
    double validHiUm = 0;
};

/// True when the material has (or resolves to) dispersive poles.
bool isDispersive(const Material& m);
/// The material's model. Throws InputError naming "materials.<name>.library" for an unknown library name.
MaterialModel materialModel(const Material& m);
/// Continuous relative permittivity of `model` at angular frequency omega (rad/fs, > 0), conductivity
/// included (i sigma / (eps0 omega)).
std::complex<double> permittivity(const MaterialModel& model, double omegaRadPerFs);
/// Susceptibility of one pole at complex angular frequency w (rad/fs): the pole's term of eps.
std::complex<double> poleSusceptibility(const Pole& p, std::complex<double> omegaRadPerFs);
/// Angular frequency (rad/fs) of vacuum wavelength `um`.
double omegaOfWavelength(double um);
/// eps and sigma (S/m) of n + i k at vacuum wavelength lambdaUm (the conversion stated above).
void epsSigmaOfNk(double n, double k, double lambdaUm, double& eps, double& sigma);

} // namespace yee::scene
