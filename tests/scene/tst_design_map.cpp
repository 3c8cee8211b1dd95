// DesignMap: forward properties and the vector-Jacobian product against central finite differences.
#include <QtTest/QtTest>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "yee/scene/DesignMap.hpp"

using yee::scene::DesignMap;
using yee::scene::Vec3;

Q_DECLARE_METATYPE(Vec3)

class tst_DesignMap : public QObject {
    Q_OBJECT

private:
    static std::vector<double> randomVector(std::size_t n, unsigned seed, double lo, double hi) {
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> u(lo, hi);
        std::vector<double> v(n);
        for (double& x : v)
            x = u(rng);
        return v;
    }

private slots:
    void identityWithoutFilterAndProjection() {
        const DesignMap m({3, 4, 2}, {0.1, 0.1, 0.1}, 0.0, 0.0, 0.5, 2.0, 4.0);
        QVERIFY(!m.filtered());
        const auto x = randomVector(m.size(), 1, 0, 1);
        QCOMPARE(m.forward(x), x);
        QCOMPARE(m.eps(0.0), 2.0);
        QCOMPARE(m.eps(1.0), 4.0);
        QCOMPARE(m.epsDerivative(), 2.0);
    }

    void filterPreservesConstants() {
        const DesignMap m({7, 5, 3}, {0.05, 0.05, 0.1}, 0.17, 0.0, 0.5, 1.0, 2.0);
        QVERIFY(m.filtered());
        const std::vector<double> c(m.size(), 0.3);
        for (double v : m.forward(c))
            QVERIFY(std::fabs(v - 0.3) < 1e-15);
    }

    void projectionEndpoints() {
        const DesignMap m({2, 2, 1}, {0.1, 0.1, 0.1}, 0.0, 16.0, 0.3, 1.0, 2.0);
        QVERIFY(std::fabs(m.project(0.0)) < 1e-15);
        QVERIFY(std::fabs(m.project(1.0) - 1.0) < 1e-15);
        QVERIFY(m.project(0.2) < 0.2 && m.project(0.4) > 0.4);
        for (double v : m.forward(randomVector(m.size(), 2, 0, 1)))
            QVERIFY(v >= 0 && v <= 1);
    }

    void sizeMismatchThrows() {
        const DesignMap m({2, 2, 2}, {0.1, 0.1, 0.1}, 0.0, 0.0, 0.5, 1.0, 2.0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, m.forward(std::vector<double>(7)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 m.backward(std::vector<double>(8), std::vector<double>(3)));
    }

    void backwardMatchesFiniteDifferences_data() {
        QTest::addColumn<int>("nx");
        QTest::addColumn<int>("ny");
        QTest::addColumn<int>("nz");
        QTest::addColumn<Vec3>("voxelUm");
        QTest::addColumn<double>("radius");
        QTest::addColumn<double>("beta");
        QTest::addColumn<double>("eta");
        QTest::newRow("identity") << 4 << 3 << 2 << Vec3{0.1, 0.1, 0.1} << 0.0 << 0.0 << 0.5;
        QTest::newRow("filter") << 6 << 5 << 3 << Vec3{0.05, 0.05, 0.05} << 0.12 << 0.0 << 0.5;
        QTest::newRow("projection") << 5 << 4 << 1 << Vec3{0.1, 0.1, 0.3} << 0.0 << 8.0 << 0.5;
        QTest::newRow("filter+projection") << 6 << 6 << 2 << Vec3{0.05, 0.05, 0.1} << 0.16 << 8.0 << 0.4;
        QTest::newRow("anisotropic voxels") << 8 << 3 << 4 << Vec3{0.025, 0.1, 0.05} << 0.11 << 4.0 << 0.6;
        QTest::newRow("steep projection") << 5 << 5 << 1 << Vec3{0.05, 0.05, 0.2} << 0.08 << 32.0 << 0.5;
        QTest::newRow("radius larger than region")
            << 3 << 3 << 3 << Vec3{0.05, 0.05, 0.05} << 1.0 << 2.0 << 0.5;
    }

    void backwardMatchesFiniteDifferences() {
        QFETCH(int, nx);
        QFETCH(int, ny);
        QFETCH(int, nz);
        QFETCH(Vec3, voxelUm);
        QFETCH(double, radius);
        QFETCH(double, beta);
        QFETCH(double, eta);
        const DesignMap m({nx, ny, nz}, voxelUm, radius, beta, eta, 2.0736, 4.0);
        const std::size_t n = m.size();
        const auto x = randomVector(n, 7, 0.05, 0.95);
        const auto c = randomVector(n, 11, -1, 1);
        // J(rho) = sum c rho + 0.5 sum rho^2, so dJ/drho = c + rho.
        auto objective = [&](const std::vector<double>& lat) {
            const auto rho = m.forward(lat);
            double j = 0;
            for (std::size_t v = 0; v < n; ++v)
                j += c[v] * rho[v] + 0.5 * rho[v] * rho[v];
            return j;
        };
        const auto rho = m.forward(x);
        std::vector<double> dJdRho(n);
        for (std::size_t v = 0; v < n; ++v)
            dJdRho[v] = c[v] + rho[v];
        const auto g = m.backward(x, dJdRho);
        QCOMPARE(g.size(), n);
        const double h = beta > 16 ? 1e-7 : 1e-6;
        double err2 = 0, norm2 = 0;
        for (std::size_t v = 0; v < n; ++v) {
            auto xp = x, xm = x;
            xp[v] += h;
            xm[v] -= h;
            const double fd = (objective(xp) - objective(xm)) / (2 * h);
            err2 += (g[v] - fd) * (g[v] - fd);
            norm2 += g[v] * g[v];
        }
        const double rel = std::sqrt(err2 / norm2);
        QVERIFY2(rel < 1e-7, qPrintable(QString("relative error %1").arg(rel)));
    }
};

QTEST_APPLESS_MAIN(tst_DesignMap)
#include "tst_design_map.moc"
