/// \file NcclLoader.cpp
/// NCCL is loaded when first used (dlopen of libnccl.so.2), not linked: yee-run, yee-bench and the studio
/// start and run on CPUs (or on one GPU) on machines without NCCL, and the Debian package does not depend
/// on a library Debian does not ship. This file defines the NCCL entry points NcclComm uses, each
/// forwarding to the loaded library; when it cannot be loaded they return ncclSystemError and
/// ncclGetErrorString says why.
#include <dlfcn.h>

#include <mutex>
#include <string>

#include <nccl.h>

#include "yee/comm/NcclComm.hpp"

namespace {

struct Library {
    void* handle = nullptr;
    std::string error;
};

const Library& library() {
    static const Library lib = [] {
        Library l;
        for (const char* name : {"libnccl.so.2", "libnccl.so"}) {
            l.handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
            if (l.handle)
                return l;
            const char* e = dlerror();
            if (l.error.empty())
                l.error = e ? e : "not found";
        }
        return l;
    }();
    return lib;
}

void* symbol(const char* name) {
    const Library& l = library();
    return l.handle ? dlsym(l.handle, name) : nullptr;
}

std::string& unavailableText() {
    static std::string text;
    return text;
}

} // namespace

namespace yee::comm {

bool ncclLoadable(std::string* why) {
    const Library& l = library();
    if (!l.handle && why)
        *why = "NCCL (libnccl.so.2) could not be loaded: " + l.error;
    return l.handle != nullptr;
}

} // namespace yee::comm

// Each entry point resolves its symbol once; a missing library or symbol gives ncclSystemError.
#define YEE_NCCL_FORWARD(name, params, args)                                                                 \
    extern "C" ncclResult_t name params {                                                                    \
        using Fn = ncclResult_t(*) params;                                                                   \
        static const Fn fn = reinterpret_cast<Fn>(symbol(#name));                                            \
        return fn ? fn args : ncclSystemError;                                                               \
    }

YEE_NCCL_FORWARD(ncclGetUniqueId, (ncclUniqueId * id), (id))
YEE_NCCL_FORWARD(ncclCommInitRankConfig,
                 (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t* config),
                 (comm, nranks, commId, rank, config))
YEE_NCCL_FORWARD(ncclCommAbort, (ncclComm_t comm), (comm))
YEE_NCCL_FORWARD(ncclCommDestroy, (ncclComm_t comm), (comm))
YEE_NCCL_FORWARD(ncclCommCount, (const ncclComm_t comm, int* count), (comm, count))
YEE_NCCL_FORWARD(ncclCommCuDevice, (const ncclComm_t comm, int* device), (comm, device))
YEE_NCCL_FORWARD(ncclCommUserRank, (const ncclComm_t comm, int* rank), (comm, rank))
YEE_NCCL_FORWARD(ncclCommGetAsyncError, (ncclComm_t comm, ncclResult_t* asyncError), (comm, asyncError))
YEE_NCCL_FORWARD(ncclGroupStart, (), ())
YEE_NCCL_FORWARD(ncclGroupEnd, (), ())
YEE_NCCL_FORWARD(ncclSend,
                 (const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                  cudaStream_t stream),
                 (sendbuff, count, datatype, peer, comm, stream))
YEE_NCCL_FORWARD(ncclRecv,
                 (void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                  cudaStream_t stream),
                 (recvbuff, count, datatype, peer, comm, stream))
YEE_NCCL_FORWARD(ncclAllReduce,
                 (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                  ncclComm_t comm, cudaStream_t stream),
                 (sendbuff, recvbuff, count, datatype, op, comm, stream))
YEE_NCCL_FORWARD(ncclAllGather,
                 (const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,
                  ncclComm_t comm, cudaStream_t stream),
                 (sendbuff, recvbuff, sendcount, datatype, comm, stream))
YEE_NCCL_FORWARD(ncclBroadcast,
                 (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                  ncclComm_t comm, cudaStream_t stream),
                 (sendbuff, recvbuff, count, datatype, root, comm, stream))

extern "C" const char* ncclGetErrorString(ncclResult_t result) {
    using Fn = const char* (*)(ncclResult_t);
    static const Fn fn = reinterpret_cast<Fn>(symbol("ncclGetErrorString"));
    if (fn)
        return fn(result);
    static std::once_flag once;
    std::call_once(once, [] { yee::comm::ncclLoadable(&unavailableText()); });
    return unavailableText().c_str();
}

extern "C" const char* ncclGetLastError(ncclComm_t comm) {
    using Fn = const char* (*)(ncclComm_t);
    static const Fn fn = reinterpret_cast<Fn>(symbol("ncclGetLastError"));
    return fn ? fn(comm) : "";
}
