#pragma once
/// \file CudaMarch.cuh
/// The z-marching launch of the Yee updates (2.5-D blocking, cuda::cellBlocking()): thread (x, y) of a
/// block updates cuda::blockZPlanes() consecutive cells up its z column, x fastest across the warp so every
/// load and store coalesces, and keeps in registers what the next cell up needs from this one:
///   - H update (kernels::UpdateH): Ex, Ey at k+1 are the next cell's Ex, Ey at k;
///   - E update (kernels::UpdateE): Hx, Hy at k are the next cell's Hx, Hy at k-1.
/// The per-cell arithmetic is the functor's own cell() (kernels/Yee.hpp), the very function its
/// operator() -- hence the CPU launcher and the plain CUDA launch -- runs, with the same operands in the
/// same operation order: only where two of the operands are loaded from moves, so the bits are those of
/// every other launch. The in-plane neighbours (i+-1, j+-1) are read through the views as before (x
/// neighbours come from the same or the adjacent 128-byte line the warp loads, y neighbours from L1/L2).
///
/// Only UpdateH and UpdateE march (ZMarch<F>); every other cell kernel (CPML slabs, halo packing, the
/// adjoint's inverse updates, ...) takes the plain launch (CudaLaunch.cuh), and the CPML slab corrections
/// run after the marching update of the box exactly as after the plain one (device/SlabLaunch.hpp).
#include <algorithm>
#include <type_traits>

#include <cuda_runtime.h>

#include "yee/core/Box.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/kernels/Yee.hpp"

namespace yee::cuda {

/// Thread-block shape of the cell launches over a box `nx` cells wide: a warp spans 32 consecutive x
/// cells (coalesced); narrow boxes (halo faces, PML slabs) get narrower blocks so fewer threads idle.
inline dim3 cellBlockShape(int nx) {
    const unsigned bx = nx >= 64 ? 64u : (nx >= 32 ? 32u : 16u);
    return dim3(bx, 256u / bx, 1);
}

/// Whether functor F has a z-marching column (column(f, i, j, kb, ke) updates cells kb..ke-1 of (i, j)).
template <class F> struct ZMarch : std::false_type {};

template <class T, bool Magnetic, class C> struct ZMarch<kernels::UpdateH<T, Magnetic, C>> : std::true_type {
    __device__ __forceinline__ static void column(const kernels::UpdateH<T, Magnetic, C>& f, int i, int j,
                                                  int kb, int ke) {
        // E is only read by the H update: the value loaded at k+1 is the one the next cell reads at k.
        T e0 = __ldg(&f.ex(i, j, kb)), e1 = __ldg(&f.ey(i, j, kb));
        for (int k = kb; k < ke; ++k) {
            const T e2 = __ldg(&f.ez(i, j, k));
            const T exUp = __ldg(&f.ex(i, j, k + 1)), eyUp = __ldg(&f.ey(i, j, k + 1));
            f.cell(i, j, k, e0, e1, e2, exUp, eyUp);
            e0 = exUp;
            e1 = eyUp;
        }
    }
};

template <class T, bool Lossy, class C> struct ZMarch<kernels::UpdateE<T, Lossy, C>> : std::true_type {
    __device__ __forceinline__ static void column(const kernels::UpdateE<T, Lossy, C>& f, int i, int j,
                                                  int kb, int ke) {
        // H is only read by the E update: the value loaded at k is the one the next cell reads at k-1.
        T hxDown = __ldg(&f.hx(i, j, kb - 1)), hyDown = __ldg(&f.hy(i, j, kb - 1));
        for (int k = kb; k < ke; ++k) {
            const T h0 = __ldg(&f.hx(i, j, k)), h1 = __ldg(&f.hy(i, j, k)), h2 = __ldg(&f.hz(i, j, k));
            f.cell(i, j, k, h0, h1, h2, hxDown, hyDown);
            hxDown = h0;
            hyDown = h1;
        }
    }
};

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
