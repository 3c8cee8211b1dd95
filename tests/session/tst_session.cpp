/// Prepared-scene sessions (run/Session.hpp): every evaluation equals, bit for bit, a fresh run::run()
/// of the scene with the same designs (detectors, objective, gradient), on every tile grid and gradient
/// method, however the designs changed before; memory does not grow across evaluations; a malformed
/// update is refused naming the field and leaves the session usable.
#include <QtTest>

#include <cstring>
#include <random>

#include "decomp/ResultCompare.hpp"
#include "gradient/GradScene.hpp"
#include "yee/core/Error.hpp"
#include "yee/run/Session.hpp"

using namespace yee;
using namespace yee::testing;

namespace {

run::RunOptions options(const scene::Scene& s, std::array<int, 3> tiles, run::Precision p) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = p;
    o.tiles = tiles;
    o.devices = tiles[0] * tiles[1] * tiles[2];
    o.gradient = true;
    o.threadsPerDevice = 1;
    o.guardInterval = 1000;
    return o;
}

std::vector<std::vector<double>> randomLatent(const run::Session& ses, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::vector<double>> l;
    for (std::size_t n : ses.designSizes()) {
        l.emplace_back(n);
        for (double& v : l.back())
            v = u(rng);
    }
    return l;
}

std::string gradDiff(const run::RunResult& a, const run::RunResult& b) {
    if (a.gradients.size() != b.gradients.size())
        return "gradient count differs";
    for (std::size_t d = 0; d < a.gradients.size(); ++d) {
        const auto& x = a.gradients[d].data;
        const auto& y = b.gradients[d].data;
        if (x.size() != y.size() || std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) != 0)
            return "gradient of " + a.gradients[d].name + " differs";
    }
    return {};
}

} // namespace

class tst_Session : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // The sessions' material index is pinned below: the small scenes would otherwise fit the cache and
        // keep per-cell arrays (solver::Plan::perCellCacheBytes).
        qputenv("YEE_CACHE_PER_CELL", "0");
    }
    void matchesFreshRuns_data();
    void matchesFreshRuns();
    void forwardMatchesFreshRuns_data();
    void forwardMatchesFreshRuns();
    void weightsSelectTerms();
    void badUpdateRefused();
};

void tst_Session::matchesFreshRuns_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<int>("px");
    QTest::addColumn<int>("py");
    QTest::addColumn<bool>("f64");
    QTest::newRow("checkpointed 1x1 f64") << "checkpointed" << 1 << 1 << true;
    QTest::newRow("checkpointed 2x1 f64") << "checkpointed" << 2 << 1 << true;
    QTest::newRow("full 2x2 f32") << "full" << 2 << 2 << false;
    QTest::newRow("reversible 1x2 f64") << "reversible" << 1 << 2 << true;
}

void tst_Session::matchesFreshRuns() {
    QFETCH(QString, method);
    QFETCH(int, px);
    QFETCH(int, py);
    QFETCH(bool, f64);
    GradSceneOptions go;
    go.lossy = method != "reversible";
    go.steps = 50;
    scene::Scene s = gradScene(go);
    s.gradient.method = method == "full"           ? scene::GradientMethod::Full
                        : method == "checkpointed" ? scene::GradientMethod::Checkpointed
                                                   : scene::GradientMethod::Reversible;
    const run::RunOptions o =
        options(s, {px, py, 1}, f64 ? run::Precision::Float64 : run::Precision::Float32);
    run::Session ses(s, o);
    // Beta changes too: the projection is part of what an iteration may change.
    std::vector<run::DesignUpdate> ups(3);
    ups[0].latent = randomLatent(ses, 1);
    ups[1].latent = randomLatent(ses, 2);
    ups[1].beta = {4.0, 1.0};
    ups[2] = ups[0];
    ups[2].beta = {s.designs[0].beta, s.designs[1].beta};
    std::int64_t peak0 = -1;
    for (std::size_t k = 0; k < ups.size(); ++k) {
        const run::RunResult got = ses.evaluate(ups[k]);
        QVERIFY2(got.completed, got.status.c_str());
        scene::Scene f = s;
        for (std::size_t d = 0; d < f.designs.size(); ++d) {
            f.designs[d].latent = ups[k].latent[d];
            if (!ups[k].beta.empty())
                f.designs[d].beta = ups[k].beta[d];
        }
        const run::RunResult want = run::run(f, o);
        const std::string diff = bitDiff(got, want);
        QVERIFY2(diff.empty(), ("evaluation " + std::to_string(k) + ": " + diff).c_str());
        const std::string gd = gradDiff(got, want);
        QVERIFY2(gd.empty(), ("evaluation " + std::to_string(k) + ": " + gd).c_str());
        QVERIFY(!got.gradients.empty());
        // Collective counts are per evaluation, equal to a fresh run's.
        for (std::size_t q = 0; q < got.devices.size(); ++q)
            QVERIFY(got.devices[q].comm.calls == want.devices[q].comm.calls &&
                    got.devices[q].comm.bytes == want.devices[q].comm.bytes);
        // Memory does not grow: the peak after every evaluation is the first evaluation's, which is a
        // fresh run's peak.
        const std::int64_t peak = got.devices[0].memory.peakTotal;
        if (peak0 < 0) {
            peak0 = peak;
            QCOMPARE(peak, want.devices[0].memory.peakTotal);
        }
        QCOMPARE(peak, peak0);
    }
    QCOMPARE(ses.evaluations(), 3);
}

