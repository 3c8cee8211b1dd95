/// The exact adjoint of the dispersive pole update: a dot-product test of the pole kernels against
/// their transposes, design gradients against central finite differences (float64) with design regions
/// next to and inside dispersive material for the `full` and `checkpointed` methods, decomposed
/// gradients bit-identical to single-domain, and `reversible` refused with dispersive material.
#include <QtTest>

#include <cmath>
#include <random>

#include "decomp/ResultCompare.hpp"
#include "gradient/GradScene.hpp"
#include "yee/core/Error.hpp"
#include "yee/kernels/Dispersion.hpp"
#include "yee/run/Run.hpp"

using namespace yee;
using namespace yee::testing;

namespace {

run::RunResult runGrad(const scene::Scene& s, std::array<int, 3> tiles = {1, 1, 1},
                       run::Precision p = run::Precision::Float64, bool gradient = true) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = p;
    o.tiles = tiles;
    o.devices = tiles[0] * tiles[1] * tiles[2];
    o.gradient = gradient;
    o.threadsPerDevice = 1;
    o.guardInterval = 1000;
    run::RunResult r = run::run(s, o);
    if (!r.completed)
        throw std::runtime_error(r.status);
    return r;
}

scene::Pole pole(scene::PoleType t, double deltaEps, double omegaEv, double gammaEv, double tauFs = 0) {
    scene::Pole p;
    p.type = t;
    p.deltaEps = deltaEps;
    p.omegaEv = omegaEv;
    p.gammaEv = gammaEv;
    p.tauFs = tauFs;
    return p;
}

/// gradScene() with a Drude-Lorentz metal block beside design "left" and a Lorentz-Debye shell around
/// design "right" (the design sits inside dispersive material).
scene::Scene dispersiveGradScene(const std::string& method, int nx = 24, int steps = 60) {
    GradSceneOptions go;
    go.nx = nx;
    go.lossy = false;
    go.steps = steps;
    scene::Scene s = gradScene(go);
    const double x0 = -0.5 * nx * 0.05;
    scene::Material metal = material("metal", 1.0);
    metal.poles = {pole(scene::PoleType::Drude, 0, 3.0, 0.3), pole(scene::PoleType::Lorentz, 0.8, 2.5, 0.4)};
    scene::Material shell = material("shell", 1.5);
    shell.poles = {pole(scene::PoleType::Lorentz, 1.0, 2.0, 0.2),
                   pole(scene::PoleType::Debye, 0.7, 0, 0, 2.0)};
    s.materials.push_back(metal);
    s.materials.push_back(shell);
    scene::Object block;
    block.name = "block";
    block.shape = scene::Shape::Box;
    block.center = {x0 + 0.5, -0.21, 0};
    block.size = {0.15, 0.1, 0.3};
    block.material = "metal";
    s.objects.push_back(block);
    scene::Object around;
    around.name = "around";
    around.shape = scene::Shape::Box;
    around.center = {x0 + 0.7, 0.05, -0.1};
    around.size = {0.2, 0.3, 0.3};
    around.material = "shell";
    s.objects.push_back(around);
    setGradientMethod(s, method);
    return s;
}

double objectiveOf(scene::Scene s, int d, std::size_t v, double value) {
    s.designs[std::size_t(d)].latent[v] = value;
    return *runGrad(s, {1, 1, 1}, run::Precision::Float64, false).objective;
}

} // namespace

class tst_DispersionGradient : public QObject {
    Q_OBJECT
private slots:
    void poleKernelsDotProduct();
    void finiteDifferences_data();
    void finiteDifferences();
    void decomposedBitIdentical_data();
    void decomposedBitIdentical();
    void reversibleRefused();
};

