#pragma once
/// \file WorkerPool.hpp
/// The CPU kernels' threads: a pool per calling thread whose workers sleep when there is no work, and a
/// parallel range whose chunks go to whichever thread is running.
///
/// Why not an OpenMP parallel-for per launch: a time step launches several kernels, and OpenMP's
/// default waits at the end of every parallel region by spinning; on a machine whose cores another job
/// also uses, a thread the scheduler has taken off its core holds its static share of the rows while its
/// partner spins, and a run became 10-50x slower next to one busy 2-thread job. Here the rows are taken
/// from a shared counter in small chunks, so a thread that is off its core holds at most one chunk, and
/// every wait (workers between launches, the caller for the last chunk) spins for a few microseconds and
/// then sleeps in the kernel (futex) instead of burning the other job's core.
///
/// Which thread computes which rows does not change any value: every cell is computed by the same
/// expression (kernels/Launch.hpp), so results are bit-identical for any thread count and schedule.
/// This header stays C++17-clean (device/Exec.hpp, and so kernels/Launch.hpp, are included by .cu files).
#include <cstdint>

namespace yee {

/// Parallel ranges on the calling thread's worker pool. Each thread that calls run() gets its own pool
/// (an emulated device's thread, the main thread), created on first use with `threads - 1` workers and
/// joined when that thread exits, so concurrent devices never share workers.
class WorkerPool {
public:
    /// fn(ctx, begin, end) for a chunk [begin, end) of a range.
    using RangeFn = void (*)(const void* ctx, std::int64_t begin, std::int64_t end);

    /// Run fn over [0, count) in chunks of at most `grain` (>= 1) indices on up to `threads` threads, the
    /// calling thread included; returns when every chunk has finished. With threads <= 1, or a single
    /// chunk, fn runs once on the calling thread. fn must not call run() itself. Throws nothing (fn must
    /// not throw either); a failure to start a worker thread leaves fewer workers.
    static void run(int threads, std::int64_t count, std::int64_t grain, RangeFn fn, const void* ctx);

    /// The chunk size run() is given by the launchers: about 16 chunks per thread, so that a thread
    /// which is off its core leaves little behind, and at least one index.
    static std::int64_t defaultGrain(std::int64_t count, int threads) {
        const std::int64_t g = count / (std::int64_t(threads > 1 ? threads : 1) * 16);
        return g > 0 ? g : 1;
    }
};

} // namespace yee
