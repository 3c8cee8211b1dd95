/// The fused pass' row order (kernels/Wavefront.hpp), checked at every row against the Yee step's
/// dependencies: when H of row (j, k) runs, E of rows (j, k), (j + 1, k) and (j, k + 1) must not have run
/// (H reads E^n there); when E of row (j, k) runs, H of rows (j, k), (j - 1, k) and (j, k - 1) must have
/// run (E reads H^{n+1/2}); every row of each box runs exactly once. On 1, 2, 3 and 5 threads, whole planes
/// and column blocks, thin and thick slabs, an E box equal to the H box and one inset from it.
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "yee/kernels/Wavefront.hpp"

using namespace yee;

namespace {

struct Rows {
    int ny, nz;
    std::unique_ptr<std::atomic<int>[]> h, e;
    std::atomic<int> violations{0};
    Rows(int y, int z)
        : ny(y), nz(z), h(new std::atomic<int>[std::size_t(y * z)]),
          e(new std::atomic<int>[std::size_t(y * z)]) {
        for (int r = 0; r < y * z; ++r) {
            h[std::size_t(r)] = 0;
            e[std::size_t(r)] = 0;
        }
    }
    bool in(int j, int k) const { return j >= 0 && j < ny && k >= 0 && k < nz; }
    int at(const std::unique_ptr<std::atomic<int>[]>& a, int j, int k) const {
        return in(j, k) ? a[std::size_t(j + ny * k)].load() : 0;
    }
};

} // namespace

