#pragma once
/// \file CudaLaunch.cuh
/// CUDA launch of the single-source cell kernels (kernels/*.hpp): one thread per cell (or cellZPlanes()
/// cells up z), x fastest across a warp so loads and stores coalesce; with cellBlocking() the Yee updates
/// march along z with register reuse instead (CudaMarch.cuh). The functors are the very ones the CPU
/// launcher runs. Defines the launchers declared in Dispatch.hpp; CudaInstantiate.cuh instantiates them.
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "yee/core/Box.hpp"
#include "yee/core/Error.hpp"
#include "yee/cuda/CudaMarch.cuh"
#include "yee/cuda/Dispatch.hpp"
#include "yee/cuda/Runtime.hpp"

namespace yee::cuda {

/// Thread (x, y) of z block b updates cells (i, j, k) for the `planes` consecutive k from k0 + b planes.
template <class F>
__global__ void cellKernel(F f, int i0, int j0, int k0, int nx, int ny, int nz, int planes) {
    const int i = i0 + int(blockIdx.x * blockDim.x + threadIdx.x);
    const int j = j0 + int(blockIdx.y * blockDim.y + threadIdx.y);
    if (i >= i0 + nx || j >= j0 + ny)
        return;
    const int kb = k0 + int(blockIdx.z) * planes;
    const int ke = min(kb + planes, k0 + nz);
    for (int k = kb; k < ke; ++k)
        f(i, j, k);
}

template <class F> __global__ void indexKernel(F f, std::int64_t count) {
    const std::int64_t n = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (n < count)
        f(n);
}

inline void checkLaunch(const char* what, cudaStream_t s) {
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && syncEveryLaunch())
        e = cudaStreamSynchronize(s);
    if (e != cudaSuccess)
        throw RunError(std::string("CUDA kernel ") + what + ": " + cudaGetErrorString(e));
}

/// Launch f(i,j,k) over box b on `stream` (asynchronous). Boxes larger than the grid limits along z
/// (65535 blocks) are split into z-chunks.
template <class F> void forEachCell(const Box& b, const F& f, cudaStream_t stream = nullptr) {
    if (b.empty())
        return;
    const int nx = b.extent(0);
    const dim3 block = cellBlockShape(nx);
    // z blocks of `planes` planes each (cellZPlanes), at most 65535 per launch.
    const int planes = cellZPlanes();
    const int chunk = 65535 * planes;
    for (int k0 = b.lo[2]; k0 < b.hi[2]; k0 += chunk) {
        const int nz = std::min(chunk, b.hi[2] - k0);
        const dim3 grid((unsigned(nx) + block.x - 1) / block.x,
                        (unsigned(b.extent(1)) + block.y - 1) / block.y,
                        unsigned((nz + planes - 1) / planes));
        cellKernel<<<grid, block, 0, stream>>>(f, b.lo[0], b.lo[1], k0, nx, b.extent(1), nz, planes);
    }
}

/// Launch f(n) for n in [0, count) on `stream`.
template <class F> void forEachIndex(std::int64_t count, const F& f, cudaStream_t stream = nullptr) {
    if (count <= 0)
        return;
    const unsigned block = 256;
    indexKernel<<<unsigned((count + block - 1) / block), block, 0, stream>>>(f, count);
}

template <class F> void launchCells(int device, void* stream, const Box& b, const F& f) {
    if (b.empty())
        return;
    setDevice(device);
    const auto s = static_cast<cudaStream_t>(stream);
    if constexpr (ZMarch<F>::value) {
        if (cellBlocking()) {
            forEachCellMarching(b, f, s);
            checkLaunch("cells (z-marching)", s);
            return;
        }
    }
    forEachCell(b, f, s);
    checkLaunch("cells", s);
}

template <class F> void launchIndex(int device, void* stream, std::int64_t count, const F& f) {
    if (count <= 0)
        return;
    setDevice(device);
    forEachIndex(count, f, static_cast<cudaStream_t>(stream));
    checkLaunch("index", static_cast<cudaStream_t>(stream));
}

} // namespace yee::cuda
