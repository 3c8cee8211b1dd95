/// The reverse sweep as a first-class phase: per-phase progress and wall time in telemetry, the run
/// result and the results file; a guard (cancel all-reduce) every guard interval in every phase; cancel
/// in the forward, reconstruct and adjoint phases stops within one batch and leaves a valid results file
/// marked incomplete, with the forward detectors intact.
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cstring>
#include <mutex>

#include "yee/io/ResultsWriter.hpp"
#include "yee/run/Run.hpp"

// After Run.hpp: GradScene.hpp uses its types.
#include "gradient/GradScene.hpp"

using namespace yee;
using namespace yee::testing;
using comm::Kind;
using comm::Phase;

namespace {

constexpr int kGuard = 8;

struct Observed {
    std::mutex m;
    std::vector<telemetry::Report> reports;
};

run::RunOptions gradOptions(const scene::Scene& s, std::array<int, 3> tiles) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = run::Precision::Float64;
    o.tiles = tiles;
    o.devices = tiles[0] * tiles[1] * tiles[2];
    o.gradient = true;
    o.threadsPerDevice = 1;
    o.guardInterval = kGuard;
    o.telemetryInterval = 0; // every guard step reports
    return o;
}

scene::Scene sceneFor(const QString& method) {
    GradSceneOptions go;
    go.nx = 48;
    go.lossy = method != "reversible";
    go.steps = 40;
    scene::Scene s = gradScene(go);
    setGradientMethod(s, method.toStdString());
    return s;
}

const telemetry::PhaseProgress* phaseOf(const std::vector<telemetry::PhaseProgress>& ps, const char* name) {
    for (const auto& p : ps)
        if (p.name == name)
            return &p;
    return nullptr;
}

} // namespace

class tst_SweepPhases : public QObject {
    Q_OBJECT
private slots:
    void phasesReported_data();
    void phasesReported();
    void cancelInEveryPhase_data();
    void cancelInEveryPhase();
};

void tst_SweepPhases::phasesReported_data() {
    QTest::addColumn<QString>("method");
    for (const char* m : {"full", "checkpointed", "reversible"})
        QTest::newRow(m) << QString(m);
}

