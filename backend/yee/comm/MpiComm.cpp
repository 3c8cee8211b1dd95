#include "yee/comm/MpiComm.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "yee/comm/Accounting.hpp"
#include "yee/comm/Reduce.hpp"
#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"

namespace yee::comm {

namespace {

/// Tag of the chunked gather fallback on the collective communicator (no user traffic there).
constexpr int kGatherTag = 1;

} // namespace

std::string mpiErrorString(int err) {
    char buf[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, buf, &len) != MPI_SUCCESS)
        return "MPI error " + std::to_string(err);
    return std::string(buf, std::size_t(len));
}

// ---------------------------------------------------------------------------------------------------
// MpiSession

MpiSession::MpiSession(int* argc, char*** argv, int required) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized)
        throw RunError("MpiSession: MPI was already finalised and cannot be initialised again");
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) {
        MPI_Query_thread(&provided_);
        return;
    }
    const int err = MPI_Init_thread(argc, argv, required, &provided_);
    if (err != MPI_SUCCESS)
        throw RunError("MpiSession: MPI_Init_thread failed: " + mpiErrorString(err));
    owns_ = true;
}

MpiSession::~MpiSession() {
    if (!owns_)
        return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Finalize();
}

int MpiSession::worldRank() const {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int MpiSession::worldSize() const {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

bool MpiSession::active() {
    int initialized = 0;
    int finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
}

// ---------------------------------------------------------------------------------------------------
// MpiComm

struct MpiComm::Outstanding {
    const ExchangeGroup* group = nullptr;
    /// recvs first (in group order), then sends.
    std::vector<MPI_Request> requests;
    /// GPU ranks: host copies of the messages (recvs first, then sends), which MPI reads and writes.
    std::vector<std::vector<char>> stage;
};

void MpiComm::setStream(void* computeStream) {
    deviceBuffers_ = computeStream != nullptr;
}

MpiComm::MpiComm(MPI_Comm comm) : maxChunk_(INT_MAX) {
    if (!MpiSession::active())
        throw RunError("MpiComm: MPI is not initialised (create an MpiSession first)");
    int err = MPI_Comm_dup(comm, &halo_);
    if (err != MPI_SUCCESS)
        throw RunError("MpiComm: MPI_Comm_dup failed: " + mpiErrorString(err));
    MPI_Comm_set_errhandler(halo_, MPI_ERRORS_RETURN);
    err = MPI_Comm_dup(comm, &coll_);
    if (err != MPI_SUCCESS) {
        MPI_Comm_free(&halo_);
        throw RunError("MpiComm: MPI_Comm_dup failed: " + mpiErrorString(err));
    }
    MPI_Comm_set_errhandler(coll_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(halo_, &rank_);
    MPI_Comm_size(halo_, &size_);
    void* attr = nullptr;
    int flag = 0;
    MPI_Comm_get_attr(halo_, MPI_TAG_UB, &attr, &flag);
    if (flag && attr)
        tagUb_ = *static_cast<int*>(attr);
}

MpiComm::~MpiComm() {
    if (!MpiSession::active())
        return;
    if (halo_ != MPI_COMM_NULL)
        MPI_Comm_free(&halo_);
    if (coll_ != MPI_COMM_NULL)
        MPI_Comm_free(&coll_);
}

void MpiComm::check(int err, const char* what) const {
    if (err != MPI_SUCCESS)
        throw RunError("rank " + std::to_string(rank_) + ": " + what + " failed: " + mpiErrorString(err));
}

void MpiComm::setMaxChunkBytes(std::int64_t bytes) {
    maxChunk_ = std::clamp<std::int64_t>(bytes, 1, INT_MAX);
}

void MpiComm::abort(const std::string& msg, int errorCode) {
    std::fprintf(stderr, "yee: rank %d: aborting: %s\n", rank_, msg.c_str());
    std::fflush(stderr);
    MPI_Abort(halo_ != MPI_COMM_NULL ? halo_ : MPI_COMM_WORLD, errorCode);
    std::abort(); // MPI_Abort does not return; keep [[noreturn]] honest.
}

void MpiComm::exchangeStart(ExchangeGroup& g, Phase phase) {
    stats_.count(phase, Kind::HaloExchange, accounting::exchangeBytes(g, rank_));
    std::string err = accounting::validateGroup(g, size_);
    auto tooBig = [this](const char* list, std::size_t i, const Message& m) -> std::string {
        const std::string where = std::string(list) + "[" + std::to_string(i) + "]";
        if (m.tag > tagUb_)
            return where + ".tag = " + std::to_string(m.tag) +
                   ": above MPI_TAG_UB = " + std::to_string(tagUb_);
        if (m.bytes > INT_MAX)
            return where + ".bytes = " + std::to_string(m.bytes) +
                   ": a halo message is limited to INT_MAX bytes";
        return {};
    };
    for (std::size_t i = 0; err.empty() && i < g.recvs.size(); ++i)
        err = tooBig("recvs", i, g.recvs[i]);
    for (std::size_t i = 0; err.empty() && i < g.sends.size(); ++i)
        err = tooBig("sends", i, g.sends[i]);
    if (err.empty())
        for (const auto& o : outstanding_)
            if (o->group == &g)
                err = "this group is already started and not finished";
    if (!err.empty())
        throw RunError("rank " + std::to_string(rank_) + ": exchangeStart: " + err);

    auto out = std::make_unique<Outstanding>();
    out->group = &g;
    out->requests.assign(g.recvs.size() + g.sends.size(), MPI_REQUEST_NULL);
    // GPU ranks: the halo buffers are device memory; MPI moves host copies of them (the caller waited
    // for the packing kernels, Tile::hostStaged).
    if (deviceBuffers_) {
        out->stage.resize(g.recvs.size() + g.sends.size());
        for (std::size_t r = 0; r < g.recvs.size(); ++r)
            out->stage[r].resize(std::size_t(g.recvs[r].bytes));
        for (std::size_t q = 0; q < g.sends.size(); ++q) {
            auto& h = out->stage[g.recvs.size() + q];
            h.resize(std::size_t(g.sends[q].bytes));
            if (!h.empty())
                cuda::copyBlocking(h.data(), g.sends[q].data, g.sends[q].bytes);
        }
    }
    auto hostOf = [&](const Message& m, std::size_t slot) -> void* {
        return deviceBuffers_ ? static_cast<void*>(out->stage[slot].data()) : m.data;
    };
    std::size_t k = 0;
    auto cancelPosted = [&] {
        for (std::size_t j = 0; j < k; ++j) {
            if (j < g.recvs.size())
                MPI_Cancel(&out->requests[j]);
            MPI_Request_free(&out->requests[j]);
        }
    };
    for (const Message& m : g.recvs) {
        const int e =
            MPI_Irecv(hostOf(m, k), int(m.bytes), MPI_BYTE, m.peer, m.tag, halo_, &out->requests[k]);
        if (e != MPI_SUCCESS) {
            cancelPosted();
            check(e, "exchangeStart: MPI_Irecv");
        }
        ++k;
    }
    for (const Message& m : g.sends) {
        const int e =
            MPI_Isend(hostOf(m, k), int(m.bytes), MPI_BYTE, m.peer, m.tag, halo_, &out->requests[k]);
        if (e != MPI_SUCCESS) {
            cancelPosted();
            check(e, "exchangeStart: MPI_Isend");
        }
        ++k;
    }
    outstanding_.push_back(std::move(out));
}

void MpiComm::exchangeFinish(ExchangeGroup& g) {
    auto it = std::find_if(outstanding_.begin(), outstanding_.end(),
                           [&g](const auto& o) { return o->group == &g; });
    if (it == outstanding_.end())
        throw RunError("rank " + std::to_string(rank_) + ": exchangeFinish: group was not started");
    std::unique_ptr<Outstanding> out = std::move(*it);
    outstanding_.erase(it);

    std::vector<MPI_Status> st(out->requests.size());
    const int e = MPI_Waitall(int(out->requests.size()), out->requests.data(), st.data());
    if (e == MPI_ERR_IN_STATUS) {
        for (std::size_t i = 0; i < st.size(); ++i)
            if (st[i].MPI_ERROR != MPI_SUCCESS && st[i].MPI_ERROR != MPI_ERR_PENDING) {
                const bool isRecv = i < g.recvs.size();
                const std::size_t idx = isRecv ? i : i - g.recvs.size();
                const Message& m = isRecv ? g.recvs[idx] : g.sends[idx];
                throw RunError("rank " + std::to_string(rank_) +
                               ": exchangeFinish: " + (isRecv ? "recvs[" : "sends[") + std::to_string(idx) +
                               "] (peer " + std::to_string(m.peer) + ", tag " + std::to_string(m.tag) + ", " +
                               std::to_string(m.bytes) + " bytes): " + mpiErrorString(st[i].MPI_ERROR));
            }
    }
    check(e, "exchangeFinish: MPI_Waitall");
    for (std::size_t i = 0; i < g.recvs.size(); ++i) {
        int got = 0;
        MPI_Get_count(&st[i], MPI_BYTE, &got);
        if (got != g.recvs[i].bytes)
            throw RunError("rank " + std::to_string(rank_) + ": exchangeFinish: recvs[" + std::to_string(i) +
                           "] expects " + std::to_string(g.recvs[i].bytes) + " bytes from rank " +
                           std::to_string(g.recvs[i].peer) + " (tag " + std::to_string(g.recvs[i].tag) +
                           ") but the send has " + std::to_string(got));
    }
    if (deviceBuffers_)
        for (std::size_t r = 0; r < g.recvs.size(); ++r)
            if (g.recvs[r].bytes > 0)
                cuda::copyBlocking(g.recvs[r].data, out->stage[r].data(), g.recvs[r].bytes);
}

void MpiComm::allReduceSum(std::span<double> inout, Phase phase) {
    stats_.count(phase, Kind::AllReduce, accounting::allReduceBytes(std::int64_t(inout.size_bytes()), size_));
    const std::size_t n = inout.size();
    if (n > std::size_t(INT_MAX) / std::size_t(size_))
        throw RunError("rank " + std::to_string(rank_) + ": allReduceSum: " + std::to_string(n) +
                       " elements: too many for one MPI_Allgather");
    std::vector<double> table(n * std::size_t(size_));
    check(MPI_Allgather(inout.data(), int(n), MPI_DOUBLE, table.data(), int(n), MPI_DOUBLE, coll_),
          "allReduceSum: MPI_Allgather");
    if (n == 0)
        return;
    std::vector<const double*> parts(static_cast<std::size_t>(size_));
    for (std::size_t r = 0; r < parts.size(); ++r)
        parts[r] = table.data() + r * n;
    reduce::sumInRankOrder(parts, inout);
}

void MpiComm::allReduceSumInt(std::span<std::int64_t> inout, Phase phase) {
    stats_.count(phase, Kind::AllReduce, accounting::allReduceBytes(std::int64_t(inout.size_bytes()), size_));
    if (inout.size() > std::size_t(INT_MAX))
        throw RunError("rank " + std::to_string(rank_) + ": allReduceSumInt: too many elements");
    check(MPI_Allreduce(MPI_IN_PLACE, inout.data(), int(inout.size()), MPI_INT64_T, MPI_SUM, coll_),
          "allReduceSumInt: MPI_Allreduce");
}

void MpiComm::allReduceMax(std::span<double> inout, Phase phase) {
    stats_.count(phase, Kind::AllReduce, accounting::allReduceBytes(std::int64_t(inout.size_bytes()), size_));
    const std::size_t n = inout.size();
    if (n > std::size_t(INT_MAX) / std::size_t(size_))
        throw RunError("rank " + std::to_string(rank_) + ": allReduceMax: " + std::to_string(n) +
                       " elements: too many for one MPI_Allgather");
    std::vector<double> table(n * std::size_t(size_));
    check(MPI_Allgather(inout.data(), int(n), MPI_DOUBLE, table.data(), int(n), MPI_DOUBLE, coll_),
          "allReduceMax: MPI_Allgather");
    if (n == 0)
        return;
    std::vector<const double*> parts(static_cast<std::size_t>(size_));
    for (std::size_t r = 0; r < parts.size(); ++r)
        parts[r] = table.data() + r * n;
    reduce::maxInRankOrder(parts, inout);
}

void MpiComm::gather(const std::vector<char>& mine, std::vector<std::vector<char>>& out, int root,
                     Phase phase) {
    stats_.count(phase, Kind::Gather, accounting::gatherBytes(std::int64_t(mine.size()), rank_, root));
    if (auto err = accounting::validateRoot(root, size_); !err.empty())
        throw RunError("rank " + std::to_string(rank_) + ": gather: " + err);
    const bool isRoot = rank_ == root;

    // Every rank learns every size, so all take the same path (Gatherv or chunked messages).
    std::int64_t mySize = std::int64_t(mine.size());
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(size_));
    check(MPI_Allgather(&mySize, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, coll_),
          "gather: MPI_Allgather");
    std::int64_t total = 0;
    for (std::int64_t s : sizes)
        total += s;

    std::vector<std::vector<char>> result;
    if (isRoot) {
        result.resize(static_cast<std::size_t>(size_));
        for (int r = 0; r < size_; ++r)
            result[std::size_t(r)].resize(std::size_t(sizes[std::size_t(r)]));
    }

    if (total <= maxChunk_) {
        std::vector<char> flat;
        std::vector<int> counts;
        std::vector<int> displs;
        if (isRoot) {
            flat.resize(std::size_t(total));
            counts.resize(static_cast<std::size_t>(size_));
            displs.resize(static_cast<std::size_t>(size_));
            int off = 0;
            for (int r = 0; r < size_; ++r) {
                counts[std::size_t(r)] = int(sizes[std::size_t(r)]);
                displs[std::size_t(r)] = off;
                off += counts[std::size_t(r)];
            }
        }
        check(MPI_Gatherv(mine.data(), int(mine.size()), MPI_BYTE, flat.data(), counts.data(), displs.data(),
                          MPI_BYTE, root, coll_),
              "gather: MPI_Gatherv");
        if (isRoot)
            for (int r = 0; r < size_; ++r)
                std::copy_n(flat.data() + displs[std::size_t(r)], counts[std::size_t(r)],
                            result[std::size_t(r)].data());
    } else if (isRoot) {
        result[std::size_t(root)] = mine;
        for (int r = 0; r < size_; ++r) {
            if (r == root)
                continue;
            auto& dst = result[std::size_t(r)];
            for (std::int64_t off = 0; off < std::int64_t(dst.size()); off += maxChunk_) {
                const int len = int(std::min<std::int64_t>(maxChunk_, std::int64_t(dst.size()) - off));
                check(MPI_Recv(dst.data() + off, len, MPI_BYTE, r, kGatherTag, coll_, MPI_STATUS_IGNORE),
                      "gather: MPI_Recv");
            }
        }
    } else {
        for (std::int64_t off = 0; off < mySize; off += maxChunk_) {
            const int len = int(std::min<std::int64_t>(maxChunk_, mySize - off));
            check(MPI_Send(mine.data() + off, len, MPI_BYTE, root, kGatherTag, coll_), "gather: MPI_Send");
        }
    }
    out = std::move(result);
}

void MpiComm::broadcast(std::span<char> data, int root, Phase phase) {
    stats_.count(phase, Kind::Broadcast,
                 accounting::broadcastBytes(std::int64_t(data.size()), rank_, root, size_));
    if (auto err = accounting::validateRoot(root, size_); !err.empty())
        throw RunError("rank " + std::to_string(rank_) + ": broadcast: " + err);
    const auto total = std::int64_t(data.size());
    if (total == 0) {
        // Still a collective: keep the ranks in step exactly as LocalComm does.
        check(MPI_Bcast(data.data(), 0, MPI_BYTE, root, coll_), "broadcast: MPI_Bcast");
        return;
    }
    for (std::int64_t off = 0; off < total; off += maxChunk_) {
        const int len = int(std::min<std::int64_t>(maxChunk_, total - off));
        check(MPI_Bcast(data.data() + off, len, MPI_BYTE, root, coll_), "broadcast: MPI_Bcast");
    }
}

void MpiComm::barrier(Phase phase) {
    stats_.count(phase, Kind::Barrier, 0);
    check(MPI_Barrier(coll_), "barrier: MPI_Barrier");
}

void MpiComm::fail(const std::string& msg) noexcept {
    abort(msg);
}

NodeGpus gatherNodeGpus(const std::string& mine, MPI_Comm world) {
    NodeGpus out;
    MPI_Comm node = MPI_COMM_NULL;
    int err = MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (err != MPI_SUCCESS)
        throw RunError("MPI_Comm_split_type (GPU placement): " + mpiErrorString(err));
    MPI_Comm_rank(node, &out.localRank);
    MPI_Comm_size(node, &out.ranksOnNode);
    // Fixed-size records: an identity is short ("pci=0000:3b:00.0 uuid=GPU-" + 36 characters).
    constexpr int kLen = 128;
    std::vector<char> send(kLen, '\0'), recv(std::size_t(kLen) * std::size_t(out.ranksOnNode), '\0');
    std::copy_n(mine.begin(), std::min<std::size_t>(mine.size(), kLen - 1), send.begin());
    err = MPI_Allgather(send.data(), kLen, MPI_CHAR, recv.data(), kLen, MPI_CHAR, node);
    MPI_Comm_free(&node);
    if (err != MPI_SUCCESS)
        throw RunError("MPI_Allgather (GPU placement): " + mpiErrorString(err));
    for (int r = 0; r < out.ranksOnNode; ++r)
        out.identities.emplace_back(recv.data() + std::size_t(r) * kLen);
    std::vector<std::string> held;
    for (const auto& id : out.identities)
        if (!id.empty())
            held.push_back(id);
    std::sort(held.begin(), held.end());
    out.shared = std::adjacent_find(held.begin(), held.end()) != held.end();
    return out;
}

} // namespace yee::comm
