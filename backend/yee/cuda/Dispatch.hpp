#pragma once
/// \file Dispatch.hpp
/// Host-compiler view of the CUDA launchers: declarations only. The definitions (CudaLaunch.cuh) are
/// compiled by nvcc and explicitly instantiated (CudaInstantiate.cuh) for every kernel functor libyee
/// launches, so a functor used here but not instantiated there fails at link time, in CI.
#include <cstdint>

#include "yee/core/Box.hpp"

namespace yee::cuda {

/// f(i,j,k) over box b on GPU `device`, asynchronous on `stream`.
template <class F> void launchCells(int device, void* stream, const Box& b, const F& f);
/// f(n) for n in [0, count) on GPU `device`, asynchronous on `stream`.
template <class F> void launchIndex(int device, void* stream, std::int64_t count, const F& f);

} // namespace yee::cuda
