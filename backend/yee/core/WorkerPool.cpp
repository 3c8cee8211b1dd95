#include "yee/core/WorkerPool.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace yee {

namespace {

using Clock = std::chrono::steady_clock;

/// How long a waiting thread spins before it sleeps: long enough to bridge the serial work between
/// two launches of one step (injections, packing), short enough to cost another job little.
constexpr auto kSpin = std::chrono::microseconds(40);

/// Most chunks one range is cut into (the chunk counters of the ticket have 20 bits).
constexpr std::uint64_t kMaxChunks = std::uint64_t(1) << 20;
constexpr std::uint64_t kChunkMask = kMaxChunks - 1;
constexpr std::uint32_t kTagMask = (std::uint32_t(1) << 24) - 1;

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

/// Spin on `a` while it equals `old` for up to kSpin, then sleep on it (futex) until it changes.
template <class U> U waitChange(const std::atomic<U>& a, U old) {
    const auto until = Clock::now() + kSpin;
    for (int n = 0;; ++n) {
        const U v = a.load(std::memory_order_acquire);
        if (v != old)
            return v;
        if ((n & 63) == 63 && Clock::now() > until)
            break;
        relax();
    }
    for (;;) {
        a.wait(old, std::memory_order_acquire);
        const U v = a.load(std::memory_order_acquire);
        if (v != old)
            return v;
    }
}

/// The workers of one calling thread and the range they are working on.
///
/// A range is published as a ticket, (tag << 40) | (chunks << 20) | next chunk, with the tag the low
/// 24 bits of its generation: a thread claims chunk `next` by a compare-and-swap on the ticket, and a
/// worker that woke up late for an older range fails the tag check and takes nothing. The job fields
/// (fn, ctx, count, grain) are read only after a successful claim: the caller cannot have moved on to
/// another range then, because it waits until every chunk, this one included, has finished.
class Pool {
public:
    explicit Pool(int workers) : requested_(workers) {
        threads_.reserve(std::size_t(workers));
        for (int w = 0; w < workers; ++w) {
            try {
                threads_.emplace_back([this] { loop(); });
            } catch (const std::system_error&) {
                break; // fewer workers; the caller does the rest
            }
        }
    }
    ~Pool() {
        stop_.store(true, std::memory_order_release);
        gen_.fetch_add(1, std::memory_order_acq_rel);
        gen_.notify_all();
        for (auto& t : threads_)
            t.join();
    }
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    /// The worker count asked for (fewer may have started).
    int requested() const { return requested_; }

    void run(std::int64_t count, std::int64_t grain, WorkerPool::RangeFn fn, const void* ctx) {
        std::uint64_t chunks = std::uint64_t((count + grain - 1) / grain);
        if (chunks > kMaxChunks - 1) {
            grain = (count + std::int64_t(kMaxChunks) - 2) / std::int64_t(kMaxChunks - 1);
            chunks = std::uint64_t((count + grain - 1) / grain);
        }
        fn_ = fn;
        ctx_ = ctx;
        count_ = count;
        grain_ = grain;
        done_.store(0, std::memory_order_relaxed);
        const std::uint32_t g = gen_.load(std::memory_order_relaxed) + 1;
        ticket_.store(ticketOf(g, chunks, 0), std::memory_order_release);
        gen_.store(g, std::memory_order_release);
        gen_.notify_all();
        const std::uint32_t mine = work(g);
        std::uint32_t d = done_.fetch_add(mine, std::memory_order_acq_rel) + mine;
        while (d < chunks)
            d = waitChange(done_, d);
    }

private:
    static std::uint64_t ticketOf(std::uint32_t gen, std::uint64_t chunks, std::uint64_t next) {
        return (std::uint64_t(gen & kTagMask) << 40) | (chunks << 20) | next;
    }

    /// Claim and run chunks of generation g until none is left; returns how many this thread ran.
    std::uint32_t work(std::uint32_t g) {
        std::uint32_t ran = 0;
        std::uint64_t t = ticket_.load(std::memory_order_acquire);
        for (;;) {
            if (std::uint32_t(t >> 40) != (g & kTagMask))
                return ran;
            const std::uint64_t chunks = (t >> 20) & kChunkMask, next = t & kChunkMask;
            if (next >= chunks)
                return ran;
            if (!ticket_.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel,
                                               std::memory_order_acquire))
                continue;
            const std::int64_t b = std::int64_t(next) * grain_;
            const std::int64_t e = b + grain_ < count_ ? b + grain_ : count_;
            fn_(ctx_, b, e);
            ++ran;
            t = ticket_.load(std::memory_order_acquire);
        }
    }

    void loop() {
        std::uint32_t seen = gen_.load(std::memory_order_acquire);
        for (;;) {
            // A worker that starts late may first see the generation the destructor published: it must
            // not wait for a change that has already happened (stop_ is set before that change).
            if (stop_.load(std::memory_order_acquire))
                return;
            seen = waitChange(gen_, seen);
            if (stop_.load(std::memory_order_acquire))
                return;
            const std::uint32_t ran = work(seen);
            if (ran == 0)
                continue;
            // The last finished chunk wakes the caller (notify costs nothing when it is not asleep).
            const std::uint64_t chunks =
                (std::uint64_t(ticket_.load(std::memory_order_relaxed)) >> 20) & kChunkMask;
            if (done_.fetch_add(ran, std::memory_order_acq_rel) + ran >= chunks)
                done_.notify_one();
        }
    }

    int requested_;
    std::vector<std::thread> threads_;
    std::atomic<std::uint32_t> gen_{0};
    std::atomic<std::uint64_t> ticket_{0};
    std::atomic<std::uint32_t> done_{0};
    std::atomic<bool> stop_{false};
    WorkerPool::RangeFn fn_ = nullptr;
    const void* ctx_ = nullptr;
    std::int64_t count_ = 0, grain_ = 1;
};

} // namespace

void WorkerPool::run(int threads, std::int64_t count, std::int64_t grain, RangeFn fn, const void* ctx) {
    if (count <= 0)
        return;
    if (grain < 1)
        grain = 1;
    if (threads <= 1 || count <= grain) {
        fn(ctx, 0, count);
        return;
    }
    thread_local std::unique_ptr<Pool> pool;
    if (!pool || pool->requested() != threads - 1) {
        pool.reset();
        pool = std::make_unique<Pool>(threads - 1);
    }
    pool->run(count, grain, fn, ctx);
}

} // namespace yee
