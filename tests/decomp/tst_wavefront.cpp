/// The fused H-then-E pass of CPU devices (Tile::stepFused, kernels/Wavefront.hpp) against the two-sweep
/// step (YEE_WAVEFRONT=0), bit for bit: a PML box with a dipole and a Gaussian plane source (TF/SF
/// corrections on both field sides), and a box with a mode source on a waveguide, a dispersive slab
/// holding a dipole (its cell is left out of the pole fold), a lossy block and a magnetic rod; on 1, 2x1x1
/// and 1x2x3 tiles, float and double, overlap on and off, two threads per device and thin thread slabs
/// (YEE_WAVEFRONT_SLAB_PLANES=2) and column blocks of 5 rows (YEE_WAVEFRONT_BLOCK_ROWS=5), so every slab
/// join, block boundary, cut face and injection row is exercised. The
/// detectors include a full-volume phasor of all six components: any differing bit of any cell at any
/// step shows. The pass' counters say which path ran.
///
/// The adjoint step's fused pass (gradient::AdjointStepper) against its two sweeps
/// (YEE_ADJOINT_WAVEFRONT=0), bit for bit: the gradients of a PML-bounded design scene (lossy and magnetic
/// cells for the checkpointed method), reversible and checkpointed, float and double, thin slabs and
/// blocks; on one tile (the fused pass, with the reversible strategy's inverse updates in it, also in a
/// lossy and magnetic scene with checkpoints) and 2x1x1 tiles (a Q halo between the halves: two sweeps).
#include <QtTest>

#include "decomp/ResultCompare.hpp"
#include "gradient/GradScene.hpp"
#include "physics/SceneBuilder.hpp"
#include "yee/run/Run.hpp"
#include "yee/solver/Wavefront.hpp"

using namespace yee;
using namespace yee::testing;

namespace {

constexpr int kSteps = 40;

void addDetectors(scene::Scene& s) {
    scene::Detector ph = detector("volume", scene::DetectorType::Phasor, {0, 0, 0}, {1.3, 1.2, 1.5});
    ph.components = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
    ph.wavelengths = {1.0};
    s.detectors.push_back(ph);
    scene::Detector probe = detector("probe", scene::DetectorType::Probe, {0.12, 0.07, -0.1}, {0, 0, 0});
    probe.components = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
    s.detectors.push_back(probe);
    s.detectors.push_back(flux("flux", {0.35, 0, 0}, {0, 0.6, 0.9}, 0, +1, {0.9, 1.0}));
    s.detectors.push_back(detector("energy", scene::DetectorType::Energy, {0, 0, 0}, {0.8, 0.8, 0.8}));
    s.durationFs = (kSteps - 0.5) * s.dtFs();
}

/// PML box, vacuum: a dipole and a Gaussian plane source (non-lossy, non-magnetic updates).
scene::Scene pmlBox() {
    using scene::BoundaryType;
    scene::Scene s = boxScene(26, 24, 30, 0.05, BoundaryType::Pml, BoundaryType::Pml, BoundaryType::Pml, 5);
    s.sources.push_back(dipole("dip", {-0.1, -0.15, 0.05}, {0.3, 0.2, 1.0}, 1.0, 0.3));
    s.sources.push_back(planeSource("beam", scene::SourceType::GaussianPlane, {0, 0, -0.35}, {0.6, 0.5, 0}, 2,
                                    +1, {1, 0, 0}, 1.0, 0.3));
    s.sources.back().waist = 0.3;
    addDetectors(s);
    return s;
}

/// A waveguide with a mode source, a Lorentz slab with a dipole inside, a lossy block, a magnetic rod.
scene::Scene fullBox() {
    using scene::BoundaryType;
    scene::Scene s = boxScene(26, 24, 30, 0.05, BoundaryType::Pml, BoundaryType::Pml, BoundaryType::Pml, 5);
    s.materials.push_back(material("core", 4.0));
    scene::Material lorentz = material("lorentz", 2.0);
    scene::Pole p;
    p.type = scene::PoleType::Lorentz;
    p.deltaEps = 1.5;
    p.omegaEv = 2.5;
    p.gammaEv = 0.2;
    lorentz.poles.push_back(p);
    s.materials.push_back(lorentz);
    s.materials.push_back(material("lossy", 3.0, 1.0, 2.0e4));
    s.materials.push_back(material("ferrite", 1.5, 1.8));
    scene::Object core;
    core.name = "core";
    core.shape = scene::Shape::Box;
    core.center = {0, 0, 0};
    core.size = {10, 0.3, 0.25};
    core.material = "core";
    s.objects.push_back(core);
    scene::Object slab;
    slab.name = "slab";
    slab.shape = scene::Shape::Box;
    slab.center = {0.25, 0.1, 0.3};
    slab.size = {0.3, 0.5, 0.4};
    slab.material = "lorentz";
    s.objects.push_back(slab);
    scene::Object block;
    block.name = "block";
    block.shape = scene::Shape::Box;
    block.center = {-0.3, -0.3, 0.35};
    block.size = {0.2, 0.2, 0.3};
    block.material = "lossy";
    s.objects.push_back(block);
    scene::Object rod;
    rod.name = "rod";
    rod.shape = scene::Shape::Cylinder;
    rod.center = {-0.25, 0.3, 0.0};
    rod.radius = 0.08;
    rod.height = 0.8;
    rod.axis = 2;
    rod.material = "ferrite";
    s.objects.push_back(rod);
    s.sources.push_back(planeSource("port", scene::SourceType::Mode, {-0.35, 0, 0}, {0, 0.6, 0.9}, 0, +1,
                                    {0, 0, 1}, 1.0, 0.3));
    s.sources.push_back(dipole("inside", {0.25, 0.1, 0.3}, {0.2, 1.0, 0.4}, 1.0, 0.3));
    addDetectors(s);
    return s;
}

run::RunResult runWith(const scene::Scene& s, bool fused, std::array<int, 3> tiles, run::Precision p,
                       bool overlap, solver::WavefrontCounts& counts) {
    qputenv("YEE_WAVEFRONT", fused ? "1" : "0");
    qputenv("YEE_WAVEFRONT_SLAB_PLANES", "2");
    qputenv("YEE_WAVEFRONT_BLOCK_ROWS", "5");
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = p;
    o.tiles = tiles;
    o.devices = tiles[0] * tiles[1] * tiles[2];
    o.overlap = overlap;
    o.threadsPerDevice = 2;
    solver::Wavefront::resetCounts();
    run::RunResult r = run::run(s, o);
    counts = solver::Wavefront::counts();
    qunsetenv("YEE_WAVEFRONT");
    qunsetenv("YEE_WAVEFRONT_SLAB_PLANES");
    qunsetenv("YEE_WAVEFRONT_BLOCK_ROWS");
    return r;
}

/// A value-and-grad run of `s` with the adjoint's fused pass on or off (thin slabs, small blocks).
run::RunResult gradWith(const scene::Scene& s, bool fused, int px, run::Precision p,
                        solver::WavefrontCounts& counts) {
    qputenv("YEE_ADJOINT_WAVEFRONT", fused ? "1" : "0");
    qputenv("YEE_WAVEFRONT_SLAB_PLANES", "2");
    qputenv("YEE_WAVEFRONT_BLOCK_ROWS", "3");
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = p;
    o.tiles = {px, 1, 1};
    o.devices = px;
    o.threadsPerDevice = 2;
    o.gradient = true;
    solver::Wavefront::resetCounts();
    run::RunResult r = run::run(s, o);
    counts = solver::Wavefront::counts();
    qunsetenv("YEE_ADJOINT_WAVEFRONT");
    qunsetenv("YEE_WAVEFRONT_SLAB_PLANES");
    qunsetenv("YEE_WAVEFRONT_BLOCK_ROWS");
    return r;
}

} // namespace

