/// Tiles on N emulated devices: bit-identical results for every tile grid, pinned collective counts,
/// memory from the ledger (nothing replicated), estimate equal to the measured peak.
#include <QtTest>

#include <cmath>

#include "decomp/DecompScene.hpp"
#include "decomp/ResultCompare.hpp"
#include "yee/core/Error.hpp"
#include "yee/run/Run.hpp"

using namespace yee;
using namespace yee::testing;
using comm::Kind;
using comm::Phase;

namespace {
run::RunResult runTiles(const scene::Scene& s, std::array<int, 3> tiles, run::Precision p, bool overlap,
                        int guard = 16) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = p;
    o.tiles = tiles;
    o.devices = tiles[0] * tiles[1] * tiles[2];
    o.overlap = overlap;
    o.guardInterval = guard;
    o.threadsPerDevice = 1;
    return run::run(s, o);
}
std::int64_t haloPeak(const solver::DeviceSummary& d) {
    return d.memory.peak[int(device::Category::Halo)];
}
} // namespace

class tst_Decomposition : public QObject {
    Q_OBJECT
private slots:
    void bitIdentical_data();
    void bitIdentical();
    void collectiveCountsPinned_data();
    void collectiveCountsPinned();
    void memoryShardedNotReplicated();
    void detectorMemoryOnlyWhereOwned();
    void fluxBoxBitIdentical_data();
    void fluxBoxBitIdentical();
    void estimateMatchesLedger_data();
    void estimateMatchesLedger();
    void impossibleGridsRefused_data();
    void impossibleGridsRefused();
    void notEnoughMemoryRefused();
    void divergenceStopsAllTiles();
    void cancelStopsWithinGuard();
};

void tst_Decomposition::bitIdentical_data() {
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<int>("pz");
    QTest::addColumn<bool>("f64");
    QTest::addColumn<bool>("overlap");
    const int grids[][3] = {{2, 1, 1}, {3, 1, 1}, {4, 1, 1}, {8, 1, 1}, {2, 2, 1}, {1, 2, 2}, {2, 2, 2}};
    for (bool f64 : {false, true})
        for (const auto& g : grids) {
            const QString name =
                QString("%1x%2x%3 %4").arg(g[0]).arg(g[1]).arg(g[2]).arg(f64 ? "f64" : "f32");
            QTest::newRow(qPrintable(name)) << g[0] << g[1] << g[2] << f64 << true;
        }
    QTest::newRow("2x2x1 f32 no-overlap") << 2 << 2 << 1 << false << false;
    QTest::newRow("4x1x1 f64 no-overlap") << 4 << 1 << 1 << true << false;
}

void tst_Decomposition::bitIdentical() {
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(int, pz);
    QFETCH(bool, f64);
    QFETCH(bool, overlap);
    const scene::Scene s = decompScene();
    const auto prec = f64 ? run::Precision::Float64 : run::Precision::Float32;
    const run::RunResult single = runTiles(s, {1, 1, 1}, prec, true);
    const run::RunResult tiled = runTiles(s, {px, py, pz}, prec, overlap);
    QVERIFY(single.completed);
    QVERIFY(tiled.completed);
    QVERIFY(single.objective.has_value());
    QVERIFY(*single.objective != 0.0);
    // The run must have produced something non-trivial for the comparison to mean anything.
    double maxField = 0;
    for (const auto& sn : single.snapshots)
        for (float v : sn.data)
            maxField = std::max(maxField, double(std::abs(v)));
    QVERIFY(maxField > 1e-6);
    const std::string diff = bitDiff(single, tiled);
    QVERIFY2(diff.empty(), diff.c_str());
    QCOMPARE(int(tiled.devices.size()), px * py * pz);
}

void tst_Decomposition::collectiveCountsPinned_data() {
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<int>("pz");
    QTest::newRow("1") << 1 << 1 << 1;
    QTest::newRow("2") << 2 << 1 << 1;
    QTest::newRow("4") << 2 << 2 << 1;
    QTest::newRow("8") << 2 << 2 << 2;
    QTest::newRow("8x1x1") << 8 << 1 << 1;
}

