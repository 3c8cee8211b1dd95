// NcclComm over NcclHub: one thread per visible GPU in this process. Every test function skips (with the
// reason) when there is no GPU, or fewer than it needs, so the binary passes on machines without CUDA.
//
// Two kinds of tests:
//  - device tests: halo messages in device memory (cudaMalloc), packed and checked through explicit copies
//    on the rank's compute stream, as the solver does;
//  - the shared communicator scenarios of tests/comm/CommScenarios.hpp (written for host buffers), run
//    through DeviceMirror, which mirrors every exchange buffer in device memory. Their results must be the
//    bits LocalComm gives, and the CommStats of the wrapped NcclComm the numbers of Accounting.hpp (compared
//    with a LocalHub run of the same program).
#include <QtTest>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "comm/CommScenarios.hpp"
#include "comm/HubRun.hpp"
#include "gpu/GpuRequired.hpp"
#include "yee/comm/LocalComm.hpp"
#include "yee/comm/NcclComm.hpp"
#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"

using namespace std::chrono_literals;
using namespace yee::comm;
using namespace yee::comm::test;

namespace {

/// Skips the calling test function unless at least `n` GPUs are visible (fails in GPU-required mode).
#define REQUIRE_GPUS(n) YEE_REQUIRE_GPUS(n)

/// Throws std::runtime_error naming the CUDA call (scenarios turn it into a failure).
void ck(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// Visible GPUs 0..count-1, at most `max`.
std::vector<int> gpuList(int max = 8) {
    std::vector<int> d;
    for (int i = 0; i < yee::cuda::deviceCount() && i < max; ++i)
        d.push_back(i);
    return d;
}

/// A device allocation freed on scope exit.
struct DevMem {
    void* p = nullptr;
    explicit DevMem(std::size_t bytes) {
        if (bytes > 0)
            ck(cudaMalloc(&p, bytes), "cudaMalloc");
    }
    ~DevMem() {
        if (p)
            cudaFree(p);
    }
    DevMem(const DevMem&) = delete;
    DevMem& operator=(const DevMem&) = delete;
};

/// A compute stream on the current device, set on the communicator for the scope.
struct ComputeStream {
    cudaStream_t s = nullptr;
    Communicator* c = nullptr;
    explicit ComputeStream(Communicator& comm) : c(&comm) {
        ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        c->setStream(s);
    }
    ~ComputeStream() {
        c->setStream(nullptr);
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
    }
    ComputeStream(const ComputeStream&) = delete;
    ComputeStream& operator=(const ComputeStream&) = delete;
};

/// Runs host-buffer scenarios over an NcclComm: every exchange buffer gets a device mirror; sends are copied
/// in on the compute stream before exchangeStart, receives copied out after exchangeFinish (then the compute
/// stream is waited for). Collectives pass straight through. Counting happens in the wrapped NcclComm (read
/// its stats(), not this adapter's).
class DeviceMirror final : public Communicator {
public:
    DeviceMirror(NcclComm& c, cudaStream_t s) : c_(c), s_(s) {}
    ~DeviceMirror() override {
        cudaStreamSynchronize(s_);
        for (auto& [g, m] : mirrors_)
            release(m);
    }
    DeviceMirror(const DeviceMirror&) = delete;
    DeviceMirror& operator=(const DeviceMirror&) = delete;

    int rank() const override { return c_.rank(); }
    int size() const override { return c_.size(); }
    bool deviceMessages() const override { return false; }

    void exchangeStart(ExchangeGroup& g, Phase phase) override {
        Mirror& m = mirror(g);
        for (std::size_t i = 0; i < g.sends.size(); ++i)
            if (g.sends[i].bytes > 0)
                ck(cudaMemcpyAsync(m.group.sends[i].data, g.sends[i].data, std::size_t(g.sends[i].bytes),
                                   cudaMemcpyHostToDevice, s_),
                   "cudaMemcpyAsync (mirror send)");
        for (const Message& r : m.group.recvs) // poison: a receive that is not filled shows
            if (r.bytes > 0)
                ck(cudaMemsetAsync(r.data, 0xEE, std::size_t(r.bytes), s_), "cudaMemsetAsync (mirror recv)");
        c_.exchangeStart(m.group, phase);
    }
    void exchangeFinish(ExchangeGroup& g) override {
        auto it = mirrors_.find(&g);
        if (it == mirrors_.end())
            throw std::runtime_error("DeviceMirror: exchangeFinish of an unknown group");
        Mirror& m = it->second;
        c_.exchangeFinish(m.group);
        for (std::size_t i = 0; i < g.recvs.size(); ++i)
            if (g.recvs[i].bytes > 0)
                ck(cudaMemcpyAsync(g.recvs[i].data, m.group.recvs[i].data, std::size_t(g.recvs[i].bytes),
                                   cudaMemcpyDeviceToHost, s_),
                   "cudaMemcpyAsync (mirror recv)");
        ck(cudaStreamSynchronize(s_), "cudaStreamSynchronize");
    }
    void allReduceSum(std::span<double> v, Phase p) override { c_.allReduceSum(v, p); }
    void allReduceSumInt(std::span<std::int64_t> v, Phase p) override { c_.allReduceSumInt(v, p); }
    void allReduceMax(std::span<double> v, Phase p) override { c_.allReduceMax(v, p); }
    void gather(const std::vector<char>& mine, std::vector<std::vector<char>>& out, int root,
                Phase p) override {
        c_.gather(mine, out, root, p);
    }
    void broadcast(std::span<char> data, int root, Phase p) override { c_.broadcast(data, root, p); }
    void barrier(Phase p) override { c_.barrier(p); }
    void fail(const std::string& msg) noexcept override { c_.fail(msg); }

private:
    struct Mirror {
        ExchangeGroup group; ///< same peers, tags and sizes; data in device memory
    };
    static bool sameLayout(const std::vector<Message>& a, const std::vector<Message>& b) {
        if (a.size() != b.size())
            return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i].peer != b[i].peer || a[i].tag != b[i].tag || a[i].bytes != b[i].bytes)
                return false;
        return true;
    }
    static void release(Mirror& m) {
        for (auto* list : {&m.group.sends, &m.group.recvs})
            for (Message& x : *list)
                if (x.data)
                    cudaFree(x.data);
    }
    /// The mirror of `g` (scenarios reuse stack addresses: a different layout at a known address is rebuilt).
    Mirror& mirror(const ExchangeGroup& g) {
        auto it = mirrors_.find(&g);
        if (it != mirrors_.end() && sameLayout(it->second.group.sends, g.sends) &&
            sameLayout(it->second.group.recvs, g.recvs))
            return it->second;
        if (it != mirrors_.end()) {
            ck(cudaStreamSynchronize(s_), "cudaStreamSynchronize");
            release(it->second);
            mirrors_.erase(it);
        }
        Mirror& m = mirrors_[&g];
        auto copyList = [](const std::vector<Message>& from, std::vector<Message>& to) {
            for (const Message& x : from) {
                Message d{x.peer, x.tag, nullptr, x.bytes};
                if (x.bytes > 0)
                    ck(cudaMalloc(&d.data, std::size_t(x.bytes)), "cudaMalloc (mirror)");
                to.push_back(d);
            }
        };
        copyList(g.sends, m.group.sends);
        copyList(g.recvs, m.group.recvs);
        return m;
    }

