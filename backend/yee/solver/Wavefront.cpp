#include "yee/solver/Wavefront.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace yee::solver {

namespace {
std::atomic<std::int64_t> gFused{0}, gSwept{0}, gTwoSweep{0};
std::atomic<std::int64_t> gAdjointFused{0}, gAdjointTwoSweep{0}, gAdjointWithRows{0};
} // namespace

bool Wavefront::enabledByEnvironment() {
    const char* v = std::getenv("YEE_WAVEFRONT");
    return v == nullptr || std::strcmp(v, "0") != 0;
}

bool Wavefront::adjointEnabledByEnvironment() {
    const char* v = std::getenv("YEE_ADJOINT_WAVEFRONT");
    return enabledByEnvironment() && (v == nullptr || std::strcmp(v, "0") != 0);
}

int Wavefront::slabPlanes() {
    const char* v = std::getenv("YEE_WAVEFRONT_SLAB_PLANES");
    if (v == nullptr)
        return 8;
    const long n = std::strtol(v, nullptr, 10);
    return n > 0 && n < 1000000 ? int(n) : 8;
}

int Wavefront::blockRows(std::int64_t rowBytes) {
    if (const char* v = std::getenv("YEE_WAVEFRONT_BLOCK_ROWS")) {
        const long n = std::strtol(v, nullptr, 10);
        if (n >= 0 && n < 1000000)
            return int(n);
    }
    constexpr std::int64_t kBudget = std::int64_t(1) << 20, kArrays = 12;
    const std::int64_t rows = kBudget / std::max<std::int64_t>(1, rowBytes * kArrays);
    return int(std::clamp<std::int64_t>(rows, 8, 1 << 20));
}

WavefrontCounts Wavefront::counts() {
    return {
        gFused.load(std::memory_order_relaxed),           gSwept.load(std::memory_order_relaxed),
        gTwoSweep.load(std::memory_order_relaxed),        gAdjointFused.load(std::memory_order_relaxed),
        gAdjointTwoSweep.load(std::memory_order_relaxed), gAdjointWithRows.load(std::memory_order_relaxed)};
}

void Wavefront::resetCounts() {
    gFused.store(0, std::memory_order_relaxed);
    gSwept.store(0, std::memory_order_relaxed);
    gTwoSweep.store(0, std::memory_order_relaxed);
    gAdjointFused.store(0, std::memory_order_relaxed);
    gAdjointTwoSweep.store(0, std::memory_order_relaxed);
    gAdjointWithRows.store(0, std::memory_order_relaxed);
}

void Wavefront::count(std::int64_t fused, std::int64_t swept, std::int64_t twoSweep) {
    if (fused)
        gFused.fetch_add(fused, std::memory_order_relaxed);
    if (swept)
        gSwept.fetch_add(swept, std::memory_order_relaxed);
    if (twoSweep)
        gTwoSweep.fetch_add(twoSweep, std::memory_order_relaxed);
}

void Wavefront::countAdjoint(std::int64_t fused, std::int64_t twoSweep, std::int64_t withRows) {
    if (withRows)
        gAdjointWithRows.fetch_add(withRows, std::memory_order_relaxed);
    if (fused)
        gAdjointFused.fetch_add(fused, std::memory_order_relaxed);
    if (twoSweep)
        gAdjointTwoSweep.fetch_add(twoSweep, std::memory_order_relaxed);
}

} // namespace yee::solver
