#include "yee/scene/MaterialLibrary.hpp"

#include <cmath>
#include <initializer_list>

namespace yee::scene {

namespace {

/// hc in eV um: a resonance at vacuum wavelength C um has photon energy kHcEvUm / C eV.
constexpr double kHcEvUm = 1.23984198;

Pole lorentz(double deltaEps, double omega0Ev, double gammaEv) {
    Pole p;
    p.type = PoleType::Lorentz;
    p.deltaEps = deltaEps;
    p.omegaEv = omega0Ev;
    p.gammaEv = gammaEv;
    return p;
}

/// Sellmeier terms B lambda^2 / (lambda^2 - C^2) (C in um): lossless Lorentz poles with
/// delta_eps = B at hbar omega_0 = hc / C.
std::vector<Pole> sellmeier(std::initializer_list<std::pair<double, double>> bc) {
    std::vector<Pole> v;
    for (const auto& [b, c] : bc)
        v.push_back(lorentz(b, kHcEvUm / c, 0));
    return v;
}

/// Rakic et al. (1998) Lorentz-Drude form: eps = 1 - f0 wp^2 / (w (w + i G0))
///   + sum_j f_j wp^2 / (w_j^2 - w^2 - i w G_j), all energies in eV; as poles: a Drude pole of
/// plasma energy sqrt(f0) wp and Lorentz poles of strength f_j wp^2 / w_j^2.
struct Osc {
    double f, w, g;
};
std::vector<Pole> rakic(double wp, double f0, double g0, std::initializer_list<Osc> osc) {
    std::vector<Pole> v;
    Pole d;
    d.type = PoleType::Drude;
    d.omegaEv = std::sqrt(f0) * wp;
    d.gammaEv = g0;
    v.push_back(d);
    for (const Osc& o : osc)
        v.push_back(lorentz(o.f * wp * wp / (o.w * o.w), o.w, o.g));
    return v;
}

constexpr const char* kRakic =
    "A. D. Rakic, A. B. Djurisic, J. M. Elazar, M. L. Majewski, \"Optical properties of "
    "metallic films for vertical-cavity optoelectronic devices\", Appl. Opt. 37, "
    "5271-5283 (1998), Table 1 (Lorentz-Drude model)";

std::vector<LibraryMaterial> build() {
    std::vector<LibraryMaterial> l;
    l.push_back(
        {"Si", "crystalline silicon (Sellmeier, infrared)",
         "C. D. Salzberg, J. J. Villa, \"Infrared refractive indexes of silicon, germanium and modified "
         "selenium glass\", J. Opt. Soc. Am. 47, 244-246 (1957), Sellmeier fit of their data (as "
         "tabulated by refractiveindex.info)",
         1.0, sellmeier({{10.6684293, 0.301516485}, {0.0030434748, 1.13475115}, {1.54133408, 1104.0}}), 1.36,
         11.0});
    l.push_back(
        {"SiO2", "fused silica",
         "I. H. Malitson, \"Interspecimen comparison of the refractive index of fused silica\", J. Opt. "
         "Soc. Am. 55, 1205-1209 (1965)",
         1.0, sellmeier({{0.6961663, 0.0684043}, {0.4079426, 0.1162414}, {0.8974794, 9.896161}}), 0.21, 6.7});
    l.push_back({"Si3N4", "stoichiometric LPCVD silicon nitride",
                 "K. Luke, Y. Okawachi, M. R. E. Lamont, A. L. Gaeta, M. Lipson, \"Broadband mid-infrared "
                 "frequency comb generation in a Si3N4 microresonator\", Opt. Lett. 40, 4823-4826 (2015)",
                 1.0, sellmeier({{3.0249, 0.1353406}, {40314.0, 1239.842}}), 0.31, 5.504});
    l.push_back({"Al2O3", "sapphire, ordinary ray",
                 "I. H. Malitson, M. J. Dodge, \"Refractive index and birefringence of synthetic sapphire\", "
                 "J. Opt. Soc. Am. 62, 1405 (1972)",
                 1.0, sellmeier({{1.4313493, 0.0726631}, {0.65054713, 0.1193242}, {5.3414021, 18.028251}}),
                 0.2, 5.0});
    l.push_back({"ITO",
                 "indium tin oxide (single Lorentz oscillator)",
                 "HORIBA Scientific, Technical Note TN08 \"Lorentz dispersion model\" (ellipsometry), ITO "
                 "parameters",
                 1.0,
                 {lorentz(2.5, kHcEvUm / 0.182329695588235, kHcEvUm / 1.94637665620094)},
                 0.21,
                 0.83});
    l.push_back(
        {"Au", "gold", kRakic, 1.0,
         rakic(9.03, 0.760, 0.053,
               {{0.024, 0.415, 0.241}, {0.010, 0.830, 0.345}, {0.071, 2.969, 0.870}, {0.601, 4.304, 2.494}}),
         0.2, 12.4});
    l.push_back(
        {"Ag", "silver", kRakic, 1.0,
         rakic(9.01, 0.845, 0.048,
               {{0.065, 0.816, 3.886}, {0.124, 4.481, 0.452}, {0.011, 8.185, 0.065}, {0.840, 9.083, 0.916}}),
         0.2, 12.4});
    l.push_back(
        {"Al", "aluminium", kRakic, 1.0,
         rakic(14.98, 0.523, 0.047,
               {{0.227, 0.162, 0.333}, {0.050, 1.544, 0.312}, {0.166, 1.808, 1.351}, {0.030, 3.473, 3.382}}),
         0.2, 12.4});
    l.push_back(
        {"Cu", "copper", kRakic, 1.0,
         rakic(10.83, 0.575, 0.030,
               {{0.061, 0.291, 0.378}, {0.104, 2.957, 1.056}, {0.723, 5.300, 3.213}, {0.638, 11.18, 4.305}}),
         0.2, 12.4});
    l.push_back(
        {"Ti", "titanium", kRakic, 1.0,
         rakic(7.29, 0.148, 0.082,
               {{0.899, 0.777, 2.276}, {0.393, 1.545, 2.518}, {0.187, 2.509, 1.663}, {0.001, 19.43, 1.762}}),
         0.2, 12.4});
    return l;
}

} // namespace

const std::vector<LibraryMaterial>& materialLibrary() {
    static const std::vector<LibraryMaterial> lib = build();
    return lib;
}

const LibraryMaterial* findLibraryMaterial(const std::string& name) {
    for (const auto& m : materialLibrary())
        if (name == m.name)
            return &m;
    return nullptr;
}

} // namespace yee::scene
