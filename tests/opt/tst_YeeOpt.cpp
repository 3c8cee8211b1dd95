/// yee-opt end to end through QProcess: an optimisation of the example scene writes a history and a
/// re-simulable design; --resume continues it (the replayed evaluations are reported and the iterates
/// equal an uninterrupted run's); SIGINT stops after the current evaluation with exit 4 and a valid
/// history; bad command lines exit 2 naming the option, before anything is written.
#include <QProcess>
#include <QtTest>

#include <csignal>

#include "yee/cuda/Runtime.hpp"
#include "yee/opt/History.hpp"

namespace {
const QString kScene = QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/ar_coating_opt.json");

struct Result {
    int code = -1;
    QString out, err;
};

Result runIn(const QString& dir, const QString& exe, const QStringList& args, int timeoutMs = 600000) {
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start(exe, args);
    Result r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}
} // namespace

class tst_YeeOpt : public QObject {
    Q_OBJECT
private slots:
    void optimiseResumeAndResimulate();
    void sigintStopsAfterEvaluation();
    void exportDesignFiles();
    void badCommandLines_data();
    void badCommandLines();
    void mpiRanksMatchLocalRun_data();
    void mpiRanksMatchLocalRun();
};

void tst_YeeOpt::optimiseResumeAndResimulate() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Result a = runIn(dir.path(), YEE_OPT_EXE, {kScene, "--iterations", "6", "--history", "full.h5"});
    QVERIFY2(a.code == 0, qPrintable(a.err));
    QVERIFY2(a.out.contains("evaluations"), qPrintable(a.out));
    Result b = runIn(dir.path(), YEE_OPT_EXE, {kScene, "--iterations", "3", "--history", "part.h5", "-q"});
    QVERIFY2(b.code == 0, qPrintable(b.err));
    QVERIFY(b.out.isEmpty());
    Result c = runIn(dir.path(), YEE_OPT_EXE,
                     {kScene, "--iterations", "6", "--resume", "part.h5", "--history", "resumed.h5"});
    QVERIFY2(c.code == 0, qPrintable(c.err));
    QVERIFY2(c.out.contains("(3 replayed)"), qPrintable(c.out));
    const auto fa = yee::opt::readHistory(dir.filePath("full.h5").toStdString());
    const auto fc = yee::opt::readHistory(dir.filePath("resumed.h5").toStdString());
    QCOMPARE(fa.size(), std::size_t(6));
    QCOMPARE(fc.size(), std::size_t(6));
    for (std::size_t i = 0; i < fa.size(); ++i) {
        QCOMPARE(fa[i].latent, fc[i].latent);
        QCOMPARE(fa[i].merit, fc[i].merit);
    }
    // The design written out is a plain scene: yee-run re-simulates it to the optimiser's best value.
    QVERIFY(QFile::exists(dir.filePath("ar_coating_opt.optimized.json")));
    double best = fa[0].merit;
    for (const auto& e : fa)
        best = std::min(best, e.merit);
    Result r = runIn(dir.path(), YEE_RUN_EXE, {"ar_coating_opt.optimized.json", "-q", "-o", "re.h5"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QProcess dump;
    dump.start("h5dump", {"-d", "/objective", "-m", "%.17g", dir.filePath("re.h5")});
    if (dump.waitForStarted() && dump.waitForFinished()) {
        const QString text = QString::fromUtf8(dump.readAllStandardOutput());
        const QRegularExpression num("\\(0\\): ([-+0-9.eE]+)");
        const auto m = num.match(text);
        QVERIFY2(m.hasMatch(), qPrintable(text));
        const double v = m.captured(1).toDouble();
        qInfo("optimiser best %.17g, re-simulated %.17g", best, v);
        QVERIFY(std::fabs(v - best) <= 1e-12 * std::fabs(best));
    }
}

void tst_YeeOpt::sigintStopsAfterEvaluation() {
    QTemporaryDir dir;
    QProcess p;
    p.setWorkingDirectory(dir.path());
    p.start(YEE_OPT_EXE, {kScene, "--iterations", "50", "--history", "h.h5"});
    QVERIFY(p.waitForStarted());
    // Wait for the second evaluation line, then interrupt.
    QString out;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 300000 && !out.contains(QRegularExpression("\\n\\s+1\\s+0\\s"))) {
        p.waitForReadyRead(1000);
        out += QString::fromUtf8(p.readAllStandardOutput());
    }
    QVERIFY2(out.contains(QRegularExpression("\\n\\s+1\\s+0\\s")), qPrintable(out));
    ::kill(pid_t(p.processId()), SIGINT);
    QVERIFY(p.waitForFinished(300000));
    QCOMPARE(p.exitCode(), 4);
    yee::opt::HistoryHeader h;
    const auto ev = yee::opt::readHistory(dir.filePath("h.h5").toStdString(), &h);
    QVERIFY(!h.completed);
    QVERIFY(ev.size() >= 2 && ev.size() < 50);
    QVERIFY2(QString::fromStdString(h.status).startsWith("cancelled"), h.status.c_str());
}

