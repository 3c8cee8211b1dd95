/// Mode solves once per prepared scene, in one process: the owner rule of MPI jobs (solver/ModeShare.hpp),
/// the mode set's bytes (bit for bit), emulated devices (LocalComm, several tiles sharing one cache),
/// estimate() then run() on one cache (yee-run's order), a Session's evaluations, and a cache given another
/// scene. Solves are counted by the cache (ModeCache::solves()).
#include <QtTest>

#include <cstring>
#include <memory>

#include "decomp/ResultCompare.hpp"
#include "gradient/GradScene.hpp"
#include "modes/ModeGradScene.hpp"
#include "yee/modes/ModeCache.hpp"
#include "yee/modes/ModeSetBytes.hpp"
#include "yee/run/Run.hpp"
#include "yee/run/Session.hpp"
#include "yee/scene/DetectorKinds.hpp"
#include "yee/scene/Rasterizer.hpp"
#include "yee/solver/ModeShare.hpp"
#include "yee/solver/Plan.hpp"

using namespace yee;
using namespace yee::testing;

namespace {

/// The mode gradient scene at nx = 48: the source at cell 7, the monitor at cell 18 (so with 3 tiles
/// along x, rank 1 owns the monitor and rank 2 no port).
scene::Scene modeScene() {
    return testing::modeGradScene(48, "checkpointed", true, 0.925);
}

run::RunOptions options(const scene::Scene& s, std::array<int, 3> tiles, bool gradient = false) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.tiles = tiles;
    o.devices = tiles[0] * tiles[1] * tiles[2];
    o.threadsPerDevice = 1;
    o.gradient = gradient;
    o.precision = run::Precision::Float64;
    o.modes = std::make_shared<modes::ModeCache>();
    return o;
}

bool sameBits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

std::int64_t planningCalls(const run::RunResult& r) {
    std::int64_t n = 0;
    for (const auto& d : r.devices)
        for (int k = 0; k < comm::kKindCount; ++k)
            n += d.comm.calls[std::size_t(comm::Phase::Planning)][std::size_t(k)];
    return n;
}

} // namespace

class TestModeShare : public QObject {
    Q_OBJECT
private slots:
    /// The lowest rank whose tile meets the port's cells (E plane, the H plane behind it) solves; rank 0
    /// when none does.
    void ownerRule() {
        const scene::Scene s = modeScene();
        solver::PlanOptions po;
        po.tiles = {3, 1, 1};
        const auto p = solver::makePlan(s, po);
        QCOMPARE(p->tiles->tile(1).box.lo[0], 16);
        QCOMPARE(p->tiles->tile(2).box.lo[0], 32);
        modes::ModeRequest q;
        q.normal = 0;
        q.lo = {2, 2};
        q.hi = {10, 14};
        const std::pair<int, int> cases[] = {{7, 0},  {16, 0}, {17, 1}, {18, 1},
                                             {32, 1}, {33, 2}, {47, 2}, {90, 0}};
        for (auto [plane, owner] : cases) {
            q.plane = plane;
            QVERIFY2(solver::modeOwner(*p->tiles, q) == owner, qPrintable(QString("plane %1").arg(plane)));
        }
        // Normal along y on an x-split grid: the transverse range picks the tile.
        q.normal = 1;
        q.plane = 10;
        q.lo = {1, 20}; // z, x
        q.hi = {10, 30};
        QCOMPARE(solver::modeOwner(*p->tiles, q), 1);
        q.lo = {1, 40};
        q.hi = {10, 45};
        QCOMPARE(solver::modeOwner(*p->tiles, q), 2);
    }

