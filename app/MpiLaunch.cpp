#include "MpiLaunch.hpp"

#include <algorithm>

#include <mpi.h>

#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"

// One rank per GPU exchanging halos over NCCL needs the NCCL-over-MPI bootstrap (yee_mpi, CUDA + NCCL).
#if defined(YEE_HAVE_CUDA) && defined(YEE_HAVE_NCCL) && __has_include("yee/comm/NcclMpi.hpp")
#include "yee/comm/NcclComm.hpp"
#include "yee/comm/NcclMpi.hpp"
#define YEE_CLI_NCCL_MPI 1
#endif

namespace yee::cli {

run::RankPlace placeOnThisNode() {
    MPI_Comm node = MPI_COMM_NULL;
    int r = 0, n = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &r);
        MPI_Comm_size(node, &n);
        MPI_Comm_free(&node);
    }
    return {std::max(0, r), std::max(1, n)};
}

bool ncclOverMpiBuilt() {
#ifdef YEE_CLI_NCCL_MPI
    return true;
#else
    return false;
#endif
}

bool chooseGpuExchange(const run::RunOptions& o, const run::RankPlace& place, int gpusListed,
                       const std::string& devicesField, std::vector<std::string>& notes) {
    const bool gpus = o.backend == run::Backend::Cuda && !o.gpus.empty();
    const std::string mine = gpus ? cuda::deviceIdentity(o.gpus.front()) : std::string();
    const comm::NodeGpus node = comm::gatherNodeGpus(mine);
    const bool sharedHere = node.shared || (gpus && mine.empty());
    if (gpus && sharedHere)
        notes.push_back(std::to_string(place.ranksOnNode) + " ranks on this node share GPUs (" +
                        std::to_string(gpusListed) + " visible to this rank; equal device identities)");
    int any[3] = {gpus ? 1 : 0, gpus ? 0 : 1, sharedHere ? 1 : 0};
    if (MPI_Allreduce(MPI_IN_PLACE, any, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        throw RunError("MPI_Allreduce failed while the ranks chose how their GPUs exchange halos");
    const bool someGpu = any[0] != 0, someCpu = any[1] != 0, someShared = any[2] != 0;
    if (someGpu && someCpu)
        throw InputError(
            devicesField +
            ": some ranks see GPUs and others do not; run every rank on a GPU node, or ask for cpu:N");
    if (!gpus)
        return false;
    if (!ncclOverMpiBuilt()) {
        notes.push_back(
            "this build has no NCCL: the ranks' GPUs exchange halos through host memory over MPI");
        return false;
    }
    if (someShared) {
        notes.push_back("NCCL needs a GPU per rank: the ranks' halos go through host memory over MPI");
        return false;
    }
    return true;
}

std::unique_ptr<comm::Communicator> ncclFromMpi(comm::MpiComm& mpi, int gpu) {
#ifdef YEE_CLI_NCCL_MPI
    return comm::ncclFromMpi(mpi, gpu);
#else
    (void)mpi;
    (void)gpu;
    throw RunError("this build has no NCCL over MPI");
#endif
}

} // namespace yee::cli
