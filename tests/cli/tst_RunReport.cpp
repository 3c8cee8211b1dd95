/// yee-run's tables and progress line.
#include <QtTest>

#include "RunReport.hpp"

using namespace yee;

namespace {

solver::DeviceSummary summary(int i) {
    solver::DeviceSummary d;
    d.name = "cpu:" + std::to_string(i);
    d.tile = Box{{8 * i, 0, 0}, {8 * i + 8, 8, 8}};
    d.capacity = std::int64_t(1) << 30;
    d.memory.peak[std::size_t(device::Category::Fields)] = 6 * 4 * 512;
    d.memory.peak[std::size_t(device::Category::Halo)] = i == 1 ? 2048 : 0;
    d.memory.peakTotal = 6 * 4 * 512 + (i == 1 ? 2048 : 0);
    d.comm.calls[std::size_t(comm::Phase::Forward)][std::size_t(comm::Kind::HaloExchange)] = 2 * 100;
    d.comm.calls[std::size_t(comm::Phase::Output)][std::size_t(comm::Kind::Gather)] = 1;
    d.comm.bytes[std::size_t(comm::Phase::Forward)][std::size_t(comm::Kind::HaloExchange)] = 4096;
    return d;
}

QStringList lines(const std::string& s) {
    return QString::fromStdString(s).split('\n', Qt::SkipEmptyParts);
}

} // namespace

class tst_RunReport : public QObject {
    Q_OBJECT

private slots:
    void tableAlignsColumns() {
        const auto t = lines(cli::renderTable({"name", "n"}, {{"a", "1"}, {"long name", "12345"}}));
        QCOMPARE(t.size(), 4);
        QCOMPARE(t[0], QString("name           n"));
        QCOMPARE(t[1], QString("----------------"));
        QCOMPARE(t[2], QString("a              1"));
        QCOMPARE(t[3], QString("long name  12345"));
    }

    void memoryTableShowsUsedCategoriesOnly() {
        const auto t = lines(cli::formatMemoryTable({summary(0), summary(1)}));
        QCOMPARE(t.size(), 4);
        QVERIFY2(t[0].contains("fields") && t[0].contains("halo") && t[0].contains("capacity"),
                 qPrintable(t[0]));
        QVERIFY2(!t[0].contains("materials") && !t[0].contains("checkpoints"), qPrintable(t[0]));
        QVERIFY2(t[2].startsWith("cpu:0") && t[2].contains("[0,8)x[0,8)x[0,8)"), qPrintable(t[2]));
        QVERIFY2(t[3].startsWith("cpu:1") && t[3].contains("%"), qPrintable(t[3]));
    }

    /// GPU rows (names "cuda:N" from the backend, capacities of a large GPU) line up with the others.
    void memoryTableWithGpus() {
        solver::DeviceSummary g0 = summary(0), g1 = summary(1);
        g0.name = "cuda:0";
        g1.name = "cuda:1";
        g0.capacity = g1.capacity = std::int64_t(141) << 30;
        const auto t = lines(cli::formatMemoryTable({g0, g1}));
        QCOMPARE(t.size(), 4);
        QVERIFY2(t[2].startsWith("cuda:0  ") && t[2].contains("141.00 GiB"), qPrintable(t[2]));
        QVERIFY2(t[3].startsWith("cuda:1  ") && t[3].endsWith("%"), qPrintable(t[3]));
        for (const auto& l : t)
            QCOMPARE(l.size(), t[1].size()); // every row as wide as the rule
    }

