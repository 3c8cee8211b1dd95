/// The per-cell material index (solver/Tile.hpp, kernels/Coef.hpp): a tile that stores an index and
/// small coefficient tables steps bit for bit like one that keeps per-cell arrays (CPU and staged data
/// paths, float and double, lossy and magnetic cells, design regions, TF/SF and dipole injections); a
/// table that would overflow keeps the per-cell arrays; a design refill leaves no stale entry; the
/// ledger's materials row is the index plus the tables; the index takes one byte per cell where the table
/// fits 256 entries, two otherwise, none on a homogeneous tile (kernels::ByteCoef).
#include <QtTest>

#include <cstring>
#include <memory>
#include <vector>

#include "decomp/ResultCompare.hpp"
#include "gradient/GradScene.hpp"
#include "yee/comm/LocalComm.hpp"
#include "yee/device/Device.hpp"
#include "yee/solver/Plan.hpp"
#include "yee/solver/Tile.hpp"

using namespace yee;
using namespace yee::testing;

namespace {

/// One lossy, magnetic medium everywhere (PML on x and y, periodic z), a dipole and a plane source: a
/// homogeneous tile, whose only distinct coefficient sets are those of the low PEC walls.
scene::Scene homogeneousScene() {
    using scene::BoundaryType;
    scene::Scene s =
        boxScene(20, 18, 12, 0.05, BoundaryType::Pml, BoundaryType::Pml, BoundaryType::Periodic, 4);
    s.materials.push_back(material("medium", 2.25, 1.3, 2e3));
    s.background = "medium";
    s.sources.push_back(dipole("dip", {0.05, -0.1, 0.0}, {0, 0, 1}, 0.6, 0.3));
    s.sources.push_back(planeSource("beam", scene::SourceType::UniformPlane, {-0.25, 0, 0}, {0, 0.4, 0.5}, 0,
                                    +1, {0, 1, 0}, 0.6, 0.3));
    s.durationFs = 5;
    return s;
}

/// gradScene with a magnetic block too, so every coefficient kind (Cb, Ca, Db) is per cell.
scene::Scene testScene() {
    scene::Scene s = gradScene();
    s.materials.push_back(material("ferrite", 1.5, 2.0));
    scene::Object o;
    o.name = "ferrite";
    o.shape = scene::Shape::Box;
    o.center = {0.2, -0.2, 0};
    o.size = {0.2, 0.15, 2.0};
    o.material = "ferrite";
    s.objects.push_back(o);
    return s;
}

struct Config {
    bool perCell = false;         ///< PlanOptions::perCellCoefficients
    std::int64_t limit = 65536;   ///< Plan::materialTableLimit
    std::int64_t small = 256;     ///< Plan::smallTableLimit
    bool staged = false;          ///< the GPU's data paths on a CPU device
    std::vector<double> latent1;  ///< design 0's latent values after the first fill (empty: none)
    std::int64_t cacheBytes = -1; ///< Plan::perCellCacheBytes (-1: the plan's default)
};

template <class T> struct Outcome {
    std::vector<std::vector<T>> fields; ///< the six components after the steps, raw
    std::vector<std::vector<T>> cb;     ///< Cb per cell after requirePerCellCoefficients()
    bool indexed = false;
    int indexBytes = 0;
    std::int64_t entries = 0;
    std::int64_t materials = 0; ///< ledger bytes before requirePerCellCoefficients()
    std::int64_t expected = 0;  ///< index + tables when indexed
    std::int64_t dryRun = 0;    ///< ledger bytes of the same tile on a dry-run device (the estimate)
};

template <class T> Outcome<T> stepTile(const scene::Scene& s, const Config& cfg, int steps) {
    solver::PlanOptions po;
    po.perCellCoefficients = cfg.perCell;
    auto plan = solver::makePlan(s, po);
    plan->materialTableLimit = cfg.limit;
    plan->smallTableLimit = cfg.small;
    if (cfg.cacheBytes >= 0)
        plan->perCellCacheBytes = cfg.cacheBytes;
    device::Device dev(device::DeviceKind::Cpu, 0, 2, std::int64_t(1) << 31);
    dev.setStagedPaths(cfg.staged);
    comm::LocalHub hub(1);
    Outcome<T> out;
    solver::Tile<T> tile(plan, 0, dev);
    tile.fill();
    if (!cfg.latent1.empty()) { // a first evaluation's design, then the scene's own again
        const auto keep = plan->scene.designs[0];
        solver::setDesign(*plan, 0, cfg.latent1, keep.beta);
        tile.refillDesigns();
        solver::setDesign(*plan, 0, keep.latent, keep.beta);
        tile.refillDesigns();
    }
    tile.resetState();
    for (int n = 0; n < steps; ++n)
        tile.step(n, hub.endpoint(0), false);
    tile.finishPending(hub.endpoint(0));
    dev.sync();
    const std::int64_t size = tile.shape().size;
    for (int c = 0; c < 6; ++c) {
        out.fields.emplace_back(std::size_t(size));
        dev.copy(out.fields.back().data(), tile.field(c).p - tile.shape().origin,
                 size * std::int64_t(sizeof(T)));
    }
    out.indexed = tile.indexed();
    out.indexBytes = tile.indexBytes();
    out.entries = tile.tableEntries();
    out.materials = dev.ledger().snapshot().current[int(device::Category::Materials)];
    {
        device::Device dry(device::DeviceKind::Cpu, 0, 2, std::int64_t(1) << 31, true);
        dry.setStagedPaths(cfg.staged);
        const solver::Tile<T> counted(plan, 0, dry);
        out.dryRun = dry.ledger().snapshot().current[int(device::Category::Materials)];
    }
    if (tile.indexed()) { // one index per interior cell, and the tables
        const int kinds = 1 + int(plan->lossy) + int(plan->magnetic);
        // ...and on CPU devices, with an index, one 4-byte entry per row: the row's one entry or -1
        const std::int64_t rows =
            tile.indexBytes() > 0 ? std::int64_t(tile.box().extent(1)) * tile.box().extent(2) : 0;
        out.expected = tile.cells() * tile.indexBytes() +
                       3 * tile.tableEntries() * kinds * std::int64_t(sizeof(T)) + rows * 4;
    }
    tile.requirePerCellCoefficients();
    for (int c = 0; c < 3; ++c) {
        out.cb.emplace_back(std::size_t(size));
        dev.copy(out.cb.back().data(), tile.cb(c).p - tile.shape().origin, size * std::int64_t(sizeof(T)));
    }
    return out;
}

template <class T> bool sameBits(const std::vector<std::vector<T>>& a, const std::vector<std::vector<T>>& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t c = 0; c < a.size(); ++c)
        if (a[c].size() != b[c].size() || std::memcmp(a[c].data(), b[c].data(), a[c].size() * sizeof(T)) != 0)
            return false;
    return true;
}

