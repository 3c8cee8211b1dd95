// Decomposed runs over MpiComm (one rank per tile, registered under mpirun with 2 and 4 ranks) against the
// single-domain run of the same scene in one process: fields (full-volume snapshot), detectors, objective and
// gradients bit-identical; collective counts pinned per rank and equal to LocalComm's for the same tile grid.
//
// Every case has the same shape on every rank:
//   1. collective work: a fresh MpiComm, run::run() with RunOptions::communicator, one broadcast of rank
//   0's
//      recomputed-step count — entered by every rank in the same order, whatever happens;
//   2. local work: rank 0 runs the references in-process (LocalComm: 1x1x1 on one device, and the same tile
//      grid on emulated devices); every rank checks what it has and collects failure strings (never QVERIFY);
//   3. verdict: the failures are agreed over MPI_COMM_WORLD (one MPI_Allreduce) and only then QVERIFY'd,
//      so every rank passes or fails the same test functions and returns the same exit code.
// Rank 0 prints the full log, the other ranks only their failures (-silent).
#include "mpi/MpiTestMain.hpp"
#include <QtTest>

#include <mpi.h>

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "decomp/DecompScene.hpp"
#include "decomp/ResultCompare.hpp"
#include "gradient/GradScene.hpp"
#include "yee/comm/MpiComm.hpp"
#include "yee/core/Error.hpp"
#include "yee/run/Run.hpp"

using namespace yee;
using namespace yee::testing;
using comm::Kind;
using comm::Phase;
using Grid = std::array<int, 3>;

namespace {

constexpr int kForwardSteps = 48;
constexpr int kForwardGuard = 16; // 3 guard all-reduces per forward run
constexpr int kGradSteps = 40;
constexpr int kGradGuard = 8; // 5 guard all-reduces per forward sweep

int worldRank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int worldSize() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

/// Tile grids with exactly as many tiles as the job has ranks (each allowed by both scenes: decompScene
/// 24x20x16 cells, PML 5 on x and y, periodic z; gradScene nx = 48: cuts >= PML + 1 cells from the edges and
/// off the objective's flux plane at x = 17).
std::vector<Grid> gridsForRanks(int n) {
    if (n == 2)
        return {{2, 1, 1}, {1, 2, 1}};
    if (n == 4)
        return {{4, 1, 1}, {2, 2, 1}, {1, 2, 2}};
    if (n == 8)
        return {{2, 2, 2}};
    return {{n, 1, 1}};
}

QString gridName(const Grid& g) {
    return QStringLiteral("%1x%2x%3").arg(g[0]).arg(g[1]).arg(g[2]);
}
std::string gridStr(const Grid& g) {
    return gridName(g).toStdString();
}

/// Agrees over all ranks whether `local` (this rank's failures) is empty everywhere. `msg` gets this rank's
/// failures (prefixed with the rank), or a note that other ranks failed.
bool agree(const std::vector<std::string>& local, QString& msg) {
    int bad = local.empty() ? 0 : 1;
    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    QStringList lines;
    for (const auto& s : local)
        lines << QStringLiteral("rank %1: %2").arg(worldRank()).arg(QString::fromStdString(s));
    if (total > 0 && local.empty())
        lines << QStringLiteral("%1 other rank(s) failed").arg(total);
    msg = lines.join('\n');
    return total == 0;
}

#define VERIFY_ALL_RANKS(failures)                                                                           \
    do {                                                                                                     \
        QString m_;                                                                                          \
        const bool ok_ = agree(failures, m_);                                                                \
        QVERIFY2(ok_, qPrintable(m_));                                                                       \
    } while (0)

/// Collects failures of one case without leaving the function (no QVERIFY before the verdict is agreed).
struct Checks {
    std::vector<std::string> fails;
    bool operator()(bool ok, const std::string& what) {
        if (!ok)
            fails.push_back(what);
        return ok;
    }
    void eq(std::int64_t got, std::int64_t want, const std::string& what) {
        (*this)(got == want, what + ": " + std::to_string(got) + " (expected " + std::to_string(want) + ")");
    }
};

run::RunOptions options(const scene::Scene& s, const Grid& tiles, run::Precision p, bool gradient, int guard,
                        bool overlap = true) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = p;
    o.tiles = tiles;
    o.devices = tiles[0] * tiles[1] * tiles[2];
    o.threadsPerDevice = 1;
    o.guardInterval = guard;
    o.gradient = gradient;
    o.overlap = overlap;
    return o;
}