    void deviceListShowsGpusOrWhyNone() {
        cuda::DeviceInfo a;
        a.id = 0;
        a.name = "NVIDIA H200";
        a.totalBytes = std::int64_t(140) << 30;
        a.freeBytes = std::int64_t(139) << 30;
        a.major = 9;
        a.minor = 0;
        a.multiprocessors = 132;
        a.peakBandwidthGBs = 4800;
        cuda::DeviceInfo b = a;
        b.id = 1;
        b.name = "Tiny GPU";
        b.totalBytes = std::int64_t(8) << 30;
        b.freeBytes = std::int64_t(3) << 29;
        b.peakBandwidthGBs = 0;
        const auto t = lines(cli::formatDeviceList({a, b}, "", 16, std::int64_t(128) << 30));
        QCOMPARE(t.size(), 6); // title, header, rule, 2 GPUs, host
        QVERIFY2(t[0].startsWith("GPUs: 2"), qPrintable(t[0]));
        for (const char* h : {"device", "name", "memory", "free", "CC", "SMs", "bandwidth"})
            QVERIFY2(t[1].contains(h), h);
        QVERIFY2(t[3].startsWith("cuda:0  NVIDIA H200") && t[3].contains("140.0 GiB") &&
                     t[3].contains("139.0 GiB") && t[3].contains("9.0") && t[3].contains("132") &&
                     t[3].endsWith("4800 GB/s"),
                 qPrintable(t[3]));
        QVERIFY2(t[4].startsWith("cuda:1  Tiny GPU") && t[4].contains("8.0 GiB") &&
                     t[4].contains("1.5 GiB") && t[4].endsWith("-"),
                 qPrintable(t[4]));
        QCOMPARE(
            t[5],
            QString("Host: 16 hardware threads, 128.0 GiB memory (emulated CPU devices: --devices cpu:N)"));

        const auto none = lines(cli::formatDeviceList({}, "no GPU visible", 1, std::int64_t(1) << 30));
        QCOMPARE(none.size(), 2);
        QCOMPARE(none[0], QString("GPUs: none; no GPU visible"));
        QCOMPARE(none[1],
                 QString("Host: 1 hardware thread, 1.0 GiB memory (emulated CPU devices: --devices cpu:N)"));
    }

    void commTableHasOneRowPerDeviceAndActivePhase() {
        const auto t = lines(cli::formatCommTable({summary(0), summary(1)}));
        QCOMPARE(t.size(), 2 + 2 * 2); // header, rule, {forward, output} x 2 devices
        for (const char* k : {"halo_exchange", "all_reduce", "gather", "broadcast", "barrier"})
            QVERIFY2(t[0].contains(k), k);
        QVERIFY2(t[2].contains("forward") && t[2].contains("200"), qPrintable(t[2]));
        QVERIFY2(t[3].contains("output"), qPrintable(t[3]));
        QVERIFY(!QString::fromStdString(cli::formatCommTable({summary(0)})).contains("setup"));
        QCOMPARE(cli::formatCommTable({}), std::string("no collectives\n"));
    }

    void estimateNamesGridAndDevices() {
        run::Estimate e;
        e.gridCells = {16, 8, 8};
        e.steps = 300;
        e.devices = {summary(0), summary(1)};
        const QString s = QString::fromStdString(cli::formatEstimate(e));
        QVERIFY2(s.startsWith("Memory estimate: grid 16x8x8 cells, 300 steps, 2 devices"), qPrintable(s));
        QVERIFY2(s.contains("largest device:"), qPrintable(s));
    }

    void durations_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << 0.0 << "0:00";
        QTest::newRow("minutes") << 125.4 << "2:05";
        QTest::newRow("hours") << 3723.0 << "1:02:03";
        QTest::newRow("unknown") << -1.0 << "--";
        QTest::newRow("infinite") << qInf() << "--";
    }

    void durations() {
        QFETCH(double, seconds);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(cli::formatDuration(seconds)), text);
    }

    void progressLine() {
        telemetry::Report r;
        r.phase = "forward";
        r.step = 250;
        r.totalSteps = 1000;
        r.stepsPerSecond = 50;
        r.cellUpdatesPerSecond = 12.34e6;
        const QString s = QString::fromStdString(cli::ProgressBar::line(r, 8));
        QCOMPARE(s, QString("[##......] 250/1000   25.0%  50 steps/s  12.3 Mcell/s  ETA 0:15"));
        r.stepsPerSecond = 0;
        r.phase = "adjoint";
        QVERIFY(QString::fromStdString(cli::ProgressBar::line(r, 8)).startsWith("adjoint ["));
        QVERIFY(QString::fromStdString(cli::ProgressBar::line(r, 8)).endsWith("ETA --"));
    }
};

QTEST_APPLESS_MAIN(tst_RunReport)
#include "tst_RunReport.moc"
