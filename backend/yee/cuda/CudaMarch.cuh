#pragma once
/// \file CudaMarch.cuh
/// The z-marching launch of the Yee updates (2.5-D blocking, cuda::cellBlocking()): thread (x, y) of a
/// block runs the column (kernels/ZMarch.hpp) of cuda::blockZPlanes() consecutive cells up z, x fastest
/// across the warp so every load and store coalesces, keeping in registers what the next cell up needs
/// from this one (the H update's Ex, Ey at k+1; the E update's Hx, Hy at k), loaded through the read-only
/// path. The per-cell arithmetic is the functor's own cell() (kernels/Yee.hpp), the very function its
/// operator() -- hence the CPU launcher and the plain CUDA launch -- runs, with the same operands in the
/// same operation order: only where two of the operands are loaded from moves, so the bits are those of
/// every other launch (tst_gpu marchingColumnsOnCpu checks the columns on the host,
/// marchingLaunchBitIdentical the launch on a GPU). The in-plane neighbours (i+-1, j+-1) are read through the
/// views as before (x neighbours come from the same or the adjacent 128-byte line the warp loads, y
/// neighbours from L1/L2).
///
/// Only UpdateH and UpdateE march (ZMarch<F>); every other cell kernel (CPML slabs, halo packing, the
/// adjoint's inverse updates, ...) takes the plain launch (CudaLaunch.cuh), and the CPML slab corrections
/// run after the marching update of the box exactly as after the plain one (device/SlabLaunch.hpp).
#include <algorithm>
#include <type_traits>

#include <cuda_runtime.h>

#include "yee/core/Box.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/kernels/ZMarch.hpp"

namespace yee::cuda {

/// Thread-block shape of the cell launches over a box `nx` cells wide: a warp spans 32 consecutive x
/// cells (coalesced); narrow boxes (halo faces, PML slabs) get narrower blocks so fewer threads idle.
inline dim3 cellBlockShape(int nx) {
    const unsigned bx = nx >= 64 ? 64u : (nx >= 32 ? 32u : 16u);
    return dim3(bx, 256u / bx, 1);
}

using kernels::ZMarch;

/// Thread (x, y) of z block b marches cells k0 + b * planes .. + planes - 1 (clipped to the box) of its
/// column.
template <class F>
__global__ void marchKernel(F f, int i0, int j0, int k0, int nx, int ny, int nz, int planes) {
    const int i = i0 + int(blockIdx.x * blockDim.x + threadIdx.x);
    const int j = j0 + int(blockIdx.y * blockDim.y + threadIdx.y);
    if (i >= i0 + nx || j >= j0 + ny)
        return;
    const int kb = k0 + int(blockIdx.z) * planes;
    const int ke = min(kb + planes, k0 + nz);
    ZMarch<F>::column(f, i, j, kb, ke);
}

/// Launch the z-marching update f over box b on `stream` (asynchronous); F must have ZMarch<F>. Boxes
/// taller than 65535 z blocks are split into z-chunks, as the plain launch does.
template <class F> void forEachCellMarching(const Box& b, const F& f, cudaStream_t stream) {
    static_assert(ZMarch<F>::value, "forEachCellMarching: functor has no z-marching column");
    if (b.empty())
        return;
    const int nx = b.extent(0);
    const dim3 block = cellBlockShape(nx);
    const int planes = blockZPlanes();
    const int chunk = 65535 * planes;
    for (int k0 = b.lo[2]; k0 < b.hi[2]; k0 += chunk) {
        const int nz = std::min(chunk, b.hi[2] - k0);
        const dim3 grid((unsigned(nx) + block.x - 1) / block.x,
                        (unsigned(b.extent(1)) + block.y - 1) / block.y,
                        unsigned((nz + planes - 1) / planes));
        marchKernel<<<grid, block, 0, stream>>>(f, b.lo[0], b.lo[1], k0, nx, b.extent(1), nz, planes);
    }
}

} // namespace yee::cuda
