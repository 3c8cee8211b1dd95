/// Physics verification of the forward solver against analytic results. Each test asserts numbers:
/// Yee numerical dispersion, CPML reflection against a large-domain reference, PEC cavity resonance,
/// Fresnel reflectance, dipole power through closed flux boxes, energy conservation.
#include <QtTest>

#include <cmath>
#include <complex>
#include <numbers>

#include "physics/SceneBuilder.hpp"
#include "yee/run/Run.hpp"

using namespace yee;
using namespace yee::testing;
using scene::BoundaryType;
using scene::DetectorType;
using scene::SourceType;

namespace {

const solver::NamedArray& arrayOf(const run::RunResult& r, const std::string& det, const std::string& name) {
    for (const auto& d : r.detectors)
        if (d.name == det)
            if (const auto* a = d.find(name))
                return *a;
    throw std::runtime_error("missing " + det + "/" + name);
}

run::RunResult runScene(const scene::Scene& s, run::Precision p = run::Precision::Float64,
                        int maxSteps = -1) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = p;
    o.maxSteps = maxSteps;
    run::RunResult r = run::run(s, o);
    if (!r.completed)
        throw std::runtime_error("run did not complete: " + r.status);
    return r;
}

/// Frequency (cycles per unit time) of the dominant tone of x(t) near f0, by maximising the magnitude of a
/// Hann-windowed DFT (golden-section search). Accurate to far below one DFT bin for a clean tone.
double peakFrequency(const std::vector<double>& x, double dt, double fLo, double fHi) {
    const std::size_t n = x.size();
    auto mag = [&](double f) {
        std::complex<double> acc = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double w = 0.5 - 0.5 * std::cos(2 * std::numbers::pi * double(i) / double(n - 1));
            acc += w * x[i] * std::polar(1.0, -2 * std::numbers::pi * f * double(i) * dt);
        }
        return std::abs(acc);
    };
    // Coarse scan, then golden section around the best sample.
    double best = fLo, bestM = -1;
    for (int q = 0; q <= 400; ++q) {
        const double f = fLo + (fHi - fLo) * q / 400.0;
        const double m = mag(f);
        if (m > bestM) {
            bestM = m;
            best = f;
        }
    }
    double a = best - (fHi - fLo) / 400.0, b = best + (fHi - fLo) / 400.0;
    const double g = (std::sqrt(5.0) - 1) / 2;
    double c = b - g * (b - a), d = a + g * (b - a);
    for (int it = 0; it < 100; ++it) {
        if (mag(c) > mag(d))
            b = d;
        else
            a = c;
        c = b - g * (b - a);
        d = a + g * (b - a);
    }
    return 0.5 * (a + b);
}

} // namespace

class tst_Physics : public QObject {
    Q_OBJECT
private slots:
    void planeWaveDispersion();
    void cpmlReflection_data();
    void cpmlReflection();
    void pecCavityResonance();
    void fresnelReflectance();
    void dipoleFluxBoxes();
    void fluxBoxEqualsSixPlanes();
    void energyConservation_data();
    void energyConservation();
};