class tst_Wavefront : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // The fused passes' material-index accessors are what the big runs take: keep them on these small
        // scenes, which would otherwise fit the cache and keep per-cell arrays (Plan::perCellCacheBytes).
        qputenv("YEE_CACHE_PER_CELL", "0");
    }
    void fusedEqualsTwoSweep_data();
    void fusedEqualsTwoSweep();
    void adjointFusedEqualsTwoSweep_data();
    void adjointFusedEqualsTwoSweep();
};

void tst_Wavefront::fusedEqualsTwoSweep_data() {
    QTest::addColumn<bool>("full");
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<int>("pz");
    QTest::addColumn<bool>("f64");
    QTest::addColumn<bool>("overlap");
    const int grids[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 3}};
    for (const bool full : {false, true})
        for (const auto& g : grids)
            for (const bool f64 : {false, true})
                for (const bool ov : {true, false})
                    QTest::newRow(qPrintable(QString("%1 %2x%3x%4 %5 %6")
                                                 .arg(full ? "modes+poles" : "pml box")
                                                 .arg(g[0])
                                                 .arg(g[1])
                                                 .arg(g[2])
                                                 .arg(f64 ? "f64" : "f32")
                                                 .arg(ov ? "overlap" : "serial")))
                        << full << g[0] << g[1] << g[2] << f64 << ov;
}

