#include "yee/comm/LocalComm.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <stdexcept>
#include <thread>

#include "yee/comm/Accounting.hpp"
#include "yee/comm/RankThreads.hpp"
#include "yee/comm/Reduce.hpp"
#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"

namespace yee::comm {

namespace {

/// One published send. Lives in its sender's Outstanding record until the sender's exchangeFinish()
/// returns (or the sender fails after an abort, once no copy is in flight).
struct Posted {
    enum class State { Published, Copying, Consumed };
    int src = -1;
    int dst = -1;
    int tag = 0;
    const void* data = nullptr;
    std::int64_t bytes = 0;
    State state = State::Published;
};

/// A rank's staged contribution to one collective, plus the header used to detect mismatched calls.
struct Slot {
    int op = -1;
    int root = -1;
    std::int64_t count = 0;
    std::vector<char> data;
};

} // namespace

struct LocalHub::Impl {
    explicit Impl(int n) : cv(std::size_t(n)), inbox(std::size_t(n)) {
        for (auto& s : slots)
            s.resize(static_cast<std::size_t>(n));
    }

    std::mutex mu;
    /// cv[r] is waited on only by rank r's thread.
    std::vector<std::condition_variable> cv;
    /// Signalled when no copy out of a sender's buffer is in flight any more (used by the abort path).
    std::condition_variable idle;
    /// inbox[r]: published, not yet matched messages addressed to rank r, in publication order.
    std::vector<std::deque<Posted*>> inbox;
    /// Number of messages being copied right now (matched, lock released, memcpy running).
    int copying = 0;

    /// Collective rendezvous: `arrived` ranks are waiting for generation `gen` to end.
    int arrived = 0;
    std::uint64_t gen = 0;
    /// Double-buffered staging: collective k of every rank uses slots[k & 1]. A rank can only reach
    /// collective k + 2 after everyone has entered k + 1, i.e. finished reading k.
    std::array<std::vector<Slot>, 2> slots;

    /// Some rank's buffers are GPU memory (it set a stream): halo messages move by CUDA copies.
    std::atomic<bool> deviceBuffers{false};

    bool aborted = false;
    std::string abortMsg;
    std::chrono::milliseconds timeout{0};

    void notifyAll() {
        for (auto& c : cv)
            c.notify_all();
    }

    /// With `lk` held: marks the hub aborted (first message wins), withdraws unmatched messages, wakes all
    /// waiters, then waits until no copy is in flight.
    void abortLocked(std::unique_lock<std::mutex>& lk, const std::string& msg) {
        if (!aborted) {
            aborted = true;
            abortMsg = msg;
            for (auto& q : inbox)
                q.clear();
            notifyAll();
        }
        idle.wait(lk, [this] { return copying == 0; });
    }

    std::string abortError() const { return "communication aborted: " + abortMsg; }

    /// Waits on cv[rank] until `pred()` holds (returns true) or the hub is aborted (returns false).
    /// On timeout aborts the hub with a message naming the rank and `what`, and returns false.
    template <class Pred>
    bool waitUntil(std::unique_lock<std::mutex>& lk, int rank, const char* what, Pred pred) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        const bool bounded = timeout.count() > 0;
        for (;;) {
            if (aborted)
                return false;
            if (pred())
                return true;
            if (!bounded) {
                cv[std::size_t(rank)].wait(lk);
            } else if (cv[std::size_t(rank)].wait_until(lk, deadline) == std::cv_status::timeout) {
                if (aborted)
                    return false;
                if (pred())
                    return true;
                abortLocked(lk, "rank " + std::to_string(rank) + ": no progress for " +
                                    std::to_string(timeout.count()) + " ms in " + what);
                return false;
            }
        }
    }
};

enum class LocalComm::Op : int { Barrier = 0, SumDouble, SumInt, MaxDouble, Gather, Broadcast };

