#pragma once
/// \file NcclComm.hpp
/// Communicator over NCCL for tiles on CUDA GPUs. Halo messages point at device memory and move GPU to
/// GPU without touching the host: exchangeStart() enqueues one grouped ncclSend/ncclRecv on a
/// communication stream that first waits for the compute stream (so the packed faces are complete);
/// exchangeFinish() makes the compute stream wait for that group. Neither blocks the host, so interior
/// updates launched between the two overlap the transfer. Reductions, gathers and broadcasts work on
/// host data (as in the Communicator interface) through small device staging buffers.
/// Counting follows comm/Accounting.hpp exactly, so CommStats match LocalComm and MpiComm call for call.
///
/// Two launch modes:
///  - NcclHub: one process drives several local GPUs, one thread per GPU (ncclCommInitAll).
///  - ncclFromMpi() (NcclMpi.cpp, in yee_mpi): one rank per GPU under mpirun/srun; rank 0 makes the NCCL
///    id and broadcasts it over MPI.
/// Only built when CUDA and NCCL are found (YEE_HAVE_NCCL).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "yee/comm/Communicator.hpp"

namespace yee::comm {

class NcclComm : public Communicator {
public:
    /// Wraps an initialised ncclComm_t (passed as void*) of rank `rank` of `size` on GPU `cudaDevice`.
    /// Takes ownership (destroys the NCCL communicator). `computeStream` (a cudaStream_t, may be set later)
    /// is the stream the tile's kernels run on.
    NcclComm(void* ncclComm, int rank, int size, int cudaDevice, void* computeStream = nullptr);
    ~NcclComm() override;
    NcclComm(const NcclComm&) = delete;
    NcclComm& operator=(const NcclComm&) = delete;

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    bool deviceMessages() const override { return true; }
    void setStream(void* computeStream) override { compute_ = computeStream; }
    int cudaDevice() const { return device_; }

    void exchangeStart(ExchangeGroup& g, Phase phase) override;
    void exchangeFinish(ExchangeGroup& g) override;
    void allReduceSum(std::span<double> inout, Phase phase) override;
    void allReduceSumInt(std::span<std::int64_t> inout, Phase phase) override;
    void allReduceMax(std::span<double> inout, Phase phase) override;
    void gather(const std::vector<char>& mine, std::vector<std::vector<char>>& out, int root,
                Phase phase) override;
    void broadcast(std::span<char> data, int root, Phase phase) override;
    void barrier(Phase phase) override;
    void fail(const std::string& msg) noexcept override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    int rank_, size_, device_;
    void* compute_;
};

/// One process, several GPUs: NCCL communicators for `cudaDevices` (rank r on cudaDevices[r]).
class NcclHub {
public:
    explicit NcclHub(std::vector<int> cudaDevices);
    ~NcclHub();
    int size() const { return int(devices_.size()); }
    /// Run body(comm) on one thread per GPU (the thread's current device set to that GPU); rethrows the
    /// first failure after every thread has returned.
    void run(const std::function<void(NcclComm&)>& body);

private:
    std::vector<int> devices_;
    std::vector<std::unique_ptr<NcclComm>> comms_;
};

/// True when the NCCL library can be loaded on this machine (it is loaded at first use, not linked);
/// else false with the reason in *why.
bool ncclLoadable(std::string* why = nullptr);

} // namespace yee::comm
