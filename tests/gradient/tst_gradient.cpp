/// Gradients: exact discrete adjoint against central finite differences (float64), for every method;
/// decomposed gradients bit-identical to single-domain; pinned adjoint collective counts; sharded memory.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <vector>

#include "decomp/ResultCompare.hpp"
#include "gradient/GradScene.hpp"
#include "yee/core/Error.hpp"
#include "yee/run/Run.hpp"

using namespace yee;
using namespace yee::testing;
using comm::Kind;
using comm::Phase;

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

/// The fewest forward steps the reverse sweep of the checkpointed method can run, by exhaustive search
/// over binomial schedules: F(l, c) reverses l steps from a restorable state with c free slots (each step
/// re-run once with its capture, the rest advances), G(l, c) the same at the top, where the forward run
/// stores the chain of first checkpoints for free.
std::int64_t optimalRecompute(int steps, int c) {
    const int L = steps + 1, C = c + 1;
    std::vector<std::int64_t> F(std::size_t(L * C), 0), G(std::size_t(L * C), 0);
    auto at = [C](std::vector<std::int64_t>& v, int l, int k) -> std::int64_t& {
        return v[std::size_t(l * C + k)];
    };
    for (int l = 1; l < L; ++l)
        for (int k = 0; k < C; ++k) {
            if (l == 1 || k == 0) {
                at(F, l, k) = at(G, l, k) = std::int64_t(l) * (l + 1) / 2;
                continue;
            }
            std::int64_t f = -1, g = -1;
            for (int m = 1; m < l; ++m) {
                const std::int64_t fm = m + at(F, l - m, k - 1) + at(F, m, k);
                const std::int64_t gm = at(F, m, k) + at(G, l - m, k - 1);
                f = f < 0 ? fm : std::min(f, fm);
                g = g < 0 ? gm : std::min(g, gm);
            }
            at(F, l, k) = f;
            at(G, l, k) = g;
        }
    return at(G, steps, c);
}

double objectiveOf(scene::Scene s, int d, std::size_t v, double value) {
    s.designs[std::size_t(d)].latent[v] = value;
    return *runGrad(s, {1, 1, 1}, run::Precision::Float64, false).objective;
}

} // namespace

class tst_Gradient : public QObject {
    Q_OBJECT
private slots:
    void finiteDifferences_data();
    void finiteDifferences();
    void decomposedBitIdentical_data();
    void decomposedBitIdentical();
    void adjointCountsPinned_data();
    void adjointCountsPinned();
    void checkpointScheduleOptimal();
    void memorySharded_data();
    void memorySharded();
    void lossyRecorderErrorBounded();
    void reversibleCheckpointsBoundDrift();
    void stagedTiers_data();
    void stagedTiers();
    void unsupportedConfigsRefused_data();
    void unsupportedConfigsRefused();
};

void tst_Gradient::finiteDifferences_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<bool>("lossy");
    QTest::addColumn<double>("tol");
    QTest::addColumn<QString>("objective");
    QTest::newRow("full lossy") << "full" << true << 1e-6 << "";
    QTest::newRow("checkpointed lossy") << "checkpointed" << true << 1e-6 << "";
    QTest::newRow("reversible f64 lossless") << "reversible" << false << 1e-4 << "";
    // Every objective quantity has its adjoint: phasor_power of a phasor detector, and flux_box terms.
    QTest::newRow("full lossy phasor_power") << "full" << true << 1e-6 << "phasor_power";
    QTest::newRow("reversible f64 lossless phasor_power") << "reversible" << false << 1e-4 << "phasor_power";
    QTest::newRow("checkpointed lossy flux_box") << "checkpointed" << true << 1e-6 << "flux_box";
}