    NcclComm& c_;
    cudaStream_t s_;
    std::map<const ExchangeGroup*, Mirror> mirrors_;
};

/// Runs `scenario(comm)` (comm: the rank's Communicator) on an NcclHub over `devices`; returns all failures
/// joined. With `mirrored`, the scenario gets a DeviceMirror over the NcclComm with its own compute stream.
/// `stats` receives each rank's NcclComm counts.
template <class F>
QString runNccl(const std::vector<int>& devices, bool mirrored, F&& scenario,
                std::vector<CommStats>* stats = nullptr) {
    const int n = int(devices.size());
    std::vector<std::vector<std::string>> fails(static_cast<std::size_t>(n));
    if (stats)
        stats->assign(std::size_t(n), CommStats{});
    try {
        NcclHub hub(devices);
        hub.run([&](NcclComm& c) {
            const std::size_t r = std::size_t(c.rank());
            fails[r] = guarded(c.rank(), [&] {
                c.stats().reset();
                std::vector<std::string> f;
                if (mirrored) {
                    ComputeStream cs(c);
                    DeviceMirror m(c, cs.s);
                    f = scenario(static_cast<Communicator&>(m));
                } else {
                    f = scenario(static_cast<Communicator&>(c));
                }
                if (stats)
                    (*stats)[r] = c.stats();
                return f;
            });
            if (!fails[r].empty())
                throw std::runtime_error("rank " + std::to_string(r) + " failed"); // stop the others
        });
    } catch (const std::exception& e) {
        fails[0].push_back(std::string("NcclHub threw: ") + e.what());
    }
    return joinFailures(fails);
}

