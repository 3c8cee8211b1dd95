/// yee-run when outputs fail: a failing snapshot series or restart file never loses the results (they
/// are written, marked incomplete, naming what failed), a failing results file or a full disk exits 3
/// with the system's reason and no crash in HDF5's exit-time clean-up, and no temporary file is left.
/// Failures are injected (YEE_FAIL_OUTPUT) or real (RLIMIT_FSIZE through the shell's ulimit, SIGXFSZ
/// ignored, so writes fail with EFBIG as on a full disk).
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "yee/io/ResultsWriter.hpp"
#include "yee/io/VtkHdfWriter.hpp"

using namespace yee;

namespace {

const QString kQuickBox = QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/quick_box.json");

struct Result {
    int code = -1;
    bool crashed = false;
    QString err;
};

/// Runs `command` through /bin/sh (so a test can set ulimits) in `cwd` with extra environment.
Result shell(const QString& command, const QString& cwd, const QStringList& env = {}) {
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "YEE_FAIL_OUTPUT"})
        e.remove(v);
    for (const QString& kv : env)
        e.insert(kv.section('=', 0, 0), kv.section('=', 1));
    p.setProcessEnvironment(e);
    p.setWorkingDirectory(cwd);
    p.start("/bin/sh", {"-c", command});
    Result r;
    if (!p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.crashed = p.exitStatus() != QProcess::NormalExit;
    r.code = p.exitCode();
    r.err = QString::fromLocal8Bit(p.readAllStandardError());
    return r;
}

QString yeeRun(const QString& args) {
    return QStringLiteral("exec '" YEE_RUN_EXE "' -q ") + args;
}

/// quick_box with a second snapshot of the default three E components and one of mixed E and H,
/// and 120 steps at most, written next to the test's files.
QString writeScene(const QDir& dir) {
    QFile in(kQuickBox);
    if (!in.open(QIODevice::ReadOnly))
        return {};
    nlohmann::json s = nlohmann::json::parse(in.readAll().toStdString());
    s["detectors"].push_back({{"name", "efield"},
                              {"type", "snapshot"},
                              {"center_um", {0, 0, 0}},
                              {"size_um", {1.0, 1.0, 0}},
                              {"every", 40}});
    s["detectors"].push_back({{"name", "mixed"},
                              {"type", "snapshot"},
                              {"center_um", {0, 0, 0}},
                              {"size_um", {0.8, 0.8, 0.8}},
                              {"components", {"Ez", "Hx", "Hy"}},
                              {"downsample", 2},
                              {"every", 60}});
    const QString path = dir.filePath("scene.json");
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(QByteArray::fromStdString(s.dump(2)));
    return path;
}

QStringList temporaries(const QString& dir) {
    QStringList found;
    for (const QString& sub : {QString("."), QString("scene.fields")})
        for (const QString& f : QDir(QDir(dir).filePath(sub)).entryList(QDir::Files))
            if (f.contains(".tmp."))
                found << sub + "/" + f;
    return found;
}

} // namespace

