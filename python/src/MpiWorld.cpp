/// \file MpiWorld.cpp
/// One rank per tile from Python: under mpirun/srun with more than one rank, MPI is initialised at the
/// first use (yee.mpi_rank(), or a run) and every run uses the world communicator; yee's atexit hook
/// finalises it. Without MPI in the build, or started without a launcher, everything runs in-process.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

#include "Bindings.hpp"
#include "yee/core/Error.hpp"

#ifdef YEE_HAVE_MPI
#include <dlfcn.h>

#include "yee/comm/MpiComm.hpp"
#endif

namespace yee::python {

namespace {

/// Ranks the launcher started (as yee-run reads them): OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS.
int launcherRanks() {
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"}) {
        const char* v = std::getenv(var);
        if (!v || !*v)
            continue;
        char* end = nullptr;
        const long n = std::strtol(v, &end, 10);
        if (end && *end == '\0' && n > 0)
            return int(n);
    }
    return 1;
}

#ifdef YEE_HAVE_MPI
struct World {
    std::unique_ptr<comm::MpiSession> session;
    std::unique_ptr<comm::MpiComm> comm;
    int localRank = 0;
    int ranksOnNode = 1;
};

World* gWorld = nullptr;
bool gTried = false;

/// Python loads extensions with RTLD_LOCAL; Open MPI's plug-ins need libmpi's symbols global.
void promoteLibMpi() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&MPI_Init_thread), &info) && info.dli_fname)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}

World* world() {
    if (gTried)
        return gWorld;
    gTried = true;
    if (launcherRanks() <= 1)
        return nullptr;
    promoteLibMpi();
    auto w = std::make_unique<World>();
    w->session = std::make_unique<comm::MpiSession>();
    w->comm = std::make_unique<comm::MpiComm>();
    MPI_Comm node = MPI_COMM_NULL;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &w->localRank);
        MPI_Comm_size(node, &w->ranksOnNode);
        MPI_Comm_free(&node);
    }
    gWorld = w.release();
    return gWorld;
}
#endif

} // namespace

comm::Communicator* mpiWorld() {
#ifdef YEE_HAVE_MPI
    if (World* w = world(); w && w->comm->size() > 1)
        return w->comm.get();
#endif
    return nullptr;
}

std::pair<int, int> mpiNodePlace() {
#ifdef YEE_HAVE_MPI
    if (World* w = world())
        return {w->localRank, std::max(1, w->ranksOnNode)};
#endif
    return {0, 1};
}

void bindMpi(py::module_& m) {
    m.def(
        "mpi_rank",
        []() {
#ifdef YEE_HAVE_MPI
            if (World* w = world())
                return w->comm->rank();
#endif
            return 0;
        },
        "This process's rank (0 without mpirun). Initialises MPI under a launcher.");
    m.def(
        "mpi_size",
        []() {
#ifdef YEE_HAVE_MPI
            if (World* w = world())
                return w->comm->size();
#endif
            return 1;
        },
        "Ranks of the job (1 without mpirun): a run's tile count must equal it.");
    m.def(
        "_mpi_finalize",
        []() {
#ifdef YEE_HAVE_MPI
            if (gWorld) {
                releaseMpiSessions();
                gWorld->comm.reset();
                gWorld->session.reset();
                delete gWorld;
                gWorld = nullptr;
            }
#endif
        },
        "Finalise MPI (registered with atexit by the yee package).");
    m.def(
        "_mpi_abort",
        [](int code) {
#ifdef YEE_HAVE_MPI
            if (gWorld && gWorld->comm->size() > 1)
                MPI_Abort(MPI_COMM_WORLD, code);
#endif
            (void)code;
        },
        py::arg("code"),
        "End every rank of the job with `code` (MPI_Abort) when MPI runs with more than one rank; "
        "otherwise nothing. Called by the yee package's exception hook.");
    m.def(
        "_mpi_active",
        []() {
#ifdef YEE_HAVE_MPI
            return gWorld != nullptr && gWorld->comm->size() > 1;
#else
            return false;
#endif
        },
        "True once MPI is initialised with more than one rank (without initialising it).");
    m.attr("has_mpi") =
#ifdef YEE_HAVE_MPI
        true;
#else
        false;
#endif
}

} // namespace yee::python
