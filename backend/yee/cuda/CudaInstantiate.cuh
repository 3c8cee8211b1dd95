#pragma once
/// \file CudaInstantiate.cuh
/// The list of every single-source kernel functor libyee launches through device/Exec.hpp, as explicit
/// instantiations of the CUDA launchers (CudaLaunch.cuh): YEE_ALL_KERNELS(T) for T = float
/// (CudaKernelsFloat.cu) and double (CudaKernelsDouble.cu), two translation units nvcc builds in parallel.
/// Tile.cpp and the gradient sources (gradient/*.cpp) are compiled by the host compiler and link against
/// exactly these instantiations: the GPU runs the functors the CPU runs.
#include "yee/cuda/CudaLaunch.cuh"
#include "yee/kernels/Accumulate.hpp"
#include "yee/kernels/Adjoint.hpp"
#include "yee/kernels/Coef.hpp"
#include "yee/kernels/Cpml.hpp"
#include "yee/kernels/Dispersion.hpp"
#include "yee/kernels/Halo.hpp"
#include "yee/kernels/Points.hpp"
#include "yee/kernels/RecordCodec.hpp"
#include "yee/kernels/Yee.hpp"

#define YEE_CELLS(...) template void launchCells<__VA_ARGS__>(int, void*, const Box&, const __VA_ARGS__&);
#define YEE_INDEX(...) template void launchIndex<__VA_ARGS__>(int, void*, std::int64_t, const __VA_ARGS__&);

