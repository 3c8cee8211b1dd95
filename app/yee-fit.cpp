/// yee-fit: least-squares fit of eps_inf plus Lorentz (and optionally one Drude) poles to tabulated
/// refractive index data, printed as a scene material ("materials": {"<name>": ...}) with the fit error.
///
///   yee-fit DATA.csv [--lorentz N] [--drude] [--band LO HI] [--name NAME] [--max-error E]
///
/// DATA.csv rows: wavelength_um, n[, k] ('#' comments, an optional header row). Exit status 0 on a fit
/// within --max-error (default 0.05, relative to |eps|), 1 when the fit is worse, 2 on bad input.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "yee/core/Error.hpp"
#include "yee/scene/PoleFit.hpp"

namespace {
void usage() {
    std::fprintf(stderr, "usage: yee-fit DATA.csv [--lorentz N] [--drude] [--band LO_UM HI_UM] [--name NAME] "
                         "[--max-error E]\n");
}
double num(const char* s, const char* what) {
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    if (!end || *end)
        throw yee::InputError(std::string(what) + ": not a number: " + s);
    return v;
}
} // namespace

int main(int argc, char** argv) {
    using namespace yee::scene;
    try {
        std::string csv, name = "fitted";
        PoleFitOptions o;
        double maxError = 0.05;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            auto next = [&](const char* what) {
                if (i + 1 >= argc)
                    throw yee::InputError(std::string(what) + ": missing value");
                return argv[++i];
            };
            if (a == "--lorentz")
                o.lorentz = int(num(next("--lorentz"), "--lorentz"));
            else if (a == "--drude")
                o.drude = true;
            else if (a == "--band") {
                o.bandLoUm = num(next("--band"), "--band");
                o.bandHiUm = num(next("--band"), "--band");
            } else if (a == "--name")
                name = next("--name");
            else if (a == "--max-error")
                maxError = num(next("--max-error"), "--max-error");
            else if (a == "-h" || a == "--help") {
                usage();
                return 0;
            } else if (csv.empty() && a.rfind("--", 0) != 0)
                csv = a;
            else
                throw yee::InputError("unknown argument " + a);
        }
        if (csv.empty()) {
            usage();
            return 2;
        }
        const PoleFitResult r = fitPoles(loadNkCsv(csv), o);
        std::printf("{\"%s\": {\"eps\": %.10g, \"poles\": [", name.c_str(), r.material.eps);
        for (std::size_t p = 0; p < r.material.poles.size(); ++p) {
            const Pole& q = r.material.poles[p];
            if (q.type == PoleType::Drude)
                std::printf("%s\n  {\"type\": \"drude\", \"omega_p_eV\": %.10g, \"gamma_eV\": %.10g}",
                            p ? "," : "", q.omegaEv, q.gammaEv);
            else
                std::printf("%s\n  {\"type\": \"lorentz\", \"delta_eps\": %.10g, \"omega_0_eV\": %.10g, "
                            "\"gamma_eV\": %.10g}",
                            p ? "," : "", q.deltaEps, q.omegaEv, q.gammaEv);
        }
        std::printf("]}}\n");
        std::fprintf(stderr, "yee-fit: %d samples, max |eps error| / |eps| = %.3e, rms %.3e\n", r.samples,
                     r.maxRelError, r.rmsRelError);
        if (r.maxRelError > maxError) {
            std::fprintf(stderr, "yee-fit: the fit error exceeds --max-error %.3g\n", maxError);
            return 1;
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "yee-fit: %s\n", e.what());
        return 2;
    }
}
