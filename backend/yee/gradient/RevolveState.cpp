#include "yee/gradient/RevolveState.hpp"

#include <algorithm>

namespace yee::gradient {

namespace {
/// Binomial bound of revolve: steps reversible with c checkpoints and r recomputation sweeps.
double beta(int c, int r) {
    double v = 1;
    for (int i = 1; i <= c; ++i)
        v = v * double(r + i) / double(i);
    return v;
}
/// The first checkpoint of steps [a, b) with c free slots (state a is restorable besides them): the
/// optimal split of binomial checkpointing (Griewank 1992). With s = c + 1 states and the repetition
/// number r (beta(s, r-1) < l <= beta(s, r), l = b - a), every advance m in
/// [max(beta(s, r-2), l - beta(s-1, r)), min(beta(s, r-1), l - beta(s-1, r-1))] reaches the minimal
/// number of forward steps; this takes the low end.
int revolveSplit(int a, int b, int c) {
    const int l = b - a, s = c + 1;
    int r = 0;
    while (beta(s, r) < l)
        ++r;
    const double m = std::max(r >= 2 ? beta(s, r - 2) : 0.0, double(l) - beta(s - 1, r));
    return std::clamp(a + int(std::min(m, double(l))), a + 1, b - 1);
}
int slotCount(int requested, int steps) {
    return std::max(1, std::min(requested, std::max(1, steps - 1)));
}
} // namespace

template <class T>
RevolveState<T>::RevolveState(AdjointSweep<T>& sweep, const GradientPlan& gp)
    : sweep_(sweep), tile_(sweep.tile()), checkpoints_(slotCount(gp.numCheckpoints, tile_.plan().steps)),
      slots_(tile_.device(), tile_.state(), checkpoints_) {
    for (int q = checkpoints_ - 1; q >= 0; --q)
        freeSlots_.push_back(q);
    int a = 0, b = tile_.plan().steps, c = checkpoints_;
    while (b - a > 1 && c > 0) {
        const int m = revolveSplit(a, b, c);
        chain_.push_back(m);
        a = m;
        --c;
    }
    const std::size_t K = sweep.capturePoints().size();
    after_.assign(K, T(0));
    before_.assign(K, T(0));
    // The schedule alone, nothing stepped: how many forward steps the reverse sweep recomputes.
    for (int m : chain_)
        stored_[m] = -1;
    counting_ = true;
    current_ = tile_.plan().steps;
    revolve(0, tile_.plan().steps, checkpoints_);
    counting_ = false;
    planned_ = recomputed_;
    recomputed_ = 0;
    stored_.clear();
    current_ = -1;
}

template <class T> void RevolveState<T>::store(int m) {
    if (counting_) {
        stored_[m] = -1;
        return;
    }
    const int slot = freeSlots_.back();
    freeSlots_.pop_back();
    slots_.save(slot);
    stored_[m] = slot;
}

template <class T> void RevolveState<T>::restore(int a) {
    if (!counting_) {
        if (a == 0)
            slots_.zeroState();
        else
            slots_.load(stored_.at(a));
    }
    current_ = a;
}

template <class T> void RevolveState<T>::afterForwardStep(int n, comm::Communicator& comm) {
    if (std::find(chain_.begin(), chain_.end(), n + 1) != chain_.end()) {
        tile_.finishPending(comm);
        store(n + 1);
    }
}

template <class T> void RevolveState<T>::advance(int from, int to) {
    for (int s = from; s < to; ++s) {
        ++recomputed_;
        if (counting_)
            continue;
        tile_.step(s, *comm_, false, comm::Phase::Reconstruct);
        sweep_.reconstructedStep(*comm_);
    }
    current_ = to;
}

template <class T> void RevolveState<T>::leaf(int n) {
    if (current_ != n) {
        // Restore the nearest stored state at or below n and recompute up to it.
        int from = 0;
        for (auto& [s, slot] : stored_)
            if (s <= n)
                from = std::max(from, s);
        restore(from);
        advance(from, n);
    }
    ++recomputed_;
    current_ = n + 1;
    if (counting_)
        return;
    sweep_.captureForward(before_);
    tile_.step(n, *comm_, false, comm::Phase::Reconstruct);
    sweep_.reconstructedStep(*comm_);
    sweep_.captureForward(after_);
    sweep_.adjointStep(n, after_, before_, *comm_, {}, nullptr);
}

template <class T> void RevolveState<T>::revolve(int a, int b, int c) {
    if (b - a == 1) {
        leaf(a);
        return;
    }
    if (c == 0) {
        for (int n = b - 1; n >= a; --n)
            leaf(n);
        return;
    }
    const int m = revolveSplit(a, b, c);
    if (!stored_.count(m)) {
        if (current_ != a)
            restore(a);
        advance(a, m);
        store(m);
    }
    revolve(m, b, c - 1);
    // State m (stored here or during the forward run) is not needed again.
    if (!counting_)
        freeSlots_.push_back(stored_.at(m));
    stored_.erase(m);
    current_ = -1;
    revolve(a, m, c);
}

template <class T> void RevolveState<T>::backward(comm::Communicator& comm) {
    current_ = tile_.plan().steps; // the forward run leaves state N in the fields
    comm_ = &comm;
    revolve(0, tile_.plan().steps, checkpoints_);
    comm_ = nullptr;
}

template class RevolveState<float>;
template class RevolveState<double>;

} // namespace yee::gradient