class tst_OutputFaults : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString scene_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        scene_ = writeScene(QDir(tmp_.path()));
        QVERIFY(!scene_.isEmpty());
    }

    /// Item 1 end to end: default E triple and mixed E+H snapshots pass and are written, one series per
    /// staggered component, listed in the results.
    void multiComponentSnapshotsAreWritten() {
        QTemporaryDir dir;
        const Result r = shell(yeeRun("--max-steps 120 -o out.h5 '" + scene_ + "'"), dir.path());
        QVERIFY2(r.code == 0 && !r.crashed, qPrintable(r.err));
        const io::ResultsFile f = io::readResults(dir.filePath("out.h5").toStdString());
        QVERIFY(f.complete);
        QVERIFY(f.failedOutputs.empty());
        for (const char* name :
             {"slice", "efield.Ex", "efield.Ey", "efield.Ez", "mixed.Ez", "mixed.Hx", "mixed.Hy"})
            QVERIFY2(f.snapshotSeries.count(name), name);
        QCOMPARE(f.snapshotSeries.size(), std::size_t(7));
        const auto ex =
            io::readSeriesIndex(dir.filePath("scene.fields/efield.Ex.vtkhdf.series").toStdString());
        const auto ey =
            io::readSeriesIndex(dir.filePath("scene.fields/efield.Ey.vtkhdf.series").toStdString());
        QCOMPARE(ex.size(), std::size_t(3));
        const io::VtkImage a =
            io::readVtkHdf(dir.filePath("scene.fields/" + QString::fromStdString(ex[0].name)).toStdString());
        const io::VtkImage b =
            io::readVtkHdf(dir.filePath("scene.fields/" + QString::fromStdString(ey[0].name)).toStdString());
        // Ex sits half a cell up x from Ey, and Ey half a cell up y from Ex.
        QCOMPARE(a.origin[0] - b.origin[0], 0.025);
        QCOMPARE(b.origin[1] - a.origin[1], 0.025);
    }

    void failingOutputKeepsTheOthers_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("named");
        QTest::newRow("snapshots") << "snapshots"
                                   << "snapshots in";
        QTest::newRow("restart") << "restart"
                                 << "restart file at step 40";
    }

    void failingOutputKeepsTheOthers() {
        QFETCH(QString, kind);
        QFETCH(QString, named);
        QTemporaryDir dir;
        const Result r = shell(yeeRun("--max-steps 120 --checkpoint-every 40 -o out.h5 '" + scene_ + "'"),
                               dir.path(), {"YEE_FAIL_OUTPUT=" + kind});
        QCOMPARE(r.crashed, false);
        QVERIFY2(r.code == 3, qPrintable(r.err));
        QVERIFY2(r.err.contains("output failed: " + named), qPrintable(r.err));
        QVERIFY2(r.err.contains("marked incomplete"), qPrintable(r.err));
        const io::ResultsFile f = io::readResults(dir.filePath("out.h5").toStdString());
        QVERIFY(!f.complete);
        QCOMPARE(f.steps, 120);
        QCOMPARE(f.failedOutputs.size(), std::size_t(1));
        QVERIFY(QString::fromStdString(f.failedOutputs[0]).startsWith(named));
        QVERIFY(QString::fromStdString(f.status).contains("output failed: " + named));
        // Every detector is there.
        for (const char* d : {"out", "energy", "probe"})
            QVERIFY2(f.detector(d) && !f.detector(d)->arrays.empty(), d);
        if (kind == "snapshots")
            QVERIFY(f.snapshotSeries.empty());
        else
            QCOMPARE(f.snapshotSeries.size(), std::size_t(7));
        QVERIFY2(temporaries(dir.path()).isEmpty(), qPrintable(temporaries(dir.path()).join(' ')));
    }

    void failingResultsFileExitsThree() {
        QTemporaryDir dir;
        const Result r = shell(yeeRun("--max-steps 40 -o out.h5 '" + scene_ + "'"), dir.path(),
                               {"YEE_FAIL_OUTPUT=results"});
        QCOMPARE(r.crashed, false);
        QVERIFY2(r.code == 3, qPrintable(r.err));
        QVERIFY2(r.err.contains("injected failure writing results"), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir.filePath("out.h5")));
        QVERIFY2(temporaries(dir.path()).isEmpty(), qPrintable(temporaries(dir.path()).join(' ')));
    }

    /// A real write failure (the file-size limit: EFBIG, as ENOSPC on a full disk) at several sizes:
    /// inside the snapshots, inside the results file. Exit 3 with the system's reason, never a crash.
    void fullDiskExitsCleanly_data() {
        QTest::addColumn<int>("kib");
        QTest::newRow("4 KiB") << 4;
        QTest::newRow("12 KiB") << 12;
        QTest::newRow("20 KiB") << 20;
    }

    void fullDiskExitsCleanly() {
        QFETCH(int, kib);
        QTemporaryDir dir;
        const Result r = shell(QString("trap '' XFSZ; ulimit -f %1; ").arg(kib) +
                                   yeeRun("--max-steps 120 -o out.h5 '" + scene_ + "'"),
                               dir.path());
        QVERIFY2(!r.crashed && r.code == 3,
                 qPrintable(QString("exit %1 crashed %2: %3").arg(r.code).arg(r.crashed).arg(r.err)));
        QVERIFY2(r.err.contains("File too large"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("HDF5-DIAG"), qPrintable(r.err));
        QVERIFY2(temporaries(dir.path()).isEmpty(), qPrintable(temporaries(dir.path()).join(' ')));
        if (QFile::exists(dir.filePath("out.h5"))) {
            const io::ResultsFile f = io::readResults(dir.filePath("out.h5").toStdString());
            QVERIFY(!f.complete);
            QVERIFY(!f.failedOutputs.empty());
        }
    }
};

QTEST_GUILESS_MAIN(tst_OutputFaults)
#include "tst_OutputFaults.moc"
