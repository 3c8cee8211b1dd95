/// Restart files: a forward run interrupted at step k and resumed gives the same bits as one that never
/// stopped (detectors, snapshots, objective), in float32 and float64, on one tile and on 2x1x1 tiles;
/// writing restart files does not perturb a run; a restart file of another run is refused clearly.
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>

#include "decomp/ResultCompare.hpp"
#include "yee/core/Error.hpp"
#include "yee/run/Restart.hpp"
#include "yee/run/Run.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;

namespace {

const std::string kQuickBox = YEE_SOURCE_DIR "/resources/scenes/quick_box.json";

run::RunOptions optionsFor(const scene::Scene& s, std::array<int, 3> tiles, run::Precision p) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = p;
    o.tiles = tiles;
    o.devices = tiles[0] * tiles[1] * tiles[2];
    o.threadsPerDevice = 1;
    o.guardInterval = 16;
    return o;
}

std::string base(const QTemporaryDir& dir, const char* name) {
    return dir.filePath(name).toStdString();
}

/// The message of the InputError `f` throws ("" when it throws nothing or something else).
template <class F> QString inputError(F&& f) {
    try {
        f();
    } catch (const MemoryError& e) {
        return QString("MemoryError: ") + e.what();
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        return QString("other exception: ") + e.what();
    }
    return {};
}

} // namespace