/// A plane wave along x on the Yee grid travels with the discrete wavenumber
/// sin(w dt / 2) / dt = sin(k dx / 2) / dx (c = 1), not the continuum k = w.
void tst_Physics::planeWaveDispersion() {
    const double cell = 0.05, wl = 1.0;
    scene::Scene s =
        boxScene(240, 2, 2, cell, BoundaryType::Pml, BoundaryType::Periodic, BoundaryType::Periodic, 20);
    s.sources.push_back(
        planeSource("src", SourceType::UniformPlane, {-3, 0, 0}, {0, 0.1, 0.1}, 0, +1, {0, 1, 0}, wl, 0.3));
    scene::Detector d = detector("line", DetectorType::Phasor, {0, 0, 0}, {4.0, 0, 0});
    d.components = {"Ey"};
    d.wavelengths = {wl};
    s.detectors.push_back(d);
    s.durationFs = 160;
    const run::RunResult r = runScene(s);
    const auto& re = arrayOf(r, "line", "Ey_re");
    const auto& im = arrayOf(r, "line", "Ey_im");
    const std::size_t n = re.data.size();
    QVERIFY(n >= 70);
    // Unwrap the phase along the line and fit its slope by least squares.
    std::vector<double> ph(n);
    for (std::size_t i = 0; i < n; ++i)
        ph[i] = std::arg(std::complex<double>(re.data[i], im.data[i]));
    for (std::size_t i = 1; i < n; ++i) {
        while (ph[i] - ph[i - 1] > std::numbers::pi)
            ph[i] -= 2 * std::numbers::pi;
        while (ph[i] - ph[i - 1] < -std::numbers::pi)
            ph[i] += 2 * std::numbers::pi;
    }
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sx += double(i);
        sy += ph[i];
        sxx += double(i) * double(i);
        sxy += double(i) * ph[i];
    }
    const double slope = (double(n) * sxy - sx * sy) / (double(n) * sxx - sx * sx);
    const double kMeas = std::abs(slope); // radians per cell
    const double w = 2 * std::numbers::pi * cell / wl, dt = r.dt;
    const double kYee = 2 * std::asin(std::sin(w * dt / 2) / dt);
    const double kCont = w;
    qInfo("k measured %.8f  Yee %.8f  continuum %.8f (per cell)", kMeas, kYee, kCont);
    QVERIFY2(std::abs(kMeas - kYee) / kYee < 2e-4, "phase velocity differs from the Yee dispersion relation");
    QVERIFY(std::abs(kMeas - kYee) < 0.1 * std::abs(kCont - kYee)); // the test resolves the Yee dispersion
}

/// CPML reflection: a line source in a thin periodic-z slab radiates cylindrical waves; the probe signal
/// near the PML is compared with the same local geometry in a domain so large that its boundary echo
/// arrives after the window closes.
void tst_Physics::cpmlReflection_data() {
    QTest::addColumn<double>("angleDeg");
    QTest::newRow("normal") << 0.0;
    QTest::newRow("30deg") << 30.0;
}

void tst_Physics::cpmlReflection() {
    QFETCH(double, angleDeg);
    const double cell = 0.05, wl = 1.0;
    // Probe 5 cells inside the PML interface; lateral offset chosen so the specular path hits the +x
    // wall at the requested angle: tan(theta) = dy / ((wall - src) + (wall - probe)).
    auto run = [&](int n) {
        scene::Scene s =
            boxScene(n, n, 2, cell, BoundaryType::Pml, BoundaryType::Pml, BoundaryType::Periodic, 10);
        s.sources.push_back(dipole("a", {0, 0, -0.025}, {0, 0, 1}, wl, 0.5));
        s.sources.push_back(dipole("b", {0, 0, 0.025}, {0, 0, 1}, wl, 0.5));
        const double toWall = (80 / 2 - 10) * cell; // small domain: 80 cells, interface 30 cells from centre
        const double px = toWall - 5 * cell;
        const double py = std::tan(angleDeg * std::numbers::pi / 180) * (toWall + (toWall - px));
        scene::Detector p = detector("p", DetectorType::Probe, {px, py, 0}, {0, 0, 0});
        p.components = {"Ez"};
        s.detectors.push_back(p);
        s.durationFs = 420 * s.dtFs();
        return runScene(s, run::Precision::Float64);
    };
    const run::RunResult small = run(80), big = run(320);
    const auto& a = arrayOf(small, "p", "Ez").data;
    const auto& b = arrayOf(big, "p", "Ez").data;
    QCOMPARE(a.size(), b.size());
    double err = 0, ref = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        err = std::max(err, std::abs(a[i] - b[i]));
        ref = std::max(ref, std::abs(b[i]));
    }
    QVERIFY(ref > 0);
    const double db = 20 * std::log10(err / ref);
    qInfo("CPML reflection at %.0f deg: %.1f dB", angleDeg, db);
    QVERIFY2(db < -40, qPrintable(QString("reflection %1 dB").arg(db)));
}

