/// yee-run when outputs fail: a failing snapshot series or restart file never loses the results (they
/// are written, marked incomplete, naming what failed), a failing results file or a full disk exits 3
/// with the system's reason and no crash in HDF5's exit-time clean-up, and no temporary file is left. A
/// gradient recorder that fails mid-run keeps the forward results (no gradient, marked incomplete).
/// Failures are injected (YEE_FAIL_OUTPUT) or real (RLIMIT_FSIZE through the shell's ulimit, SIGXFSZ
/// ignored, so writes fail with EFBIG as on a full disk).
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <limits>

#include <nlohmann/json.hpp>

#include "yee/core/Error.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/io/VtkHdfWriter.hpp"
#include "yee/run/Devices.hpp"
#include "yee/run/OutputGuard.hpp"

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

/// `scene` with the dipole's amplitude set to `amplitude`, written as `name` in `dir`.
QString withAmplitude(const QString& scene, double amplitude, const QDir& dir, const QString& name) {
    QFile in(scene);
    if (!in.open(QIODevice::ReadOnly))
        return {};
    nlohmann::json s = nlohmann::json::parse(in.readAll().toStdString());
    s["sources"][0]["profile"]["amplitude"] = amplitude;
    s["run"]["precision"] = "float64";
    const QString path = dir.filePath(name);
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

    void failingRecorderKeepsTheForwardResults_data() {
        QTest::addColumn<QString>("tier");
        QTest::newRow("host") << "host";
        QTest::newRow("disk") << "disk";
    }

    /// A reversible value-and-grad run on two tiles whose recorder (host or disk tier) fails to write a
    /// slot in the middle of the forward run: the run finishes, the results file holds every detector
    /// and the objective, no gradient, marked incomplete naming the recorder; exit 3 with the same line.
    void failingRecorderKeepsTheForwardResults() {
        QFETCH(QString, tier);
        QTemporaryDir dir;
        QFile in(QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/straight_waveguide.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        nlohmann::json s = nlohmann::json::parse(in.readAll().toStdString());
        nlohmann::json storage = {{"tier", tier.toStdString()}, {"transfer_interval", 8}};
        if (tier == "disk")
            storage["path"] = dir.path().toStdString();
        s["gradient"]["storage"] = storage;
        const QString scene = dir.filePath("rec.json");
        QFile out(scene);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QByteArray::fromStdString(s.dump()));
        out.close();
        const Result ok = shell(yeeRun("--grad --max-steps 60 -o ok.h5 '" + scene + "'"), dir.path());
        QVERIFY2(ok.code == 0 && !ok.crashed, qPrintable(ok.err));
        const io::ResultsFile good = io::readResults(dir.filePath("ok.h5").toStdString());
        QVERIFY(good.complete);
        QVERIFY(!good.gradients.empty());

        const Result r = shell(yeeRun("--grad --max-steps 60 -o out.h5 '" + scene + "'"), dir.path(),
                               {"YEE_FAIL_OUTPUT=recorder"});
        QCOMPARE(r.crashed, false);
        QVERIFY2(r.code == 3, qPrintable(r.err));
        QVERIFY2(r.err.contains("output failed: gradient recorder (" + tier + " tier"), qPrintable(r.err));
        QVERIFY2(r.err.contains("injected failure writing recorder"), qPrintable(r.err));
        QVERIFY2(r.err.contains("marked incomplete"), qPrintable(r.err));
        const io::ResultsFile f = io::readResults(dir.filePath("out.h5").toStdString());
        QVERIFY(!f.complete);
        QCOMPARE(f.steps, 60);
        QCOMPARE(f.failedOutputs.size(), std::size_t(1));
        QVERIFY(
            QString::fromStdString(f.failedOutputs[0]).startsWith("gradient recorder (" + tier + " tier"));
        QVERIFY(QString::fromStdString(f.status).contains("output failed: gradient recorder"));
        QVERIFY(f.gradients.empty());
        // The forward results are those of the run whose recorder worked, bit for bit.
        QVERIFY(f.objective.has_value() && good.objective.has_value());
        QCOMPARE(*f.objective, *good.objective);
        for (const char* d : {"in_flux", "out"}) {
            QVERIFY2(f.detector(d) && good.detector(d), d);
            QCOMPARE(f.detector(d)->arrays.size(), good.detector(d)->arrays.size());
            for (std::size_t a = 0; a < f.detector(d)->arrays.size(); ++a)
                QVERIFY2(f.detector(d)->arrays[a].data == good.detector(d)->arrays[a].data, d);
        }
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

    void outputLocationsCheckedBeforeStepZero_data() {
        QTest::addColumn<QString>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("results in /proc") << "-o /proc/x.h5"
                                          << "--output: cannot write '/proc/x.h5'";
        QTest::newRow("results is a directory") << "-o sub"
                                                << "--output: cannot write 'sub': 'sub' is a directory";
        QTest::newRow("results dir missing") << "-o no/such/r.h5"
                                             << "--output: cannot write 'no/such/r.h5'";
        QTest::newRow("results under a file") << "-o plain.txt/r.h5"
                                              << "'plain.txt' is not a directory";
        QTest::newRow("snapshots dir is a file") << "--snapshots-dir plain.txt"
                                                 << "--snapshots-dir: cannot write into 'plain.txt'";
        QTest::newRow("snapshots dir under a file") << "--snapshots-dir plain.txt/a/b"
                                                    << "--snapshots-dir: cannot write into 'plain.txt/a/b'";
        QTest::newRow("snapshots dir in /proc") << "--snapshots-dir /proc/fields"
                                                << "--snapshots-dir";
        QTest::newRow("checkpoint dir missing") << "--checkpoint-every 10 --checkpoint no/such/ck"
                                                << "restart.checkpoint_path: cannot write";
        QTest::newRow("checkpoint in /proc") << "--checkpoint-every 10 --checkpoint /proc/ck"
                                             << "restart.checkpoint_path: cannot write";
        QTest::newRow("recorder dir missing") << "--grad DISK:missing/dir"
                                              << "gradient.storage.path";
        QTest::newRow("recorder dir is a file") << "--grad DISK:plain.txt"
                                                << "gradient.storage.path";
    }

    /// Exit 2 naming the option or field, before step 0 (nothing is run or written), with and without
    /// --check.
    void outputLocationsCheckedBeforeStepZero() {
        QFETCH(QString, args);
        QFETCH(QString, message);
        for (const bool check : {false, true}) {
            QTemporaryDir dir;
            QDir(dir.path()).mkdir("sub");
            QFile plain(dir.filePath("plain.txt"));
            QVERIFY(plain.open(QIODevice::WriteOnly));
            plain.write("x");
            plain.close();
            QString scene = scene_;
            QString a = args;
            if (a.contains("DISK:")) {
                const QString where = a.section("DISK:", 1);
                QFile in(kQuickBox);
                QVERIFY(in.open(QIODevice::ReadOnly));
                nlohmann::json s = nlohmann::json::parse(in.readAll().toStdString());
                // The disk tier stages the recorder of the reversible method (the validator refuses it
                // with any other method, before output locations are looked at).
                s["gradient"] = {{"method", "reversible"},
                                 {"storage", {{"tier", "disk"}, {"path", where.toStdString()}}}};
                scene = dir.filePath("disk.json");
                QFile out(scene);
                QVERIFY(out.open(QIODevice::WriteOnly));
                out.write(QByteArray::fromStdString(s.dump()));
                out.close();
                a = a.section("DISK:", 0, 0);
            }
            const QStringList before =
                QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
            const Result r = shell(yeeRun((check ? "--check " : "") + a + " '" + scene + "'"), dir.path());
            QVERIFY2(!r.crashed && r.code == 2, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
            QVERIFY2(r.err.contains(message), qPrintable(r.err));
            QVERIFY2(r.err.count('\n') == 1, qPrintable(r.err));
            QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                     before);
        }
    }

    /// Fields finite, everything built from them overflowing: the run is marked diverged, exit 3,
    /// naming the quantity and the step; the results are still written (marked incomplete).
    void overflowingDetectorsMarkTheRunDiverged() {
        QTemporaryDir dir;
        const QString big = withAmplitude(kQuickBox, 1e200, QDir(dir.path()), "big.json");
        QVERIFY(!big.isEmpty());
        const Result r = shell(yeeRun("--max-steps 60 -o out.h5 '" + big + "'"), dir.path());
        QVERIFY2(!r.crashed && r.code == 3, qPrintable(r.err));
        QVERIFY2(r.err.contains("diverged: non-finite detector 'out' flux at step"), qPrintable(r.err));
        const io::ResultsFile f = io::readResults(dir.filePath("out.h5").toStdString());
        QVERIFY(!f.complete);
        QVERIFY(QString::fromStdString(f.status).contains("non-finite detector 'out' flux at step"));

        // The same scene at an ordinary amplitude is complete: the guard is not a false alarm.
        const QString small = withAmplitude(kQuickBox, 1.0, QDir(dir.path()), "small.json");
        const Result ok = shell(yeeRun("--max-steps 60 -o ok.h5 '" + small + "'"), dir.path());
        QVERIFY2(ok.code == 0, qPrintable(ok.err));
    }

    /// --check gives the run's own verdict: a plan that does not fit is refused by both, exit 2, with
    /// the same message; a planned capacity sizes a tile grid.
    void checkAndRunAgreeOnMemory() {
        QTemporaryDir dir;
        const QString args = "--tiles 2x1x1 --capacity 1MiB --max-steps 10 -o out.h5 '" + scene_ + "'";
        const Result check = shell(yeeRun("--check " + args), dir.path());
        const Result run = shell(yeeRun(args), dir.path());
        QVERIFY2(check.code == 2, qPrintable(check.err));
        QVERIFY2(run.code == 2, qPrintable(run.err));
        QVERIFY2(check.err.contains("needs") && check.err.contains("but has 1.0 MiB"), qPrintable(check.err));
        QCOMPARE(check.err, run.err);
        QVERIFY(!QFile::exists(dir.filePath("out.h5")));
        // The same grid with a GPU model's memory fits, and the table says where the capacity came from.
        QProcess p;
        p.setWorkingDirectory(dir.path());
        p.start(YEE_RUN_EXE, {"--check", "--tiles", "4x2x1", "--capacity", "H100", scene_});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QString out = QString::fromLocal8Bit(p.readAllStandardOutput());
        QVERIFY2(out.contains("capacity: 80.00 GiB for each of the 8 devices (as planned: --capacity)"),
                 qPrintable(out));
    }

    void capacityIsWhatIsReallyFree() {
        QCOMPARE(run::parseCapacity("80GiB", "--capacity"), std::int64_t(80) << 30);
        QCOMPARE(run::parseCapacity("40GB", "--capacity"), std::int64_t(40'000'000'000));
        QCOMPARE(run::parseCapacity("512mib", "--capacity"), std::int64_t(512) << 20);
        QCOMPARE(run::parseCapacity("1.5TiB", "--capacity"), std::int64_t(3) << 39);
        QCOMPARE(run::parseCapacity("4096", "--capacity"), std::int64_t(4096));
        QCOMPARE(run::parseCapacity("A100-40GB", "--capacity"), std::int64_t(40) << 30);
        QCOMPARE(run::parseCapacity("h200", "--capacity"), std::int64_t(141) << 30);
        for (const char* bad : {"", "GiB", "-4GiB", "0", "12parsecs", "nan", "1e30GiB", "h100x"})
            QVERIFY_THROWS_EXCEPTION(yee::InputError, run::parseCapacity(bad, "--capacity"));

        // Emulated CPU devices share what is available now (never more than MemAvailable), minus headroom.
        QFile meminfo("/proc/meminfo");
        QVERIFY(meminfo.open(QIODevice::ReadOnly));
        std::int64_t availKiB = -1;
        for (const QByteArray& line : meminfo.readAll().split('\n'))
            if (line.startsWith("MemAvailable:"))
                availKiB = line.mid(13).trimmed().split(' ').front().toLongLong();
        QVERIFY(availKiB > 0);
        const std::int64_t avail = run::hostAvailableBytes();
        QVERIFY(avail > 0);
        QVERIFY(avail <= availKiB * 1024 * 11 / 10); // it moves a little between the two reads
        QVERIFY(avail < device::hostMemoryBytes());
        run::RunOptions o;
        const std::int64_t each = run::capacityFor(o, 0, 4);
        QVERIFY(each <= std::int64_t(double(avail) * run::kHostHeadroomShare / 4 * 1.1));
        QVERIFY(each >= std::int64_t(double(avail) * run::kHostHeadroomShare / 4 * 0.9));
        QVERIFY(QString::fromStdString(run::capacityBasis(o, 4)).contains("available now"));
        o.deviceCapacity = std::int64_t(80) << 30;
        QCOMPARE(run::capacityFor(o, 0, 4), o.deviceCapacity);
    }

    void guardNamesEveryKindOfQuantity() {
        run::RunResult r;
        r.completed = true;
        r.status = "completed";
        r.steps = 100;
        r.dtFs = 0.5;
        solver::DetectorResult d;
        d.name = "flux";
        d.arrays.push_back({"time_fs", {4}, {5, 10, 15, 20}});
        d.arrays.push_back({"flux", {4}, {1, 2, 3, 4}});
        d.arrays.push_back({"power", {2}, {1, 2}});
        r.detectors.push_back(d);
        r.objective = 1.0;
        r.gradients.push_back({"core", {3}, {0, 1, 2}});
        QVERIFY(run::firstNonFinite(r).empty());
        run::RunResult ok = r;
        run::guardOutputs(ok);
        QVERIFY(ok.completed);

        const double inf = std::numeric_limits<double>::infinity();
        const double nan = std::numeric_limits<double>::quiet_NaN();
        run::RunResult a = r;
        a.detectors[0].arrays[1].data[2] = nan; // t = 15 fs = step 30
        QCOMPARE(run::firstNonFinite(a), std::string("detector 'flux' flux at step 30 (t = 15 fs)"));
        run::guardOutputs(a);
        QVERIFY(!a.completed);
        QCOMPARE(a.status, std::string("diverged: non-finite detector 'flux' flux at step 30 (t = 15 fs)"));

        run::RunResult b = r;
        b.detectors[0].arrays[2].data[1] = inf;
        QCOMPARE(run::firstNonFinite(b),
                 std::string("detector 'flux' power (accumulated over steps 1..100)"));
        run::RunResult c = r;
        c.objective = nan;
        QCOMPARE(run::firstNonFinite(c), std::string("objective (accumulated over steps 1..100)"));
        run::RunResult g = r;
        g.gradients[0].data[2] = -inf;
        QCOMPARE(run::firstNonFinite(g),
                 std::string("gradient 'core' at index 2 (reverse sweep after step 100)"));
        run::RunResult s = r;
        solver::Snapshot sn;
        sn.detector = "slice";
        sn.component = "Ez";
        sn.step = 40;
        sn.data = {0.f, std::numeric_limits<float>::infinity()};
        s.snapshots.push_back(sn);
        QVERIFY(QString::fromStdString(run::firstNonFinite(s)).startsWith("snapshot 'slice' Ez at step 40"));

        // A run already stopped keeps its reason, extended.
        run::RunResult x = a;
        x.status = "cancelled at step 50";
        x.completed = false;
        run::guardOutputs(x);
        QVERIFY(QString::fromStdString(x.status).startsWith("cancelled at step 50; diverged: non-finite"));
    }
};

QTEST_GUILESS_MAIN(tst_OutputFaults)
#include "tst_OutputFaults.moc"
