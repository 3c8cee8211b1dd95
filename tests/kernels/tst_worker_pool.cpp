/// The CPU worker pool (core/WorkerPool.hpp): every index of a range is run exactly once whatever the
/// thread count and grain, and pools of short-lived threads shut down even when their workers start
/// after the pool is already being destroyed (a worker that first saw the final generation used to
/// wait for a change that had already happened, and the thread's exit hung in the join).
#include <QtTest>

#include <atomic>
#include <thread>
#include <vector>

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
};

QTEST_GUILESS_MAIN(tst_WorkerPool)
#include "tst_worker_pool.moc"