/// TE101 resonance of a PEC box a x b x d: f = (c/2) sqrt(1/a^2 + 1/d^2); on the Yee grid the discrete
/// eigenfrequency solves sin^2(w dt/2)/dt^2 = sum sin^2(k_i dx/2)/dx^2.
void tst_Physics::pecCavityResonance() {
    const double cell = 0.05;
    const int nx = 20, ny = 10, nz = 30;
    scene::Scene s = boxScene(nx, ny, nz, cell, BoundaryType::Pec, BoundaryType::Pec, BoundaryType::Pec);
    const double a = nx * cell, d = nz * cell;
    const double fAnalytic = 0.5 * std::sqrt(1 / (a * a) + 1 / (d * d)); // cycles per um of c t
    const double wl0 = 1 / fAnalytic;
    s.sources.push_back(dipole("src", {0.1, 0.05, 0.12}, {0, 1, 0}, wl0, 0.4));
    scene::Detector p = detector("p", DetectorType::Probe, {-0.2, 0.0, 0.3}, {0, 0, 0});
    p.components = {"Ey"};
    s.detectors.push_back(p);
    s.durationFs = 6000 * s.dtFs();
    const run::RunResult r = runScene(s);
    const auto& ey = arrayOf(r, "p", "Ey").data;
    // Skip the source's active time (pulse centre 5 sigma; use 12 sigma).
    const double dt = r.dt; // normalised: time unit = one cell / c
    const double w0 = 2 * std::numbers::pi * cell / wl0;
    const double df = cell * 0.4 / (wl0 * wl0);
    const double tau = 2 * std::sqrt(2 * std::log(2.0)) / (2 * std::numbers::pi * df);
    const std::size_t skip = std::size_t(12 * tau / dt);
    QVERIFY(skip + 2000 < ey.size());
    std::vector<double> tail(ey.begin() + long(skip), ey.end());
    const double f0 = w0 / (2 * std::numbers::pi); // cycles per normalised time
    const double fMeas = peakFrequency(tail, dt, 0.8 * f0, 1.2 * f0);
    const double kx = std::numbers::pi / nx, kz = std::numbers::pi / nz;
    const double rhs = std::sin(kx / 2) * std::sin(kx / 2) + std::sin(kz / 2) * std::sin(kz / 2);
    const double wYee = 2 / dt * std::asin(dt * std::sqrt(rhs));
    const double fYee = wYee / (2 * std::numbers::pi);
    const double fCont = fAnalytic * cell; // cycles per normalised time
    qInfo("TE101: measured %.8f  Yee %.8f  analytic %.8f  (rel. to analytic %.4f %%)", fMeas, fYee, fCont,
          100 * (fMeas - fCont) / fCont);
    QVERIFY2(std::abs(fMeas - fCont) / fCont < 5e-3, "TE101 off the analytic resonance by more than 0.5 %");
    QVERIFY2(std::abs(fMeas - fYee) / fYee < 2e-4, "TE101 off the discrete Yee eigenfrequency");
}

/// Normal-incidence reflectance of a dielectric half-space (n = 2): R = ((1 - n)/(1 + n))^2 = 1/9 and
/// R + T = 1, across a band. The one-sided plane source launches +x only, so a flux plane behind it sees
/// the reflected wave alone; an empty-space run gives the incident power.
void tst_Physics::fresnelReflectance() {
    const double cell = 0.016;
    const std::vector<double> wls = {1.3, 1.45, 1.55, 1.7, 1.8};
    auto make = [&](bool withSlab) {
        scene::Scene s =
            boxScene(1000, 2, 2, cell, BoundaryType::Pml, BoundaryType::Periodic, BoundaryType::Periodic, 40);
        s.materials.push_back(material("glass", 4.0));
        if (withSlab) {
            scene::Object o;
            o.name = "halfspace";
            o.shape = scene::Shape::Box;
            o.center = {5.0, 0, 0};    // interface on the E plane at x = 0
            o.size = {10.0, 1.0, 1.0}; // wider than the periodic cross-section: no edge averaging
            o.material = "glass";
            s.objects.push_back(o);
        }
        const double w = 2 * cell;
        s.sources.push_back(
            planeSource("src", SourceType::UniformPlane, {-4, 0, 0}, {0, w, w}, 0, +1, {0, 1, 0}, 1.55, 0.6));
        s.detectors.push_back(flux("back", {-5.5, 0, 0}, {0, w, w}, 0, -1, wls));
        s.detectors.push_back(flux("fwd", {-3, 0, 0}, {0, w, w}, 0, +1, wls));
        s.detectors.push_back(flux("trans", {3, 0, 0}, {0, w, w}, 0, +1, wls));
        s.durationFs = 130;
        return s;
    };
    const run::RunResult inc = runScene(make(false)), sca = runScene(make(true));
    const auto& pInc = arrayOf(inc, "fwd", "power").data;
    const auto& leak = arrayOf(inc, "back", "power").data;
    const auto& pBack = arrayOf(sca, "back", "power").data;
    const auto& pTrans = arrayOf(sca, "trans", "power").data;
    const double rExact = 1.0 / 9.0;
    for (std::size_t w = 0; w < wls.size(); ++w) {
        const double R = pBack[w] / pInc[w], T = pTrans[w] / pInc[w];
        qInfo("lambda %.2f um: R %.6f (analytic %.6f, %.3f %%)  T %.6f  R+T %.6f  source leak %.2e", wls[w],
              R, rExact, 100 * (R - rExact) / rExact, T, R + T, leak[w] / pInc[w]);
        QVERIFY(pInc[w] > 0);
        QVERIFY2(std::abs(R - rExact) / rExact < 0.01, "Fresnel reflectance off by more than 1 %");
        QVERIFY2(std::abs(R + T - 1) < 2e-3, "R + T != 1");
        QVERIFY2(std::abs(leak[w] / pInc[w]) < 1e-3, "plane source leaks backwards");
    }
}