class tst_WavefrontOrder : public QObject {
    Q_OBJECT
private slots:
    void dependenciesHold_data() {
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("minPlanes");
        QTest::addColumn<int>("blockRows");
        QTest::addColumn<bool>("inset");
        QTest::addColumn<bool>("costs");
        for (const int t : {1, 2, 3, 5})
            for (const int mp : {1, 3, 8})
                for (const int br : {0, 1, 4, 7})
                    for (const bool inset : {false, true})
                        for (const bool costs : {false, true})
                            QTest::newRow(qPrintable(QString("threads %1 slab %2 block %3 %4%5")
                                                         .arg(t)
                                                         .arg(mp)
                                                         .arg(br)
                                                         .arg(inset ? "inset" : "same")
                                                         .arg(costs ? " costs" : "")))
                                << t << mp << br << inset << costs;
    }
    void dependenciesHold() {
        QFETCH(int, threads);
        QFETCH(int, minPlanes);
        QFETCH(int, blockRows);
        QFETCH(bool, inset);
        QFETCH(bool, costs);
        const int ny = 13, nz = 29;
        // Heavy planes at both ends (a CPML slab normal to z), cutting the slabs unevenly by plane count.
        std::vector<std::int64_t> cost(std::size_t(nz), 100);
        for (int k = 0; k < 6; ++k)
            cost[std::size_t(k)] = cost[std::size_t(nz - 1 - k)] = 300;
        const Box bh{{0, 0, 0}, {9, ny, nz}};
        const Box be = inset ? Box{{1, 1, 1}, {8, ny - 1, nz - 1}} : bh;
        for (int rep = 0; rep < 20; ++rep) {
            Rows r(ny, nz);
            const auto hRow = [&](int j, int k, int i0, int i1) {
                if (i0 != bh.lo[0] || i1 != bh.hi[0] || r.at(r.e, j, k) || r.at(r.e, j + 1, k) ||
                    r.at(r.e, j, k + 1))
                    r.violations.fetch_add(1);
                r.h[std::size_t(j + ny * k)].fetch_add(1);
            };
            const auto eRow = [&](int j, int k, int i0, int i1) {
                const auto need = [&](int jj, int kk) {
                    return !r.in(jj, kk) || !bh.contains({bh.lo[0], jj, kk}) || r.at(r.h, jj, kk) == 1;
                };
                if (i0 != be.lo[0] || i1 != be.hi[0] || !need(j, k) || !need(j - 1, k) || !need(j, k - 1))
                    r.violations.fetch_add(1);
                r.e[std::size_t(j + ny * k)].fetch_add(1);
            };
            kernels::wavefrontRows(bh, be, threads, minPlanes, blockRows, hRow, eRow,
                                   costs ? cost.data() : nullptr);
            QCOMPARE(r.violations.load(), 0);
            for (int k = 0; k < nz; ++k)
                for (int j = 0; j < ny; ++j) {
                    QCOMPARE(r.at(r.h, j, k), 1);
                    QCOMPARE(r.at(r.e, j, k), be.contains({be.lo[0], j, k}) ? 1 : 0);
                }
        }
    }
    void slabCount() {
        QCOMPARE(kernels::wavefrontSlabs(200, 1, 8), 1);
        QCOMPARE(kernels::wavefrontSlabs(200, 2, 8), 8);
        QCOMPARE(kernels::wavefrontSlabs(20, 2, 8), 2);
        QCOMPARE(kernels::wavefrontSlabs(5, 4, 8), 1);
        QCOMPARE(kernels::wavefrontSlabs(29, 3, 1), 12);
        QCOMPARE(kernels::wavefrontSlabs(40, 2, 8), 4); // 5 allowed; a multiple of the threads
        QCOMPARE(kernels::wavefrontSlabs(44, 3, 8), 3);
        QCOMPARE(kernels::wavefrontSlabs(60, 4, 8), 4);
        QCOMPARE(kernels::wavefrontSlabs(24, 4, 8), 3); // fewer than the threads: as many as allowed
    }
    /// The slab bounds cover the planes in order, every slab at least one plane thick, thinning about
    /// 2:1 from the first slab to the last where there are planes enough.
    void slabBounds() {
        for (int planes = 1; planes <= 300; ++planes)
            for (int slabs = 1; slabs <= std::min(planes, 70); ++slabs) {
                QCOMPARE(kernels::wavefrontSlabBounds(planes, slabs, 0), 0);
                QCOMPARE(kernels::wavefrontSlabBounds(planes, slabs, slabs), planes);
                for (int s = 0; s < slabs; ++s)
                    QVERIFY2(kernels::wavefrontSlabBounds(planes, slabs, s + 1) >
                                 kernels::wavefrontSlabBounds(planes, slabs, s),
                             qPrintable(QString("planes %1 slabs %2 slab %3").arg(planes).arg(slabs).arg(s)));
            }
        const auto width = [](int planes, int slabs, int s) {
            return kernels::wavefrontSlabBounds(planes, slabs, s + 1) -
                   kernels::wavefrontSlabBounds(planes, slabs, s);
        };
        // 200 planes in 8 slabs: weights 15..8 of 92.
        QCOMPARE(width(200, 8, 0), 32);
        QCOMPARE(width(200, 8, 7), 18);
        for (int s = 0; s + 1 < 8; ++s)
            QVERIFY(width(200, 8, s) >= width(200, 8, s + 1));
        // Too few planes to thin: uniform.
        QCOMPARE(width(8, 8, 0), 1);
        QCOMPARE(width(8, 8, 7), 1);
    }
    /// Slabs cut by plane cost: in order, at least one plane each, the plain bounds without costs or with
    /// equal costs, and each slab's cost near its share where the planes are fine enough.
    void costBounds() {
        std::vector<int> b(71), plain(71);
        for (int planes = 1; planes <= 120; ++planes)
            for (int slabs = 1; slabs <= std::min(planes, 70); ++slabs) {
                std::vector<std::int64_t> cost(static_cast<std::size_t>(planes));
                for (int p = 0; p < planes; ++p)
                    cost[std::size_t(p)] = 1 + (p * 7919) % 13; // uneven, deterministic
                kernels::wavefrontCostBounds(cost.data(), planes, slabs, b.data());
                QCOMPARE(b[0], 0);
                QCOMPARE(b[std::size_t(slabs)], planes);
                for (int s = 0; s < slabs; ++s)
                    QVERIFY2(b[std::size_t(s + 1)] > b[std::size_t(s)],
                             qPrintable(QString("planes %1 slabs %2 slab %3").arg(planes).arg(slabs).arg(s)));
                kernels::wavefrontCostBounds(nullptr, planes, slabs, plain.data());
                for (int s = 0; s <= slabs; ++s)
                    QCOMPARE(plain[std::size_t(s)], kernels::wavefrontSlabBounds(planes, slabs, s));
            }
        // Equal costs: the plain cuts (200 planes, 8 slabs: the first 32 planes thick, the last 18).
        std::vector<std::int64_t> flat(200, 5);
        kernels::wavefrontCostBounds(flat.data(), 200, 8, b.data());
        for (int s = 0; s <= 8; ++s)
            QVERIFY(std::abs(b[std::size_t(s)] - kernels::wavefrontSlabBounds(200, 8, s)) <= 1);
        // 40 planes, the first and last 10 three times as costly, 4 slabs: each slab's cost within one
        // plane's cost of its share (weights 7, 6, 5, 4 of 22).
        std::vector<std::int64_t> pml(40, 100);
        for (int k = 0; k < 10; ++k)
            pml[std::size_t(k)] = pml[std::size_t(39 - k)] = 300;
        kernels::wavefrontCostBounds(pml.data(), 40, 4, b.data());
        const std::int64_t total = 2 * 10 * 300 + 20 * 100;
        for (int s = 0; s < 4; ++s) {
            std::int64_t c = 0;
            for (int k = b[std::size_t(s)]; k < b[std::size_t(s + 1)]; ++k)
                c += pml[std::size_t(k)];
            const double share = double(total) * (7 - s) / 22.0;
            QVERIFY2(std::abs(double(c) - share) <= 300,
                     qPrintable(QString("slab %1 cost %2 share %3").arg(s).arg(c).arg(share)));
        }
    }
};

QTEST_GUILESS_MAIN(tst_WavefrontOrder)
#include "tst_wavefront_order.moc"
