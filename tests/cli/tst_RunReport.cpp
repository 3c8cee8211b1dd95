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
        solver::Estimate e;
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