/// The same program on a LocalHub of `n` ranks (the CPU reference).
template <class F> QString runLocal(int n, F&& scenario, std::vector<CommStats>* stats = nullptr) {
    return runLocalHub(
        n, [&](LocalComm& c) { return guarded(c.rank(), [&] { return scenario(c); }); }, stats);
}

/// Ring exchange with device buffers: rank r sends ringCount(r) doubles right (tag 0) and left (tag 1).
/// Packing, scribbling and checking go through copies on the compute stream (or, without one, through
/// synchronous cudaMemcpy and the communicator's host wait).
std::vector<std::string> deviceRing(NcclComm& c, int iterations, bool withStream) {
    Checker chk{c.rank(), {}};
    const int n = c.size(), r = c.rank(), right = (r + 1) % n, left = (r + n - 1) % n;
    const std::size_t mine = std::size_t(ringCount(r)), fromL = std::size_t(ringCount(left)),
                      fromR = std::size_t(ringCount(right));
    DevMem toRight(mine * 8), toLeft(mine * 8), fromLeft(fromL * 8), fromRight(fromR * 8);
    ExchangeGroup g;
    g.sends = {Message{right, 0, toRight.p, std::int64_t(mine * 8)},
               Message{left, 1, toLeft.p, std::int64_t(mine * 8)}};
    g.recvs = {Message{left, 0, fromLeft.p, std::int64_t(fromL * 8)},
               Message{right, 1, fromRight.p, std::int64_t(fromR * 8)}};
    std::vector<double> hr(mine), hl(mine), gotL(fromL), gotR(fromR);
    cudaStream_t s = nullptr;
    if (withStream) {
        ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        c.setStream(s);
    } else {
        c.setStream(nullptr);
    }
    for (int it = 0; it < iterations && chk.failures.empty(); ++it) {
        for (std::size_t i = 0; i < mine; ++i) {
            hr[i] = ringValue(r, right, 0, int(i), it);
            hl[i] = ringValue(r, left, 1, int(i), it);
        }
        if (withStream) {
            ck(cudaMemcpyAsync(toRight.p, hr.data(), mine * 8, cudaMemcpyHostToDevice, s), "pack");
            ck(cudaMemcpyAsync(toLeft.p, hl.data(), mine * 8, cudaMemcpyHostToDevice, s), "pack");
            ck(cudaMemsetAsync(fromLeft.p, 0xEE, fromL * 8, s), "poison");
            ck(cudaMemsetAsync(fromRight.p, 0xEE, fromR * 8, s), "poison");
            c.exchangeStart(g, Phase::Forward);
            c.exchangeFinish(g);
            // Ordered after the transfer by exchangeFinish: must not reach the receivers.
            ck(cudaMemsetAsync(toRight.p, 0x77, mine * 8, s), "scribble");
            ck(cudaMemsetAsync(toLeft.p, 0x77, mine * 8, s), "scribble");
            ck(cudaMemcpyAsync(gotL.data(), fromLeft.p, fromL * 8, cudaMemcpyDeviceToHost, s), "unpack");
            ck(cudaMemcpyAsync(gotR.data(), fromRight.p, fromR * 8, cudaMemcpyDeviceToHost, s), "unpack");
            ck(cudaStreamSynchronize(s), "cudaStreamSynchronize");
        } else {
            ck(cudaMemcpy(toRight.p, hr.data(), mine * 8, cudaMemcpyHostToDevice), "pack");
            ck(cudaMemcpy(toLeft.p, hl.data(), mine * 8, cudaMemcpyHostToDevice), "pack");
            ck(cudaMemset(fromLeft.p, 0xEE, fromL * 8), "poison");
            ck(cudaMemset(fromRight.p, 0xEE, fromR * 8), "poison");
            c.exchangeStart(g, Phase::Forward);
            c.exchangeFinish(g); // waits on the host without a compute stream
            ck(cudaMemcpy(gotL.data(), fromLeft.p, fromL * 8, cudaMemcpyDeviceToHost), "unpack");
            ck(cudaMemcpy(gotR.data(), fromRight.p, fromR * 8, cudaMemcpyDeviceToHost), "unpack");
        }
        for (std::size_t i = 0; i < fromL; ++i)
            if (!chk.check(gotL[i] == ringValue(left, r, 0, int(i), it),
                           "device ring it " + std::to_string(it) + ": fromLeft[" + std::to_string(i) +
                               "] = " + std::to_string(gotL[i])))
                break;
        for (std::size_t i = 0; i < fromR; ++i)
            if (!chk.check(gotR[i] == ringValue(right, r, 1, int(i), it),
                           "device ring it " + std::to_string(it) + ": fromRight[" + std::to_string(i) +
                               "] = " + std::to_string(gotR[i])))
                break;
    }
    c.setStream(nullptr);
    if (s) {
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
    }
    const std::int64_t want = n > 1 ? std::int64_t(iterations) * 2 * std::int64_t(mine) * 8 : 0;
    chk.check(c.stats().callsOf(Phase::Forward, Kind::HaloExchange) == iterations,
              "device ring: HaloExchange calls " +
                  std::to_string(c.stats().callsOf(Phase::Forward, Kind::HaloExchange)));
    chk.check(c.stats().bytesOf(Phase::Forward, Kind::HaloExchange) == want,
              "device ring: HaloExchange bytes " +
                  std::to_string(c.stats().bytesOf(Phase::Forward, Kind::HaloExchange)) + " want " +
                  std::to_string(want));
    return chk.failures;
}