/// Runs `s` with RunOptions::communicator = a fresh MpiComm (fresh CommStats) on every rank. Collective.
/// Validation errors are thrown identically by every rank before any communication and come back as a
/// failure; an error inside the run ends the job through Communicator::fail (MPI_Abort), by design.
std::optional<run::RunResult> runMpi(const scene::Scene& s, run::RunOptions o, Checks& c) {
    comm::MpiComm comm(MPI_COMM_WORLD);
    o.communicator = &comm;
    try {
        return run::run(s, o);
    } catch (const std::exception& e) {
        c(false, std::string("MpiComm run threw: ") + e.what());
        return std::nullopt;
    }
}

/// In-process run without a communicator (LocalComm on o.devices emulated devices). Rank 0 only.
std::optional<run::RunResult> runLocal(const scene::Scene& s, const run::RunOptions& o,
                                       const std::string& what, Checks& c) {
    try {
        run::RunResult r = run::run(s, o);
        if (!c(r.completed, what + " run did not complete: " + r.status))
            return std::nullopt;
        return r;
    } catch (const std::exception& e) {
        c(false, what + " run threw: " + e.what());
        return std::nullopt;
    }
}

/// The single-domain reference (tiles 1x1x1, one device, no communicator), cached per scene key (rank 0).
const run::RunResult* singleReference(const std::string& key, const scene::Scene& s, run::RunOptions o,
                                      Checks& c) {
    static std::map<std::string, run::RunResult> cache;
    if (auto it = cache.find(key); it != cache.end())
        return &it->second;
    o.tiles = {1, 1, 1};
    o.devices = 1;
    o.overlap = true;
    o.communicator = nullptr;
    auto r = runLocal(s, o, "single-domain " + key, c);
    if (!r)
        return nullptr;
    return &cache.emplace(key, std::move(*r)).first->second;
}

/// Call counts every rank must show. `recomputed`: forward steps replayed in the reverse sweep
/// (checkpointed).
struct Expected {
    int steps = 0;
    int guard = 1;
    bool gradient = false;
    std::int64_t recomputed = 0;
};

void checkCounts(const comm::CommStats& st, const Expected& e, const std::string& who, Checks& c) {
    const std::int64_t steps = e.steps;
    // Forward: one grouped exchange after the H update and one after the E update; one all-reduce per guard
    // interval (divergence / cancel); nothing else.
    c.eq(st.callsOf(Phase::Forward, Kind::HaloExchange), 2 * steps, who + " forward halo_exchange");
    c.eq(st.callsOf(Phase::Forward, Kind::AllReduce), steps / e.guard, who + " forward all_reduce");
    c.eq(st.callsOf(Phase::Forward, Kind::Gather), 0, who + " forward gather");
    c.eq(st.callsOf(Phase::Forward, Kind::Broadcast), 0, who + " forward broadcast");
    c.eq(st.callsOf(Phase::Forward, Kind::Barrier), 0, who + " forward barrier");
    // Output: one integer all-reduce (exact detector sums) and one gather (per-cell data, summaries,
    // gradient).
    c.eq(st.callsOf(Phase::Output, Kind::AllReduce), 1, who + " output all_reduce");
    c.eq(st.callsOf(Phase::Output, Kind::Gather), 1, who + " output gather");
    c.eq(st.callsOf(Phase::Output, Kind::HaloExchange), 0, who + " output halo_exchange");
    c.eq(st.callsOf(Phase::Output, Kind::Broadcast), 0, who + " output broadcast");
    c.eq(st.callsOf(Phase::Output, Kind::Barrier), 0, who + " output barrier");
    for (int k = 0; k < comm::kKindCount; ++k)
        c.eq(st.calls[int(Phase::Setup)][std::size_t(k)], 0, who + " setup " + comm::kindName(Kind(k)));
    // Reverse sweep: two grouped exchanges per reverse step (reconstruction and adjoint halos share them),
    // two per replayed forward step; one guard all-reduce (cancel) per guard interval of each reverse
    // phase, none after its last step; no other collective: the gradient stays with its tile.
    c.eq(st.callsOf(Phase::Adjoint, Kind::HaloExchange), e.gradient ? 2 * steps : 0,
         who + " adjoint halo_exchange");
    c.eq(st.callsOf(Phase::Reconstruct, Kind::HaloExchange), e.gradient ? 2 * e.recomputed : 0,
         who + " reconstruct halo_exchange");
    c.eq(st.callsOf(Phase::Adjoint, Kind::AllReduce), e.gradient ? (steps - 1) / e.guard : 0,
         who + " adjoint all_reduce");
    c.eq(st.callsOf(Phase::Reconstruct, Kind::AllReduce),
         e.gradient && e.recomputed > 0 ? (e.recomputed - 1) / e.guard : 0, who + " reconstruct all_reduce");
    for (Phase ph : {Phase::Adjoint, Phase::Reconstruct})
        for (Kind k : {Kind::Gather, Kind::Broadcast, Kind::Barrier})
            c.eq(st.callsOf(ph, k), 0, who + " " + comm::phaseName(ph) + " " + comm::kindName(k));
}

