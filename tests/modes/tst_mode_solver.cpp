/// The waveguide mode solver against analytic results: the TE/TM modes of a PEC rectangular guide from
/// the grid's own dispersion relation (exact), the TE modes of a dielectric slab from the slab's
/// transcendental equation (converging with resolution), and the orthogonality of the solved modes.
#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "physics/SceneBuilder.hpp"
#include "yee/modes/ModeSolver.hpp"
#include "yee/scene/Rasterizer.hpp"

using namespace yee;

namespace {

/// n_eff of the symmetric slab's TE mode m (0: even, 1: odd), half-width h, by bisection on kappa.
double slabTe(double n1, double n2, double h, double k0, int m) {
    const double v = k0 * h * std::sqrt(n1 * n1 - n2 * n2);
    // f(x) with x = kappa h in (m pi / 2, (m + 1) pi / 2): even x tan x - sqrt(v^2 - x^2), odd -x cot x - ...
    auto f = [&](double x) {
        const double g = std::sqrt(std::max(0.0, v * v - x * x));
        return m % 2 == 0 ? x * std::tan(x) - g : -x / std::tan(x) - g;
    };
    double lo = m * M_PI / 2 + 1e-12, hi = std::min(v, (m + 1) * M_PI / 2 - 1e-12);
    for (int it = 0; it < 200; ++it) {
        const double mid = 0.5 * (lo + hi);
        (f(lo) * f(mid) <= 0 ? hi : lo) = mid;
    }
    const double kappa = 0.5 * (lo + hi) / h;
    return std::sqrt(n1 * n1 - kappa * kappa / (k0 * k0));
}

/// Peak resident memory of this process, MiB (Linux; 0 elsewhere).
double peakMiB() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stod(line.substr(6)) / 1024.0;
    return 0;
}

/// The TE0 and TM0 modes of a 500 x 220 nm silicon wire in silica at 1.55 um on an n x n cross-section.
modes::ModeSet siliconWire(int n) {
    const double cell = 2.0 / n;
    scene::Scene s = testing::boxScene(4, n, n, cell, scene::BoundaryType::Pec, scene::BoundaryType::Pec,
                                       scene::BoundaryType::Pec);
    s.materials.push_back(testing::material("si", 3.48 * 3.48));
    s.materials.push_back(testing::material("sio2", 1.444 * 1.444));
    s.background = "sio2";
    scene::Object wire;
    wire.shape = scene::Shape::Box;
    wire.size = {10, 0.5, 0.22};
    wire.material = "si";
    s.objects.push_back(wire);
    const scene::Rasterizer r(s);
    modes::ModeRequest q;
    q.normal = 0;
    q.plane = 2;
    q.hi = {n, n};
    q.omega = 2 * M_PI * cell / 1.55;
    q.dt = s.dt();
    q.count = 2;
    return modes::solveModes(r, q, "bench");
}

} // namespace

