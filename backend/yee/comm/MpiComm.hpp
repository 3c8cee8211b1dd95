#pragma once
/// \file MpiComm.hpp
/// One rank per tile over MPI (built into the separate library `yee_mpi`, which defines YEE_HAVE_MPI).
///
/// MpiComm is a drop-in for LocalComm: the same call order, the same results to the last bit (sums and
/// maxima are gathered and then reduced in rank order with the functions of Reduce.hpp, never with
/// MPI_Allreduce's unspecified order), and the same CommStats numbers (see Accounting.hpp).
///
/// Error model: MPI errors are returned, not fatal (MPI_ERRORS_RETURN on the communicators MpiComm owns)
/// and turned into yee::RunError on the rank that sees them. MPI has no way to wake the other ranks of a
/// collective that one rank abandoned: a rank that fails for good should call MpiComm::abort(), the MPI
/// counterpart of LocalHub::abort(), which ends the whole job.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <mpi.h>

#include "yee/comm/Communicator.hpp"

namespace yee::comm {

/// RAII owner of MPI's lifetime: MPI_Init_thread in the constructor, MPI_Finalize in the destructor.
/// Idempotent: if MPI is already initialised (by the host program or an earlier session) the session
/// only records the thread level and finalises nothing. Create it once, at the top of main(), and
/// destroy every MpiComm before it. Not copyable or movable.
class MpiSession {
public:
    /// Initialises MPI (unless already initialised) asking for thread level `required`; `argc`/`argv` may be
    /// null. Throws yee::RunError if MPI was already finalised or MPI_Init_thread fails. A lower provided
    /// thread level is not an error: check threadLevel().
    explicit MpiSession(int* argc = nullptr, char*** argv = nullptr, int required = MPI_THREAD_FUNNELED);
    /// Calls MPI_Finalize if this session initialised MPI and MPI is not finalised yet. Never throws.
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    /// True if this object called MPI_Init_thread (and will call MPI_Finalize).
    bool ownsMpi() const { return owns_; }
    /// Thread level MPI provides (MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE).
    int threadLevel() const { return provided_; }
    /// Rank in MPI_COMM_WORLD.
    int worldRank() const;
    /// Size of MPI_COMM_WORLD.
    int worldSize() const;
    /// True while MPI is initialised and not finalised.
    static bool active();

private:
    bool owns_ = false;
    int provided_ = MPI_THREAD_SINGLE;
};

/// The Communicator of one MPI rank (one tile). Requires an active MPI (see MpiSession).
///
/// The constructor duplicates the given communicator twice (one for halo point-to-point traffic, one for
/// collectives), so user tags never collide with MpiComm's own messages or with other libraries. It is
/// therefore collective over `comm`, as is the destructor.
///
/// Threading: use an MpiComm from one thread (MPI_THREAD_FUNNELED is enough). stats() is plain data.
///
/// Exchange semantics match LocalComm's: exchangeStart() posts MPI_Irecv for every receive, then MPI_Isend
/// for every send (no copy); exchangeFinish() waits for all of them (MPI_Waitall). Messages between a pair
/// of ranks with the same tag are matched in order. A receive must have exactly its send's size: a larger
/// receive gets RunError from exchangeFinish(); a smaller one is MPI_ERR_TRUNCATE, which MPI reports (as
/// RunError) only when it can, since MPI's state after an error is undefined (Open MPI may hang there).
/// Self-sends go through MPI like any other. Several groups may be outstanding, identified by the address of
/// their ExchangeGroup. Buffers belong to the caller and must stay valid (send buffers unmodified) until
/// exchangeFinish() returns. A single message is limited to INT_MAX bytes.
///
/// Collectives must be called by every rank in the same order with matching arguments (as in MPI). Unlike
/// LocalComm, MpiComm does not check that element counts match: mismatched counts are erroneous MPI use.
/// The text of an MPI error code.
std::string mpiErrorString(int err);

class MpiComm final : public Communicator {
public:
    /// Wraps (duplicates) `comm`. Throws yee::RunError if MPI is not active or the duplication fails.
    explicit MpiComm(MPI_Comm comm = MPI_COMM_WORLD);
    /// Frees the duplicated communicators (if MPI is still active). Outstanding exchanges are not completed:
    /// a rank that abandons an exchange should abort() instead.
    ~MpiComm() override;
    MpiComm(const MpiComm&) = delete;
    MpiComm& operator=(const MpiComm&) = delete;

    /// Rank in the wrapped communicator.
    int rank() const override { return rank_; }
    /// Size of the wrapped communicator.
    int size() const override { return size_; }