namespace {
const char* opName(int op) {
    switch (op) {
    case 0:
        return "barrier";
    case 1:
        return "allReduceSum";
    case 2:
        return "allReduceSumInt";
    case 3:
        return "allReduceMax";
    case 4:
        return "gather";
    case 5:
        return "broadcast";
    default:
        return "?";
    }
}
} // namespace

/// One started, not yet finished exchange group: its published sends and how many receives are still open.
struct LocalComm::Outstanding {
    const ExchangeGroup* group = nullptr;
    std::vector<Posted> posted;
    std::size_t recvsLeft = 0;
};

/// A posted receive, in the order receives were posted (exchangeStart order, then group order). Messages
/// are matched to the earliest open receive with the same source and tag, as MPI does with posted receives.
struct LocalComm::RecvSlot {
    Outstanding* owner = nullptr;
    std::size_t index = 0;
    bool taken = false;
};

// ---------------------------------------------------------------------------------------------------
// LocalComm

LocalComm::LocalComm(LocalHub& hub, int rank) : hub_(&hub), rank_(rank) {}
LocalComm::~LocalComm() = default;

int LocalComm::size() const {
    return hub_->size();
}

void LocalComm::abort(const std::string& msg) {
    hub_->abort(msg);
}

void LocalComm::failAborted(std::unique_lock<std::mutex>& lk) {
    LocalHub::Impl& I = *hub_->impl_;
    // Nobody may still be copying out of our send buffers once we throw (the caller will free them).
    // abort() withdrew every unmatched message, so once no copy is in flight none can start.
    I.idle.wait(lk, [&I] { return I.copying == 0; });
    recvQueue_.clear();
    outstanding_.clear();
    throw RunError(I.abortError());
}

void LocalComm::exchangeStart(ExchangeGroup& g, Phase phase) {
    stats_.count(phase, Kind::HaloExchange, accounting::exchangeBytes(g, rank_));
    LocalHub::Impl& I = *hub_->impl_;

    std::string err = accounting::validateGroup(g, size());
    if (err.empty())
        for (const auto& o : outstanding_)
            if (o->group == &g)
                err = "this group is already started and not finished";
    if (!err.empty()) {
        const std::string msg = "rank " + std::to_string(rank_) + ": exchangeStart: " + err;
        hub_->abort(msg);
        throw RunError(msg);
    }

    auto out = std::make_unique<Outstanding>();
    out->group = &g;
    out->recvsLeft = g.recvs.size();
    out->posted.resize(g.sends.size());
    for (std::size_t i = 0; i < g.sends.size(); ++i) {
        const Message& m = g.sends[i];
        out->posted[i] = Posted{rank_, m.peer, m.tag, m.data, m.bytes, Posted::State::Published};
    }

    std::unique_lock lk(I.mu);
    if (I.aborted)
        failAborted(lk);
    for (Posted& p : out->posted) {
        I.inbox[std::size_t(p.dst)].push_back(&p);
        I.cv[std::size_t(p.dst)].notify_all();
    }
    for (std::size_t i = 0; i < g.recvs.size(); ++i)
        recvQueue_.push_back(RecvSlot{out.get(), i, false});
    outstanding_.push_back(std::move(out));
}