/// Rank 0: device summaries of the MPI run against those of the LocalComm run on the same grid: tile boxes,
/// every collective's calls and bytes, the ledger's peak per category. Also: call tables equal on all ranks.
void compareDevices(const run::RunResult& mpi, const run::RunResult& local, Checks& c) {
    if (!c(mpi.devices.size() == local.devices.size(), "device count " + std::to_string(mpi.devices.size()) +
                                                           " vs LocalComm " +
                                                           std::to_string(local.devices.size())))
        return;
    for (std::size_t d = 0; d < mpi.devices.size(); ++d) {
        const auto& m = mpi.devices[d];
        const auto& l = local.devices[d];
        const std::string who = "rank " + std::to_string(d);
        c(m.tile == l.tile, who + ": tile box differs from LocalComm's");
        for (int ph = 0; ph < comm::kPhaseCount; ++ph)
            for (int k = 0; k < comm::kKindCount; ++k) {
                const std::string what =
                    who + " " + comm::phaseName(Phase(ph)) + " " + comm::kindName(Kind(k));
                c.eq(m.comm.calls[std::size_t(ph)][std::size_t(k)],
                     l.comm.calls[std::size_t(ph)][std::size_t(k)], what + " calls vs LocalComm");
                c.eq(m.comm.bytes[std::size_t(ph)][std::size_t(k)],
                     l.comm.bytes[std::size_t(ph)][std::size_t(k)], what + " bytes vs LocalComm");
                c.eq(m.comm.calls[std::size_t(ph)][std::size_t(k)],
                     mpi.devices[0].comm.calls[std::size_t(ph)][std::size_t(k)], what + " calls vs rank 0");
            }
        for (int cat = 0; cat < device::kCategoryCount; ++cat)
            c.eq(m.memory.peak[std::size_t(cat)], l.memory.peak[std::size_t(cat)],
                 who + " peak " + device::categoryName(device::Category(cat)) + " bytes vs LocalComm");
    }
}

/// Bitwise comparison of gradient arrays; "" when identical. `norm` gets max |g| of `a`.
std::string gradientDiff(const run::RunResult& a, const run::RunResult& b, double& norm) {
    norm = 0;
    if (a.gradients.size() != b.gradients.size())
        return "gradient region count differs";
    for (std::size_t d = 0; d < a.gradients.size(); ++d) {
        const auto& u = a.gradients[d];
        const auto& v = b.gradients[d];
        if (u.name != v.name || u.shape != v.shape || u.data.size() != v.data.size())
            return "gradient " + u.name + ": name or shape differs";
        for (double x : u.data)
            norm = std::max(norm, std::abs(x));
        for (std::size_t i = 0; i < u.data.size(); ++i)
            if (std::memcmp(&u.data[i], &v.data[i], sizeof(double)) != 0) {
                char buf[160];
                std::snprintf(buf, sizeof buf, "gradient %s[%zu]: %.17g vs %.17g", u.name.c_str(), i,
                              u.data[i], v.data[i]);
                return buf;
            }
    }
    return {};
}

