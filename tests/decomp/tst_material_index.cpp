/// The per-cell material index (solver/Tile.hpp, kernels/Coef.hpp): a tile that stores an index and
/// small coefficient tables steps bit for bit like one that keeps per-cell arrays (CPU and staged data
/// paths, float and double, lossy and magnetic cells, design regions, TF/SF and dipole injections); a
/// table that would overflow keeps the per-cell arrays; a design refill leaves no stale entry; the
/// ledger's materials row is the index plus the tables.
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
    bool perCell = false;        ///< PlanOptions::perCellCoefficients
    std::int64_t limit = 65536;  ///< Plan::materialTableLimit
    bool staged = false;         ///< the GPU's data paths on a CPU device
    std::vector<double> latent1; ///< design 0's latent values after the first fill (empty: none)
};

template <class T> struct Outcome {
    std::vector<std::vector<T>> fields; ///< the six components after the steps, raw
    std::vector<std::vector<T>> cb;     ///< Cb per cell after requirePerCellCoefficients()
    bool indexed = false;
    std::int64_t materials = 0; ///< ledger bytes before requirePerCellCoefficients()
    std::int64_t expected = 0;  ///< index + tables when indexed
};

template <class T> Outcome<T> stepTile(const scene::Scene& s, const Config& cfg, int steps) {
    solver::PlanOptions po;
    po.perCellCoefficients = cfg.perCell;
    auto plan = solver::makePlan(s, po);
    plan->materialTableLimit = cfg.limit;
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
    out.materials = dev.ledger().snapshot().current[int(device::Category::Materials)];
    if (tile.indexed()) {
        const int kinds = 1 + int(plan->lossy) + int(plan->magnetic);
        out.expected = size * std::int64_t(sizeof(kernels::MaterialIndex)) +
                       3 * tile.tableEntries() * kinds * std::int64_t(sizeof(T));
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

template <class T> void compareAll(bool staged) {
    const scene::Scene s = testScene();
    const int steps = 40;
    Config ref;
    ref.perCell = true;
    ref.staged = staged;
    const Outcome<T> want = stepTile<T>(s, ref, steps);
    QVERIFY(!want.indexed);

    Config idx;
    idx.staged = staged;
    const Outcome<T> got = stepTile<T>(s, idx, steps);
    QVERIFY(got.indexed);
    QVERIFY2(sameBits(got.fields, want.fields), "indexed tile: fields differ from the per-cell tile");
    QVERIFY2(sameBits(got.cb, want.cb), "per-cell Cb made from the index differs from the per-cell fill");
    QCOMPARE(got.materials, got.expected);
    QVERIFY(got.materials < want.materials / 4);
    // Something moved at all (the comparison is not between two zero grids).
    bool moved = false;
    for (T v : got.fields[2])
        moved = moved || v != T(0);
    QVERIFY(moved);

    Config over;
    over.limit = 3; // fewer entries than the scene's distinct coefficients: per-cell arrays
    over.staged = staged;
    const Outcome<T> fb = stepTile<T>(s, over, steps);
    QVERIFY(!fb.indexed);
    QCOMPARE(fb.materials, want.materials);
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
    void indexMatchesPerCell_data() {
        QTest::addColumn<bool>("f64");
        QTest::addColumn<bool>("staged");
        QTest::newRow("float cpu") << false << false;
        QTest::newRow("double cpu") << true << false;
        QTest::newRow("float staged") << false << true;
        QTest::newRow("double staged") << true << true;
    }
    void indexMatchesPerCell() {
        QFETCH(bool, f64);
        QFETCH(bool, staged);
        if (f64)
            compareAll<double>(staged);
        else
            compareAll<float>(staged);
    }
};

QTEST_APPLESS_MAIN(tst_MaterialIndex)
#include "tst_material_index.moc"
