/// \file CudaKernels.cu
/// Instantiates every single-source kernel of kernels/*.hpp for the CUDA launcher, in float and double,
/// so the CUDA build compiles (and CI checks) the same physics the CPU runs. Also a small runtime probe.
#include <cstdio>

#include "yee/cuda/CudaKernels.hpp"
#include "yee/cuda/CudaLaunch.cuh"
#include "yee/kernels/Adjoint.hpp"
#include "yee/kernels/Cpml.hpp"
#include "yee/kernels/Halo.hpp"
#include "yee/kernels/Yee.hpp"

namespace yee::cuda {

namespace {
template <class T> void instantiateAll(cudaStream_t s) {
    const Box b{{0, 0, 0}, {1, 1, 1}};
    forEachCell(b, kernels::UpdateH<T, false>{}, s);
    forEachCell(b, kernels::UpdateH<T, true>{}, s);
    forEachCell(b, kernels::UpdateE<T, false>{}, s);
    forEachCell(b, kernels::UpdateE<T, true>{}, s);
    forEachCell(b, kernels::CpmlE<T, 0>{}, s);
    forEachCell(b, kernels::CpmlE<T, 1>{}, s);
    forEachCell(b, kernels::CpmlE<T, 2>{}, s);
    forEachCell(b, kernels::CpmlH<T, 0, false>{}, s);
    forEachCell(b, kernels::CpmlH<T, 1, true>{}, s);
    forEachCell(b, kernels::CpmlH<T, 2, false>{}, s);
    forEachCell(b, kernels::CpmlAdjointW<T, 0>{}, s);
    forEachCell(b, kernels::CpmlEAdjointQ<T, 1, false>{}, s);
    forEachCell(b, kernels::CpmlAdjointW<T, 2>{}, s);
    forEachCell(b, kernels::CpmlHAdjointP<T, 0>{}, s);
    forEachCell(b, kernels::ScaleCa<T>{}, s);
    forEachCell(b, kernels::InverseUpdateE<T, true>{}, s);
    forEachCell(b, kernels::InverseUpdateH<T, false>{}, s);
    forEachCell(b, kernels::PackFace<T>{}, s);
    forEachCell(b, kernels::UnpackFace<T>{}, s);
    forEachIndex(1, kernels::Inject<T>{}, s);
}
} // namespace

int deviceCount() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
    return n;
}

std::vector<DeviceInfo> devices() {
    std::vector<DeviceInfo> out;
    const int n = deviceCount();
    for (int d = 0; d < n; ++d) {
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
        DeviceInfo info;
        info.id = d;
        info.name = p.name;
        info.memoryBytes = std::int64_t(p.totalGlobalMem);
        out.push_back(info);
    }
    return out;
}

void compileAllKernels() {
    // Never launched at run time: the calls only force template instantiation for the device.
    if (deviceCount() < 0) {
        instantiateAll<float>(nullptr);
        instantiateAll<double>(nullptr);
    }
}

} // namespace yee::cuda
