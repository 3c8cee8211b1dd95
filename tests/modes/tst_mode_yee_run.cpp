/// yee-run under mpirun on mode_waveguide.json (one tile per rank): the results of 2 and 3 ranks equal a
/// one-process run bit for bit (mode coefficients, S-parameters), the collective table shows the planning
/// broadcasts, and a bad port ends every rank with one error line and exit code 2 instead of hanging.
/// (QTEST_FUNCTION_TIMEOUT is raised by the ctest registration: matchesOneProcess runs yee-run 3 times.)
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include <cstring>
#include <fstream>

#include "yee/run/Run.hpp"
// after Run.hpp (it uses solver:: result types)
#include "gradient/GradScene.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/scene/DetectorKinds.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;
using namespace yee::testing;

namespace {

const QString kScene = QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/mode_waveguide.json");

struct Result {
    int code = -1;
    QString out, err;
    bool finished = false;
};

/// Runs `program args` in `dir`; gives up (killing it) after `seconds`.
Result launch(const QString& program, const QStringList& args, const QString& dir, int seconds) {
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start(program, args);
    Result r;
    r.finished = p.waitForStarted(30000) && p.waitForFinished(seconds * 1000);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(10000);
    }
    r.code = p.exitCode();
    r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
    r.err = QString::fromLocal8Bit(p.readAllStandardError());
    return r;
}

Result yeeRun(int ranks, const QStringList& args, const QString& dir, int seconds = 600) {
    if (ranks <= 1)
        return launch(YEE_RUN_EXE, args, dir, seconds);
    return launch(
        YEE_MPIEXEC,
        QStringList{"--allow-run-as-root", "--oversubscribe", "-np", QString::number(ranks), YEE_RUN_EXE} +
            args,
        dir, seconds);
}

QString explain(const Result& r) {
    return QStringLiteral("exit %1%2\nstdout:\n%3\nstderr:\n%4")
        .arg(r.code)
        .arg(r.finished ? "" : " (did not finish: killed)")
        .arg(r.out, r.err);
}

/// The first difference between the detectors and S-parameters of two results files ("" when none).
std::string diff(const io::ResultsFile& a, const io::ResultsFile& b) {
    if (a.detectors.size() != b.detectors.size())
        return "detector count";
    for (std::size_t d = 0; d < a.detectors.size(); ++d)
        for (std::size_t q = 0; q < a.detectors[d].arrays.size(); ++q) {
            const auto& u = a.detectors[d].arrays[q];
            const auto* v = b.detectors[d].find(u.name);
            if (!v || v->data.size() != u.data.size() ||
                std::memcmp(u.data.data(), v->data.data(), u.data.size() * sizeof(double)) != 0)
                return a.detectors[d].name + "/" + u.name;
        }
    if (!a.sParameters || !b.sParameters)
        return "no S-parameters";
    if (!(a.sParameters->s == b.sParameters->s))
        return "S-parameters";
    return {};
}

/// The gradient scene (nx = 48) with a mode source and a mode monitor "port2" (detectors[2]) whose first
/// mode's power is the objective, as tests/modes/tst_mode_gradient.cpp builds it.
scene::Scene modeGradScene() {
    GradSceneOptions go;
    go.nx = 48;
    go.steps = 50;
    scene::Scene s = gradScene(go);
    const double x0 = -0.5 * go.nx * s.cellUm;
    s.sources[0].type = scene::SourceType::Mode;
    s.sources[0].mode = 0;
    scene::Detector m =
        detector("port2", scene::detectorType("mode_monitor"), {x0 + 0.925, 0, 0}, {0, 0.4, 0.8});
    m.normal = 0;
    m.direction = +1;
    m.wavelengths = {go.wavelength};
    s.detectors.push_back(m);
    return s;
}

} // namespace

class TestModeYeeRun : public QObject {
    Q_OBJECT
private slots:
    void matchesOneProcess() {
        QTemporaryDir dir;
        const QStringList common{"-q", "--max-steps", "150", kScene};
        const Result one = yeeRun(1, QStringList{"-o", "one.h5"} + common, dir.path());
        QVERIFY2(one.finished && one.code == 0, qPrintable(explain(one)));
        const io::ResultsFile a = io::readResults(dir.filePath("one.h5").toStdString());
        for (int n : {2, 3}) {
            const QString out = QStringLiteral("np%1.h5").arg(n);
            const Result r = yeeRun(n,
                                    QStringList{"--tiles", QStringLiteral("%1x1x1").arg(n), "-o", out,
                                                "--max-steps", "150", kScene},
                                    dir.path());
            QVERIFY2(r.finished && r.code == 0, qPrintable(explain(r)));
            const io::ResultsFile b = io::readResults(dir.filePath(out).toStdString());
            const std::string d = diff(a, b);
            QVERIFY2(d.empty(), d.c_str());
            // 7 solves (the source, two monitors at three wavelengths), two broadcasts each, on every rank.
            QCOMPARE(b.devices.size(), std::size_t(n));
            for (const auto& dev : b.devices)
                QCOMPARE(
                    dev.comm.calls[std::size_t(comm::Phase::Planning)][std::size_t(comm::Kind::Broadcast)],
                    std::int64_t(14));
            QVERIFY2(r.out.contains("planning"), qPrintable(r.out));
        }
    }

    /// A failed solve on the source's owner (rank 0) and on the monitor's (rank 1 of 3): one error line,
    /// exit code 2, every rank ends. The scene: the gradient tests' box with a mode source (cell 7) and a
    /// mode monitor (cell 18), small PEC-edged cross-sections that refuse fast.
    void badPortEndsEveryRank_data() {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("expect");
        QTest::newRow("mode index, np 2") << 2 << "source"
                                          << "sources[0].mode_index: the cross-section guides";
        QTest::newRow("mode index, np 3") << 3 << "source"
                                          << "sources[0].mode_index: the cross-section guides";
        QTest::newRow("monitor modes on rank 1, np 3") << 3 << "monitor"
                                                       << "detectors[2].modes: the cross-section guides";
        QTest::newRow("plane outside, np 2") << 2 << "outside"
                                             << "detectors[2]";
    }
    void badPortEndsEveryRank() {
        QFETCH(int, ranks);
        QFETCH(QString, what);
        QFETCH(QString, expect);
        QTemporaryDir dir;
        scene::Scene s = modeGradScene();
        if (what == "source")
            s.sources[0].mode = 30;
        else if (what == "monitor")
            s.detectors[2].params["modes"] = 30;
        else
            s.detectors[2].center[0] = 40.0;
        scene::saveScene(s, dir.filePath("bad.json").toStdString());
        const Result r =
            yeeRun(ranks, {"--tiles", QStringLiteral("%1x1x1").arg(ranks), "bad.json"}, dir.path(), 120);
        QVERIFY2(r.finished, qPrintable(explain(r)));
        QVERIFY2(r.code == 2, qPrintable(explain(r)));
        // One line from yee-run (mpirun adds its own note about the exit code).
        int lines = 0;
        for (const QString& l : r.err.split('\n'))
            lines += l.startsWith("yee-run") ? 1 : 0;
        QCOMPARE(lines, 1);
        QVERIFY2(r.err.contains("yee-run: error: " + expect), qPrintable(explain(r)));
        QVERIFY(!QFile::exists(dir.filePath("bad.results.h5")));
    }
};

QTEST_GUILESS_MAIN(TestModeYeeRun)
#include "tst_mode_yee_run.moc"