#define YEE_ALL_KERNELS(T)                                                                                   \
    YEE_CELLS(kernels::UpdateH<T, false>)                                                                    \
    YEE_CELLS(kernels::UpdateH<T, true>)                                                                     \
    YEE_CELLS(kernels::UpdateE<T, false>)                                                                    \
    YEE_CELLS(kernels::UpdateE<T, true>)                                                                     \
    YEE_CELLS(kernels::CpmlE<T, 0>)                                                                          \
    YEE_CELLS(kernels::CpmlE<T, 1>)                                                                          \
    YEE_CELLS(kernels::CpmlE<T, 2>)                                                                          \
    YEE_CELLS(kernels::CpmlH<T, 0, false>)                                                                   \
    YEE_CELLS(kernels::CpmlH<T, 1, false>)                                                                   \
    YEE_CELLS(kernels::CpmlH<T, 2, false>)                                                                   \
    YEE_CELLS(kernels::CpmlH<T, 0, true>)                                                                    \
    YEE_CELLS(kernels::CpmlH<T, 1, true>)                                                                    \
    YEE_CELLS(kernels::CpmlH<T, 2, true>)                                                                    \
    YEE_CELLS(kernels::UpdateH<T, false, kernels::TableCoef<T>>)                                             \
    YEE_CELLS(kernels::UpdateH<T, true, kernels::TableCoef<T>>)                                              \
    YEE_CELLS(kernels::UpdateE<T, false, kernels::TableCoef<T>>)                                             \
    YEE_CELLS(kernels::UpdateE<T, true, kernels::TableCoef<T>>)                                              \
    YEE_CELLS(kernels::CpmlE<T, 0, kernels::TableCoef<T>>)                                                   \
    YEE_CELLS(kernels::CpmlE<T, 1, kernels::TableCoef<T>>)                                                   \
    YEE_CELLS(kernels::CpmlE<T, 2, kernels::TableCoef<T>>)                                                   \
    YEE_CELLS(kernels::CpmlH<T, 0, false, kernels::TableCoef<T>>)                                            \
    YEE_CELLS(kernels::CpmlH<T, 1, false, kernels::TableCoef<T>>)                                            \
    YEE_CELLS(kernels::CpmlH<T, 2, false, kernels::TableCoef<T>>)                                            \
    YEE_CELLS(kernels::CpmlH<T, 0, true, kernels::TableCoef<T>>)                                             \
    YEE_CELLS(kernels::CpmlH<T, 1, true, kernels::TableCoef<T>>)                                             \
    YEE_CELLS(kernels::CpmlH<T, 2, true, kernels::TableCoef<T>>)                                             \
    YEE_CELLS(kernels::CpmlEAdjoint<T, 0, false>)                                                            \
    YEE_CELLS(kernels::CpmlEAdjoint<T, 1, false>)                                                            \
    YEE_CELLS(kernels::CpmlEAdjoint<T, 2, false>)                                                            \
    YEE_CELLS(kernels::CpmlEAdjoint<T, 0, true>)                                                             \
    YEE_CELLS(kernels::CpmlEAdjoint<T, 1, true>)                                                             \
    YEE_CELLS(kernels::CpmlEAdjoint<T, 2, true>)                                                             \
    YEE_CELLS(kernels::CpmlHAdjoint<T, 0>)                                                                   \
    YEE_CELLS(kernels::CpmlHAdjoint<T, 1>)                                                                   \
    YEE_CELLS(kernels::CpmlHAdjoint<T, 2>)                                                                   \
    YEE_CELLS(kernels::ScaleCa<T>)                                                                           \
    YEE_CELLS(kernels::InverseUpdateE<T, false>)                                                             \
    YEE_CELLS(kernels::InverseUpdateE<T, true>)                                                              \
    YEE_CELLS(kernels::InverseUpdateH<T, false>)                                                             \
    YEE_CELLS(kernels::InverseUpdateH<T, true>)                                                              \
    YEE_CELLS(kernels::CpmlEAdjoint<T, 0, false, false, kernels::TableCoef<T>>)                              \
    YEE_CELLS(kernels::CpmlEAdjoint<T, 0, true, false, kernels::TableCoef<T>>)                               \
    YEE_CELLS(kernels::CpmlEAdjoint<T, 1, false, false, kernels::TableCoef<T>>)                              \
    YEE_CELLS(kernels::CpmlEAdjoint<T, 1, true, false, kernels::TableCoef<T>>)                               \
    YEE_CELLS(kernels::CpmlEAdjoint<T, 2, false, false, kernels::TableCoef<T>>)                              \
    YEE_CELLS(kernels::CpmlEAdjoint<T, 2, true, false, kernels::TableCoef<T>>)                               \
    YEE_CELLS(kernels::CpmlHAdjoint<T, 0, false, kernels::TableCoef<T>>)                                     \
    YEE_CELLS(kernels::CpmlHAdjoint<T, 1, false, kernels::TableCoef<T>>)                                     \
    YEE_CELLS(kernels::CpmlHAdjoint<T, 2, false, kernels::TableCoef<T>>)                                     \
    YEE_CELLS(kernels::ScaleCa<T, kernels::TableCoef<T>>)                                                    \
    YEE_CELLS(kernels::InverseUpdateE<T, false, kernels::TableCoef<T>>)                                      \
    YEE_CELLS(kernels::InverseUpdateE<T, true, kernels::TableCoef<T>>)                                       \
    YEE_CELLS(kernels::InverseUpdateH<T, false, kernels::TableCoef<T>>)                                      \
    YEE_CELLS(kernels::InverseUpdateH<T, true, kernels::TableCoef<T>>)                                       \
    YEE_CELLS(kernels::PackFace<T>)                                                                          \
    YEE_CELLS(kernels::UnpackFace<T>)                                                                        \
    YEE_CELLS(kernels::FlagNonFinite<T>)                                                                     \
    YEE_INDEX(kernels::Inject<T>)                                                                            \
    YEE_INDEX(kernels::GatherPoints<T>)                                                                      \
    YEE_INDEX(kernels::ScatterPoints<T>)                                                                     \
    YEE_INDEX(kernels::PoleSaveE<T>)                                                                         \
    YEE_INDEX(kernels::PoleCurrent<T>)                                                                       \
    YEE_INDEX(kernels::PoleAdvance<T>)                                                                       \
    YEE_INDEX(kernels::PoleAdvanceT<T>)                                                                      \
    YEE_INDEX(kernels::PoleCurrentT<T>)                                                                      \
    YEE_INDEX(kernels::PoleSaveET<T>)                                                                        \
    YEE_INDEX(kernels::FluxPlaneStep<T>)                                                                     \
    YEE_INDEX(kernels::PhasorStep<T>)                                                                        \
    YEE_INDEX(kernels::EnergySaveE<T>)                                                                       \
    YEE_INDEX(kernels::EnergySample<T>)                                                                      \
    YEE_INDEX(kernels::ProbeSample<T>)                                                                       \
    YEE_INDEX(kernels::RecordAbsMax<T>)                                                                      \
    YEE_INDEX(kernels::RecordEncode<T>)                                                                      \
    YEE_INDEX(kernels::RecordDecode<T>)
