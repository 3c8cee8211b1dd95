#pragma once
/// \file PoleFit.hpp
/// Fit of dispersive poles to tabulated refractive index data n, k (lambda): a least-squares fit of
/// eps_inf plus Lorentz poles (and optionally one Drude pole) to eps = (n + i k)^2 with Eigen's
/// Levenberg-Marquardt solver (unsupported/Eigen/LevenbergMarquardt), residuals relative to |eps| per
/// sample. Every parameter is fitted as the square of a free variable (eps_inf as 1 + v^2), so the
/// model is passive (Im eps >= 0) and stable (eps_inf >= 1, gammas >= 0) by construction; a fit that
/// still leaves any of these (non-finite values) is refused.
#include <string>
#include <vector>

#include "yee/scene/Scene.hpp"

namespace yee::scene {

/// One tabulated sample.
struct NkSample {
    double wavelengthUm = 0; ///< vacuum wavelength, um
    double n = 0;            ///< refractive index
    double k = 0;            ///< extinction coefficient
};

/// What to fit.
struct PoleFitOptions {
    int lorentz = 2;     ///< Lorentz poles
    bool drude = false;  ///< one Drude pole as well
    double bandLoUm = 0; ///< fit only samples in [bandLoUm, bandHiUm] (0, 0: all)
    double bandHiUm = 0;
    int starts = 12; ///< initial guesses tried (the best fit is kept)
};

/// The result: a material (eps, poles) and the fit error.
struct PoleFitResult {
    Material material;      ///< eps = eps_inf and the poles (eV, as Scene.hpp)
    double maxRelError = 0; ///< max over the fitted samples of |eps_fit - eps_data| / |eps_data|
    double rmsRelError = 0; ///< root mean square of the same
    int samples = 0;        ///< samples in the band
};

/// Read "wavelength_um, n, k" rows from CSV text (k may be left out: 0; '#' starts a comment; a first
/// row that is not numeric is a header). Throws InputError naming `source` and the line on malformed
/// rows, non-positive wavelengths, negative n or k, or fewer than 3 rows.
std::vector<NkSample> parseNkCsv(const std::string& text, const std::string& source);
/// parseNkCsv() of a file (throws InputError if it cannot be read).
std::vector<NkSample> loadNkCsv(const std::string& path);

/// Fit `o` to `data`. Throws InputError when the band holds fewer samples than twice the parameters, or
/// when no start gives a finite, passive, stable fit.
PoleFitResult fitPoles(const std::vector<NkSample>& data, const PoleFitOptions& o);

} // namespace yee::scene
