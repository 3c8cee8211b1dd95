/// The CPU worker pool (core/WorkerPool.hpp): every index of a range is run exactly once whatever the
/// thread count and grain, and pools of short-lived threads shut down even when their workers start
/// after the pool is already being destroyed (a worker that first saw the final generation used to
/// wait for a change that had already happened, and the thread's exit hung in the join).
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "yee/core/ThreadGovernor.hpp"
#include "yee/core/WorkerPool.hpp"

using namespace yee;

namespace {
struct Hits {
    std::vector<std::atomic<int>>* v;
};
void mark(const void* ctx, std::int64_t b, std::int64_t e) {
    auto& v = *static_cast<const Hits*>(ctx)->v;
    for (std::int64_t i = b; i < e; ++i)
        v[std::size_t(i)].fetch_add(1, std::memory_order_relaxed);
}
/// A machine seen by a governor: the rate (ranges per second) and caller wait share of a window run on
/// `threads` threads.
struct Machine {
    double rate[5]; ///< by thread count 1..4
    double wait[5];
};

/// `windows` windows of `m` under governor `g` asked for `asked` threads; returns the thread count of
/// every window.
std::vector<int> drive(ThreadGovernor& g, int asked, const Machine& m, int windows) {
    std::vector<int> used;
    for (int w = 0; w < windows; ++w) {
        const int t = g.threads(asked);
        used.push_back(t);
        g.windowClosed(m.rate[t], m.wait[t]);
    }
    return used;
}
int count(const std::vector<int>& v, int x) {
    return int(std::count(v.begin(), v.end(), x));
}
} // namespace

class tst_WorkerPool : public QObject {
    Q_OBJECT
private slots:
    void everyIndexOnce() {
        for (const int threads : {1, 2, 3, 5})
            for (const std::int64_t grain : {1, 7, 64, 1000})
                for (const std::int64_t count : {1, 13, 1000, 100003}) {
                    std::vector<std::atomic<int>> v(static_cast<std::size_t>(count));
                    const Hits h{&v};
                    WorkerPool::run(threads, count, grain, mark, &h);
                    for (std::int64_t i = 0; i < count; ++i)
                        QVERIFY2(v[std::size_t(i)].load() == 1,
                                 qPrintable(QString("threads %1 grain %2 count %3 index %4: %5 times")
                                                .arg(threads)
                                                .arg(grain)
                                                .arg(count)
                                                .arg(i)
                                                .arg(v[std::size_t(i)].load())));
                }
    }

    void shortLivedThreadsShutDown() {
        // Each thread makes its own pool, runs one range and exits at once, destroying the pool while
        // its workers may not have started. 400 of them, 8 at a time: a lost shutdown hangs here.
        std::atomic<std::int64_t> total{0};
        for (int round = 0; round < 50; ++round) {
            std::vector<std::thread> ts;
            for (int k = 0; k < 8; ++k)
                ts.emplace_back([&] {
                    std::vector<std::atomic<int>> v(256);
                    const Hits h{&v};
                    WorkerPool::run(3, 256, 4, mark, &h);
                    std::int64_t s = 0;
                    for (auto& x : v)
                        s += x.load();
                    total += s;
                });
            for (auto& t : ts)
                t.join();
        }
        QCOMPARE(total.load(), std::int64_t(50 * 8 * 256));
    }

    // ---- the thread governor (core/ThreadGovernor.hpp), on simulated machines ----

    void governorKeepsAllThreadsAlone() {
        // Cores to itself: 2 threads 1.9x as fast as 1, the caller waits 10 % of a window for its worker.
        ThreadGovernor g;
        const Machine alone{{0, 1000, 1900, 0, 0}, {0, 0, 0.10, 0, 0}};
        const std::vector<int> used = drive(g, 2, alone, 500);
        QCOMPARE(count(used, 2), 500); // never probes down, and is at the top: nothing to probe up
    }