void tst_Gradient::finiteDifferences() {
    QFETCH(QString, method);
    QFETCH(bool, lossy);
    QFETCH(double, tol);
    QFETCH(QString, objective);
    GradSceneOptions go;
    go.lossy = lossy;
    go.phasorPowerOnly = objective == "phasor_power";
    go.fluxBoxOnly = objective == "flux_box";
    scene::Scene s = gradScene(go);
    setGradientMethod(s, method.toStdString());
    const run::RunResult r = runGrad(s);
    QVERIFY(r.objective.has_value());
    QCOMPARE(int(r.gradients.size()), 2);
    int checked = 0;
    const double worst = worstFdError(
        s, r.gradients, [&](int d, std::size_t v, double value) { return objectiveOf(s, d, v, value); },
        checked, qPrintable(method));
    QCOMPARE(checked, 6);
    QVERIFY2(worst <= tol, qPrintable(QString("worst relative error %1 > %2").arg(worst).arg(tol)));
}

void tst_Gradient::decomposedBitIdentical_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<int>("pz");
    const int grids[][3] = {{2, 1, 1}, {3, 1, 1}, {4, 1, 1}, {8, 1, 1}, {2, 2, 1}, {1, 2, 2}, {2, 2, 2}};
    for (const char* m : {"full", "checkpointed", "reversible"})
        for (const auto& g : grids)
            QTest::newRow(qPrintable(QString("%1 %2x%3x%4").arg(m).arg(g[0]).arg(g[1]).arg(g[2])))
                << QString(m) << g[0] << g[1] << g[2];
}

