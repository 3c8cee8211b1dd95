#pragma once
/// \file NcclMpi.hpp
/// NcclComm under MPI: one process per GPU, launched by mpirun/srun. MPI only bootstraps the NCCL
/// communicator (rank 0 makes the NCCL id and broadcasts it); halo traffic and collectives then go through
/// NCCL. Part of the `yee_mpi` library, built only when MPI, CUDA and NCCL are all found
/// (YEE_HAVE_MPI and YEE_HAVE_NCCL defined).
///
/// Typical launcher:
///
///     MpiSession session(&argc, &argv);
///     MpiComm mpi;
///     const int gpu = localRank(mpi) % cuda::deviceCount();
///     std::unique_ptr<NcclComm> comm = ncclFromMpi(mpi, gpu);
///     comm->setStream(device.stream()); // the tile's compute stream
#include <memory>

#include "yee/comm/MpiComm.hpp"
#include "yee/comm/NcclComm.hpp"

namespace yee::comm {

/// Rank of this process among the processes of `mpi` that share its node (MPI_Comm_split_type with
/// MPI_COMM_TYPE_SHARED, ordered by rank in `mpi`), in [0, processes on the node). Collective over `mpi`.
/// A launcher picks GPU `localRank(mpi) % cuda::deviceCount()`. Throws yee::RunError on an MPI error.
int localRank(MpiComm& mpi);

/// An NcclComm over the ranks of `mpi` (NCCL rank = MPI rank, same size), this rank on CUDA device
/// `cudaDevice`, which becomes the calling thread's current device. Collective over `mpi`: every rank
/// first checks its device and all agree (so a rank that cannot use its GPU makes every rank throw instead
/// of leaving the others waiting), then rank 0 calls ncclGetUniqueId and broadcasts the id over
/// `mpi.collectiveComm()`, then every rank calls ncclCommInitRankConfig (a non-blocking communicator, polled
/// until ready). Throws yee::RunError when the device, the id or the NCCL initialisation fails.
///
/// The returned communicator's fail() aborts the NCCL communicator and then the whole job (MPI_Abort),
/// like MpiComm::fail: NCCL cannot wake the other processes' pending operations otherwise. `mpi` may be
/// destroyed before the returned communicator (it is only used during this call).
std::unique_ptr<NcclComm> ncclFromMpi(MpiComm& mpi, int cudaDevice);

} // namespace yee::comm
