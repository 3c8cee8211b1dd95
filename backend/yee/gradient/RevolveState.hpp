#pragma once
/// \file RevolveState.hpp
/// Forward-state strategy "checkpointed": full tile states (StateSnapshots) at the binomial (revolve)
/// schedule, taken during the forward run and during the reverse sweep; each step's forward state is
/// recomputed from the nearest stored state below it.
#include <map>
#include <vector>

#include "yee/gradient/ForwardState.hpp"
#include "yee/gradient/StateSnapshots.hpp"

namespace yee::gradient {

template <class T> class RevolveState final : public ForwardState<T> {
public:
    /// Allocates min(gp.numCheckpoints, steps - 1) (at least 1) state slots on the tile's device.
    RevolveState(AdjointSweep<T>& sweep, const GradientPlan& gp);
    void afterForwardStep(int n, comm::Communicator& comm) override;
    void backward(comm::Communicator& comm) override;
    std::int64_t recomputedSteps() const override { return recomputed_; }
    std::int64_t plannedRecomputeSteps() const override { return planned_; }

private:
    /// Reverse steps [a, b) with c free slots (state a is stored or current).
    void revolve(int a, int b, int c);
    /// Recompute forward steps [from, to) from the state in the fields.
    void advance(int from, int to);
    /// Reverse step n: bring back state n, step it once more between two captures, run the adjoint.
    void leaf(int n);
    /// Make state a current (from its slot, or zero for a = 0).
    void restore(int a);
    /// Store the state in the fields, which is state m, in a free slot.
    void store(int m);

    AdjointSweep<T>& sweep_;
    solver::Tile<T>& tile_;
    int checkpoints_ = 1;
    StateSnapshots slots_;
    std::map<int, int> stored_; ///< step -> slot
    std::vector<int> freeSlots_;
    int current_ = -1;       ///< step whose state is in the fields (-1 unknown)
    std::vector<int> chain_; ///< states the forward run stores (the first split of every level)
    std::vector<T> after_, before_;
    std::int64_t recomputed_ = 0;
    std::int64_t planned_ = 0; ///< recomputed_ after a full reverse sweep (the schedule run without stepping)
    bool counting_ = false;
    comm::Communicator* comm_ = nullptr; ///< the sweep's communicator, during backward()    ///< running the
                                         ///< schedule only to count its recomputed steps
};

extern template class RevolveState<float>;
extern template class RevolveState<double>;

} // namespace yee::gradient
