/// Results file: every field survives a write/read round trip; failures leave nothing half-written.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>

#include "yee/core/Error.hpp"
#include "yee/files/AtomicFile.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;

namespace {

scene::Scene makeScene() {
    scene::Scene s;
    s.name = "round trip \xc2\xb5m scene";
    s.cellUm = 0.05;
    s.domainSize = {1.0, 0.5, 0.5};
    s.materials.push_back({"glass", 2.25, 1.0, 0.0});
    s.background = "glass";
    return s;
}

solver::NamedArray array(std::string name, std::vector<std::int64_t> shape) {
    solver::NamedArray a{std::move(name), std::move(shape), {}};
    std::int64_t n = 1;
    for (auto d : a.shape)
        n *= d;
    for (std::int64_t i = 0; i < n; ++i)
        a.data.push_back(std::sin(0.1 * double(i)) * 1e-3 + double(i));
    return a;
}

solver::DeviceSummary summary(int i) {
    solver::DeviceSummary d;
    d.name = "cpu:" + std::to_string(i);
    d.tile = Box{{10 * i, 0, 0}, {10 * i + 10, 8, 6}};
    d.capacity = (std::int64_t(1) << 33) + i;
    for (int c = 0; c < device::kCategoryCount; ++c) {
        d.memory.peak[std::size_t(c)] = 1000 * (c + 1) + i;
        d.memory.current[std::size_t(c)] = 10 * (c + 1) + i;
        d.memory.currentTotal += d.memory.current[std::size_t(c)];
    }
    d.memory.peakTotal = 123456789 + i;
    for (int p = 0; p < comm::kPhaseCount; ++p)
        for (int k = 0; k < comm::kKindCount; ++k) {
            d.comm.calls[std::size_t(p)][std::size_t(k)] = 100 * p + 10 * k + i;
            d.comm.bytes[std::size_t(p)][std::size_t(k)] = (std::int64_t(1) << 40) + 7 * p + k + i;
        }
    return d;
}

run::RunResult makeResult() {
    run::RunResult r;
    r.completed = true;
    r.status = "completed";
    r.steps = 420;
    r.totalSteps = 420;
    r.dt = 0.5715767664977295;
    r.dtFs = 0.0953237;
    r.seconds = 1.25;
    r.cellUpdates = 420LL * 20 * 8 * 6;
    r.gridCells = {20, 8, 6};
    solver::DetectorResult flux;
    flux.name = "out";
    flux.type = "flux";
    flux.arrays = {array("time_fs", {420}), array("flux", {420}), array("phasor_re", {3, 2}),
                   array("scalar", {})};
    flux.attrs = {{"normal", 0}, {"direction", 1}, {"area_um2", 0.25}};
    solver::DetectorResult probe;
    probe.name = "a probe";
    probe.type = "probe";
    probe.arrays = {array("Ez", {420}), array("empty", {0})};
    r.detectors = {flux, probe};
    r.objective = -3.5e-7;
    r.devices = {summary(0), summary(1)};
    return r;
}

telemetry::Report report(int step, int devices) {
    telemetry::Report t;
    t.phase = step < 300 ? "forward" : "adjoint";
    t.step = step;
    t.totalSteps = 420;
    t.elapsedSeconds = 0.01 * step;
    t.stepsPerSecond = 100.0 + step;
    t.cellUpdatesPerSecond = 1e8 + step;
    for (int d = 0; d < devices; ++d) {
        telemetry::DeviceReport dr;
        dr.device = d;
        dr.name = "cpu:" + std::to_string(d);
        dr.memory.currentTotal = 1000 * step + d;
        t.devices.push_back(dr);
    }
    return t;
}

void compareArrays(const solver::NamedArray& got, const solver::NamedArray& want) {
    QCOMPARE(got.name, want.name);
    QCOMPARE(got.shape, want.shape);
    QCOMPARE(got.data, want.data); // float64 storage: exact
}

} // namespace

class tst_ResultsWriter : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }

