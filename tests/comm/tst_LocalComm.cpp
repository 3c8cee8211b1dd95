// LocalComm: N emulated devices on N threads in one process.
#include <QtTest>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "comm/CommScenarios.hpp"
#include "comm/HubRun.hpp"
#include "yee/comm/LocalComm.hpp"
#include "yee/core/Error.hpp"

using namespace std::chrono_literals;
using namespace yee::comm;
using namespace yee::comm::test;

namespace {

/// Runs `scenario(comm)` on every rank of a fresh hub of `n` devices; returns all failures, joined.
template <class F> QString runAll(int n, F&& scenario, std::vector<CommStats>* stats = nullptr) {
    return runLocalHub(
        n, [&](LocalComm& c) { return scenario(c); }, stats, "run()");
}

void addCounts(std::initializer_list<int> ns) {
    QTest::addColumn<int>("n");
    for (int n : ns)
        QTest::newRow(qPrintable(QStringLiteral("N=%1").arg(n))) << n;
}

} // namespace

class tst_LocalComm : public QObject {
    Q_OBJECT

private slots:
    void ringExchange_data() { addCounts({1, 2, 3, 4, 8}); }
    void ringExchange() {
        QFETCH(int, n);
        const QString f = runAll(n, [](Communicator& c) { return scenarioRing(c, 1); });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// 1000 exchanges reusing the same buffers and group; senders scribble their buffers right after finish.
    void repeatedExchange_data() { addCounts({1, 2, 3, 4, 8}); }
    void repeatedExchange() {
        QFETCH(int, n);
        const QString f = runAll(n, [](Communicator& c) { return scenarioRing(c, 1000); });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// Periodic 3-D face halos on the tile grid of N (1x1x1, 2x1x1, 3x1x1, 2x2x1, 2x2x2): self-sends on
    /// axes with one tile, two messages to the same peer (distinguished by tag) on axes with two.
    void periodicHalo3d_data() { addCounts({1, 2, 3, 4, 8}); }
    void periodicHalo3d() {
        QFETCH(int, n);
        const QString f = runAll(n, [](Communicator& c) { return scenarioHalo3d(c, 20); });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    void twoGroupsOutstanding_data() { addCounts({1, 2, 3, 4, 8}); }
    void twoGroupsOutstanding() {
        QFETCH(int, n);
        const QString f = runAll(n, [](Communicator& c) { return scenarioTwoGroups(c, 200); });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    void allReduceSumBits_data() { addCounts({1, 2, 3, 4, 8}); }
    void allReduceSumBits() {
        QFETCH(int, n);
        // The data really is order-dependent: rank order gives 0, another order gives 1.
        QCOMPARE(bitsOf(rankOrderSum(3, 0, 0)), bitsOf(0.0));
        QCOMPARE((contribution(0, 0, 0) + contribution(2, 0, 0)) + contribution(1, 0, 0), 1.0);
        // One rank returns its input bit for bit, -0.0 included.
        QCOMPARE(bitsOf(rankOrderSum(1, 2, 0)), bitsOf(-0.0));

        std::vector<std::vector<double>> results(static_cast<std::size_t>(n));
        const QString f = runAll(n, [&](Communicator& c) {
            return scenarioAllReduceBits(c, 50, &results[std::size_t(c.rank())]);
        });
        QVERIFY2(f.isEmpty(), qPrintable(f));
        for (int r = 1; r < n; ++r)
            QVERIFY(std::memcmp(results[0].data(), results[std::size_t(r)].data(),
                                kReduceElems * sizeof(double)) == 0);
    }

    void allReduceIntAndMax_data() { addCounts({1, 2, 3, 4, 8}); }
    void allReduceIntAndMax() {
        QFETCH(int, n);
        const QString f = runAll(n, [](Communicator& c) { return scenarioIntAndMax(c); });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    void gatherBroadcast_data() { addCounts({1, 2, 3, 4, 8}); }
    void gatherBroadcast() {
        QFETCH(int, n);
        const QString f = runAll(n, [](Communicator& c) { return scenarioGatherBroadcast(c); });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    void barrierOrders_data() { addCounts({1, 2, 3, 4, 8}); }
    void barrierOrders() {
        QFETCH(int, n);
        std::vector<std::atomic<int>> reached(static_cast<std::size_t>(n));
        const QString f = runAll(n, [&](Communicator& c) {
            Checker ck{c.rank(), {}};
            for (int it = 1; it <= 200 && ck.failures.empty(); ++it) {
                reached[std::size_t(c.rank())].store(it);
                c.barrier(Phase::Setup);
                for (int q = 0; q < c.size(); ++q)
                    ck.check(reached[std::size_t(q)].load() >= it, "barrier " + std::to_string(it) +
                                                                       ": rank " + std::to_string(q) +
                                                                       " not there yet");
            }
            return ck.failures;
        });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// 10 exchanges + 3 allReduceSum + 2 allReduceSumInt + 1 allReduceMax + gather + broadcast + 4 barriers:
    /// every entry of every rank's calls and bytes tables pinned.
    void statsPinned_data() { addCounts({1, 2, 3, 4, 8}); }
    void statsPinned() {
        QFETCH(int, n);
        std::vector<CommStats> stats;
        const QString f = runAll(
            n, [](Communicator& c) { return scenarioStats(c); }, &stats);
        QVERIFY2(f.isEmpty(), qPrintable(f));
        for (int r = 0; r < n; ++r) {
            const CommStats& s = stats[std::size_t(r)];
            QCOMPARE(s.callsOf(Phase::Forward, Kind::HaloExchange), qint64(10));
            QCOMPARE(s.callsOf(Phase::Adjoint, Kind::AllReduce), qint64(3));
            QCOMPARE(s.totalCalls(Kind::AllReduce), qint64(6));
            QCOMPARE(s.totalCalls(Kind::HaloExchange), qint64(10));
            QCOMPARE(s.totalCalls(Kind::Barrier), qint64(4));
            QCOMPARE(s.bytesOf(Phase::Forward, Kind::HaloExchange),
                     qint64(n == 1 ? 0 : 10 * 2 * 8 * ringCount(r)));
        }
    }

    /// Self-sends are copies, not traffic: a 1-tile periodic axis counts no bytes, a 2-tile one does.
    void selfSendBytesNotCounted() {
        LocalHub hub(1);
        std::vector<double> a(10), b(10);
        ExchangeGroup g;
        g.sends.push_back(Message{0, 0, a.data(), 80});
        g.recvs.push_back(Message{0, 0, b.data(), 80});
        for (int i = 0; i < 10; ++i)
            a[std::size_t(i)] = i * 1.5;
        LocalComm& c = hub.endpoint(0);
        c.exchangeStart(g, Phase::Forward);
        c.exchangeFinish(g);
        QCOMPARE(b, a);
        QCOMPARE(c.stats().callsOf(Phase::Forward, Kind::HaloExchange), qint64(1));
        QCOMPARE(c.stats().bytesOf(Phase::Forward, Kind::HaloExchange), qint64(0));
    }

    /// hub.abort() wakes ranks blocked in exchangeFinish, barrier and allReduceSum; every one throws RunError
    /// carrying the message, and so does any later call.
    void abortWakesWaiters_data() { addCounts({1, 2, 3, 4, 8}); }
    void abortWakesWaiters() {
        QFETCH(int, n);
        LocalHub hub(n);
        hub.setTimeout(60s);
        std::vector<std::string> caught(static_cast<std::size_t>(n));
        hub.run([&](LocalComm& c) {
            const int r = c.rank();
            std::vector<double> sendBuf(4, 1.0), recvBuf(4);
            try {
                if (r == n - 1) {
                    std::this_thread::sleep_for(50ms);
                    hub.abort("tile " + std::to_string(r) + " failed: NaN in Ez");
                    c.barrier(Phase::Forward);
                    caught[std::size_t(r)] = "later call returned normally";
                    return;
                }
                if (r % 3 == 0) {
                    // Publishes a send the aborting rank never receives, waits for a message it never sends.
                    ExchangeGroup g;
                    g.sends.push_back(Message{n - 1, 6, sendBuf.data(), 32});
                    g.recvs.push_back(Message{n - 1, 5, recvBuf.data(), 32});
                    c.exchangeStart(g, Phase::Forward);
                    c.exchangeFinish(g);
                } else if (r % 3 == 1) {
                    c.barrier(Phase::Forward);
                } else {
                    c.allReduceSum(recvBuf, Phase::Forward);
                }
                caught[std::size_t(r)] = "returned normally";
            } catch (const yee::RunError& e) {
                caught[std::size_t(r)] = e.what();
            }
        });
        QVERIFY(hub.aborted());
        QCOMPARE(QString::fromStdString(hub.abortMessage()),
                 QStringLiteral("tile %1 failed: NaN in Ez").arg(n - 1));
        for (int r = 0; r < n; ++r)
            QVERIFY2(caught[std::size_t(r)].find("failed: NaN in Ez") != std::string::npos,
                     qPrintable(QStringLiteral("rank %1: %2")
                                    .arg(r)
                                    .arg(QString::fromStdString(caught[std::size_t(r)]))));
        // The hub stays aborted.
        QVERIFY_THROWS_EXCEPTION(yee::RunError, hub.endpoint(0).barrier(Phase::Setup));
    }

    /// run(): a body that throws aborts the hub (the others stop waiting) and its exception is rethrown.
    void runRethrowsPrimary_data() { addCounts({1, 2, 3, 4, 8}); }
    void runRethrowsPrimary() {
        QFETCH(int, n);
        LocalHub hub(n);
        hub.setTimeout(60s);
        std::atomic<int> woken{0};
        bool gotPrimary = false;
        try {
            hub.run([&](LocalComm& c) {
                if (c.rank() == n - 1)
                    throw std::logic_error("boom in tile");
                try {
                    c.barrier(Phase::Forward);
                } catch (const yee::RunError&) {
                    ++woken;
                    throw;
                }
            });
        } catch (const std::logic_error& e) {
            gotPrimary = std::string(e.what()) == "boom in tile";
        }
        QVERIFY(gotPrimary);
        QCOMPARE(woken.load(), n - 1);
        QVERIFY(hub.abortMessage().find("boom in tile") != std::string::npos);
    }

    /// Ranks calling different collectives (or different counts) all get RunError instead of wrong data.
    void collectiveMismatch_data() { addCounts({2, 3, 4, 8}); }
    void collectiveMismatch() {
        QFETCH(int, n);
        for (int variant = 0; variant < 2; ++variant) {
            LocalHub hub(n);
            hub.setTimeout(60s);
            std::atomic<int> thrown{0};
            hub.run([&](LocalComm& c) {
                try {
                    std::vector<double> v(c.rank() == 0 && variant == 1 ? 2 : 3, 1.0);
                    if (c.rank() == 0 && variant == 0)
                        c.barrier(Phase::Forward);
                    else
                        c.allReduceSum(v, Phase::Forward);
                } catch (const yee::RunError& e) {
                    if (std::string(e.what()).find("collective mismatch") != std::string::npos)
                        ++thrown;
                }
            });
            QCOMPARE(thrown.load(), n);
        }
    }

    /// A receive whose size differs from its send: both sides throw RunError naming the sizes.
    void exchangeSizeMismatch() {
        LocalHub hub(2);
        hub.setTimeout(60s);
        std::vector<std::string> caught(2);
        hub.run([&](LocalComm& c) {
            std::vector<double> buf(2, 3.0);
            ExchangeGroup g;
            if (c.rank() == 0)
                g.sends.push_back(Message{1, 0, buf.data(), 16});
            else
                g.recvs.push_back(Message{0, 0, buf.data(), 8});
            try {
                c.exchangeStart(g, Phase::Forward);
                c.exchangeFinish(g);
            } catch (const yee::RunError& e) {
                caught[std::size_t(c.rank())] = e.what();
            }
        });
        for (const auto& s : caught)
            QVERIFY2(s.find("expects 8 bytes from rank 0") != std::string::npos &&
                         s.find("has 16") != std::string::npos,
                     s.c_str());
    }

    /// A rank waiting for one that never comes fails after the hub's timeout instead of hanging.
    void timeoutAborts() {
        LocalHub hub(2);
        hub.setTimeout(100ms);
        QString msg;
        try {
            hub.run([](LocalComm& c) {
                if (c.rank() == 0)
                    c.barrier(Phase::Forward);
            });
        } catch (const yee::RunError& e) {
            msg = QString::fromUtf8(e.what());
        }
        QVERIFY2(msg.contains("rank 0: no progress for 100 ms in barrier"), qPrintable(msg));
    }

    void invalidArguments() {
        QVERIFY_THROWS_EXCEPTION(yee::InputError, LocalHub(0));
        LocalHub hub(2);
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, hub.endpoint(2));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, hub.endpoint(-1));

        std::vector<std::string> caught(2);
        hub.run([&](LocalComm& c) {
            try {
                if (c.rank() == 0) {
                    double x = 0;
                    ExchangeGroup g;
                    g.sends.push_back(Message{2, 0, &x, 8});
                    c.exchangeStart(g, Phase::Forward);
                } else {
                    c.barrier(Phase::Forward); // woken by the abort rank 0's error causes
                }
            } catch (const yee::RunError& e) {
                caught[std::size_t(c.rank())] = e.what();
            }
        });
        QVERIFY2(caught[0].find("sends[0].peer = 2: outside [0, 2)") != std::string::npos, caught[0].c_str());
        QVERIFY2(caught[1].find("sends[0].peer = 2") != std::string::npos, caught[1].c_str());

        LocalHub one(1);
        ExchangeGroup g;
        QVERIFY_THROWS_EXCEPTION(yee::RunError, one.endpoint(0).exchangeFinish(g)); // never started
        LocalHub other(1);
        std::vector<std::vector<char>> out;
        QVERIFY_THROWS_EXCEPTION(yee::RunError, other.endpoint(0).gather({}, out, 1, Phase::Output));
    }
};

QTEST_GUILESS_MAIN(tst_LocalComm)
#include "tst_LocalComm.moc"