void tst_Decomposition::collectiveCountsPinned() {
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(int, pz);
    const int steps = 48, guard = 16;
    const scene::Scene s = decompScene(steps);
    const run::RunResult r = runTiles(s, {px, py, pz}, run::Precision::Float32, true, guard);
    QVERIFY(r.completed);
    QCOMPARE(r.steps, steps);
    for (const auto& d : r.devices) {
        // Per forward step: exactly one grouped exchange after the H update and one after the E update.
        QCOMPARE(d.comm.callsOf(Phase::Forward, Kind::HaloExchange), std::int64_t(2 * steps));
        // One all-reduce per guard interval (divergence / cancel), nothing else in the loop.
        QCOMPARE(d.comm.callsOf(Phase::Forward, Kind::AllReduce), std::int64_t(steps / guard));
        QCOMPARE(d.comm.callsOf(Phase::Forward, Kind::Gather), std::int64_t(0));
        QCOMPARE(d.comm.callsOf(Phase::Forward, Kind::Broadcast), std::int64_t(0));
        QCOMPARE(d.comm.callsOf(Phase::Forward, Kind::Barrier), std::int64_t(0));
        // Output: one integer all-reduce (exact detector sums) and one gather (per-cell data).
        QCOMPARE(d.comm.callsOf(Phase::Output, Kind::AllReduce), std::int64_t(1));
        QCOMPARE(d.comm.callsOf(Phase::Output, Kind::Gather), std::int64_t(1));
        QCOMPARE(d.comm.callsOf(Phase::Setup, Kind::HaloExchange), std::int64_t(0));
    }
    // Halo bytes: every cut face moves 2 components of one cell layer, twice per step.
    if (px * py * pz > 1)
        QVERIFY(r.devices[0].comm.bytesOf(Phase::Forward, Kind::HaloExchange) > 0);
}

void tst_Decomposition::memoryShardedNotReplicated() {
    // A domain long in x (periodic x and z, PML on y so every tile carries the same PML share).
    using scene::BoundaryType;
    scene::Scene s =
        boxScene(160, 24, 20, 0.05, BoundaryType::Periodic, BoundaryType::Pml, BoundaryType::Periodic, 6);
    s.sources.push_back(dipole("d", {0, 0, 0}, {0, 0, 1}, 0.8, 0.3));
    s.detectors.push_back(detector("e", scene::DetectorType::Energy, {0, 0, 0}, {6.0, 0.6, 0.6}));
    s.durationFs = 7.5 * s.dtFs();
    const run::RunResult single = runTiles(s, {1, 1, 1}, run::Precision::Float32, true);
    const std::int64_t one = single.devices.at(0).memory.peakTotal;
    for (int n : {2, 4, 8}) {
        const run::RunResult r = runTiles(s, {n, 1, 1}, run::Precision::Float32, true);
        std::int64_t sum = 0, halo = 0, largest = 0, largestHalo = 0;
        for (const auto& d : r.devices) {
            sum += d.memory.peakTotal;
            halo += haloPeak(d);
            if (d.memory.peakTotal > largest) {
                largest = d.memory.peakTotal;
                largestHalo = haloPeak(d);
            }
        }
        qInfo(
            "N=%d: single %lld B, sum %lld B (%.3f x single, halo %lld B), largest %lld B (%.3f x single/N)",
            n, (long long)one, (long long)sum, double(sum) / double(one), (long long)halo, (long long)largest,
            double(largest) / (double(one) / n));
        QVERIFY2(double(sum) <= 1.10 * double(one) + double(halo),
                 "gradient-free state replicated across devices");
        QVERIFY2(double(largest) <= 1.15 * double(one) / n + double(largestHalo),
                 "largest device above 1/N share");
    }
}

