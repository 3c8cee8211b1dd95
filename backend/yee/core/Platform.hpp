#pragma once
/// \file Platform.hpp
/// Portability macros: kernels are written once and compiled for the host and, under nvcc, for CUDA.

#if defined(__CUDACC__)
#define YEE_HD __host__ __device__
#define YEE_FORCEINLINE __forceinline__
#else
#define YEE_HD
#define YEE_FORCEINLINE inline __attribute__((always_inline))
#endif

#if defined(__GNUC__) && !defined(__CUDACC__)
#define YEE_RESTRICT __restrict__
#else
#define YEE_RESTRICT
#endif
