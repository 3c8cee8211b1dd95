#pragma once
/// \file ThreadGovernor.hpp
/// How many of the threads a caller asks for its parallel ranges actually run them: a thread count that
/// follows the free cores (core/WorkerPool.hpp keeps one governor per calling thread).
///
/// Why: when another job keeps the cores busy, a worker the scheduler takes off its core in the middle of
/// a range holds its chunk for a whole time slice (milliseconds) while the caller waits, and a step of a
/// small scene lasts a fraction of a millisecond. Measured with `yee-bench --shared-cores` on the
/// waveguide bend (2 cores, next to a 2-thread busy job): the forward run took 1.08-1.41 s on 2 threads
/// and 0.76-0.92 s on 1 thread (0.34-0.39 s alone on 2), while the value-and-grad, whose steps are
/// heavier, was faster on 2 threads (5.5-5.7 s against 7.4-8.4 s). Neither count is right for every run,
/// so the governor measures.
///
/// How: the ranges of a calling thread are grouped in windows of at least kWindowSeconds of wall time; a
/// window's rate is the indices its ranges covered per second (a stepping loop runs the same ranges every
/// step, so the rates of two windows compare like for like). A window in which the caller spent more than
/// kWaitTrigger of its time waiting for chunks that other threads held is evidence that they were off
/// their cores: the next kProbeWindows windows run on half the threads (a probe), and the count is kept if
/// their mean rate beats that of the last two steady windows by kMargin, else the probe is retried only
/// after twice as many windows as before. Below the asked-for count, a probe back up (twice the threads) runs
/// after 2, 4, 8, ... windows (reset by every switch), so the count returns when the other job ends. A run
/// with the cores to itself does not wait for its workers, never probes down, and pays nothing.
///
/// Which thread runs which chunk changes no value (WorkerPool.hpp), so the results are bit-identical
/// whatever the governor picks. YEE_THREAD_GOVERNOR=0 turns it off (every range on the threads asked for).
/// This header stays C++17-clean.
#include <algorithm>

namespace yee {

class ThreadGovernor {
public:
    /// Shortest window, in seconds: several scheduler time slices, so that a probe sees the sharing.
    static constexpr double kWindowSeconds = 0.08;
    /// Windows a probe runs, and steady windows it is compared with: next to a busy job one window's rate
    /// scatters by tens of percent (the scheduler's slices of 3-4 threads on 2 cores), so means are
    /// compared.
    static constexpr int kProbeWindows = 2;
    /// Fewest ranges in a window.
    static constexpr int kWindowRanges = 8;
    /// Share of a window's wall time the caller waited for other threads' chunks that starts a probe down.
    static constexpr double kWaitTrigger = 0.25;
    /// How much faster a probe must run to be kept.
    static constexpr double kMargin = 0.08;
    /// Longest wait between probes down, in windows (a run alone whose caller often waits pays a probe
    /// at most this often).
    static constexpr int kMaxInterval = 256;
    /// Longest wait between probes up, in windows (about 1.3 s: the threads come back soon after the
    /// other job ends).
    static constexpr int kMaxUpInterval = 16;

    /// The thread count ranges asked to run on `requested` threads use now (1 <= result <= requested). A
    /// change of `requested` starts over at that count.
    int threads(int requested) {
        if (requested != max_) {
            *this = ThreadGovernor{};
            max_ = requested;
            active_ = best_ = requested;
        }
        return active_;
    }

    /// The window that just closed ran at `rate` (ranges per second) on threads(), and the caller waited
    /// `waitShare` of it for other threads' chunks. Returns whether the count changes.
    bool windowClosed(double rate, double waitShare) {
        const int before = active_;
        if (probe_ != 0) {
            probeSum_ += rate;
            if (++probeRun_ < kProbeWindows)
                return false;
            const double probeRate = probeSum_ / kProbeWindows;
            const double steady = steadyCount_ > 1 ? 0.5 * (steadyRate_ + prevRate_) : steadyRate_;
            probeSum_ = 0;
            probeRun_ = 0;
            if (probeRate > steady * (1 + kMargin)) {
                best_ = active_; // the probe wins
                upInterval_ = 2;
                downInterval_ = 1;
                downWait_ = 0;
            } else if (probe_ < 0) {
                downInterval_ = std::min(kMaxInterval, 2 * downInterval_);
                downWait_ = downInterval_;
            } else {
                upInterval_ = std::min(kMaxUpInterval, 2 * upInterval_);
            }
            active_ = best_;
            probe_ = 0;
            sinceProbe_ = 0;
            steadyCount_ = 0; // the count kept is measured afresh before the next probe
            return active_ != before;
        }
        // A probe starts only after a steady window and is compared with the mean of the last two.
        prevRate_ = steadyRate_;
        steadyRate_ = rate;
        ++steadyCount_;
        ++sinceProbe_;
        if (downWait_ > 0)
            --downWait_;
        if (active_ > 1 && waitShare > kWaitTrigger && downWait_ == 0) {
            probe_ = -1;
            active_ = std::max(1, active_ / 2);
        } else if (active_ < max_ && sinceProbe_ >= upInterval_) {
            probe_ = +1;
            active_ = std::min(max_, 2 * active_);
        }
        return active_ != before;
    }

    /// Start over at the asked-for count (after a pause: another run or phase may behave otherwise).
    void restart() {
        const int m = max_;
        *this = ThreadGovernor{};
        max_ = active_ = best_ = m;
    }

    int asked() const { return max_; }
    /// Whether the window now running is a probe.
    bool probing() const { return probe_ != 0; }

private:
    int max_ = 0, active_ = 0, best_ = 0;
    int probe_ = 0;         ///< -1: probing fewer threads, +1: more, 0: none
    double steadyRate_ = 0; ///< rate of the last window at best_
    double prevRate_ = 0;   ///< and of the one before
    int steadyCount_ = 0;   ///< steady windows since the count last changed (or a probe ended)
    double probeSum_ = 0;   ///< rates of the probe's windows so far
    int probeRun_ = 0;      ///< probe windows run
    int sinceProbe_ = 0;    ///< steady windows since the last probe
    int upInterval_ = 2;    ///< steady windows before a probe up
    int downInterval_ = 1;  ///< steady windows a failed probe down waits, doubled per failure
    int downWait_ = 0;      ///< steady windows left before a probe down may run
};

} // namespace yee
