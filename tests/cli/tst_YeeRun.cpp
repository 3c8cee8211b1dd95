/// yee-run end to end through QProcess: exit codes, what is (and is not) written, cancellation, tiles
/// and MPI ranks giving the same detector bits as the single-domain run.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

#include "yee/core/Simd.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/io/VtkHdfWriter.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;

namespace {

const QString kQuickBox = QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/quick_box.json");
const QString kBadScenes = QStringLiteral(YEE_SOURCE_DIR "/tests/bad_scenes");

struct Result {
    int code = -1;
    QString out;
    QString err;
};

QProcessEnvironment cleanEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
        env.remove(v);
    return env;
}

void start(QProcess& p, const QString& program, const QStringList& args, const QString& cwd) {
    p.setProcessEnvironment(cleanEnvironment());
    p.setWorkingDirectory(cwd);
    p.start(program, args);
}

Result finish(QProcess& p, int timeoutMs = 300000) {
    Result r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
    r.err = QString::fromLocal8Bit(p.readAllStandardError());
    return r;
}

Result yeeRun(const QStringList& args, const QString& cwd) {
    QProcess p;
    start(p, QStringLiteral(YEE_RUN_EXE), args, cwd);
    return finish(p);
}

QString explain(const Result& r) {
    return QString("exit %1\n--- stdout\n%2\n--- stderr\n%3").arg(r.code).arg(r.out, r.err);
}

QStringList entries(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name);
}

/// Detector arrays must match to the last bit.
void compareDetectors(const io::ResultsFile& a, const io::ResultsFile& b) {
    QCOMPARE(a.detectors.size(), b.detectors.size());
    for (std::size_t i = 0; i < a.detectors.size(); ++i) {
        QCOMPARE(a.detectors[i].name, b.detectors[i].name);
        QCOMPARE(a.detectors[i].arrays.size(), b.detectors[i].arrays.size());
        for (std::size_t j = 0; j < a.detectors[i].arrays.size(); ++j) {
            QCOMPARE(a.detectors[i].arrays[j].shape, b.detectors[i].arrays[j].shape);
            QVERIFY2(a.detectors[i].arrays[j].data == b.detectors[i].arrays[j].data,
                     qPrintable(
                         QString::fromStdString(a.detectors[i].name + "/" + a.detectors[i].arrays[j].name)));
        }
    }
    QCOMPARE(a.objective, b.objective);
}

/// The snapshot series of detector "slice" in two snapshot directories hold the same steps and bits.
void compareSnapshots(const QString& dirA, const QString& dirB) {
    const auto a = io::readSeriesIndex((dirA + "/slice.vtkhdf.series").toStdString());
    const auto b = io::readSeriesIndex((dirB + "/slice.vtkhdf.series").toStdString());
    QCOMPARE(a.size(), b.size());
    QVERIFY(!a.empty());
    for (std::size_t i = 0; i < a.size(); ++i) {
        QCOMPARE(a[i].name, b[i].name);
        QCOMPARE(a[i].time, b[i].time);
        const auto imgA = io::readVtkHdf((dirA + "/" + QString::fromStdString(a[i].name)).toStdString());
        const auto imgB = io::readVtkHdf((dirB + "/" + QString::fromStdString(b[i].name)).toStdString());
        QCOMPARE(imgA.dims, imgB.dims);
        QVERIFY(imgA.pointData == imgB.pointData);
    }
}

/// quick_box running hundreds of times longer (tens of seconds), for cancelling mid-run.
QString longScene(const QString& dir) {
    scene::Scene s = scene::loadScene(kQuickBox.toStdString());
    s.durationFs = 5000;
    const QString path = dir + "/long_box.json";
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QByteArray::fromStdString(scene::sceneToJson(s)));
    return path;
}

} // namespace