/// Power radiated by a dipole through two closed flux boxes of different size is the same (lossless
/// medium between them), wavelength by wavelength.
void tst_Physics::dipoleFluxBoxes() {
    const double cell = 0.05;
    const std::vector<double> wls = {1.0, 1.2, 1.5};
    scene::Scene s = boxScene(64, 64, 64, cell, BoundaryType::Pml, BoundaryType::Pml, BoundaryType::Pml, 10);
    s.sources.push_back(dipole("src", {0.0, 0.0, 0.0}, {0, 0, 1}, 1.2, 0.6));
    auto addBox = [&](const std::string& name, double h) {
        for (int a = 0; a < 3; ++a)
            for (int dir : {-1, +1}) {
                scene::Vec3 c{0, 0, 0}, sz{2 * h, 2 * h, 2 * h};
                c[a] = dir * h;
                sz[a] = 0;
                s.detectors.push_back(
                    flux(name + "_" + std::to_string(a) + (dir > 0 ? "+" : "-"), c, sz, a, dir, wls));
            }
    };
    addBox("small", 8 * cell);
    addBox("large", 16 * cell);
    s.durationFs = 700 * s.dtFs();
    const run::RunResult r = runScene(s, run::Precision::Float32);
    for (std::size_t w = 0; w < wls.size(); ++w) {
        double ps = 0, pl = 0;
        for (const auto& d : r.detectors) {
            const double p = d.find("power")->data[w];
            (d.name.rfind("small", 0) == 0 ? ps : pl) += p;
        }
        qInfo("lambda %.2f um: small box %.6e  large box %.6e  (%.3f %%)", wls[w], ps, pl,
              100 * (pl - ps) / ps);
        QVERIFY(ps > 0);
        QVERIFY2(std::abs(pl - ps) / ps < 0.01, "closed-box dipole power differs by more than 1 %");
    }
}

