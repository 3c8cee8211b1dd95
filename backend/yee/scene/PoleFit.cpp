#include "yee/scene/PoleFit.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <fstream>
#include <limits>
#include <sstream>

#include <Eigen/Core>
#include <unsupported/Eigen/LevenbergMarquardt>

#include "yee/core/Error.hpp"
#include "yee/scene/MaterialModel.hpp"

namespace yee::scene {

namespace {

using cd = std::complex<double>;

std::string trim(const std::string& s) {
    const auto a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos)
        return {};
    const auto b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

bool number(const std::string& t, double& v) {
    const std::string s = trim(t);
    if (s.empty())
        return false;
    std::size_t used = 0;
    try {
        v = std::stod(s, &used);
    } catch (...) {
        return false;
    }
    return used == s.size() && std::isfinite(v);
}

/// The model of parameter vector x: [v_inf, (a, b, c) per Lorentz, (a, c) for Drude], every physical
/// value a square: eps_inf = 1 + v^2, delta_eps = a^2, hbar omega_0 = b^2 eV, hbar gamma = c^2 eV.
Material modelOf(const Eigen::VectorXd& x, const PoleFitOptions& o) {
    Material m;
    m.name = "fit";
    m.eps = 1 + x[0] * x[0];
    int q = 1;
    for (int p = 0; p < o.lorentz; ++p, q += 3) {
        Pole l;
        l.type = PoleType::Lorentz;
        l.deltaEps = x[q] * x[q];
        l.omegaEv = x[q + 1] * x[q + 1];
        l.gammaEv = x[q + 2] * x[q + 2];
        m.poles.push_back(l);
    }
    if (o.drude) {
        Pole d;
        d.type = PoleType::Drude;
        d.omegaEv = x[q] * x[q];
        d.gammaEv = x[q + 1] * x[q + 1];
        m.poles.push_back(d);
    }
    return m;
}

struct Residuals : Eigen::DenseFunctor<double> {
    const std::vector<NkSample>* data;
    const PoleFitOptions* opt;
    Residuals(int params, int values, const std::vector<NkSample>* d, const PoleFitOptions* o)
        : Eigen::DenseFunctor<double>(params, values), data(d), opt(o) {}
    int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& f) const {
        const MaterialModel mm = materialModel(modelOf(x, *opt));
        for (std::size_t i = 0; i < data->size(); ++i) {
            const NkSample& s = (*data)[i];
            const cd target = std::pow(cd(s.n, s.k), 2);
            const cd e = (permittivity(mm, omegaOfWavelength(s.wavelengthUm)) - target) / std::abs(target);
            f[Eigen::Index(2 * i)] = e.real();
            f[Eigen::Index(2 * i + 1)] = e.imag();
        }
        return 0;
    }
};

} // namespace

std::vector<NkSample> parseNkCsv(const std::string& text, const std::string& source) {
    std::vector<NkSample> out;
    std::istringstream in(text);
    std::string line;
    int no = 0;
    bool first = true;
    while (std::getline(in, line)) {
        ++no;
        if (const auto h = line.find('#'); h != std::string::npos)
            line.resize(h);
        if (trim(line).empty())
            continue;
        std::vector<std::string> cells;
        std::stringstream ls(line);
        std::string c;
        while (std::getline(ls, c, ','))
            cells.push_back(c);
        const std::string at = source + ":" + std::to_string(no);
        double v[3] = {0, 0, 0};
        bool ok = cells.size() == 2 || cells.size() == 3;
        for (std::size_t q = 0; ok && q < cells.size(); ++q)
            ok = number(cells[q], v[q]);
        if (!ok) {
            if (first && out.empty()) { // a header row
                first = false;
                continue;
            }
            throw InputError(at + ": expected \"wavelength_um, n[, k]\" numbers, got \"" + trim(line) + "\"");
        }
        first = false;
        if (!(v[0] > 0))
            throw InputError(at + ": wavelength must be > 0 um");
        if (v[1] < 0 || v[2] < 0)
            throw InputError(at + ": n and k must be >= 0");
        out.push_back({v[0], v[1], v[2]});
    }
    if (out.size() < 3)
        throw InputError(source + ": needs at least 3 rows of wavelength_um, n, k (got " +
                         std::to_string(out.size()) + ")");
    return out;
}