    /// What the owner broadcasts decodes to the same bits.
    void modeSetBytes() {
        const scene::Scene s = modeScene();
        solver::PlanOptions po;
        const auto p = solver::makePlan(s, po);
        QCOMPARE(p->modeCache->solves(), 1);
        modes::ModeRequest q;
        q.normal = 0;
        q.plane = 18;
        q.lo = {2, 2};
        q.hi = {18, 14};
        q.omega = 2 * 3.141592653589793 * s.cellUm / 0.6;
        q.dt = p->dt;
        q.count = 3;
        q.groupIndex = true;
        const modes::ModeSet a = modes::solveModes(*p->raster, q, "test");
        QCOMPARE(int(a.modes.size()), 3);
        const std::vector<char> bytes = modes::encodeModeSet(a);
        const modes::ModeSet b = modes::decodeModeSet(bytes, q);
        QCOMPARE(b.modes.size(), a.modes.size());
        QCOMPARE(b.homogeneous, a.homogeneous);
        QCOMPARE(b.unknowns, a.unknowns);
        QCOMPARE(b.request.plane, 18);
        std::int64_t values = 0;
        for (std::size_t m = 0; m < a.modes.size(); ++m) {
            const modes::Mode &x = a.modes[m], &y = b.modes[m];
            QVERIFY(sameBits(x.neff, y.neff) && sameBits(x.beta, y.beta) && sameBits(x.kappa, y.kappa));
            QVERIFY(sameBits(x.ng, y.ng) && x.ng > x.neff);
            QCOMPARE(x.nu, y.nu);
            QCOMPARE(x.nw, y.nw);
            for (int c = 0; c < 6; ++c) {
                QCOMPARE(x.field[std::size_t(c)].size(), y.field[std::size_t(c)].size());
                QVERIFY(std::memcmp(x.field[std::size_t(c)].data(), y.field[std::size_t(c)].data(),
                                    x.field[std::size_t(c)].size() * sizeof(double)) == 0);
                values += std::int64_t(x.field[std::size_t(c)].size());
            }
        }
        QCOMPARE(values, 3 * 6 * 17 * 13);
        QVERIFY(std::int64_t(bytes.size()) > values * 8);
        std::vector<char> cut(bytes.begin(), bytes.end() - 1);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, modes::decodeModeSet(cut, q));
    }

    /// Emulated devices (LocalComm): the tiles of the process share one cache, so a port is solved once
    /// on every tile grid, and nothing is broadcast while planning.
    void emulatedDevicesSolveOnce() {
        const scene::Scene s = modeScene();
        std::optional<run::RunResult> ref;
        for (std::array<int, 3> g : {std::array<int, 3>{1, 1, 1}, {2, 1, 1}, {3, 1, 1}}) {
            run::RunOptions o = options(s, g, true);
            const run::RunResult r = run::run(s, o);
            QVERIFY(r.completed);
            QCOMPARE(o.modes->solves(), 2); // the source and the monitor
            QCOMPARE(planningCalls(r), std::int64_t(0));
            if (!ref)
                ref = r;
            const std::string d = bitDiff(*ref, r);
            QVERIFY2(d.empty(), d.c_str());
        }
    }

    /// yee-run's order: estimate() then run() with one cache solve each port once.
    void estimateThenRun() {
        const scene::Scene s = modeScene();
        run::RunOptions o = options(s, {2, 1, 1});
        o.maxSteps = 10;
        const run::Estimate e = run::estimate(s, o);
        QCOMPARE(e.devices.size(), std::size_t(2));
        QCOMPARE(o.modes->solves(), 2);
        QCOMPARE(o.modes->size(), 2);
        QVERIFY(run::run(s, o).completed);
        QCOMPARE(o.modes->solves(), 2);
        // The source's profile and the monitor's (one mode each, 6 components on 9 x 17 points).
        QCOMPARE(o.modes->profileBytes(), std::int64_t(2 * 6 * 9 * 17 * 8));
    }

    /// A session solves once per preparation, not once per evaluation.
    void sessionSolvesOnce() {
        const scene::Scene s = modeScene();
        run::RunOptions o = options(s, {2, 1, 1}, true);
        run::Session ses(s, o);
        QCOMPARE(o.modes->solves(), 2);
        std::vector<double> values;
        for (int e = 0; e < 3; ++e) {
            run::DesignUpdate u;
            for (std::size_t d : ses.designSizes())
                u.latent.push_back(std::vector<double>(d, 0.2 + 0.3 * e));
            const run::RunResult r = ses.evaluate(u);
            QVERIFY(r.completed && r.objective);
            values.push_back(*r.objective);
            QCOMPARE(o.modes->solves(), 2);
        }
        QVERIFY(values[0] != values[1] && values[1] != values[2]);
    }

    /// A cache given another scene forgets the first scene's modes (the key holds no materials).
    void otherSceneEmptiesCache() {
        const scene::Scene a = modeScene();
        scene::Scene b = a;
        for (auto& m : b.materials)
            if (m.name == "glass")
                m.eps = 3.0; // the rod crosses both port planes
        run::RunOptions o = options(a, {1, 1, 1});
        o.maxSteps = 10;
        const run::RunResult ra = run::run(a, o);
        QCOMPARE(o.modes->solves(), 2);
        const run::RunResult rb = run::run(b, o);
        QCOMPARE(o.modes->solves(), 4);
        const run::RunResult rb2 = run::run(b, o);
        QCOMPARE(o.modes->solves(), 4);
        auto neff = [](const run::RunResult& r) {
            for (const auto& d : r.detectors)
                if (d.name == "port2")
                    return d.find("neff")->data[0];
            return 0.0;
        };
        QVERIFY(neff(rb) > neff(ra));
        QVERIFY(sameBits(neff(rb), neff(rb2)));
    }
};

QTEST_APPLESS_MAIN(TestModeShare)
#include "tst_mode_share.moc"
