/// The run monitor shows every phase of a run (forward, reconstruct, adjoint) with its progress, rate and
/// time, and the whole run's remaining time; Cancel is acknowledged at once. The run history lists every
/// run file of a folder, newest first, and numbers new runs past every existing one.
#include <QApplication>
#include <QProgressBar>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QRegularExpression>
#include <QtTest>

#include "UiTestScenes.hpp"
#include "ui/MemoryBars.hpp"
#include "ui/RunHistory.hpp"
#include "ui/RunMonitor.hpp"
#include "yee/io/ResultsWriter.hpp"

using namespace yee;
using namespace yee::ui;

namespace {
telemetry::Report report(const std::string& phase, int step, std::vector<telemetry::PhaseProgress> phases) {
    telemetry::Report r;
    r.phase = phase;
    r.step = step;
    for (const auto& p : phases)
        if (p.name == phase) {
            r.totalSteps = int(p.totalSteps);
            r.stepsPerSecond = p.stepsPerSecond();
        }
    double elapsed = 0;
    for (const auto& p : phases)
        elapsed += p.seconds;
    r.elapsedSeconds = elapsed;
    r.phases = std::move(phases);
    r.remainingSeconds = telemetry::remainingSeconds(r.phases);
    return r;
}
} // namespace

class tst_RunMonitor : public QObject {
    Q_OBJECT
private slots:
    /// The monitor repaints when a report comes, not in between: no busy bar before the first report and
    /// no animated bars in progress (each repaint of the window takes CPU from the time loop).
    void barsDoNotAnimate() {
        RunMonitor m;
        m.resize(360, 480);
        m.show();
        QVERIFY(QTest::qWaitForWindowExposed(&m));
        m.runStarted();
        QVERIFY(m.progress()->maximum() > m.progress()->minimum()); // not a busy (animated) bar
        m.showReport(report("forward", 40, {{"forward", 40, 100, 2.0}}));
        QTest::qWait(100);
        struct Paints : QObject {
            int n = 0;
            bool eventFilter(QObject*, QEvent* e) override {
                n += e->type() == QEvent::Paint;
                return false;
            }
        } paints;
        m.progress()->installEventFilter(&paints);
        m.phaseBar("forward")->installEventFilter(&paints);
        QTest::qWait(800);
        qInfo("progress bar paints in 0.8 s without a report: %d", paints.n);
        QCOMPARE(paints.n, 0);
        m.showReport(report("forward", 60, {{"forward", 60, 100, 2.0}}));
        QTest::qWait(100);
        QVERIFY(paints.n > 0); // a report does repaint them
    }

    void everyPhaseShown() {
        RunMonitor m;
        m.runStarted();
        QVERIFY(!m.phaseBar("forward"));
        // Forward phase of a checkpointed value-and-grad run: 100 forward, 250 recomputed, 100 adjoint.
        m.showReport(report("forward", 40,
                            {{"forward", 40, 100, 2.0}, {"reconstruct", 0, 250, 0}, {"adjoint", 0, 100, 0}}));
        QVERIFY(m.phaseBar("forward") && m.phaseBar("reconstruct") && m.phaseBar("adjoint"));
        QCOMPARE(m.phaseBar("forward")->value(), 40);
        QCOMPARE(m.phaseBar("forward")->maximum(), 100);
        QCOMPARE(m.phaseBar("reconstruct")->maximum(), 250);
        QCOMPARE(m.phaseText("adjoint"), QString("waiting"));
        QCOMPARE(m.statusText(), QString("Running: forward phase (1 of 3)"));
        // Remaining time covers all phases at the forward rate: (60 + 250 + 100) steps at 20 steps/s.
        QCOMPARE(m.timeText(), QString("2.0 s / 20.5 s"));
        QCOMPARE(m.progress()->value(), 40);

        // In the reverse sweep the monitor follows the adjoint, not the forward phase's last step.
        m.showReport(report(
            "adjoint", 30,
            {{"forward", 100, 100, 4.75}, {"reconstruct", 130, 250, 3.25}, {"adjoint", 30, 100, 3.0}}));
        QCOMPARE(m.currentPhase(), QString("adjoint"));
        QCOMPARE(m.statusText(), QString("Running: adjoint phase (3 of 3)"));
        QCOMPARE(m.progress()->value(), 30);
        QCOMPARE(m.progress()->maximum(), 100);
        QCOMPARE(m.phaseBar("forward")->value(), 100);
        QCOMPARE(m.phaseBar("reconstruct")->value(), 130);
        QCOMPARE(m.phaseBar("adjoint")->value(), 30);
        QCOMPARE(m.phaseText("adjoint"), QString("10.0 steps/s, 3.0 s"));
        // 120 recomputed steps at 40/s + 70 adjoint steps at 10/s = 3 + 7 s; 11 s elapsed.
        QCOMPARE(m.timeText(), QString("11.0 s / 10.0 s"));

        // A forward-only run has one phase, and says so without "(1 of 1)".
        m.runStarted();
        m.showReport(report("forward", 5, {{"forward", 5, 10, 1.0}}));
        QCOMPARE(m.statusText(), QString("Running: forward phase"));
        QVERIFY(!m.phaseBar("adjoint"));
    }