    /// Posts MPI_Irecv for all receives, then MPI_Isend for all sends. Counted once as HaloExchange with the
    /// bytes of sends to other ranks. Throws RunError on an invalid group (peer out of range, tag outside
    /// [0, MPI_TAG_UB], negative or > INT_MAX size, null data), if `g` is already outstanding, or on an MPI
    /// error.
    void exchangeStart(ExchangeGroup& g, Phase phase) override;
    /// MPI_Waitall on the group's requests, then checks every receive got exactly its size. Not counted.
    /// Throws RunError if `g` was not started, on a size mismatch, or on an MPI error.
    void exchangeFinish(ExchangeGroup& g) override;

    /// MPI_Allgather of the vectors, then an element-wise sum in rank order (reduce::sumInRankOrder): the
    /// same bits as LocalComm, on every rank.
    void allReduceSum(std::span<double> inout, Phase phase) override;
    /// MPI_Allreduce(MPI_SUM) on int64 (exact).
    void allReduceSumInt(std::span<std::int64_t> inout, Phase phase) override;
    /// MPI_Allgather, then reduce::maxInRankOrder (NaN propagates, as in LocalComm).
    void allReduceMax(std::span<double> inout, Phase phase) override;
    /// Variable-size blobs to `root` (sizes exchanged first, then MPI_Gatherv, or chunked point-to-point
    /// messages when the total exceeds the chunk limit). On root `out[r]` is rank r's blob; on other ranks
    /// `out` is cleared. Throws RunError on an invalid root or an MPI error.
    void gather(const std::vector<char>& mine, std::vector<std::vector<char>>& out, int root,
                Phase phase) override;
    /// MPI_Bcast of `data` from root (split into chunks of at most maxChunkBytes()). Sizes must match on all
    /// ranks. Throws RunError on an invalid root or an MPI error.
    void broadcast(std::span<char> data, int root, Phase phase) override;
    /// MPI_Barrier.
    void barrier(Phase phase) override;

    /// Prints `msg` (with this rank) to stderr and calls MPI_Abort on the wrapped communicator: the whole
    /// job ends. Use it when a rank fails and the others may be waiting for it.
    [[noreturn]] void abort(const std::string& msg, int errorCode = 1);
    /// Communicator's failure hook: MPI_Abort, since the other ranks cannot be unblocked otherwise.
    void fail(const std::string& msg) noexcept override;
    /// A GPU rank's stream (non-null): its halo buffers are device memory, so exchanges move host copies
    /// of them (one copy each way per message); null: MPI reads and writes the buffers in place.
    void setStream(void* computeStream) override;

    /// The duplicated communicator used for halo traffic (for diagnostics; do not send on it).
    MPI_Comm haloComm() const { return halo_; }
    /// The duplicated communicator used for collectives. Other collectives may run on it (NcclMpi.cpp
    /// broadcasts the NCCL id there) when every rank calls them in the same order; no point-to-point traffic.
    MPI_Comm collectiveComm() const { return coll_; }

    /// Largest single MPI message used by gather() and broadcast(); larger payloads are split. Default and
    /// maximum INT_MAX. Tests lower it to exercise the split paths. Must be equal on all ranks.
    void setMaxChunkBytes(std::int64_t bytes);
    /// See setMaxChunkBytes().
    std::int64_t maxChunkBytes() const { return maxChunk_; }

private:
    struct Outstanding;
    void check(int err, const char* what) const;

    bool deviceBuffers_ = false; ///< setStream(): halo buffers are GPU memory
    MPI_Comm halo_ = MPI_COMM_NULL;
    MPI_Comm coll_ = MPI_COMM_NULL;
    int rank_ = 0;
    int size_ = 1;
    int tagUb_ = 32767;
    std::int64_t maxChunk_;
    std::vector<std::unique_ptr<Outstanding>> outstanding_;
};

/// GPU placement under mpirun/srun, decided from device identity, not from counts. Each rank passes the
/// identity of the GPU it took (cuda::deviceIdentity: PCI bus id and UUID; empty for a rank on no GPU);
/// the identities are allgathered over the ranks of this node (MPI_COMM_TYPE_SHARED split of `world`).
/// Collective over `world`: every rank must call it. Throws yee::RunError when MPI fails.
struct NodeGpus {
    int localRank = 0;                   ///< this rank among the node's ranks
    int ranksOnNode = 1;                 ///< ranks on this node
    std::vector<std::string> identities; ///< in node-rank order
    /// True when two ranks of this node hold the same (non-empty) identity: they share a GPU, and NCCL,
    /// which needs a GPU per rank, cannot run between them. With per-rank visibility
    /// (CUDA_VISIBLE_DEVICES or srun --gpus-per-task=1) every rank sees one GPU and, on distinct GPUs,
    /// shares none.
    bool shared = false;
};
/// See NodeGpus.
NodeGpus gatherNodeGpus(const std::string& mine, MPI_Comm world = MPI_COMM_WORLD);

} // namespace yee::comm
