/// Mode power as an objective: the adjoint of |a+|^2 against central finite differences (float64), and a
/// scene with a mode source and a mode monitor giving the same bits (results and gradients) on every
/// tile grid that keeps the monitor on one tile.
#include <QtTest>

#include <cmath>
#include <cstring>

#include "decomp/ResultCompare.hpp"
#include "gradient/GradScene.hpp"
#include "modes/ModeGradScene.hpp"
#include "yee/core/Error.hpp"
#include "yee/run/Run.hpp"
#include "yee/scene/DetectorKinds.hpp"

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
    run::RunResult r = run::run(s, o);
    if (!r.completed)
        throw std::runtime_error(r.status);
    return r;
}

} // namespace

class TestModeGradient : public QObject {
    Q_OBJECT
private slots:
    void finiteDifferences_data() {
        QTest::addColumn<QString>("method");
        QTest::addColumn<bool>("lossy");
        QTest::addColumn<double>("tol");
        QTest::newRow("full lossy") << "full" << true << 1e-6;
        QTest::newRow("checkpointed lossy") << "checkpointed" << true << 1e-6;
        QTest::newRow("reversible f64 lossless") << "reversible" << false << 1e-4;
    }
    void finiteDifferences() {
        QFETCH(QString, method);
        QFETCH(bool, lossy);
        QFETCH(double, tol);
        const scene::Scene s = modeGradScene(24, method.toStdString(), lossy, 0.825);
        const run::RunResult r = runGrad(s);
        QVERIFY(r.objective.has_value() && *r.objective > 0);
        int checked = 0;
        const double worst = worstFdError(
            s, r.gradients,
            [&](int d, std::size_t v, double value) {
                scene::Scene t = s;
                t.designs[std::size_t(d)].latent[v] = value;
                return *runGrad(t, {1, 1, 1}, run::Precision::Float64, false).objective;
            },
            checked, qPrintable(method));
        QCOMPARE(checked, 6);
        QVERIFY2(worst <= tol, qPrintable(QString("worst relative error %1 > %2").arg(worst).arg(tol)));
    }

    void decomposedBitIdentical() {
        const scene::Scene s = modeGradScene(48, "checkpointed", true, 0.925);
        for (auto prec : {run::Precision::Float32, run::Precision::Float64}) {
            const run::RunResult a = runGrad(s, {1, 1, 1}, prec);
            for (std::array<int, 3> g : {std::array<int, 3>{2, 1, 1}, {4, 1, 1}, {8, 1, 1}}) {
                const run::RunResult b = runGrad(s, g, prec);
                const std::string diff = bitDiff(a, b);
                QVERIFY2(diff.empty(), diff.c_str());
                QCOMPARE(a.gradients.size(), b.gradients.size());
                for (std::size_t d = 0; d < a.gradients.size(); ++d)
                    QVERIFY2(std::memcmp(a.gradients[d].data.data(), b.gradients[d].data.data(),
                                         a.gradients[d].data.size() * sizeof(double)) == 0,
                             "gradient differs");
            }
        }
        // A tile grid that cuts the monitor's plane is refused, naming the field.
        QString e;
        try {
            runGrad(s, {1, 2, 1});
        } catch (const InputError& x) {
            e = x.what();
        }
        QVERIFY2(e.startsWith("objective.terms[0].detector: mode monitor \"port2\" must lie within one tile"),
                 qPrintable(e));
    }
};

QTEST_APPLESS_MAIN(TestModeGradient)
#include "tst_mode_gradient.moc"
