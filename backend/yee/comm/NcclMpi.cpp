/// \file NcclMpi.cpp
/// ncclFromMpi() and localRank(): NCCL bootstrap over MPI (in yee_mpi; needs MPI, CUDA and NCCL).
#include "yee/comm/NcclMpi.hpp"

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

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
    // NcclComm.cpp).
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclComm_t nc = nullptr;
    ncclResult_t st = ncclCommInitRankConfig(&nc, size, boot.id, rank, &config);
    int polls = 0;
    while (st == ncclInProgress) {
        if (const ncclResult_t q = ncclCommGetAsyncError(nc, &st); q != ncclSuccess)
            st = q;
        if (st == ncclInProgress) {
            if (++polls < 64)
                std::this_thread::yield();
            else
                std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    }
    if (st != ncclSuccess) {
        if (nc)
            ncclCommAbort(nc);
        throw RunError(me + "ncclCommInitRankConfig (" + std::to_string(size) + " ranks, CUDA device " +
                       std::to_string(cudaDevice) + ") failed: " + ncclGetErrorString(st));
    }
    return std::make_unique<NcclMpiComm>(nc, rank, size, cudaDevice);
}

} // namespace yee::comm
