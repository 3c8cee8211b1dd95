#include <QtTest>

#include "UiTestScenes.hpp"
#include "ui/Estimator.hpp"
#include "ui/Runner.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/io/ResultsWriter.hpp"

using namespace yee;
using namespace yee::ui;

namespace {
/// A scene that takes a while: enough steps that cancel arrives long before the end.
scene::Scene longScene() {
    scene::Scene s = test::smallScene();
    s.durationFs = 2000;
    return s;
}
} // namespace

/// The runner runs the solver on its worker thread: telemetry arrives as queued signals on this
/// thread, the result file is written, and cancel stops the run early with an incomplete result.
class tst_Runner : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void runsAndReportsTelemetry() {
        Runner runner;
        QSignalSpy telemetry(&runner, &Runner::telemetryReceived);
        QSignalSpy finished(&runner, &Runner::runFinished);
        QSignalSpy failed(&runner, &Runner::runFailed);
        RunRequest req;
        req.scene = test::smallScene();
        req.scene.run.tiles = {2, 1, 1};
        req.scene.run.devices = "cpu:2";
        req.options = RunSettings{}.optionsFor(req.scene);
        req.options.telemetryInterval = 0.0;
        req.resultPath = dir_.filePath("small.h5");
        QVERIFY(runner.start(req));
        QVERIFY(runner.isRunning());
        QVERIFY(!runner.start(req)); // one run at a time
        QVERIFY2(finished.wait(120000),
                 failed.isEmpty() ? "no result" : qPrintable(failed.first().first().toString()));
        QVERIFY(!runner.isRunning());
        QVERIFY(telemetry.count() >= 1);
        const auto report = telemetry.last().first().value<telemetry::Report>();
        QCOMPARE(int(report.devices.size()), 2);
        QVERIFY(report.totalSteps > 0);
        const auto result = finished.first().first().value<RunResultPtr>();
        QVERIFY(result);
        QVERIFY2(result->completed, result->status.c_str());
        QCOMPARE(result->steps, result->totalSteps);
        const io::ResultsFile file = io::readResults(req.resultPath.toStdString());
        QVERIFY(file.complete);
        QCOMPARE(int(file.devices.size()), 2);
    }

    void valueAndGradient() {
        Runner runner;
        QSignalSpy telemetry(&runner, &Runner::telemetryReceived);
        QSignalSpy finished(&runner, &Runner::runFinished);
        QSignalSpy failed(&runner, &Runner::runFailed);
        RunRequest req;
        req.scene = test::smallScene();
        req.scene.run.tiles = {2, 1, 1};
        req.scene.run.devices = "cpu:2";
        RunSettings settings;
        settings.gradient = true;
        req.options = settings.optionsFor(req.scene);
        req.options.telemetryInterval = 0.0;
        req.resultPath = dir_.filePath("grad.h5");
        QVERIFY(runner.start(req));
        QVERIFY2(finished.wait(120000),
                 failed.isEmpty() ? "no result" : qPrintable(failed.first().first().toString()));
        const auto result = finished.first().first().value<RunResultPtr>();
        QVERIFY2(result->completed, result->status.c_str());
        QVERIFY(result->objective.has_value());
        QCOMPARE(int(result->gradients.size()), 1);
        bool sawAdjoint = false;
        for (const auto& args : telemetry)
            sawAdjoint |= args.first().value<telemetry::Report>().phase != "forward";
        QVERIFY2(sawAdjoint, "no telemetry from the reverse sweep");
        // The gradient and the telemetry timeline reach the results file.
        const io::ResultsFile file = io::readResults(req.resultPath.toStdString());
        QCOMPARE(int(file.gradients.count("taper")), 1);
        QCOMPARE(file.gradients.at("taper").data.size(), result->gradients[0].data.size());
        QVERIFY(!file.timeline.empty());
    }

    void cancelStopsEarly() {
        Runner runner;
        QSignalSpy telemetry(&runner, &Runner::telemetryReceived);
        QSignalSpy finished(&runner, &Runner::runFinished);
        QSignalSpy failed(&runner, &Runner::runFailed);
        RunRequest req;
        req.scene = longScene();
        req.options = RunSettings{}.optionsFor(req.scene);
        req.options.telemetryInterval = 0.0;
        req.options.guardInterval = 4;
        req.resultPath = dir_.filePath("cancelled.h5");
        QVERIFY(runner.start(req));
        QVERIFY(telemetry.wait(60000)); // the run is under way
        QElapsedTimer clock;
        clock.start();
        runner.cancel();
        QVERIFY2(finished.wait(60000),
                 failed.isEmpty() ? "no result" : qPrintable(failed.first().first().toString()));
        const auto result = finished.first().first().value<RunResultPtr>();
        QVERIFY(!result->completed);
        QVERIFY(result->steps < result->totalSteps);
        const io::ResultsFile file = io::readResults(req.resultPath.toStdString());
        QVERIFY(!file.complete);
        QVERIFY2(QString::fromStdString(file.status).startsWith("incomplete"), file.status.c_str());
        qInfo("cancelled after %d of %d steps, %lld ms after the request", result->steps, result->totalSteps,
              static_cast<long long>(clock.elapsed()));
    }

    /// Cancel during the reverse sweep of a value-and-grad run (the studio's Cancel) stops it within one
    /// step batch of that phase: the result and its file are marked incomplete naming the phase, the
    /// forward detectors are kept, and telemetry reported every phase with its progress and ETA.
    void cancelInReverseSweep() {
        Runner runner;
        QSignalSpy finished(&runner, &Runner::runFinished);
        QSignalSpy failed(&runner, &Runner::runFailed);
        RunRequest req;
        req.scene = longScene();
        req.scene.run.tiles = {2, 1, 1};
        req.scene.run.devices = "cpu:2";
        req.scene.gradient.method = scene::GradientMethod::Full; // forward, then adjoint steps only
        RunSettings settings;
        settings.gradient = true;
        settings.maxSteps = 400;
        req.options = settings.optionsFor(req.scene);
        req.options.telemetryInterval = 0.0;
        req.options.guardInterval = 4;
        req.resultPath = dir_.filePath("cancelled-adjoint.h5");
        int askedAt = -1, forwardReports = 0;
        telemetry::Report lastForward;
        connect(&runner, &Runner::telemetryReceived, this, [&](const telemetry::Report& r) {
            if (r.phase == "forward") {
                ++forwardReports;
                lastForward = r;
            }
            if (r.phase == "adjoint" && askedAt < 0) {
                askedAt = r.step;
                runner.cancel();
            }
        });
        QVERIFY(runner.start(req));
        QVERIFY2(finished.wait(120000),
                 failed.isEmpty() ? "no result" : qPrintable(failed.first().first().toString()));
        const auto result = finished.first().first().value<RunResultPtr>();
        QVERIFY(askedAt > 0);
        QVERIFY(!result->completed);
        QVERIFY2(QString::fromStdString(result->status).startsWith("cancelled in the adjoint phase"),
                 result->status.c_str());
        QCOMPARE(result->steps, result->totalSteps); // the forward sweep had ended
        QVERIFY(result->gradients.empty());
        QVERIFY(!result->detectors.empty());
        // Forward reports carried the whole run's plan: forward and adjoint, the ETA counting both.
        QVERIFY(forwardReports > 0);
        QCOMPARE(int(lastForward.phases.size()), 2);
        QCOMPARE(lastForward.phases[1].name, std::string("adjoint"));
        QVERIFY(lastForward.remainingSeconds >= 0);
        const auto& adjoint = result->phases.back();
        QCOMPARE(adjoint.name, std::string("adjoint"));
        QVERIFY(adjoint.step < adjoint.totalSteps);
        QVERIFY(adjoint.seconds > 0);
        // Wall time counts the reverse sweep too.
        QVERIFY(result->seconds > result->forwardSeconds);
        const io::ResultsFile file = io::readResults(req.resultPath.toStdString());
        QVERIFY(!file.complete);
        QVERIFY2(QString::fromStdString(file.status).startsWith("incomplete: cancelled in the adjoint phase"),
                 file.status.c_str());
        QCOMPARE(int(file.phases.size()), 2);
        QCOMPARE(file.phases[1].step, adjoint.step);
        QCOMPARE(file.wallSeconds, result->seconds);
    }

    /// A scene asking for GPUs on a machine without one runs on emulated CPU devices (one per tile):
    /// the runner says so once (notice) and the run completes, it does not fail.
    void gpuRequestWithoutGpuRunsOnCpuWithNotice() {
        if (cuda::deviceCount() > 0)
            QSKIP("this machine has a GPU");
        Runner runner;
        QSignalSpy notice(&runner, &Runner::notice);
        QSignalSpy started(&runner, &Runner::runStarted);
        QSignalSpy finished(&runner, &Runner::runFinished);
        QSignalSpy failed(&runner, &Runner::runFailed);
        RunRequest req;
        req.scene = test::smallScene();
        req.scene.run.tiles = {2, 1, 1};
        req.scene.run.devices = "cuda:all";
        req.options = RunSettings{}.optionsFor(req.scene); // RunOptions::fromScene: falls back to CPU
        QCOMPARE(int(req.options.backend), int(run::Backend::Cpu));
        QCOMPARE(req.options.devices, 2);
        QVERIFY(runner.start(req));
        QCOMPARE(notice.count(), 1);
        QCOMPARE(started.count(), 1);
        const QString text = notice.first().first().toString();
        QVERIFY2(text.startsWith("run.devices asks for GPUs (cuda:all) but ") &&
                     text.contains(QString::fromStdString(cuda::unavailableReason())),
                 qPrintable(text));
        QVERIFY2(finished.wait(120000),
                 failed.isEmpty() ? "no result" : qPrintable(failed.first().first().toString()));
        const auto result = finished.first().first().value<RunResultPtr>();
        QVERIFY2(result->completed, result->status.c_str());
        QCOMPARE(int(result->devices.size()), 2);
        QCOMPARE(result->devices[0].name, std::string("cpu:0"));

        // A CPU scene: no notice.
        QSignalSpy quiet(&runner, &Runner::notice);
        RunRequest cpu;
        cpu.scene = test::smallScene();
        cpu.options = RunSettings{}.optionsFor(cpu.scene);
        QVERIFY(runner.start(cpu));
        QVERIFY(finished.wait(120000));
        QCOMPARE(quiet.count(), 0);
    }

    void badConfigurationFails() {
        Runner runner;
        QSignalSpy failed(&runner, &Runner::runFailed);
        RunRequest req;
        req.scene = test::smallScene();
        req.scene.run.tiles = {4, 1, 1};
        req.scene.run.devices = "cpu:2";
        req.options = RunSettings{}.optionsFor(req.scene);
        QVERIFY(runner.start(req));
        QVERIFY(failed.wait(30000));
        QVERIFY2(failed.first().first().toString().contains("run.tiles"),
                 qPrintable(failed.first().first().toString()));
    }

    void estimatorExplainsImpossibleChoices_data() {
        QTest::addColumn<QList<int>>("tiles");
        QTest::addColumn<QString>("devices");
        QTest::addColumn<qint64>("capacity");
        QTest::addColumn<QString>("problem");
        QTest::newRow("fine") << QList<int>{2, 1, 1} << "cpu:2" << qint64(0) << "";
        QTest::newRow("too few devices") << QList<int>{2, 2, 1} << "cpu:2" << qint64(0) << "run.tiles";
        QTest::newRow("not enough memory") << QList<int>{1, 1, 1} << "cpu:1" << qint64(1024) << "needs";
    }
    void estimatorExplainsImpossibleChoices() {
        QFETCH(QList<int>, tiles);
        QFETCH(QString, devices);
        QFETCH(qint64, capacity);
        QFETCH(QString, problem);
        scene::Scene s = test::smallScene();
        s.run.tiles = {tiles[0], tiles[1], tiles[2]};
        s.run.devices = devices.toStdString();
        RunSettings settings;
        settings.deviceCapacity = capacity;
        Estimator estimator;
        QSignalSpy spy(&estimator, &Estimator::estimated);
        estimator.request(s, settings);
        QVERIFY(spy.wait(30000));
        const EstimateOutcome& out = estimator.latest();
        if (problem.isEmpty()) {
            QVERIFY2(out.problem.isEmpty(), qPrintable(out.problem));
            QVERIFY(out.estimate);
            QCOMPARE(int(out.estimate->devices.size()), tiles[0] * tiles[1] * tiles[2]);
            QVERIFY(out.estimate->maxDevicePeak() > 0);
        } else {
            QVERIFY2(out.problem.contains(problem), qPrintable(out.problem));
        }
    }

    void gradientEstimateAddsGradientState() {
        const EstimateOutcome out = Estimator::compute(test::smallScene(), RunSettings{});
        QVERIFY2(out.problem.isEmpty() && out.gradientProblem.isEmpty(),
                 qPrintable(out.problem + out.gradientProblem));
        QVERIFY(out.estimate && out.gradientEstimate);
        QVERIFY(out.gradientEstimate->maxDevicePeak() > out.estimate->maxDevicePeak());
        const auto& peaks = out.gradientEstimate->devices[0].memory.peak;
        QVERIFY(peaks[int(device::Category::Adjoint)] > 0);
        QCOMPARE(out.estimate->devices[0].memory.peak[int(device::Category::Adjoint)], std::int64_t(0));
        // Without an objective the gradient is explained, the forward run is still possible.
        scene::Scene s = test::smallScene();
        s.objective.terms.clear();
        const EstimateOutcome noObjective = Estimator::compute(s, RunSettings{});
        QVERIFY(noObjective.problem.isEmpty());
        QVERIFY2(noObjective.gradientProblem.startsWith("objective"),
                 qPrintable(noObjective.gradientProblem));
    }

    /// The run action's last check is the background estimate when that is of the scene and settings
    /// as they are now (Estimator::current), computed again otherwise: a scene edit, other settings, or
    /// a request still pending leave nothing current.
    void currentEstimateIsTheLastWord() {
        const scene::Scene s = test::smallScene();
        RunSettings settings;
        Estimator estimator;
        QVERIFY(!estimator.current(0, settings)); // nothing asked yet
        QSignalSpy spy(&estimator, &Estimator::estimated);
        estimator.request(s, settings, 7);
        QVERIFY(!estimator.current(7, settings)); // scheduled, not done
        QVERIFY(spy.wait(30000));
        const EstimateOutcome* known = estimator.current(7, settings);
        QVERIFY(known);
        const EstimateOutcome fresh = Estimator::compute(s, settings);
        QCOMPARE(known->problem, fresh.problem);
        QCOMPARE(known->gradientProblem, fresh.gradientProblem);
        QVERIFY(known->estimate && fresh.estimate);
        QCOMPARE(known->estimate->steps, fresh.estimate->steps);
        QCOMPARE(known->estimate->maxDevicePeak(), fresh.estimate->maxDevicePeak());
        QCOMPARE(known->gradientEstimate->maxDevicePeak(), fresh.gradientEstimate->maxDevicePeak());
        settings.gradient = true; // both estimates are in every outcome
        QVERIFY(estimator.current(7, settings));
        QVERIFY(!estimator.current(8, settings)); // the scene changed since
        RunSettings fewer = settings;
        fewer.maxSteps = 10; // a step limit changes the recorder's size
        QVERIFY(!estimator.current(7, fewer));
        RunSettings smaller = settings;
        smaller.deviceCapacity = 1 << 20;
        QVERIFY(!estimator.current(7, smaller));
        estimator.request(s, settings, 8);
        QVERIFY(!estimator.current(7, settings) && !estimator.current(8, settings));
        QVERIFY(spy.wait(30000));
        QVERIFY(estimator.current(8, settings));
    }

private:
    QTemporaryDir dir_;
};

QTEST_MAIN(tst_Runner)
#include "tst_Runner.moc"
