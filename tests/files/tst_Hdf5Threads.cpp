/// The HDF5 library mutex (files/Hdf5Util.hpp) guards every HDF5 use in libyee: a scene's design
/// sidecar is saved and loaded under it, so saving a scene while another thread writes results files
/// is safe, and both files read back exactly.
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "yee/core/Error.hpp"
#include "yee/files/Hdf5Util.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;
namespace h5 = files::h5;

namespace {

/// A valid scene with one design region of 8 x 8 x 1 voxels.
scene::Scene designScene() {
    scene::Scene s = scene::loadScene(YEE_SOURCE_DIR "/tests/golden/scenes/straight_waveguide.json");
    if (s.designs.size() != 1 || s.designLatentSize(0) != 64)
        throw std::runtime_error("straight_waveguide.json: expected one design of 64 voxels");
    return s;
}

/// Latent values of round `round`: distinct per round and per voxel, in [0, 1].
std::vector<double> latentFor(int round, std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = double((round * 131 + int(i) * 17) % 1009) / 1008.0;
    return v;
}

/// A run result whose detector array is distinct per round.
run::RunResult resultFor(int round) {
    run::RunResult r;
    r.completed = true;
    r.status = "completed";
    r.steps = r.totalSteps = 100 + round;
    r.gridCells = {80, 48, 40};
    solver::DetectorResult d;
    d.name = "out";
    d.type = "flux";
    solver::NamedArray a{"flux", {257}, {}};
    for (int i = 0; i < 257; ++i)
        a.data.push_back(std::sin(0.01 * i + round) * 1e-3 + round);
    d.arrays = {a};
    r.detectors = {d};
    return r;
}

/// Runs `body` on a new thread that stores any exception in `failure` (joined on destruction, also
/// when a failed check returns early).
template <class F> std::jthread spawn(std::exception_ptr& failure, F body) {
    return std::jthread([&failure, body] {
        try {
            body();
        } catch (...) {
            failure = std::current_exception();
        }
    });
}

/// Waits (up to 10 s) until some Session found the library mutex held since `before`.
bool waitForContention(std::uint64_t before) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (h5::sessionStats().contended == before) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

QString message(const std::exception_ptr& e) {
    return e ? QString::fromStdString(describe(e)) : QString();
}

} // namespace

class tst_Hdf5Threads : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }

private slots:
    /// saveScene writes the sidecar only inside a Session: while the test holds the library mutex,
    /// the saving thread waits on it (counted as contention) and has written no sidecar yet.
    void sidecarSaveTakesTheLibraryMutex() {
        scene::Scene s = designScene();
        s.designs[0].latent = latentFor(1, 64);
        const std::string json = path("held.json");
        std::atomic<bool> done{false};
        std::exception_ptr failure;
        std::jthread saver;
        {
            std::unique_lock<std::mutex> held(h5::libraryMutex());
            const std::uint64_t before = h5::sessionStats().contended;
            saver = spawn(failure, [&] {
                scene::saveScene(s, json);
                done = true;
            });
            QVERIFY2(waitForContention(before), "saveScene never waited for the HDF5 library mutex");
            QVERIFY(!done);
            QVERIFY(!QFile::exists(dir_.filePath("held.h5")));
        }
        saver.join();
        QVERIFY2(!failure, qPrintable(message(failure)));
        QVERIFY(done);
        QCOMPARE(scene::loadScene(json).designs[0].latent, s.designs[0].latent);
    }

    /// loadScene reads the sidecar only inside a Session as well.
    void sidecarLoadTakesTheLibraryMutex() {
        scene::Scene s = designScene();
        s.designs[0].latent = latentFor(2, 64);
        const std::string json = path("load.json");
        scene::saveScene(s, json);
        std::atomic<bool> done{false};
        std::exception_ptr failure;
        std::vector<double> loaded;
        std::jthread loader;
        {
            std::unique_lock<std::mutex> held(h5::libraryMutex());
            const std::uint64_t before = h5::sessionStats().contended;
            loader = spawn(failure, [&] {
                loaded = scene::loadScene(json).designs[0].latent;
                done = true;
            });
            QVERIFY2(waitForContention(before), "loadScene never waited for the HDF5 library mutex");
            QVERIFY(!done);
        }
        loader.join();
        QVERIFY2(!failure, qPrintable(message(failure)));
        QCOMPARE(loaded, s.designs[0].latent);
    }

    /// One thread saves and reloads a scene with a design sidecar, another writes and reads back a
    /// results file, 100 rounds each at the same time: every file reads back exactly, and each of the
    /// 4 operations per round took exactly one Session.
    void sceneAndResultsOnTwoThreads() {
        constexpr int kRounds = 100;
        const scene::Scene base = designScene();
        const std::string sceneJson = scene::sceneToJson(base);
        const std::string json = path("busy.json");
        const std::string results = path("busy_results.h5");
        int sceneMismatches = 0;
        int resultMismatches = 0;
        std::exception_ptr sceneFailure;
        std::exception_ptr resultsFailure;
        const std::uint64_t before = h5::sessionStats().entered;

        std::jthread scenes = spawn(sceneFailure, [&] {
            scene::Scene s = base;
            for (int round = 0; round < kRounds; ++round) {
                s.designs[0].latent = latentFor(round, 64);
                scene::saveScene(s, json);
                if (scene::loadScene(json).designs[0].latent != s.designs[0].latent)
                    ++sceneMismatches;
            }
        });
        std::jthread writer = spawn(resultsFailure, [&] {
            for (int round = 0; round < kRounds; ++round) {
                const run::RunResult r = resultFor(round);
                io::writeResults(results, base, sceneJson, r);
                const io::ResultsFile f = io::readResults(results);
                const solver::DetectorResult* d = f.detector("out");
                if (f.steps != r.steps || !d || !d->find("flux") ||
                    d->find("flux")->data != r.detectors[0].arrays[0].data || f.sceneJson != sceneJson)
                    ++resultMismatches;
            }
        });
        scenes.join();
        writer.join();

        QVERIFY2(!sceneFailure, qPrintable(message(sceneFailure)));
        QVERIFY2(!resultsFailure, qPrintable(message(resultsFailure)));
        QCOMPARE(sceneMismatches, 0);
        QCOMPARE(resultMismatches, 0);
        QCOMPARE(h5::sessionStats().entered - before, std::uint64_t(4 * kRounds));
        // The last round of each is on disk, whole.
        QCOMPARE(scene::loadScene(json).designs[0].latent, latentFor(kRounds - 1, 64));
        QCOMPARE(io::readResults(results).detector("out")->find("flux")->data,
                 resultFor(kRounds - 1).detectors[0].arrays[0].data);
    }
};

QTEST_APPLESS_MAIN(tst_Hdf5Threads)
#include "tst_Hdf5Threads.moc"