std::vector<NkSample> loadNkCsv(const std::string& path) {
    std::ifstream f(path);
    if (!f)
        throw InputError(path + ": cannot be read");
    std::stringstream ss;
    ss << f.rdbuf();
    return parseNkCsv(ss.str(), path);
}

PoleFitResult fitPoles(const std::vector<NkSample>& all, const PoleFitOptions& o) {
    std::vector<NkSample> data;
    for (const NkSample& s : all)
        if (o.bandHiUm <= 0 || (s.wavelengthUm >= o.bandLoUm && s.wavelengthUm <= o.bandHiUm))
            data.push_back(s);
    const int params = 1 + 3 * o.lorentz + (o.drude ? 2 : 0);
    if (o.lorentz < 0 || (o.lorentz == 0 && !o.drude))
        throw InputError("fit: needs at least one pole");
    if (int(data.size()) * 2 < 2 * params)
        throw InputError("fit: " + std::to_string(data.size()) + " samples in the band cannot determine " +
                         std::to_string(params) + " parameters");
    double wLo = std::numeric_limits<double>::infinity(), wHi = 0, meanRe = 0;
    for (const NkSample& s : data) {
        const double e = kHbarEvFs * omegaOfWavelength(s.wavelengthUm); // photon energy, eV
        wLo = std::min(wLo, e);
        wHi = std::max(wHi, e);
        meanRe += (s.n * s.n - s.k * s.k) / double(data.size());
    }
    PoleFitResult best;
    best.maxRelError = std::numeric_limits<double>::infinity();
    double bestCost = std::numeric_limits<double>::infinity();
    for (int st = 0; st < std::max(1, o.starts); ++st) {
        // Starts: resonances spread from the band up to several times its top, strengths sharing the
        // mean permittivity, a Drude pole near the band.
        Eigen::VectorXd x(params);
        x[0] = 0.1;
        int q = 1;
        const double spread = 1.0 + 0.35 * st;
        for (int p = 0; p < o.lorentz; ++p, q += 3) {
            const double w0 = (p == 0 && st % 2 == 1 ? std::sqrt(wLo * wHi) : wHi * spread * (1 + p));
            x[q] = std::sqrt(std::max(0.05, std::abs(meanRe - 1)) / std::max(1, o.lorentz));
            x[q + 1] = std::sqrt(w0);
            x[q + 2] = std::sqrt(0.05 * w0 * (1 + st % 3));
        }
        if (o.drude) {
            x[q] = std::sqrt(wHi * (1 + st));
            x[q + 1] = std::sqrt(0.05 * (1 + st % 4));
        }
        Residuals fn(params, int(2 * data.size()), &data, &o);
        Eigen::NumericalDiff<Residuals> nd(fn);
        Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Residuals>> lm(nd);
        lm.setMaxfev(4000 * params);
        lm.setXtol(1e-14);
        lm.setFtol(1e-14);
        lm.minimize(x);
        Eigen::VectorXd f(2 * data.size());
        fn(x, f);
        const double cost = f.squaredNorm();
        if (!std::isfinite(cost) || !x.allFinite() || cost >= bestCost)
            continue;
        bestCost = cost;
        best.material = modelOf(x, o);
        double mx = 0, sum = 0;
        for (std::size_t i = 0; i < data.size(); ++i) {
            const double r = std::hypot(f[Eigen::Index(2 * i)], f[Eigen::Index(2 * i + 1)]);
            mx = std::max(mx, r);
            sum += r * r;
        }
        best.maxRelError = mx;
        best.rmsRelError = std::sqrt(sum / double(data.size()));
    }
    best.samples = int(data.size());
    // Passive and stable by construction; refuse anything else (non-finite parameters).
    bool ok = std::isfinite(best.maxRelError) && best.material.eps >= 1;
    for (const Pole& p : best.material.poles)
        ok = ok && std::isfinite(p.omegaEv) && std::isfinite(p.gammaEv) && std::isfinite(p.deltaEps) &&
             p.gammaEv >= 0 && p.deltaEps >= 0;
    if (!ok)
        throw InputError("fit: no passive, stable fit found (try fewer or more poles, or a narrower band)");
    return best;
}

} // namespace yee::scene
