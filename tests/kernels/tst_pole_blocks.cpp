/// The CPU devices' block form of the forward pole update (PoleSaveEBlocks, PoleStepBlocks in
/// kernels/Dispersion.hpp) against the per-entry functors GPUs launch (PoleSaveE, PoleCurrent,
/// PoleAdvance): the same bits for E, the E^n scratch and every pole variable, on lists made of
/// stretches of consecutive cells of random lengths (single cells, row pieces, stretches longer than a
/// block) with Drude, Lorentz and Debye poles, and with two Lorentz poles (the one-pass stretches),
/// fused (current and advance in one pass) and not; and the pole update folded into a row sweep
/// (poleFoldRow, over run tables with unit, fractional and skipped entries) against the same per-entry
/// functors, on rows longer and shorter than a chunk, swept whole or in two pieces.
#include <QtTest>

#include <algorithm>
#include <array>
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

/// Two Lorentz poles in slots (0, 1) and (2, 3): the lists that take the one-pass Lorentz stretches.
template <class T> void makeLorentz(kernels::PoleCoefs<T>& c, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    c = {};
    c.n = 2;
    for (int p = 0; p < 2; ++p) {
        c.pSlot[p] = 2 * p;
        c.jSlot[p] = 2 * p + 1;
        c.cJ[p] = T(0.9 + 0.05 * u(rng));
        c.cP[p] = T(-0.1 + 0.05 * u(rng));
        c.d[p] = T(0.2 + 0.1 * u(rng));
    }
}

