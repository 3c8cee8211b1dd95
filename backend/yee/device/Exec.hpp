#pragma once
/// \file Exec.hpp
/// Launch a single-source kernel functor on a device: the CPU row launcher (kernels/Launch.hpp) on
/// emulated devices, the CUDA launcher on GPUs (asynchronous on the device's stream). The same functor,
/// hence the same arithmetic, runs on both.
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "yee/core/Box.hpp"
#include "yee/device/Device.hpp"
#include "yee/kernels/Launch.hpp"
#if YEE_HAVE_CUDA
#include "yee/cuda/Dispatch.hpp"
#endif

namespace yee::device {

/// True for functors that run on CPU devices only (no CUDA launcher is instantiated for them,
/// cuda/CudaInstantiate.cuh): specialised by their users (solver/Tile.cpp for the kernels reading
/// kernels::ByteCoef), which never launch them on a GPU.
template <class F> struct CpuOnly : std::false_type {};

/// f(i,j,k) over the cells of b; `threads` is the CPU thread count (ignored on GPUs).
template <class F> void launch(Device& dev, const Box& b, int threads, const F& f) {
#if YEE_HAVE_CUDA
    if constexpr (!CpuOnly<F>::value) {
        if (dev.isCuda()) {
            cuda::launchCells(dev.id(), dev.stream(), b, f);
            return;
        }
    } else if (dev.isCuda()) {
        throw std::logic_error("device::launch: a CPU-only kernel on a GPU");
    }
#endif
    kernels::forEachCell(b, threads, f);
}

/// f(n) for n in [0, count).
template <class F> void launchIndex(Device& dev, std::int64_t count, int threads, const F& f) {
#if YEE_HAVE_CUDA
    if (dev.isCuda()) {
        cuda::launchIndex(dev.id(), dev.stream(), count, f);
        return;
    }
#endif
    kernels::forEachIndex(count, threads, f);
}

} // namespace yee::device
