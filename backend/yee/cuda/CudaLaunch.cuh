#pragma once
/// \file CudaLaunch.cuh
/// CUDA launch of the single-source cell kernels (kernels/*.hpp): one thread per cell, x fastest
/// across a warp so loads and stores coalesce. The functors are the very ones the CPU launcher runs.
#include <cstdint>

#include <cuda_runtime.h>

#include "yee/core/Box.hpp"

namespace yee::cuda {

template <class F> __global__ void cellKernel(F f, int i0, int j0, int k0, int nx, int ny, int nz) {
    const int i = i0 + int(blockIdx.x * blockDim.x + threadIdx.x);
    const int j = j0 + int(blockIdx.y * blockDim.y + threadIdx.y);
    const int k = k0 + int(blockIdx.z);
    if (i < i0 + nx && j < j0 + ny && k < k0 + nz) f(i, j, k);
}

template <class F> __global__ void indexKernel(F f, std::int64_t count) {
    const std::int64_t n = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (n < count) f(n);
}

/// Launch f(i,j,k) over box b on `stream` (asynchronous).
template <class F> void forEachCell(const Box& b, const F& f, cudaStream_t stream = nullptr) {
    if (b.empty()) return;
    const dim3 block(64, 4, 1);
    const dim3 grid((unsigned(b.extent(0)) + block.x - 1) / block.x, (unsigned(b.extent(1)) + block.y - 1) / block.y,
                    unsigned(b.extent(2)));
    cellKernel<<<grid, block, 0, stream>>>(f, b.lo[0], b.lo[1], b.lo[2], b.extent(0), b.extent(1), b.extent(2));
}

/// Launch f(n) for n in [0, count) on `stream`.
template <class F> void forEachIndex(std::int64_t count, const F& f, cudaStream_t stream = nullptr) {
    if (count <= 0) return;
    const unsigned block = 256;
    indexKernel<<<unsigned((count + block - 1) / block), block, 0, stream>>>(f, count);
}

} // namespace yee::cuda