void tst_YeeOpt::exportDesignFiles() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Result a = runIn(dir.path(), YEE_OPT_EXE, {kScene, "--iterations", "3", "--history", "h.h5", "-q"});
    QVERIFY2(a.code == 0, qPrintable(a.err));
    for (const char* f : {"ar_coating_opt.design.h5", "ar_coating_opt.coating.density.vtkhdf",
                          "ar_coating_opt.geometry.json", "ar_coating_opt.gds"})
        QVERIFY2(QFile::exists(dir.filePath(f)), f);
    // The traced geometry is a plain scene that yee-run runs.
    Result g = runIn(dir.path(), YEE_RUN_EXE, {"ar_coating_opt.geometry.json", "-q", "-o", "g.h5"});
    QVERIFY2(g.code == 0, qPrintable(g.err));
    // Any evaluation of a history, without optimising.
    Result e = runIn(dir.path(), YEE_OPT_EXE,
                     {"--export", "h.h5", "--evaluation", "1", "--export-prefix", "e1", "--trace",
                      "staircase", "--gds-layer", "4/2"});
    QVERIFY2(e.code == 0, qPrintable(e.err));
    QVERIFY2(e.out.contains("evaluation 1 of h.h5"), qPrintable(e.out));
    for (const char* f :
         {"e1.design.h5", "e1.coating.density.vtkhdf", "e1.geometry.json", "e1.gds", "e1.optimized.json"})
        QVERIFY2(QFile::exists(dir.filePath(f)), f);
    Result bad = runIn(dir.path(), YEE_OPT_EXE, {"--export", "h.h5", "--evaluation", "7"});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("--evaluation"), qPrintable(bad.err));
    // One output that cannot be written: the others are, and the exit code says it failed.
    QVERIFY(QDir(dir.path()).mkpath("f.gds"));
    Result f = runIn(dir.path(), YEE_OPT_EXE, {"--export", "h.h5", "--export-prefix", "f"});
    QCOMPARE(f.code, 3);
    QVERIFY2(f.err.contains("design output failed:") && f.err.contains("f.gds"), qPrintable(f.err));
    QVERIFY(QFile::exists(dir.filePath("f.geometry.json")));
    QVERIFY(QFile::exists(dir.filePath("f.design.h5")));
}

void tst_YeeOpt::badCommandLines_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no scene") << QStringList{} << "SCENE.json";
    QTest::newRow("bad iterations") << QStringList{kScene, "--iterations", "0"} << "--iterations";
    QTest::newRow("unknown option") << QStringList{kScene, "--frobnicate"} << "--frobnicate";
    QTest::newRow("bad tiles") << QStringList{kScene, "--tiles", "2x1"} << "--tiles";
    QTest::newRow("missing history") << QStringList{kScene, "--resume", "nope.h5"} << "nope.h5";
    QTest::newRow("bad level") << QStringList{kScene, "--level", "1.5"} << "--level";
    QTest::newRow("bad trace") << QStringList{kScene, "--trace", "wiggly"} << "--trace";
    QTest::newRow("bad gds layer") << QStringList{kScene, "--gds-layer", "1/99999"} << "--gds-layer";
    QTest::newRow("export missing history") << QStringList{"--export", "nope.h5"} << "nope.h5";
    QTest::newRow("design sidecar over history")
        << QStringList{kScene, "--history", "run.h5", "--design-out", "run.json"} << "--design-out";
    QTest::newRow("design sidecar over exported history")
        << QStringList{"--export", "h.h5", "--design-out", "h.json"} << "--design-out";
    QTest::newRow("export and scene") << QStringList{"--export", "h.h5", kScene} << "--export";
}

void tst_YeeOpt::badCommandLines() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const Result r = runIn(dir.path(), YEE_OPT_EXE, args);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("yee-opt: error:") && r.err.contains(message), qPrintable(r.err));
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
}

void tst_YeeOpt::mpiRanksMatchLocalRun_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("note");
    QTest::newRow("cpu ranks") << QStringList{} << QString();
    // Without a GPU a GPU list runs each rank's tile on the CPU, with one note (rank 0); on a GPU
    // machine the ranks take their GPUs as yee-run's do (cli::chooseGpuExchange).
    QTest::newRow("gpu request") << QStringList{"--devices", "cuda:all"}
                                 << "yee-opt: note: --devices asks for GPUs (cuda:all)";
}

/// Under mpirun each rank runs one tile (split along x: the scene asks for one); the iterates equal a
/// local run's bit for bit.
void tst_YeeOpt::mpiRanksMatchLocalRun() {
#if !defined(YEE_MPIEXEC)
    QSKIP("yee-opt was built without MPI");
#else
    QFETCH(QStringList, extra);
    QFETCH(QString, note);
    if (qEnvironmentVariableIsEmpty("YEE_TEST_MPI"))
        QSKIP("run by the yee_opt_mpi test");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Result a = runIn(dir.path(), YEE_OPT_EXE, {kScene, "--iterations", "3", "--history", "local.h5", "-q"});
    QVERIFY2(a.code == 0, qPrintable(a.err));
    Result m = runIn(dir.path(), YEE_MPIEXEC,
                     QStringList{"--allow-run-as-root", "--oversubscribe", "-np", "2", YEE_OPT_EXE, kScene,
                                 "--iterations", "3", "--history", "mpi.h5", "--design-out",
                                 "mpi.optimized.json", "--export-prefix", "mpi", "-q"} +
                         extra);
    QVERIFY2(m.code == 0, qPrintable(m.err));
    if (!note.isEmpty() && yee::cuda::deviceCount() == 0)
        QCOMPARE(m.err.count(note), 1);
    const auto fa = yee::opt::readHistory(dir.filePath("local.h5").toStdString());
    const auto fm = yee::opt::readHistory(dir.filePath("mpi.h5").toStdString());
    QCOMPARE(fm.size(), fa.size());
    QCOMPARE(fa.size(), std::size_t(3));
    for (std::size_t i = 0; i < fa.size(); ++i) {
        QCOMPARE(fm[i].merit, fa[i].merit);
        QCOMPARE(fm[i].latent, fa[i].latent);
    }
#endif
}

QTEST_MAIN(tst_YeeOpt)
#include "tst_YeeOpt.moc"
