/// The GPU's data paths, run on emulated CPU devices (RunOptions::gpuDataPaths, Device::staged): CPML
/// corrections as separate passes instead of fused rows, detectors reading downloaded copies of their
/// cells, the divergence guard's flag kernel, gradient captures and adjoint sources through gather /
/// scatter point lists, reversible interface layers packed and unpacked. Every result must be bit-identical
/// to the direct CPU paths, for forward runs with every detector kind and for all three gradient
/// methods, single-domain and decomposed. The memory estimate must still equal the measured peak
/// (the staging buffers are counted like any allocation). On a GPU the same code runs with the CUDA
/// launcher; tests/gpu compares the two.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "decomp/DecompScene.hpp"
#include "decomp/ResultCompare.hpp"
#include "gradient/GradScene.hpp"
#include "yee/run/Run.hpp"

using namespace yee;
using namespace yee::testing;

namespace {
run::RunResult runWith(const scene::Scene& s, std::array<int, 3> tiles, run::Precision p, bool staged,
                       bool gradient, bool overlap = true) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = p;
    o.tiles = tiles;
    o.devices = tiles[0] * tiles[1] * tiles[2];
    o.threadsPerDevice = 1;
    o.guardInterval = 8; // several guard checks (the flag kernel) per run
    o.gradient = gradient;
    o.overlap = overlap;
    o.gpuDataPaths = staged;
    run::RunResult r = run::run(s, o);
    if (!r.completed)
        throw std::runtime_error(r.status);
    // The staged paths allocate staging buffers through the ledger: the dry run must see them too.
    const run::Estimate e = run::estimate(s, o);
    if (e.devices.size() != r.devices.size())
        throw std::runtime_error("estimate device count differs");
    for (std::size_t d = 0; d < r.devices.size(); ++d)
        if (e.devices[d].memory.peakTotal != r.devices[d].memory.peakTotal)
            throw std::runtime_error("estimate " + std::to_string(e.devices[d].memory.peakTotal) +
                                     " != peak " + std::to_string(r.devices[d].memory.peakTotal) +
                                     " on device " + std::to_string(d));
    return r;
}

std::string gradientDiff(const run::RunResult& a, const run::RunResult& b) {
    if (a.gradients.size() != b.gradients.size())
        return "gradient count differs";
    for (std::size_t d = 0; d < a.gradients.size(); ++d) {
        const auto& u = a.gradients[d].data;
        const auto& v = b.gradients[d].data;
        if (u.size() != v.size())
            return "gradient size differs";
        if (std::memcmp(u.data(), v.data(), u.size() * sizeof(double)) != 0)
            return a.gradients[d].name + " differs";
    }
    return {};
}
} // namespace

class tst_GpuPaths : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // The staged paths keep the material index; the plain CPU path must too for the ledgers to match: the
        // small scenes would otherwise fit the cache and keep per-cell arrays there
        // (solver::Plan::perCellCacheBytes).
        qputenv("YEE_CACHE_PER_CELL", "0");
    }
    void forwardBitIdentical_data();
    void forwardBitIdentical();
    void gradientBitIdentical_data();
    void gradientBitIdentical();
    void recorderTiersBitIdentical_data();
    void recorderTiersBitIdentical();
};

void tst_GpuPaths::forwardBitIdentical_data() {
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<bool>("f64");
    QTest::addColumn<bool>("overlap");
    QTest::addColumn<bool>("dispersive");
    QTest::newRow("1x1x1 f32") << 1 << 1 << false << true << false;
    QTest::newRow("1x1x1 f64") << 1 << 1 << true << true << false;
    QTest::newRow("2x1x1 f32") << 2 << 1 << false << true << false;
    QTest::newRow("2x2x1 f64") << 2 << 2 << true << true << false;
    QTest::newRow("2x2x1 f32 no-overlap") << 2 << 2 << false << false << false;
    // Pole tables and their Ca/Cb folds written through the fill's host mirrors (device/HostFill.hpp).
    QTest::newRow("2x1x1 f32 dispersive") << 2 << 1 << false << true << true;
    QTest::newRow("1x1x1 f64 dispersive") << 1 << 1 << true << true << true;
}