void tst_Wavefront::fusedEqualsTwoSweep() {
    QFETCH(bool, full);
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(int, pz);
    QFETCH(bool, f64);
    QFETCH(bool, overlap);
    const scene::Scene s = full ? fullBox() : pmlBox();
    const auto p = f64 ? run::Precision::Float64 : run::Precision::Float32;
    solver::WavefrontCounts plain, fused;
    const run::RunResult a = runWith(s, false, {px, py, pz}, p, overlap, plain);
    const run::RunResult b = runWith(s, true, {px, py, pz}, p, overlap, fused);
    // The switch chose the path: every update of the first run two-sweep, of the second fused or (cells
    // next to a cut) swept.
    const std::int64_t updates = 2 * std::int64_t(26) * 24 * 30 * a.steps;
    QCOMPARE(plain.fused, std::int64_t(0));
    QCOMPARE(plain.twoSweep, updates);
    QCOMPARE(fused.twoSweep, std::int64_t(0));
    QCOMPARE(fused.fused + fused.swept, updates);
    QVERIFY(fused.fused > updates / 2);
    QCOMPARE(fused.swept == 0, px * py * pz == 1);
    // Something happened: the phasor holds non-zero fields.
    double sum = 0;
    for (const auto& d : b.detectors)
        for (const auto& arr : d.arrays)
            for (double v : arr.data)
                sum += std::abs(v);
    QVERIFY(sum > 0);
    const std::string diff = bitDiff(a, b);
    QVERIFY2(diff.empty(), diff.c_str());
}

void tst_Wavefront::adjointFusedEqualsTwoSweep_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<int>("px");
    QTest::addColumn<bool>("f64");
    QTest::addColumn<bool>("lossy");
    for (const char* m : {"reversible", "checkpointed"})
        for (const int px : {1, 2})
            for (const bool f64 : {false, true})
                QTest::newRow(qPrintable(QString("%1 %2x1x1 %3").arg(m).arg(px).arg(f64 ? "f64" : "f32")))
                    << QString(m) << px << f64 << (QString(m) != "reversible");
    // The reversible strategy in a lossy, magnetic scene with checkpoints: the inverse updates in the
    // adjoint's pass divide by Ca and read Db per cell, and each checkpoint breaks the chain of passes.
    for (const bool f64 : {false, true})
        QTest::newRow(qPrintable(QString("reversible lossy checkpoints 1x1x1 %1").arg(f64 ? "f64" : "f32")))
            << QString("reversible") << 1 << f64 << true;
}

void tst_Wavefront::adjointFusedEqualsTwoSweep() {
    QFETCH(QString, method);
    QFETCH(int, px);
    QFETCH(bool, f64);
    QFETCH(bool, lossy);
    GradSceneOptions go;
    go.nx = 32;
    go.steps = 30;
    go.lossy = lossy;
    scene::Scene s = gradScene(go);
    // PML on every face (no periodic self-exchange between the halves), 10 cells more in z for it
    s.boundaries[2] = s.boundaries[0];
    s.domainSize[2] += 10 * s.cellUm;
    if (go.lossy) {
        s.materials.push_back(material("ferrite", 1.5, 1.8));
        scene::Object rod;
        rod.name = "ferrite rod";
        rod.shape = scene::Shape::Box;
        rod.center = {0.45, -0.2, 0.0};
        rod.size = {0.15, 0.15, 0.3};
        rod.material = "ferrite";
        s.objects.push_back(rod);
    }
    setGradientMethod(s, method.toStdString());
    const bool reversible = method == "reversible";
    if (reversible && lossy)
        s.gradient.numCheckpointsReversible = 2;
    const auto p = f64 ? run::Precision::Float64 : run::Precision::Float32;
    solver::WavefrontCounts plain, fused;
    const run::RunResult a = gradWith(s, false, px, p, plain);
    const run::RunResult b = gradWith(s, true, px, p, fused);
    // Which path ran: with a Q halo between the halves (2 tiles) both runs take the two sweeps.
    const auto g = s.gridCells();
    const std::int64_t updates = 2 * std::int64_t(g[0]) * g[1] * g[2] * a.steps;
    QCOMPARE(plain.adjointFused, std::int64_t(0));
    QCOMPARE(plain.adjointTwoSweep, updates);
    QCOMPARE(fused.adjointFused, px == 1 ? updates : std::int64_t(0));
    QCOMPARE(fused.adjointTwoSweep, px == 1 ? std::int64_t(0) : updates);
    // The reversible strategy's inverse updates ride in every fused pass (AdjointPassRows).
    QCOMPARE(plain.adjointWithRows, std::int64_t(0));
    QCOMPARE(fused.adjointWithRows, reversible && px == 1 ? std::int64_t(a.steps) : std::int64_t(0));
    QVERIFY(!a.gradients.empty());
    QCOMPARE(a.gradients.size(), b.gradients.size());
    double sum = 0;
    for (std::size_t q = 0; q < a.gradients.size(); ++q) {
        const auto& u = a.gradients[q].data;
        const auto& v = b.gradients[q].data;
        QCOMPARE(u.size(), v.size());
        for (double x : u)
            sum += std::abs(x);
        QVERIFY2(std::memcmp(u.data(), v.data(), u.size() * sizeof(double)) == 0,
                 qPrintable(QString("gradient %1 differs").arg(QString::fromStdString(a.gradients[q].name))));
    }
    QVERIFY(sum > 0);
}

QTEST_GUILESS_MAIN(tst_Wavefront)
#include "tst_wavefront.moc"