/// A flux_box detector is the closed box of dipoleFluxBoxes() in one detector: its power per wavelength and
/// its flux time series equal the sums over the six flux planes built by hand (float64).
void tst_Physics::fluxBoxEqualsSixPlanes() {
    const double cell = 0.05, h = 6 * cell;
    const std::vector<double> wls = {1.0, 1.2, 1.5};
    scene::Scene s = boxScene(32, 32, 32, cell, BoundaryType::Pml, BoundaryType::Pml, BoundaryType::Pml, 8);
    s.sources.push_back(dipole("src", {0.01, -0.02, 0.0}, {0.2, 0.1, 1}, 1.2, 0.6));
    for (int a = 0; a < 3; ++a)
        for (int dir : {-1, +1}) {
            scene::Vec3 c{0, 0, 0}, sz{2 * h, 2 * h, 2 * h};
            c[a] = dir * h;
            sz[a] = 0;
            s.detectors.push_back(
                flux("plane_" + std::to_string(a) + (dir > 0 ? "+" : "-"), c, sz, a, dir, wls));
        }
    scene::Detector box = detector("box", DetectorType::FluxBox, {0, 0, 0}, {2 * h, 2 * h, 2 * h});
    box.wavelengths = wls;
    s.detectors.push_back(box);
    s.durationFs = 200 * s.dtFs();
    const run::RunResult r = runScene(s, run::Precision::Float64);
    const auto& boxPower = arrayOf(r, "box", "power").data;
    const auto& boxFlux = arrayOf(r, "box", "flux").data;
    QCOMPARE(boxPower.size(), wls.size());
    for (std::size_t w = 0; w < wls.size(); ++w) {
        double sum = 0;
        for (std::size_t d = 0; d < 6; ++d)
            sum += r.detectors[d].find("power")->data[w];
        const double rel = std::abs(boxPower[w] - sum) / std::abs(sum);
        qInfo("lambda %.2f um: flux_box %.15e  six planes %.15e  rel %.2e", wls[w], boxPower[w], sum, rel);
        QVERIFY(sum > 0);
        QVERIFY2(rel <= 1e-12, "flux_box power differs from the six-plane sum");
    }
    double worst = 0, scale = 0;
    QCOMPARE(boxFlux.size(), std::size_t(200));
    for (std::size_t t = 0; t < boxFlux.size(); ++t) {
        double sum = 0;
        for (std::size_t d = 0; d < 6; ++d)
            sum += r.detectors[d].find("flux")->data[t];
        worst = std::max(worst, std::abs(boxFlux[t] - sum));
        scale = std::max(scale, std::abs(sum));
    }
    qInfo("flux series: max |flux_box - six planes| %.3e of max |flux| %.3e (rel %.2e)", worst, scale,
          worst / scale);
    QVERIFY(scale > 0);
    QVERIFY2(worst <= 1e-12 * scale, "flux_box flux series differs from the six-plane sum");
}

/// In a lossless periodic box the leapfrog conserves (eps E^n.E^{n+1} + mu |H^{n+1/2}|^2)/2 exactly up to
/// rounding once the source is off.
void tst_Physics::energyConservation_data() {
    QTest::addColumn<bool>("f64");
    QTest::addColumn<double>("tol");
    QTest::newRow("float64") << true << 1e-11;
    QTest::newRow("float32") << false << 2e-5;
}

void tst_Physics::energyConservation() {
    QFETCH(bool, f64);
    QFETCH(double, tol);
    const double cell = 0.05;
    scene::Scene s =
        boxScene(16, 18, 20, cell, BoundaryType::Periodic, BoundaryType::Periodic, BoundaryType::Periodic);
    s.materials.push_back(material("glass", 2.25));
    scene::Object o;
    o.name = "ball";
    o.shape = scene::Shape::Sphere;
    o.center = {0.1, 0, 0};
    o.radius = 0.3;
    o.material = "glass";
    s.objects.push_back(o);
    s.sources.push_back(dipole("src", {-0.2, 0.1, 0.0}, {1, 1, 0}, 0.8, 0.5));
    scene::Detector e =
        detector("energy", DetectorType::Energy, {0, 0, 0}, {16 * cell, 18 * cell, 20 * cell});
    s.detectors.push_back(e);
    s.durationFs = 1500 * s.dtFs();
    const run::RunResult r = runScene(s, f64 ? run::Precision::Float64 : run::Precision::Float32);
    const auto& u = arrayOf(r, "energy", "energy").data;
    const std::size_t start = 600; // source off (pulse centre 5 sigma ~ 200 steps)
    double lo = u[start], hi = u[start];
    for (std::size_t i = start; i < u.size(); ++i) {
        lo = std::min(lo, u[i]);
        hi = std::max(hi, u[i]);
    }
    qInfo("energy %.10e, relative variation over %zu steps: %.3e", u.back(), u.size() - start,
          (hi - lo) / hi);
    QVERIFY(hi > 0);
    QVERIFY2((hi - lo) / hi < tol, "energy not conserved");
}

QTEST_APPLESS_MAIN(tst_Physics)
#include "tst_physics.moc"