/// Every phase is planned, reported while it runs (progress, rate, the run's ETA) and timed; the guard of
/// each reverse phase is one all-reduce per guard interval, on every device alike.
void tst_SweepPhases::phasesReported() {
    QFETCH(QString, method);
    const scene::Scene s = sceneFor(method);
    run::RunOptions o = gradOptions(s, {2, 1, 1});
    Observed seen;
    o.onTelemetry = [&](const telemetry::Report& r) {
        std::lock_guard<std::mutex> lk(seen.m);
        seen.reports.push_back(r);
    };
    const run::RunResult r = run::run(s, o);
    QVERIFY2(r.completed, r.status.c_str());
    const int N = r.totalSteps;
    QCOMPARE(N, 40);

    // ---- the result: every phase, complete, timed ----
    const bool recompute = method == "checkpointed";
    QCOMPARE(int(r.phases.size()), recompute ? 3 : 2);
    QCOMPARE(r.phases.front().name, std::string("forward"));
    QCOMPARE(r.phases.back().name, std::string("adjoint"));
    double sum = 0;
    for (const auto& ph : r.phases) {
        QCOMPARE(ph.step, ph.totalSteps);
        QVERIFY2(ph.seconds > 0, ph.name.c_str());
        sum += ph.seconds;
    }
    QCOMPARE(phaseOf(r.phases, "adjoint")->totalSteps, std::int64_t(N));
    if (recompute) {
        // The planned recomputation is exactly what the sweep did.
        QCOMPARE(phaseOf(r.phases, "reconstruct")->totalSteps, r.recomputedSteps);
        QVERIFY(r.recomputedSteps > N);
    }
    // Wall time covers the whole run: forward and reverse sweep, and the phases add up to it.
    QVERIFY(r.seconds >= r.forwardSeconds + r.backwardSeconds - 1e-9);
    QVERIFY2(std::abs(sum - r.seconds) <= 0.05 * r.seconds + 2e-3,
             qPrintable(QString("phases %1 s, run %2 s").arg(sum).arg(r.seconds)));

    // ---- the guard: one all-reduce per interval of each phase, none after a phase's last step ----
    const std::int64_t planned = recompute ? r.recomputedSteps : 0;
    for (const auto& d : r.devices) {
        QCOMPARE(d.comm.callsOf(Phase::Adjoint, Kind::AllReduce), std::int64_t((N - 1) / kGuard));
        QCOMPARE(d.comm.callsOf(Phase::Reconstruct, Kind::AllReduce),
                 planned > 0 ? (planned - 1) / kGuard : std::int64_t(0));
    }

    // ---- live reports: each reverse phase reported with its progress, the run's ETA falling to 0 ----
    int adjointReports = 0, reconstructReports = 0;
    std::int64_t lastAdjoint = 0;
    for (const auto& rep : seen.reports) {
        QCOMPARE(int(rep.phases.size()), int(r.phases.size()));
        if (rep.phase == "adjoint") {
            ++adjointReports;
            QVERIFY(rep.step > lastAdjoint);
            lastAdjoint = rep.step;
            QCOMPARE(rep.totalSteps, N);
            QCOMPARE(rep.phases.front().step, std::int64_t(N)); // the forward phase is done
            QVERIFY(rep.stepsPerSecond > 0);
            QVERIFY(rep.remainingSeconds >= 0);
        }
        if (rep.phase == "reconstruct")
            ++reconstructReports;
    }
    QCOMPARE(adjointReports, (N - 1) / kGuard + 1); // every guard, and the end
    QCOMPARE(lastAdjoint, std::int64_t(N));
    QCOMPARE(seen.reports.back().remainingSeconds, 0.0);
    QCOMPARE(reconstructReports, int(planned > 0 ? (planned - 1) / kGuard : 0));

    // ---- the results file: whole-run wall time and the phase table ----
    QTemporaryDir dir;
    const std::string path = dir.filePath("r.h5").toStdString();
    io::writeResults(path, s, "{}", r);
    const io::ResultsFile f = io::readResults(path);
    QCOMPARE(f.wallSeconds, r.seconds);
    QCOMPARE(int(f.phases.size()), int(r.phases.size()));
    for (std::size_t i = 0; i < f.phases.size(); ++i) {
        QCOMPARE(f.phases[i].name, r.phases[i].name);
        QCOMPARE(f.phases[i].step, r.phases[i].step);
        QCOMPARE(f.phases[i].totalSteps, r.phases[i].totalSteps);
        QCOMPARE(f.phases[i].seconds, r.phases[i].seconds);
    }
}

void tst_SweepPhases::cancelInEveryPhase_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("phase");
    QTest::addColumn<QString>("tier");
    QTest::newRow("full forward") << "full"
                                  << "forward"
                                  << "device";
    QTest::newRow("full adjoint") << "full"
                                  << "adjoint"
                                  << "device";
    QTest::newRow("checkpointed reconstruct") << "checkpointed"
                                              << "reconstruct"
                                              << "device";
    QTest::newRow("checkpointed adjoint") << "checkpointed"
                                          << "adjoint"
                                          << "device";
    QTest::newRow("reversible adjoint") << "reversible"
                                        << "adjoint"
                                        << "device";
    // The staged recorder's worker thread is stopped cleanly by a cancel in the middle of the sweep.
    QTest::newRow("reversible host tier adjoint") << "reversible"
                                                  << "adjoint"
                                                  << "host";
}