void LocalComm::exchangeFinish(ExchangeGroup& g) {
    LocalHub::Impl& I = *hub_->impl_;
    auto it = std::find_if(outstanding_.begin(), outstanding_.end(),
                           [&g](const auto& o) { return o->group == &g; });
    if (it == outstanding_.end()) {
        const std::string msg = "rank " + std::to_string(rank_) + ": exchangeFinish: group was not started";
        hub_->abort(msg);
        throw RunError(msg);
    }
    Outstanding& mine = **it;

    struct Match {
        Posted* msg;
        RecvSlot* slot;
    };
    std::vector<Match> matched;
    auto recvOf = [](const RecvSlot& q) -> const Message& { return q.owner->group->recvs[q.index]; };

    std::unique_lock lk(I.mu);
    auto& box = I.inbox[std::size_t(rank_)];
    while (mine.recvsLeft > 0) {
        if (I.aborted)
            failAborted(lk);
        // Walk all open receives of this rank (any outstanding group) in posting order and give each the
        // first published message with its source and tag: MPI's matching rule. An earlier open receive with
        // the same key always takes the earlier message, so finishing groups out of order is safe.
        matched.clear();
        for (RecvSlot& q : recvQueue_) {
            if (q.taken)
                continue;
            const Message& r = recvOf(q);
            auto m = std::find_if(box.begin(), box.end(),
                                  [&r](const Posted* p) { return p->src == r.peer && p->tag == r.tag; });
            if (m == box.end())
                continue;
            Posted* p = *m;
            box.erase(m);
            if (p->bytes != r.bytes) {
                const std::string msg =
                    "rank " + std::to_string(rank_) + ": exchangeFinish: recvs[" + std::to_string(q.index) +
                    "] expects " + std::to_string(r.bytes) + " bytes from rank " + std::to_string(r.peer) +
                    " (tag " + std::to_string(r.tag) + ") but the send has " + std::to_string(p->bytes);
                // The ones matched earlier in this round will never be copied: release them.
                I.copying -= int(matched.size());
                if (I.copying == 0)
                    I.idle.notify_all();
                I.abortLocked(lk, msg);
                recvQueue_.clear();
                outstanding_.clear();
                throw RunError(msg);
            }
            p->state = Posted::State::Copying;
            ++I.copying;
            q.taken = true;
            matched.push_back(Match{p, &q});
        }
        if (matched.empty()) {
            const bool ok = I.waitUntil(lk, rank_, "exchangeFinish (receiving)", [&] {
                return std::any_of(box.begin(), box.end(), [&](const Posted* p) {
                    return std::any_of(recvQueue_.begin(), recvQueue_.end(), [&](const RecvSlot& q) {
                        return !q.taken && p->src == recvOf(q).peer && p->tag == recvOf(q).tag;
                    });
                });
            });
            if (!ok)
                failAborted(lk);
            continue;
        }
        // Copy without holding the lock; the senders cannot free or reuse these buffers until Consumed.
        lk.unlock();
        for (const Match& m : matched)
            if (m.msg->bytes > 0) {
                // GPU ranks (tiles sharing a GPU): their halo buffers are device memory, which the host
                // reaches only by a CUDA copy (the senders waited for their packing kernels).
                if (I.deviceBuffers.load(std::memory_order_relaxed))
                    cuda::copyBlocking(recvOf(*m.slot).data, m.msg->data, m.msg->bytes);
                else
                    std::memcpy(recvOf(*m.slot).data, m.msg->data, std::size_t(m.msg->bytes));
            }
        lk.lock();
        for (const Match& m : matched) {
            m.msg->state = Posted::State::Consumed;
            I.cv[std::size_t(m.msg->src)].notify_all();
            --m.slot->owner->recvsLeft;
        }
        I.copying -= int(matched.size());
        if (I.copying == 0)
            I.idle.notify_all();
    }

    // Our receive buffers are full; now wait until every peer has copied our sends.
    const bool ok = I.waitUntil(lk, rank_, "exchangeFinish (waiting for sends to be received)", [&mine] {
        return std::all_of(mine.posted.begin(), mine.posted.end(),
                           [](const Posted& p) { return p.state == Posted::State::Consumed; });
    });
    if (!ok)
        failAborted(lk);
    lk.unlock();
    std::erase_if(recvQueue_, [&mine](const RecvSlot& q) { return q.owner == &mine; });
    outstanding_.erase(std::find_if(outstanding_.begin(), outstanding_.end(),
                                    [&g](const auto& o) { return o->group == &g; }));
}

void LocalComm::setStream(void* computeStream) {
    if (computeStream)
        hub_->impl_->deviceBuffers.store(true, std::memory_order_relaxed);
}