/// Index widths: 1 byte where the table fits (the default), 2 bytes (Plan::smallTableLimit 0), none on a
/// homogeneous tile.
enum class Width { Default, Wide, Homogeneous };

template <class T> void compareAll(bool staged, Width width) {
    const scene::Scene s = width == Width::Homogeneous ? homogeneousScene() : testScene();
    const int steps = 40;
    Config ref;
    ref.perCell = true;
    ref.staged = staged;
    const Outcome<T> want = stepTile<T>(s, ref, steps);
    QVERIFY(!want.indexed);
    QCOMPARE(want.indexBytes, 0);

    Config idx;
    idx.staged = staged;
    if (width == Width::Wide)
        idx.small = 0;
    const Outcome<T> got = stepTile<T>(s, idx, steps);
    QVERIFY(got.indexed);
    switch (width) {
    case Width::Default: // the design cells' entries and the averaged cells' still fit one byte
        QCOMPARE(got.indexBytes, 1);
        QVERIFY(got.entries > 64 && got.entries <= 256);
        break;
    case Width::Wide:
        QCOMPARE(got.indexBytes, 2);
        break;
    case Width::Homogeneous: // the entry is the wall pattern: 8 of them, no index
        QCOMPARE(got.indexBytes, 0);
        QCOMPARE(got.entries, std::int64_t(8));
        break;
    }
    QVERIFY2(sameBits(got.fields, want.fields), "indexed tile: fields differ from the per-cell tile");
    QVERIFY2(sameBits(got.cb, want.cb), "per-cell Cb made from the index differs from the per-cell fill");
    QCOMPARE(got.materials, got.expected);
    QCOMPARE(got.dryRun, got.materials); // the estimate's decision and table are the run's
    QCOMPARE(want.dryRun, want.materials);
    QVERIFY(got.materials < want.materials / 4);
    if (width == Width::Homogeneous)
        return; // no design region to refill; the table cannot overflow
    // Something moved at all (the comparison is not between two zero grids).
    bool moved = false;
    for (T v : got.fields[2])
        moved = moved || v != T(0);
    QVERIFY(moved);

    Config over = idx;
    over.limit = 3; // fewer entries than the scene's distinct coefficients: per-cell arrays
    over.staged = staged;
    const Outcome<T> fb = stepTile<T>(s, over, steps);
    QVERIFY(!fb.indexed);
    QCOMPARE(fb.materials, want.materials);
    QCOMPARE(fb.dryRun, fb.materials);
    QVERIFY2(sameBits(fb.fields, want.fields), "overflowing tile: fields differ");

    Config refill = idx; // another design first, then the scene's: no stale table entry survives
    const auto& d0 = s.designs[0].latent;
    refill.latent1.resize(d0.size());
    for (std::size_t v = 0; v < d0.size(); ++v)
        refill.latent1[v] = 1.0 - d0[v];
    const Outcome<T> rf = stepTile<T>(s, refill, steps);
    QVERIFY(rf.indexed);
    QVERIFY2(sameBits(rf.fields, want.fields), "refilled tile: fields differ from a fresh fill");
    QVERIFY2(sameBits(rf.cb, want.cb), "refilled tile: coefficients differ from a fresh fill");
}

} // namespace