/// Cancel requested at the first report of a phase stops at that phase's next guard step (one batch
/// later) on every tile; the run is marked incomplete naming the phase, the forward detectors equal
/// those of a run never cancelled, no gradient is given, and the results file is valid.
void tst_SweepPhases::cancelInEveryPhase() {
    QFETCH(QString, method);
    QFETCH(QString, phase);
    QFETCH(QString, tier);
    scene::Scene s = sceneFor(method);
    s.gradient.tier = tier.toStdString();
    const run::RunResult whole = run::run(s, gradOptions(s, {2, 1, 1}));
    QVERIFY(whole.completed);

    run::RunOptions o = gradOptions(s, {2, 1, 1});
    std::atomic<bool> cancel{false};
    std::int64_t askedAt = -1;
    o.cancel = &cancel;
    o.onTelemetry = [&](const telemetry::Report& r) {
        if (askedAt < 0 && r.phase == phase.toStdString()) {
            askedAt = r.step;
            cancel = true;
        }
    };
    const run::RunResult r = run::run(s, o);
    QVERIFY(askedAt > 0);
    QVERIFY(!r.completed);
    QVERIFY2(QString::fromStdString(r.status).startsWith("cancelled"), r.status.c_str());
    const telemetry::PhaseProgress* ph = phaseOf(r.phases, phase.toLatin1().constData());
    QVERIFY(ph);
    // Within one batch: stopped at the next guard step of whichever phase ran next (checkpointed sweeps
    // interleave recomputation and adjoint steps), at most one batch further into the phase asked in.
    QVERIFY(ph->step > askedAt && ph->step <= askedAt + kGuard);
    QVERIFY(ph->step < ph->totalSteps);
    const telemetry::PhaseProgress* stoppedIn = nullptr;
    for (const auto& p : r.phases)
        if (r.status.find("in the " + p.name + " phase at step " + std::to_string(p.step) + " of") !=
            std::string::npos)
            stoppedIn = &p;
    if (phase != "forward") {
        QVERIFY2(stoppedIn, r.status.c_str());
        QCOMPARE(stoppedIn->step % kGuard, std::int64_t(0));
    }
    if (method != "checkpointed")
        QCOMPARE(ph->step, askedAt + kGuard); // one phase only: exactly one batch later
    QVERIFY(r.gradients.empty());
    if (phase == "forward") {
        QCOMPARE(r.steps, int(askedAt + kGuard));
    } else {
        QCOMPARE(r.steps, r.totalSteps);
        // The forward sweep was complete: its detectors are those of the run never cancelled, bit for bit.
        QCOMPARE(r.detectors.size(), whole.detectors.size());
        for (std::size_t d = 0; d < r.detectors.size(); ++d)
            for (const auto& a : whole.detectors[d].arrays) {
                const solver::NamedArray* found = r.detectors[d].find(a.name);
                QVERIFY(found);
                const auto& b = *found;
                QCOMPARE(b.data.size(), a.data.size());
                QVERIFY(std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(double)) == 0);
            }
        QCOMPARE(r.objective.has_value(), true);
        QCOMPARE(*r.objective, *whole.objective);
    }
    // Wall time still covers what ran, per phase.
    double sum = 0;
    for (const auto& p : r.phases)
        sum += p.seconds;
    QVERIFY(std::abs(sum - r.seconds) <= 0.05 * r.seconds + 2e-3);

    QTemporaryDir dir;
    const std::string path = dir.filePath("cancelled.h5").toStdString();
    io::writeResults(path, s, "{}", r);
    const io::ResultsFile f = io::readResults(path);
    QVERIFY(!f.complete);
    QVERIFY2(QString::fromStdString(f.status).startsWith("incomplete: cancelled"), f.status.c_str());
    QVERIFY(f.gradients.empty());
    QCOMPARE(int(f.detectors.size()), int(r.detectors.size()));
    QCOMPARE(f.phases.size(), r.phases.size());
}

QTEST_APPLESS_MAIN(tst_SweepPhases)
#include "tst_sweep_phases.moc"