/// Item 9 of issue 11: a tile that owns none of a detector's cells holds nothing for it. An energy box and
/// a flux plane at the low-x end of a domain cut into 4 along x: only tile 0 holds detector memory, the
/// other tiles' ledgers show zero bytes of category Detectors (the exact sums they contribute to the one
/// output all-reduce are zeros from a host temporary), and results stay bit-identical.
void tst_Decomposition::detectorMemoryOnlyWhereOwned() {
    using scene::BoundaryType;
    scene::Scene s =
        boxScene(64, 16, 16, 0.05, BoundaryType::Periodic, BoundaryType::Pml, BoundaryType::Periodic, 4);
    s.sources.push_back(dipole("d", {-1.2, 0, 0}, {0, 0, 1}, 0.8, 0.3));
    s.detectors.push_back(detector("e", scene::DetectorType::Energy, {-1.2, 0, 0}, {0.3, 0.3, 0.3}));
    s.detectors.push_back(flux("f", {-1.0, 0, 0}, {0, 0.3, 0.3}, 0, +1, {0.8}));
    s.durationFs = 40.5 * s.dtFs();
    const run::RunResult single = runTiles(s, {1, 1, 1}, run::Precision::Float64, true);
    const run::RunResult r = runTiles(s, {4, 1, 1}, run::Precision::Float64, true);
    QVERIFY(r.completed);
    QCOMPARE(int(r.devices.size()), 4);
    const std::int64_t owner = r.devices[0].memory.peak[int(device::Category::Detectors)];
    const std::int64_t all = single.devices[0].memory.peak[int(device::Category::Detectors)];
    qInfo("detector bytes: single %lld, tile 0 %lld, tiles 1..3 %lld %lld %lld", (long long)all,
          (long long)owner, (long long)r.devices[1].memory.peak[int(device::Category::Detectors)],
          (long long)r.devices[2].memory.peak[int(device::Category::Detectors)],
          (long long)r.devices[3].memory.peak[int(device::Category::Detectors)]);
    // Samples * (70 + 1) words of exact sums per series, eps/mu/E^n per energy cell, 8 phasor values per flux
    // cell.
    QVERIFY(owner > 2 * 40 * 71 * 8);
    QCOMPARE(owner, all);
    for (int d = 1; d < 4; ++d)
        QCOMPARE(r.devices[std::size_t(d)].memory.peak[int(device::Category::Detectors)], std::int64_t(0));
    // Still one integer all-reduce and one gather at output, and the same numbers.
    for (const auto& d : r.devices) {
        QCOMPARE(d.comm.callsOf(Phase::Output, Kind::AllReduce), std::int64_t(1));
        QCOMPARE(d.comm.callsOf(Phase::Output, Kind::Gather), std::int64_t(1));
    }
    const std::string diff = bitDiff(single, r);
    QVERIFY2(diff.empty(), diff.c_str());
    QVERIFY(std::abs(single.detectors[0].find("energy")->data.back()) > 0);
}

void tst_Decomposition::fluxBoxBitIdentical_data() {
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<int>("pz");
    QTest::addColumn<bool>("f64");
    QTest::newRow("2x1x1 f64") << 2 << 1 << 1 << true;
    QTest::newRow("2x2x2 f64") << 2 << 2 << 2 << true;
    QTest::newRow("3x1x1 f32") << 3 << 1 << 1 << false;
    QTest::newRow("1x2x2 f32") << 1 << 2 << 2 << false;
}

/// A flux_box around the sources, cut by every tile grid: time series and power bit-identical to one tile.
void tst_Decomposition::fluxBoxBitIdentical() {
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(int, pz);
    QFETCH(bool, f64);
    scene::Scene s = decompScene();
    scene::Detector box = detector("box", scene::DetectorType::FluxBox, {-0.05, -0.05, 0.0}, {0.5, 0.4, 0.5});
    box.wavelengths = {0.6, 0.7};
    s.detectors.push_back(box);
    const auto prec = f64 ? run::Precision::Float64 : run::Precision::Float32;
    const run::RunResult single = runTiles(s, {1, 1, 1}, prec, true);
    const run::RunResult tiled = runTiles(s, {px, py, pz}, prec, true);
    QVERIFY(single.completed && tiled.completed);
    const solver::DetectorResult& b = single.detectors.back();
    QCOMPARE(QString::fromStdString(b.type), QString("flux_box"));
    QVERIFY(b.find("power")->data[0] != 0.0);
    QVERIFY(std::abs(b.find("flux")->data.back()) > 0.0);
    const std::string diff = bitDiff(single, tiled);
    QVERIFY2(diff.empty(), diff.c_str());
}

void tst_Decomposition::estimateMatchesLedger_data() {
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<bool>("f64");
    QTest::newRow("1 f32") << 1 << 1 << false;
    QTest::newRow("4 f32") << 2 << 2 << false;
    QTest::newRow("3 f64") << 3 << 1 << true;
}