class tst_YeeRun : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY2(QFile::exists(YEE_RUN_EXE), YEE_RUN_EXE);
        QVERIFY2(QFile::exists(kQuickBox), qPrintable(kQuickBox));
    }

    void versionAndHelp() {
        QTemporaryDir dir;
        Result v = yeeRun({"--version"}, dir.path());
        QCOMPARE(v.code, 0);
        QCOMPARE(v.out.trimmed(), QString("yee-run " YEE_VERSION));
        Result h = yeeRun({"--help"}, dir.path());
        QCOMPARE(h.code, 0);
        QVERIFY(h.out.startsWith("Usage: yee-run"));
        QCOMPARE(entries(dir.path()), QStringList());
    }

    void quickBoxRunsToCompletion() {
        QTemporaryDir dir;
        Result r = yeeRun({kQuickBox}, dir.path());
        QVERIFY2(r.code == 0, qPrintable(explain(r)));
        QVERIFY2(r.out.contains("Memory estimate"), qPrintable(r.out));
        QVERIFY2(r.out.contains("Peak memory per device") && r.out.contains("halo_exchange"),
                 qPrintable(r.out));
        QVERIFY2(r.err.contains("steps/s") && r.err.contains("Mcell/s"), qPrintable(r.err)); // progress
        QCOMPARE(entries(dir.path()), (QStringList{"quick_box.fields", "quick_box.results.h5"}));

        const io::ResultsFile f = io::readResults(dir.filePath("quick_box.results.h5").toStdString());
        QVERIFY(f.complete);
        QCOMPARE(f.status, std::string("complete"));
        QCOMPARE(f.steps, f.totalSteps);
        QVERIFY(f.steps > 0);
        const scene::Scene s = scene::loadScene(kQuickBox.toStdString());
        QCOMPARE(f.sceneHash, scene::sceneHash(s));
        QCOMPARE(f.sceneName, s.name);
        QCOMPARE(scene::sceneHash(scene::parseScene(f.sceneJson)), f.sceneHash);
        for (const char* d : {"out", "energy", "probe"})
            QVERIFY2(f.detector(d), d);
        QVERIFY(f.objective.has_value());
        QCOMPARE(f.devices.size(), std::size_t(1));
        QVERIFY(f.devices[0].memory.peakTotal > 0);
        QVERIFY(!f.timeline.empty());

        // Snapshots: a series index per snapshot detector, its files open as VTKHDF images.
        QCOMPARE(f.snapshotSeries.size(), std::size_t(1));
        const QString series = dir.filePath(QString::fromStdString(f.snapshotSeries.at("slice")));
        QVERIFY2(QFile::exists(series), qPrintable(series));
        const auto steps = io::readSeriesIndex(series.toStdString());
        QVERIFY(!steps.empty());
        const io::VtkImage img = io::readVtkHdf(
            (QFileInfo(series).dir().filePath(QString::fromStdString(steps.back().name))).toStdString());
        QCOMPARE(img.dims[2], 1);
        QCOMPARE(img.pointData.count("Ez"), std::size_t(1));
        QCOMPARE(std::int64_t(img.pointData.at("Ez").size()), std::int64_t(img.dims[0]) * img.dims[1]);
        for (const auto& e : entries(dir.filePath("quick_box.fields")))
            QVERIFY2(!e.contains(".tmp."), qPrintable(e));
    }

    void checkWritesNothing() {
        QTemporaryDir dir;
        Result r = yeeRun({"--check", kQuickBox}, dir.path());
        QVERIFY2(r.code == 0, qPrintable(explain(r)));
        QVERIFY2(r.out.contains("Memory estimate") && r.out.contains("fields"), qPrintable(r.out));
        QCOMPARE(entries(dir.path()), QStringList());
    }

    void quietOptionsAndTiles() {
        QTemporaryDir dir;
        Result one =
            yeeRun({"--quiet", "--output", "one.h5", "--snapshots-dir", "one", kQuickBox}, dir.path());
        QVERIFY2(one.code == 0, qPrintable(explain(one)));
        QCOMPARE(one.out, QString());
        QCOMPARE(one.err, QString());
        Result two = yeeRun(
            {"-q", "--tiles", "2x1x1", "--no-overlap", "-o", "two.h5", "--snapshots-dir", "two", kQuickBox},
            dir.path());
        QVERIFY2(two.code == 0, qPrintable(explain(two)));
        const auto a = io::readResults(dir.filePath("one.h5").toStdString());
        const auto b = io::readResults(dir.filePath("two.h5").toStdString());
        QCOMPARE(b.devices.size(), std::size_t(2)); // --tiles without --devices: one device per tile
        compareDetectors(a, b);
        compareSnapshots(dir.filePath("one"), dir.filePath("two"));
    }

    /// No GPU here: a GPU list runs on one emulated CPU device per tile, says so in one note on stderr,
    /// and gives the same detector bits as the same tiles on CPU devices asked for directly.
    void gpuRequestWithoutGpuRunsOnCpu() {
        if (cuda::deviceCount() > 0)
            QSKIP("this machine has a GPU (see the gpu tests)");
        QTemporaryDir dir;
        Result cpu = yeeRun({"-q", "--tiles", "2x1x1", "--devices", "cpu:2", "-o", "cpu.h5",
                             "--snapshots-dir", "cpu", kQuickBox},
                            dir.path());
        QVERIFY2(cpu.code == 0, qPrintable(explain(cpu)));
        QCOMPARE(cpu.err, QString());
        for (const char* devices : {"cuda:all", "cuda", "cuda:0,1"}) {
            const QString name = QString(devices).replace(':', '_').replace(',', '_');
            Result gpu = yeeRun({"-q", "--tiles", "2x1x1", "--devices", devices, "-o", name + ".h5",
                                 "--snapshots-dir", name, kQuickBox},
                                dir.path());
            QVERIFY2(gpu.code == 0, qPrintable(explain(gpu)));
            QCOMPARE(gpu.out, QString());
            QVERIFY2(gpu.err.startsWith("yee-run: note: --devices asks for GPUs (" + QString(devices) +
                                        ") but ") &&
                         gpu.err.contains(QString::fromStdString(cuda::unavailableReason())) &&
                         gpu.err.endsWith("running on 2 emulated CPU devices\n") && gpu.err.count('\n') == 1,
                     qPrintable(explain(gpu)));
            const auto a = io::readResults(dir.filePath("cpu.h5").toStdString());
            const auto b = io::readResults(dir.filePath(name + ".h5").toStdString());
            QVERIFY(b.complete);
            QCOMPARE(b.devices.size(), std::size_t(2));
            QCOMPARE(b.devices[0].name, a.devices[0].name);
            compareDetectors(a, b);
            // And one probe value, for the record.
            const auto* pa = a.detector("probe");
            const auto* pb = b.detector("probe");
            QVERIFY(pa && pb && !pa->arrays.empty() && !pa->arrays[0].data.empty());
            QCOMPARE(pb->arrays[0].data.back(), pa->arrays[0].data.back());
        }
        // Not quiet: the note comes before the estimate and the run, which go on as usual.
        Result talk = yeeRun({"--devices", "cuda:all", "--check", kQuickBox}, dir.path());
        QVERIFY2(talk.code == 0, qPrintable(explain(talk)));
        QVERIFY2(talk.err.startsWith("yee-run: note: --devices asks for GPUs (cuda:all)"),
                 qPrintable(explain(talk)));
        QVERIFY2(talk.out.contains("Memory estimate") && talk.out.contains("cpu:0"),
                 qPrintable(explain(talk)));
    }

    void listDevices() {
        QTemporaryDir dir;
        Result r = yeeRun({"--list-devices"}, dir.path());
        QVERIFY2(r.code == 0, qPrintable(explain(r)));
        QCOMPARE(r.err, QString());
        QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
        // First the clone of the CPU loops this processor runs (core/Simd.hpp), then GPUs and host.
        QVERIFY2(!lines.isEmpty() && lines[0] == "CPU loops: " + QString::fromStdString(simdLevel()),
                 qPrintable(explain(r)));
        lines.removeFirst();
        QVERIFY2(lines.size() >= 2 && lines.last().startsWith("Host: "), qPrintable(explain(r)));
        if (cuda::deviceCount() == 0) {
            QCOMPARE(lines.size(), 2);
            QCOMPARE(lines[0], "GPUs: none; " + QString::fromStdString(cuda::unavailableReason()));
        } else {
            QVERIFY2(lines[0].startsWith("GPUs: " + QString::number(cuda::deviceCount())), qPrintable(r.out));
            QVERIFY2(r.out.contains("cuda:0") && r.out.contains("GiB"), qPrintable(r.out));
        }
        QCOMPARE(entries(dir.path()), QStringList());
    }

    void maxSteps() {
        QTemporaryDir dir;
        Result r = yeeRun({"-q", "--max-steps", "7", "--precision", "float64", kQuickBox}, dir.path());
        QVERIFY2(r.code == 0, qPrintable(explain(r)));
        const auto f = io::readResults(dir.filePath("quick_box.results.h5").toStdString());
        QCOMPARE(f.steps, 7);
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing scene file") << QStringList{"nope.json"} << "nope.json";
        QTest::newRow("bad option") << QStringList{"--tiles", "0x1x1", kQuickBox} << "--tiles";
        QTest::newRow("output dir missing") << QStringList{"-o", "no/such/dir/r.h5", kQuickBox} << "--output";
        QTest::newRow("too many tiles") << QStringList{"--tiles", "1000x1x1", kQuickBox} << "";
        QTest::newRow("gpu listed twice")
            << QStringList{"--devices", "cuda:0,0", kQuickBox} << "--devices: GPU 0 is listed twice";
        QTest::newRow("gpu id not a number")
            << QStringList{"--devices", "cuda:x", kQuickBox}
            << "--devices: expected cpu:N, cuda:all or cuda:ID[,ID...], got 'cuda:x'";
        QTest::newRow("devices not cpu or cuda") << QStringList{"--devices=tpu:1", kQuickBox} << "--devices";
        // The bad-scene corpus: <file>\t<substring the message must contain> (see its expected.txt).
        QFile expected(kBadScenes + "/expected.txt");
        QVERIFY(expected.open(QIODevice::ReadOnly | QIODevice::Text));
        int rows = 0;
        for (const QString& line : QString::fromUtf8(expected.readAll()).split('\n')) {
            if (line.isEmpty() || line.startsWith('#'))
                continue;
            const QStringList parts = line.split('\t');
            QVERIFY2(parts.size() == 2, qPrintable(line));
            QTest::newRow(qPrintable("bad_scenes/" + parts[0]))
                << QStringList{kBadScenes + "/" + parts[0]} << parts[1];
            ++rows;
        }
        QVERIFY(rows > 0);
    }

    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir dir;
        Result r = yeeRun(args, dir.path());
        QVERIFY2(r.code == 2, qPrintable(explain(r)));
        QVERIFY2(r.err.startsWith("yee-run: error: ") && r.err.endsWith("\n") && r.err.count('\n') == 1,
                 qPrintable(explain(r)));
        QVERIFY2(r.err.contains(message), qPrintable(explain(r)));
        QCOMPARE(entries(dir.path()), QStringList());
    }

    void signalCancelsAndWritesIncomplete_data() {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGINT") << int(SIGINT);
        QTest::newRow("SIGTERM") << int(SIGTERM);
    }

    void signalCancelsAndWritesIncomplete() {
        QFETCH(int, signal);
        QTemporaryDir dir;
        const QString scene = longScene(dir.path());
        QVERIFY(!scene.isEmpty());
        QProcess p;
        start(p, YEE_RUN_EXE, {scene}, dir.path());
        QVERIFY(p.waitForStarted());
        // Wait for the first progress report: the run is under way.
        QByteArray err;
        QElapsedTimer t;
        t.start();
        while (!err.contains("steps/s") && t.elapsed() < 60000 && p.state() == QProcess::Running) {
            p.waitForReadyRead(200);
            err += p.readAllStandardError();
        }
        QVERIFY2(err.contains("steps/s"), err.constData());
        ::kill(pid_t(p.processId()), signal);
        Result r = finish(p, 60000);
        QVERIFY2(r.code == 4, qPrintable(explain(r)));
        QVERIFY2((err + r.err.toLocal8Bit()).contains("cancelled at step"), qPrintable(explain(r)));
        const auto f = io::readResults(dir.filePath("long_box.results.h5").toStdString());
        QVERIFY(!f.complete);
        QVERIFY2(QString::fromStdString(f.status).startsWith("incomplete: "), f.status.c_str());
        QVERIFY(f.steps > 0 && f.steps < f.totalSteps);
        const QStringList files = entries(dir.path());
        QVERIFY2(files.contains("long_box.results.h5"), qPrintable(files.join(' ')));
        for (const auto& e : files)
            QVERIFY2(!e.contains(".tmp."), qPrintable(e));
    }

    void mpiRanksMatchLocalRun_data() {
        QTest::addColumn<QString>("ranks");
        QTest::addColumn<QString>("tiles");
        QTest::newRow("2 ranks") << "2"
                                 << "2x1x1";
        QTest::newRow("4 ranks") << "4"
                                 << "2x2x1";
    }

    /// Under mpirun each rank runs one tile; rank 0 writes the same detector bits as a local run.
    void mpiRanksMatchLocalRun() {
#if !defined(YEE_MPIEXEC)
        QSKIP("yee-run was built without MPI");
#else
        QFETCH(QString, ranks);
        QFETCH(QString, tiles);
        if (qEnvironmentVariableIsEmpty("YEE_TEST_MPI"))
            QSKIP("run by the cli_yee_run_mpi test");
        QTemporaryDir dir;
        Result local = yeeRun({"-q", "-o", "local.h5", "--snapshots-dir", "local", kQuickBox}, dir.path());
        QVERIFY2(local.code == 0, qPrintable(explain(local)));
        QProcess p;
        start(p, YEE_MPIEXEC,
              {"--allow-run-as-root", "--oversubscribe", "-np", ranks, YEE_RUN_EXE, "--tiles", tiles, "-o",
               "mpi.h5", "--snapshots-dir", "mpi", kQuickBox},
              dir.path());
        Result mpi = finish(p);
        QVERIFY2(mpi.code == 0, qPrintable(explain(mpi)));
        QCOMPARE(mpi.out.count("Peak memory per device"), 1); // only rank 0 prints
        QVERIFY2(mpi.out.contains("halo_exchange"), qPrintable(mpi.out));
        const auto a = io::readResults(dir.filePath("local.h5").toStdString());
        const auto b = io::readResults(dir.filePath("mpi.h5").toStdString());
        QCOMPARE(b.devices.size(), std::size_t(ranks.toInt()));
        compareDetectors(a, b);
        compareSnapshots(dir.filePath("local"), dir.filePath("mpi")); // assembled on rank 0
#endif
    }

    /// Under mpirun without a GPU, a GPU list runs one tile per rank on the CPU: one note (rank 0), the
    /// same detector bits as a local run.
    void mpiGpuRequestWithoutGpu() {
#if !defined(YEE_MPIEXEC)
        QSKIP("yee-run was built without MPI");
#else
        if (qEnvironmentVariableIsEmpty("YEE_TEST_MPI"))
            QSKIP("run by the cli_yee_run_mpi test");
        if (cuda::deviceCount() > 0)
            QSKIP("this machine has a GPU");
        QTemporaryDir dir;
        Result local = yeeRun({"-q", "-o", "local.h5", "--snapshots-dir", "local", kQuickBox}, dir.path());
        QVERIFY2(local.code == 0, qPrintable(explain(local)));
        QProcess p;
        start(p, YEE_MPIEXEC,
              {"--allow-run-as-root", "--oversubscribe", "-np", "2", YEE_RUN_EXE, "-q", "--tiles", "2x1x1",
               "--devices", "cuda:all", "-o", "mpi.h5", "--snapshots-dir", "mpi", kQuickBox},
              dir.path());
        Result mpi = finish(p);
        QVERIFY2(mpi.code == 0, qPrintable(explain(mpi)));
        QCOMPARE(mpi.err.count("yee-run: note: --devices asks for GPUs (cuda:all)"), 1);
        const auto a = io::readResults(dir.filePath("local.h5").toStdString());
        const auto b = io::readResults(dir.filePath("mpi.h5").toStdString());
        QCOMPARE(b.devices.size(), std::size_t(2));
        compareDetectors(a, b);
#endif
    }

    void mpiTileCountMustMatchRanks() {
#if !defined(YEE_MPIEXEC)
        QSKIP("yee-run was built without MPI");
#else
        if (qEnvironmentVariableIsEmpty("YEE_TEST_MPI"))
            QSKIP("run by the cli_yee_run_mpi test");
        QTemporaryDir dir;
        QProcess p;
        start(p, YEE_MPIEXEC,
              {"--allow-run-as-root", "--oversubscribe", "-np", "2", YEE_RUN_EXE, "--tiles", "3x1x1",
               kQuickBox},
              dir.path());
        Result r = finish(p);
        QVERIFY2(r.code == 2, qPrintable(explain(r)));
        QCOMPARE(r.err.count("yee-run: error: "), 1); // printed once, not once per rank
        QVERIFY2(r.err.contains("3 tiles but 2 MPI ranks"), qPrintable(explain(r)));
        QCOMPARE(entries(dir.path()), QStringList());
#endif
    }
};

QTEST_GUILESS_MAIN(tst_YeeRun)
#include "tst_YeeRun.moc"