std::string caughtMessage(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const yee::RunError& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("(not a RunError) ") + e.what();
    }
    return "(nothing thrown)";
}

} // namespace

class tst_Nccl : public QObject {
    Q_OBJECT

private slots:
    /// NCCL is opened at first use: on every machine the loader either reaches the library or says why
    /// (no GPU needed), and the entry points answer accordingly.
    void loaderAnswers() {
        std::string why;
        if (ncclLoadable(&why)) {
            QVERIFY(why.empty());
            const std::string text = ncclGetErrorString(ncclInvalidArgument);
            QVERIFY(!text.empty());
            QVERIFY2(text.find("could not be loaded") == std::string::npos, text.c_str());
        } else {
            QVERIFY2(why.find("libnccl") != std::string::npos, why.c_str());
            const std::string text = ncclGetErrorString(ncclSystemError);
            QVERIFY2(text.find("could not be loaded") != std::string::npos, text.c_str());
            ncclUniqueId id;
            QCOMPARE(ncclGetUniqueId(&id), ncclSystemError);
        }
    }
    void built() {
        REQUIRE_GPUS(1);
        std::string why;
        QVERIFY2(ncclLoadable(&why), why.c_str());
        NcclHub hub({0});
        QCOMPARE(hub.size(), 1);
        hub.run([](NcclComm& c) {
            if (c.rank() != 0 || c.size() != 1 || c.cudaDevice() != 0 || !c.deviceMessages())
                throw std::runtime_error("wrong rank, size, device or deviceMessages()");
        });
    }

