/// yee-mode-bench: the cost of waveguide modes, measured in one run.
///
///   yee-mode-bench [--steps N] [--solver-only] [--real-pml-300]
///
/// 1. Mode solver time and peak memory on 100 x 100 and 300 x 300 cell cross-sections of 2 x 2 um (a
///    500 x 220 nm silicon wire in silica at 1.55 um, two modes), with PEC edges and with an 8-cell PML
///    outside them. PML-edged solves use ARPACK's complex Arnoldi; at 100 x 100 also the real 2n x 2n
///    route without ARPACK (Spectra), for comparison in the same run (at 300 x 300 too with
///    --real-pml-300: minutes). Peak memory is the process's resident high-water mark after the solve
///    (Linux VmHWM, so it only grows down the table). --solver-only stops after this table.
/// 2. Throughput of a 200 x 100 x 100 cell silicon-strip scene with one mode source and two mode
///    monitors (three wavelengths each) against the same scene with a uniform plane source and no
///    monitors: the forward sweep's cell updates per second, the time-loop overhead, and the one-off
///    planning cost (mode solves) per run. N steps each (default 200).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "yee/core/Error.hpp"
#include "yee/modes/ModeSolver.hpp"
#include "yee/run/Run.hpp"
#include "yee/scene/Rasterizer.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;
using Clock = std::chrono::steady_clock;

namespace {

double peakMiB() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stod(line.substr(6)) / 1024.0;
    return 0;
}

/// A silicon strip along x in silica; `ports`: a mode source and two mode monitors, else a uniform plane
/// source and no detectors.
std::string strip(int nx, int ny, int nz, bool ports, bool pmlBoundaries = true, double cell = 0.05) {
    const double lx = nx * cell, ly = ny * cell, lz = nz * cell;
    char buf[4096];
    const std::string src0 =
        ports
            ? R"({"name": "port1", "type": "mode", "center_um": [XS, 0, 0], "size_um": [0, 2.0, 1.5],
                  "direction": "+x", "port_pml_cells": 8,
                  "profile": {"type": "gaussian_pulse", "wavelength_um": 1.55, "bandwidth_um": 0.3}})"
            : R"({"name": "plane", "type": "uniform_plane", "center_um": [XS, 0, 0], "size_um": [0, 2.0, 1.5],
                  "direction": "+x", "polarization": "y",
                  "profile": {"type": "gaussian_pulse", "wavelength_um": 1.55, "bandwidth_um": 0.3}})";
    const std::string src = pmlBoundaries ? src0 : std::string();
    const std::string dets =
        ports ? R"({"name": "in", "type": "mode_monitor", "center_um": [XI, 0, 0], "size_um": [0, 2.0, 1.5],
                  "direction": "+x", "wavelengths_um": [1.5, 1.55, 1.6], "port_pml_cells": 8},
                 {"name": "out", "type": "mode_monitor", "center_um": [XO, 0, 0], "size_um": [0, 2.0, 1.5],
                  "direction": "+x", "wavelengths_um": [1.5, 1.55, 1.6], "port_pml_cells": 8})"
              : "";
    std::snprintf(buf, sizeof buf, R"({"format": "yee-scene", "version": 1, "name": "mode bench",
      "grid": {"cell_um": %g, "courant": 0.99}, "domain": {"center_um": [0, 0, 0], "size_um": [%g, %g, %g]},
      "time": {"duration_fs": 1000},
      "boundaries": {"x": {BC}, "y": {BC}, "z": {BC}},
      "materials": {"si": {"eps": 12.11}, "sio2": {"eps": 2.085}}, "background": "sio2",
      "objects": [{"name": "strip", "shape": "box", "center_um": [0, 0, 0], "size_um": [%g, 0.5, 0.22], "material": "si"}],
      "sources": [%s], "detectors": [%s]})",
                  cell, lx, ly, lz, lx + 1, src.c_str(), dets.c_str());
    std::string s = buf;
    auto put = [&](const char* key, double v) {
        for (std::size_t p; (p = s.find(key)) != std::string::npos;)
            s.replace(p, 2, std::to_string(v));
    };
    for (std::size_t p; (p = s.find("BC")) != std::string::npos;)
        s.replace(p, 2, pmlBoundaries ? R"("type": "pml", "cells": 8)" : R"("type": "pec")");
    put("XS", -lx / 2 + 1.0);
    put("XI", -lx / 2 + 1.3);
    put("XO", lx / 2 - 1.0);
    return s;
}

} // namespace

