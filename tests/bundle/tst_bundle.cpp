/// Cluster export bundles: the sbatch script asks for the right resources for several tile grids, bad
/// options are refused with one line naming the field, the folder is written atomically (and never
/// replaces anything but an earlier bundle), and — under mpirun, with a stand-in `srun` — the bundle's
/// own script gives results equal bit for bit to the local run of the same tiles.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>

#include "yee/bundle/Bundle.hpp"
#include "yee/core/Error.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/io/VtkHdfWriter.hpp"
#include "yee/run/Restart.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;

namespace {

const QString kQuickBox = QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/quick_box.json");
const QString kWaveguide = QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/straight_waveguide.json");
const QString kBend =
    QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/waveguide_bend.json"); // valid for gradients

/// Active `#SBATCH --key=value` lines of a script (commented `##SBATCH` lines are not requests).
std::map<QString, QString> sbatchRequests(const QString& script) {
    std::map<QString, QString> r;
    static const QRegularExpression re(QStringLiteral("^#SBATCH --([a-z-]+)=(\\S+)\\s*$"));
    for (const QString& line : script.split('\n')) {
        const auto m = re.match(line);
        if (m.hasMatch())
            r[m.captured(1)] = m.captured(2);
    }
    return r;
}

/// The first line of `text` starting with `prefix`, or "".
QString lineStartingWith(const QString& text, const QString& prefix) {
    for (const QString& line : text.split('\n'))
        if (line.startsWith(prefix))
            return line;
    return {};
}

QStringList entries(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name);
}

QString readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

struct Proc {
    int code = -1;
    QString out, err;
};

QString explain(const Proc& p) {
    return QString("exit %1\n--- stdout\n%2\n--- stderr\n%3").arg(p.code).arg(p.out, p.err);
}

/// Environment without any launcher's rank variables (so yee-run runs locally unless told otherwise).
QProcessEnvironment cleanEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& k : env.keys())
        if (k.startsWith("OMPI_COMM_WORLD") || k.startsWith("PMI_") || k.startsWith("SLURM_"))
            env.remove(k);
    return env;
}

Proc runProcess(const QString& program, const QStringList& args, const QString& cwd,
                const QProcessEnvironment& env = cleanEnvironment()) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(cwd);
    p.start(program, args);
    Proc r;
    if (!p.waitForFinished(600000)) {
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

void compareResults(const io::ResultsFile& a, const io::ResultsFile& b) {
    QVERIFY(a.complete && b.complete);
    QCOMPARE(a.steps, b.steps);
    QCOMPARE(a.detectors.size(), b.detectors.size());
    for (std::size_t i = 0; i < a.detectors.size(); ++i) {
        QCOMPARE(a.detectors[i].name, b.detectors[i].name);
        QCOMPARE(a.detectors[i].arrays.size(), b.detectors[i].arrays.size());
        for (std::size_t j = 0; j < a.detectors[i].arrays.size(); ++j) {
            const auto& x = a.detectors[i].arrays[j];
            const auto& y = b.detectors[i].arrays[j];
            QCOMPARE(x.shape, y.shape);
            QVERIFY2(x.data.size() == y.data.size() &&
                         std::memcmp(x.data.data(), y.data.data(), x.data.size() * sizeof(double)) == 0,
                     qPrintable(QString::fromStdString(a.detectors[i].name + "/" + x.name)));
        }
    }
    QCOMPARE(a.objective.has_value(), b.objective.has_value());
    if (a.objective)
        QVERIFY(std::memcmp(&*a.objective, &*b.objective, sizeof(double)) == 0);
}

void compareSnapshots(const QString& dirA, const QString& dirB) {
    const auto a = io::readSeriesIndex((dirA + "/slice.vtkhdf.series").toStdString());
    const auto b = io::readSeriesIndex((dirB + "/slice.vtkhdf.series").toStdString());
    QCOMPARE(a.size(), b.size());
    QVERIFY(!a.empty());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto imgA = io::readVtkHdf((dirA + "/" + QString::fromStdString(a[i].name)).toStdString());
        const auto imgB = io::readVtkHdf((dirB + "/" + QString::fromStdString(b[i].name)).toStdString());
        QVERIFY(imgA.pointData == imgB.pointData);
    }
}

