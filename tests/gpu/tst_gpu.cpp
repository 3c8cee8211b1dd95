/// The solver on CUDA GPUs: forward runs equal to the CPU's (float tolerance; bit-identical expected,
/// since the kernels are compiled without FMA contraction), decomposition over GPUs bit-identical to one
/// GPU (NCCL and LocalComm halos), collective counts identical to the CPU run with the same tile grid,
/// gradients against finite differences and the CPU gradient, the memory ledger against the estimate and
/// against the driver. Every GPU test skips, saying why, where there is no GPU (or too few); the no-GPU
/// behaviour test runs everywhere.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "decomp/DecompScene.hpp"
#include "decomp/ResultCompare.hpp"
#include "gpu/GpuRequired.hpp"
#include "gradient/GradScene.hpp"
#include "gradient/RecordCodecCheck.hpp"
#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/device/Device.hpp"
#include "yee/device/Exec.hpp"
#include "yee/kernels/Accumulate.hpp"
#include "yee/kernels/ZMarch.hpp"
#include "yee/run/Run.hpp"

using namespace yee;
using namespace yee::testing;
using comm::Kind;
using comm::Phase;

namespace {

constexpr int kSteps = 200; ///< forward steps of the GPU scenes (decompScene: 24 x 20 x 16 cells)

/// Skip the current test (with the reason) unless `n` GPUs are visible; a failure in GPU-required mode.
#define REQUIRE_GPUS(n) YEE_REQUIRE_GPUS(n)

/// Skip the current test unless libyee was built with NCCL (when `nccl` is asked for); a failure in
/// GPU-required mode.
#define REQUIRE_NCCL_IF(nccl)                                                                                \
    do {                                                                                                     \
        if ((nccl) && !kHaveNccl)                                                                            \
            YEE_SKIP_OR_FAIL(std::string("this build has no NCCL"));                                         \
    } while (0)

#if defined(YEE_HAVE_NCCL) && YEE_HAVE_NCCL
constexpr bool kHaveNccl = true;
#else
constexpr bool kHaveNccl = false;
#endif

/// Runs `body`, turning an escaping exception into a test failure (Qt Test would abort the whole
/// executable). QVERIFY/QSKIP inside `body` work as in the test function itself.
template <class F> void guarded(F&& body) {
    try {
        body();
    } catch (const std::exception& e) {
        QTest::qFail(("exception: " + std::string(e.what())).c_str(), __FILE__, __LINE__);
    }
}

int tileCount(std::array<int, 3> t) {
    return t[0] * t[1] * t[2];
}

/// Options for a run on GPUs 0..N-1, tile t on GPU t.
run::RunOptions gpuOptions(const scene::Scene& s, std::array<int, 3> tiles, run::Precision p,
                           bool nccl = true, bool gradient = false) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    const int n = tileCount(tiles);
    o.precision = p;
    o.tiles = tiles;
    o.backend = run::Backend::Cuda;
    o.gpus.clear();
    for (int g = 0; g < n; ++g)
        o.gpus.push_back(g);
    o.devices = n;
    o.nccl = nccl;
    o.deviceNotice.clear();
    o.gradient = gradient;
    o.guardInterval = 16;
    return o;
}

/// The same run on N emulated CPU devices (one per tile).
run::RunOptions cpuOptions(const scene::Scene& s, std::array<int, 3> tiles, run::Precision p,
                           bool gradient = false) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = p;
    o.tiles = tiles;
    o.backend = run::Backend::Cpu;
    o.gpus.clear();
    o.devices = tileCount(tiles);
    o.deviceNotice.clear();
    o.gradient = gradient;
    o.guardInterval = 16;
    return o;
}

/// Runs and insists on completion (throws otherwise, which guarded() reports).
run::RunResult mustRun(const scene::Scene& s, const run::RunOptions& o) {
    run::RunResult r = run::run(s, o);
    if (!r.completed)
        throw std::runtime_error("run did not complete: " + r.status);
    return r;
}

/// Largest relative difference of two results: per array, max |a - b| over max |a| of that array;
/// detectors and objective in `detectors`, field snapshots (float32) in `snapshots`.
struct Difference {
    double detectors = 0;
    double snapshots = 0;
    std::string worst; ///< where the largest detector difference is
    std::string error; ///< structural mismatch (shapes, counts); empty if none
};

Difference relativeDifference(const run::RunResult& a, const run::RunResult& b) {
    Difference d;
    auto rel = [](double err, double scale) {
        if (err == 0)
            return 0.0;
        return scale > 0 ? err / scale : std::numeric_limits<double>::infinity();
    };
    if (a.detectors.size() != b.detectors.size()) {
        d.error = "detector count differs";
        return d;
    }
    for (std::size_t i = 0; i < a.detectors.size(); ++i) {
        const auto& x = a.detectors[i];
        const auto& y = b.detectors[i];
        if (x.arrays.size() != y.arrays.size()) {
            d.error = x.name + ": array count differs";
            return d;
        }
        for (std::size_t q = 0; q < x.arrays.size(); ++q) {
            const auto& u = x.arrays[q];
            const auto& v = y.arrays[q];
            if (u.shape != v.shape || u.data.size() != v.data.size()) {
                d.error = x.name + "/" + u.name + ": shape differs";
                return d;
            }
            double scale = 0, err = 0;
            for (std::size_t k = 0; k < u.data.size(); ++k) {
                scale = std::max(scale, std::abs(u.data[k]));
                err = std::max(err, std::abs(u.data[k] - v.data[k]));
            }
            const double r = rel(err, scale);
            if (!(r <= d.detectors)) { // also catches NaN
                d.detectors = std::isnan(r) ? std::numeric_limits<double>::infinity() : r;
                d.worst = x.name + "/" + u.name;
            }
        }
    }
    if (a.objective.has_value() != b.objective.has_value()) {
        d.error = "objective presence differs";
        return d;
    }
    if (a.objective) {
        const double r = rel(std::abs(*a.objective - *b.objective), std::abs(*a.objective));
        if (!(r <= d.detectors)) {
            d.detectors = std::isnan(r) ? std::numeric_limits<double>::infinity() : r;
            d.worst = "objective";
        }
    }
    if (a.snapshots.size() != b.snapshots.size()) {
        d.error = "snapshot count differs";
        return d;
    }
    for (std::size_t i = 0; i < a.snapshots.size(); ++i) {
        const auto& u = a.snapshots[i].data;
        const auto& v = b.snapshots[i].data;
        if (u.size() != v.size()) {
            d.error = "snapshot " + a.snapshots[i].component + ": size differs";
            return d;
        }
        double scale = 0, err = 0;
        for (std::size_t k = 0; k < u.size(); ++k) {
            scale = std::max(scale, double(std::abs(u[k])));
            err = std::max(err, double(std::abs(u[k] - v[k])));
        }
        const double r = rel(err, scale);
        d.snapshots = std::isnan(r) ? std::numeric_limits<double>::infinity() : std::max(d.snapshots, r);
    }
    return d;
}

/// Largest relative difference of two gradient lists (per region, over the region's max |g|).
double gradientDifference(const std::vector<solver::NamedArray>& a, const std::vector<solver::NamedArray>& b,
                          bool& identical) {
    identical = a.size() == b.size();
    if (a.size() != b.size())
        return std::numeric_limits<double>::infinity();
    double worst = 0;
    for (std::size_t d = 0; d < a.size(); ++d) {
        const auto& u = a[d].data;
        const auto& v = b[d].data;
        if (u.size() != v.size()) {
            identical = false;
            return std::numeric_limits<double>::infinity();
        }
        if (!u.empty() && std::memcmp(u.data(), v.data(), u.size() * sizeof(double)) != 0)
            identical = false;
        double scale = 0, err = 0;
        for (std::size_t k = 0; k < u.size(); ++k) {
            scale = std::max(scale, std::abs(u[k]));
            err = std::max(err, std::abs(u[k] - v[k]));
        }
        const double r = err == 0 ? 0.0 : (scale > 0 ? err / scale : std::numeric_limits<double>::infinity());
        worst = std::isnan(r) ? std::numeric_limits<double>::infinity() : std::max(worst, r);
    }
    return worst;
}