class TestModeSolver : public QObject {
    Q_OBJECT
private slots:
    /// A PEC-bounded homogeneous guide: every mode's K^2 = W^2 eps - 4 sin^2(m pi / 2 nu) - 4 sin^2(n pi /
    /// 2 nw), the grid's exact dispersion relation (W = 2 sin(omega dt / 2) / dt).
    void pecRectangularGuide() {
        const double cell = 0.05, eps = 2.25, wl = 1.0;
        scene::Scene s = testing::boxScene(6, 24, 12, cell, scene::BoundaryType::Pec,
                                           scene::BoundaryType::Pec, scene::BoundaryType::Pec);
        s.materials.push_back(testing::material("glass", eps));
        s.background = "glass";
        const scene::Rasterizer r(s);
        modes::ModeRequest q;
        q.normal = 0;
        q.plane = 3;
        q.lo = {0, 0};
        q.hi = {24, 12};
        q.omega = 2 * M_PI * cell / wl;
        q.dt = s.dt();
        q.count = 3;
        const modes::ModeSet ms = modes::solveModes(r, q, "test");
        const double W = 2 * std::sin(q.omega * q.dt / 2) / q.dt;
        auto k2 = [&](int m, int n) {
            return W * W * eps - std::pow(2 * std::sin(m * M_PI / 48), 2) -
                   std::pow(2 * std::sin(n * M_PI / 24), 2);
        };
        QCOMPARE(int(ms.modes.size()), 3);
        const double te10 = k2(1, 0), te20 = k2(2, 0);
        qInfo("TE10: K^2 %.15g (analytic %.15g), n_eff %.12f", ms.modes[0].kappa * ms.modes[0].kappa, te10,
              ms.modes[0].neff);
        QVERIFY(std::fabs(ms.modes[0].kappa * ms.modes[0].kappa - te10) < 1e-11);
        // TE20 and TE01 are degenerate (24 = 2 x 12).
        for (int m : {1, 2})
            QVERIFY2(
                std::fabs(ms.modes[std::size_t(m)].kappa * ms.modes[std::size_t(m)].kappa - te20) < 1e-11,
                qPrintable(QString::number(ms.modes[std::size_t(m)].kappa * ms.modes[std::size_t(m)].kappa,
                                           'g', 15)));
        // n_eff from K: beta = 2 asin(K / 2).
        QVERIFY(std::fabs(ms.modes[0].neff - 2 * std::asin(std::sqrt(te10) / 2) / q.omega) < 1e-12);
        // TE10 of a guide wide along y: E along z only, varying as sin(pi y / a).
        const modes::Mode& m0 = ms.modes[0];
        double ey = 0, ez = 0;
        for (int iu = 0; iu <= 24; ++iu)
            for (int iw = 0; iw <= 12; ++iw) {
                ey += std::fabs(m0.at(1, iu, iw));
                ez += std::fabs(m0.at(2, iu, iw));
            }
        QVERIFY(ey < 1e-9 * ez);
        const double mid = m0.at(2, 12, 6), quarter = m0.at(2, 6, 6);
        QVERIFY(std::fabs(quarter / mid - std::sin(M_PI / 4)) < 1e-9);
        // Unit power, and orthogonality (unconjugated overlap) of distinct modes.
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                const double o = modes::overlap(ms.modes[std::size_t(i)], ms.modes[std::size_t(j)], 0);
                if (i == j)
                    QVERIFY(std::fabs(o - 1) < 1e-10);
                else if (!(i > 0 && j > 0)) // the degenerate pair may mix
                    QVERIFY2(std::fabs(o) < 1e-8, qPrintable(QString::number(o)));
            }
    }

    /// A wide dielectric slab (uniform along z, PEC walls far away): the TE0 and TE1 modes converge to the
    /// slab's transcendental equation as the cell shrinks.
    void slabAgainstTranscendental() {
        const double n1 = 2.0, n2 = 1.45, thick = 0.6, wl = 1.0;
        const double k0 = 2 * M_PI / wl;
        const double ref[2] = {slabTe(n1, n2, thick / 2, k0, 0), slabTe(n1, n2, thick / 2, k0, 1)};
        double prevErr[2] = {1, 1};
        std::vector<double> errs0;
        std::vector<std::array<double, 2>> neffs;
        for (double cell : {0.04, 0.02, 0.01}) {
            const int ny = int(std::lround(4.0 / cell)), nz = 4;
            scene::Scene s = testing::boxScene(4, ny, nz, cell, scene::BoundaryType::Pec,
                                               scene::BoundaryType::Pec, scene::BoundaryType::Pec);
            s.materials.push_back(testing::material("core", n1 * n1));
            s.materials.push_back(testing::material("cladding", n2 * n2));
            s.background = "cladding";
            scene::Object slab;
            slab.shape = scene::Shape::Box;
            slab.center = {0, 0.013, 0}; // off the grid, so subpixel averaging matters
            slab.size = {10, thick, 10};
            slab.material = "core";
            s.objects.push_back(slab);
            const scene::Rasterizer r(s);
            modes::ModeRequest q;
            q.normal = 0;
            q.plane = 2;
            q.lo = {0, 0};
            q.hi = {ny, nz};
            q.omega = 2 * M_PI * cell / wl;
            q.dt = s.dt();
            q.count = 2;
            const modes::ModeSet ms = modes::solveModes(r, q, "test");
            for (int m = 0; m < 2; ++m) {
                const double err = std::fabs(ms.modes[std::size_t(m)].neff - ref[m]);
                qInfo("cell %.3f um: TE%d n_eff %.8f (analytic %.8f), error %.2e; %lld unknowns, %.3f s",
                      cell, m, ms.modes[std::size_t(m)].neff, ref[m], err, (long long)ms.unknowns,
                      ms.seconds);
                QVERIFY(err < prevErr[m]);
                prevErr[m] = err;
                if (m == 0)
                    errs0.push_back(err);
            }
            QVERIFY(std::fabs(modes::overlap(ms.modes[0], ms.modes[1], 0)) < 1e-8);
            neffs.push_back({ms.modes[0].neff, ms.modes[1].neff});
        }
        // Second order in the cell size; the Richardson extrapolation of the two finest grids meets the
        // continuum slab.
        const double o1 = std::log2(errs0[0] / errs0[1]), o2 = std::log2(errs0[1] / errs0[2]);
        qInfo("TE0 convergence order %.2f, %.2f", o1, o2);
        QVERIFY(o1 > 1.8 && o1 < 2.2 && o2 > 1.8 && o2 < 2.2);
        for (int m = 0; m < 2; ++m) {
            const double rich = (4 * neffs[2][std::size_t(m)] - neffs[1][std::size_t(m)]) / 3;
            qInfo("TE%d Richardson n_eff %.8f (analytic %.8f), error %.2e", m, rich, ref[m],
                  std::fabs(rich - ref[m]));
            QVERIFY(std::fabs(rich - ref[m]) < 1e-4);
        }
    }

    /// A strip whose tail reaches the port's edge: PEC edges pull n_eff well away from the open guide's
    /// (a 4 x 4 um PEC window, the reference), a PML outside the port's edges recovers it, converging as
    /// the layer thickens; the PML-edged mode is real to rounding (guided, no leakage).
    void pmlEdges() {
        const double cell = 0.04, wl = 1.0;
        scene::Scene s = testing::boxScene(4, 100, 100, cell, scene::BoundaryType::Pec,
                                           scene::BoundaryType::Pec, scene::BoundaryType::Pec);
        s.materials.push_back(testing::material("core", 4.0));
        s.materials.push_back(testing::material("clad", 2.1025));
        s.background = "clad";
        scene::Object strip;
        strip.shape = scene::Shape::Box;
        strip.size = {10, 0.6, 0.4};
        strip.material = "core";
        s.objects.push_back(strip);
        const scene::Rasterizer r(s);
        modes::ModeRequest q;
        q.normal = 0;
        q.plane = 2;
        q.omega = 2 * M_PI * cell / wl;
        q.dt = s.dt();
        q.count = 1;
        q.lo = {0, 0};
        q.hi = {100, 100};
        const double ref = modes::solveModes(r, q, "ref").modes[0].neff;
        // The port: y in [-0.48, 0.8] um, z in [-0.6, 0.6] um; the strip's edge 0.18 um from the low y edge.
        q.lo = {38, 35};
        q.hi = {70, 65};
        const modes::ModeSet pec = modes::solveModes(r, q, "pec");
        const double ePec = std::fabs(pec.modes[0].neff - ref);
        qInfo("open guide n_eff %.7f; PEC port edges %.7f (error %.2e)", ref, pec.modes[0].neff, ePec);
        QVERIFY(ePec > 1e-3);
        double prev = ePec;
        for (int cells : {4, 8, 16}) {
            q.pml = cells;
            const modes::ModeSet ms = modes::solveModes(r, q, "pml");
            const modes::Mode& m = ms.modes[0];
            const double e = std::fabs(m.neff - ref);
            qInfo(
                "PML %2d cells: n_eff %.7f (error %.2e), Im n_eff %.1e, imaginary part %.1e; %lld unknowns, "
                "%.2f s",
                cells, m.neff, e, m.neffImag, m.imagFraction, (long long)ms.unknowns, ms.seconds);
            QVERIFY(e < prev);
            prev = e;
            QVERIFY(std::fabs(m.neffImag) < 1e-3);
            QVERIFY(m.imagFraction < 1e-3);
            QCOMPARE(m.nu, 32);
            QCOMPARE(m.nw, 30);
            QVERIFY(std::fabs(modes::overlap(m, m, 0) - 1) < 1e-12); // unit power over the port
        }
        QVERIFY(prev < 1e-4);
        QVERIFY(prev < ePec / 100);

        // ARPACK's complex Arnoldi and the real 2n equivalent (Spectra) find the same mode; ARPACK's
        // solves are deterministic whatever ran before them (a fixed start vector).
        if (!modes::arpackAvailable())
            QSKIP("this build has no ARPACK");
        q.pml = 8;
        const modes::ModeSet a1 = modes::solveModes(r, q, "pml");
        q.realEquivalent = true;
        const modes::ModeSet re = modes::solveModes(r, q, "pml");
        q.realEquivalent = false;
        const modes::ModeSet a2 = modes::solveModes(r, q, "pml");
        qInfo("PML 8 cells: ARPACK %.2f s, real 2n equivalent %.2f s; n_eff %.12f vs %.12f", a1.seconds,
              re.seconds, a1.modes[0].neff, re.modes[0].neff);
        QVERIFY(std::fabs(a1.modes[0].neff - re.modes[0].neff) < 1e-10);
        QVERIFY(std::fabs(std::fabs(modes::overlap(a1.modes[0], re.modes[0], 0)) - 1) < 1e-8);
        QCOMPARE(std::memcmp(&a1.modes[0].neff, &a2.modes[0].neff, sizeof(double)), 0);
        for (int c = 0; c < 6; ++c)
            QVERIFY(a1.modes[0].field[std::size_t(c)] == a2.modes[0].field[std::size_t(c)]);
    }

    /// Group index of a PEC-bounded homogeneous guide against the grid's exact dispersion relation
    /// K^2 = W^2 eps - k_t^2 (K = 2 sin(beta / 2), W = 2 sin(omega dt / 2) / dt):
    /// n_g = d beta / d omega = W eps cos(omega dt / 2) / (K sqrt(1 - K^2 / 4)).
    void groupIndexPecGuide() {
        const double cell = 0.05, eps = 2.25, wl = 1.0;
        scene::Scene s = testing::boxScene(6, 24, 12, cell, scene::BoundaryType::Pec,
                                           scene::BoundaryType::Pec, scene::BoundaryType::Pec);
        s.materials.push_back(testing::material("glass", eps));
        s.background = "glass";
        const scene::Rasterizer r(s);
        modes::ModeRequest q;
        q.normal = 0;
        q.plane = 3;
        q.hi = {24, 12};
        q.omega = 2 * M_PI * cell / wl;
        q.dt = s.dt();
        q.count = 1;
        QCOMPARE(modes::solveModes(r, q, "test").modes[0].ng, 0.0); // not asked for
        q.groupIndex = true;
        const modes::Mode m = modes::solveModes(r, q, "test").modes[0];
        const double W = 2 * std::sin(q.omega * q.dt / 2) / q.dt;
        const double K2 = W * W * eps - std::pow(2 * std::sin(M_PI / 48), 2);
        const double ng = W * eps * std::cos(q.omega * q.dt / 2) / (std::sqrt(K2) * std::sqrt(1 - K2 / 4));
        qInfo("TE10 n_g %.10f (grid dispersion %.10f, error %.1e; continuum eps / n_eff %.6f)", m.ng, ng,
              std::fabs(m.ng - ng) / ng, eps / m.neff);
        QVERIFY(std::fabs(m.ng - ng) < 1e-7 * ng);
    }

    /// Solver time and memory on 100 x 100 cells (and 300 x 300 with YEE_MODE_BENCH=1): a silicon wire's
    /// two guided modes, n_eff between the cladding and the core.
    void crossSectionBenchmark() {
        std::vector<int> sizes{100};
        if (std::getenv("YEE_MODE_BENCH"))
            sizes.push_back(300);
        for (int n : sizes) {
            const modes::ModeSet ms = siliconWire(n);
            qInfo("%d x %d cells: %lld unknowns, %.2f s, peak memory %.0f MiB; n_eff %.5f, %.5f", n, n,
                  (long long)ms.unknowns, ms.seconds, peakMiB(), ms.modes[0].neff, ms.modes[1].neff);
            for (const auto& m : ms.modes)
                QVERIFY(m.neff > 1.444 && m.neff < 3.48);
            QVERIFY(ms.modes[0].neff > 2.2 && ms.modes[0].neff < 2.6); // TE0 of the 500 x 220 nm wire: ~2.44
        }
    }
};

QTEST_APPLESS_MAIN(TestModeSolver)
#include "tst_mode_solver.moc"
