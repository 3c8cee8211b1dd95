/// yee-run's command line: good argument lists parse to the right values, bad ones give one-line
/// errors naming the option.
#include <QtTest>

#include <cstdlib>

#include "RunCli.hpp"
#include "yee/core/Error.hpp"

using namespace yee;

namespace {

std::string opt(const std::optional<int>& v) {
    return v ? std::to_string(*v) : "-";
}

/// A compact, comparable text of every parsed field.
QString describe(const cli::RunArgs& a) {
    std::string s = "scene=" + a.scene;
    s += " check=" + std::to_string(a.check);
    s += " tiles=" + (a.tiles ? std::to_string((*a.tiles)[0]) + "x" + std::to_string((*a.tiles)[1]) + "x" +
                                    std::to_string((*a.tiles)[2])
                              : std::string("-"));
    s += " devices=" + opt(a.devices);
    s +=
        " precision=" + (a.precision ? std::string(*a.precision == solver::Precision::Float64 ? "f64" : "f32")
                                     : std::string("-"));
    s += " noOverlap=" + std::to_string(a.noOverlap);
    s += " maxSteps=" + opt(a.maxSteps);
    s += " output=" + a.outputPath();
    s += " snapshots=" + a.snapshotsPath();
    s += " quiet=" + std::to_string(a.quiet);
    s += " version=" + std::to_string(a.version);
    s += " help=" + std::to_string(a.help);
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
            << "scene=box.json check=0 tiles=2x2x1 devices=8 precision=f64 noOverlap=1 maxSteps=100 "
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
        QTest::newRow("devices bare")
            << QStringList{"--devices", "4", "a.json"} << "--devices: expected cpu:N with N >= 1, got '4'";
        QTest::newRow("devices zero") << QStringList{"--devices", "cpu:0", "a.json"}
                                      << "--devices: expected cpu:N with N >= 1, got 'cpu:0'";
        QTest::newRow("devices cuda") << QStringList{"--devices=cuda:0", "a.json"}
                                      << "--devices: expected cpu:N with N >= 1, got 'cuda:0'";
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
                              "--output", "--snapshots-dir", "--quiet", "--version", "--help"})
            QVERIFY2(usage.contains(o), o);
    }
};

QTEST_APPLESS_MAIN(tst_RunCli)
#include "tst_RunCli.moc"
