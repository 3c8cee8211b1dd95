/// Multi-component snapshots on the staggered Yee grid: every component combination (one, the E
/// triple, mixed E and H, all six), planes and volumes, downsampled, on 1x1x1, 2x1x1 and 1x2x2 tiles.
/// Each component must land in a series whose image origin is that component's own sample position,
/// and every tile grid must give the single-domain files bit for bit.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

#include "physics/SceneBuilder.hpp"
#include "yee/io/VtkHdfWriter.hpp"
#include "yee/run/Run.hpp"
#include "yee/solver/Plan.hpp"

using namespace yee;

namespace {

const std::vector<std::vector<std::string>> kCombos = {
    {"Ez"}, {"Ex", "Ey", "Ez"}, {"Ez", "Hx"}, {"Hy", "Ex"}, {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"}};

/// PML on x and y, periodic z; a dipole; one plane and one volume snapshot per component combination,
/// downsampled by 2 (plane) and 3 (volume), two frames each.
scene::Scene gridScene() {
    using scene::BoundaryType;
    scene::Scene s =
        testing::boxScene(20, 16, 12, 0.05, BoundaryType::Pml, BoundaryType::Pml, BoundaryType::Periodic, 4);
    s.sources.push_back(testing::dipole("dip", {0.02, -0.03, 0.01}, {0.3, 0.5, 1.0}, 0.6, 0.3));
    const int steps = 24;
    for (std::size_t c = 0; c < kCombos.size(); ++c) {
        scene::Detector plane = testing::detector("plane" + std::to_string(c), scene::DetectorType::Snapshot,
                                                  {0.01, 0.0, 0.02}, {0.6, 0.5, 0});
        plane.components = kCombos[c];
        plane.every = steps / 2;
        plane.downsample = 2;
        s.detectors.push_back(plane);
        scene::Detector vol = testing::detector("vol" + std::to_string(c), scene::DetectorType::Snapshot,
                                                {0, 0.02, 0}, {0.7, 0.55, 0.6});
        vol.components = kCombos[c];
        vol.every = steps / 2;
        vol.downsample = 3;
        s.detectors.push_back(vol);
    }
    s.durationFs = (steps - 0.5) * s.dtFs();
    return s;
}

struct Written {
    std::map<std::string, std::string> series;               ///< series name -> index path
    std::map<std::string, std::vector<io::VtkImage>> images; ///< series name -> frames
    std::vector<solver::Snapshot> snapshots;                 ///< as assembled by the run
};

Written runAndWrite(const scene::Scene& s, std::array<int, 3> tiles, const std::string& dir) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = run::Precision::Float64;
    o.tiles = tiles;
    o.devices = tiles[0] * tiles[1] * tiles[2];
    o.threadsPerDevice = 1;
    run::RunResult r = run::run(s, o);
    Written w;
    w.snapshots = r.snapshots;
    w.series = io::writeSnapshotSeries(dir, r.snapshots);
    for (const auto& [name, index] : w.series)
        for (const auto& e : io::readSeriesIndex(index))
            w.images[name].push_back(io::readVtkHdf(dir + "/" + e.name));
    return w;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

} // namespace

class tst_SnapshotGrids : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void everyComponentOnItsOwnGrid() {
        const scene::Scene s = gridScene();
        const auto plan = solver::makePlan(s, solver::PlanOptions{{1, 1, 1}, -1});
        const solver::Geometry& g = plan->geom;
        const Written w = runAndWrite(s, {1, 1, 1}, tmp_.filePath("single").toStdString());

        for (std::size_t c = 0; c < kCombos.size(); ++c)
            for (const std::string kind : {"plane", "vol"}) {
                const std::string det = kind + std::to_string(c);
                const int down = kind == "plane" ? 2 : 3;
                const auto& comps = kCombos[c];
                // One component: one series under the detector's name. More: one per component.
                std::vector<std::pair<std::string, std::string>> expect; // series name, component
                if (comps.size() == 1)
                    expect.push_back({det, comps[0]});
                else
                    for (const auto& comp : comps)
                        expect.push_back({det + "." + comp, comp});
                QCOMPARE(std::count_if(w.series.begin(), w.series.end(),
                                       [&](const auto& kv) {
                                           return kv.first == det || kv.first.rfind(det + ".", 0) == 0;
                                       }),
                         std::ptrdiff_t(expect.size()));
                std::array<double, 3> originE{};
                for (std::size_t q = 0; q < expect.size(); ++q) {
                    const auto& [name, comp] = expect[q];
                    QVERIFY2(w.images.count(name), name.c_str());
                    const auto& frames = w.images.at(name);
                    QCOMPARE(frames.size(), std::size_t(2));
                    const int ci = solver::componentFromName(comp);
                    for (const auto& img : frames) {
                        QCOMPARE(img.pointData.size(), std::size_t(1));
                        QVERIFY(img.pointData.count(comp));
                        for (int a = 0; a < 3; ++a)
                            QCOMPARE(img.spacing[a], g.cellUm * down);
                    }
                    // The origins of two components differ by exactly their Yee offsets.
                    const auto& o = frames.front().origin;
                    if (q == 0)
                        originE = o;
                    const int c0 = solver::componentFromName(expect[0].second);
                    for (int a = 0; a < 3; ++a) {
                        const double want =
                            (solver::Geometry::offset(ci, a) - solver::Geometry::offset(c0, a)) * g.cellUm;
                        QVERIFY2(std::abs((o[a] - originE[a]) - want) < 1e-12,
                                 qPrintable(QString("%1 axis %2").arg(name.c_str()).arg(a)));
                        // And the origin is a sample position of that component.
                        const double cells = (o[a] - g.loUm[a]) / g.cellUm - solver::Geometry::offset(ci, a);
                        QVERIFY(std::abs(cells - std::round(cells)) < 1e-9);
                    }
                    // The data are the run's samples, not zeros.
                    float peak = 0;
                    for (float v : frames.back().pointData.at(comp))
                        peak = std::max(peak, std::abs(v));
                    QVERIFY2(peak > 0, name.c_str());
                }
            }
    }

    void tilesGiveTheSameFiles_data() {
        QTest::addColumn<int>("tx");
        QTest::addColumn<int>("ty");
        QTest::addColumn<int>("tz");
        QTest::newRow("2x1x1") << 2 << 1 << 1;
        QTest::newRow("1x2x2") << 1 << 2 << 2;
    }

    void tilesGiveTheSameFiles() {
        QFETCH(int, tx);
        QFETCH(int, ty);
        QFETCH(int, tz);
        const scene::Scene s = gridScene();
        const Written one = runAndWrite(s, {1, 1, 1}, tmp_.filePath("one").toStdString());
        const Written many = runAndWrite(
            s, {tx, ty, tz}, tmp_.filePath(QString("t%1%2%3").arg(tx).arg(ty).arg(tz)).toStdString());
        QCOMPARE(many.images.size(), one.images.size());
        for (const auto& [name, frames] : one.images) {
            QVERIFY2(many.images.count(name), name.c_str());
            const auto& other = many.images.at(name);
            QCOMPARE(other.size(), frames.size());
            for (std::size_t f = 0; f < frames.size(); ++f) {
                QCOMPARE(other[f].dims, frames[f].dims);
                QCOMPARE(other[f].origin, frames[f].origin);
                QCOMPARE(other[f].spacing, frames[f].spacing);
                for (const auto& [comp, data] : frames[f].pointData)
                    QVERIFY2(sameBits(other[f].pointData.at(comp), data), name.c_str());
            }
        }
    }

    void rerunInTheOtherLayoutLeavesNoStaleFiles() {
        const std::string dir = tmp_.filePath("relayout").toStdString();
        auto make = [](const char* component, std::array<double, 3> origin) {
            solver::Snapshot s;
            s.detector = "d";
            s.component = component;
            s.step = 5;
            s.dims = {2, 2, 1};
            s.originUm = origin;
            s.spacingUm = {0.1, 0.1, 0.1};
            s.data = {1, 2, 3, 4};
            return s;
        };
        const solver::Snapshot ex = make("Ex", {0, 0, 0});
        const solver::Snapshot ey = make("Ey", {-0.05, 0.05, 0});
        io::writeSnapshotSeries(dir, {ex, ey});
        QStringList files = QDir(QString::fromStdString(dir)).entryList(QDir::Files, QDir::Name);
        QCOMPARE(files, (QStringList{"d.Ex.vtkhdf.series", "d.Ex_000005.vtkhdf", "d.Ey.vtkhdf.series",
                                     "d.Ey_000005.vtkhdf"}));
        io::writeSnapshotSeries(dir, {ex});
        files = QDir(QString::fromStdString(dir)).entryList(QDir::Files, QDir::Name);
        QCOMPARE(files, (QStringList{"d.vtkhdf.series", "d_000005.vtkhdf"}));
    }
};

QTEST_GUILESS_MAIN(tst_SnapshotGrids)
#include "tst_SnapshotGrids.moc"