int main(int argc, char** argv) {
    int steps = 200;
    bool realPml300 = false, solverOnly = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--steps" && i + 1 < argc)
            steps = std::max(10, std::atoi(argv[++i]));
        else if (a == "--real-pml-300")
            realPml300 = true;
        else if (a == "--solver-only")
            solverOnly = true;
        else {
            std::printf("usage: yee-mode-bench [--steps N] [--solver-only] [--real-pml-300]\n");
            return a == "-h" || a == "--help" ? 0 : 2;
        }
    }
    try {
        std::printf("mode solver (silicon wire, 2 modes):\n%10s %6s %-14s %10s %10s %12s %10s\n", "cells",
                    "edges", "eigensolver", "unknowns", "seconds", "peak MiB", "n_eff 0");
        struct Case {
            int n, pml;
            bool realEquivalent;
        };
        std::vector<Case> cases{
            {100, 0, false}, {100, 8, false}, {100, 8, true}, {300, 0, false}, {300, 8, false}};
        if (!modes::arpackAvailable())
            cases = {{100, 0, false}, {100, 8, true}, {300, 0, false}, {300, 8, true}};
        else if (realPml300)
            cases.push_back({300, 8, true});
        for (const auto& [n, pml, realEquivalent] : cases) {
            const scene::Scene s = scene::parseScene(strip(4, n, n, false, false, 2.0 / n));
            const scene::Rasterizer r(s);
            modes::ModeRequest q;
            q.normal = 0;
            q.plane = 2;
            q.hi = {n, n};
            q.omega = 2 * 3.141592653589793 * s.cellUm / 1.55;
            q.dt = s.dt();
            q.count = 2;
            q.pml = pml;
            q.realEquivalent = realEquivalent;
            const modes::ModeSet ms = modes::solveModes(r, q, "bench");
            const char* how = pml == 0 ? "Spectra real" : realEquivalent ? "Spectra 2n" : "ARPACK complex";
            std::printf("%6d x %-3d %6s %-14s %10lld %10.2f %12.0f %10.7f\n", n, n, pml ? "PML 8" : "PEC",
                        how, (long long)ms.unknowns, ms.seconds, peakMiB(), ms.modes[0].neff);
            std::fflush(stdout);
        }
        if (solverOnly)
            return 0;
        std::printf("\nthroughput, 200 x 100 x 100 cells, %d steps:\n%34s %12s %10s %10s\n", steps, "",
                    "Mcell/s", "loop s", "total s");
        double base = 0;
        for (const bool ports : {false, true}) {
            const scene::Scene s = scene::parseScene(strip(200, 100, 100, ports));
            run::RunOptions o = run::RunOptions::fromScene(s);
            o.maxSteps = steps;
            const auto t0 = Clock::now();
            const run::RunResult r = run::run(s, o);
            const double total = std::chrono::duration<double>(Clock::now() - t0).count();
            const double rate = double(r.cellUpdates) / r.forwardSeconds / 1e6;
            std::printf("%34s %12.2f %10.2f %10.2f",
                        ports ? "1 mode source + 2 mode monitors" : "plane source, no detectors", rate,
                        r.forwardSeconds, total);
            if (ports)
                std::printf("   time-loop overhead %+.1f %%, planning (mode solves) %.2f s",
                            100 * (base / rate - 1), total - r.forwardSeconds);
            else
                base = rate;
            std::printf("\n");
            std::fflush(stdout);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "yee-mode-bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