/// The message of the InputError `f` throws ("" when it throws nothing).
template <class F> QString inputError(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        return QString("other exception: ") + e.what();
    }
    return {};
}

#if defined(YEE_MPIEXEC)
/// A stand-in for SLURM's `srun` inside an allocation: drops srun's own options and starts the
/// command with mpirun on $SLURM_NTASKS ranks (as sbatch would have set it).
bool writeFakeSrun(const QString& binDir) {
    QFile f(binDir + "/srun");
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write("#!/bin/bash\n"
            "set -eu\n"
            "while [ $# -gt 0 ] && [ \"${1#-}\" != \"$1\" ]; do shift; done\n"
            "exec " YEE_MPIEXEC " --allow-run-as-root --oversubscribe -np \"$SLURM_NTASKS\" \"$@\"\n");
    f.close();
    return f.setPermissions(f.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeUser);
}
#endif

} // namespace

class tst_Bundle : public QObject {
    Q_OBJECT
private slots:
    void sbatchRequestsMatchTileGrid_data() {
        QTest::addColumn<QString>("tiles");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("tasksPerNode"); // 0: derived
        QTest::addColumn<bool>("cuda");
        QTest::addColumn<int>("cpus"); // 0: default
        QTest::addColumn<QString>("time");
        QTest::addColumn<bool>("gradient");
        // expected
        QTest::addColumn<int>("ntasks");
        QTest::addColumn<int>("perNode");
        QTest::addColumn<int>("cpusPerTask"); // 0: not requested

        QTest::newRow("1x1x1 cpu") << "1x1x1" << 1 << 0 << false << 0 << "00:30:00" << false << 1 << 1 << 4;
        QTest::newRow("2x1x1 cpu") << "2x1x1" << 1 << 0 << false << 8 << "02:00:00" << false << 2 << 2 << 8;
        QTest::newRow("4x1x1 cpu, 2 nodes")
            << "4x1x1" << 2 << 0 << false << 0 << "90" << false << 4 << 2 << 4;
        QTest::newRow("2x2x1 cpu, 4 nodes, grad")
            << "2x2x1" << 4 << 1 << false << 16 << "1-12:00:00" << true << 4 << 1 << 16;
        QTest::newRow("2x2x2 cuda, 2 nodes")
            << "2x2x2" << 2 << 0 << true << 0 << "12:00:00" << false << 8 << 4 << 0;
        QTest::newRow("4x1x1 cuda, 1 node, grad")
            << "4x1x1" << 1 << 4 << true << 0 << "45:00" << true << 4 << 4 << 0;
        QTest::newRow("1x2x2 cuda with cpus")
            << "1x2x2" << 2 << 2 << true << 6 << "2-00" << false << 4 << 2 << 6;
        QTest::newRow("8x1x1 cpu, 4 nodes")
            << "8x1x1" << 4 << 2 << false << 0 << "3-00:00:00" << false << 8 << 2 << 4;
    }

