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

/// YEE_IVDEP: before a loop whose iterations are independent (no iteration reads what another writes, and
/// the arrays it writes overlap no array it reads), so the vectoriser drops its run-time alias checks: with
/// the dozen pointers of a CPML functor those checks and their set-up cost more than the work on the short
/// rows of an x slab (10 cells). GCC only; nothing elsewhere.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define YEE_IVDEP _Pragma("GCC ivdep")
#else
#define YEE_IVDEP
#endif

/// YEE_SIMD_CLONES: SIMD chosen at run time for the processor in the portable release build. A function
/// marked with it is compiled three times — for x86-64-v4 (AVX-512), x86-64-v3 (AVX2, FMA, BMI) and the
/// baseline (SSE2) — and the dynamic loader picks the best one the CPU supports (GCC function
/// multi-versioning, an ifunc resolved once per function). Results are the same bits on every clone: the
/// build keeps -ffp-contract=off, so the wider ISAs never fuse a multiply-add, and the vectorised loops are
/// element-wise (no reassociated reductions). Only the CPU row loops carry it (kernels/Launch.hpp and the
/// pole fold); everything else stays baseline. Off for nvcc (its host pass does not take the attribute),
/// clang, non-x86 targets and with -DYEE_NATIVE=ON (already tuned for the build machine).
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && defined(__x86_64__) &&               \
    !defined(YEE_NO_SIMD_CLONES)
#define YEE_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define YEE_SIMD_CLONES
#endif