class tst_Restart : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(QFile::exists(QString::fromStdString(kQuickBox))); }

    void resumedRunIsBitIdentical_data() {
        QTest::addColumn<int>("px");
        QTest::addColumn<bool>("f64");
        QTest::addColumn<bool>("overlap");
        QTest::addColumn<int>("stopAt");
        for (bool f64 : {false, true})
            for (int px : {1, 2}) {
                const QString name = QString("%1x1x1 %2").arg(px).arg(f64 ? "f64" : "f32");
                // 37 is inside an energy sample period (every 10) and a snapshot period (every 50).
                QTest::newRow(qPrintable(name)) << px << f64 << true << 37;
            }
        QTest::newRow("2x1x1 f32 no overlap, stop at 100") << 2 << false << false << 100;
    }

    /// Interrupted at step k (cancelled there, writing its last restart file), then resumed.
    void resumedRunIsBitIdentical() {
        QFETCH(int, px);
        QFETCH(bool, f64);
        QFETCH(bool, overlap);
        QFETCH(int, stopAt);
        const scene::Scene s = scene::loadScene(kQuickBox);
        run::RunOptions o =
            optionsFor(s, {px, 1, 1}, f64 ? run::Precision::Float64 : run::Precision::Float32);
        o.overlap = overlap;
        const run::RunResult whole = run::run(s, o);
        QVERIFY(whole.completed);
        QVERIFY(whole.steps > stopAt);

        QTemporaryDir dir;
        std::atomic<bool> cancel{true}; // cancelled from the start: stops at the first guard step
        run::RunOptions first = o;
        first.guardInterval = stopAt;
        first.cancel = &cancel;
        first.checkpointPath = base(dir, "ck");
        const run::RunResult stopped = run::run(s, first);
        QVERIFY(!stopped.completed);
        QCOMPARE(stopped.steps, stopAt);
        for (int r = 0; r < px; ++r) {
            const std::string file = run::restartFileFor(first.checkpointPath, r);
            QVERIFY2(QFile::exists(QString::fromStdString(file)), file.c_str());
            const run::RestartHeader h = run::readRestartHeader(file);
            QCOMPARE(h.step, stopAt);
            QCOMPARE(h.rank, r);
            QCOMPARE(h.ranks, px);
            QCOMPARE(h.key.precisionBytes, f64 ? 8 : 4);
            QCOMPARE(h.key.sceneHash, scene::sceneHash(s));
            QCOMPARE(h.key.totalSteps, whole.totalSteps);
        }
        QVERIFY(!QFile::exists(dir.filePath("ck.rank" + QString::number(px))));

        run::RunOptions second = o;
        second.resumeFrom = first.checkpointPath;
        const run::RunResult resumed = run::run(s, second);
        QVERIFY2(resumed.completed, resumed.status.c_str());
        QCOMPARE(resumed.steps, whole.steps);
        const std::string diff = testing::bitDiff(whole, resumed);
        QVERIFY2(diff.empty(), diff.c_str());
        QVERIFY(!resumed.snapshots.empty());
        QVERIFY(resumed.objective.has_value());
    }

    void periodicRestartFiles_data() {
        QTest::addColumn<int>("px");
        QTest::addColumn<bool>("f64");
        QTest::newRow("1x1x1 f32") << 1 << false;
        QTest::newRow("2x1x1 f64") << 2 << true;
    }

    /// Restart files every N steps leave the run's bits alone; resuming from the last one gives them again.
    void periodicRestartFiles() {
        QFETCH(int, px);
        QFETCH(bool, f64);
        const scene::Scene s = scene::loadScene(kQuickBox);
        const run::RunOptions o =
            optionsFor(s, {px, 1, 1}, f64 ? run::Precision::Float64 : run::Precision::Float32);
        const run::RunResult whole = run::run(s, o);
        QVERIFY(whole.completed);

        QTemporaryDir dir;
        run::RunOptions writing = o;
        writing.checkpointEvery = 60;
        writing.checkpointPath = base(dir, "periodic");
        const run::RunResult withFiles = run::run(s, writing);
        QVERIFY(withFiles.completed);
        std::string diff = testing::bitDiff(whole, withFiles);
        QVERIFY2(diff.empty(), diff.c_str());
        const int last = (whole.totalSteps - 1) / 60 * 60; // the final step writes none
        for (int r = 0; r < px; ++r)
            QCOMPARE(run::readRestartHeader(run::restartFileFor(writing.checkpointPath, r)).step, last);
        for (const QString& e : QDir(dir.path()).entryList(QDir::Files))
            QVERIFY2(!e.contains(".tmp."), qPrintable(e));

        run::RunOptions resume = o;
        resume.resumeFrom = writing.checkpointPath;
        const run::RunResult resumed = run::run(s, resume);
        QVERIFY(resumed.completed);
        diff = testing::bitDiff(whole, resumed);
        QVERIFY2(diff.empty(), diff.c_str());
    }

    void refused_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("wrong scene") << "scene"
                                     << "written for another scene";
        QTest::newRow("wrong grid") << "grid"
                                    << "written for tile grid 2x1x1, this run uses 1x1x1 (run.tiles)";
        QTest::newRow("wrong precision") << "precision"
                                         << "written in float32, this run uses float64";
        QTest::newRow("wrong step count") << "steps"
                                          << "written for a run of";
        QTest::newRow("missing rank file") << "missing"
                                           << "ck.rank1': cannot open";
        QTest::newRow("not a restart file") << "garbage"
                                            << "not a Yee Studio restart file";
        QTest::newRow("truncated") << "truncated"
                                   << "truncated";
        QTest::newRow("ranks of different steps") << "mixed"
                                                  << "was saved at step 40 but tile 1 at step 20";
        QTest::newRow("negative interval") << "negative"
                                           << "restart.checkpoint_every: must be >= 0";
        QTest::newRow("interval without path") << "nopath"
                                               << "restart.checkpoint_path: needed";
        QTest::newRow("missing checkpoint directory") << "nodir"
                                                      << "restart.checkpoint_path: cannot write";
        QTest::newRow("gradient runs") << "gradient"
                                       << "restart: restart files hold forward runs only";
    }

    /// Every refusal is one InputError line naming the file or option, raised before the run starts.
    void refused() {
        QFETCH(QString, what);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const scene::Scene s = scene::loadScene(kQuickBox);
        run::RunOptions o = optionsFor(s, {2, 1, 1}, run::Precision::Float32);
        // Restart files of a 2x1x1 float32 run at step 40 (ck) and at step 20 (early).
        auto writeSet = [&](const char* name, int step) {
            std::atomic<bool> cancel{true};
            run::RunOptions w = o;
            w.guardInterval = step;
            w.cancel = &cancel;
            w.checkpointPath = base(dir, name);
            QCOMPARE(run::run(s, w).steps, step);
        };
        writeSet("ck", 40);
        const std::string ck = base(dir, "ck");
        scene::Scene runScene = s;
        run::RunOptions r = o;
        r.resumeFrom = ck;
        if (what == "scene") {
            runScene.materials[1].eps = 2.5;
        } else if (what == "grid") {
            r.tiles = {1, 1, 1};
            r.devices = 1;
        } else if (what == "precision") {
            r.precision = run::Precision::Float64;
        } else if (what == "steps") {
            r.maxSteps = 100;
        } else if (what == "missing") {
            QVERIFY(QFile::remove(QString::fromStdString(ck + ".rank1")));
        } else if (what == "garbage" || what == "truncated") {
            QFile f(QString::fromStdString(ck + ".rank1"));
            QVERIFY(f.open(QIODevice::ReadWrite));
            if (what == "garbage")
                f.write("this is not a restart file at all, just some text");
            else
                QVERIFY(f.resize(f.size() - 8));
        } else if (what == "mixed") {
            writeSet("early", 20);
            QVERIFY(QFile::remove(QString::fromStdString(ck + ".rank1")));
            QVERIFY(QFile::copy(QString::fromStdString(base(dir, "early") + ".rank1"),
                                QString::fromStdString(ck + ".rank1")));
        } else if (what == "negative") {
            r.resumeFrom.clear();
            r.checkpointEvery = -1;
        } else if (what == "nopath") {
            r.resumeFrom.clear();
            r.checkpointEvery = 10;
        } else if (what == "nodir") {
            r.resumeFrom.clear();
            r.checkpointEvery = 10;
            r.checkpointPath = base(dir, "no/such/dir/ck");
        } else if (what == "gradient") {
            r.gradient = true;
        }
        const QString checkMsg = inputError([&] { run::estimate(runScene, r); }); // --check sees it too
        const QString runMsg = inputError([&] { run::run(runScene, r); });
        QVERIFY2(runMsg.contains(message), qPrintable(runMsg));
        QCOMPARE(checkMsg, runMsg);
        QVERIFY2(!runMsg.contains('\n'), qPrintable(runMsg));
    }

    /// A payload that changed after writing is caught by its checksum when loading.
    void corruptPayloadRefused() {
        QTemporaryDir dir;
        const scene::Scene s = scene::loadScene(kQuickBox);
        run::RunOptions o = optionsFor(s, {1, 1, 1}, run::Precision::Float32);
        std::atomic<bool> cancel{true};
        run::RunOptions w = o;
        w.guardInterval = 30;
        w.cancel = &cancel;
        w.checkpointPath = base(dir, "ck");
        QCOMPARE(run::run(s, w).steps, 30);
        QFile f(dir.filePath("ck.rank0"));
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.seek(f.size() / 2));
        char c = 0;
        QVERIFY(f.getChar(&c));
        QVERIFY(f.seek(f.size() / 2));
        QVERIFY(f.putChar(char(c ^ 0x40)));
        f.close();
        run::RunOptions r = o;
        r.resumeFrom = w.checkpointPath;
        try {
            run::run(s, r);
            QFAIL("a corrupt restart file was accepted");
        } catch (const RunError& e) {
            QVERIFY2(QString(e.what()).contains("corrupt (payload checksum mismatch)"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(tst_Restart)
#include "tst_restart.moc"