void tst_Decomposition::estimateMatchesLedger() {
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(bool, f64);
    const scene::Scene s = decompScene(8);
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.tiles = {px, py, 1};
    o.devices = px * py;
    o.precision = f64 ? run::Precision::Float64 : run::Precision::Float32;
    o.threadsPerDevice = 1;
    const run::Estimate e = run::estimate(s, o);
    const run::RunResult r = run::run(s, o);
    QCOMPARE(e.devices.size(), r.devices.size());
    for (std::size_t d = 0; d < e.devices.size(); ++d) {
        const double est = double(e.devices[d].memory.peakTotal), got = double(r.devices[d].memory.peakTotal);
        QVERIFY(got > 0);
        QVERIFY2(std::abs(est - got) <= 0.02 * got,
                 qPrintable(QString("device %1: estimate %2 vs measured %3").arg(d).arg(est).arg(got)));
        for (int c = 0; c < device::kCategoryCount; ++c)
            QCOMPARE(e.devices[d].memory.peak[c], r.devices[d].memory.peak[c]);
    }
}

void tst_Decomposition::impossibleGridsRefused_data() {
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<int>("pz");
    QTest::addColumn<int>("devices");
    QTest::addColumn<QString>("message");
    QTest::newRow("thin tile") << 13 << 1 << 1 << 13 << "thinner than the stencil";
    QTest::newRow("more tiles than cells") << 30 << 1 << 1 << 30 << "only 24 cells";
    QTest::newRow("zero") << 0 << 1 << 1 << 1 << "must be >= 1";
    QTest::newRow("more tiles than devices") << 4 << 1 << 1 << 2 << "only 2 are available";
}

void tst_Decomposition::impossibleGridsRefused() {
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(int, pz);
    QFETCH(int, devices);
    QFETCH(QString, message);
    const scene::Scene s = decompScene(4);
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.tiles = {px, py, pz};
    o.devices = devices;
    try {
        (void)run::run(s, o);
        QFAIL("impossible grid accepted");
    } catch (const InputError& e) {
        const QString m = QString::fromStdString(e.what());
        QVERIFY2(m.contains(message), qPrintable(m));
        QVERIFY(m.startsWith("run.tiles"));
        QVERIFY(!m.contains('\n'));
    }
}

void tst_Decomposition::notEnoughMemoryRefused() {
    const scene::Scene s = decompScene(4);
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.tiles = {2, 1, 1};
    o.devices = 2;
    o.deviceCapacity = 64 * 1024;
    try {
        (void)run::run(s, o);
        QFAIL("run that does not fit was accepted");
    } catch (const MemoryError& e) {
        const QString m = QString::fromStdString(e.what());
        QVERIFY2(m.contains("needs") && m.contains("has"), qPrintable(m));
    }
}

/// A source whose amplitude overflows float32 drives the fields to Inf/NaN: every tile stops at the same
/// guard step, and the run says at which step.
void tst_Decomposition::divergenceStopsAllTiles() {
    scene::Scene s = decompScene(48);
    s.sources[0].profile.type = scene::ProfileType::Cw;
    s.sources[0].profile.ramp = 0.01;
    s.sources[0].profile.amplitude = 1e39; // beyond float32: the first injection is Inf
    const run::RunResult r = runTiles(s, {2, 1, 1}, run::Precision::Float32, true, 8);
    QVERIFY(!r.completed);
    QVERIFY2(QString::fromStdString(r.status).contains("diverged"), r.status.c_str());
    QVERIFY2(QString::fromStdString(r.status).contains("step " + QString::number(r.steps)), r.status.c_str());
    QVERIFY(r.steps < 48);
    QCOMPARE(r.steps % 8, 0);
}

/// Cancel is seen by every tile at the next guard check.
void tst_Decomposition::cancelStopsWithinGuard() {
    const scene::Scene s = decompScene(48);
    std::atomic<bool> cancel{false};
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.tiles = {2, 2, 1};
    o.devices = 4;
    o.guardInterval = 4;
    o.cancel = &cancel;
    o.telemetryInterval = 0;
    int reports = 0;
    o.onTelemetry = [&](const telemetry::Report& rep) {
        ++reports;
        QCOMPARE(int(rep.devices.size()), 4);
        if (rep.step >= 12)
            cancel = true;
    };
    const run::RunResult r = run::run(s, o);
    QVERIFY(!r.completed);
    QVERIFY2(QString::fromStdString(r.status).contains("cancelled"), r.status.c_str());
    QCOMPARE(r.steps, 16);
    QVERIFY(reports >= 3);
}

QTEST_APPLESS_MAIN(tst_Decomposition)
#include "tst_decomposition.moc"
