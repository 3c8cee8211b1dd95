#pragma once
/// \file CommScenarios.hpp
/// Communication programs shared by the LocalComm and MpiComm tests. Each scenario is run by every rank
/// with its own Communicator and returns the failures it saw (empty: all good). Nothing here uses Qt Test
/// macros, because scenarios run on worker threads (LocalComm) or on ranks that must stay in step (MPI).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "yee/comm/Communicator.hpp"

namespace yee::comm::test {

/// Collects failures of one rank.
struct Checker {
    int rank = 0;
    std::vector<std::string> failures;
    bool check(bool ok, const std::string& what) {
        if (!ok && failures.size() < 20)
            failures.push_back("rank " + std::to_string(rank) + ": " + what);
        return ok;
    }
};

inline std::uint64_t bitsOf(double d) {
    std::uint64_t u = 0;
    std::memcpy(&u, &d, sizeof u);
    return u;
}

inline std::string hexBits(double d) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g (0x%016llx)", d, static_cast<unsigned long long>(bitsOf(d)));
    return buf;
}

// ------------------------------------------------------------------------------------------------
// Ring exchange: each rank sends to its right (tag 0) and left (tag 1) neighbour on a periodic ring.

/// Doubles rank `src` sends to each neighbour.
inline int ringCount(int src) {
    return 3 + src % 4;
}

/// Exact (integer-valued) pattern of element i of the message src -> dst with `tag` at iteration `it`.
inline double ringValue(int src, int dst, int tag, int i, int it) {
    const std::int64_t key = ((std::int64_t(it) * 16 + src) * 16 + dst) * 4 + tag;
    return double(key) * 1000.0 + double(i);
}

/// A ring exchange plan with its buffers; the group points into the buffers (keep this object in place).
struct Ring {
    int rank = 0, size = 1, left = 0, right = 0;
    std::vector<double> toRight, toLeft, fromLeft, fromRight;
    ExchangeGroup group;

    Ring(int r, int n) : rank(r), size(n), left((r + n - 1) % n), right((r + 1) % n) {
        toRight.resize(static_cast<std::size_t>(ringCount(r)));
        toLeft.resize(static_cast<std::size_t>(ringCount(r)));
        fromLeft.resize(static_cast<std::size_t>(ringCount(left)));
        fromRight.resize(static_cast<std::size_t>(ringCount(right)));
        auto msg = [](int peer, int tag, std::vector<double>& v) {
            return Message{peer, tag, v.data(), std::int64_t(v.size() * sizeof(double))};
        };
        group.sends = {msg(right, 0, toRight), msg(left, 1, toLeft)};
        group.recvs = {msg(left, 0, fromLeft), msg(right, 1, fromRight)};
    }
    Ring(const Ring&) = delete;
    Ring& operator=(const Ring&) = delete;

    void pack(int it) {
        for (std::size_t i = 0; i < toRight.size(); ++i)
            toRight[i] = ringValue(rank, right, 0, int(i), it);
        for (std::size_t i = 0; i < toLeft.size(); ++i)
            toLeft[i] = ringValue(rank, left, 1, int(i), it);
        std::fill(fromLeft.begin(), fromLeft.end(), -1.0);
        std::fill(fromRight.begin(), fromRight.end(), -1.0);
    }
    void verify(Checker& ck, int it) const {
        for (std::size_t i = 0; i < fromLeft.size(); ++i)
            if (!ck.check(fromLeft[i] == ringValue(left, rank, 0, int(i), it),
                          "ring it " + std::to_string(it) + ": fromLeft[" + std::to_string(i) +
                              "] = " + std::to_string(fromLeft[i])))
                return;
        for (std::size_t i = 0; i < fromRight.size(); ++i)
            if (!ck.check(fromRight[i] == ringValue(right, rank, 1, int(i), it),
                          "ring it " + std::to_string(it) + ": fromRight[" + std::to_string(i) +
                              "] = " + std::to_string(fromRight[i])))
                return;
    }
    /// Overwrites the send buffers (a receiver still reading them after finish would see this).
    void scribble() {
        std::fill(toRight.begin(), toRight.end(), -7.0);
        std::fill(toLeft.begin(), toLeft.end(), -7.0);
    }
    /// Bytes of this rank's sends to other ranks (self-sends excluded), per exchange.
    std::int64_t bytesToOthers() const {
        if (size == 1)
            return 0;
        return std::int64_t((toRight.size() + toLeft.size()) * sizeof(double));
    }
};