class tst_MaterialIndex : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // The index itself is under test: its small scenes would otherwise fit the cache and keep per-cell
        // arrays (solver::Plan::perCellCacheBytes).
        qputenv("YEE_CACHE_PER_CELL", "0");
    }
    /// A CPU tile served from the cache (Plan::perCellCacheBytes) keeps per-cell arrays, with the per-cell
    /// tile's ledger, estimate and bits; a tile above the limit, a staged one and a homogeneous one keep
    /// theirs (index, index, no index).
    void cacheResidentKeepsPerCell() {
        const int steps = 20;
        Config ref;
        ref.perCell = true;
        const Outcome<float> want = stepTile<float>(testScene(), ref, steps);
        Config big;
        big.cacheBytes = std::int64_t(1) << 40;
        const Outcome<float> cached = stepTile<float>(testScene(), big, steps);
        QVERIFY(!cached.indexed);
        QCOMPARE(cached.materials, want.materials);
        QCOMPARE(cached.dryRun, cached.materials);
        QVERIFY2(sameBits(cached.fields, want.fields), "cache-resident tile: fields differ");
        Config tiny;
        tiny.cacheBytes = 1;
        QVERIFY(stepTile<float>(testScene(), tiny, steps).indexed);
        Config staged = big;
        staged.staged = true;
        QVERIFY(stepTile<float>(testScene(), staged, steps).indexed);
        const Outcome<float> homogeneous = stepTile<float>(homogeneousScene(), big, steps);
        QVERIFY(homogeneous.indexed);
        QCOMPARE(homogeneous.indexBytes, 0);
    }
    void indexMatchesPerCell_data() {
        QTest::addColumn<bool>("f64");
        QTest::addColumn<bool>("staged");
        QTest::addColumn<int>("width");
        for (const auto& [w, name] : {std::pair{Width::Default, "1-byte"}, std::pair{Width::Wide, "2-byte"},
                                      std::pair{Width::Homogeneous, "homogeneous"}})
            for (bool f64 : {false, true})
                for (bool staged : {false, true})
                    QTest::newRow(qPrintable(
                        QString("%1 %2 %3").arg(f64 ? "double" : "float", staged ? "staged" : "cpu", name)))
                        << f64 << staged << int(w);
    }
    void indexMatchesPerCell() {
        QFETCH(bool, f64);
        QFETCH(bool, staged);
        QFETCH(int, width);
        if (f64)
            compareAll<double>(staged, Width(width));
        else
            compareAll<float>(staged, Width(width));
    }
};

QTEST_APPLESS_MAIN(tst_MaterialIndex)
#include "tst_material_index.moc"
