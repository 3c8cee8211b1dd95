#include "yee/scene/MaterialModel.hpp"

#include <cmath>
#include <numbers>

#include "yee/core/Error.hpp"
#include "yee/scene/MaterialLibrary.hpp"

namespace yee::scene {

bool isDispersive(const Material& m) {
    if (!m.library.empty())
        return true;
    return !m.poles.empty();
}

MaterialModel materialModel(const Material& m) {
    MaterialModel r;
    r.mu = m.mu;
    if (!m.library.empty()) {
        const LibraryMaterial* l = findLibraryMaterial(m.library);
        if (!l)
            throw InputError("materials." + m.name + ".library: unknown library material \"" + m.library +
                             "\"");
        r.epsInf = l->epsInf;
        r.poles = l->poles;
        r.sigma = m.sigma;
        r.validLoUm = l->validLoUm;
        r.validHiUm = l->validHiUm;
        return r;
    }
    if (m.n > 0) {
        epsSigmaOfNk(m.n, m.k, m.nkWavelengthUm, r.epsInf, r.sigma);
        return r;
    }
    r.epsInf = m.eps;
    r.sigma = m.sigma;
    r.poles = m.poles;
    return r;
}

double omegaOfWavelength(double um) {
    return 2 * std::numbers::pi * kC_um_per_fs / um;
}

void epsSigmaOfNk(double n, double k, double lambdaUm, double& eps, double& sigma) {
    eps = n * n - k * k;
    // sigma = 2 n k omega eps0 = 2 n k (2 pi c / lambda) / (c eta0) = 4 pi n k / (eta0 lambda).
    sigma = 4 * std::numbers::pi * n * k / (kEta0 * lambdaUm * 1e-6);
}

std::complex<double> poleSusceptibility(const Pole& p, std::complex<double> w) {
    const std::complex<double> i(0, 1);
    const double w0 = p.omegaEv / kHbarEvFs, g = p.gammaEv / kHbarEvFs;
    switch (p.type) {
    case PoleType::Drude:
        return -w0 * w0 / (w * w + i * g * w);
    case PoleType::Lorentz:
        return p.deltaEps * w0 * w0 / (w0 * w0 - w * w - i * g * w);
    case PoleType::Debye:
        return p.deltaEps / (1.0 - i * w * p.tauFs);
    }
    return 0;
}

std::complex<double> permittivity(const MaterialModel& m, double w) {
    // sigma / (eps0 omega): eps0 = 1 / (c eta0) with omega in rad/fs, c in m/fs.
    const double c = kC_um_per_fs * 1e-6;
    std::complex<double> e(m.epsInf, m.sigma * kEta0 * c / w);
    for (const Pole& p : m.poles)
        e += poleSusceptibility(p, w);
    return e;
}

} // namespace yee::scene
