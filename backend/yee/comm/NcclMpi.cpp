/// \file NcclMpi.cpp
/// ncclFromMpi() and localRank(): NCCL bootstrap over MPI (in yee_mpi; needs MPI, CUDA and NCCL).
#include "yee/comm/NcclMpi.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include "yee/core/Error.hpp"

namespace yee::comm {

namespace {

void checkMpi(int err, int rank, const char* what) {
    if (err != MPI_SUCCESS)
        throw RunError("rank " + std::to_string(rank) + ": " + what + " failed: " + mpiErrorString(err));
}

/// NcclComm whose failure ends the MPI job, as MpiComm::fail does.
class NcclMpiComm final : public NcclComm {
public:
    using NcclComm::NcclComm;
    void fail(const std::string& msg) noexcept override {
        NcclComm::fail(msg);
        std::fprintf(stderr, "yee: rank %d: aborting: %s\n", rank(), msg.c_str());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
};

/// Tag of the point-to-point notice "my NCCL initialisation failed" (on MpiComm's collective communicator,
/// where MpiComm itself sends nothing point to point).
constexpr int kInitFailedTag = 7301;

/// How long a rank waits for NCCL's initialisation: YEE_NCCL_INIT_TIMEOUT_S seconds (default 120).
std::chrono::seconds initTimeout() {
    const char* v = std::getenv("YEE_NCCL_INIT_TIMEOUT_S");
    const long s = v ? std::strtol(v, nullptr, 10) : 0;
    return std::chrono::seconds(s > 0 ? s : 120);
}

/// What rank 0 broadcasts: the NCCL id, or why there is none.
struct Bootstrap {
    ncclUniqueId id;
    int result;
};

} // namespace

int localRank(MpiComm& mpi) {
    MPI_Comm node = MPI_COMM_NULL;
    checkMpi(
        MPI_Comm_split_type(mpi.collectiveComm(), MPI_COMM_TYPE_SHARED, mpi.rank(), MPI_INFO_NULL, &node),
        mpi.rank(), "localRank: MPI_Comm_split_type");
    int r = 0;
    const int err = MPI_Comm_rank(node, &r);
    MPI_Comm_free(&node);
    checkMpi(err, mpi.rank(), "localRank: MPI_Comm_rank");
    return r;
}

std::unique_ptr<NcclComm> ncclFromMpi(MpiComm& mpi, int cudaDevice) {
    const int rank = mpi.rank();
    const int size = mpi.size();
    const MPI_Comm comm = mpi.collectiveComm();
    const std::string me = "rank " + std::to_string(rank) + ": ncclFromMpi: ";

    // 1. Every rank selects its GPU, and all agree before NCCL starts (its initialisation waits for every
    // rank).
    std::string err;
    int count = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
        cudaGetLastError();
        err = std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")";
    } else if (cudaDevice < 0 || cudaDevice >= count) {
        err = "CUDA device " + std::to_string(cudaDevice) + " outside [0, " + std::to_string(count) + ")";
    } else if (const cudaError_t s = cudaSetDevice(cudaDevice); s != cudaSuccess) {
        cudaGetLastError();
        err = "cudaSetDevice(" + std::to_string(cudaDevice) + ") failed: " + cudaGetErrorString(s);
    }
    int ok = err.empty() ? 1 : 0;
    int allOk = 0;
    checkMpi(MPI_Allreduce(&ok, &allOk, 1, MPI_INT, MPI_MIN, comm), rank, "ncclFromMpi: MPI_Allreduce");
    if (!ok)
        throw RunError(me + err);
    if (!allOk)
        throw RunError(me + "another rank cannot use its CUDA device");

    // 2. Rank 0 makes the NCCL id and broadcasts it (or its failure).
    Bootstrap boot{};
    if (rank == 0)
        boot.result = int(ncclGetUniqueId(&boot.id));
    checkMpi(MPI_Bcast(&boot, int(sizeof boot), MPI_BYTE, 0, comm), rank, "ncclFromMpi: MPI_Bcast");
    if (boot.result != int(ncclSuccess))
        throw RunError(me +
                       "ncclGetUniqueId on rank 0 failed: " + ncclGetErrorString(ncclResult_t(boot.result)));