void tst_Gradient::decomposedBitIdentical() {
    QFETCH(QString, method);
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(int, pz);
    const scene::Scene s = decomposableGradScene(method.toStdString());
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

void tst_Gradient::adjointCountsPinned_data() {
    QTest::addColumn<QString>("method");
    for (const char* m : {"full", "checkpointed", "reversible"})
        QTest::newRow(m) << QString(m);
}

void tst_Gradient::adjointCountsPinned() {
    QFETCH(QString, method);
    GradSceneOptions go;
    go.nx = 48;
    go.lossy = false;
    go.steps = 40;
    scene::Scene s = gradScene(go);
    setGradientMethod(s, method.toStdString());
    std::int64_t recomputed1 = -1;
    for (std::array<int, 3> t : {std::array<int, 3>{1, 1, 1}, {2, 1, 1}, {4, 1, 1}, {8, 1, 1}, {2, 2, 2}}) {
        const run::RunResult r = runGrad(s, t, run::Precision::Float32);
        if (recomputed1 < 0)
            recomputed1 = r.recomputedSteps;
        QCOMPARE(r.recomputedSteps, recomputed1);
        for (const auto& d : r.devices) {
            // Two grouped exchanges per reverse step (reconstruction and adjoint halos share them).
            QCOMPARE(d.comm.callsOf(Phase::Adjoint, Kind::HaloExchange), std::int64_t(2 * go.steps));
            QCOMPARE(d.comm.callsOf(Phase::Adjoint, Kind::AllReduce), std::int64_t(0));
            QCOMPARE(d.comm.callsOf(Phase::Adjoint, Kind::Gather), std::int64_t(0));
            QCOMPARE(d.comm.callsOf(Phase::Reconstruct, Kind::HaloExchange),
                     std::int64_t(2 * r.recomputedSteps));
            QCOMPARE(d.comm.callsOf(Phase::Forward, Kind::HaloExchange), std::int64_t(2 * go.steps));
            QCOMPARE(d.comm.callsOf(Phase::Output, Kind::Gather), std::int64_t(1));
        }
    }
    if (method == "checkpointed")
        QVERIFY(recomputed1 > go.steps);
    else
        QCOMPARE(recomputed1, std::int64_t(0));
}

/// The checkpointed method's schedule: the forward steps its reverse sweep re-runs are within one step of
/// the fewest any binomial schedule needs (the revolve bound), for short and long sweeps and few and many
/// checkpoints.
void tst_Gradient::checkpointScheduleOptimal() {
    GradSceneOptions go;
    go.nx = 24;
    go.lossy = false;
    for (int steps : {7, 40, 150})
        for (int c : {1, 2, 3, 5, 8, 30}) {
            go.steps = steps;
            scene::Scene s = gradScene(go);
            setGradientMethod(s, "checkpointed");
            s.gradient.numCheckpoints = c;
            run::RunOptions o = run::RunOptions::fromScene(s);
            o.gradient = true;
            const std::int64_t planned = run::estimate(s, o).recomputeSteps;
            const int N = s.steps(), kept = std::max(1, std::min(c, N - 1));
            const std::int64_t best = optimalRecompute(N, kept);
            QVERIFY2(planned >= best && planned <= best + 1,
                     qPrintable(QString("steps %1, %2 checkpoints: %3 recomputed, the fewest is %4")
                                    .arg(N)
                                    .arg(c)
                                    .arg(planned)
                                    .arg(best)));
        }
}

void tst_Gradient::memorySharded_data() {
    QTest::addColumn<QString>("method");
    for (const char* m : {"full", "checkpointed", "reversible"})
        QTest::newRow(m) << QString(m);
}

/// Nothing replicated, from the ledger: a waveguide long in x, cut along x. The sum over devices stays
/// within 10 % of one device's peak (plus halo buffers); the largest device holds about 1/N, up to the
/// extra CPML the end tiles carry (the x-PML slabs live only there), which the ledger names.
void tst_Gradient::memorySharded() {
    QFETCH(QString, method);
    using scene::BoundaryType;
    const double cell = 0.05;
    scene::Scene s = boxScene(192, 24, 24, cell, BoundaryType::Pml, BoundaryType::Pml, BoundaryType::Pml, 6);
    s.materials.push_back(material("clad", 2.0736));
    s.materials.push_back(material("core", 4.0));
    s.background = "clad";
    scene::Object strip;
    strip.name = "strip";
    strip.shape = scene::Shape::Box;
    strip.size = {10.0, 0.3, 0.2};
    strip.material = "core";
    s.objects.push_back(strip);
    s.sources.push_back(planeSource("in", scene::SourceType::GaussianPlane, {-4.2, 0, 0}, {0, 0.5, 0.5}, 0,
                                    +1, {0, 1, 0}, 1.55, 0.3));
    s.detectors.push_back(flux("out", {4.2, 0, 0}, {0, 0.5, 0.5}, 0, +1, {1.55}));
    scene::Design d;
    d.name = "taper";
    d.size = {0.6, 0.4, 0.2};
    d.voxelCells = {2, 2, 2};
    d.materials = {"clad", "core"};
    s.designs.push_back(d);
    scene::ObjectiveTerm t;
    t.detector = "out";
    s.objective.terms.push_back(t);
    setGradientMethod(s, method.toStdString());
    s.durationFs = 39.5 * s.dtFs();
    auto largestAndSum = [&](const run::RunResult& r, std::int64_t& sum, std::int64_t& halo,
                             std::int64_t& largest, std::int64_t& largestExtra) {
        sum = halo = largest = largestExtra = 0;
        std::int64_t minPml = -1;
        for (const auto& d : r.devices)
            minPml = minPml < 0 ? d.memory.peak[int(device::Category::Pml)]
                                : std::min(minPml, d.memory.peak[int(device::Category::Pml)]);
        for (const auto& d : r.devices) {
            sum += d.memory.peakTotal;
            const std::int64_t h = d.memory.peak[int(device::Category::Halo)];
            halo += h;
            if (d.memory.peakTotal > largest) {
                largest = d.memory.peakTotal;
                largestExtra = h + d.memory.peak[int(device::Category::Pml)] - minPml;
            }
        }
    };
    const run::RunResult one = runGrad(s, {1, 1, 1}, run::Precision::Float32);
    const double single = double(one.devices[0].memory.peakTotal);
    for (int n : {2, 4, 8}) {
        const run::RunResult r = runGrad(s, {n, 1, 1}, run::Precision::Float32);
        std::int64_t sum, halo, largest, extra;
        largestAndSum(r, sum, halo, largest, extra);
        // The adjoint keeps its own halo buffers (counted under adjoint), as many bytes as the forward's.
        const std::int64_t adjHalo = 2 * halo;
        qInfo("%s N=%d: single %.2f MiB, sum %.3f x single, largest %.3f x single/N (halo+extra PML %.1f%% "
              "of single/N)",
              qPrintable(method), n, single / 1048576, double(sum) / single, double(largest) / (single / n),
              100.0 * double(extra) / (single / n));
        QVERIFY2(double(sum) <= 1.10 * single + double(adjHalo), "gradient state replicated across devices");
        QVERIFY2(double(largest) <= 1.15 * single / n + 2.0 * double(extra),
                 "largest device holds more than its share");
    }
}

void tst_Gradient::lossyRecorderErrorBounded() {
    // A telecom pulse (1.55 um, 31 cells and about 54 steps per period) in a lossless scene.
    GradSceneOptions go;
    go.lossy = false;
    go.wavelength = 1.55;
    go.steps = 300;
    scene::Scene s = gradScene(go);
    setGradientMethod(s, "full");
    const run::RunResult exact = runGrad(s, {1, 1, 1}, run::Precision::Float32);
    auto relError = [&](int k, const char* dtype) {
        s.gradient.method = scene::GradientMethod::Reversible;
        s.gradient.recorder.clear();
        scene::RecorderModule mk;
        mk.module = "LinearReconstructEveryK";
        mk.k = k;
        scene::RecorderModule md;
        md.module = "DtypeConversion";
        md.dtype = dtype;
        s.gradient.recorder = {mk, md};
        const run::RunResult r = runGrad(s, {1, 1, 1}, run::Precision::Float32);
        double num = 0, den = 0;
        for (std::size_t d = 0; d < exact.gradients.size(); ++d)
            for (std::size_t v = 0; v < exact.gradients[d].data.size(); ++v) {
                num += std::pow(r.gradients[d].data[v] - exact.gradients[d].data[v], 2);
                den += std::pow(exact.gradients[d].data[v], 2);
            }
        const double e = std::sqrt(num / den);
        qInfo("reversible, LinearReconstructEveryK(%d) + %s: relative gradient error %.3e (L2, vs full)", k,
              dtype, e);
        return e;
    };
    const double f32 = relError(1, "float32"), bf16 = relError(1, "bfloat16"), k5 = relError(5, "float32"),
                 both = relError(5, "bfloat16");
    QVERIFY2(f32 < 1e-3, "float32 recorder error above 1e-3");
    QVERIFY2(bf16 < 2e-2, "bfloat16 recorder error above 2 %");
    // Linear interpolation over 5 of ~54 steps per period misplaces the interface slab by up to ~4 % of its
    // amplitude; in this small box the designs sit five cells from the PML, so the gradient sees ~13 %.
    QVERIFY2(k5 < 0.2, "k = 5 reconstruction error above 20 %");
    QVERIFY2(both < 0.2, "bfloat16 + k = 5 error above 20 %");
    QVERIFY(std::abs(both - k5) < 0.01); // bfloat16 adds little on top of the interpolation
}

void tst_Gradient::reversibleCheckpointsBoundDrift() {
    GradSceneOptions go;
    go.lossy = true; // reversing a lossy medium amplifies rounding; checkpoints restore exact states
    scene::Scene s = gradScene(go);
    setGradientMethod(s, "full");
    const run::RunResult exact = runGrad(s);
    setGradientMethod(s, "reversible");
    s.gradient.numCheckpointsReversible = 4;
    const run::RunResult rev = runGrad(s);
    double num = 0, den = 0;
    for (std::size_t d = 0; d < exact.gradients.size(); ++d)
        for (std::size_t v = 0; v < exact.gradients[d].data.size(); ++v) {
            num += std::pow(rev.gradients[d].data[v] - exact.gradients[d].data[v], 2);
            den += std::pow(exact.gradients[d].data[v], 2);
        }
    qInfo("reversible (float64 recorder, 4 checkpoints) in a lossy scene: drift %.3e, gradient error %.3e",
          rev.reconstructionDrift, std::sqrt(num / den));
    QVERIFY(std::sqrt(num / den) < 1e-4);
}

void tst_Gradient::stagedTiers_data() {
    QTest::addColumn<QString>("tier");
    QTest::addColumn<int>("interval");
    QTest::addColumn<int>("ring");
    QTest::newRow("host 1x3") << "host" << 1 << 3;
    QTest::newRow("host 4x4") << "host" << 4 << 4;
    QTest::newRow("host 16x3") << "host" << 16 << 3;
    QTest::newRow("disk 8x4") << "disk" << 8 << 4;
}

/// Host and disk staging move the recorder off the device through a ring of slots; the gradient is the
/// same to the bit, and the device holds only ring x interval records.
void tst_Gradient::stagedTiers() {
    QFETCH(QString, tier);
    QFETCH(int, interval);
    QFETCH(int, ring);
    GradSceneOptions go;
    go.lossy = false;
    go.steps = 120;
    scene::Scene s = gradScene(go);
    setLossyRecorder(s, 2, "bfloat16");
    const run::RunResult dev = runGrad(s, {2, 1, 1}, run::Precision::Float32);
    s.gradient.tier = tier.toStdString();
    s.gradient.transferInterval = interval;
    s.gradient.ringBuffers = ring;
    const run::RunResult staged = runGrad(s, {2, 1, 1}, run::Precision::Float32);
    for (std::size_t d = 0; d < dev.gradients.size(); ++d)
        QVERIFY(std::memcmp(dev.gradients[d].data.data(), staged.gradients[d].data.data(),
                            dev.gradients[d].data.size() * sizeof(double)) == 0);
    for (std::size_t q = 0; q < dev.devices.size(); ++q) {
        const auto rd = dev.devices[q].memory.peak[int(device::Category::Recorder)];
        const auto rs = staged.devices[q].memory.peak[int(device::Category::Recorder)];
        qInfo("%s interval %d ring %d, device %zu: recorder on device %lld B (device tier %lld B)",
              qPrintable(tier), interval, ring, q, (long long)rs, (long long)rd);
        QVERIFY(rs < rd);
    }
}

void tst_Gradient::unsupportedConfigsRefused_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("message");
    QTest::newRow("recorder on checkpointed") << 0 << "gradient.recorder";
    QTest::newRow("unknown dtype") << 1 << "gradient.recorder[0].dtype";
    QTest::newRow("cut in PML") << 2 << "run.tiles[0]";
    QTest::newRow("no objective") << 3 << "objective.terms";
    QTest::newRow("two ring slots") << 4 << "gradient.storage.ring_buffers";
}

void tst_Gradient::unsupportedConfigsRefused() {
    QFETCH(int, which);
    QFETCH(QString, message);
    scene::Scene s = gradScene();
    std::array<int, 3> tiles{1, 1, 1};
    scene::RecorderModule m;
    m.module = "DtypeConversion";
    m.dtype = "float8";
    switch (which) {
    case 0:
        s.gradient.method = scene::GradientMethod::Checkpointed;
        m.dtype = "bfloat16";
        s.gradient.recorder = {m};
        break;
    case 1:
        s.gradient.method = scene::GradientMethod::Reversible;
        s.gradient.recorder = {m};
        break;
    case 2:
        tiles = {8, 1, 1};
        break;
    case 3:
        s.objective.terms.clear();
        break;
    case 4:
        s.gradient.method = scene::GradientMethod::Reversible;
        s.gradient.tier = "host";
        s.gradient.ringBuffers = 2;
        break;
    }
    try {
        (void)runGrad(s, tiles);
        QFAIL("accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains(message), e.what());
    }
}

QTEST_APPLESS_MAIN(tst_Gradient)
#include "tst_gradient.moc"