scene::Scene gradSceneFor(const QString& method) {
    GradSceneOptions go;
    go.nx = 48;
    go.lossy = method != "reversible"; // reversible: lossless, exact with a float64 recorder
    go.steps = kGradSteps;
    scene::Scene s = gradScene(go);
    setGradientMethod(s, method.toStdString());
    return s;
}

/// One MPI run and its checks, shared by the forward and gradient cases. Returns this rank's failures.
std::vector<std::string> runCase(const scene::Scene& s, const std::string& key, const Grid& grid,
                                 run::Precision prec, bool gradient, bool overlap, const Expected& expectIn) {
    Checks c;
    const int rank = worldRank();
    const int N = worldSize();
    const int steps = expectIn.steps;
    const run::RunOptions o = options(s, grid, prec, gradient, expectIn.guard, overlap);

    // ---- 1. collective work, every rank, same order ----
    std::optional<run::RunResult> mpi = runMpi(s, o, c);
    std::int64_t recomputed = (rank == 0 && mpi) ? mpi->recomputedSteps : -1;
    MPI_Bcast(&recomputed, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (!mpi)
        return c.fails;

    // ---- 2. local work and checks ----
    Expected e = expectIn;
    e.recomputed = recomputed;
    if (rank != 0) {
        // Other ranks hold only their own summary, taken after the output gather.
        if (c(mpi->devices.size() == 1,
              "non-root rank holds " + std::to_string(mpi->devices.size()) + " summaries"))
            checkCounts(mpi->devices[0].comm, e, "own", c);
        return c.fails;
    }
    c(mpi->completed, "MPI run did not complete: " + mpi->status);
    c.eq(mpi->steps, steps, "MPI run steps");
    c.eq(std::int64_t(mpi->devices.size()), N, "device summaries on rank 0");
    for (std::size_t d = 0; d < mpi->devices.size(); ++d)
        checkCounts(mpi->devices[d].comm, e, "rank " + std::to_string(d), c);

    const run::RunResult* single = singleReference(key, s, o, c);
    if (single) {
        c(single->objective.has_value() && *single->objective != 0.0,
          "single-domain objective is zero or missing");
        double maxField = 0;
        for (const auto& sn : single->snapshots)
            for (float v : sn.data)
                maxField = std::max(maxField, double(std::abs(v)));
        c(gradient || maxField > 1e-6,
          "single-domain fields are all zero: the comparison would mean nothing");
        const std::string diff = bitDiff(*single, *mpi);
        c(diff.empty(), "MPI " + gridStr(grid) + " vs single domain: " + diff);
        if (gradient) {
            double norm = 0;
            const std::string gd = gradientDiff(*single, *mpi, norm);
            c(gd.empty(), "MPI " + gridStr(grid) + " vs single domain: " + gd);
            c(norm > 0, "single-domain gradient is zero");
            c.eq(mpi->recomputedSteps, single->recomputedSteps, "recomputed steps vs single domain");
            if (s.gradient.method == scene::GradientMethod::Checkpointed)
                c(mpi->recomputedSteps > steps,
                  "checkpointed run recomputed only " + std::to_string(mpi->recomputedSteps) + " steps");
            else
                c.eq(mpi->recomputedSteps, 0, "recomputed steps");
        }
    }
    // The same tile grid on LocalComm: same bits, same collective counts and bytes, same ledger.
    if (auto local = runLocal(s, o, "LocalComm " + gridStr(grid), c)) {
        const std::string diff = bitDiff(*local, *mpi);
        c(diff.empty(), "MPI vs LocalComm " + gridStr(grid) + ": " + diff);
        if (gradient) {
            double norm = 0;
            const std::string gd = gradientDiff(*local, *mpi, norm);
            c(gd.empty(), "MPI vs LocalComm " + gridStr(grid) + ": " + gd);
        }
        compareDevices(*mpi, *local, c);
    }
    return c.fails;
}

const char* precName(run::Precision p) {
    return p == run::Precision::Float64 ? "f64" : "f32";
}

} // namespace