/// `iterations` ring exchanges reusing the same buffers and group.
inline std::vector<std::string> scenarioRing(Communicator& c, int iterations, Phase phase = Phase::Forward) {
    Checker ck{c.rank(), {}};
    Ring ring(c.rank(), c.size());
    for (int it = 0; it < iterations && ck.failures.empty(); ++it) {
        ring.pack(it);
        c.exchangeStart(ring.group, phase);
        c.exchangeFinish(ring.group);
        ring.scribble();
        ring.verify(ck, it);
    }
    return ck.failures;
}

/// Two groups outstanding at once (finished in reverse order), and two messages with the same peer and tag
/// in one group, which must arrive in the order they were listed.
inline std::vector<std::string> scenarioTwoGroups(Communicator& c, int iterations) {
    Checker ck{c.rank(), {}};
    const int n = c.size(), r = c.rank(), right = (r + 1) % n, left = (r + n - 1) % n;
    std::array<std::vector<double>, 2> sendA, recvA;
    std::vector<double> sendB(4), recvB(4);
    for (auto& v : sendA)
        v.resize(5);
    for (auto& v : recvA)
        v.resize(5);
    ExchangeGroup a, b;
    for (int k = 0; k < 2; ++k) {
        a.sends.push_back(Message{right, 7, sendA[std::size_t(k)].data(), 5 * 8});
        a.recvs.push_back(Message{left, 7, recvA[std::size_t(k)].data(), 5 * 8});
    }
    b.sends.push_back(Message{left, 7, sendB.data(), 4 * 8});
    b.recvs.push_back(Message{right, 7, recvB.data(), 4 * 8});
    for (int it = 0; it < iterations && ck.failures.empty(); ++it) {
        for (int k = 0; k < 2; ++k)
            for (int i = 0; i < 5; ++i)
                sendA[std::size_t(k)][std::size_t(i)] = ringValue(r, right, k, i, it);
        for (int i = 0; i < 4; ++i)
            sendB[std::size_t(i)] = ringValue(r, left, 3, i, it);
        c.exchangeStart(a, Phase::Adjoint);
        c.exchangeStart(b, Phase::Adjoint);
        c.exchangeFinish(b);
        c.exchangeFinish(a);
        for (int k = 0; k < 2; ++k)
            for (int i = 0; i < 5; ++i)
                ck.check(recvA[std::size_t(k)][std::size_t(i)] == ringValue(left, r, k, i, it),
                         "two groups: A message " + std::to_string(k) + " out of order or corrupt");
        for (int i = 0; i < 4; ++i)
            ck.check(recvB[std::size_t(i)] == ringValue(right, r, 3, i, it), "two groups: B corrupt");
    }
    return ck.failures;
}

// ------------------------------------------------------------------------------------------------
// 3-D periodic face-halo exchange on a px x py x pz tile grid.

/// Factorises n into a tile grid: prime factors, largest first, each to the axis with the smallest product.
inline std::array<int, 3> tileGrid(int n) {
    std::vector<int> f;
    for (int m = n, p = 2; m > 1;) {
        if (m % p == 0) {
            f.push_back(p);
            m /= p;
        } else {
            ++p;
        }
    }
    std::sort(f.rbegin(), f.rend());
    std::array<int, 3> d{1, 1, 1};
    for (int p : f) {
        int a = 0;
        for (int k = 1; k < 3; ++k)
            if (d[std::size_t(k)] < d[std::size_t(a)])
                a = k;
        d[std::size_t(a)] *= p;
    }
    return d;
}

