#pragma once
/// \file Simd.hpp
/// Which clone of the YEE_SIMD_CLONES row loops (core/Platform.hpp) this processor runs.
#include <string>

namespace yee {

/// The instruction set the CPU row loops run with here: "x86-64-v4 (AVX-512)", "x86-64-v3 (AVX2)",
/// "baseline (SSE2)", or "build baseline (clones off)" when the build has no clones (YEE_SIMD_CLONES=OFF,
/// YEE_NATIVE=ON, another compiler or architecture). The same test the loader's resolver makes.
std::string simdLevel();

} // namespace yee
