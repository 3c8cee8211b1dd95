#include "yee/gradient/FullState.hpp"

#include <algorithm>

namespace yee::gradient {

template <class T>
FullState<T>::FullState(AdjointSweep<T>& sweep)
    : sweep_(sweep), points_(std::int64_t(sweep.capturePoints().size())),
      history_(sweep.tile().device(), std::int64_t(sweep.tile().plan().steps) * points_,
               device::Category::Checkpoints),
      after_(std::size_t(points_), T(0)), before_(std::size_t(points_), T(0)) {}

template <class T> void FullState<T>::afterForwardStep(int n, comm::Communicator&) {
    sweep_.captureForward(after_);
    sweep_.tile().device().copy(history_.data() + std::int64_t(n) * points_, after_.data(),
                                points_ * std::int64_t(sizeof(T)));
}

template <class T> void FullState<T>::backward(comm::Communicator& comm) {
    const device::Device& dev = sweep_.tile().device();
    const std::int64_t K = points_, bytes = K * std::int64_t(sizeof(T));
    for (int n = sweep_.tile().plan().steps - 1; n >= 0; --n) {
        dev.copy(after_.data(), history_.data() + std::int64_t(n) * K, bytes);
        if (n > 0)
            dev.copy(before_.data(), history_.data() + std::int64_t(n - 1) * K, bytes);
        else
            std::fill(before_.begin(), before_.end(), T(0));
        sweep_.adjointStep(n, after_, before_, comm, {}, nullptr);
    }
}

template class FullState<float>;
template class FullState<double>;

} // namespace yee::gradient
