// Rasteriser: volumes from fill fractions, Kottke averaging at a slab, polygon extrusion, design
// lookup, object order, and speed on a 200^3 grid.
#include <QtTest/QtTest>

#include <QElapsedTimer>

#include <atomic>
#include <cmath>
#include <cstring>
#include <numbers>
#include <thread>
#include <vector>

#include "yee/scene/Rasterizer.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee::scene;

namespace {

/// A periodic box of n^3 cells of `cell` um centred at the origin, vacuum background.
Scene periodicBox(int n, double cell) {
    Scene s;
    s.cellUm = cell;
    s.domainSize = {n * cell, n * cell, n * cell};
    for (auto& b : s.boundaries)
        b.type = BoundaryType::Periodic;
    s.durationFs = 10;
    return s;
}

/// Sum over all cells of the volume fraction of material m (cell-centred cubes), in um^3.
double volumeOf(const Rasterizer& r, const Scene& s, int m) {
    const auto n = s.gridCells();
    double sum = 0;
    for (int k = 0; k < n[2]; ++k)
        for (int j = 0; j < n[1]; ++j)
            for (int i = 0; i < n[0]; ++i)
                sum += r.volumeFractions({i + 0.5, j + 0.5, k + 0.5})[std::size_t(m)];
    return sum * s.cellUm * s.cellUm * s.cellUm;
}

bool near(double a, double b, double rel) {
    return std::fabs(a - b) <= rel * std::fabs(b);
}

} // namespace

class tst_Rasterizer : public QObject {
    Q_OBJECT

private slots:
    void sphereVolume_data() {
        QTest::addColumn<double>("radius");
        QTest::addColumn<double>("shift");
        QTest::newRow("r=0.5um, 5 cells") << 0.5 << 0.0;
        QTest::newRow("r=0.8um, off-grid centre") << 0.8 << 0.0137;
        QTest::newRow("r=0.33um, off-grid centre") << 0.33 << -0.021;
    }

    void sphereVolume() {
        QFETCH(double, radius);
        QFETCH(double, shift);
        Scene s = periodicBox(24, 0.1);
        s.materials = {{"glass", 2.25, 1, 0}};
        Object o;
        o.shape = Shape::Sphere;
        o.center = {shift, -0.5 * shift, 0.7 * shift};
        o.radius = radius;
        o.material = "glass";
        s.objects = {o};
        validateScene(s);
        const Rasterizer r(s);
        const double exact = 4.0 / 3.0 * std::numbers::pi * radius * radius * radius;
        const double got = volumeOf(r, s, 0);
        QVERIFY2(near(got, exact, 0.01), qPrintable(QString("volume %1, exact %2").arg(got).arg(exact)));
    }

    void cylinderVolume() {
        Scene s = periodicBox(24, 0.1);
        s.materials = {{"si", 12, 1, 0}};
        Object o;
        o.shape = Shape::Cylinder;
        o.center = {0.013, 0.02, -0.031};
        o.radius = 0.7;
        o.height = 0.43;
        o.axis = 1;
        o.material = "si";
        s.objects = {o};
        validateScene(s);
        const Rasterizer r(s);
        const double exact = std::numbers::pi * 0.49 * 0.43;
        QVERIFY(near(volumeOf(r, s, 0), exact, 0.01));
    }

    void polygonExtrusionArea_data() {
        QTest::addColumn<int>("axis");
        QTest::addColumn<bool>("concave");
        QTest::newRow("triangle along z") << 2 << false;
        QTest::newRow("L-shape along x") << 0 << true;
        QTest::newRow("L-shape along y") << 1 << true;
    }