    // 3. A non-blocking communicator, so that no later NCCL call blocks waiting for a peer (see
    // NcclComm.cpp). NCCL's initialisation waits for every rank: a rank whose initialisation fails (or
    // outlasts the deadline) tells every other rank with a point-to-point notice, which the ranks still
    // polling pick up and abort on, so no rank waits forever for a peer that gave up. Then all agree.
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclComm_t nc = nullptr;
    const auto deadline = std::chrono::steady_clock::now() + initTimeout();
    ncclResult_t st = ncclCommInitRankConfig(&nc, size, boot.id, rank, &config);
    std::string why;
    int failedPeer = -1;
    std::vector<MPI_Request> notices;
    auto tellOthers = [&] {
        notices.resize(std::size_t(size));
        int n = 0;
        for (int r = 0; r < size; ++r)
            if (r != rank)
                checkMpi(MPI_Isend(&rank, 1, MPI_INT, r, kInitFailedTag, comm, &notices[std::size_t(n++)]),
                         rank, "ncclFromMpi: MPI_Isend");
        notices.resize(std::size_t(n));
    };
    int polls = 0;
    while (st == ncclInProgress) {
        if (const ncclResult_t q = ncclCommGetAsyncError(nc, &st); q != ncclSuccess)
            st = q;
        if (st != ncclInProgress)
            break;
        int flag = 0;
        MPI_Status status{};
        checkMpi(MPI_Iprobe(MPI_ANY_SOURCE, kInitFailedTag, comm, &flag, &status), rank,
                 "ncclFromMpi: MPI_Iprobe");
        if (flag) {
            int peer = -1;
            checkMpi(MPI_Recv(&peer, 1, MPI_INT, status.MPI_SOURCE, kInitFailedTag, comm, MPI_STATUS_IGNORE),
                     rank, "ncclFromMpi: MPI_Recv");
            failedPeer = peer;
            st = ncclInternalError;
            why = "rank " + std::to_string(peer) + " could not initialise NCCL";
            break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            st = ncclInternalError;
            why = "ncclCommInitRankConfig did not finish within " + std::to_string(initTimeout().count()) +
                  " s (YEE_NCCL_INIT_TIMEOUT_S)";
            tellOthers();
            break;
        }
        if (++polls < 64)
            std::this_thread::yield();
        else
            std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (st != ncclSuccess && why.empty()) {
        why = std::string("ncclCommInitRankConfig failed: ") + ncclGetErrorString(st);
        tellOthers();
    }
    // Agreement: how many ranks sent notices, and the lowest failing rank; then every notice is received.
    int sent[2] = {notices.empty() ? 0 : 1, st == ncclSuccess ? size : (failedPeer >= 0 ? failedPeer : rank)};
    int total[2] = {0, 0};
    checkMpi(MPI_Allreduce(&sent[0], &total[0], 1, MPI_INT, MPI_SUM, comm), rank,
             "ncclFromMpi: MPI_Allreduce");
    checkMpi(MPI_Allreduce(&sent[1], &total[1], 1, MPI_INT, MPI_MIN, comm), rank,
             "ncclFromMpi: MPI_Allreduce");
    const int expected = total[0] - (notices.empty() ? 0 : 1) - (failedPeer >= 0 ? 1 : 0);
    for (int i = 0; i < expected; ++i) {
        int peer = -1;
        checkMpi(MPI_Recv(&peer, 1, MPI_INT, MPI_ANY_SOURCE, kInitFailedTag, comm, MPI_STATUS_IGNORE), rank,
                 "ncclFromMpi: MPI_Recv");
    }
    if (!notices.empty())
        checkMpi(MPI_Waitall(int(notices.size()), notices.data(), MPI_STATUSES_IGNORE), rank,
                 "ncclFromMpi: MPI_Waitall");
    if (st != ncclSuccess || total[1] < size) {
        if (nc)
            ncclCommAbort(nc);
        if (why.empty())
            why = "rank " + std::to_string(total[1]) + " could not initialise NCCL";
        throw RunError(me + why + " (" + std::to_string(size) + " ranks, CUDA device " +
                       std::to_string(cudaDevice) + "); every rank stops");
    }
    return std::make_unique<NcclMpiComm>(nc, rank, size, cudaDevice);
}

} // namespace yee::comm
