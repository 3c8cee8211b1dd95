#include "yee/io/Touchstone.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <sstream>

#include "yee/files/AtomicFile.hpp"

namespace yee::io {

namespace {
constexpr double kSpeedOfLight = 299792458.0; // m/s
} // namespace

std::string touchstoneText(const run::SParameters& sp, const std::string& sceneName) {
    const std::size_t N = sp.ports.size(), L = sp.wavelengthsUm.size();
    std::ostringstream head;
    head << "! yee-run S-parameters of scene \"" << sceneName << "\"\n! ports:";
    for (std::size_t i = 0; i < N; ++i)
        head << ' ' << i + 1 << '=' << sp.ports[i];
    head << "\n! excited port " << sp.excited + 1 << " (" << sp.ports[std::size_t(sp.excited)]
         << "): only column S_i" << sp.excited + 1
         << " is measured by this run, the other entries are written as 0\n"
         << "! first mode of each port, power-wave amplitudes, phase at the monitor planes\n"
         << "# HZ S RI R 50\n";
    std::string out = head.str();
    std::vector<std::size_t> order(L);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return sp.wavelengthsUm[a] > sp.wavelengthsUm[b]; });
    char buf[64];
    for (const std::size_t w : order) {
        std::snprintf(buf, sizeof buf, "%.12e", kSpeedOfLight / (sp.wavelengthsUm[w] * 1e-6));
        std::string line = buf;
        int onLine = 0;
        auto entry = [&](std::size_t row, std::size_t col) {
            const std::complex<double> v =
                col == std::size_t(sp.excited) ? sp.at(w, row) : std::complex<double>(0, 0);
            if (onLine == 4) {
                out += line + "\n";
                line.clear();
                onLine = 0;
            }
            std::snprintf(buf, sizeof buf, " %.12e %.12e", v.real(), v.imag());
            line += buf;
            ++onLine;
        };
        if (N == 2) { // the two-port order: S11 S21 S12 S22
            entry(0, 0);
            entry(1, 0);
            entry(0, 1);
            entry(1, 1);
        } else {
            for (std::size_t r = 0; r < N; ++r) {
                for (std::size_t c = 0; c < N; ++c)
                    entry(r, c);
                if (r + 1 < N && N > 2) { // every row starts a new line
                    out += line + "\n";
                    line.clear();
                    onLine = 0;
                }
            }
        }
        out += line + "\n";
    }
    return out;
}

std::string touchstonePath(const std::string& resultsPath, std::size_t ports) {
    std::filesystem::path p(resultsPath);
    p.replace_extension(".s" + std::to_string(ports) + "p");
    return p.string();
}

void writeTouchstone(const std::string& path, const run::SParameters& sp, const std::string& sceneName) {
    files::writeTextAtomically(path, touchstoneText(sp, sceneName));
}

} // namespace yee::io