inline std::vector<std::string> scenarioHalo3d(Communicator& c, int iterations) {
    Checker ck{c.rank(), {}};
    const std::array<int, 3> p = tileGrid(c.size());
    const std::array<int, 3> nloc{4, 3, 2};
    const std::array<int, 3> L{nloc[0] + 2, nloc[1] + 2, nloc[2] + 2};
    const std::array<int, 3> G{p[0] * nloc[0], p[1] * nloc[1], p[2] * nloc[2]};
    const int r = c.rank();
    const std::array<int, 3> me{r % p[0], (r / p[0]) % p[1], r / (p[0] * p[1])};
    auto rankOf = [&p](std::array<int, 3> q) {
        for (int a = 0; a < 3; ++a)
            q[std::size_t(a)] = (q[std::size_t(a)] + p[std::size_t(a)]) % p[std::size_t(a)];
        return q[0] + p[0] * (q[1] + p[1] * q[2]);
    };
    auto idx = [&L](int i, int j, int k) { return std::size_t(i + L[0] * (j + L[1] * k)); };
    auto value = [&G](std::array<int, 3> g, int it) {
        for (int a = 0; a < 3; ++a)
            g[std::size_t(a)] = (g[std::size_t(a)] + G[std::size_t(a)]) % G[std::size_t(a)];
        return double(g[0] + 100 * g[1] + 10000 * g[2] + 1000000 * it) + 0.25;
    };
    std::vector<double> field(std::size_t(L[0] * L[1] * L[2]));

    // Slab along axis a at local index `at`: iterate the other two axes' interior in a fixed order.
    auto forSlab = [&](int a, int at, auto&& fn) {
        const int b = (a + 1) % 3, d = (a + 2) % 3;
        std::size_t n = 0;
        for (int v = 1; v <= nloc[std::size_t(d)]; ++v)
            for (int u = 1; u <= nloc[std::size_t(b)]; ++u) {
                std::array<int, 3> q{};
                q[std::size_t(a)] = at;
                q[std::size_t(b)] = u;
                q[std::size_t(d)] = v;
                fn(n++, idx(q[0], q[1], q[2]), q);
            }
    };
    // Buffers: [axis][0 = low face, 1 = high face].
    std::array<std::array<std::vector<double>, 2>, 3> sendBuf, recvBuf;
    ExchangeGroup g;
    for (int a = 0; a < 3; ++a) {
        const std::size_t face = std::size_t(nloc[std::size_t((a + 1) % 3)] * nloc[std::size_t((a + 2) % 3)]);
        for (int s = 0; s < 2; ++s) {
            sendBuf[std::size_t(a)][std::size_t(s)].resize(face);
            recvBuf[std::size_t(a)][std::size_t(s)].resize(face);
        }
        std::array<int, 3> minus = me, plus = me;
        minus[std::size_t(a)] -= 1;
        plus[std::size_t(a)] += 1;
        const auto bytes = std::int64_t(face * sizeof(double));
        // My low face goes to the minus neighbour (its high halo): tag 2a. High face to plus: tag 2a+1.
        g.sends.push_back(Message{rankOf(minus), 2 * a, sendBuf[std::size_t(a)][0].data(), bytes});
        g.sends.push_back(Message{rankOf(plus), 2 * a + 1, sendBuf[std::size_t(a)][1].data(), bytes});
        g.recvs.push_back(Message{rankOf(plus), 2 * a, recvBuf[std::size_t(a)][1].data(), bytes});
        g.recvs.push_back(Message{rankOf(minus), 2 * a + 1, recvBuf[std::size_t(a)][0].data(), bytes});
    }
    auto global = [&](std::array<int, 3> q) {
        for (int a = 0; a < 3; ++a)
            q[std::size_t(a)] = me[std::size_t(a)] * nloc[std::size_t(a)] + q[std::size_t(a)] - 1;
        return q;
    };

    for (int it = 0; it < iterations && ck.failures.empty(); ++it) {
        std::fill(field.begin(), field.end(), -1.0);
        for (int k = 1; k <= nloc[2]; ++k)
            for (int j = 1; j <= nloc[1]; ++j)
                for (int i = 1; i <= nloc[0]; ++i)
                    field[idx(i, j, k)] = value(global({i, j, k}), it);
        for (int a = 0; a < 3; ++a) {
            forSlab(a, 1,
                    [&](std::size_t n, std::size_t at, auto) { sendBuf[std::size_t(a)][0][n] = field[at]; });
            forSlab(a, nloc[std::size_t(a)],
                    [&](std::size_t n, std::size_t at, auto) { sendBuf[std::size_t(a)][1][n] = field[at]; });
        }
        c.exchangeStart(g, Phase::Forward);
        c.exchangeFinish(g);
        for (int a = 0; a < 3; ++a) {
            forSlab(a, 0,
                    [&](std::size_t n, std::size_t at, auto) { field[at] = recvBuf[std::size_t(a)][0][n]; });
            forSlab(a, nloc[std::size_t(a)] + 1,
                    [&](std::size_t n, std::size_t at, auto) { field[at] = recvBuf[std::size_t(a)][1][n]; });
        }
        // Every face-halo cell must hold the periodic neighbour's value.
        for (int a = 0; a < 3 && ck.failures.empty(); ++a)
            for (int at : {0, nloc[std::size_t(a)] + 1})
                forSlab(a, at, [&](std::size_t, std::size_t pos, std::array<int, 3> q) {
                    const double want = value(global(q), it);
                    ck.check(field[pos] == want,
                             "halo axis " + std::to_string(a) + " at " + std::to_string(at) + ": got " +
                                 std::to_string(field[pos]) + " want " + std::to_string(want));
                });
    }
    return ck.failures;
}