    /// The monitor has the run's shape from its start (phases and devices from the estimate, see
    /// RunMonitor::expectRun) and keeps it through the first report and the end: no widget of the panel
    /// moves or resizes, so a report repaints its numbers, not the dock (each relayout climbs to the
    /// window and repaints the panel whole, CPU the time loop needs on a small machine).
    void keepsItsShape() {
        RunMonitor m;
        m.resize(426, 546);
        m.show();
        QVERIFY(QTest::qWaitForWindowExposed(&m));
        device::LedgerSnapshot estimated;
        estimated.peak[0] = estimated.peakTotal = 15'000'000;
        estimated.peak[1] = 400'000;
        const QVector<DeviceMemory> devices{{"cpu:0", QString(), 12'000'000'000, estimated}};
        auto geometries = [&] {
            QMap<QString, QRect> g;
            int i = 0;
            for (QWidget* w : m.findChildren<QWidget*>())
                if (w->isVisible())
                    g.insert(QStringLiteral("%1 %2 %3")
                                 .arg(i++)
                                 .arg(w->metaObject()->className(), w->objectName()),
                             QRect(w->mapTo(&m, QPoint(0, 0)), w->size()));
            return g;
        };
        // A finished run before (its results path in the status), then the next one starts.
        auto finished = std::make_shared<run::RunResult>();
        finished->completed = true;
        finished->status = "completed";
        finished->steps = finished->totalSteps = 200;
        finished->seconds = finished->forwardSeconds = 0.2;
        finished->phases = {{"forward", 200, 200, 0.2}};
        solver::DeviceSummary d;
        d.name = "cpu:0";
        d.capacity = 12'000'000'000;
        d.memory = estimated;
        d.memory.current = d.memory.peak;
        d.memory.currentTotal = d.memory.peakTotal;
        finished->devices = {d};
        m.expectRun({{"forward", 0, 200, 0}}, devices);
        m.runFinished(finished, "/tmp/scene.runs/run-001.results.h5");
        QApplication::processEvents();

        m.expectRun({{"forward", 0, 200, 0}}, devices);
        m.runStarted();
        QVERIFY(m.phaseBar("forward"));
        QCOMPARE(m.phaseBar("forward")->value(), 0);
        QCOMPARE(m.phaseText("forward"), QString("waiting"));
        QCOMPARE(m.bars()->devices().size(), 1);
        QVERIFY(m.bars()->lines(0).join('\n').contains("no report yet"));
        QCOMPARE(m.bars()->fillFraction(0), 0.0); // the estimate is not shown as a measurement
        QApplication::processEvents();
        const auto atStart = geometries();

        telemetry::Report r = report("forward", 200, {{"forward", 200, 200, 0.19}});
        r.devices = {{0, "cpu:0", 12'000'000'000, d.memory, {}}};
        m.showReport(r);
        QApplication::processEvents();
        QCOMPARE(m.phaseText("forward"), QString("1.05 ksteps/s, 0.2 s"));
        QVERIFY(m.bars()->lines(0).join('\n').contains("now 14.3 MiB"));
        QCOMPARE(geometries(), atStart);

        m.runFinished(finished, "/tmp/scene.runs/run-002.results.h5");
        QApplication::processEvents();
        QVERIFY(m.statusText().startsWith("Completed 200 steps"));
        QCOMPARE(geometries(), atStart);
    }

    void cancelAcknowledged() {
        RunMonitor m;
        QSignalSpy asked(&m, &RunMonitor::cancelRequested);
        m.runStarted();
        QVERIFY(m.cancelButton()->isEnabled());
        m.cancelButton()->click();
        QCOMPARE(asked.count(), 1);
        QVERIFY(!m.cancelButton()->isEnabled());
        QCOMPARE(m.cancelButton()->text(), QString("Cancelling\u2026"));
        // The run's end puts the button back.
        auto r = std::make_shared<run::RunResult>();
        r->status = "cancelled in the adjoint phase at step 8 of 40 (no gradient)";
        r->steps = r->totalSteps = 40;
        r->seconds = 3.0;
        r->forwardSeconds = 1.0;
        r->phases = {{"forward", 40, 40, 1.0}, {"adjoint", 8, 40, 2.0}};
        m.runFinished(r, QString());
        QCOMPARE(m.cancelButton()->text(), QString("Cancel run"));
        QVERIFY(m.statusText().startsWith("Stopped: cancelled in the adjoint phase at step 8 of 40"));
        QVERIFY(m.statusText().contains("3.0 s"));
        // One level of parentheses: the status's own "(no gradient)" is not nested in another pair.
        QVERIFY2(!m.statusText().contains(QRegularExpression(QStringLiteral("\\([^)]*\\("))),
                 qPrintable(m.statusText()));
        QCOMPARE(m.phaseBar("adjoint")->value(), 8);
        // The overall bar ends on the phase the run stopped in, with that phase's count.
        QCOMPARE(m.progress()->value(), 8);
        QCOMPARE(m.progress()->maximum(), 40);
        QCOMPARE(m.progress()->text(), QString("Adjoint: step 8 of 40"));
    }

    void historyListsAndNumbersRuns() {
        QTemporaryDir dir;
        const QString folder = dir.filePath("scene.runs");
        QCOMPARE(RunHistory::nextRunNumber(folder), 1);
        QCOMPARE(RunHistory::runFile(folder, 7), folder + "/run-007.results.h5");
        QVERIFY(QDir().mkpath(folder));
        const scene::Scene s = test::smallScene();
        run::RunResult done;
        done.completed = true;
        done.status = "completed";
        done.seconds = 1.5;
        done.phases = {{"forward", 10, 10, 1.0}, {"adjoint", 10, 10, 0.5}};
        io::writeResults(RunHistory::runFile(folder, 1).toStdString(), s, "{}", done);
        run::RunResult stopped;
        stopped.status = "cancelled at step 4";
        io::writeResults(RunHistory::runFile(folder, 3).toStdString(), s, "{}", stopped);
        // A snapshot folder of a run takes its number too.
        QVERIFY(QDir().mkpath(folder + "/run-004.results_snapshots"));
        QCOMPARE(RunHistory::nextRunNumber(folder), 5);

        RunHistory h;
        QSignalSpy open(&h, &RunHistory::openRequested);
        h.setFolder(folder);
        QCOMPARE(h.count(), 2);
        QCOMPARE(h.pathAt(0), RunHistory::runFile(folder, 3)); // newest first
        QCOMPARE(h.statusAt(0), QString("incomplete: cancelled at step 4"));
        QCOMPARE(h.statusAt(1), QString("complete"));
        QCOMPARE(h.list()->topLevelItem(1)->text(1), QString("value and gradient"));
        QCOMPARE(h.list()->topLevelItem(1)->text(3), QString("1.50 s"));
        emit h.list()->itemActivated(h.list()->topLevelItem(1), 0);
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.first().first().toString(), RunHistory::runFile(folder, 1));
        h.clear();
        QCOMPARE(h.count(), 0);
    }
};

QTEST_MAIN(tst_RunMonitor)
#include "tst_RunMonitor.moc"
