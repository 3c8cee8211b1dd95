/// The CPU devices' block form of the forward pole update (PoleSaveEBlocks, PoleStepBlocks in
/// kernels/Dispersion.hpp) against the per-entry functors GPUs launch (PoleSaveE, PoleCurrent,
/// PoleAdvance): the same bits for E, the E^n scratch and every pole variable, on lists made of
/// stretches of consecutive cells of random lengths (single cells, row pieces, stretches longer than a
/// block) with Drude, Lorentz and Debye poles, fused (current and advance in one pass) and not.
#include <QtTest>

#include <cstring>
#include <random>
#include <vector>

#include "yee/kernels/Dispersion.hpp"

using namespace yee;

namespace {

template <class T> struct Case {
    std::vector<std::int64_t> off;
    std::vector<T> e, cb, w, s, state;
    kernels::PoleCoefs<T> c;
    std::int64_t count = 0;
    T dt = T(0.49);
};

/// A list of about `entries` cells in stretches of 1..maxRun consecutive offsets with gaps between.
template <class T> Case<T> makeCase(std::uint64_t seed, std::int64_t entries, int maxRun) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> run(1, maxRun), gap(1, 7);
    Case<T> k;
    std::int64_t o = 3;
    while (std::int64_t(k.off.size()) < entries) {
        const int len = run(rng);
        for (int x = 0; x < len; ++x)
            k.off.push_back(o++);
        o += gap(rng);
    }
    k.count = std::int64_t(k.off.size());
    k.e.resize(std::size_t(o + 8));
    k.cb.resize(k.e.size());
    for (std::size_t i = 0; i < k.e.size(); ++i) {
        k.e[i] = T(u(rng));
        k.cb[i] = T(0.3 + 0.2 * u(rng));
    }
    // Poles: Lorentz (P, J), Drude (J), Debye (P): slots 0..3.
    k.c.n = 3;
    k.c.pSlot[0] = 0;
    k.c.jSlot[0] = 1;
    k.c.jSlot[1] = 2;
    k.c.pSlot[1] = -1;
    k.c.jSlot[2] = -1;
    k.c.pSlot[2] = 3;
    for (int p = 0; p < 3; ++p) {
        k.c.cJ[p] = k.c.jSlot[p] >= 0 ? T(0.9 + 0.05 * u(rng)) : T(0);
        k.c.cP[p] = k.c.pSlot[p] >= 0 ? T(-0.1 + 0.05 * u(rng)) : T(0);
        k.c.d[p] = T(0.2 + 0.1 * u(rng));
    }
    k.w.resize(std::size_t(k.count));
    k.s.assign(std::size_t(k.count), T(0));
    k.state.resize(std::size_t(k.count) * 4);
    for (auto& v : k.w)
        v = u(rng) > 0.5 ? T(0.5 + 0.25 * u(rng)) : T(1);
    for (auto& v : k.state)
        v = T(u(rng));
    return k;
}

template <class T> bool sameBits(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T> void checkBlocks(std::uint64_t seed, std::int64_t entries, int maxRun) {
    Case<T> ref = makeCase<T>(seed, entries, maxRun);
    Case<T> fused = ref, split = ref;
    // Per entry, as GPUs run it: save, (E update elsewhere), currents, advance.
    const kernels::PoleSaveE<T> save{ref.e.data(), ref.off.data(), ref.s.data()};
    for (std::int64_t i = 0; i < ref.count; ++i)
        save(i);
    for (std::size_t i = 0; i < ref.e.size(); ++i) // the E update between: E changes before the currents
        ref.e[i] = ref.e[i] * T(0.75) + T(0.125);
    const kernels::PoleCurrent<T> cur{ref.e.data(),     ref.cb.data(), ref.off.data(),
                                      ref.state.data(), ref.count,     ref.c};
    for (std::int64_t i = 0; i < ref.count; ++i)
        cur(i);
    const kernels::PoleAdvance<T> adv{ref.e.data(),     ref.off.data(), ref.w.data(), ref.s.data(),
                                      ref.state.data(), ref.count,      ref.dt,       ref.c};
    for (std::int64_t i = 0; i < ref.count; ++i)
        adv(i);

    const std::int64_t blocks = (ref.count + kernels::kPoleBlock - 1) / kernels::kPoleBlock;
    for (Case<T>* k : {&fused, &split}) {
        const kernels::PoleSaveEBlocks<T> sb{k->e.data(), k->off.data(), k->s.data(), k->count};
        for (std::int64_t b = blocks - 1; b >= 0; --b) // any block order gives the same values
            sb(b);
        for (std::size_t i = 0; i < k->e.size(); ++i)
            k->e[i] = k->e[i] * T(0.75) + T(0.125);
        auto step = [&](bool current, bool advance) {
            const kernels::PoleStepBlocks<T> st{k->e.data(), k->cb.data(),    k->off.data(), k->w.data(),
                                                k->s.data(), k->state.data(), k->count,      k->dt,
                                                k->c,        current,         advance};
            for (std::int64_t b = 0; b < blocks; ++b)
                st(b);
        };
        if (k == &fused) {
            step(true, true);
        } else {
            step(true, false);
            step(false, true);
        }
        QVERIFY2(sameBits(k->s, ref.s), k == &fused ? "fused: E^n scratch" : "split: E^n scratch");
        QVERIFY2(sameBits(k->e, ref.e), k == &fused ? "fused: E" : "split: E");
        QVERIFY2(sameBits(k->state, ref.state), k == &fused ? "fused: pole state" : "split: pole state");
    }
    // The update did something: the state moved away from its start.
    const Case<T> start = makeCase<T>(seed, entries, maxRun);
    QVERIFY(!sameBits(start.state, ref.state));
}

} // namespace

class tst_PoleBlocks : public QObject {
    Q_OBJECT
private slots:
    void sameBitsAsPerEntry_data() {
        QTest::addColumn<qint64>("entries");
        QTest::addColumn<int>("maxRun");
        QTest::newRow("single cells") << qint64(300) << 1;
        QTest::newRow("short rows") << qint64(5000) << 48;
        QTest::newRow("long rows") << qint64(20000) << 700;
        QTest::newRow("one stretch") << qint64(3000) << 100000;
    }
    void sameBitsAsPerEntry() {
        QFETCH(qint64, entries);
        QFETCH(int, maxRun);
        checkBlocks<float>(11, entries, maxRun);
        checkBlocks<double>(12, entries, maxRun);
    }
};

QTEST_GUILESS_MAIN(tst_PoleBlocks)
#include "tst_pole_blocks.moc"