// ------------------------------------------------------------------------------------------------
// All-reduce bits.

/// A deterministic spread of magnitudes and signs (splitmix64), so the sum depends on the order.
inline double wildValue(int rank, int i, int it) {
    std::uint64_t z = std::uint64_t(rank) * 0x9E3779B97F4A7C15ULL + std::uint64_t(i) * 0xBF58476D1CE4E5B9ULL +
                      std::uint64_t(it) * 0x94D049BB133111EBULL + 12345;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    const double mant = double(z >> 11) / double(1ULL << 53); // [0, 1)
    const int expo = int((z >> 3) % 41) - 20;                 // 1e-20 .. 1e20
    const double sign = (z & 1U) ? -1.0 : 1.0;
    return sign * (0.5 + mant) * std::pow(10.0, expo);
}

/// Elements chosen so that the rank order matters (e.g. 1e16 + 1 - 1e16 = 0 but 1e16 - 1e16 + 1 = 1).
inline double contribution(int rank, int i, int it) {
    static const double cancel[8] = {1e16, 1.0, -1e16, 1.0, 0.5, -3.0, 1e-8, 7.0};
    static const double cancel2[8] = {1.0, 1e16, -1e16, -1.0, 1e16, 0.25, -1e16, 3.0};
    if (i == 0)
        return cancel[rank % 8] + (rank >= 8 ? double(rank) : 0.0);
    if (i == 1)
        return cancel2[rank % 8];
    if (i == 2)
        return rank == 0 ? -0.0 : (rank % 2 ? 1e-300 : -1e-300);
    return wildValue(rank, i, it);
}

/// The reference: contributions summed strictly in rank order, starting from rank 0's value.
inline double rankOrderSum(int size, int i, int it) {
    double s = contribution(0, i, it);
    for (int r = 1; r < size; ++r)
        s += contribution(r, i, it);
    return s;
}

inline constexpr int kReduceElems = 64;

/// `iterations` all-reduces; each result must equal the rank-order sum bit for bit. The result of the last
/// iteration is returned in `last` (to compare across communicators).
inline std::vector<std::string> scenarioAllReduceBits(Communicator& c, int iterations,
                                                      std::vector<double>* last = nullptr) {
    Checker ck{c.rank(), {}};
    std::vector<double> v(kReduceElems);
    for (int it = 0; it < iterations && ck.failures.empty(); ++it) {
        for (int i = 0; i < kReduceElems; ++i)
            v[std::size_t(i)] = contribution(c.rank(), i, it);
        c.allReduceSum(v, Phase::Adjoint);
        for (int i = 0; i < kReduceElems; ++i) {
            const double want = rankOrderSum(c.size(), i, it);
            ck.check(bitsOf(v[std::size_t(i)]) == bitsOf(want),
                     "allReduceSum it " + std::to_string(it) + " elem " + std::to_string(i) + ": got " +
                         hexBits(v[std::size_t(i)]) + " want " + hexBits(want));
        }
    }
    if (last)
        *last = v;
    return ck.failures;
}