    void polygonExtrusionArea() {
        QFETCH(int, axis);
        QFETCH(bool, concave);
        Scene s = periodicBox(24, 0.1);
        s.materials = {{"prism", 3, 1, 0}};
        Object o;
        o.shape = Shape::Polygon;
        o.axis = axis;
        o.height = 0.61;
        o.material = "prism";
        if (concave)
            o.vertices = {{-0.83, -0.71}, {0.77, -0.71}, {0.77, -0.12},
                          {-0.19, -0.12}, {-0.19, 0.88}, {-0.83, 0.88}};
        else
            o.vertices = {{-0.9, -0.77}, {0.85, -0.4}, {-0.1, 0.93}};
        double area2 = 0;
        for (std::size_t v = 0; v < o.vertices.size(); ++v) {
            const auto& a = o.vertices[v];
            const auto& b = o.vertices[(v + 1) % o.vertices.size()];
            area2 += a[0] * b[1] - a[1] * b[0];
        }
        const auto [lo, hi] = objectBounds(o);
        for (int a = 0; a < 3; ++a)
            o.center[a] = 0.5 * (lo[a] + hi[a]);
        o.center[axis] = 0.037;
        s.objects = {o};
        validateScene(s);
        const Rasterizer r(s);
        const double exact = 0.5 * std::fabs(area2) * o.height;
        const double got = volumeOf(r, s, 0);
        QVERIFY2(near(got, exact, 0.01), qPrintable(QString("volume %1, exact %2").arg(got).arg(exact)));
    }

    void slabBetweenYeePoints() {
        // Material "inner" (eps 2, mu 2, sigma 100) for x < 10.25 cells, background (eps 12) beyond.
        Scene s = periodicBox(20, 0.1);
        s.boundaries[0] = {BoundaryType::Pml, 2, 3, 1, 1, 0};
        s.materials = {{"inner", 2, 2, 100}, {"outer", 12, 1, 0}};
        s.background = "outer";
        Object o;
        o.shape = Shape::Box;
        o.center = {-1.0 + 0.5 * 1.025, 0, 0};
        o.size = {1.025 + 1.0, 4, 4};
        o.center[0] = -1.0 + 1.025 - 0.5 * o.size[0];
        o.material = "inner";
        s.objects = {o};
        validateScene(s);
        const Rasterizer r(s);
        const double tol = 1e-9;
        // Ex at x = 10.5: its cube [10, 11] is 1/4 A; x is the interface normal -> harmonic mean.
        CellMaterial m = r.atE(0, 10, 4, 7);
        QVERIFY(near(m.eps, 1 / (0.25 / 2 + 0.75 / 12), tol));
        QVERIFY(near(m.sigma, 25, tol));
        // Ey, Ez at x = 10: cube [9.5, 10.5] is 3/4 A; tangential -> arithmetic mean.
        QVERIFY(near(r.atE(1, 10, 4, 7).eps, 0.75 * 2 + 0.25 * 12, tol));
        QVERIFY(near(r.atE(2, 10, 4, 7).eps, 0.75 * 2 + 0.25 * 12, tol));
        QVERIFY(near(r.atE(2, 10, 4, 7).sigma, 75, tol));
        // mu at H points: Hx at x = 10 (normal, 3/4 A) harmonic; Hy at x = 10.5 (tangential, 1/4 A)
        // arithmetic.
        QVERIFY(near(r.atH(0, 10, 4, 7).mu, 1 / (0.75 / 2 + 0.25 / 1), tol));
        QVERIFY(near(r.atH(1, 10, 4, 7).mu, 0.25 * 2 + 0.75 * 1, tol));
        // Away from the interface, unchanged materials.
        QCOMPARE(r.atE(0, 3, 4, 7).eps, 2.0);
        QCOMPARE(r.atE(0, 15, 4, 7).eps, 12.0);
        QCOMPARE(r.atH(2, 15, 4, 7).mu, 1.0);
    }