    void sbatchRequestsMatchTileGrid() {
        QFETCH(QString, tiles);
        QFETCH(int, nodes);
        QFETCH(int, tasksPerNode);
        QFETCH(bool, cuda);
        QFETCH(int, cpus);
        QFETCH(QString, time);
        QFETCH(bool, gradient);
        QFETCH(int, ntasks);
        QFETCH(int, perNode);
        QFETCH(int, cpusPerTask);
        // Gradient runs need a scene with a design region.
        const scene::Scene s = scene::loadScene((gradient ? kBend : kQuickBox).toStdString());
        bundle::BundleOptions o;
        const QStringList t = tiles.split('x');
        o.tiles = {t[0].toInt(), t[1].toInt(), t[2].toInt()};
        o.nodes = nodes;
        o.tasksPerNode = tasksPerNode;
        o.devices = cuda ? bundle::Devices::Cuda : bundle::Devices::Cpu;
        o.cpusPerTask = cpus;
        o.timeLimit = time.toStdString();
        o.gradient = gradient;
        bundle::BatchResources r;
        try {
            r = bundle::resolveResources(s, o);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        const QString script = QString::fromStdString(bundle::sbatchScript(s, r, gradient, 0));
        const auto req = sbatchRequests(script);

        QVERIFY2(script.startsWith("#!/bin/bash\n"), qPrintable(script));
        QCOMPARE(req.at("nodes"), QString::number(nodes));
        QCOMPARE(req.at("ntasks"), QString::number(ntasks));
        QCOMPARE(req.at("ntasks-per-node"), QString::number(perNode));
        QCOMPARE(req.at("time"), time);
        QCOMPARE(req.at("job-name"), QString(gradient ? "90-degree-waveguide-bend" : "quick-box"));
        QCOMPARE(req.count("gpus-per-task"), std::size_t(cuda ? 1 : 0));
        if (cuda)
            QCOMPARE(req.at("gpus-per-task"), QString("1"));
        QCOMPARE(req.count("cpus-per-task"), std::size_t(cpusPerTask > 0 ? 1 : 0));
        if (cpusPerTask > 0)
            QCOMPARE(req.at("cpus-per-task"), QString::number(cpusPerTask));
        QCOMPARE(req.count("partition"), std::size_t(0)); // nothing site-specific by default
        QCOMPARE(req.count("signal"), std::size_t(0));    // no restart files asked for

        // Clearly marked, commented places for the site: partition, account, modules.
        QVERIFY(script.contains("SITE-SPECIFIC: partition"));
        QVERIFY(script.contains("\n##SBATCH --partition=PARTITION\n"));
        QVERIFY(script.contains("SITE-SPECIFIC: environment modules"));
        QVERIFY(script.contains("\n# module load "));
        QVERIFY(!lineStartingWith(script, "module ").size());

        // One rank per tile: srun with the tile grid (and --grad), and the mpirun alternative.
        const QString srun = lineStartingWith(script, "srun ");
        QVERIFY2(srun.contains("\"$YEE_RUN\" --tiles " + tiles + (gradient ? " --grad " : " ")),
                 qPrintable(srun));
        QVERIFY2(srun.contains(" scene.json --output results.h5"), qPrintable(srun));
        QCOMPARE(srun.contains("--cpus-per-task=" + QString::number(cpusPerTask)), cpusPerTask > 0);
        const QString mpirun = lineStartingWith(script, "#   mpirun ");
        QVERIFY2(mpirun.contains("mpirun -np " + QString::number(ntasks) + " yee-run --tiles " + tiles),
                 qPrintable(script));
        QCOMPARE(script.contains("NCCL is bootstrapped over MPI"), cuda);
        QCOMPARE(script.contains("over MPI alone"), !cuda);
        QCOMPARE(r.ranks, ntasks);
        QVERIFY(r.memoryPerRankBytes > 0);
    }

    void restartScript() {
        const scene::Scene s = scene::loadScene(kQuickBox.toStdString());
        bundle::BundleOptions o;
        o.tiles = {2, 1, 1};
        o.checkpointEvery = 500;
        const bundle::BatchResources r = bundle::resolveResources(s, o);
        const QString script = QString::fromStdString(bundle::sbatchScript(s, r, false, 500));
        QCOMPARE(sbatchRequests(script).at("signal"), QString("TERM@300"));
        const QString srun = lineStartingWith(script, "srun ");
        QVERIFY2(srun.contains("--checkpoint-every 500 --checkpoint restart ${resume[@]+\"${resume[@]}\"}"),
                 qPrintable(srun));
        QVERIFY(script.contains("if [ -e restart.rank0 ]; then\n  resume=(--resume restart)"));
        QVERIFY(script.contains("\nrm -f restart.rank*"));
        const QString readme = QString::fromStdString(bundle::readmeText(s, r, false, 500, false));
        QVERIFY(readme.contains("## Restart"));
    }

    void badOptionsRefused_data() {
        QTest::addColumn<QString>("tiles");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("tasksPerNode");
        QTest::addColumn<QString>("time");
        QTest::addColumn<int>("checkpointEvery");
        QTest::addColumn<bool>("gradient");
        QTest::addColumn<QString>("message");
        QTest::newRow("tasks x nodes != tiles") << "2x2x1" << 2 << 3 << "01:00:00" << 0 << false
                                                << "bundle.tasks_per_node: 3 tasks per node x 2 nodes = 6 "
                                                   "ranks, but the tile grid 2x2x1 has 4 tiles";
        QTest::newRow("uneven nodes")
            << "3x1x1" << 2 << 0 << "01:00:00" << 0 << false << "bundle.nodes: the tile grid 3x1x1";
        QTest::newRow("more nodes than tiles")
            << "2x1x1" << 4 << 0 << "01:00:00" << 0 << false << "bundle.nodes: 4 nodes";
        QTest::newRow("zero nodes") << "2x1x1" << 0 << 0 << "01:00:00" << 0 << false
                                    << "bundle.nodes: must be >= 1";
        QTest::newRow("negative tasks")
            << "2x1x1" << 1 << -2 << "01:00:00" << 0 << false << "bundle.tasks_per_node";
        QTest::newRow("bad time") << "2x1x1" << 1 << 0 << "two hours" << 0 << false << "bundle.time_limit";
        QTest::newRow("zero time") << "2x1x1" << 1 << 0 << "00:00:00" << 0 << false << "bundle.time_limit";
        QTest::newRow("minutes over 59")
            << "2x1x1" << 1 << 0 << "01:75:00" << 0 << false << "bundle.time_limit";
        QTest::newRow("zero tiles") << "0x1x1" << 1 << 0 << "01:00:00" << 0 << false << "bundle.tiles[0]";
        QTest::newRow("restart with gradient")
            << "2x1x1" << 1 << 0 << "01:00:00" << 100 << true << "bundle.checkpoint_every";
        QTest::newRow("negative checkpoint")
            << "2x1x1" << 1 << 0 << "01:00:00" << -1 << false << "bundle.checkpoint_every";
        QTest::newRow("grid finer than the domain")
            << "1000x1x1" << 1 << 0 << "01:00:00" << 0 << false << "tiles";
    }

    void badOptionsRefused() {
        QFETCH(QString, tiles);
        QFETCH(int, nodes);
        QFETCH(int, tasksPerNode);
        QFETCH(QString, time);
        QFETCH(int, checkpointEvery);
        QFETCH(bool, gradient);
        QFETCH(QString, message);
        const scene::Scene s = scene::loadScene(kQuickBox.toStdString());
        bundle::BundleOptions o;
        const QStringList t = tiles.split('x');
        o.tiles = {t[0].toInt(), t[1].toInt(), t[2].toInt()};
        o.nodes = nodes;
        o.tasksPerNode = tasksPerNode;
        o.timeLimit = time.toStdString();
        o.checkpointEvery = checkpointEvery;
        o.gradient = gradient;
        QTemporaryDir dir;
        const QString target = dir.filePath("bundle");
        const QString msg = inputError([&] { bundle::exportBundle(s, target.toStdString(), o); });
        QVERIFY2(msg.contains(message), qPrintable(msg));
        QVERIFY2(!msg.contains('\n'), qPrintable(msg));
        QCOMPARE(entries(dir.path()), QStringList()); // nothing written
    }

    /// The folder holds exactly the bundle; the scene reloads with the bundle's tile grid; re-exporting
    /// replaces an earlier bundle, but never a folder holding anything else.
    void exportWritesFolderAtomically() {
        const scene::Scene s = scene::loadScene(kQuickBox.toStdString());
        QTemporaryDir dir;
        const QString target = dir.filePath("job");
        bundle::BundleOptions o;
        o.tiles = {2, 2, 1};
        bundle::exportBundle(s, target.toStdString(), o);
        QCOMPARE(entries(dir.path()), QStringList{"job"});
        QCOMPARE(entries(target), (QStringList{"README.md", "run.sbatch", "scene.json"}));
        QVERIFY(QFileInfo(target + "/run.sbatch").isExecutable());
        const scene::Scene b = scene::loadScene((target + "/scene.json").toStdString());
        QCOMPARE(b.run.tiles, (std::array<int, 3>{2, 2, 1}));
        QCOMPARE(b.run.devices, std::string("cpu:4"));
        scene::Scene same = b;
        same.run = s.run;
        QCOMPARE(scene::sceneHash(same), scene::sceneHash(s)); // only the run section changed
        const QString readme = readText(target + "/README.md");
        QVERIFY2(readme.contains("sbatch run.sbatch") && readme.contains("2x2x1") &&
                     readme.contains("per rank"),
                 qPrintable(readme));

        // Re-export with another grid: the earlier bundle is replaced as a whole.
        o.tiles = {4, 1, 1};
        bundle::exportBundle(s, (target + "/").toStdString(), o);
        QCOMPARE(entries(dir.path()), QStringList{"job"});
        QCOMPARE(scene::loadScene((target + "/scene.json").toStdString()).run.tiles,
                 (std::array<int, 3>{4, 1, 1}));

        // A folder holding results (or anything else) is never replaced.
        QFile results(target + "/results.h5");
        QVERIFY(results.open(QIODevice::WriteOnly));
        results.close();
        const QString msg = inputError([&] { bundle::exportBundle(s, target.toStdString(), o); });
        QVERIFY2(msg.contains("already holds 'results.h5'"), qPrintable(msg));
        QVERIFY(QFile::exists(target + "/results.h5"));
        QCOMPARE(entries(dir.path()), QStringList{"job"});

        const QString noParent =
            inputError([&] { bundle::exportBundle(s, (dir.filePath("a/b")).toStdString(), o); });
        QVERIFY2(noParent.contains("does not exist"), qPrintable(noParent));
    }

    /// Design parameters travel in the sidecar HDF5 next to the scene.
    void sidecarArraysTravel() {
        scene::Scene s = scene::loadScene(kWaveguide.toStdString());
        QVERIFY(!s.designs.empty());
        scene::Design& d = s.designs[0];
        std::size_t n = 1;
        for (int a = 0; a < 3; ++a)
            n *= std::size_t(std::lround(d.size[a] / s.cellUm)) / std::size_t(d.voxelCells[a]);
        d.latent.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            d.latent[i] = double(i % 7) / 7.0;
        d.params.clear();
        QTemporaryDir dir;
        const QString target = dir.filePath("wg");
        bundle::exportBundle(s, target.toStdString(), bundle::BundleOptions{});
        QCOMPARE(entries(target), (QStringList{"README.md", "run.sbatch", "scene.h5", "scene.json"}));
        QVERIFY(readText(target + "/scene.json").contains("scene.h5:/designs/"));
        QVERIFY(readText(target + "/README.md").contains("scene.h5"));
        const scene::Scene b = scene::loadScene((target + "/scene.json").toStdString());
        QCOMPARE(b.designs[0].latent, d.latent);
    }

    /// `yee-run --export` writes the bundle; restart flags run, resume and refuse as the backend does.
    void yeeRunFlags() {
        QTemporaryDir dir;
        Proc e = runProcess(YEE_RUN_EXE,
                            {"--export", "job", "--tiles", "2x1x1", "--nodes", "2", "--time", "02:30:00",
                             "--checkpoint-every", "100", kQuickBox},
                            dir.path());
        QVERIFY2(e.code == 0, qPrintable(explain(e)));
        QVERIFY2(e.out.contains("sbatch run.sbatch"), qPrintable(e.out));
        QCOMPARE(entries(dir.path()), QStringList{"job"});
        const auto req = sbatchRequests(readText(dir.filePath("job/run.sbatch")));
        QCOMPARE(req.at("nodes"), QString("2"));
        QCOMPARE(req.at("ntasks-per-node"), QString("1"));
        QCOMPARE(req.at("ntasks"), QString("2"));
        QCOMPARE(req.at("time"), QString("02:30:00"));
        QCOMPARE(req.at("signal"), QString("TERM@300"));
        QVERIFY(!readText(dir.filePath("job/run.sbatch")).contains("--grad"));
        QVERIFY(!req.count("gpus-per-task"));

        // --grad and --devices carry into the bundle (they were dropped): a value-and-grad job on one GPU
        // per rank.
        Proc g = runProcess(YEE_RUN_EXE,
                            {"--export", "gjob", "--tiles", "2x1x1", "--grad", "--devices", "cuda", kBend},
                            dir.path());
        QVERIFY2(g.code == 0, qPrintable(explain(g)));
        const QString gScript = readText(dir.filePath("gjob/run.sbatch"));
        QVERIFY2(gScript.contains("--grad"), qPrintable(gScript));
        const auto greq = sbatchRequests(gScript);
        QCOMPARE(greq.at("gpus-per-task"), QString("1"));
        QCOMPARE(greq.at("ntasks"), QString("2"));
        // --devices cpu:4 is CPU ranks whatever the scene says.
        g = runProcess(YEE_RUN_EXE, {"--export", "cjob", "--devices", "cpu:4", kQuickBox}, dir.path());
        QVERIFY2(g.code == 0, qPrintable(explain(g)));
        QVERIFY(!sbatchRequests(readText(dir.filePath("cjob/run.sbatch"))).count("gpus-per-task"));

        struct Bad {
            QStringList args;
            QString message;
        };
        const QList<Bad> bad{
            {{"--nodes", "2", kQuickBox}, "--nodes: only with --export DIR"},
            {{"--export", "b", "--resume", "x", kQuickBox}, "--resume: not with --export"},
            {{"--export", "b", "--tiles", "2x1x1", "--tasks-per-node", "3", kQuickBox},
             "bundle.tasks_per_node: 3 tasks per node x 1 nodes = 3 ranks, but the tile grid 2x1x1 has 2 "
             "tiles"},
            {{"--export", "b", "--time", "soon", kQuickBox}, "bundle.time_limit"},
            // Run options a bundle does not carry are refused, not dropped.
            {{"--export", "b", "--precision", "float64", kQuickBox}, "--precision: not with --export"},
            {{"--export", "b", "--max-steps", "5", kQuickBox}, "--max-steps: not with --export"},
            {{"--export", "b", "--capacity", "1G", kQuickBox}, "--capacity: not with --export"},
            {{"--export", "b", "--no-overlap", kQuickBox}, "--no-overlap: not with --export"},
            {{"--export", "b", "-o", "x.h5", kQuickBox}, "--output: not with --export"},
            {{"--export", "b", "--snapshots-dir", "s", kQuickBox}, "--snapshots-dir: not with --export"},
            {{"--checkpoint-every", "0", kQuickBox}, "--checkpoint-every: expected a positive integer"},
            {{"--resume", "nothing", kQuickBox}, "restart file 'nothing.rank0': cannot open"},
        };
        for (const Bad& b : bad) {
            QTemporaryDir d;
            const Proc p = runProcess(YEE_RUN_EXE, b.args, d.path());
            QVERIFY2(p.code == 2, qPrintable(b.args.join(' ') + "\n" + explain(p)));
            QVERIFY2(p.err.startsWith("yee-run: error: ") && p.err.count('\n') == 1 &&
                         p.err.contains(b.message),
                     qPrintable(explain(p)));
            QCOMPARE(entries(d.path()), QStringList());
        }

        // --checkpoint-every alone writes <stem>.restart.rank0 here; --resume continues to the same bits.
        const Proc whole =
            runProcess(YEE_RUN_EXE, {"-q", "-o", "whole.h5", "--snapshots-dir", "w", kQuickBox}, dir.path());
        QVERIFY2(whole.code == 0, qPrintable(explain(whole)));
        const Proc ck = runProcess(
            YEE_RUN_EXE, {"-q", "--checkpoint-every", "70", "-o", "ck.h5", "--snapshots-dir", "c", kQuickBox},
            dir.path());
        QVERIFY2(ck.code == 0, qPrintable(explain(ck)));
        QVERIFY(QFile::exists(dir.filePath("quick_box.restart.rank0")));
        const Proc resumed = runProcess(
            YEE_RUN_EXE,
            {"-q", "--resume", "quick_box.restart", "-o", "resumed.h5", "--snapshots-dir", "r", kQuickBox},
            dir.path());
        QVERIFY2(resumed.code == 0, qPrintable(explain(resumed)));
        const auto a = io::readResults(dir.filePath("whole.h5").toStdString());
        compareResults(a, io::readResults(dir.filePath("ck.h5").toStdString()));
        compareResults(a, io::readResults(dir.filePath("resumed.h5").toStdString()));
        compareSnapshots(dir.filePath("w"), dir.filePath("r"));
        const Proc check = runProcess(
            YEE_RUN_EXE, {"--check", "--precision", "float64", "--resume", "quick_box.restart", kQuickBox},
            dir.path());
        QVERIFY2(check.code == 2 && check.err.contains("written in float32, this run uses float64"),
                 qPrintable(explain(check)));
    }

    /// The bundle's own script, run with a stand-in srun that starts mpirun with 4 CPU ranks, writes
    /// results equal bit for bit to the local 4-tile run (and to the single-tile run); so does the
    /// script's mpirun alternative. With restart files: an MPI run checkpoints, and the resubmitted
    /// script resumes from them with the same bits.
    void bundleRunsUnderMpi() {
#if !defined(YEE_MPIEXEC)
        QSKIP("built without MPI");
#else
        QTemporaryDir dir;
        // quick_box cut to ~80 steps: 4 ranks share 2 cores here, and the test runs six jobs.
        scene::Scene s = scene::loadScene(kQuickBox.toStdString());
        s.durationFs = 8;
        const QString source = dir.filePath("short_box.json");
        scene::saveScene(s, source.toStdString());
        const QString job = dir.filePath("job");
        bundle::BundleOptions o;
        o.tiles = {2, 2, 1};
        o.checkpointEvery = 25;
        const bundle::BatchResources r = bundle::exportBundle(s, job.toStdString(), o);
        QCOMPARE(r.ranks, 4);
        const QString script = readText(job + "/run.sbatch");
        const auto req = sbatchRequests(script);

        // Local reference runs: 4 emulated devices (LocalComm), and one tile.
        const Proc local = runProcess(
            YEE_RUN_EXE,
            {"-q", "--tiles", "2x2x1", "-o", "local.h5", "--snapshots-dir", "local", job + "/scene.json"},
            dir.path());
        QVERIFY2(local.code == 0, qPrintable(explain(local)));
        const Proc single = runProcess(
            YEE_RUN_EXE, {"-q", "--tiles", "1x1x1", "-o", "single.h5", "--snapshots-dir", "single", source},
            dir.path());
        QVERIFY2(single.code == 0, qPrintable(explain(single)));

        // The batch script as sbatch would run it: in the bundle folder, SLURM_NTASKS from its request.
        const QString bin = dir.filePath("bin");
        QVERIFY(QDir().mkpath(bin));
        QVERIFY(writeFakeSrun(bin));
        QProcessEnvironment env = cleanEnvironment();
        env.insert("PATH", bin + ":" + env.value("PATH"));
        env.insert("YEE_RUN", YEE_RUN_EXE);
        env.insert("SLURM_NTASKS", req.at("ntasks"));
        env.insert("SLURM_SUBMIT_DIR", job);
        env.insert("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
        const Proc batch = runProcess("/bin/bash", {job + "/run.sbatch"}, dir.path(), env);
        QVERIFY2(batch.code == 0, qPrintable(explain(batch)));
        QCOMPARE(batch.out.count("Peak memory per device"), 1); // one job, rank 0 reports
        QVERIFY2(!QFile::exists(job + "/restart.rank0"), "restart files are removed when the run completes");

        const auto a = io::readResults(dir.filePath("local.h5").toStdString());
        const auto b = io::readResults((job + "/results.h5").toStdString());
        const auto c = io::readResults(dir.filePath("single.h5").toStdString());
        QCOMPARE(b.devices.size(), std::size_t(4));
        compareResults(a, b);
        compareResults(c, b);
        compareSnapshots(dir.filePath("local"), job + "/fields");

        // The script's mpirun alternative, as written (with the flags this machine needs as root).
        QString alt = lineStartingWith(script, "#   mpirun ").mid(QString("#   mpirun ").size());
        QStringList args = alt.split(' ', Qt::SkipEmptyParts);
        QVERIFY(args.size() > 4 && args[0] == "-np" && args[2] == "yee-run");
        args[2] = YEE_RUN_EXE;
        const int out = int(args.indexOf("results.h5"));
        QVERIFY(out > 0);
        args[out] = "alt.h5";
        args[args.indexOf("fields")] = "alt-fields";
        args.prepend("--oversubscribe");
        args.prepend("--allow-run-as-root");
        const Proc viaMpirun = runProcess(YEE_MPIEXEC, args << "-q", job, env);
        QVERIFY2(viaMpirun.code == 0, qPrintable(explain(viaMpirun)));
        compareResults(a, io::readResults((job + "/alt.h5").toStdString()));

        // Restart under MPI: checkpoint every 30 steps, then resume from the last files.
        const QStringList mpi{
            "--allow-run-as-root", "--oversubscribe", "-np", "4", YEE_RUN_EXE, "-q", "--tiles", "2x2x1"};
        const Proc ck = runProcess(YEE_MPIEXEC,
                                   mpi + QStringList{"--checkpoint-every", "30", "--checkpoint", "ck", "-o",
                                                     "ck.h5", "--snapshots-dir", "ck", "scene.json"},
                                   job, env);
        QVERIFY2(ck.code == 0, qPrintable(explain(ck)));
        for (int rank = 0; rank < 4; ++rank)
            QCOMPARE(run::readRestartHeader((job + "/ck.rank" + QString::number(rank)).toStdString()).step,
                     (a.totalSteps - 1) / 30 * 30);
        // A resubmitted job finds restart files (as a job stopped at its time limit leaves them) and resumes.
        for (int rank = 0; rank < 4; ++rank)
            QVERIFY(QFile::copy(job + "/ck.rank" + QString::number(rank),
                                job + "/restart.rank" + QString::number(rank)));
        QVERIFY(QFile::remove(job + "/results.h5"));
        const Proc again = runProcess("/bin/bash", {job + "/run.sbatch"}, dir.path(), env);
        QVERIFY2(again.code == 0, qPrintable(explain(again)));
        QVERIFY2(again.out.contains("resuming from restart files restart.rank*"), qPrintable(explain(again)));
        QVERIFY(!QFile::exists(job + "/restart.rank0"));
        compareResults(a, io::readResults((job + "/results.h5").toStdString()));
        // A restart file set for another grid is refused once, with the file named.
        const Proc wrong =
            runProcess(YEE_MPIEXEC,
                       QStringList{"--allow-run-as-root", "--oversubscribe", "-np", "2", YEE_RUN_EXE,
                                   "--tiles", "2x1x1", "--resume", "ck", "scene.json"},
                       job, env);
        QVERIFY2(wrong.code == 2, qPrintable(explain(wrong)));
        QVERIFY2(wrong.err.contains("written for tile grid 2x2x1, this run uses 2x1x1"),
                 qPrintable(explain(wrong)));
#endif
    }
};

QTEST_GUILESS_MAIN(tst_Bundle)
#include "tst_bundle.moc"