inline std::vector<std::string> scenarioIntAndMax(Communicator& c) {
    Checker ck{c.rank(), {}};
    const int n = c.size(), r = c.rank();
    std::vector<std::int64_t> iv{std::int64_t(r) + 1, (std::int64_t(1) << 52) + r, -std::int64_t(3) * r, 0};
    c.allReduceSumInt(iv, Phase::Forward);
    std::int64_t s0 = 0, s1 = 0, s2 = 0;
    for (int q = 0; q < n; ++q) {
        s0 += q + 1;
        s1 += (std::int64_t(1) << 52) + q;
        s2 += -3 * q;
    }
    ck.check(iv[0] == s0 && iv[1] == s1 && iv[2] == s2 && iv[3] == 0, "allReduceSumInt wrong");

    // Max: element 0 = rank, 1 = NaN on the last rank, 2 = signed zeros, 3 = all -inf except rank 0 = -1.
    std::vector<double> mv{double(r), r == n - 1 ? std::nan("") : 1.0, r % 2 ? 0.0 : -0.0,
                           r == 0 ? -1.0 : -INFINITY};
    c.allReduceMax(mv, Phase::Forward);
    ck.check(mv[0] == double(n - 1), "allReduceMax elem 0: got " + std::to_string(mv[0]));
    ck.check(std::isnan(mv[1]), "allReduceMax elem 1: NaN must propagate");
    // Rank order: rank 0's -0.0 is kept (+0.0 is not greater than -0.0).
    ck.check(bitsOf(mv[2]) == bitsOf(-0.0), "allReduceMax elem 2: got " + hexBits(mv[2]));
    ck.check(mv[3] == -1.0, "allReduceMax elem 3");
    return ck.failures;
}

// ------------------------------------------------------------------------------------------------
// Gather and broadcast.

inline std::vector<char> blobOf(int rank, int salt) {
    std::vector<char> b(std::size_t((rank * 13 + salt) % 7 == 3 ? 0 : 5 + (rank * 37 + salt) % 50));
    for (std::size_t i = 0; i < b.size(); ++i)
        b[i] = char((rank * 31 + int(i) * 7 + salt) & 0x7f);
    return b;
}

inline std::vector<std::string> scenarioGatherBroadcast(Communicator& c) {
    Checker ck{c.rank(), {}};
    const int n = c.size(), r = c.rank();
    for (int root : {0, n - 1, n / 2}) {
        for (int salt : {0, 3}) {
            std::vector<std::vector<char>> out{{'x'}};
            c.gather(blobOf(r, salt + root), out, root, Phase::Output);
            if (r == root) {
                if (!ck.check(int(out.size()) == n,
                              "gather: root has " + std::to_string(out.size()) + " blobs"))
                    continue;
                for (int q = 0; q < n; ++q)
                    ck.check(out[std::size_t(q)] == blobOf(q, salt + root),
                             "gather to root " + std::to_string(root) + ": blob of rank " +
                                 std::to_string(q));
            } else {
                ck.check(out.empty(), "gather: non-root out must be cleared");
            }
        }
        for (std::size_t len : {std::size_t(0), std::size_t(1), std::size_t(1000)}) {
            std::vector<char> data(len, char(r == root ? 0 : 99));
            if (r == root)
                for (std::size_t i = 0; i < len; ++i)
                    data[i] = char((i * 11 + std::size_t(root)) & 0x7f);
            c.broadcast(data, root, Phase::Setup);
            bool ok = true;
            for (std::size_t i = 0; i < len; ++i)
                ok = ok && data[i] == char((i * 11 + std::size_t(root)) & 0x7f);
            ck.check(ok,
                     "broadcast from root " + std::to_string(root) + " of " + std::to_string(len) + " bytes");
        }
    }
    return ck.failures;
}

// ------------------------------------------------------------------------------------------------
// Pinned CommStats.