/// bitDiff() and, for gradient runs, bit-identical gradients: empty when identical, else what differs.
std::string bitDiffWithGradients(const run::RunResult& a, const run::RunResult& b, bool grad) {
    std::string diff = bitDiff(a, b);
    if (!diff.empty() || !grad)
        return diff;
    if (a.gradients.empty())
        return "no gradients";
    bool identical = false;
    const double rel = gradientDifference(a.gradients, b.gradients, identical);
    return identical
               ? std::string()
               : "gradients not bit-identical (largest relative difference " + std::to_string(rel) + ")";
}

/// The largest |field| over all snapshots: the comparison means something only if the run did something.
double maxField(const run::RunResult& r) {
    double m = 0;
    for (const auto& sn : r.snapshots)
        for (float v : sn.data)
            m = std::max(m, double(std::abs(v)));
    return m;
}

QString gridName(std::array<int, 3> t) {
    return QString("%1x%2x%3").arg(t[0]).arg(t[1]).arg(t[2]);
}

} // namespace

class tst_Gpu : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void forwardMatchesCpu_data();
    void forwardMatchesCpu();
    void decompositionBitIdentical_data();
    void decompositionBitIdentical();
    void collectiveCountsMatchCpu_data();
    void collectiveCountsMatchCpu();
    void tilesSharingOneGpu_data();
    void tilesSharingOneGpu();
    void ncclOneRank_data();
    void ncclOneRank();
    void gradientMatchesFdAndCpu_data();
    void gradientMatchesFdAndCpu();
    void ledgerPeakEqualsEstimate_data();
    void ledgerPeakEqualsEstimate();
    void ledgerMatchesDriver();
    void detectorKernelsMatchCpu_data();
    void detectorKernelsMatchCpu();
    void recorderCodecMatchesCpu_data();
    void recorderCodecMatchesCpu();
    void recorderTiersOnGpu_data();
    void recorderTiersOnGpu();
    void launchShapesBitIdentical();
    void marchingLaunchBitIdentical_data();
    void marchingLaunchBitIdentical();
    void marchingColumnsOnCpu();
    void noGpuBehaviour();
};

void tst_Gpu::initTestCase() {
    const int n = cuda::deviceCount();
    qInfo("CUDA build: %s, NCCL: %s, GPUs visible: %d%s%s, YEE_CUDA_SYNC=%s", cuda::built() ? "yes" : "no",
          kHaveNccl ? "yes" : "no", n, n == 0 ? " - " : "", n == 0 ? cuda::unavailableReason().c_str() : "",
          cuda::syncEveryLaunch() ? "1" : "0");
    qInfo("%s; GPU-required mode (YEE_GPU_REQUIRED=1): %s", cuda::versionText().c_str(),
          gpuRequired() ? "on" : "off");
    for (const auto& d : cuda::devices())
        qInfo("  cuda:%d %s sm_%d%d, %d SMs, %.1f GiB (%.1f GiB free), peak %.0f GB/s", d.id, d.name.c_str(),
              d.major, d.minor, d.multiprocessors, double(d.totalBytes) / 1073741824.0,
              double(d.freeBytes) / 1073741824.0, d.peakBandwidthGBs);
}

// ---------------------------------------------------------------------------------------------------------------
// Forward: one GPU against the CPU.

void tst_Gpu::forwardMatchesCpu_data() {
    QTest::addColumn<bool>("f64");
    QTest::addColumn<double>("tol");
    QTest::newRow("float32") << false << 1e-5;
    QTest::newRow("float64") << true << 1e-12;
}

