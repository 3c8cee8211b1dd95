// One waveguide-mode solve per port per job under MPI (registered under mpirun with 2 and 3 ranks, one
// tile per rank along x): the rank whose tile owns a port solves it and broadcasts the modes
// (solver/ModeShare.hpp). Against the single-process run of the same scene:
//   - mode_waveguide.json (a mode source, two PML-edged mode monitors at three wavelengths, a flux plane):
//     detectors (mode coefficients, powers, n_eff) and S-parameters bit-identical; every request solved
//     exactly once in the job (solve counts summed over the ranks) and by its owner; the planning
//     broadcasts in the run's "planning" row (two per solve on every rank, the bytes on the owner) and in
//     no other row; estimate() then run() with one cache (yee-run's order) still one solve per request;
//     a rank whose tile holds no cell of any port allocates no source or detector memory;
//   - a mode source and a mode monitor with the mode power as objective: results and gradient
//     bit-identical, and the same in a Session (solved once per preparation, however many evaluations);
//   - bad ports (a mode index above the modes found (30 on a small metal box), on the source's and on the
//   monitor's owner; a plane
//     outside the domain): the same one-line error on every rank, no hang.
// Every case has the same shape on every rank (see tests/mpi/tst_mpi_decomposition.cpp): collective work,
// then local checks collected as strings, then one agreed verdict.
#include "mpi/MpiTestMain.hpp"
#include <QtTest>

#include <mpi.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "decomp/ResultCompare.hpp"
#include "gradient/GradScene.hpp"
#include "modes/ModeGradScene.hpp"
#include "yee/comm/MpiComm.hpp"
#include "yee/core/Error.hpp"
#include "yee/modes/ModeCache.hpp"
#include "yee/run/Run.hpp"
#include "yee/run/SParameters.hpp"
#include "yee/run/Session.hpp"
#include "yee/scene/DetectorKinds.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;
using namespace yee::testing;
using comm::Kind;
using comm::Phase;