    void interfaceOnCellFaceIsSharp() {
        // A face exactly on a cell face (x = 10 cells) leaves Ey/Ez points at x = 10 half-half and
        // Ex points (x = 9.5 and 10.5) unmixed.
        Scene s = periodicBox(20, 0.05);
        s.materials = {{"film", 4, 1, 0}};
        Object o;
        o.shape = Shape::Box;
        o.center = {-0.25, 0, 0};
        o.size = {0.5, 2, 2};
        o.material = "film";
        s.objects = {o};
        validateScene(s);
        const Rasterizer r(s);
        QCOMPARE(r.atE(0, 9, 3, 3).eps, 4.0);
        QCOMPARE(r.atE(0, 10, 3, 3).eps, 1.0);
        QVERIFY(near(r.atE(1, 10, 3, 3).eps, 2.5, 1e-12));
    }

    void laterObjectsOverride() {
        Scene s = periodicBox(20, 0.1);
        s.materials = {{"low", 2, 1, 0}, {"high", 5, 1, 0}};
        Object big;
        big.shape = Shape::Box;
        big.center = {0, 0, 0};
        big.size = {1.6, 1.6, 1.6};
        big.material = "low";
        Object small = big;
        small.size = {0.4, 0.4, 0.4};
        small.material = "high";
        s.objects = {big, small};
        validateScene(s);
        Rasterizer r(s);
        QCOMPARE(r.atE(0, 9, 10, 10).eps, 5.0);
        QCOMPARE(r.atE(0, 4, 10, 10).eps, 2.0);
        QCOMPARE(r.atE(0, 0, 0, 0).eps, 1.0);
        s.objects = {small, big};
        Rasterizer r2(s);
        QCOMPARE(r2.atE(0, 9, 10, 10).eps, 2.0);
    }

    void designRegion() {
        Scene s = periodicBox(20, 0.1);
        s.materials = {{"clad", 2, 1, 0}, {"core", 4, 1, 0}};
        s.background = "clad";
        Design d;
        d.name = "dev";
        d.center = {0, 0, 0};
        d.size = {0.6, 0.4, 0.2};
        d.voxelCells = {2, 2, 2};
        d.materials = {"clad", "core"};
        s.designs = {d};
        const std::size_t n = s.designLatentSize(0);
        QCOMPARE(n, std::size_t(3 * 2 * 1));
        for (std::size_t v = 0; v < n; ++v)
            s.designs[0].latent.push_back(double(v) / double(n - 1));
        validateScene(s);
        Rasterizer r(s);
        QCOMPARE(r.designBox(0), (yee::Box{{7, 8, 9}, {13, 12, 11}}));
        // Cell (9, 10, 10) is voxel (1, 1, 0) = 1 + 3 * 1 = 4.
        const DesignHit h = r.designAt(9, 10, 10);
        QCOMPARE(h.region, 0);
        QCOMPARE(h.voxel, std::int64_t(4));
        QCOMPARE(r.designAt(6, 10, 10).region, -1);
        const double rho = 4.0 / 5.0;
        for (int c = 0; c < 3; ++c) {
            QVERIFY(near(r.atE(c, 9, 10, 10).eps, 2 + rho * 2, 1e-14));
            QCOMPARE(r.atH(c, 9, 10, 10).mu, 1.0);
        }
        r.setDensity(0, std::vector<double>(n, 1.0));
        QCOMPARE(r.atE(1, 12, 8, 9).eps, 4.0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r.setDensity(0, {0.5}));
    }

    void examplesRasterise_data() {
        QTest::addColumn<QString>("file");
        for (const char* f :
             {"quick_box", "straight_waveguide", "waveguide_bend", "ring_resonator", "grating_coupler"})
            QTest::newRow(f) << QString(f);
    }