void tst_Gpu::forwardMatchesCpu() {
    QFETCH(bool, f64);
    QFETCH(double, tol);
    REQUIRE_GPUS(1);
    guarded([&] {
        const scene::Scene s = decompScene(kSteps);
        const auto prec = f64 ? run::Precision::Float64 : run::Precision::Float32;
        const run::RunResult cpu = mustRun(s, cpuOptions(s, {1, 1, 1}, prec));
        const run::RunResult gpu = mustRun(s, gpuOptions(s, {1, 1, 1}, prec));
        QCOMPARE(gpu.steps, kSteps);
        QCOMPARE(gpu.cellUpdates, cpu.cellUpdates);
        QCOMPARE(int(gpu.devices.size()), 1);
        QVERIFY2(QString::fromStdString(gpu.devices[0].name).startsWith("cuda:"),
                 gpu.devices[0].name.c_str());
        QVERIFY(cpu.objective.has_value() && *cpu.objective != 0.0);
        QVERIFY(maxField(cpu) > 1e-6);
        const Difference d = relativeDifference(cpu, gpu);
        QVERIFY2(d.error.empty(), d.error.c_str());
        const std::string bits = bitDiff(cpu, gpu);
        qInfo("%s: GPU vs CPU %s; largest relative difference: detectors %.3e (%s), fields %.3e; GPU %.3f s, "
              "CPU %.3f s",
              f64 ? "float64" : "float32",
              bits.empty() ? "BIT-IDENTICAL" : ("not bit-identical (" + bits + ")").c_str(), d.detectors,
              d.worst.empty() ? "-" : d.worst.c_str(), d.snapshots, gpu.seconds, cpu.seconds);
        QVERIFY2(d.detectors <= tol, qPrintable(QString("detectors differ by %1 (> %2) at %3")
                                                    .arg(d.detectors)
                                                    .arg(tol)
                                                    .arg(QString::fromStdString(d.worst))));
        // Snapshots are stored as float32: allow the float rounding of a tiny double difference.
        const double snapTol = std::max(tol, 2.4e-7);
        QVERIFY2(d.snapshots <= snapTol,
                 qPrintable(QString("fields differ by %1 (> %2)").arg(d.snapshots).arg(snapTol)));
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Decomposition over GPUs: bit-identical to one GPU, with NCCL and with LocalComm halos.

void tst_Gpu::decompositionBitIdentical_data() {
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<int>("pz");
    QTest::addColumn<bool>("f64");
    QTest::addColumn<bool>("nccl");
    QTest::addColumn<QString>("method"); ///< "" forward only, else a gradient method (gradScene)
    const int grids[][3] = {{2, 1, 1}, {2, 2, 1}, {1, 2, 2}, {4, 1, 1}, {2, 2, 2}, {8, 1, 1}};
    for (bool nccl : {true, false})
        for (const auto& g : grids)
            for (bool f64 : {false, true}) {
                if (f64 && g[0] * g[1] * g[2] > 2)
                    continue; // float64 on the smallest grid only
                const QString name = QString("%1x%2x%3 %4 %5")
                                         .arg(g[0])
                                         .arg(g[1])
                                         .arg(g[2])
                                         .arg(f64 ? "f64" : "f32")
                                         .arg(nccl ? "nccl" : "local");
                QTest::newRow(qPrintable(name)) << g[0] << g[1] << g[2] << f64 << nccl << QString();
            }
    QTest::newRow("2x1x1 reversible f64 nccl") << 2 << 1 << 1 << true << true << "reversible";
    QTest::newRow("2x1x1 checkpointed f32 local") << 2 << 1 << 1 << false << false << "checkpointed";
    QTest::newRow("2x1x1 full f32 nccl") << 2 << 1 << 1 << false << true << "full";
}

void tst_Gpu::decompositionBitIdentical() {
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(int, pz);
    QFETCH(bool, f64);
    QFETCH(bool, nccl);
    QFETCH(QString, method);
    const std::array<int, 3> tiles{px, py, pz};
    REQUIRE_GPUS(tileCount(tiles));
    REQUIRE_NCCL_IF(nccl);
    guarded([&] {
        const auto prec = f64 ? run::Precision::Float64 : run::Precision::Float32;
        const bool grad = !method.isEmpty();
        const scene::Scene s = grad ? decomposableGradScene(method.toStdString()) : decompScene(kSteps);
        const run::RunResult one = mustRun(s, gpuOptions(s, {1, 1, 1}, prec, nccl, grad));
        const run::RunResult tiled = mustRun(s, gpuOptions(s, tiles, prec, nccl, grad));
        QCOMPARE(int(tiled.devices.size()), tileCount(tiles));
        for (std::size_t t = 0; t < tiled.devices.size(); ++t)
            QCOMPARE(QString::fromStdString(tiled.devices[t].name), QString("cuda:%1").arg(t));
        QVERIFY(one.objective.has_value() && *one.objective != 0.0);
        if (!grad)
            QVERIFY(maxField(one) > 1e-6);
        const std::string diff = bitDiffWithGradients(one, tiled, grad);
        QVERIFY2(diff.empty(), diff.c_str());
        qInfo("%s on %d GPUs (%s): bit-identical to 1 GPU; %.3f s vs %.3f s", qPrintable(gridName(tiles)),
              tileCount(tiles), nccl ? "NCCL" : "LocalComm", tiled.seconds, one.seconds);
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Collective counts: the GPU run talks exactly as often as the CPU run with the same tile grid.

void tst_Gpu::collectiveCountsMatchCpu_data() {
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<int>("pz");
    QTest::addColumn<bool>("nccl");
    QTest::addColumn<bool>("gradient");
    const int grids[][3] = {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {2, 2, 2}};
    for (bool gradient : {false, true})
        for (bool nccl : {true, false})
            for (const auto& g : grids)
                QTest::newRow(qPrintable(QString("%1x%2x%3 %4 %5")
                                             .arg(g[0])
                                             .arg(g[1])
                                             .arg(g[2])
                                             .arg(nccl ? "nccl" : "local")
                                             .arg(gradient ? "reversible" : "forward")))
                    << g[0] << g[1] << g[2] << nccl << gradient;
}

void tst_Gpu::collectiveCountsMatchCpu() {
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(int, pz);
    QFETCH(bool, nccl);
    QFETCH(bool, gradient);
    const std::array<int, 3> tiles{px, py, pz};
    REQUIRE_GPUS(tileCount(tiles));
    REQUIRE_NCCL_IF(nccl);
    guarded([&] {
        const scene::Scene s = gradient ? decomposableGradScene("reversible") : decompScene(48);
        const auto prec = run::Precision::Float32;
        const run::RunResult cpu = mustRun(s, cpuOptions(s, tiles, prec, gradient));
        const run::RunResult gpu = mustRun(s, gpuOptions(s, tiles, prec, nccl, gradient));
        QCOMPARE(gpu.devices.size(), cpu.devices.size());
        QCOMPARE(gpu.steps, cpu.steps);
        QCOMPARE(gpu.recomputedSteps, cpu.recomputedSteps);
        for (std::size_t d = 0; d < gpu.devices.size(); ++d) {
            const comm::CommStats& g = gpu.devices[d].comm;
            const comm::CommStats& c = cpu.devices[d].comm;
            for (int p = 0; p < comm::kPhaseCount; ++p)
                for (int k = 0; k < comm::kKindCount; ++k) {
                    const auto ph = Phase(p);
                    const auto kind = Kind(k);
                    QVERIFY2(g.callsOf(ph, kind) == c.callsOf(ph, kind),
                             qPrintable(QString("device %1 %2/%3: GPU %4 calls, CPU %5")
                                            .arg(d)
                                            .arg(comm::phaseName(ph))
                                            .arg(comm::kindName(kind))
                                            .arg(g.callsOf(ph, kind))
                                            .arg(c.callsOf(ph, kind))));
                }
            // Halo payloads are fixed by the geometry: the same bytes whichever transport moves them.
            for (int p = 0; p < comm::kPhaseCount; ++p)
                QVERIFY2(g.bytesOf(Phase(p), Kind::HaloExchange) == c.bytesOf(Phase(p), Kind::HaloExchange),
                         qPrintable(QString("device %1 %2 halo bytes: GPU %3, CPU %4")
                                        .arg(d)
                                        .arg(comm::phaseName(Phase(p)))
                                        .arg(g.bytesOf(Phase(p), Kind::HaloExchange))
                                        .arg(c.bytesOf(Phase(p), Kind::HaloExchange))));
        }
        if (!gradient) // pinned as in tst_decomposition: two grouped exchanges per forward step
            for (const auto& d : gpu.devices)
                QCOMPARE(d.comm.callsOf(Phase::Forward, Kind::HaloExchange), std::int64_t(2 * gpu.steps));
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Several tiles on one GPU (gpus = {0, 0, ...}, LocalComm halos): the decomposition path on a machine with a
// single GPU. Bit-identical to one tile, and the same collective counts as the CPU run with the same grid. If
// the solver refuses a GPU listed twice (InputError), the test skips with its message.

void tst_Gpu::tilesSharingOneGpu_data() {
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<int>("pz");
    QTest::addColumn<bool>("f64");
    QTest::addColumn<QString>("method");
    QTest::newRow("2x1x1 f32") << 2 << 1 << 1 << false << "";
    QTest::newRow("2x1x1 f64") << 2 << 1 << 1 << true << "";
    QTest::newRow("2x2x1 f32") << 2 << 2 << 1 << false << "";
    QTest::newRow("1x2x2 f64") << 1 << 2 << 2 << true << "";
    QTest::newRow("2x1x1 reversible f64") << 2 << 1 << 1 << true << "reversible";
    QTest::newRow("2x1x1 checkpointed f32") << 2 << 1 << 1 << false << "checkpointed";
}

void tst_Gpu::tilesSharingOneGpu() {
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(int, pz);
    QFETCH(bool, f64);
    QFETCH(QString, method);
    REQUIRE_GPUS(1);
    guarded([&] {
        const std::array<int, 3> tiles{px, py, pz};
        const auto prec = f64 ? run::Precision::Float64 : run::Precision::Float32;
        const bool grad = !method.isEmpty();
        const scene::Scene s = grad ? decomposableGradScene(method.toStdString()) : decompScene(kSteps);
        run::RunOptions shared = gpuOptions(s, tiles, prec, false, grad);
        shared.gpus.assign(std::size_t(tileCount(tiles)), 0);
        run::RunResult tiled;
        try {
            tiled = run::run(s, shared);
        } catch (const InputError& e) {
            YEE_SKIP_OR_FAIL(std::string("tiles sharing a GPU refused: ") + e.what());
        }
        QVERIFY2(tiled.completed, tiled.status.c_str());
        const run::RunResult one = mustRun(s, gpuOptions(s, {1, 1, 1}, prec, false, grad));
        const run::RunResult cpu = mustRun(s, cpuOptions(s, tiles, prec, grad));
        QVERIFY(one.objective.has_value() && *one.objective != 0.0);
        const std::string diff = bitDiffWithGradients(one, tiled, grad);
        QVERIFY2(diff.empty(), diff.c_str());
        QCOMPARE(tiled.devices.size(), cpu.devices.size());
        for (std::size_t d = 0; d < tiled.devices.size(); ++d)
            for (int p = 0; p < comm::kPhaseCount; ++p)
                for (int k = 0; k < comm::kKindCount; ++k)
                    QVERIFY2(tiled.devices[d].comm.calls[std::size_t(p)][std::size_t(k)] ==
                                 cpu.devices[d].comm.calls[std::size_t(p)][std::size_t(k)],
                             qPrintable(QString("device %1 %2/%3: GPU %4 calls, CPU %5")
                                            .arg(d)
                                            .arg(comm::phaseName(Phase(p)))
                                            .arg(comm::kindName(Kind(k)))
                                            .arg(tiled.devices[d].comm.calls[std::size_t(p)][std::size_t(k)])
                                            .arg(cpu.devices[d].comm.calls[std::size_t(p)][std::size_t(k)])));
        qInfo("%s tiles on one GPU (LocalComm): bit-identical to one tile; counts equal to CPU",
              qPrintable(gridName(tiles)));
    });
}

// ---------------------------------------------------------------------------------------------------------------
// NCCL on one GPU: one tile through a one-rank NCCL communicator (the periodic z faces exchange with the tile
// itself through NCCL's stream and events; the adjoint's merged groups likewise), bit-identical to the same
// tile through LocalComm, with the same collective counts and halo bytes call for call.

void tst_Gpu::ncclOneRank_data() {
    QTest::addColumn<bool>("f64");
    QTest::addColumn<QString>("method");
    QTest::newRow("forward f32") << false << "";
    QTest::newRow("forward f64") << true << "";
    QTest::newRow("reversible f64") << true << "reversible";
    QTest::newRow("checkpointed f32") << false << "checkpointed";
    QTest::newRow("full f32") << false << "full";
}

void tst_Gpu::ncclOneRank() {
    QFETCH(bool, f64);
    QFETCH(QString, method);
    REQUIRE_GPUS(1);
    REQUIRE_NCCL_IF(true);
    guarded([&] {
        const auto prec = f64 ? run::Precision::Float64 : run::Precision::Float32;
        const bool grad = !method.isEmpty();
        const scene::Scene s = grad ? decomposableGradScene(method.toStdString()) : decompScene(kSteps);
        const run::RunResult local = mustRun(s, gpuOptions(s, {1, 1, 1}, prec, false, grad));
        run::RunOptions o = gpuOptions(s, {1, 1, 1}, prec, true, grad);
        o.ncclOneTile = true;
        const run::RunResult nccl = mustRun(s, o);
        QCOMPARE(int(nccl.devices.size()), 1);
        QVERIFY2(nccl.devices[0].deviceMessages, "the one-tile run did not go through NCCL");
        QVERIFY(!local.devices[0].deviceMessages);
        QVERIFY(local.objective.has_value() && *local.objective != 0.0);
        const std::string diff = bitDiffWithGradients(local, nccl, grad);
        QVERIFY2(diff.empty(), diff.c_str());
        const comm::CommStats& n = nccl.devices[0].comm;
        const comm::CommStats& l = local.devices[0].comm;
        for (int p = 0; p < comm::kPhaseCount; ++p) {
            for (int k = 0; k < comm::kKindCount; ++k)
                QVERIFY2(n.callsOf(Phase(p), Kind(k)) == l.callsOf(Phase(p), Kind(k)),
                         qPrintable(QString("%1/%2: NCCL %3 calls, LocalComm %4")
                                        .arg(comm::phaseName(Phase(p)))
                                        .arg(comm::kindName(Kind(k)))
                                        .arg(n.callsOf(Phase(p), Kind(k)))
                                        .arg(l.callsOf(Phase(p), Kind(k)))));
            QCOMPARE(n.bytesOf(Phase(p), Kind::HaloExchange), l.bytesOf(Phase(p), Kind::HaloExchange));
        }
        if (!grad) { // decompScene's periodic z faces really exchanged: two grouped exchanges per step
            QCOMPARE(n.callsOf(Phase::Forward, Kind::HaloExchange), std::int64_t(2 * nccl.steps));
            QVERIFY(n.bytesOf(Phase::Forward, Kind::HaloExchange) > 0);
        }
        qInfo("1x1x1 %s %s through one-rank NCCL: bit-identical to LocalComm, counts equal; %.3f s vs %.3f s",
              f64 ? "f64" : "f32", grad ? qPrintable(method) : "forward", nccl.seconds, local.seconds);
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Gradients on one GPU: against central finite differences (GPU forward runs) and the CPU gradient.

void tst_Gpu::gradientMatchesFdAndCpu_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<bool>("lossy");
    QTest::addColumn<double>("fdTol");
    // Tolerances as in tst_gradient (the reversible float64 recorder in a lossless scene).
    QTest::newRow("full lossy") << "full" << true << 1e-6;
    QTest::newRow("checkpointed lossy") << "checkpointed" << true << 1e-6;
    QTest::newRow("reversible f64 lossless") << "reversible" << false << 1e-4;
}

void tst_Gpu::gradientMatchesFdAndCpu() {
    QFETCH(QString, method);
    QFETCH(bool, lossy);
    QFETCH(double, fdTol);
    REQUIRE_GPUS(1);
    guarded([&] {
        GradSceneOptions go;
        go.lossy = lossy;
        scene::Scene s = gradScene(go);
        setGradientMethod(s, method.toStdString());
        const auto f64 = run::Precision::Float64;
        const run::RunResult gpu = mustRun(s, gpuOptions(s, {1, 1, 1}, f64, true, true));
        const run::RunResult cpu = mustRun(s, cpuOptions(s, {1, 1, 1}, f64, true));
        QVERIFY(gpu.objective.has_value() && cpu.objective.has_value());
        QCOMPARE(int(gpu.gradients.size()), 2);
        QCOMPARE(gpu.recomputedSteps, cpu.recomputedSteps);

        // Against the CPU gradient.
        bool identical = false;
        const double relCpu = gradientDifference(cpu.gradients, gpu.gradients, identical);
        const double relObj = std::abs(*gpu.objective - *cpu.objective) / std::abs(*cpu.objective);
        qInfo("%s: GPU gradient vs CPU %s, largest relative difference %.3e; objective %.3e; GPU %.3f+%.3f s",
              qPrintable(method), identical ? "BIT-IDENTICAL" : "not bit-identical", relCpu, relObj,
              gpu.forwardSeconds, gpu.backwardSeconds);
        QVERIFY2(relCpu <= 1e-10, qPrintable(QString("GPU gradient differs from CPU by %1").arg(relCpu)));
        QVERIFY2(relObj <= 1e-10, qPrintable(QString("GPU objective differs from CPU by %1").arg(relObj)));

        // Against central finite differences of GPU forward runs, at the three largest entries per region.
        auto objectiveAt = [&](int d, std::size_t v, double value) {
            scene::Scene t = s;
            t.designs[std::size_t(d)].latent[v] = value;
            return *mustRun(t, gpuOptions(t, {1, 1, 1}, f64, true, false)).objective;
        };
        int checked = 0;
        const double worst = worstFdError(s, gpu.gradients, objectiveAt, checked, qPrintable(method));
        QCOMPARE(checked, 6);
        QVERIFY2(worst <= fdTol, qPrintable(QString("worst relative error %1 > %2").arg(worst).arg(fdTol)));
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Memory: the per-device ledger's peak is the estimate's figure; the ledger agrees with the driver.

void tst_Gpu::ledgerPeakEqualsEstimate_data() {
    QTest::addColumn<int>("px");
    QTest::addColumn<bool>("f64");
    QTest::addColumn<QString>("method"); ///< "" forward (decompScene), else a gradient method (gradScene)
    QTest::newRow("forward f32") << 1 << false << "";
    QTest::newRow("forward f64") << 1 << true << "";
    QTest::newRow("full f64") << 1 << true << "full";
    QTest::newRow("checkpointed f32") << 1 << false << "checkpointed";
    QTest::newRow("reversible f32") << 1 << false << "reversible";
    QTest::newRow("forward f32 2 GPUs") << 2 << false << "";
    QTest::newRow("reversible f64 2 GPUs") << 2 << true << "reversible";
}

void tst_Gpu::ledgerPeakEqualsEstimate() {
    QFETCH(int, px);
    QFETCH(bool, f64);
    QFETCH(QString, method);
    REQUIRE_GPUS(px);
    guarded([&] {
        const bool grad = !method.isEmpty();
        const scene::Scene s = grad ? decomposableGradScene(method.toStdString()) : decompScene(16);
        const auto prec = f64 ? run::Precision::Float64 : run::Precision::Float32;
        const run::RunOptions o = gpuOptions(s, {px, 1, 1}, prec, kHaveNccl, grad);
        const run::Estimate e = run::estimate(s, o);
        const run::RunResult r = mustRun(s, o);
        QCOMPARE(e.devices.size(), r.devices.size());
        for (std::size_t d = 0; d < e.devices.size(); ++d) {
            const auto& est = e.devices[d].memory;
            const auto& got = r.devices[d].memory;
            qInfo("device %zu (%s): estimate %lld B, ledger peak %lld B", d, r.devices[d].name.c_str(),
                  (long long)est.peakTotal, (long long)got.peakTotal);
            QVERIFY(got.peakTotal > 0);
            QCOMPARE(got.peakTotal, est.peakTotal);
            for (int c = 0; c < device::kCategoryCount; ++c)
                QVERIFY2(got.peak[c] == est.peak[c],
                         qPrintable(QString("device %1 %2: ledger %3 vs estimate %4")
                                        .arg(d)
                                        .arg(device::categoryName(device::Category(c)))
                                        .arg(got.peak[c])
                                        .arg(est.peak[c])));
        }
    });
}

void tst_Gpu::ledgerMatchesDriver() {
    REQUIRE_GPUS(1);
    guarded([&] {
        device::Device dev(device::DeviceKind::Cuda, 0, 1, 0);
        QVERIFY(dev.isCuda());
        QVERIFY(dev.stream() != nullptr);
        QVERIFY(dev.capacity() > 0);
        constexpr std::int64_t MiB = std::int64_t(1) << 20;
        std::vector<device::Buffer<char>> bufs;
        // Odd sizes too: the driver rounds every allocation up to its page size (at most 2 MiB).
        for (std::int64_t bytes :
             {4 * MiB, 3 * MiB + 12345, 64 * MiB, std::int64_t(100), 256 * MiB, 17 * MiB + 1})
            bufs.emplace_back(dev, bytes, device::Category::Staging);
        dev.sync();
        const std::int64_t n = std::int64_t(bufs.size());
        const std::int64_t ledger = dev.ledger().currentTotal();
        const std::int64_t driver = dev.driverUsedBytes();
        qInfo("%lld allocations: ledger %lld B, driver %lld B, difference %lld B (allowed %lld B)",
              (long long)n, (long long)ledger, (long long)driver, (long long)(driver - ledger),
              (long long)(n * 2 * MiB));
        QVERIFY(ledger > 0);
        QVERIFY2(std::abs(driver - ledger) <= n * 2 * MiB,
                 qPrintable(QString("driver %1 B vs ledger %2 B").arg(driver).arg(ledger)));
        // Zeroed on allocation; plain device memory, reached from the host only by copies (the memory
        // model of cuda/Runtime.hpp).
        const auto& b = bufs[1];
        std::vector<char> host(std::size_t(b.size()), 1);
        dev.copy(host.data(), b.data(), b.bytes());
        QVERIFY2(std::all_of(host.begin(), host.end(), [](char c) { return c == 0; }),
                 "a new GPU buffer is not zeroed");
        std::vector<char> pattern(std::size_t(bufs[3].size()));
        for (std::size_t i = 0; i < pattern.size(); ++i)
            pattern[i] = char(i + 1);
        dev.copy(bufs[3].data(), pattern.data(), bufs[3].bytes());
        dev.copy(bufs[0].data() + 5, bufs[3].data(), bufs[3].bytes()); // device to device
        std::vector<char> back(pattern.size());
        dev.copy(back.data(), bufs[0].data() + 5, bufs[3].bytes());
        QVERIFY2(back == pattern, "device-to-device copy differs");
        // The host category is host memory, outside the GPU's capacity and the ledger's total.
        const std::int64_t before = dev.ledger().currentTotal();
        {
            device::Buffer<double> h(dev, 1000, device::Category::Host);
            h[999] = 2.5; // host memory: written in place
            QCOMPARE(h[999], 2.5);
            QCOMPARE(dev.ledger().currentTotal(), before);
            QCOMPARE(dev.ledger().snapshot().current[int(device::Category::Host)], std::int64_t(8000));
        }
        QCOMPARE(dev.ledger().snapshot().current[int(device::Category::Host)], std::int64_t(0));
        bufs.clear();
        qInfo("after freeing: ledger %lld B, driver %lld B", (long long)dev.ledger().currentTotal(),
              (long long)dev.driverUsedBytes());
        QCOMPARE(dev.ledger().currentTotal(), std::int64_t(0));
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Detector accumulation: the same kernels (kernels/Accumulate.hpp) on the GPU and on a CPU device, from the
// same field values, give the same bits (the float64 DFT sums in step order, the exact sums whatever the
// order of the atomic additions).

namespace {

/// The detector kernels' outputs after `steps` steps over random fields on `dev`.
template <class T> struct AccumulationRun {
    std::vector<double> fluxPhasor, phasor, prevE, probe;
    std::vector<std::int64_t> fluxSums, energySums;
};

template <class T> AccumulationRun<T> accumulate(device::Device& dev, int steps, int nl) {
    const ArrayShape sh = ArrayShape::make(23, 17, 9);
    std::mt19937_64 rng(20261201);
    std::normal_distribution<double> gauss(0.0, 1.0);
    std::vector<device::Buffer<T>> f;
    for (int c = 0; c < 6; ++c)
        f.emplace_back(dev, sh.size, device::Category::Fields);
    const Box plane{{2, 1, 4}, {21, 16, 5}}; // a z-normal plane, one E plane thick
    const std::int64_t cells = plane.cells();
    const kernels::DenseCells dense{plane.lo[0], plane.lo[1], plane.lo[2], plane.extent(0),
                                    std::int64_t(plane.extent(0)) * plane.extent(1)};
    constexpr int kWords = kernels::kExactWords + 1;
    device::Buffer<double> fluxPh(dev, cells * nl * 8, device::Category::Detectors);
    device::Buffer<double> ph(dev, cells * 4 * nl * 2, device::Category::Detectors);
    device::Buffer<double> eps(dev, 3 * cells, device::Category::Detectors),
        mu(dev, 3 * cells, device::Category::Detectors), prevE(dev, 3 * cells, device::Category::Detectors);
    device::Buffer<std::int64_t> fluxSums(dev, std::int64_t(steps) * kWords, device::Category::Detectors),
        energySums(dev, std::int64_t(steps) * kWords, device::Category::Detectors);
    device::Buffer<double> probe(dev, std::int64_t(steps) * 6, device::Category::Detectors);
    device::Buffer<double> w(dev, 4 * nl, device::Category::Staging);
    std::vector<double> host(std::size_t(3 * cells));
    for (auto& v : host)
        v = 1 + 11 * std::abs(gauss(rng));
    dev.copy(eps.data(), host.data(), eps.bytes());
    for (auto& v : host)
        v = 1 + std::abs(gauss(rng));
    dev.copy(mu.data(), host.data(), mu.bytes());
    std::vector<T> field(std::size_t(sh.size));
    std::vector<double> weights(std::size_t(4 * nl));
    for (int n = 0; n < steps; ++n) {
        for (int c = 0; c < 6; ++c) {
            for (auto& v : field)
                v = T(gauss(rng) * std::pow(10.0, 3 * gauss(rng))); // wide exponents: every digit
            dev.copy(f[std::size_t(c)].data(), field.data(), f[std::size_t(c)].bytes());
        }
        for (auto& v : weights)
            v = gauss(rng);
        dev.copy(w.data(), weights.data(), w.bytes());
        View<const T> F[6];
        for (int c = 0; c < 6; ++c)
            F[c] = View<T>(f[std::size_t(c)].data(), sh);
        kernels::EnergySaveE<T> save{F[0], F[1], F[2], dense, cells, prevE.data()};
        device::launchIndex(dev, cells, 3, save);
        kernels::FluxPlaneStep<T> fl;
        fl.ep = F[0];
        fl.eq = F[1];
        fl.hp = F[3];
        fl.hq = F[4];
        fl.cells = dense;
        fl.below = sh.sz;
        fl.wE = w.data();
        fl.wH = w.data() + 2 * nl;
        fl.nl = nl;
        fl.sign = -1;
        fl.phasor = fluxPh.data();
        fl.sum = fluxSums.data() + std::int64_t(n) * kWords;
        device::launchIndex(dev, cells, 3, fl);
        device::launchIndex(dev, 1, 1, kernels::NormalizeExact{fl.sum});
        kernels::PhasorStep<T> pk;
        for (int c = 0; c < 6; ++c)
            pk.f[c] = F[c];
        pk.ncTotal = 4;
        pk.nc = 4;
        const int comps[4] = {2, 0, 5, 3};
        std::copy(comps, comps + 4, pk.comp);
        pk.cells = dense;
        pk.wE = fl.wE;
        pk.wH = fl.wH;
        pk.nl = nl;
        pk.phasor = ph.data();
        device::launchIndex(dev, cells, 3, pk);
        kernels::EnergySample<T> en;
        for (int c = 0; c < 6; ++c)
            en.f[c] = F[c];
        en.cells = dense;
        en.count = cells;
        en.eps = eps.data();
        en.mu = mu.data();
        en.prevE = prevE.data();
        en.sum = energySums.data() + std::int64_t(n) * kWords;
        device::launchIndex(dev, cells, 3, en);
        device::launchIndex(dev, 1, 1, kernels::NormalizeExact{en.sum});
        kernels::ProbeSample<T> pr;
        for (int q = 0; q < 6; ++q)
            pr.src[q] = &View<T>(f[std::size_t(q)].data(), sh)(3 + q, 2 * q, q);
        pr.out = probe.data() + std::int64_t(n) * 6;
        device::launchIndex(dev, 6, 1, pr);
    }
    AccumulationRun<T> r;
    auto back = [&](auto& buf, auto& out) {
        out.resize(std::size_t(buf.size()));
        dev.copy(out.data(), buf.data(), buf.bytes());
    };
    back(fluxPh, r.fluxPhasor);
    back(ph, r.phasor);
    back(prevE, r.prevE);
    back(probe, r.probe);
    back(fluxSums, r.fluxSums);
    back(energySums, r.energySums);
    return r;
}

template <class A> bool sameBits(const std::vector<A>& a, const std::vector<A>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(A)) == 0;
}

template <class T> std::string accumulationDiff(device::Device& gpu, device::Device& cpu) {
    const AccumulationRun<T> g = accumulate<T>(gpu, 12, 3), c = accumulate<T>(cpu, 12, 3);
    std::string d;
    if (!sameBits(g.fluxPhasor, c.fluxPhasor))
        d += " flux phasors";
    if (!sameBits(g.fluxSums, c.fluxSums))
        d += " flux sums";
    if (!sameBits(g.phasor, c.phasor))
        d += " phasors";
    if (!sameBits(g.prevE, c.prevE))
        d += " saved E";
    if (!sameBits(g.energySums, c.energySums))
        d += " energy sums";
    if (!sameBits(g.probe, c.probe))
        d += " probe samples";
    bool someSum = false;
    for (std::int64_t w : c.fluxSums)
        someSum = someSum || w != 0;
    if (!someSum)
        d += " (the CPU's flux sums are all zero: the test measured nothing)";
    return d;
}

} // namespace

void tst_Gpu::detectorKernelsMatchCpu_data() {
    QTest::addColumn<bool>("f64");
    QTest::newRow("float32") << false;
    QTest::newRow("float64") << true;
}

void tst_Gpu::detectorKernelsMatchCpu() {
    QFETCH(bool, f64);
    REQUIRE_GPUS(1);
    guarded([&] {
        device::Device gpu(device::DeviceKind::Cuda, 0, 1, 0);
        device::Device cpu(device::DeviceKind::Cpu, 0, 3, std::int64_t(1) << 32);
        const std::string d = f64 ? accumulationDiff<double>(gpu, cpu) : accumulationDiff<float>(gpu, cpu);
        qInfo("%s detector kernels, GPU vs CPU: %s", f64 ? "float64" : "float32",
              d.empty() ? "BIT-IDENTICAL" : ("differ in" + d).c_str());
        QVERIFY2(d.empty(), ("GPU and CPU detector kernels differ in" + d).c_str());
    });
}

// ---------------------------------------------------------------------------------------------------------------
// The reversible recorder on the device: records encoded and decoded by kernels/RecordCodec.hpp on the GPU
// give the host codec's bytes and values (the CPU check of tst_record_codec, here on the GPU), and a GPU
// reversible run's gradient is the same for the device, host and disk tiers (the slots moved by the
// recorder's worker stream) and agrees with the CPU's.

void tst_Gpu::recorderCodecMatchesCpu_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<int>("values");
    const char* kinds[] = {"wide", "ties", "zeros", "nonfinite"};
    for (gradient::Dtype d : {gradient::Dtype::Float64, gradient::Dtype::Float32, gradient::Dtype::BFloat16,
                              gradient::Dtype::Float16, gradient::Dtype::Int8})
        for (int v = 0; v < 4; ++v)
            QTest::newRow(qPrintable(QString("%1 %2").arg(gradient::dtypeName(d)).arg(kinds[v])))
                << int(d) << v;
}

void tst_Gpu::recorderCodecMatchesCpu() {
    QFETCH(int, dtype);
    QFETCH(int, values);
    REQUIRE_GPUS(1);
    guarded([&] {
        device::Device gpu(device::DeviceKind::Cuda, 0, 1, 0);
        for (bool f64 : {false, true}) {
            const auto d = gradient::Dtype(dtype);
            const auto v = CodecValues(values);
            const std::string diff =
                f64 ? recordCodecDiff<double>(gpu, d, v) : recordCodecDiff<float>(gpu, d, v);
            QVERIFY2(diff.empty(),
                     ((f64 ? "float64 GPU codec vs host:" : "float32 GPU codec vs host:") + diff).c_str());
        }
    });
}

void tst_Gpu::recorderTiersOnGpu_data() {
    QTest::addColumn<QString>("dtype");
    QTest::newRow("bfloat16") << "bfloat16";
    QTest::newRow("int8") << "int8";
    QTest::newRow("float32") << "float32";
}

void tst_Gpu::recorderTiersOnGpu() {
    QFETCH(QString, dtype);
    REQUIRE_GPUS(1);
    guarded([&] {
        GradSceneOptions go;
        go.lossy = false;
        go.steps = 60;
        scene::Scene s = gradScene(go);
        setLossyRecorder(s, 2, dtype.toStdString());
        s.gradient.transferInterval = 4;
        s.gradient.ringBuffers = 3;
        const auto f32 = run::Precision::Float32;
        std::vector<run::RunResult> gpu;
        for (const char* tier : {"device", "host", "disk"}) {
            s.gradient.tier = tier;
            gpu.push_back(mustRun(s, gpuOptions(s, {1, 1, 1}, f32, false, true)));
            QVERIFY2(gpu.back().gradients.size() == 2, tier);
        }
        s.gradient.tier = "host";
        const run::RunResult cpu = mustRun(s, cpuOptions(s, {1, 1, 1}, f32, true));
        for (std::size_t t = 1; t < gpu.size(); ++t) {
            bool identical = false;
            const double rel = gradientDifference(gpu[0].gradients, gpu[t].gradients, identical);
            QVERIFY2(identical, qPrintable(QString("GPU %1 tier differs from the device tier by %2")
                                               .arg(t == 1 ? "host" : "disk")
                                               .arg(rel)));
        }
        bool identical = false;
        const double rel = gradientDifference(cpu.gradients, gpu[1].gradients, identical);
        double norm = 0;
        for (const auto& g : cpu.gradients)
            for (double x : g.data)
                norm = std::max(norm, std::abs(x));
        qInfo("%s recorder on the GPU: device, host, disk tiers bit-identical; vs CPU %s (largest relative "
              "difference %.3e)",
              qPrintable(dtype), identical ? "BIT-IDENTICAL" : "not bit-identical", rel);
        QVERIFY(norm > 0);
        QVERIFY2(rel <= 1e-5, qPrintable(QString("GPU gradient differs from CPU by %1").arg(rel)));
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Launch shapes: threads marching along z over several planes (cuda::setCellZPlanes) give the bits of one
// cell per thread, for a forward run and a reversible gradient.

void tst_Gpu::launchShapesBitIdentical() {
    REQUIRE_GPUS(1);
    guarded([&] {
        const int planes0 = cuda::cellZPlanes();
        const scene::Scene fwd = decompScene(kSteps);
        const scene::Scene grad = decomposableGradScene("reversible");
        const auto f32 = run::Precision::Float32;
        cuda::setCellZPlanes(1);
        const run::RunResult a = mustRun(fwd, gpuOptions(fwd, {1, 1, 1}, f32, false));
        const run::RunResult ga = mustRun(grad, gpuOptions(grad, {1, 1, 1}, f32, false, true));
        for (int planes : {3, 16}) {
            cuda::setCellZPlanes(planes);
            const run::RunResult b = mustRun(fwd, gpuOptions(fwd, {1, 1, 1}, f32, false));
            const run::RunResult gb = mustRun(grad, gpuOptions(grad, {1, 1, 1}, f32, false, true));
            cuda::setCellZPlanes(planes0);
            std::string diff = bitDiffWithGradients(a, b, false);
            QVERIFY2(diff.empty(),
                     qPrintable(QString("%1 z planes per thread: %2").arg(planes).arg(diff.c_str())));
            diff = bitDiffWithGradients(ga, gb, true);
            QVERIFY2(diff.empty(),
                     qPrintable(QString("%1 z planes, gradient: %2").arg(planes).arg(diff.c_str())));
        }
        QVERIFY(a.objective.has_value() && *a.objective != 0.0);
        qInfo("forward and reversible gradient with 3 and 16 z planes per thread: bit-identical to 1");
    });
}

// ---------------------------------------------------------------------------------------------------------------
// The z-marching Yee updates (2.5-D blocking with register reuse, cuda::setCellBlocking, CudaMarch.cuh):
// bit-identical to the plain launch and to the CPU, forward (material-index tables) and gradient (per-cell
// coefficients), with CPML slabs, periodic halos, tiles sharing the GPU, dispersive poles, and march
// lengths that do not divide the tile (1, 5) or exceed it (64). On a GPU machine these rows run in the
// GPU-required mode like every other, so they fail rather than skip there.

void tst_Gpu::marchingLaunchBitIdentical_data() {
    QTest::addColumn<int>("blockZ");
    QTest::addColumn<bool>("f64");
    QTest::addColumn<int>("tilesX");   ///< tiles along x, all on GPU 0 (LocalComm halos)
    QTest::addColumn<QString>("kind"); ///< "forward", "dispersive" or a gradient method
    QTest::newRow("forward f32 block_z 16") << 16 << false << 1 << "forward";
    QTest::newRow("forward f64 block_z 16") << 16 << true << 1 << "forward";
    QTest::newRow("forward f32 block_z 1") << 1 << false << 1 << "forward";
    QTest::newRow("forward f32 block_z 5") << 5 << false << 1 << "forward";
    QTest::newRow("forward f64 block_z 64") << 64 << true << 1 << "forward";
    QTest::newRow("forward f32 2x1x1 tiles on one GPU") << 16 << false << 2 << "forward";
    QTest::newRow("dispersive f32 block_z 16") << 16 << false << 1 << "dispersive";
    QTest::newRow("reversible f32 block_z 16") << 16 << false << 1 << "reversible";
    QTest::newRow("checkpointed f64 block_z 5") << 5 << true << 1 << "checkpointed";
}

void tst_Gpu::marchingLaunchBitIdentical() {
    QFETCH(int, blockZ);
    QFETCH(bool, f64);
    QFETCH(int, tilesX);
    QFETCH(QString, kind);
    REQUIRE_GPUS(1);
    guarded([&] {
        const bool blocking0 = cuda::cellBlocking();
        const int blockZ0 = cuda::blockZPlanes();
        const int planes0 = cuda::cellZPlanes();
        const bool grad = kind != "forward" && kind != "dispersive";
        scene::Scene s = grad ? decomposableGradScene(kind.toStdString()) : decompScene(kSteps);
        if (kind == "dispersive") {
            bool found = false;
            for (auto& m : s.materials)
                if (m.name == "glass") {
                    scene::Pole p;
                    p.type = scene::PoleType::Lorentz;
                    p.deltaEps = 1.5;
                    p.omegaEv = 2.5;
                    p.gammaEv = 0.2;
                    m.poles.push_back(p);
                    found = true;
                }
            QVERIFY2(found, "decompScene has no glass material");
        }
        const auto prec = f64 ? run::Precision::Float64 : run::Precision::Float32;
        const std::array<int, 3> tiles{tilesX, 1, 1};
        run::RunOptions o = gpuOptions(s, {1, 1, 1}, prec, false, grad);
        if (tilesX > 1) {
            o = gpuOptions(s, tiles, prec, false, grad);
            o.gpus.assign(std::size_t(tileCount(tiles)), 0);
        }
        const auto restore = [&] {
            cuda::setCellBlocking(blocking0);
            cuda::setBlockZPlanes(blockZ0);
            cuda::setCellZPlanes(planes0);
        };
        run::RunResult plain, marching;
        try {
            cuda::setCellZPlanes(1);
            cuda::setCellBlocking(false);
            plain = mustRun(s, o);
            cuda::setCellBlocking(true);
            cuda::setBlockZPlanes(blockZ);
            marching = mustRun(s, o);
        } catch (...) {
            restore();
            throw;
        }
        restore();
        const run::RunResult cpu = mustRun(s, cpuOptions(s, tiles, prec, grad));
        QVERIFY(plain.objective.has_value() && *plain.objective != 0.0);
        if (!grad)
            QVERIFY(maxField(plain) > 1e-6);
        QCOMPARE(marching.cellUpdates, plain.cellUpdates);
        const std::string vsPlain = bitDiffWithGradients(plain, marching, grad);
        QVERIFY2(vsPlain.empty(),
                 qPrintable("z-marching vs plain launch: " + QString::fromStdString(vsPlain)));
        const std::string vsCpu = bitDiffWithGradients(cpu, marching, grad);
        const std::string plainVsCpu = bitDiffWithGradients(cpu, plain, grad);
        qInfo("%s: z-marching (block_z %d) bit-identical to the plain launch; vs CPU %s (plain launch vs CPU "
              "%s); marching %.3f s, plain %.3f s",
              QTest::currentDataTag(), blockZ, vsCpu.empty() ? "BIT-IDENTICAL" : vsCpu.c_str(),
              plainVsCpu.empty() ? "BIT-IDENTICAL" : plainVsCpu.c_str(), marching.seconds, plain.seconds);
        if (plainVsCpu.empty()) {
            QVERIFY2(vsCpu.empty(), qPrintable("z-marching vs CPU: " + QString::fromStdString(vsCpu)));
            return;
        }
        // The plain launch already differs from the CPU (a property of the GPU path, not of the launch
        // shape; forwardMatchesCpu and gradientMatchesFdAndCpu hold it to their tolerances): the marching
        // launch, bit-identical to the plain one, then differs by exactly as much. Say so loudly and hold it
        // to the same tolerances.
        qWarning(
            "%s: the plain launch is not bit-identical to the CPU (%s); the z-marching launch has its bits",
            QTest::currentDataTag(), plainVsCpu.c_str());
        const double tol = f64 ? 1e-12 : 1e-5;
        if (grad) {
            bool identical = false;
            const double rel = gradientDifference(cpu.gradients, marching.gradients, identical);
            QVERIFY2(rel <= tol, qPrintable(QString("gradient differs from the CPU by %1").arg(rel)));
        } else {
            const Difference d = relativeDifference(cpu, marching);
            QVERIFY2(d.error.empty(), d.error.c_str());
            QVERIFY2(d.detectors <= tol, qPrintable(QString("detectors differ from the CPU by %1 at %2")
                                                        .arg(d.detectors)
                                                        .arg(QString::fromStdString(d.worst))));
        }
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Runs everywhere: the z-marching columns the GPU's marching launch runs (kernels/ZMarch.hpp), run on the
// host piece by piece as the GPU's thread blocks cut the z range, against the plain cell loop: the same
// bits in every updated array, for the H and E updates with every coefficient kind (scalar Db, per-cell
// arrays, material index and tables), lossy and not, float and double, over a sub-box of an odd-sized
// tile, with march lengths 1, 3, 4, longer than the box and not dividing it.

namespace {

/// A tile of random fields and coefficients (per-cell arrays and an index with 5-entry tables).
template <class T> struct MarchTile {
    ArrayShape sh = ArrayShape::make(13, 7, 11);
    std::vector<T> f[6];
    std::vector<T> cell[9]; ///< per-cell Cb, Ca, Db of the three components
    std::vector<kernels::MaterialIndex> idx;
    std::vector<T> tab[9];
    explicit MarchTile(unsigned seed) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<double> field(-1.0, 1.0), coef(0.05, 0.95);
        for (auto& a : f) {
            a.resize(std::size_t(sh.size));
            for (auto& v : a)
                v = T(field(rng));
        }
        for (auto& a : cell) {
            a.resize(std::size_t(sh.size));
            for (auto& v : a)
                v = T(coef(rng));
        }
        idx.resize(std::size_t(sh.size));
        for (auto& v : idx)
            v = kernels::MaterialIndex(rng() % 5);
        for (auto& a : tab) {
            a.resize(5);
            for (auto& v : a)
                v = T(coef(rng));
        }
    }
    View<const T> perCell(int q) const { return View<const T>(cell[q].data(), sh); }
    kernels::TableCoef<T> table(int q) const { return {idx.data() + sh.origin, tab[q].data(), sh.sy, sh.sz}; }
};

/// Runs make(fields) over b with the plain cell loop and with the columns (`planes` cells each) on two
/// copies of the tile's fields; empty when every array has the same bits, else which differs.
template <class T, class Make>
std::string columnsVsCells(const MarchTile<T>& t, const Box& b, int planes, const Make& make) {
    std::vector<T> a[6], c[6];
    for (int q = 0; q < 6; ++q)
        a[q] = c[q] = t.f[q];
    kernels::forEachCell(b, 1, make(a));
    kernels::forEachColumn(b, planes, make(c));
    for (int q = 0; q < 6; ++q) {
        if (std::memcmp(a[q].data(), c[q].data(), a[q].size() * sizeof(T)) != 0)
            return "component " + std::to_string(q) + " differs";
        if (std::memcmp(a[q].data(), t.f[q].data(), a[q].size() * sizeof(T)) == 0 &&
            (q < 3) == !make.updatesH)
            return "component " + std::to_string(q) + " was not updated";
    }
    return {};
}

/// A functor maker for columnsVsCells: fn(fields) builds the update; updatesH says which half it writes.
template <class Fn> struct Maker {
    bool updatesH;
    Fn fn;
    template <class V> auto operator()(V* f) const { return fn(f); }
};
template <class Fn> Maker(bool, Fn) -> Maker<Fn>;

template <class T> void checkColumns(int& checked) {
    const MarchTile<T> t(sizeof(T) == 4 ? 17u : 29u);
    const ArrayShape sh = t.sh;
    const Box boxes[] = {Box{{0, 0, 0}, {13, 7, 11}}, Box{{1, 2, 3}, {12, 6, 10}}};
    for (const Box& b : boxes)
        for (int planes : {1, 3, 4, 7, 11, 64}) {
            const auto run = [&](const auto& make, const char* what) {
                const std::string d = columnsVsCells(t, b, planes, make);
                QVERIFY2(d.empty(), qPrintable(QString("%1 %2, box z %3..%4, %5 planes: %6")
                                                   .arg(what)
                                                   .arg(sizeof(T) == 4 ? "float" : "double")
                                                   .arg(b.lo[2])
                                                   .arg(b.hi[2])
                                                   .arg(planes)
                                                   .arg(QString::fromStdString(d))));
                ++checked;
            };
            const auto f3 = [&](std::vector<T>* f, int q) { return View<T>(f[q].data(), sh); };
            run(Maker{true,
                      [&](std::vector<T>* f) {
                          return kernels::UpdateH<T, false>{f3(f, 3), f3(f, 4), f3(f, 5), f3(f, 0), f3(f, 1),
                                                            f3(f, 2), {},       {},       {},       T(0.37)};
                      }},
                "UpdateH scalar Db");
            run(Maker{true,
                      [&](std::vector<T>* f) {
                          return kernels::UpdateH<T, true>{f3(f, 3),     f3(f, 4), f3(f, 5),     f3(f, 0),
                                                           f3(f, 1),     f3(f, 2), t.perCell(6), t.perCell(7),
                                                           t.perCell(8), T(0)};
                      }},
                "UpdateH per-cell Db");
            run(Maker{true,
                      [&](std::vector<T>* f) {
                          return kernels::UpdateH<T, true, kernels::TableCoef<T>>{
                              f3(f, 3), f3(f, 4),   f3(f, 5),   f3(f, 0),   f3(f, 1),
                              f3(f, 2), t.table(6), t.table(7), t.table(8), T(0)};
                      }},
                "UpdateH table Db");
            run(Maker{false,
                      [&](std::vector<T>* f) {
                          return kernels::UpdateE<T, false>{
                              f3(f, 0),     f3(f, 1),     f3(f, 2),     f3(f, 3), f3(f, 4), f3(f, 5),
                              t.perCell(0), t.perCell(1), t.perCell(2), {},       {},       {}};
                      }},
                "UpdateE per-cell Cb");
            run(Maker{false,
                      [&](std::vector<T>* f) {
                          return kernels::UpdateE<T, true>{f3(f, 0),     f3(f, 1),     f3(f, 2),
                                                           f3(f, 3),     f3(f, 4),     f3(f, 5),
                                                           t.perCell(0), t.perCell(1), t.perCell(2),
                                                           t.perCell(3), t.perCell(4), t.perCell(5)};
                      }},
                "UpdateE lossy per-cell");
            run(Maker{false,
                      [&](std::vector<T>* f) {
                          return kernels::UpdateE<T, true, kernels::TableCoef<T>>{
                              f3(f, 0),   f3(f, 1),   f3(f, 2),   f3(f, 3),   f3(f, 4),   f3(f, 5),
                              t.table(0), t.table(1), t.table(2), t.table(3), t.table(4), t.table(5)};
                      }},
                "UpdateE lossy table");
        }
}

} // namespace

void tst_Gpu::marchingColumnsOnCpu() {
    int checked = 0;
    checkColumns<float>(checked);
    if (QTest::currentTestFailed())
        return;
    checkColumns<double>(checked);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(checked, 2 * 2 * 6 * 6);
    qInfo("z-marching columns on the host: %d cases bit-identical to the cell loop", checked);
}

// ---------------------------------------------------------------------------------------------------------------
// Runs everywhere: what a GPU request does without a GPU (and, on a GPU machine, with one).

void tst_Gpu::noGpuBehaviour() {
    guarded([&] {
        const int visible = cuda::deviceCount();
        if (visible == 0 && gpuRequired())
            QFAIL(("GPU required (YEE_GPU_REQUIRED=1), but " + missingGpus(1)).c_str());
        run::RunOptions o;
        run::selectDevices("cuda:all", "run.devices", 2, o);
        if (visible == 0) {
            QVERIFY(!cuda::unavailableReason().empty());
            QVERIFY(cuda::devices().empty());
            QVERIFY(o.backend == run::Backend::Cpu);
            QVERIFY(o.gpus.empty());
            QCOMPARE(o.devices, 2);
            QVERIFY2(!o.deviceNotice.empty(), "no notice when falling back to CPU");
            QVERIFY2(QString::fromStdString(o.deviceNotice).contains("run.devices"), o.deviceNotice.c_str());
            qInfo("notice: %s", o.deviceNotice.c_str());
            // A named GPU falls back the same way (there is none to check it against).
            run::RunOptions p;
            run::selectDevices("cuda:0,1", "--devices", 1, p);
            QVERIFY(p.backend == run::Backend::Cpu);
            QVERIFY(!p.deviceNotice.empty());
            // A scene asking for GPUs runs on the CPU and completes.
            scene::Scene s = decompScene(8);
            s.run.devices = "cuda:all";
            const run::RunOptions so = run::RunOptions::fromScene(s);
            QVERIFY(so.backend == run::Backend::Cpu);
            QVERIFY(!so.deviceNotice.empty());
            const run::RunResult r = run::run(s, so);
            QVERIFY2(r.completed, r.status.c_str());
            QCOMPARE(QString::fromStdString(r.devices.at(0).name), QString("cpu:0"));
            // Opening a GPU that is not there is an error, not a crash.
            try {
                device::Device dev(device::DeviceKind::Cuda, 0, 1, 0);
                QFAIL("a CUDA device was opened on a machine without a GPU");
            } catch (const RunError& e) {
                qInfo("Device(Cuda, 0): %s", e.what());
                QVERIFY(QString::fromStdString(e.what()).contains("cuda:0"));
            }
            // Asking the solver itself for a GPU is refused before anything runs (no silent CPU run).
            run::RunOptions c = run::RunOptions::fromScene(s);
            c.backend = run::Backend::Cuda;
            c.gpus = {0};
            c.devices = 1;
            try {
                (void)run::run(s, c);
                QFAIL("a CUDA run without a GPU was accepted");
            } catch (const InputError& e) {
                qInfo("run(Backend::Cuda): %s", e.what());
                QVERIFY2(QString::fromStdString(e.what()).startsWith("run.devices"), e.what());
            }
            // A dry-run CUDA device touches no GPU: estimates work anywhere.
            device::Device dry(device::DeviceKind::Cuda, 0, 1, std::int64_t(1) << 30, true);
            QVERIFY(dry.dryRun());
            QCOMPARE(dry.driverUsedBytes(), std::int64_t(-1));
        } else {
            QVERIFY(cuda::unavailableReason().empty());
            QVERIFY(o.backend == run::Backend::Cuda);
            QCOMPARE(int(o.gpus.size()), visible);
            for (int g = 0; g < visible; ++g)
                QCOMPARE(o.gpus[std::size_t(g)], g);
            QVERIFY2(o.deviceNotice.empty(), o.deviceNotice.c_str());
            // An id past the last GPU is an input error naming the field.
            run::RunOptions p;
            try {
                run::selectDevices("cuda:" + std::to_string(visible), "run.devices", 1, p);
                QFAIL("a GPU id that does not exist was accepted");
            } catch (const InputError& e) {
                QVERIFY2(QString::fromStdString(e.what()).startsWith("run.devices"), e.what());
            }
            scene::Scene s = decompScene(8);
            run::RunOptions c = run::RunOptions::fromScene(s);
            c.backend = run::Backend::Cuda;
            c.gpus = {visible};
            c.devices = 1;
            try {
                (void)run::run(s, c);
                QFAIL("a run on a GPU that does not exist was accepted");
            } catch (const InputError& e) {
                QVERIFY2(QString::fromStdString(e.what()).startsWith("run.devices"), e.what());
            }
            try {
                device::Device dev(device::DeviceKind::Cuda, visible, 1, 0);
                QFAIL("a CUDA device past the last GPU was opened");
            } catch (const RunError& e) {
                qInfo("Device(Cuda, %d): %s", visible, e.what());
            }
        }
    });
}

QTEST_APPLESS_MAIN(tst_Gpu)
#include "tst_gpu.moc"
