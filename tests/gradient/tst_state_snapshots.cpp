/// Gradient checkpoints through the tile-state registry: StateSnapshots copies every Dynamics entry
/// (whatever kind of state registered it) and nothing else, its slots are what the ledger's Checkpoints
/// category holds, and on a real tile a slot is exactly the fields plus the CPML psi.
#include <QtTest>

#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "physics/SceneBuilder.hpp"
#include "yee/device/Device.hpp"
#include "yee/gradient/StateSnapshots.hpp"
#include "yee/solver/Plan.hpp"
#include "yee/solver/Tile.hpp"

using namespace yee;
using device::Buffer;
using device::Category;
using solver::StateRole;

namespace {
/// The plan of `s` cut into `tiles`, every other plan option at its default (only the tile grid matters
/// here, whatever options type makePlan takes).
template <class Options>
std::shared_ptr<solver::Plan> planOf(std::shared_ptr<solver::Plan> (*makePlan)(const scene::Scene&,
                                                                               const Options&),
                                     const scene::Scene& s, std::array<int, 3> tiles) {
    Options o{};
    o.tiles = tiles;
    return makePlan(s, o);
}

std::int64_t checkpointBytes(const device::Device& dev) {
    return dev.ledger().snapshot().current[int(Category::Checkpoints)];
}
} // namespace

class tst_StateSnapshots : public QObject {
    Q_OBJECT
private slots:
    void copiesEveryDynamicsEntryAndNothingElse() {
        device::Device dev(device::DeviceKind::Cpu, 0, 1, std::int64_t(1) << 30);
        Buffer<double> field(dev, 5, Category::Fields);
        Buffer<float> psi(dev, 3, Category::Pml);
        Buffer<double> pole(dev, 4, Category::Materials); // a later kind of state, e.g. pole currents
        Buffer<double> sums(dev, 2, Category::Detectors);
        solver::TileState state;
        state.add("field.Ex", StateRole::Dynamics, field);
        state.add("detector.d.sums", StateRole::Record, sums);
        state.add("pml.0.psiE.0", StateRole::Dynamics, psi);
        state.add("material.pole.0", StateRole::Dynamics, pole);
        const std::int64_t dynamics = 5 * 8 + 3 * 4 + 4 * 8;

        gradient::StateSnapshots snaps(dev, state, 2);
        QCOMPARE(snaps.slotBytes(), dynamics);
        QCOMPARE(snaps.count(), 2);
        QCOMPARE(checkpointBytes(dev), 2 * dynamics);

        auto fill = [&](double base) {
            for (int i = 0; i < 5; ++i)
                field[i] = base + i;
            for (int i = 0; i < 3; ++i)
                psi[i] = float(base + 10 + i);
            for (int i = 0; i < 4; ++i)
                pole[i] = base + 20 + i;
            for (int i = 0; i < 2; ++i)
                sums[i] = base + 30 + i;
        };
        fill(100);
        snaps.save(1);
        fill(500);
        snaps.save(0);
        fill(900);
        snaps.load(1);
        for (int i = 0; i < 5; ++i)
            QCOMPARE(field[i], 100.0 + i);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(psi[i], float(110 + i));
        for (int i = 0; i < 4; ++i)
            QCOMPARE(pole[i], 120.0 + i);
        for (int i = 0; i < 2; ++i)
            QCOMPARE(sums[i], 930.0 + i); // Record state is not part of a checkpoint
        snaps.load(0);
        QCOMPARE(pole[3], 523.0);

        // find(): a registered buffer's saved bytes inside a slot (packed, so read by copying).
        auto at = [&](int slot, const void* buf, int i, auto zero) {
            const unsigned char* p = snaps.find(slot, buf);
            if (!p)
                throw std::runtime_error("not found");
            std::memcpy(&zero, p + i * sizeof(zero), sizeof(zero));
            return zero;
        };
        QCOMPARE(at(1, psi.data(), 2, 0.0f), 112.0f);
        QCOMPARE(at(0, pole.data(), 0, 0.0), 520.0); // at byte 52 of the slot: not 8-byte aligned
        QCOMPARE(at(1, field.data(), 4, 0.0), 104.0);
        QCOMPARE(snaps.find(0, sums.data()), nullptr);

        snaps.zeroState();
        for (int i = 0; i < 5; ++i)
            QCOMPARE(field[i], 0.0);
        QCOMPARE(psi[0], 0.0f);
        QCOMPARE(pole[1], 0.0);
        QCOMPARE(sums[1], 931.0);
    }

    void dryRunCountsWithoutCopying() {
        device::Device dev(device::DeviceKind::Cpu, 0, 1, std::int64_t(1) << 30, true);
        Buffer<double> field(dev, 7, Category::Fields);
        solver::TileState state;
        state.add("field.Ex", StateRole::Dynamics, field);
        gradient::StateSnapshots snaps(dev, state, 3);
        QCOMPARE(checkpointBytes(dev), 3 * 7 * 8);
        snaps.save(2); // nothing is taken, nothing is copied
        QCOMPARE(snaps.find(0, field.data()), nullptr);
    }

    void resizedStateRefused() {
        device::Device dev(device::DeviceKind::Cpu, 0, 1, std::int64_t(1) << 30);
        Buffer<double> a(dev, 2, Category::Fields), b(dev, 2, Category::Fields);
        solver::TileState state;
        state.add("a", StateRole::Dynamics, a);
        gradient::StateSnapshots snaps(dev, state, 1);
        state.add("b", StateRole::Dynamics, b);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, snaps.save(0));
    }

    /// On a real tile (PML on two axes, cut in two): one slot is the six halo-padded fields and the four
    /// psi arrays of every CPML slab, the size checkpoints have always had.
    void tileSlotIsFieldsAndPsi() {
        using scene::BoundaryType;
        const scene::Scene s = testing::boxScene(24, 20, 16, 0.05, BoundaryType::Pml, BoundaryType::Pml,
                                                 BoundaryType::Periodic, 5);
        const auto plan = planOf(&solver::makePlan, s, {2, 1, 1});
        for (int t = 0; t < 2; ++t) {
            device::Device dev(device::DeviceKind::Cpu, t, 1, std::int64_t(1) << 30, true);
            solver::Tile<float> tile(plan, t, dev);
            QCOMPARE(tile.slabs().size(), std::size_t(3)); // its x end and both y sides
            std::int64_t want = 6 * tile.shape().size;
            for (const auto& sl : tile.slabs())
                want += 4 * sl->slab.box.cells();
            want *= std::int64_t(sizeof(float));
            const std::int64_t before = checkpointBytes(dev);
            gradient::StateSnapshots snaps(dev, tile.state(), 3);
            QCOMPARE(snaps.slotBytes(), want);
            QCOMPARE(checkpointBytes(dev) - before, 3 * want);
        }
    }
};

QTEST_GUILESS_MAIN(tst_StateSnapshots)
#include "tst_state_snapshots.moc"
