#pragma once
/// \file MpiLaunch.hpp
/// What yee-run and yee-opt do alike under mpirun/srun, one tile per rank: where this rank stands on its
/// host, how its GPU exchanges halos (NCCL when every rank has a GPU of its own, else host memory over
/// MPI) and the NCCL communicator over MPI. Built only with MPI (library yee_mpicli). Calls marked
/// collective must be made by every rank, in the same order.
#include <memory>
#include <string>
#include <vector>

#include "yee/comm/MpiComm.hpp"
#include "yee/run/Overrides.hpp"
#include "yee/run/Run.hpp"

namespace yee::cli {

/// This rank's place on its host (MPI's shared-memory split of the world). Local ranks and counts are
/// never below 0 and 1.
run::RankPlace placeOnThisNode();

/// True when this build can exchange the halos of GPU ranks over NCCL (CUDA, NCCL and MPI all built).
bool ncclOverMpiBuilt();

/// How the ranks' halos travel, decided by every rank alike (collective over MPI_COMM_WORLD): true for
/// NCCL, which needs a GPU of its own for every rank (equal device identities, allgathered over the
/// node, are a shared GPU; a GPU whose identity cannot be read counts as shared) and a build with NCCL;
/// false for host memory over MPI. `o` is a rank's options after run::placeOneTilePerRank, `gpusListed`
/// what that returned. Appends what the user should know to `notes`. Throws InputError naming
/// `devicesField` on every rank when some ranks have GPUs and others do not.
bool chooseGpuExchange(const run::RunOptions& o, const run::RankPlace& place, int gpusListed,
                       const std::string& devicesField, std::vector<std::string>& notes);

/// The NCCL communicator of this rank's GPU `gpu`, bootstrapped over `mpi` (collective: when one rank
/// fails every rank throws yee::RunError). Throws RunError in a build without NCCL over MPI
/// (ncclOverMpiBuilt() false), where chooseGpuExchange never picks NCCL.
std::unique_ptr<comm::Communicator> ncclFromMpi(comm::MpiComm& mpi, int gpu);

} // namespace yee::cli