int LocalComm::collective(Op op, int root, std::int64_t count, const void* src, std::int64_t bytes) {
    LocalHub::Impl& I = *hub_->impl_;
    const int n = size();
    std::unique_lock lk(I.mu);
    if (I.aborted)
        failAborted(lk);
    const int parity = int(collectiveSeq_ & 1U);
    ++collectiveSeq_;
    Slot& s = I.slots[std::size_t(parity)][std::size_t(rank_)];
    lk.unlock();
    // Nobody reads this slot now: the others finished reading it before entering our previous collective.
    s.data.resize(static_cast<std::size_t>(bytes));
    if (bytes > 0)
        std::memcpy(s.data.data(), src, std::size_t(bytes));
    lk.lock();
    s.op = int(op);
    s.root = root;
    s.count = count;
    const std::uint64_t gen = I.gen;
    if (++I.arrived == n) {
        I.arrived = 0;
        ++I.gen;
        I.notifyAll();
    } else if (!I.waitUntil(lk, rank_, opName(int(op)), [&I, gen] { return I.gen != gen; })) {
        failAborted(lk);
    }
    lk.unlock();

    // Every rank checks the same headers, so a mismatch is seen (and thrown) identically everywhere.
    const auto& row = I.slots[std::size_t(parity)];
    const Slot& ref = row[0];
    for (int r = 1; r < n; ++r) {
        const Slot& o = row[std::size_t(r)];
        const bool countMustMatch = op != Op::Gather;
        if (o.op != ref.op || o.root != ref.root || (countMustMatch && o.count != ref.count)) {
            const std::string msg = "collective mismatch: rank 0 called " + std::string(opName(ref.op)) +
                                    "(root " + std::to_string(ref.root) + ", " + std::to_string(ref.count) +
                                    " elements) but rank " + std::to_string(r) + " called " + opName(o.op) +
                                    "(root " + std::to_string(o.root) + ", " + std::to_string(o.count) +
                                    " elements)";
            hub_->abort(msg);
            throw RunError(msg);
        }
    }
    return parity;
}

std::vector<const char*> LocalComm::contributions(int parity) const {
    const auto& row = hub_->impl_->slots[std::size_t(parity)];
    std::vector<const char*> parts(row.size());
    for (std::size_t r = 0; r < row.size(); ++r)
        parts[r] = row[r].data.data();
    return parts;
}

void LocalComm::allReduceSum(std::span<double> inout, Phase phase) {
    stats_.count(phase, Kind::AllReduce,
                 accounting::allReduceBytes(std::int64_t(inout.size_bytes()), size()));
    const int p = collective(Op::SumDouble, -1, std::int64_t(inout.size()), inout.data(),
                             std::int64_t(inout.size_bytes()));
    if (inout.empty())
        return;
    std::vector<const double*> parts;
    for (const char* c : contributions(p))
        parts.push_back(reinterpret_cast<const double*>(c));
    reduce::sumInRankOrder(parts, inout);
}

void LocalComm::allReduceSumInt(std::span<std::int64_t> inout, Phase phase) {
    stats_.count(phase, Kind::AllReduce,
                 accounting::allReduceBytes(std::int64_t(inout.size_bytes()), size()));
    const int p = collective(Op::SumInt, -1, std::int64_t(inout.size()), inout.data(),
                             std::int64_t(inout.size_bytes()));
    if (inout.empty())
        return;
    std::vector<const std::int64_t*> parts;
    for (const char* c : contributions(p))
        parts.push_back(reinterpret_cast<const std::int64_t*>(c));
    reduce::sumIntInRankOrder(parts, inout);
}

void LocalComm::allReduceMax(std::span<double> inout, Phase phase) {
    stats_.count(phase, Kind::AllReduce,
                 accounting::allReduceBytes(std::int64_t(inout.size_bytes()), size()));
    const int p = collective(Op::MaxDouble, -1, std::int64_t(inout.size()), inout.data(),
                             std::int64_t(inout.size_bytes()));
    if (inout.empty())
        return;
    std::vector<const double*> parts;
    for (const char* c : contributions(p))
        parts.push_back(reinterpret_cast<const double*>(c));
    reduce::maxInRankOrder(parts, inout);
}

