/// yee-run's command line: good argument lists parse to the right values, bad ones give one-line
/// errors naming the option.
#include <QtTest>

#include <cstdlib>

#include "RunCli.hpp"
#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"

using namespace yee;

namespace {

std::string opt(const std::optional<int>& v) {
    return v ? std::to_string(*v) : "-";
}

std::string opt(const std::optional<std::string>& v) {
    return v ? *v : "-";
}

/// A compact, comparable text of every parsed field.
QString describe(const cli::RunArgs& a) {
    std::string s = "scene=" + a.scene;
    s += " check=" + std::to_string(a.check);
    s += " tiles=" + (a.tiles ? std::to_string((*a.tiles)[0]) + "x" + std::to_string((*a.tiles)[1]) + "x" +
                                    std::to_string((*a.tiles)[2])
                              : std::string("-"));
    s += " devices=" + opt(a.devices);
    s += " precision=" + (a.precision ? std::string(*a.precision == run::Precision::Float64 ? "f64" : "f32")
                                      : std::string("-"));
    s += " noOverlap=" + std::to_string(a.noOverlap);
    s += " maxSteps=" + opt(a.maxSteps);
    s += " output=" + a.outputPath();
    s += " snapshots=" + a.snapshotsPath();
    s += " quiet=" + std::to_string(a.quiet);
    s += " version=" + std::to_string(a.version);
    s += " help=" + std::to_string(a.help);
    if (a.listDevices)
        s += " listDevices=1";
    return QString::fromStdString(s);
}

std::vector<std::string> toStd(const QStringList& l) {
    std::vector<std::string> v;
    for (const auto& s : l)
        v.push_back(s.toStdString());
    return v;
}

} // namespace