private slots:
    void roundTripKeepsEveryField() {
        const scene::Scene s = makeScene();
        const run::RunResult r = makeResult();
        io::ResultsExtras extras;
        extras.gradients["taper"] = array("taper", {4, 3, 2});
        extras.gradients["ring"] = array("ring", {5});
        extras.timeline = {report(10, 2), report(200, 2), report(420, 2)};
        extras.snapshotSeries["field"] = "run.fields/field.vtkhdf.series";
        const std::string json = "{\"format\": \"yee-scene\", \"name\": \"\xc2\xb5\"}";
        const std::string file = path("all.h5");

        io::writeResults(file, s, json, r, extras);
        const io::ResultsFile f = io::readResults(file);

        QCOMPARE(f.version, io::kResultsVersion);
        QCOMPARE(f.yeeVersion, std::string(YEE_VERSION));
        QCOMPARE(f.sceneHash, scene::sceneHash(s));
        QCOMPARE(f.sceneName, s.name);
        QCOMPARE(f.sceneJson, json);
        QCOMPARE(f.status, std::string("complete"));
        QVERIFY(f.complete);
        QCOMPARE(f.steps, 420);
        QCOMPARE(f.totalSteps, 420);
        QCOMPARE(f.dtFs, r.dtFs);
        QCOMPARE(f.gridCells, r.gridCells);

        QCOMPARE(f.detectors.size(), std::size_t(2));
        for (std::size_t i = 0; i < 2; ++i) { // written order is kept
            const auto& got = f.detectors[i];
            const auto& want = r.detectors[i];
            QCOMPARE(got.name, want.name);
            QCOMPARE(got.type, want.type);
            QCOMPARE(got.attrs, want.attrs);
            QCOMPARE(got.arrays.size(), want.arrays.size());
            for (std::size_t a = 0; a < want.arrays.size(); ++a)
                compareArrays(got.arrays[a], want.arrays[a]);
        }
        QVERIFY(f.detector("a probe"));
        QVERIFY(!f.detector("nope"));

        QVERIFY(f.objective.has_value());
        QCOMPARE(*f.objective, *r.objective);
        QCOMPARE(f.gradients.size(), std::size_t(2));
        compareArrays(f.gradients.at("taper"), extras.gradients.at("taper"));
        compareArrays(f.gradients.at("ring"), extras.gradients.at("ring"));
        QCOMPARE(f.snapshotSeries, extras.snapshotSeries);

        QCOMPARE(f.wallSeconds, r.seconds);
        QCOMPARE(f.cellUpdates, r.cellUpdates);
        QCOMPARE(f.cellUpdatesPerSecond, double(r.cellUpdates) / r.seconds);
        QCOMPARE(f.devices.size(), r.devices.size());
        for (std::size_t d = 0; d < r.devices.size(); ++d) {
            const auto& got = f.devices[d];
            const auto& want = r.devices[d];
            QCOMPARE(got.name, want.name);
            QCOMPARE(got.tile, want.tile);
            QCOMPARE(got.capacity, want.capacity);
            QCOMPARE(got.memory.peak, want.memory.peak);
            QCOMPARE(got.memory.current, want.memory.current);
            QCOMPARE(got.memory.currentTotal, want.memory.currentTotal);
            QCOMPARE(got.memory.peakTotal, want.memory.peakTotal);
            QCOMPARE(got.comm.calls, want.comm.calls);
            QCOMPARE(got.comm.bytes, want.comm.bytes);
        }

        QCOMPARE(f.timeline.size(), extras.timeline.size());
        for (std::size_t i = 0; i < f.timeline.size(); ++i) {
            const auto& got = f.timeline[i];
            const auto& want = extras.timeline[i];
            QCOMPARE(got.phase, want.phase);
            QCOMPARE(got.step, want.step);
            QCOMPARE(got.elapsedSeconds, want.elapsedSeconds);
            QCOMPARE(got.stepsPerSecond, want.stepsPerSecond);
            QCOMPARE(got.cellUpdatesPerSecond, want.cellUpdatesPerSecond);
            QCOMPARE(got.deviceMemory, (std::vector<std::int64_t>{want.devices[0].memory.currentTotal,
                                                                  want.devices[1].memory.currentTotal}));
        }
    }

    void incompleteRunIsMarked() {
        run::RunResult r = makeResult();
        r.completed = false;
        r.status = "cancelled";
        r.steps = 128;
        r.objective.reset();
        const std::string file = path("partial.h5");
        io::writeResults(file, makeScene(), "{}", r);
        const io::ResultsFile f = io::readResults(file);
        QVERIFY(!f.complete);
        QCOMPARE(f.status, std::string("incomplete: cancelled"));
        QCOMPARE(f.steps, 128);
        QVERIFY(!f.objective.has_value());
        QVERIFY(f.gradients.empty());
        QVERIFY(f.timeline.empty());
        QVERIFY(f.snapshotSeries.empty());
        QCOMPARE(f.detectors.size(), std::size_t(2));
    }

    void statusText() {
        run::RunResult r;
        r.completed = true;
        QCOMPARE(io::resultsStatus(r), std::string("complete"));
        r.completed = false;
        r.status = "diverged at step 17";
        QCOMPARE(io::resultsStatus(r), std::string("incomplete: diverged at step 17"));
        r.status.clear();
        QCOMPARE(io::resultsStatus(r), std::string("incomplete: stopped"));
    }

    void emptyRunRoundTrips() {
        run::RunResult r;
        const std::string file = path("empty.h5");
        io::writeResults(file, scene::Scene{}, "", r);
        const io::ResultsFile f = io::readResults(file);
        QCOMPARE(f.sceneJson, std::string());
        QVERIFY(f.detectors.empty());
        QVERIFY(f.devices.empty());
        QCOMPARE(f.status, std::string("incomplete: stopped"));
    }

    void failedWriteKeepsPreviousFile() {
        const std::string file = path("kept.h5");
        io::writeResults(file, makeScene(), "{\"first\": true}", makeResult());
        run::RunResult bad = makeResult();
        bad.detectors[1].name = "bad/name"; // refused while the file is half written
        QVERIFY_THROWS_EXCEPTION(yee::RunError, io::writeResults(file, makeScene(), "{}", bad));
        QCOMPARE(io::readResults(file).sceneJson, std::string("{\"first\": true}"));
        QCOMPARE(QDir(dir_.path()).entryList({"kept.h5*"}, QDir::Files), QStringList{"kept.h5"});
    }

    void mismatchedArrayShapeIsRefused() {
        run::RunResult r = makeResult();
        r.detectors[0].arrays[0].shape = {7};
        QVERIFY_THROWS_EXCEPTION(yee::RunError, io::writeResults(path("shape.h5"), makeScene(), "{}", r));
        QVERIFY(!QFile::exists(QString::fromStdString(path("shape.h5"))));
    }

    void unwritableTargetIsARunError() {
        QVERIFY_THROWS_EXCEPTION(yee::RunError,
                                 io::writeResults(path("missing/dir/x.h5"), makeScene(), "{}", makeResult()));
    }

    void readingForeignFilesIsAnInputError_data() {
        QTest::addColumn<QString>("content");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing") << QString() << "no such file";
        QTest::newRow("text") << "hello"
                              << "not an HDF5 file";
    }

    void readingForeignFilesIsAnInputError() {
        QFETCH(QString, content);
        QFETCH(QString, message);
        const std::string file = path("foreign.h5");
        QFile::remove(QString::fromStdString(file));
        if (!content.isEmpty())
            files::writeTextAtomically(file, content.toStdString());
        try {
            io::readResults(file);
            QFAIL("no exception");
        } catch (const yee::InputError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
            QVERIFY2(QString(e.what()).contains("foreign.h5"), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(tst_ResultsWriter)
#include "tst_ResultsWriter.moc"