    /// Ring exchange of device buffers over every visible GPU (a ring of one: both messages are
    /// self-messages).
    void deviceRingExchange_data() {
        QTest::addColumn<bool>("withStream");
        QTest::newRow("compute stream") << true;
        QTest::newRow("no stream (host wait)") << false;
    }
    void deviceRingExchange() {
        REQUIRE_GPUS(1);
        QFETCH(bool, withStream);
        const QString f = runNccl(gpuList(), false, [withStream](Communicator& c) {
            return deviceRing(dynamic_cast<NcclComm&>(c), 50, withStream);
        });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// Same on exactly two GPUs (messages really cross NCCL).
    void deviceRingTwoGpus() {
        REQUIRE_GPUS(2);
        const QString f = runNccl(
            {0, 1}, false, [](Communicator& c) { return deviceRing(dynamic_cast<NcclComm&>(c), 50, true); });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// Two GPUs, several messages to the same peer: matched by tag (receives listed in another order than
    /// the sends), and in listed order among equal tags, as MPI and LocalComm do.
    void tagMatchingTwoGpus() {
        REQUIRE_GPUS(2);
        const QString f = runNccl({0, 1}, false, [](Communicator& comm) {
            auto& c = dynamic_cast<NcclComm&>(comm);
            Checker chk{c.rank(), {}};
            const int peer = 1 - c.rank();
            // Sends (in this order): tag 5 (5 doubles), tag 3 (3 doubles, first), tag 3 (3 doubles, second).
            auto value = [](int src, int k, int i) { return double(src * 1000 + k * 100 + i); };
            const int counts[3] = {5, 3, 3};
            DevMem s0(40), s1(24), s2(24), r0(24), r1(40), r2(24);
            void* sends[3] = {s0.p, s1.p, s2.p};
            for (int k = 0; k < 3; ++k) {
                std::vector<double> h(static_cast<std::size_t>(counts[k]));
                for (int i = 0; i < counts[k]; ++i)
                    h[std::size_t(i)] = value(c.rank(), k, i);
                ck(cudaMemcpy(sends[k], h.data(), h.size() * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
            }
            ExchangeGroup g;
            g.sends = {Message{peer, 5, s0.p, 40}, Message{peer, 3, s1.p, 24}, Message{peer, 3, s2.p, 24}};
            // Receives: tag 3 (gets the peer's first tag-3 message), tag 5, tag 3 (its second).
            g.recvs = {Message{peer, 3, r0.p, 24}, Message{peer, 5, r1.p, 40}, Message{peer, 3, r2.p, 24}};
            c.exchangeStart(g, Phase::Forward);
            c.exchangeFinish(g);
            const std::pair<void*, int> expect[3] = {
                {r0.p, 1}, {r1.p, 0}, {r2.p, 2}}; // which send of the peer
            for (const auto& [buf, k] : expect) {
                std::vector<double> h(static_cast<std::size_t>(counts[k]));
                ck(cudaMemcpy(h.data(), buf, h.size() * 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
                for (int i = 0; i < counts[k]; ++i)
                    chk.check(h[std::size_t(i)] == value(peer, k, i),
                              "message " + std::to_string(k) + " of rank " + std::to_string(peer) +
                                  " element " + std::to_string(i) + ": got " +
                                  std::to_string(h[std::size_t(i)]));
            }
            chk.check(c.stats().bytesOf(Phase::Forward, Kind::HaloExchange) == 88, "bytes to the peer");
            return chk.failures;
        });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// One rank: self-messages are matched by tag in group order (here listed in a different order than the
    /// receives, plus an empty one), copied on the device, and count 0 bytes.
    void selfExchangeOneRank() {
        REQUIRE_GPUS(1);
        const QString f = runNccl({0}, false, [](Communicator& comm) {
            auto& c = dynamic_cast<NcclComm&>(comm);
            Checker chk{0, {}};
            std::vector<double> a(5), b(3);
            for (std::size_t i = 0; i < a.size(); ++i)
                a[i] = 10.0 + double(i);
            for (std::size_t i = 0; i < b.size(); ++i)
                b[i] = -20.0 - double(i);
            DevMem sa(40), sb(24), ra(40), rb(24);
            ck(cudaMemcpy(sa.p, a.data(), 40, cudaMemcpyHostToDevice), "cudaMemcpy");
            ck(cudaMemcpy(sb.p, b.data(), 24, cudaMemcpyHostToDevice), "cudaMemcpy");
            ExchangeGroup g;
            g.sends = {Message{0, 4, sa.p, 40}, Message{0, 9, sb.p, 24}, Message{0, 2, nullptr, 0}};
            g.recvs = {Message{0, 2, nullptr, 0}, Message{0, 9, rb.p, 24}, Message{0, 4, ra.p, 40}};
            c.exchangeStart(g, Phase::Forward);
            c.exchangeFinish(g);
            std::vector<double> gotA(5), gotB(3);
            ck(cudaMemcpy(gotA.data(), ra.p, 40, cudaMemcpyDeviceToHost), "cudaMemcpy");
            ck(cudaMemcpy(gotB.data(), rb.p, 24, cudaMemcpyDeviceToHost), "cudaMemcpy");
            chk.check(gotA == a, "self-message tag 4 wrong");
            chk.check(gotB == b, "self-message tag 9 wrong");
            chk.check(c.stats().callsOf(Phase::Forward, Kind::HaloExchange) == 1, "one HaloExchange call");
            chk.check(c.stats().bytesOf(Phase::Forward, Kind::HaloExchange) == 0, "self-sends count 0 bytes");

            // A self-receive whose size differs from its send is refused before anything is posted.
            ExchangeGroup bad;
            bad.sends = {Message{0, 1, sa.p, 40}};
            bad.recvs = {Message{0, 1, rb.p, 24}};
            const std::string m = caughtMessage([&] { c.exchangeStart(bad, Phase::Forward); });
            chk.check(
                m.find("rank 0: exchangeStart: recvs[0] expects 24 bytes from rank 0 (tag 1) but the send "
                       "has 40") != std::string::npos,
                "size mismatch message: " + m);
            chk.check(c.stats().callsOf(Phase::Forward, Kind::HaloExchange) == 2,
                      "a refused start is counted");
            c.barrier(Phase::Setup); // still usable
            return chk.failures;
        });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// The host-buffer scenarios of the LocalComm and MpiComm tests, through device mirrors.
    void scenarios_data() {
        QTest::addColumn<QString>("name");
        for (const char* s : {"ring", "repeated ring", "two groups", "halo3d"})
            QTest::newRow(s) << QString::fromLatin1(s);
    }
    void scenarios() {
        REQUIRE_GPUS(1);
        QFETCH(QString, name);
        const QString f = runNccl(gpuList(), true, [name](Communicator& c) -> std::vector<std::string> {
            if (name == "ring")
                return scenarioRing(c, 1);
            if (name == "repeated ring")
                return scenarioRing(c, 200);
            if (name == "two groups")
                return scenarioTwoGroups(c, 50);
            return scenarioHalo3d(c, 10);
        });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// Halo exchange on two GPUs: two messages to the same peer along x distinguished by tag, self-messages
    /// along y and z.
    void halo3dTwoGpus() {
        REQUIRE_GPUS(2);
        const QString f = runNccl({0, 1}, true, [](Communicator& c) { return scenarioHalo3d(c, 10); });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// allReduceSum: the rank-order sum, bit for bit, and the same bits as LocalComm.
    void allReduceSumBits() {
        REQUIRE_GPUS(1);
        const std::vector<int> d = gpuList();
        const int n = int(d.size());
        std::vector<std::vector<double>> gpuLast(static_cast<std::size_t>(n)),
            cpuLast(static_cast<std::size_t>(n));
        QString f = runNccl(d, false, [&](Communicator& c) {
            return scenarioAllReduceBits(c, 20, &gpuLast[std::size_t(c.rank())]);
        });
        QVERIFY2(f.isEmpty(), qPrintable(f));
        f = runLocal(n, [&](Communicator& c) {
            return scenarioAllReduceBits(c, 20, &cpuLast[std::size_t(c.rank())]);
        });
        QVERIFY2(f.isEmpty(), qPrintable(f));
        for (int r = 0; r < n; ++r) {
            QCOMPARE(gpuLast[std::size_t(r)].size(), std::size_t(kReduceElems));
            QVERIFY(std::memcmp(gpuLast[std::size_t(r)].data(), cpuLast[std::size_t(r)].data(),
                                kReduceElems * 8) == 0);
        }
    }

    /// allReduceSumInt (exact) and allReduceMax (NaN propagates, rank-order signed zeros).
    void allReduceIntAndMax() {
        REQUIRE_GPUS(1);
        const QString f = runNccl(gpuList(), false, [](Communicator& c) { return scenarioIntAndMax(c); });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// Gather of blobs of different sizes (some empty) to several roots; broadcasts of 0, 1, 1000 bytes.
    void gatherBroadcast() {
        REQUIRE_GPUS(1);
        const QString f =
            runNccl(gpuList(), false, [](Communicator& c) { return scenarioGatherBroadcast(c); });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// A larger gather and broadcast (beyond the initial 64 KiB staging: the buffers grow).
    void largeGatherBroadcast() {
        REQUIRE_GPUS(1);
        const QString f = runNccl(gpuList(), false, [](Communicator& c) {
            Checker chk{c.rank(), {}};
            const int n = c.size(), r = c.rank();
            auto blob = [](int q) {
                std::vector<char> b(std::size_t(100000 + 7 * q));
                for (std::size_t i = 0; i < b.size(); ++i)
                    b[i] = char((i * 13 + std::size_t(q) * 5) & 0x7f);
                return b;
            };
            std::vector<std::vector<char>> out;
            c.gather(blob(r), out, n - 1, Phase::Output);
            if (r == n - 1) {
                chk.check(int(out.size()) == n, "gather: root has " + std::to_string(out.size()) + " blobs");
                for (int q = 0; q < n && q < int(out.size()); ++q)
                    chk.check(out[std::size_t(q)] == blob(q), "gather: blob of rank " + std::to_string(q));
            } else {
                chk.check(out.empty(), "gather: non-root out must be cleared");
            }
            std::vector<char> data(300000, char(r == 0 ? 0 : 1));
            if (r == 0)
                for (std::size_t i = 0; i < data.size(); ++i)
                    data[i] = char((i * 7) & 0x7f);
            c.broadcast(data, 0, Phase::Setup);
            bool ok = true;
            for (std::size_t i = 0; i < data.size(); ++i)
                ok = ok && data[i] == char((i * 7) & 0x7f);
            chk.check(ok, "broadcast of 300000 bytes");
            return chk.failures;
        });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// A barrier holds every rank until the last one arrives (rank 0 arrives late).
    void barrierOrders() {
        REQUIRE_GPUS(1);
        std::atomic<int> arrived{0};
        const QString f = runNccl(gpuList(), false, [&arrived](Communicator& c) {
            Checker chk{c.rank(), {}};
            for (int k = 0; k < 3; ++k) {
                if (c.rank() == 0)
                    std::this_thread::sleep_for(50ms);
                arrived.fetch_add(1);
                c.barrier(Phase::Setup);
                chk.check(arrived.load() >= (k + 1) * c.size(),
                          "left barrier " + std::to_string(k) + " early");
                c.barrier(Phase::Setup); // nobody starts the next round before all have checked
            }
            chk.check(c.stats().callsOf(Phase::Setup, Kind::Barrier) == 6, "barrier calls");
            chk.check(c.stats().bytesOf(Phase::Setup, Kind::Barrier) == 0, "barrier bytes");
            return chk.failures;
        });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// The pinned program of CommScenarios: counts and bytes as Accounting.hpp says, equal to LocalComm's.
    void statsMatchLocalComm() {
        REQUIRE_GPUS(1);
        const std::vector<int> d = gpuList();
        const int n = int(d.size());
        std::vector<CommStats> gpu, cpu;
        QString f = runNccl(
            d, true,
            [](Communicator& c) {
                statsProgram(c);
                return std::vector<std::string>{};
            },
            &gpu);
        QVERIFY2(f.isEmpty(), qPrintable(f));
        f = runLocal(
            n,
            [](Communicator& c) {
                statsProgram(c);
                return std::vector<std::string>{};
            },
            &cpu);
        QVERIFY2(f.isEmpty(), qPrintable(f));
        QCOMPARE(int(gpu.size()), n);
        QCOMPARE(int(cpu.size()), n);
        QStringList diffs;
        for (int r = 0; r < n; ++r) {
            for (const auto& s : diffStats(r, gpu[std::size_t(r)], expectedStats(r, n)))
                diffs << QStringLiteral("vs Accounting: ") + QString::fromStdString(s);
            for (const auto& s : diffStats(r, gpu[std::size_t(r)], cpu[std::size_t(r)]))
                diffs << QStringLiteral("vs LocalComm: ") + QString::fromStdString(s);
        }
        QVERIFY2(diffs.isEmpty(), qPrintable(diffs.join('\n')));
        QCOMPARE(gpu[0].totalCalls(Kind::HaloExchange), qint64(10));
        QCOMPARE(gpu[0].totalCalls(Kind::AllReduce), qint64(6));
        QCOMPARE(gpu[0].totalCalls(Kind::Barrier), qint64(4));
    }

    /// Invalid arguments throw RunError naming the entry, are still counted, and leave the communicator
    /// usable.
    void invalidArguments() {
        REQUIRE_GPUS(1);
        const QString f = runNccl({0}, false, [](Communicator& comm) {
            auto& c = dynamic_cast<NcclComm&>(comm);
            Checker chk{0, {}};
            DevMem buf(64);
            ExchangeGroup g;
            g.sends = {Message{1, 0, buf.p, 8}};
            std::string m = caughtMessage([&] { c.exchangeStart(g, Phase::Forward); });
            chk.check(m.find("rank 0: exchangeStart: sends[0].peer = 1: outside [0, 1)") != std::string::npos,
                      m);
            g.sends = {Message{0, -1, buf.p, 8}};
            m = caughtMessage([&] { c.exchangeStart(g, Phase::Forward); });
            chk.check(m.find("sends[0].tag = -1: must be >= 0") != std::string::npos, m);
            g.sends = {Message{0, 0, nullptr, 8}};
            m = caughtMessage([&] { c.exchangeStart(g, Phase::Forward); });
            chk.check(m.find("sends[0].data: null with bytes > 0") != std::string::npos, m);
            m = caughtMessage([&] { c.exchangeFinish(g); });
            chk.check(m.find("rank 0: exchangeFinish: group was not started") != std::string::npos, m);
            ExchangeGroup ok;
            ok.sends = {Message{0, 3, buf.p, 8}};
            ok.recvs = {Message{0, 3, static_cast<char*>(buf.p) + 32, 8}};
            c.exchangeStart(ok, Phase::Forward);
            m = caughtMessage([&] { c.exchangeStart(ok, Phase::Forward); });
            chk.check(m.find("this group is already started and not finished") != std::string::npos, m);
            c.exchangeFinish(ok);
            std::vector<std::vector<char>> out;
            m = caughtMessage([&] { c.gather({'a'}, out, 3, Phase::Output); });
            chk.check(m.find("rank 0: gather: root = 3: outside [0, 1)") != std::string::npos, m);
            std::vector<char> data(4);
            m = caughtMessage([&] { c.broadcast(data, -1, Phase::Setup); });
            chk.check(m.find("rank 0: broadcast: root = -1: outside [0, 1)") != std::string::npos, m);
            chk.check(c.stats().callsOf(Phase::Forward, Kind::HaloExchange) == 5,
                      "refused starts are counted");
            chk.check(c.stats().callsOf(Phase::Output, Kind::Gather) == 1, "refused gather is counted");
            chk.check(c.stats().callsOf(Phase::Setup, Kind::Broadcast) == 1, "refused broadcast is counted");
            std::vector<double> v{2.5};
            c.allReduceSum(v, Phase::Forward);
            chk.check(v[0] == 2.5, "allReduceSum of one rank after refused calls");
            return chk.failures;
        });
        QVERIFY2(f.isEmpty(), qPrintable(f));
    }

    /// fail(): every later call throws RunError with the message (and is still counted); the hub stays
    /// failed.
    void failThrowsLater() {
        REQUIRE_GPUS(1);
        NcclHub hub({0});
        std::string msg;
        std::int64_t barriers = 0;
        try {
            hub.run([&](NcclComm& c) {
                c.fail("tile 3 diverged");
                msg = caughtMessage([&] { c.barrier(Phase::Setup); });
                barriers = c.stats().callsOf(Phase::Setup, Kind::Barrier);
                std::vector<double> v{1.0};
                c.allReduceSum(v, Phase::Forward); // throws: run() rethrows it
            });
            QFAIL("run() must rethrow the failure");
        } catch (const yee::RunError& e) {
            QVERIFY2(std::string(e.what()).find("communication aborted: tile 3 diverged") !=
                         std::string::npos,
                     e.what());
        }
        QVERIFY2(msg.find("communication aborted: tile 3 diverged") != std::string::npos, msg.c_str());
        QCOMPARE(barriers, std::int64_t(1));
        bool threw = false;
        try {
            hub.run([](NcclComm& c) { c.barrier(Phase::Setup); });
        } catch (const yee::RunError&) {
            threw = true;
        }
        QVERIFY(threw);
    }

    /// A rank that throws wakes the ranks blocked in a collective with it; run() rethrows the first cause.
    void failureUnblocksOthers() {
        REQUIRE_GPUS(2);
        const std::vector<int> d = gpuList();
        const int n = int(d.size());
        NcclHub hub(d);
        std::atomic<int> woken{0};
        try {
            hub.run([&](NcclComm& c) {
                if (c.rank() == 0) {
                    std::this_thread::sleep_for(200ms); // let the others block in the all-reduce first
                    throw std::runtime_error("NaN in Ez");
                }
                std::vector<double> v(4, 1.0);
                try {
                    c.allReduceSum(v, Phase::Forward);
                } catch (const yee::RunError&) {
                    woken.fetch_add(1);
                    throw;
                }
            });
            QFAIL("run() must rethrow the failure");
        } catch (const std::exception& e) {
            QCOMPARE(QString::fromUtf8(e.what()), QStringLiteral("NaN in Ez"));
        }
        QCOMPARE(woken.load(), n - 1);
    }
};

QTEST_GUILESS_MAIN(tst_Nccl)
#include "tst_nccl.moc"