class tst_RunCli : public QObject {
    Q_OBJECT

private slots:
    void parsesGoodArguments_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        const QString defaults = " devices=- precision=- noOverlap=0 maxSteps=- output=box.results.h5 "
                                 "snapshots=box.fields quiet=0 version=0 help=0";
        QTest::newRow("scene only") << QStringList{"box.json"} << "scene=box.json check=0 tiles=-" + defaults;
        QTest::newRow("scene in a directory") << QStringList{"/data/scenes/box.json"}
                                              << "scene=/data/scenes/box.json check=0 tiles=-" + defaults;
        QTest::newRow("check") << QStringList{"--check", "box.json"}
                               << "scene=box.json check=1 tiles=-" + defaults;
        QTest::newRow("everything")
            << QStringList{"--tiles",  "2x2x1",           "--devices",   "cpu:8",   "--precision",
                           "float64",  "--no-overlap",    "--max-steps", "100",     "--output",
                           "out/r.h5", "--snapshots-dir", "f",           "--quiet", "box.json"}
            << "scene=box.json check=0 tiles=2x2x1 devices=cpu:8 precision=f64 noOverlap=1 maxSteps=100 "
               "output=out/r.h5 snapshots=f quiet=1 version=0 help=0";
        QTest::newRow("equals form and options after scene")
            << QStringList{"box.json", "--tiles=4x1x1", "--precision=float32", "-o", "x.h5", "-q"}
            << "scene=box.json check=0 tiles=4x1x1 devices=- precision=f32 noOverlap=0 maxSteps=- "
               "output=x.h5 "
               "snapshots=box.fields quiet=1 version=0 help=0";
        QTest::newRow("last value wins") << QStringList{"--tiles", "2x1x1", "--tiles", "1x1x3", "box.json"}
                                         << "scene=box.json check=0 tiles=1x1x3" + defaults;
        QTest::newRow("double dash ends options")
            << QStringList{"--", "-odd.json"}
            << "scene=-odd.json check=0 tiles=- devices=- precision=- noOverlap=0 maxSteps=- "
               "output=-odd.results.h5 snapshots=-odd.fields quiet=0 version=0 help=0";
        QTest::newRow("help needs no scene")
            << QStringList{"--help"}
            << "scene= check=0 tiles=- devices=- precision=- noOverlap=0 "
               "maxSteps=- output=scene.results.h5 snapshots=scene.fields quiet=0 "
               "version=0 help=1";
        QTest::newRow("devices cuda") << QStringList{"--devices", "cuda", "box.json"}
                                      << "scene=box.json check=0 tiles=- devices=cuda" + defaults.mid(10);
        QTest::newRow("devices cuda:all")
            << QStringList{"--devices=cuda:all", "box.json"}
            << "scene=box.json check=0 tiles=- devices=cuda:all" + defaults.mid(10);
        // A list of two GPUs is fine without GPUs (CPU fallback) and with two or more; one GPU refuses id 1.
        if (cuda::deviceCount() != 1)
            QTest::newRow("devices cuda:0,1")
                << QStringList{"box.json", "--devices", "cuda:0,1"}
                << "scene=box.json check=0 tiles=- devices=cuda:0,1" + defaults.mid(10);
        QTest::newRow("devices cpu") << QStringList{"--devices", "cpu:3", "box.json"}
                                     << "scene=box.json check=0 tiles=- devices=cpu:3" + defaults.mid(10);
        QTest::newRow("list devices needs no scene")
            << QStringList{"--list-devices"}
            << "scene= check=0 tiles=- devices=- precision=- noOverlap=0 "
               "maxSteps=- output=scene.results.h5 snapshots=scene.fields "
               "quiet=0 version=0 help=0 listDevices=1";
        QTest::newRow("version needs no scene")
            << QStringList{"--version"}
            << "scene= check=0 tiles=- devices=- precision=- noOverlap=0 "
               "maxSteps=- output=scene.results.h5 snapshots=scene.fields "
               "quiet=0 version=1 help=0";
    }

    void parsesGoodArguments() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        QCOMPARE(describe(cli::parseRunArgs(toStd(args))), expected);
    }

    void refusesBadArguments_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("no scene") << QStringList{} << "missing SCENE.json (see yee-run --help)";
        QTest::newRow("two scenes") << QStringList{"a.json", "b.json"}
                                    << "expected one scene file, got 'b.json' as well";
        QTest::newRow("unknown option")
            << QStringList{"--fast", "a.json"} << "unknown option '--fast' (see yee-run --help)";
        QTest::newRow("missing value") << QStringList{"a.json", "--tiles"} << "--tiles: missing value";
        QTest::newRow("tiles 2-d")
            << QStringList{"--tiles", "2x1", "a.json"}
            << "--tiles: expected PXxPYxPZ with positive integers (e.g. 2x1x1), got '2x1'";
        QTest::newRow("tiles zero")
            << QStringList{"--tiles", "0x1x1", "a.json"}
            << "--tiles: expected PXxPYxPZ with positive integers (e.g. 2x1x1), got '0x1x1'";
        QTest::newRow("tiles 4-d")
            << QStringList{"--tiles=1x1x1x1", "a.json"}
            << "--tiles: expected PXxPYxPZ with positive integers (e.g. 2x1x1), got '1x1x1x1'";
        QTest::newRow("tiles junk")
            << QStringList{"--tiles", "2x1x1z", "a.json"}
            << "--tiles: expected PXxPYxPZ with positive integers (e.g. 2x1x1), got '2x1x1z'";
        QTest::newRow("tiles negative")
            << QStringList{"--tiles", "-2x1x1", "a.json"}
            << "--tiles: expected PXxPYxPZ with positive integers (e.g. 2x1x1), got "
               "'-2x1x1'";
        const QString expected = "--devices: expected cpu:N, cuda:all or cuda:ID[,ID...], got ";
        QTest::newRow("devices bare") << QStringList{"--devices", "4", "a.json"} << expected + "'4'";
        QTest::newRow("devices zero") << QStringList{"--devices", "cpu:0", "a.json"} << expected + "'cpu:0'";
        QTest::newRow("devices cuda junk")
            << QStringList{"--devices=cuda:x", "a.json"} << expected + "'cuda:x'";
        QTest::newRow("devices cuda empty")
            << QStringList{"--devices=cuda:", "a.json"} << expected + "'cuda:'";
        QTest::newRow("devices cuda trailing comma")
            << QStringList{"--devices=cuda:0,", "a.json"} << expected + "'cuda:0,'";
        QTest::newRow("devices gpu") << QStringList{"--devices", "gpu:0", "a.json"} << expected + "'gpu:0'";
        QTest::newRow("devices cuda twice")
            << QStringList{"--devices", "cuda:0,0", "a.json"} << "--devices: GPU 0 is listed twice";
        if (cuda::deviceCount() > 0)
            QTest::newRow("devices cuda missing")
                << QStringList{"--devices", "cuda:" + QString::number(cuda::deviceCount()), "a.json"}
                << "--devices: GPU " + QString::number(cuda::deviceCount()) + " does not exist (" +
                       QString::number(cuda::deviceCount()) + " visible: 0.." +
                       QString::number(cuda::deviceCount() - 1) + ")";
        QTest::newRow("list devices flag with value")
            << QStringList{"--list-devices=1"} << "--list-devices: takes no value";
        QTest::newRow("precision") << QStringList{"--precision", "half", "a.json"}
                                   << "--precision: expected float32 or float64, got 'half'";
        QTest::newRow("max steps zero") << QStringList{"--max-steps", "0", "a.json"}
                                        << "--max-steps: expected a positive integer, got '0'";
        QTest::newRow("max steps huge") << QStringList{"--max-steps", "99999999999", "a.json"}
                                        << "--max-steps: expected a positive integer, got '99999999999'";
        QTest::newRow("flag with value") << QStringList{"--check=yes", "a.json"} << "--check: takes no value";
        QTest::newRow("empty output") << QStringList{"--output=", "a.json"} << "--output: empty file name";
    }

    void refusesBadArguments() {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        try {
            cli::parseRunArgs(toStd(args));
            QFAIL("no error");
        } catch (const yee::InputError& e) {
            QCOMPARE(QString(e.what()), error);
            QVERIFY(!QString(e.what()).contains('\n'));
        }
    }

    /// --devices goes through the solver's selectDevices once the tile grid is known: CPU lists as
    /// given, GPU lists on the GPUs or (without one) on one emulated CPU device per tile with a notice.
    void runOptionsFromDevices() {
        scene::Scene s; // run.devices "cpu:1", tiles 1x1x1
        auto options = [&](const QStringList& args) {
            return cli::makeRunOptions(s, cli::parseRunArgs(toStd(args)));
        };
        run::RunOptions o = options({"a.json"});
        QCOMPARE(int(o.backend), int(run::Backend::Cpu));
        QCOMPARE(o.devices, 1);
        QVERIFY(o.deviceNotice.empty());
        o = options({"a.json", "--tiles", "2x1x1"}); // one CPU device per tile
        QCOMPARE(o.devices, 2);
        QVERIFY(o.deviceNotice.empty());
        o = options({"a.json", "--tiles", "2x1x1", "--devices", "cpu:4"});
        QCOMPARE(o.devices, 4);
        QCOMPARE(int(o.backend), int(run::Backend::Cpu));

        const int gpus = cuda::deviceCount();
        o = options({"a.json", "--devices", "cuda:all", "--tiles", "3x1x1"});
        if (gpus == 0) {
            QCOMPARE(int(o.backend), int(run::Backend::Cpu));
            QCOMPARE(o.devices, 3); // one emulated device per tile
            QVERIFY(o.gpus.empty());
            const QString notice = QString::fromStdString(o.deviceNotice);
            QVERIFY2(notice.startsWith("--devices asks for GPUs (cuda:all) but ") &&
                         notice.contains(QString::fromStdString(cuda::unavailableReason())) &&
                         notice.endsWith("running on 3 emulated CPU devices") && !notice.contains('\n'),
                     qPrintable(notice));
        } else {
            QCOMPARE(int(o.backend), int(run::Backend::Cuda));
            QCOMPARE(int(o.gpus.size()), gpus);
            QVERIFY(o.deviceNotice.empty());
        }

        // A scene asking for GPUs keeps asking with --tiles alone; without GPUs it gets one CPU device
        // per tile and a notice naming run.devices.
        s.run.devices = "cuda:all";
        o = options({"a.json", "--tiles", "2x1x1"});
        if (gpus == 0) {
            QCOMPARE(int(o.backend), int(run::Backend::Cpu));
            QCOMPARE(o.devices, 2);
            QVERIFY2(
                QString::fromStdString(o.deviceNotice).startsWith("run.devices asks for GPUs (cuda:all)"),
                o.deviceNotice.c_str());
        } else {
            QCOMPARE(int(o.backend), int(run::Backend::Cuda));
        }
        o = options({"a.json", "--devices", "cpu:2", "--tiles", "2x1x1"}); // --devices wins over the scene
        QCOMPARE(int(o.backend), int(run::Backend::Cpu));
        QCOMPARE(o.devices, 2);
        QVERIFY(o.deviceNotice.empty());
    }

    void defaultsLiveInTheCurrentDirectory() {
        QCOMPARE(cli::defaultOutputPath("/a/b/quick_box.json"), std::string("quick_box.results.h5"));
        QCOMPARE(cli::defaultSnapshotsDir("../quick_box.json"), std::string("quick_box.fields"));
    }

    void launcherRanksFromEnvironment_data() {
        QTest::addColumn<QString>("var");
        QTest::addColumn<QString>("value");
        QTest::addColumn<int>("ranks");
        QTest::newRow("none") << QString() << QString() << 1;
        QTest::newRow("openmpi") << "OMPI_COMM_WORLD_SIZE"
                                 << "4" << 4;
        QTest::newRow("pmi") << "PMI_SIZE"
                             << "2" << 2;
        QTest::newRow("slurm") << "SLURM_NTASKS"
                               << "8" << 8;
        QTest::newRow("garbage") << "OMPI_COMM_WORLD_SIZE"
                                 << "many" << 1;
    }

    void launcherRanksFromEnvironment() {
        QFETCH(QString, var);
        QFETCH(QString, value);
        QFETCH(int, ranks);
        for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
            ::unsetenv(v);
        if (!var.isEmpty())
            ::setenv(var.toUtf8().constData(), value.toUtf8().constData(), 1);
        QCOMPARE(cli::launcherRanks(), ranks);
        if (!var.isEmpty())
            ::unsetenv(var.toUtf8().constData());
    }

    void usageMentionsEveryOption() {
        const QString usage = QString::fromStdString(cli::usageText());
        for (const char* o : {"--check", "--tiles", "--devices", "--precision", "--no-overlap", "--max-steps",
                              "--output", "--snapshots-dir", "--quiet", "--version", "--help",
                              "--list-devices", "cuda:all", "cuda:0,1", "NCCL"})
            QVERIFY2(usage.contains(o), o);
    }
};

QTEST_APPLESS_MAIN(tst_RunCli)
#include "tst_RunCli.moc"
