#include "yee/core/Simd.hpp"

#include "yee/core/Platform.hpp"

namespace yee {

std::string simdLevel() {
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(YEE_NO_SIMD_CLONES)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4"))
        return "x86-64-v4 (AVX-512)";
    if (__builtin_cpu_supports("x86-64-v3"))
        return "x86-64-v3 (AVX2)";
    return "baseline (SSE2)";
#else
    return "build baseline (clones off)";
#endif
}

} // namespace yee
