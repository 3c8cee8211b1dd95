#pragma once
/// \file RankThreads.hpp
/// One thread per rank for the in-process hubs (LocalHub, NcclHub), with their shared failure rule.
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "yee/core/Error.hpp"

namespace yee::comm {

/// Runs body(r) for r in [0, n), one thread each. When rank r throws, `alreadyFailed()` says whether
/// another rank had failed before (then this failure is most likely its consequence) and
/// `onFailure(message)` unblocks the others. After every thread has returned, the first root-cause
/// exception is rethrown, else the first exception.
inline void runRankThreads(int n, const std::function<void(int)>& body,
                           const std::function<bool()>& alreadyFailed,
                           const std::function<void(const std::string&)>& onFailure) {
    std::mutex em;
    std::exception_ptr primary;
    std::exception_ptr first;
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
        threads.emplace_back([&, r] {
            try {
                body(r);
            } catch (...) {
                const bool consequence = alreadyFailed();
                const std::exception_ptr ep = std::current_exception();
                {
                    std::lock_guard lk(em);
                    if (!consequence && !primary)
                        primary = ep;
                    if (!first)
                        first = ep;
                }
                onFailure("rank " + std::to_string(r) + " failed: " + describe(ep));
            }
        });
    }
    for (auto& t : threads)
        t.join();
    if (primary)
        std::rethrow_exception(primary);
    if (first)
        std::rethrow_exception(first);
}

} // namespace yee::comm