class tst_MpiDecomposition : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void forwardBitIdentical_data();
    void forwardBitIdentical();
    void gradientBitIdentical_data();
    void gradientBitIdentical();
    void cleanupTestCase();
};

void tst_MpiDecomposition::initTestCase() {
    std::vector<std::string> f;
    if (!comm::MpiSession::active())
        f.push_back("MPI is not active");
    if (worldSize() < 2)
        f.push_back("run under mpirun with at least 2 ranks (got " + std::to_string(worldSize()) + ")");
    VERIFY_ALL_RANKS(f);
    if (worldRank() == 0)
        qInfo("MPI ranks: %d", worldSize());
}

void tst_MpiDecomposition::cleanupTestCase() {
    // Every rank leaves the test object together (MpiComm destructors are collective).
    MPI_Barrier(MPI_COMM_WORLD);
}

void tst_MpiDecomposition::forwardBitIdentical_data() {
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<int>("pz");
    QTest::addColumn<bool>("f64");
    QTest::addColumn<bool>("overlap");
    const auto grids = gridsForRanks(worldSize());
    for (bool f64 : {false, true})
        for (const Grid& g : grids)
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(gridName(g), f64 ? "f64" : "f32")))
                << g[0] << g[1] << g[2] << f64 << true;
    // The serial (step-then-exchange) path gives the same bits.
    QTest::newRow(qPrintable(gridName(grids.front()) + " f32 no-overlap"))
        << grids.front()[0] << grids.front()[1] << grids.front()[2] << false << false;
    QTest::newRow(qPrintable(gridName(grids.back()) + " f64 no-overlap"))
        << grids.back()[0] << grids.back()[1] << grids.back()[2] << true << false;
}

void tst_MpiDecomposition::forwardBitIdentical() {
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(int, pz);
    const Grid grid{px, py, pz};
    QFETCH(bool, f64);
    QFETCH(bool, overlap);
    const auto prec = f64 ? run::Precision::Float64 : run::Precision::Float32;
    const scene::Scene s = decompScene(kForwardSteps);
    Expected e;
    e.steps = kForwardSteps;
    e.guard = kForwardGuard;
    const auto fails = runCase(s, std::string("forward ") + precName(prec), grid, prec, false, overlap, e);
    VERIFY_ALL_RANKS(fails);
}

void tst_MpiDecomposition::gradientBitIdentical_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<int>("pz");
    QTest::addColumn<bool>("f64");
    const auto grids = gridsForRanks(worldSize());
    for (const char* m : {"full", "checkpointed", "reversible"})
        for (bool f64 : {false, true})
            for (const Grid& g : grids)
                QTest::newRow(qPrintable(QStringLiteral("%1 %2 %3").arg(m, gridName(g), f64 ? "f64" : "f32")))
                    << QString(m) << g[0] << g[1] << g[2] << f64;
}

void tst_MpiDecomposition::gradientBitIdentical() {
    QFETCH(QString, method);
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(int, pz);
    const Grid grid{px, py, pz};
    QFETCH(bool, f64);
    const auto prec = f64 ? run::Precision::Float64 : run::Precision::Float32;
    const scene::Scene s = gradSceneFor(method);
    Expected e;
    e.steps = kGradSteps;
    e.guard = kGradGuard;
    e.gradient = true;
    const auto fails =
        runCase(s, "gradient " + method.toStdString() + " " + precName(prec), grid, prec, true, true, e);
    VERIFY_ALL_RANKS(fails);
}

YEE_MPI_TEST_MAIN(tst_MpiDecomposition)

#include "tst_mpi_decomposition.moc"