    void governorFollowsTheFreeCores() {
        // Next to a busy job: 2 threads wait 40 % for a worker off its core and run slower than 1.
        ThreadGovernor g;
        const Machine loaded{{0, 650, 520, 0, 0}, {0, 0, 0.40, 0, 0}};
        std::vector<int> used = drive(g, 2, loaded, 64);
        QCOMPARE(used[0], 2);
        QCOMPARE(used[1], 1); // the probe down after the first window: two windows, won, kept
        QCOMPARE(used[2], 1);
        // Then on 1 thread, with two-window probes back up after 2, 4, 8, 16 and 16 steady windows (each
        // lost; the wait between them is capped at kMaxUpInterval).
        for (const int w : {5, 6, 11, 12, 21, 22, 39, 40, 57, 58})
            QCOMPARE(used[std::size_t(w)], 2);
        QCOMPARE(count(used, 2), 1 + 10);
        // The busy job ends: the next probe up (at most kMaxUpInterval windows on) wins, and the governor
        // stays on 2.
        const Machine alone{{0, 1000, 1900, 0, 0}, {0, 0, 0.10, 0, 0}};
        used = drive(g, 2, alone, 200);
        QVERIFY(count(used, 1) <= ThreadGovernor::kMaxUpInterval);
        const auto firstTwo = std::find(used.begin(), used.end(), 2) - used.begin();
        QCOMPARE(count(std::vector<int>(used.begin() + firstTwo, used.end()), 1), 0);
    }

    void governorBacksOffFailedProbes() {
        // The caller waits a lot (uneven chunks), but 2 threads are still faster: every probe down loses,
        // and the waits between them double up to kMaxInterval.
        ThreadGovernor g;
        const Machine uneven{{0, 1000, 1500, 0, 0}, {0, 0, 0.35, 0, 0}};
        const std::vector<int> used = drive(g, 2, uneven, 1000);
        std::vector<int> starts; // first window of each probe
        for (std::size_t w = 1; w < used.size(); ++w) {
            if (used[w] == 1 && used[w - 1] == 2)
                starts.push_back(int(w));
            if (used[w] == 1 && used[w - 1] == 1) // a probe is two windows, never more
                QVERIFY(w >= 2 && used[w - 2] == 2);
        }
        QCOMPARE(starts.front(), 1);
        QVERIFY2(starts.size() >= 8 && starts.size() <= 11, qPrintable(QString::number(starts.size())));
        for (std::size_t p = 2; p < starts.size(); ++p) {
            const int gap = starts[p] - starts[p - 1], before = starts[p - 1] - starts[p - 2];
            QVERIFY(gap >= before);
            QVERIFY(gap <= ThreadGovernor::kMaxInterval + ThreadGovernor::kProbeWindows + 1);
        }
        QCOMPARE(count(used, 1), 2 * int(starts.size()));
    }

    void governorHalvesAndRestarts() {
        // Four threads asked for; the best is 2 (two cores taken): 4 -> 2 is kept, 2 -> 1 and 2 -> 4 lose.
        ThreadGovernor g;
        const Machine half{{0, 500, 900, 0, 600}, {0, 0, 0.30, 0, 0.50}};
        const std::vector<int> used = drive(g, 4, half, 40);
        QCOMPARE(used[0], 4);
        QCOMPARE(used[1], 2); // the probe down from 4 wins
        QCOMPARE(used[3], 2); // measured steady, waits 30 %
        QCOMPARE(used[4], 1); // the probe down from 2 loses
        QCOMPARE(used[6], 2);
        QCOMPARE(used[12], 4); // a probe up, lost
        QCOMPARE(used[14], 2);
        QVERIFY2(count(used, 2) >= 24, qPrintable(QString::number(count(used, 2))));
        QVERIFY(count(used, 3) == 0);
        // A pause restarts at the asked-for count; a different count asked for starts over there.
        g.restart();
        QCOMPARE(g.threads(4), 4);
        QCOMPARE(g.threads(3), 3);
    }
};

QTEST_GUILESS_MAIN(tst_WorkerPool)
#include "tst_worker_pool.moc"