/// <F x, ybar> = <x, F^T ybar> for the pole step F: (E^n, E^{n+1} before the pole current, state^n)
/// -> (E^{n+1}, state^{n+1}), with the transposes working on P = Cb Ebar as the adjoint sweep does.
void tst_DispersionGradient::poleKernelsDotProduct() {
    using kernels::PoleCoefs;
    constexpr int N = 7;
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1, 1), pos(0.4, 1.0);
    PoleCoefs<double> c;
    c.n = 3; // Lorentz (P, J), Drude (J), Debye (P)
    c.cJ[0] = 0.8, c.cP[0] = -0.3, c.d[0] = 0.4, c.pSlot[0] = 0, c.jSlot[0] = 1;
    c.cJ[1] = 0.9, c.cP[1] = 0, c.d[1] = 0.2, c.pSlot[1] = -1, c.jSlot[1] = 2;
    c.cJ[2] = 0, c.cP[2] = -0.5, c.d[2] = 0.6, c.pSlot[2] = 3, c.jSlot[2] = -1;
    const int nSlots = 4;
    std::vector<std::int64_t> off(N);
    std::vector<double> w(N), cb(N), e0(N), e1(N), st(N * nSlots), e1Bar(N), stBar(N * nSlots);
    for (int i = 0; i < N; ++i) {
        off[i] = N - 1 - i;
        w[i] = pos(rng);
        cb[i] = pos(rng);
        e0[i] = u(rng);
        e1[i] = u(rng);
        e1Bar[i] = u(rng);
    }
    for (auto* v : {&st, &stBar})
        for (double& x : *v)
            x = u(rng);
    const double dt = 0.57;
    // Forward.
    std::vector<double> s(N), e1f = e1, stf = st;
    for (int i = 0; i < N; ++i)
        kernels::PoleSaveE<double>{e0.data(), off.data(), s.data()}(i);
    for (int i = 0; i < N; ++i)
        kernels::PoleCurrent<double>{e1f.data(), cb.data(), off.data(), stf.data(), N, c}(i);
    for (int i = 0; i < N; ++i)
        kernels::PoleAdvance<double>{e1f.data(), off.data(), w.data(), s.data(), stf.data(), N, dt, c}(i);
    double lhs = 0;
    for (int i = 0; i < N; ++i)
        lhs += e1f[i] * e1Bar[i];
    for (int i = 0; i < N * nSlots; ++i)
        lhs += stf[i] * stBar[i];
    // Transpose: P1 = Cb E1bar (E^{n+1}); P0 (E^n) from zero.
    std::vector<double> p1(N), p0(N, 0.0), sBar(N), stb = stBar;
    for (int i = 0; i < N; ++i)
        p1[i] = cb[i] * e1Bar[i];
    for (int i = 0; i < N; ++i)
        kernels::PoleAdvanceT<double>{p1.data(),  cb.data(), off.data(), w.data(), sBar.data(),
                                      stb.data(), N,         dt,         c}(i);
    for (int i = 0; i < N; ++i)
        kernels::PoleCurrentT<double>{p1.data(), off.data(), stb.data(), N, c}(i);
    for (int i = 0; i < N; ++i)
        kernels::PoleSaveET<double>{p0.data(), cb.data(), off.data(), sBar.data()}(i);
    double rhs = 0;
    for (int i = 0; i < N; ++i)
        rhs += e0[i] * p0[i] / cb[i] + e1[i] * p1[i] / cb[i];
    for (int i = 0; i < N * nSlots; ++i)
        rhs += st[i] * stb[i];
    qInfo("<F x, y> = %.15f  <x, F^T y> = %.15f", lhs, rhs);
    QVERIFY(std::abs(lhs) > 0.1);
    QVERIFY(std::abs(lhs - rhs) < 1e-13 * std::abs(lhs) + 1e-14);
}

void tst_DispersionGradient::finiteDifferences_data() {
    QTest::addColumn<QString>("method");
    QTest::newRow("full") << "full";
    QTest::newRow("checkpointed") << "checkpointed";
}

void tst_DispersionGradient::finiteDifferences() {
    QFETCH(QString, method);
    const scene::Scene s = dispersiveGradScene(method.toStdString());
    const run::RunResult r = runGrad(s);
    QVERIFY(r.objective.has_value());
    QCOMPARE(int(r.gradients.size()), 2);
    int checked = 0;
    const double worst = worstFdError(
        s, r.gradients, [&](int d, std::size_t v, double value) { return objectiveOf(s, d, v, value); },
        checked, qPrintable(method));
    QCOMPARE(checked, 6);
    QVERIFY2(worst <= 1e-6, qPrintable(QString("worst relative error %1 > 1e-6").arg(worst)));
    // The poles matter: the objective without them differs.
    scene::Scene plain = s;
    for (auto& m : plain.materials)
        m.poles.clear();
    const double without = *runGrad(plain, {1, 1, 1}, run::Precision::Float64, false).objective;
    qInfo("objective with poles %.9g, without %.9g", *r.objective, without);
    QVERIFY(std::abs(without - *r.objective) > 1e-3 * std::abs(*r.objective));
}

void tst_DispersionGradient::decomposedBitIdentical_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<int>("pz");
    for (const char* m : {"full", "checkpointed"}) {
        QTest::newRow(qPrintable(QString("%1 4x1x1").arg(m))) << QString(m) << 4 << 1 << 1;
        QTest::newRow(qPrintable(QString("%1 2x2x1").arg(m))) << QString(m) << 2 << 2 << 1;
    }
}

void tst_DispersionGradient::decomposedBitIdentical() {
    QFETCH(QString, method);
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(int, pz);
    const scene::Scene s = dispersiveGradScene(method.toStdString(), 48, 40);
    for (auto prec : {run::Precision::Float32, run::Precision::Float64}) {
        const run::RunResult a = runGrad(s, {1, 1, 1}, prec), b = runGrad(s, {px, py, pz}, prec);
        const std::string diff = bitDiff(a, b);
        QVERIFY2(diff.empty(), diff.c_str());
        QCOMPARE(a.gradients.size(), b.gradients.size());
        double norm = 0;
        for (std::size_t d = 0; d < a.gradients.size(); ++d) {
            const auto& u = a.gradients[d].data;
            const auto& v = b.gradients[d].data;
            QCOMPARE(u.size(), v.size());
            for (double x : u)
                norm = std::max(norm, std::abs(x));
            QVERIFY2(std::memcmp(u.data(), v.data(), u.size() * sizeof(double)) == 0, "gradient differs");
        }
        QVERIFY(norm > 0);
    }
}

void tst_DispersionGradient::reversibleRefused() {
    const scene::Scene s = dispersiveGradScene("reversible");
    QString got;
    try {
        runGrad(s);
    } catch (const std::exception& e) {
        got = e.what();
    }
    qInfo("%s", qPrintable(got));
    QVERIFY2(got.contains("gradient.method: \"reversible\" cannot run dispersive material \"metal\""),
             qPrintable(got));
    QVERIFY(got.contains("use \"checkpointed\""));
}

QTEST_GUILESS_MAIN(tst_DispersionGradient)
#include "tst_dispersion_gradient.moc"