void tst_GpuPaths::forwardBitIdentical() {
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(bool, f64);
    QFETCH(bool, overlap);
    QFETCH(bool, dispersive);
    scene::Scene s = decompScene(40);
    if (dispersive) { // the sphere's glass gets a Drude and a Lorentz pole
        scene::Pole drude, lorentz;
        drude.type = scene::PoleType::Drude;
        drude.omegaEv = 3.0;
        drude.gammaEv = 0.2;
        lorentz.type = scene::PoleType::Lorentz;
        lorentz.deltaEps = 1.5;
        lorentz.omegaEv = 2.5;
        lorentz.gammaEv = 0.2;
        s.materials[0].poles = {drude, lorentz};
    }
    const auto p = f64 ? run::Precision::Float64 : run::Precision::Float32;
    const run::RunResult direct = runWith(s, {px, py, 1}, p, false, false, overlap);
    const run::RunResult staged = runWith(s, {px, py, 1}, p, true, false, overlap);
    const std::string diff = bitDiff(direct, staged);
    QVERIFY2(diff.empty(), diff.c_str());
    QVERIFY(direct.objective && *direct.objective != 0);
    // The staged paths add staging buffers only: fields, materials, PML, detectors are the same bytes.
    // Pole state: CPU devices fold the pole update into the E sweep and need no E^n scratch, which the
    // staged (GPU) passes keep, so there the staged paths hold more.
    for (std::size_t d = 0; d < direct.devices.size(); ++d) {
        const auto& a = direct.devices[d].memory;
        const auto& b = staged.devices[d].memory;
        for (int c = 0; c < device::kCategoryCount; ++c)
            if (c == int(device::Category::Dispersive))
                QVERIFY(b.peak[std::size_t(c)] >= a.peak[std::size_t(c)]);
            else if (c != int(device::Category::Staging))
                QCOMPARE(b.peak[std::size_t(c)], a.peak[std::size_t(c)]);
        QVERIFY(b.peak[int(device::Category::Staging)] > 0);
        if (dispersive)
            QVERIFY(a.peak[int(device::Category::Dispersive)] > 0);
    }
}

void tst_GpuPaths::gradientBitIdentical_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<int>("px");
    for (const char* m : {"full", "checkpointed", "reversible"})
        for (int px : {1, 2})
            QTest::newRow(qPrintable(QString("%1 %2x1x1").arg(m).arg(px))) << QString(m) << px;
}

void tst_GpuPaths::gradientBitIdentical() {
    QFETCH(QString, method);
    QFETCH(int, px);
    const scene::Scene s = decomposableGradScene(method.toStdString());
    for (auto p : {run::Precision::Float32, run::Precision::Float64}) {
        const run::RunResult direct = runWith(s, {px, 1, 1}, p, false, true);
        const run::RunResult staged = runWith(s, {px, 1, 1}, p, true, true);
        const std::string diff = bitDiff(direct, staged);
        QVERIFY2(diff.empty(), diff.c_str());
        const std::string gdiff = gradientDiff(direct, staged);
        QVERIFY2(gdiff.empty(), gdiff.c_str());
        double norm = 0;
        for (const auto& g : direct.gradients)
            for (double x : g.data)
                norm = std::max(norm, std::abs(x));
        QVERIFY(norm > 0);
    }
}

void tst_GpuPaths::recorderTiersBitIdentical_data() {
    QTest::addColumn<QString>("tier");
    QTest::addColumn<QString>("dtype");
    QTest::newRow("device bfloat16") << "device"
                                     << "bfloat16";
    QTest::newRow("host bfloat16") << "host"
                                   << "bfloat16";
    QTest::newRow("disk bfloat16") << "disk"
                                   << "bfloat16";
    QTest::newRow("host int8") << "host"
                               << "int8";
    QTest::newRow("device float16") << "device"
                                    << "float16";
    QTest::newRow("disk float32") << "disk"
                                  << "float32";
    QTest::newRow("host float64") << "host"
                                  << "float64";
}

/// The recorder's storage tiers and formats with records encoded and decoded on the device (staged paths:
/// kernels/RecordCodec.hpp, the slots moved to the host or disk tier) against the host codec.
void tst_GpuPaths::recorderTiersBitIdentical() {
    QFETCH(QString, tier);
    QFETCH(QString, dtype);
    GradSceneOptions go;
    go.lossy = false;
    go.steps = 60;
    scene::Scene s = gradScene(go);
    setLossyRecorder(s, 2, dtype.toStdString());
    s.gradient.tier = tier.toStdString();
    s.gradient.transferInterval = 4;
    s.gradient.ringBuffers = 3;
    const run::RunResult direct = runWith(s, {2, 1, 1}, run::Precision::Float32, false, true);
    const run::RunResult staged = runWith(s, {2, 1, 1}, run::Precision::Float32, true, true);
    const std::string gdiff = gradientDiff(direct, staged);
    QVERIFY2(gdiff.empty(), gdiff.c_str());
    double norm = 0;
    for (const auto& g : staged.gradients)
        for (double x : g.data)
            norm = std::max(norm, std::abs(x));
    QVERIFY(norm > 0);
}

QTEST_GUILESS_MAIN(tst_GpuPaths)
#include "tst_gpu_paths.moc"
