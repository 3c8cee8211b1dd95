#pragma once
/// \file ForwardState.hpp
/// How the forward state at step n is available during the reverse sweep: one strategy per
/// `gradient.method`, behind one interface.
///   full          FullState.hpp        every step's capture values kept (design E, objective fields),
///   checkpointed  RevolveState.hpp     full tile states at a binomial (revolve) schedule, segments
///                                      recomputed,
///   reversible    ReversibleState.hpp  the interior run backward in time, the PML/interior interface
///                                      layers replayed from a recorder, optional full checkpoints.
///
/// Adding a memory mode (a fourth strategy):
///  1. one strategy class deriving from ForwardState<T>, in its own file pair here; it sees only the
///     AdjointSweep<T> (tile, capture points, the adjoint of one step), the tile's state registry
///     (StateSnapshots copies whatever is registered as Dynamics) and the GradientPlan;
///  2. its value in scene::GradientMethod, with its name in the scene schema;
///  3. one case in makeForwardState() (ForwardState.cpp), the only place that maps a method to a
///     strategy. That switch has no default, so -Wswitch points at it when the enum grows.
/// Options of its own travel scene::GradientConfig -> GradientPlan (makeGradientPlan(), which also holds
/// the scene checks that depend on the method). The driver, the adjoint stepper and the design gradient
/// do not change.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "yee/comm/Communicator.hpp"
#include "yee/gradient/GradientPlan.hpp"
#include "yee/gradient/PointList.hpp"
#include "yee/solver/Tile.hpp"

namespace yee::gradient {

struct AdjointPassRows; // AdjointStepper.hpp

/// What a forward-state strategy drives: the tile, its capture points and the adjoint of one step.
/// Implemented by GradientDriver.
template <class T> class AdjointSweep {
public:
    virtual ~AdjointSweep() = default;
    /// The tile whose forward fields the strategy keeps or brings back.
    virtual solver::Tile<T>& tile() = 0;
    /// The capture points: design points first, then the objective's.
    virtual const std::vector<FieldPoint>& capturePoints() const = 0;
    /// The forward fields at the capture points, now, into `out` (one value per point).
    virtual void captureForward(std::vector<T>& out) = 0;
    /// The adjoint of forward step n, given the capture values after it (E^{n+1}, H^{n+1/2}) and before it
    /// (E^n; zeros for n = 0). With `reconstructH` set, the forward halos ride in the adjoint's two
    /// exchanges: the forward E^n must be current at the call, and `reconstructH` makes the forward
    /// H^{n-1/2} current between the halves (AdjointStepper::step).
    /// With `rows` (only where adjointPassTakesRows(); reconstructH then empty), the step's fused pass
    /// also runs those forward-field rows (AdjointPassRows).
    virtual void adjointStep(int n, const std::vector<T>& after, const std::vector<T>& before,
                             comm::Communicator& comm, const std::function<void()>& reconstructH,
                             const AdjointPassRows* rows) = 0;
    /// Whether adjointStep can take forward rows into its pass (AdjointStepper::passTakesRows).
    virtual bool adjointPassTakesRows() const { return false; }
    /// Called by strategies after every forward step they recompute during the reverse sweep (phase
    /// Reconstruct), on every rank alike; may throw yee::Cancelled between steps.
    virtual void reconstructedStep(comm::Communicator& comm) { (void)comm; }
};

/// One way of keeping or bringing back the forward state (see the file comment).
template <class T> class ForwardState {
public:
    virtual ~ForwardState() = default;
    /// Called after forward step n (and its detector recording) of the original forward run.
    virtual void afterForwardStep(int n, comm::Communicator& comm) = 0;
    /// The reverse sweep n = N-1 .. 0: for every step, make the forward state available and call
    /// sweep.adjointStep(n, ...) exactly once, in decreasing n.
    virtual void backward(comm::Communicator& comm) = 0;
    /// Forward steps run again during the reverse sweep (0 for strategies that recompute nothing).
    virtual std::int64_t recomputedSteps() const { return 0; }
    /// Forward steps the reverse sweep will recompute in all, known before it starts (progress, ETA).
    virtual std::int64_t plannedRecomputeSteps() const { return 0; }
    /// Largest relative difference between reconstructed and stored forward fields at the capture points
    /// (0 for exact strategies).
    virtual double drift() const { return 0; }
    /// Why the forward state this tile kept is unusable, as one line naming the output that failed (a
    /// recorder transfer that failed mid-run); empty when it is sound. The run still finishes (every
    /// rank takes every step), and the gradient is discarded.
    virtual std::string failure() const { return {}; }
};

/// The strategy for gp.method, allocating what it keeps on the sweep's tile device (dry-run aware).
/// The sweep must outlive the strategy.
template <class T>
std::unique_ptr<ForwardState<T>> makeForwardState(const GradientPlan& gp, AdjointSweep<T>& sweep);

} // namespace yee::gradient