    void examplesRasterise() {
        QFETCH(QString, file);
        const Scene s = loadScene(YEE_SOURCE_DIR "/resources/scenes/" + file.toStdString() + ".json");
        const Rasterizer r(s);
        const auto n = s.gridCells();
        double lo = 1e300, hi = -1e300;
        for (int field = 0; field < 2; ++field)
            for (int c = 0; c < 3; ++c)
                r.forEach(field, c, yee::Box{{0, 0, 0}, n}, [&](int, int, int, const CellMaterial& m) {
                    lo = std::min(lo, m.eps);
                    hi = std::max(hi, m.eps);
                });
        double epsMin = 1e300, epsMax = -1e300;
        for (const auto& m : s.materials) {
            epsMin = std::min(epsMin, m.eps);
            epsMax = std::max(epsMax, m.eps);
        }
        // Averages never leave the range of the materials present.
        QVERIFY(lo >= epsMin * (1 - 1e-12) && hi <= epsMax * (1 + 1e-12));
        QVERIFY(hi > lo);
    }

    /// Rasterizer::uniformRuns(): along each run every one of the six locations takes the value of the run's
    /// first cell, bit for bit (fillRow() per cell), for every shape and axis, overlaps, off-grid faces and
    /// a design region; and the runs cover most cells (the point: counting without rasterising them).
    void uniformRunsAreUniform_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("every shape") << QString();
        for (const char* f : {"quick_box", "straight_waveguide", "waveguide_bend", "ring_resonator"})
            QTest::newRow(f) << QString(f);
    }

    void uniformRunsAreUniform() {
        QFETCH(QString, file);
        Scene s;
        if (file.isEmpty()) {
            s = periodicBox(40, 0.1);
            s.materials = {{"a", 3, 1, 0}, {"b", 2, 1.5, 10}, {"c", 5, 1, 0}};
            s.background = "a";
            const auto add = [&](Shape sh, Vec3 c, Vec3 size, double radius, int axis, const char* m) {
                Object o;
                o.shape = sh;
                o.center = c;
                o.size = size;
                o.radius = radius;
                o.axis = axis;
                o.height = size[std::size_t(axis)];
                o.material = m;
                s.objects.push_back(o);
                return &s.objects.back();
            };
            add(Shape::Box, {0, 0, -1.0}, {4, 4, 0.6}, 0, 2, "b");              // faces on the grid
            add(Shape::Box, {0.013, 0.31, 0.2}, {1.37, 0.53, 0.71}, 0, 2, "c"); // off the grid
            add(Shape::Sphere, {0.7, -0.9, 0.4}, {}, 0.63, 2, "b");
            add(Shape::Cylinder, {-0.8, 0.9, 0.0}, {0, 0, 1.7}, 0.45, 2, "c");
            add(Shape::Cylinder, {0.0, -0.2, 1.2}, {2.9, 0, 0}, 0.33, 0, "b");
            add(Shape::Cylinder, {1.1, 0.0, -0.3}, {0, 1.3, 0}, 0.27, 1, "c");
            const std::vector<std::array<double, 2>> ell = {{-0.83, -0.71}, {0.77, -0.71}, {0.77, -0.12},
                                                            {-0.19, -0.12}, {-0.19, 0.88}, {-0.83, 0.88}};
            for (int axis = 0; axis < 3; ++axis) {
                Object* o = add(Shape::Polygon, {}, {0.5, 0.5, 0.5}, 0, axis, axis == 1 ? "a" : "c");
                o->vertices = ell;
                for (auto& v : o->vertices)
                    v = {0.7 * v[0] + 0.3 * (axis - 1), 0.6 * v[1] - 0.2 * axis};
                const auto [lo, hi] = objectBounds(*o);
                for (int a = 0; a < 3; ++a)
                    o->center[std::size_t(a)] = 0.5 * (lo[std::size_t(a)] + hi[std::size_t(a)]);
                o->center[std::size_t(axis)] = 0.4 * (axis - 1) + 0.017;
            }
            Design d;
            d.name = "dev";
            d.center = {-1.0, -1.0, 0.5};
            d.size = {0.6, 0.4, 0.2};
            d.voxelCells = {2, 2, 2};
            d.materials = {"a", "c"};
            s.designs = {d};
        } else {
            s = loadScene(YEE_SOURCE_DIR "/resources/scenes/" + file.toStdString() + ".json");
        }
        validateScene(s);
        const Rasterizer r(s);
        const auto n = s.gridCells();
        std::vector<std::pair<int, int>> runs;
        std::vector<CellMaterial> row(static_cast<std::size_t>(n[0]));
        std::int64_t covered = 0, bad = 0;
        for (int k = 0; k < n[2]; ++k)
            for (int j = 0; j < n[1]; ++j) {
                r.uniformRuns(j, k, 0, n[0], runs);
                int last = 0;
                for (const auto& [a, b] : runs) {
                    QVERIFY(a >= last && b > a && b <= n[0]);
                    last = b;
                    covered += b - a;
                }
                for (int field = 0; field < 2; ++field)
                    for (int c = 0; c < 3; ++c) {
                        r.fillRow(field, c, j, k, 0, n[0], row.data());
                        for (const auto& [a, b] : runs)
                            for (int i = a + 1; i < b; ++i)
                                if (std::memcmp(&row[std::size_t(i)], &row[std::size_t(a)],
                                                sizeof(CellMaterial)))
                                    ++bad;
                    }
            }
        QCOMPARE(bad, std::int64_t(0));
        const double frac = double(covered) / (double(n[0]) * n[1] * n[2]);
        qInfo("uniform runs cover %.1f%% of the cells", 100 * frac);
        QVERIFY2(frac > 0.5, qPrintable(QString("runs cover only %1 of the cells").arg(frac)));
    }

    void speed200Cubed() {
        Scene s = periodicBox(200, 0.025);
        s.materials = {{"si", 12.11, 1, 0}, {"ox", 2.085, 1, 0}, {"metal", 1, 1, 1e6}};
        s.background = "ox";
        Object slab;
        slab.shape = Shape::Box;
        slab.center = {0, 0, -1.5};
        slab.size = {6, 6, 2};
        slab.material = "si";
        Object ball;
        ball.shape = Shape::Sphere;
        ball.center = {0.7, -0.3, 0.4};
        ball.radius = 1.1;
        ball.material = "si";
        Object rod;
        rod.shape = Shape::Cylinder;
        rod.center = {-1.2, 1.0, 0};
        rod.radius = 0.6;
        rod.height = 3;
        rod.axis = 2;
        rod.material = "metal";
        Object tri;
        tri.shape = Shape::Polygon;
        tri.axis = 1;
        tri.height = 1.0;
        tri.vertices = {{-2, 1}, {0, 2.2}, {1.5, 1.2}};
        tri.center = {-0.25, 1.7, 1.6};
        tri.material = "si";
        s.objects = {slab, ball, rod, tri};
        validateScene(s);
        QElapsedTimer t;
        t.start();
        const Rasterizer r(s);
        const auto n = s.gridCells();
        std::atomic<double> checksum{0};
        const int threads = 2;
        std::vector<std::thread> pool;
        for (int th = 0; th < threads; ++th)
            pool.emplace_back([&, th] {
                double local = 0;
                for (int field = 0; field < 2; ++field)
                    for (int c = 0; c < 3; ++c) {
                        yee::Box b{{0, 0, n[2] * th / threads}, {n[0], n[1], n[2] * (th + 1) / threads}};
                        r.forEach(field, c, b, [&](int, int, int, const CellMaterial& m) { local += m.eps; });
                    }
                double cur = checksum.load();
                while (!checksum.compare_exchange_weak(cur, cur + local)) {
                }
            });
        for (auto& p : pool)
            p.join();
        const double secs = t.elapsed() / 1000.0;
        qInfo("200^3 x 6 components on %d threads: %.2f s", threads, secs);
        QVERIFY(checksum.load() > 0);
        QVERIFY2(secs < 60, "rasterising is far too slow");
    }
};

QTEST_APPLESS_MAIN(tst_Rasterizer)
#include "tst_rasterizer.moc"
