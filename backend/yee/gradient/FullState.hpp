#pragma once
/// \file FullState.hpp
/// Forward-state strategy "full": the capture values of every forward step are kept (category
/// Checkpoints, steps x capture points), so the reverse sweep recomputes nothing.
#include <vector>

#include "yee/gradient/ForwardState.hpp"

namespace yee::gradient {

template <class T> class FullState final : public ForwardState<T> {
public:
    /// Allocates the history of every step's capture values on the tile's device (dry-run aware).
    explicit FullState(AdjointSweep<T>& sweep);
    void afterForwardStep(int n, comm::Communicator& comm) override;
    void backward(comm::Communicator& comm) override;

private:
    AdjointSweep<T>& sweep_;
    std::int64_t points_ = 0;   ///< capture points per step
    device::Buffer<T> history_; ///< [step][point]
    std::vector<T> after_, before_;
};

extern template class FullState<float>;
extern template class FullState<double>;

} // namespace yee::gradient