/// A list of about `entries` cells in stretches of 1..maxRun consecutive offsets with gaps between.
template <class T> Case<T> makeCase(std::uint64_t seed, std::int64_t entries, int maxRun, bool lorentz) {
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
    if (lorentz)
        makeLorentz(k.c, rng);
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

template <class T> void checkBlocks(std::uint64_t seed, std::int64_t entries, int maxRun, bool lorentz) {
    Case<T> ref = makeCase<T>(seed, entries, maxRun, lorentz);
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
    const Case<T> start = makeCase<T>(seed, entries, maxRun, lorentz);
    QVERIFY(!sameBits(start.state, ref.state));
}

/// Lists on three E arrays of `rows` rows of `len` cells (row stride len + 5): lists 0 and 3 on
/// component 0 (disjoint cells), 1 on component 1, 2 on component 2, each in random stretches.
template <class T>
void checkFold(std::uint64_t seed, int rows, int len, bool split, bool reverse, bool lorentz, bool mixed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const std::int64_t stride = len + 5, size = stride * rows + 8;
    std::array<std::vector<T>, 3> e;
    std::array<std::vector<T>, 3> cb;
    for (int c = 0; c < 3; ++c) {
        e[c].resize(std::size_t(size));
        cb[c].resize(std::size_t(size));
        for (std::int64_t i = 0; i < size; ++i) {
            e[c][std::size_t(i)] = T(u(rng));
            cb[c][std::size_t(i)] = T(0.3 + 0.2 * u(rng));
        }
    }
    const int comp[4] = {0, 1, 2, 0};
    std::array<std::vector<std::int64_t>, 4> off;
    std::array<std::vector<T>, 4> w, state;
    std::uniform_int_distribution<int> run(1, 300), gap(0, 40);
    for (int r = 0; r < rows; ++r)
        for (int q = 0; q < 3; ++q) // list 3 takes cells of component 0 that list 0 leaves out
            for (int i = gap(rng); i < len;) {
                const int n = std::min(run(rng), len - i);
                for (int x = 0; x < n; ++x)
                    off[std::size_t(q)].push_back(r * stride + i + x);
                i += n;
                const int g = 1 + gap(rng);
                if (q == 0)
                    for (int x = 0; x < g && i + x < len; ++x)
                        off[3].push_back(r * stride + i + x);
                i += g;
            }
    kernels::PoleCoefs<T> c;
    c.n = 3;
    c.pSlot[0] = 0;
    c.jSlot[0] = 1;
    c.jSlot[1] = 2;
    c.pSlot[1] = -1;
    c.jSlot[2] = -1;
    c.pSlot[2] = 3;
    for (int p = 0; p < 3; ++p) {
        c.cJ[p] = c.jSlot[p] >= 0 ? T(0.9 + 0.05 * u(rng)) : T(0);
        c.cP[p] = c.pSlot[p] >= 0 ? T(-0.1 + 0.05 * u(rng)) : T(0);
        c.d[p] = T(0.2 + 0.1 * u(rng));
    }
    for (int q = 0; q < 4; ++q) {
        const std::size_t n = off[std::size_t(q)].size();
        w[std::size_t(q)].resize(n);
        for (auto& v : w[std::size_t(q)])
            v = u(rng) > 0.5 ? T(1)
                             : (u(rng) > 0 ? T(0.5) : T(0.5 + 0.25 * u(rng))); // unit, one, per-cell runs
        state[std::size_t(q)].resize(4 * n);
        for (auto& v : state[std::size_t(q)])
            v = T(u(rng));
    }
    if (lorentz)
        makeLorentz(c, rng);
    const T dt = T(0.49);
    auto update = [](T& x) { x = x * T(0.75) + T(0.125); };
    // Per entry, as GPUs run it.
    auto refE = e;
    auto refState = state;
    std::array<std::vector<T>, 4> s;
    for (int q = 0; q < 4; ++q) {
        s[std::size_t(q)].resize(off[std::size_t(q)].size());
        const kernels::PoleSaveE<T> save{refE[comp[q]].data(), off[std::size_t(q)].data(),
                                         s[std::size_t(q)].data()};
        for (std::size_t i = 0; i < off[std::size_t(q)].size(); ++i)
            save(std::int64_t(i));
    }
    for (auto& a : refE)
        for (int r = 0; r < rows; ++r)
            for (int i = 0; i < len; ++i)
                update(a[std::size_t(r * stride + i)]);
    for (int q = 0; q < 4; ++q) {
        const std::int64_t n = std::int64_t(off[std::size_t(q)].size());
        const kernels::PoleCurrent<T> cur{refE[comp[q]].data(),
                                          cb[comp[q]].data(),
                                          off[std::size_t(q)].data(),
                                          refState[std::size_t(q)].data(),
                                          n,
                                          c};
        for (std::int64_t i = 0; i < n; ++i)
            cur(i);
    }
    for (int q = 0; q < 4; ++q) {
        const std::int64_t n = std::int64_t(off[std::size_t(q)].size());
        const kernels::PoleAdvance<T> adv{refE[comp[q]].data(),
                                          off[std::size_t(q)].data(),
                                          w[std::size_t(q)].data(),
                                          s[std::size_t(q)].data(),
                                          refState[std::size_t(q)].data(),
                                          n,
                                          dt,
                                          c};
        for (std::int64_t i = 0; i < n; ++i)
            adv(i);
    }
    // Folded into a row sweep, but for some entries of list 1 (and the first and last), which take the
    // passes around the sweep as solver/Dispersion.cpp runs them.
    std::vector<std::int64_t> skip;
    const std::int64_t n1 = std::int64_t(off[1].size());
    for (std::int64_t i = 0; i < n1; ++i)
        if (i == 0 || i == n1 - 1 || u(rng) > 0.9)
            skip.push_back(i);
    std::vector<T> skipSave(skip.size());
    for (std::size_t q = 0; q < skip.size(); ++q)
        skipSave[q] = e[1][std::size_t(off[1][std::size_t(skip[q])])];
    std::vector<kernels::PoleFoldList<T>> lists;
    std::array<std::vector<std::int64_t>, 4> runs;
    for (int q = 0; q < 4; ++q) {
        const auto& wq = w[std::size_t(q)];
        runs[std::size_t(q)] =
            kernels::poleRunTable(off[std::size_t(q)].data(), std::int64_t(off[std::size_t(q)].size()),
                                  q == 1 ? skip.data() : nullptr, q == 1 ? std::int64_t(skip.size()) : 0,
                                  [&wq](std::int64_t i) { return double(wq[std::size_t(i)]); });
        // With a run table (lists 0 and 2 when `mixed`, else all) or with offsets and skip entries.
        const bool withRuns = !mixed || q % 2 == 0;
        lists.push_back({e[comp[q]].data(), cb[comp[q]].data(), off[std::size_t(q)].data(),
                         w[std::size_t(q)].data(), state[std::size_t(q)].data(),
                         std::int64_t(off[std::size_t(q)].size()), c, kernels::lorentzPairs(c),
                         withRuns ? runs[std::size_t(q)].data() : nullptr,
                         withRuns ? std::int64_t(runs[std::size_t(q)].size()) / kernels::kRunWords : 0,
                         q == 1 ? skip.data() : nullptr, q == 1 ? std::int64_t(skip.size()) : 0, comp[q]});
    }
    std::vector<std::int64_t> cursor(8);
    std::vector<char> listed(std::size_t(size), 0);
    for (int q = 0; q < 4; ++q)
        for (std::int64_t o : off[std::size_t(q)])
            listed[std::size_t(o)] = 1;
    std::uniform_int_distribution<int> cut(0, len);
    int chunks = 0;
    for (int rr = 0; rr < rows; ++rr) { // reversed: every row's search hint lies past it
        const int r = reverse ? rows - 1 - rr : rr;
        const std::int64_t base = r * stride;
        auto sweep = [&](int c0, int c1, bool poles) {
            QVERIFY(c1 - c0 <= kernels::kPoleBlock);
            bool any = false;
            for (int i = c0; i < c1; ++i) {
                any = any || listed[std::size_t(base + i)];
                for (auto& a : e)
                    update(a[std::size_t(base + i)]);
            }
            QCOMPARE(poles, any);
            ++chunks;
        };
        const int m = split ? cut(rng) : len;
        kernels::poleFoldRow(lists.data(), 4, dt, base, 0, m, cursor.data(), sweep);
        kernels::poleFoldRow(lists.data(), 4, dt, base, m, len, cursor.data(), sweep);
    }
    QVERIFY(chunks >= rows);
    for (std::size_t q = 0; q < skip.size(); ++q) {
        const std::int64_t x = skip[q], o = off[1][std::size_t(x)];
        kernels::poleCurrentStretch(e[1].data() + o, cb[1].data() + o, state[1].data() + x, n1, c, 1);
        kernels::poleAdvanceStretch<T>(e[1].data() + o, w[1].data() + x, skipSave.data() + q,
                                       state[1].data() + x, n1, dt, c, 1);
    }
    for (int q = 0; q < 3; ++q)
        QVERIFY2(sameBits(e[std::size_t(q)], refE[std::size_t(q)]), "fold: E");
    for (int q = 0; q < 4; ++q)
        QVERIFY2(sameBits(state[std::size_t(q)], refState[std::size_t(q)]), "fold: pole state");
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
        for (bool lorentz : {false, true}) {
            checkBlocks<float>(11, entries, maxRun, lorentz);
            checkBlocks<double>(12, entries, maxRun, lorentz);
        }
    }
    void foldSameBitsAsPerEntry_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("len");
        QTest::addColumn<bool>("split");
        QTest::addColumn<bool>("reverse");
        QTest::newRow("short rows") << 40 << 37 << false << false;
        QTest::newRow("rows of chunks") << 12 << 1100 << false << false;
        QTest::newRow("rows in two pieces") << 12 << 900 << true << false;
        QTest::newRow("rows in reverse order") << 30 << 300 << true << true;
    }
    void foldSameBitsAsPerEntry() {
        QFETCH(int, rows);
        QFETCH(int, len);
        QFETCH(bool, split);
        QFETCH(bool, reverse);
        for (bool lorentz : {false, true})
            for (bool mixed : {false, true}) { // run tables on every list, or on half of them
                checkFold<float>(21, rows, len, split, reverse, lorentz, mixed);
                checkFold<double>(22, rows, len, split, reverse, lorentz, mixed);
            }
    }
};

QTEST_GUILESS_MAIN(tst_PoleBlocks)
#include "tst_pole_blocks.moc"
