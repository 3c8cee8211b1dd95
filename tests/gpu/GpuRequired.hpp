#pragma once
/// \file GpuRequired.hpp
/// The "GPU required" mode of the GPU tests. On a machine without a GPU every GPU test skips, saying why;
/// on the GPU test machine a skip would be a vacuous pass, so the carried bundle's runner sets
/// YEE_GPU_REQUIRED=1 whenever `nvidia-smi` lists a GPU. In that mode a test that would skip because CUDA
/// is unusable (no driver, a driver older than the static runtime, no device node) or because the build
/// has no CUDA or NCCL fails instead, printing the CUDA runtime and driver versions. A row that needs more
/// GPUs than the machine has (two on a one-GPU machine) still skips, with a reason starting
/// "needs N GPUs, M visible", which the runner lists apart from every other skip.
#include <QtTest>

#include <cstdlib>
#include <cstring>
#include <string>

#include "yee/cuda/Runtime.hpp"

namespace yee::testing {

/// True when the environment sets YEE_GPU_REQUIRED to 1 (the bundle runner's GPU-required mode).
inline bool gpuRequired() {
    const char* v = std::getenv("YEE_GPU_REQUIRED");
    return v && std::strcmp(v, "1") == 0;
}

/// Why a test needing `n` GPUs cannot run here; empty when it can. "needs N GPUs, M visible" when some,
/// but too few, GPUs are visible; otherwise the CUDA reason with the runtime and driver versions.
inline std::string missingGpus(int n) {
    const int count = cuda::deviceCount();
    if (count >= n)
        return {};
    if (count == 0)
        return "no GPU: " + cuda::unavailableReason() + " [" + cuda::versionText() + "]";
    return "needs " + std::to_string(n) + " GPUs, " + std::to_string(count) + " visible";
}

/// True when `why` (from missingGpus) names only a shortage of GPUs on a machine that has some.
inline bool onlyTooFewGpus(const std::string& why) {
    return why.rfind("needs ", 0) == 0 && why.find(" visible") != std::string::npos;
}

} // namespace yee::testing

/// Skips the current test with `why` (a std::string), or fails it in the GPU-required mode: a missing
/// capability (CUDA, NCCL) is then a failure; a shortage of GPUs on a machine with some still skips.
#define YEE_SKIP_OR_FAIL(why)                                                                                \
    do {                                                                                                     \
        const std::string whyText_ = (why);                                                                  \
        if (::yee::testing::gpuRequired() && !::yee::testing::onlyTooFewGpus(whyText_))                      \
            QFAIL(("GPU required (YEE_GPU_REQUIRED=1), but: " + whyText_).c_str());                          \
        QSKIP(whyText_.c_str());                                                                             \
    } while (0)

/// Skips (or, in the GPU-required mode, fails) the current test unless `n` GPUs are visible.
#define YEE_REQUIRE_GPUS(n)                                                                                  \
    do {                                                                                                     \
        const std::string missing_ = ::yee::testing::missingGpus(n);                                         \
        if (!missing_.empty())                                                                               \
            YEE_SKIP_OR_FAIL(missing_);                                                                      \
    } while (0)