void LocalComm::gather(const std::vector<char>& mine, std::vector<std::vector<char>>& out, int root,
                       Phase phase) {
    stats_.count(phase, Kind::Gather, accounting::gatherBytes(std::int64_t(mine.size()), rank_, root));
    if (auto err = accounting::validateRoot(root, size()); !err.empty()) {
        const std::string msg = "rank " + std::to_string(rank_) + ": gather: " + err;
        hub_->abort(msg);
        throw RunError(msg);
    }
    const bool isRoot = rank_ == root;
    // The root keeps its own blob; only the others stage theirs.
    const int p = collective(Op::Gather, root, std::int64_t(mine.size()), mine.data(),
                             isRoot ? 0 : std::int64_t(mine.size()));
    if (!isRoot) {
        out.clear();
        return;
    }
    const auto& row = hub_->impl_->slots[std::size_t(p)];
    std::vector<std::vector<char>> result(row.size());
    for (std::size_t r = 0; r < row.size(); ++r)
        result[r] = int(r) == root ? mine : row[r].data;
    out = std::move(result);
}

void LocalComm::broadcast(std::span<char> data, int root, Phase phase) {
    stats_.count(phase, Kind::Broadcast,
                 accounting::broadcastBytes(std::int64_t(data.size()), rank_, root, size()));
    if (auto err = accounting::validateRoot(root, size()); !err.empty()) {
        const std::string msg = "rank " + std::to_string(rank_) + ": broadcast: " + err;
        hub_->abort(msg);
        throw RunError(msg);
    }
    const bool isRoot = rank_ == root;
    const int p = collective(Op::Broadcast, root, std::int64_t(data.size()), data.data(),
                             isRoot ? std::int64_t(data.size()) : 0);
    if (!isRoot && !data.empty())
        std::memcpy(data.data(), hub_->impl_->slots[std::size_t(p)][std::size_t(root)].data.data(),
                    data.size());
}

void LocalComm::barrier(Phase phase) {
    stats_.count(phase, Kind::Barrier, 0);
    collective(Op::Barrier, -1, 0, nullptr, 0);
}

// ---------------------------------------------------------------------------------------------------
// LocalHub

LocalHub::LocalHub(int n) : n_(n) {
    if (n < 1)
        throw InputError("LocalHub: number of devices = " + std::to_string(n) + ": must be >= 1");
    impl_ = std::make_unique<Impl>(n);
    endpoints_.reserve(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r)
        endpoints_.push_back(std::unique_ptr<LocalComm>(new LocalComm(*this, r)));
}

LocalHub::~LocalHub() = default;

LocalComm& LocalHub::endpoint(int r) {
    if (r < 0 || r >= n_)
        throw std::out_of_range("LocalHub::endpoint: rank " + std::to_string(r) + " outside [0, " +
                                std::to_string(n_) + ")");
    return *endpoints_[std::size_t(r)];
}

void LocalHub::abort(const std::string& msg) noexcept {
    try {
        std::unique_lock lk(impl_->mu);
        impl_->abortLocked(lk, msg);
    } catch (...) {
        // Only std::string allocation can throw here; the flag is what matters and is set first.
    }
}

bool LocalHub::aborted() const {
    std::lock_guard lk(impl_->mu);
    return impl_->aborted;
}

std::string LocalHub::abortMessage() const {
    std::lock_guard lk(impl_->mu);
    return impl_->abortMsg;
}

void LocalHub::setTimeout(std::chrono::milliseconds t) {
    std::lock_guard lk(impl_->mu);
    impl_->timeout = t;
}

void LocalHub::run(const std::function<void(LocalComm&)>& body) {
    runRankThreads(
        n_, [&](int r) { body(*endpoints_[std::size_t(r)]); }, [&] { return aborted(); },
        [&](const std::string& msg) { abort(msg); });
}

void LocalComm::fail(const std::string& msg) noexcept {
    hub_->abort(msg);
}

} // namespace yee::comm