/// The fixed program whose counts are pinned: 10 ring exchanges (Forward), 3 allReduceSum of 5 doubles
/// (Adjoint), 2 allReduceSumInt of 3 (Forward), 1 allReduceMax of 1 (Reconstruct), 1 gather of 10 + rank
/// bytes to root 0 (Output), 1 broadcast of 32 bytes from the last rank (Setup), 4 barriers (Setup).
inline void statsProgram(Communicator& c) {
    Ring ring(c.rank(), c.size());
    for (int it = 0; it < 10; ++it) {
        ring.pack(it);
        c.exchangeStart(ring.group, Phase::Forward);
        c.exchangeFinish(ring.group);
    }
    for (int k = 0; k < 3; ++k) {
        std::vector<double> v(5, 1.0);
        c.allReduceSum(v, Phase::Adjoint);
    }
    for (int k = 0; k < 2; ++k) {
        std::vector<std::int64_t> v(3, 1);
        c.allReduceSumInt(v, Phase::Forward);
    }
    std::vector<double> m(1, double(c.rank()));
    c.allReduceMax(m, Phase::Reconstruct);
    std::vector<std::vector<char>> out;
    c.gather(std::vector<char>(std::size_t(10 + c.rank()), 'g'), out, 0, Phase::Output);
    std::vector<char> b(32, 'b');
    c.broadcast(b, c.size() - 1, Phase::Setup);
    for (int k = 0; k < 4; ++k)
        c.barrier(Phase::Setup);
}

/// The expected table of statsProgram() for `rank` of `size` (see Accounting.hpp for the rules).
inline CommStats expectedStats(int rank, int size) {
    CommStats e;
    auto set = [&e](Phase p, Kind k, std::int64_t calls, std::int64_t bytes) {
        e.calls[std::size_t(p)][std::size_t(k)] = calls;
        e.bytes[std::size_t(p)][std::size_t(k)] = bytes;
    };
    const bool multi = size > 1;
    const std::int64_t ringBytes = multi ? 2 * 8 * ringCount(rank) : 0; // both neighbours are other ranks
    set(Phase::Forward, Kind::HaloExchange, 10, 10 * ringBytes);
    set(Phase::Adjoint, Kind::AllReduce, 3, multi ? 3 * 5 * 8 : 0);
    set(Phase::Forward, Kind::AllReduce, 2, multi ? 2 * 3 * 8 : 0);
    set(Phase::Reconstruct, Kind::AllReduce, 1, multi ? 8 : 0);
    set(Phase::Output, Kind::Gather, 1, rank == 0 ? 0 : 10 + rank);
    set(Phase::Setup, Kind::Broadcast, 1, (multi && rank == size - 1) ? 32 : 0);
    set(Phase::Setup, Kind::Barrier, 4, 0);
    return e;
}

/// Compares two tables entry by entry; returns the differences.
inline std::vector<std::string> diffStats(int rank, const CommStats& got, const CommStats& want) {
    Checker ck{rank, {}};
    for (int p = 0; p < kPhaseCount; ++p)
        for (int k = 0; k < kKindCount; ++k) {
            const std::string where = std::string(phaseName(Phase(p))) + "/" + kindName(Kind(k));
            const auto gc = got.calls[std::size_t(p)][std::size_t(k)],
                       wc = want.calls[std::size_t(p)][std::size_t(k)];
            const auto gb = got.bytes[std::size_t(p)][std::size_t(k)],
                       wb = want.bytes[std::size_t(p)][std::size_t(k)];
            ck.check(gc == wc, where + " calls: got " + std::to_string(gc) + " want " + std::to_string(wc));
            ck.check(gb == wb, where + " bytes: got " + std::to_string(gb) + " want " + std::to_string(wb));
        }
    return ck.failures;
}

inline std::vector<std::string> scenarioStats(Communicator& c) {
    c.stats().reset();
    statsProgram(c);
    return diffStats(c.rank(), c.stats(), expectedStats(c.rank(), c.size()));
}

/// Runs `fn` and turns an escaping exception into a failure (so ranks never lose step in a test).
template <class F> std::vector<std::string> guarded(int rank, F&& fn) {
    try {
        return fn();
    } catch (const std::exception& e) {
        return {"rank " + std::to_string(rank) + ": exception: " + e.what()};
    }
}

} // namespace yee::comm::test