void tst_Session::forwardMatchesFreshRuns_data() {
    QTest::addColumn<int>("px");
    QTest::addColumn<bool>("f64");
    QTest::newRow("1x1 f32") << 1 << false;
    QTest::newRow("2x1 f64") << 2 << true;
}

// Forward-only sessions keep a material index and coefficient tables on their tiles (solver/Tile.hpp):
// each evaluation rewrites the design cells' table entries, and equals a fresh run bit for bit.
void tst_Session::forwardMatchesFreshRuns() {
    QFETCH(int, px);
    QFETCH(bool, f64);
    GradSceneOptions go;
    go.steps = 50;
    const scene::Scene s = gradScene(go);
    run::RunOptions o = options(s, {px, 1, 1}, f64 ? run::Precision::Float64 : run::Precision::Float32);
    o.gradient = false;
    run::Session ses(s, o);
    std::vector<run::DesignUpdate> ups(3);
    ups[0].latent = randomLatent(ses, 3);
    ups[1].latent = randomLatent(ses, 4);
    ups[1].beta = {4.0, 1.0};
    ups[2] = ups[0];
    ups[2].beta = {s.designs[0].beta, s.designs[1].beta};
    for (std::size_t k = 0; k < ups.size(); ++k) {
        const run::RunResult got = ses.evaluate(ups[k]);
        QVERIFY2(got.completed, got.status.c_str());
        scene::Scene f = s;
        for (std::size_t d = 0; d < f.designs.size(); ++d) {
            f.designs[d].latent = ups[k].latent[d];
            if (!ups[k].beta.empty())
                f.designs[d].beta = ups[k].beta[d];
        }
        const run::RunResult want = run::run(f, o);
        const std::string diff = bitDiff(got, want);
        QVERIFY2(diff.empty(), ("evaluation " + std::to_string(k) + ": " + diff).c_str());
        QVERIFY(got.gradients.empty());
        // The index (2 bytes per cell) and small tables, not per-cell floats.
        const std::int64_t mats = got.devices[0].memory.peak[int(device::Category::Materials)];
        const std::array<int, 3> n = s.gridCells();
        const std::int64_t cells = std::int64_t(n[0] / px + 2) * (n[1] + 2) * (n[2] + 2);
        QVERIFY2(mats < 3 * cells * std::int64_t(sizeof(float)),
                 qPrintable(QString("materials %1 B for %2 cells").arg(mats).arg(cells)));
    }
}

void tst_Session::weightsSelectTerms() {
    GradSceneOptions go;
    go.steps = 40;
    scene::Scene s = gradScene(go);
    s.gradient.method = scene::GradientMethod::Full;
    const run::RunOptions o = options(s, {2, 1, 1}, run::Precision::Float64);
    run::Session ses(s, o);
    const std::size_t T = s.objective.terms.size();
    QVERIFY(T >= 2);
    // One-hot weights give each term alone; they equal a fresh run of a scene with only that term.
    for (std::size_t t = 0; t < T; ++t) {
        run::DesignUpdate u;
        u.weights.assign(T, 0.0);
        u.weights[t] = 1.0;
        const run::RunResult got = ses.evaluate(u);
        scene::Scene f = s;
        f.objective.terms = {s.objective.terms[t]};
        f.objective.terms[0].weight = 1.0;
        const run::RunResult want = run::run(f, o);
        QVERIFY(got.objective && want.objective);
        QCOMPARE(*got.objective, *want.objective);
        QVERIFY2(gradDiff(got, want).empty(), ("term " + std::to_string(t)).c_str());
    }
    // No weights: the scene's own again.
    const run::RunResult back = ses.evaluate({});
    const run::RunResult want = run::run(s, o);
    QVERIFY(bitDiff(back, want).empty());
}

void tst_Session::badUpdateRefused() {
    GradSceneOptions go;
    go.steps = 20;
    scene::Scene s = gradScene(go);
    const run::RunOptions o = options(s, {1, 1, 1}, run::Precision::Float64);
    run::Session ses(s, o);
    auto refused = [&](run::DesignUpdate u, const char* field) {
        try {
            ses.evaluate(u);
        } catch (const InputError& e) {
            const std::string m = e.what();
            if (m.rfind(field, 0) != 0)
                qWarning("message: %s", e.what());
            return m.rfind(field, 0) == 0;
        }
        return false;
    };
    run::DesignUpdate u;
    u.latent = randomLatent(ses, 3);
    u.latent[1].pop_back();
    QVERIFY(refused(u, "designs[1].latent:"));
    u.latent = randomLatent(ses, 3);
    u.latent[0][2] = 1.5;
    QVERIFY(refused(u, "designs[0].latent[2]:"));
    u.latent[0][2] = std::nan("");
    QVERIFY(refused(u, "designs[0].latent[2]:"));
    u.latent = randomLatent(ses, 3);
    u.beta = {1.0, -2.0};
    QVERIFY(refused(u, "designs[1].beta:"));
    u.beta.clear();
    u.weights = {1.0};
    QVERIFY(refused(u, "objective.terms:"));
    run::DesignUpdate three;
    three.latent = randomLatent(ses, 3);
    three.latent.pop_back();
    QVERIFY(refused(three, "designs:"));
    QCOMPARE(ses.evaluations(), 0);
    // Still usable, and unchanged by the refused updates.
    const run::RunResult got = ses.evaluate({});
    QVERIFY(got.completed);
    QVERIFY(bitDiff(got, run::run(s, o)).empty());
}

QTEST_APPLESS_MAIN(tst_Session)
#include "tst_session.moc"