namespace {

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

std::int64_t sumOver(std::int64_t v) {
    std::int64_t s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

/// Agrees over all ranks whether every rank's `local` failures are empty; `msg` gets this rank's.
bool agree(const std::vector<std::string>& local, QString& msg) {
    int bad = local.empty() ? 0 : 1, total = 0;
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

/// True when rank 0's `text` equals this rank's (rank 0 broadcasts its own).
bool sameAsRank0(const std::string& text) {
    std::int64_t n = std::int64_t(text.size());
    MPI_Bcast(&n, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    std::string root(std::size_t(n), '\0');
    if (worldRank() == 0)
        root = text;
    MPI_Bcast(root.data(), int(n), MPI_CHAR, 0, MPI_COMM_WORLD);
    return root == text;
}

scene::Scene modeWaveguide() {
    return scene::loadScene(YEE_SOURCE_DIR "/resources/scenes/mode_waveguide.json");
}

/// The mode gradient scene at nx = 48: the source at cell 7, the monitor at cell 18 (so with 3 tiles
/// along x, rank 1 owns the monitor and rank 2 no port).
scene::Scene modeGradScene() {
    return testing::modeGradScene(48, "checkpointed", true, 0.925);
}

run::RunOptions options(const scene::Scene& s, int ranks, bool gradient, int maxSteps) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.tiles = {ranks, 1, 1};
    o.devices = ranks;
    o.threadsPerDevice = 1;
    o.gradient = gradient;
    o.maxSteps = maxSteps;
    o.modes = std::make_shared<modes::ModeCache>();
    return o;
}

/// The single-process reference (tiles 1x1x1, no communicator) on rank 0; `solves` gets its solve count.
std::optional<run::RunResult> reference(const scene::Scene& s, run::RunOptions o, int& solves, Checks& c) {
    if (worldRank() != 0)
        return std::nullopt;
    o.tiles = {1, 1, 1};
    o.devices = 1;
    o.communicator = nullptr;
    o.modes = std::make_shared<modes::ModeCache>();
    try {
        run::RunResult r = run::run(s, o);
        c(r.completed, "reference did not complete: " + r.status);
        solves = o.modes->solves();
        return r;
    } catch (const std::exception& e) {
        c(false, std::string("reference threw: ") + e.what());
        return std::nullopt;
    }
}

/// The planning row of a run's table: two broadcasts per solve of the job on every rank, nothing else.
void checkPlanningRow(const comm::CommStats& st, int solvesInJob, const std::string& who, Checks& c) {
    c.eq(st.callsOf(Phase::Planning, Kind::Broadcast), 2 * solvesInJob, who + " planning broadcasts");
    for (int k = 0; k < comm::kKindCount; ++k)
        if (Kind(k) != Kind::Broadcast)
            c.eq(st.calls[std::size_t(Phase::Planning)][std::size_t(k)], 0,
                 who + " planning " + comm::kindName(Kind(k)));
    for (int p = 0; p < comm::kPhaseCount; ++p)
        if (Phase(p) != Phase::Planning) {
            c.eq(st.callsOf(Phase(p), Kind::Broadcast), 0,
                 who + " " + comm::phaseName(Phase(p)) + " broadcast");
        }
}

/// The message of what `fn` throws ("" when it does not), collectively.
template <class Fn> std::string thrown(Fn&& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestModeMpi : public QObject {
    Q_OBJECT
private slots:
    /// mode_waveguide.json, 150 steps: bit-identical to one process, one solve per request in the job.
    void waveguideForward() {
        const int N = worldSize(), rank = worldRank();
        const scene::Scene s = modeWaveguide();
        Checks c;
        run::RunOptions o = options(s, N, false, 150);
        int refSolves = 0;
        const std::optional<run::RunResult> ref = reference(s, o, refSolves, c);
        MPI_Bcast(&refSolves, 1, MPI_INT, 0, MPI_COMM_WORLD);
        // 1 source + 2 monitors x 3 wavelengths: 7 distinct requests.
        c.eq(refSolves, 7, "single-process solves");

        comm::MpiComm mc(MPI_COMM_WORLD);
        o.communicator = &mc;
        std::optional<run::RunResult> r;
        try {
            r = run::run(s, o);
        } catch (const std::exception& e) {
            c(false, std::string("MPI run threw: ") + e.what());
        }
        const std::int64_t mine = o.modes->solves();
        const std::int64_t total = sumOver(mine);
        c.eq(total, refSolves, "solves summed over the ranks");
        c.eq(o.modes->size(), refSolves, "mode sets held on this rank");
        // The source's plane (cell 16) is on tile 0, the first monitor's (22) too, the second's (64) on the
        // last tile: rank 0 solves 1 + 3 requests, the last rank 3.
        const std::int64_t want = rank == 0 ? 4 : rank == N - 1 ? 3 : 0;
        c.eq(mine, want, "solves on this rank");
        if (r) {
            c(r->completed, "MPI run did not complete: " + r->status);
            if (rank == 0 && ref) {
                const std::string d = bitDiff(*ref, *r);
                c(d.empty(), "MPI vs single process: " + d);
                const auto a = run::sParameters(s, *ref), b = run::sParameters(s, *r);
                c(a && b && a->s == b->s && !a->s.empty(), "S-parameters differ");
                c.eq(std::int64_t(r->devices.size()), N, "device summaries");
                for (int q = 0; q < int(r->devices.size()); ++q) {
                    const std::string who = "rank " + std::to_string(q);
                    checkPlanningRow(r->devices[std::size_t(q)].comm, refSolves, who, c);
                    // A tile holding no cell of any port (np 3: the middle one) holds nothing for them.
                    const auto& pk = r->devices[std::size_t(q)].memory.peak;
                    if (N == 3 && q == 1) {
                        c.eq(pk[std::size_t(device::Category::Sources)], 0, who + " source bytes");
                        c.eq(pk[std::size_t(device::Category::Detectors)], 0, who + " detector bytes");
                    }
                }
                // The owner sends header and set; the others send nothing.
                std::int64_t sent = 0;
                for (const auto& d : r->devices)
                    sent += d.comm.bytesOf(Phase::Planning, Kind::Broadcast);
                c(sent > 16 * refSolves, "planning bytes " + std::to_string(sent));
                c.eq(r->devices[1].comm.bytesOf(Phase::Planning, Kind::Broadcast) > 0, N == 2 ? 1 : 0,
                     "rank 1 sent planning bytes");
            }
        }
        // yee-run's order: estimate() then run() on one cache solve each request once in the job.
        run::RunOptions o2 = options(s, N, false, 20);
        o2.communicator = &mc;
        std::optional<run::RunResult> r2;
        try {
            const run::Estimate e = run::estimate(s, o2);
            c.eq(std::int64_t(e.devices.size()), N, "estimate devices");
            c.eq(sumOver(o2.modes->solves()), refSolves, "solves after estimate()");
            r2 = run::run(s, o2);
        } catch (const std::exception& e) {
            c(false, std::string("estimate + run threw: ") + e.what());
            sumOver(0);
        }
        c.eq(sumOver(o2.modes->solves()), refSolves, "solves after estimate() and run()");
        if (r2 && rank == 0)
            checkPlanningRow(r2->devices[0].comm, refSolves, "estimate + run, rank 0", c);
        VERIFY_ALL_RANKS(c.fails);
    }

    /// A mode source and a mode-power objective: value and gradient bit-identical; a Session solves once.
    void modeGradient() {
        const int N = worldSize(), rank = worldRank();
        const scene::Scene s = modeGradScene();
        Checks c;
        run::RunOptions o = options(s, N, true, -1);
        o.precision = run::Precision::Float64;
        int refSolves = 0;
        const std::optional<run::RunResult> ref = reference(s, o, refSolves, c);
        MPI_Bcast(&refSolves, 1, MPI_INT, 0, MPI_COMM_WORLD);
        c.eq(refSolves, 2, "single-process solves (the source, the monitor)");
        comm::MpiComm mc(MPI_COMM_WORLD);
        o.communicator = &mc;
        std::optional<run::RunResult> r;
        try {
            r = run::run(s, o);
        } catch (const std::exception& e) {
            c(false, std::string("MPI run threw: ") + e.what());
        }
        c.eq(sumOver(o.modes->solves()), refSolves, "solves summed over the ranks");
        // np 2: both ports on tile 0; np 3: the monitor (cell 18) on tile 1.
        c.eq(o.modes->solves(), rank == 0 ? (N == 3 ? 1 : 2) : (N == 3 && rank == 1 ? 1 : 0), "solves here");
        if (r && rank == 0 && ref) {
            c(r->completed, "MPI run did not complete: " + r->status);
            const std::string d = bitDiff(*ref, *r);
            c(d.empty(), "MPI vs single process: " + d);
            c(r->gradients.size() == ref->gradients.size() && !r->gradients.empty(), "gradient count");
            for (std::size_t g = 0; g < std::min(r->gradients.size(), ref->gradients.size()); ++g)
                c(r->gradients[g].data.size() == ref->gradients[g].data.size() &&
                      std::memcmp(r->gradients[g].data.data(), ref->gradients[g].data.data(),
                                  r->gradients[g].data.size() * sizeof(double)) == 0,
                  "gradient " + r->gradients[g].name + " differs");
            checkPlanningRow(r->devices[0].comm, refSolves, "rank 0", c);
        }

        // A Session: prepared (and solved) once, evaluated three times with other designs.
        run::RunOptions so = options(s, N, true, -1);
        so.precision = run::Precision::Float64;
        so.communicator = &mc;
        std::vector<std::optional<double>> values;
        std::vector<std::int64_t> planningCalls;
        try {
            run::Session ses(s, so);
            c.eq(sumOver(so.modes->solves()), refSolves, "session solves after preparation");
            if (rank == 0) {
                for (int e = 0; e < 3; ++e) {
                    run::DesignUpdate u;
                    if (e > 0)
                        for (std::size_t d : ses.designSizes())
                            u.latent.push_back(std::vector<double>(d, 0.25 * e));
                    const run::RunResult er = ses.evaluate(u);
                    values.push_back(er.objective);
                    planningCalls.push_back(er.devices[0].comm.callsOf(Phase::Planning, Kind::Broadcast));
                }
                ses.close();
            } else {
                ses.serve();
            }
        } catch (const std::exception& e) {
            c(false, std::string("session threw: ") + e.what());
        }
        c.eq(sumOver(so.modes->solves()), refSolves, "session solves after three evaluations");
        if (rank == 0 && ref && values.size() == 3) {
            c(values[0] && ref->objective && std::memcmp(&*values[0], &*ref->objective, sizeof(double)) == 0,
              "session's first evaluation differs from the run");
            c(values[1] && values[2] && *values[1] != *values[2], "evaluations with other designs differ");
            c(planningCalls == std::vector<std::int64_t>{2 * refSolves, 0, 0},
              "planning broadcasts in the first evaluation only");
        }
        VERIFY_ALL_RANKS(c.fails);
    }

    /// Bad ports: the same one-line error on every rank (and the run returns instead of hanging).
    void badPorts_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("expect");
        QTest::newRow("source mode index") << "source"
                                           << "sources[0].mode_index:";
        QTest::newRow("monitor modes") << "monitor"
                                       << "detectors[2].modes:";
        QTest::newRow("plane outside") << "outside"
                                       << "detectors[2]";
    }
    void badPorts() {
        QFETCH(QString, what);
        QFETCH(QString, expect);
        const int N = worldSize();
        scene::Scene s = modeGradScene();
        if (what == "source")
            s.sources[0].mode = 30;
        else if (what == "monitor")
            s.detectors[2].params["modes"] = 9;
        else
            s.detectors[2].center[0] = 40.0;
        Checks c;
        comm::MpiComm mc(MPI_COMM_WORLD);
        run::RunOptions o = options(s, N, false, 10);
        o.communicator = &mc;
        const std::string msg = thrown([&] { run::run(s, o); });
        c(msg.rfind(expect.toStdString(), 0) == 0, "message: '" + msg + "'");
        c(msg.find('\n') == std::string::npos, "one line: '" + msg + "'");
        c(sameAsRank0(msg), "message differs from rank 0's: '" + msg + "'");
        VERIFY_ALL_RANKS(c.fails);
    }
};

YEE_MPI_TEST_MAIN(TestModeMpi)
#include "tst_mode_mpi.moc"
