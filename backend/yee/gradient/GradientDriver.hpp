#pragma once
/// \file GradientDriver.hpp
/// The reverse sweep of one tile, composed of its parts:
///   AdjointStepper   the exact discrete adjoint of the forward step (kernels/Adjoint.hpp) and its halos,
///   DesignGradient   the design cells, their per-cell dJ/deps and the assembly into dJ/dlatent,
///   objective terms  the adjoint sources of the objective (here, below),
///   ForwardState     how the forward state is available during the reverse sweep: full,
///                    checkpointed (revolve) or reversible, one strategy chosen by gradient.method.
/// Capture points are one list: the design's first, then the objective's.
/// Everything here lives on the tile's own device and covers only the tile: nothing is replicated.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "yee/comm/Communicator.hpp"
#include "yee/core/Bytes.hpp"
#include "yee/detectors/DetectorSet.hpp"
#include "yee/gradient/AdjointStepper.hpp"
#include "yee/gradient/DesignGradient.hpp"
#include "yee/gradient/ForwardState.hpp"
#include "yee/gradient/GradientPlan.hpp"
#include "yee/gradient/PointList.hpp"
#include "yee/solver/Result.hpp"
#include "yee/solver/Tile.hpp"

namespace yee::gradient {

/// Parse and check the gradient section against the plan; throws InputError naming the field.
GradientPlan makeGradientPlan(const solver::Plan& p);

/// Watches the reverse sweep (phases Reconstruct and Adjoint). `check` runs on every rank after every
/// `interval` steps of a phase, except after the phase's last step, with the same arguments on every
/// rank (the schedule is the same on all tiles), so it may hold a collective; it returns true to stop
/// the sweep, which then throws yee::Cancelled out of GradientDriver::backward() on every rank at once.
struct SweepMonitor {
    int interval = 64; ///< steps of one phase between checks (>= 1)
    /// (phase, steps of that phase done, its planned total, seconds spent in it so far) -> stop?
    std::function<bool(comm::Phase, std::int64_t, std::int64_t, double)> check;
};

/// Wall time and steps of one phase of the reverse sweep.
struct SweepPhase {
    std::int64_t steps = 0;      ///< done
    std::int64_t totalSteps = 0; ///< planned
    double seconds = 0;          ///< wall time (s)
};

template <class T> class GradientDriver final : private AdjointSweep<T> {
public:
    /// Allocates every gradient buffer of this tile on its device (dry-run aware). The objective's
    /// adjoint comes from the detectors' parts on this tile (`dets`, which must outlive the driver).
    GradientDriver(solver::Tile<T>& tile, const detectors::DetectorSet<T>& dets, const GradientPlan& gp);
    ~GradientDriver();

    /// Called after forward step n (and its detector recording) of the original forward run.
    void afterForwardStep(int n, comm::Communicator& comm);
    /// The reverse sweep over all steps; leaves the per-cell design gradient accumulated. Throws
    /// yee::Cancelled when the monitor asks to stop (the gradient is then incomplete).
    void backward(comm::Communicator& comm);
    /// Watch the reverse sweep (progress, cancel); without a monitor it runs to the end unobserved.
    void setMonitor(SweepMonitor m) { monitor_ = std::move(m); }
    /// The reverse sweep's recomputation of forward steps (method checkpointed; empty plan otherwise).
    const SweepPhase& reconstructPhase() const { return reconstruct_; }
    /// The reverse sweep's adjoint steps (for method reversible including each step's reconstruction).
    const SweepPhase& adjointPhase() const { return adjoint_; }
    /// Append this tile's design-cell gradients to a gather blob.
    void serialize(ByteWriter& w) const;
    /// Rank 0: sum per voxel in global order, chain through each design map; returns one array per
    /// design, named after it, shape [vz, vy, vx] (latent coordinates).
    static std::vector<solver::NamedArray> assemble(const solver::Plan& p, std::vector<ByteReader*>& readers);
    /// As assemble(), for blobs whose gradient part is followed by the tile's counters
    /// (recomputed steps, drift), which are returned per rank.
    static std::vector<solver::NamedArray> assembleWith(const solver::Plan& p,
                                                        std::vector<ByteReader*>& readers,
                                                        std::vector<std::int64_t>& recomputed,
                                                        std::vector<double>& drift);

    /// Forward steps the reverse sweep will run again, known before it starts (checkpointed; else 0).
    std::int64_t plannedRecomputeSteps() const { return forward_->plannedRecomputeSteps(); }
    /// Forward steps run again during the reverse sweep (checkpointed).
    std::int64_t recomputedSteps() const { return forward_->recomputedSteps(); }
    /// Largest relative difference between the reconstructed and the forward design/objective fields seen
    /// at reversible checkpoints (0 without checkpoints or for exact methods).
    double drift() const { return forward_->drift(); }
    /// Why this tile's gradient is unusable (ForwardState::failure(): e.g. a recorder write that failed
    /// mid-run), as one line naming the output; empty when it is sound.
    std::string failure() const { return forward_->failure(); }

private:
    using Point = FieldPoint;
    using PointSet = PointList<T>;
    /// Values of the first `count` locations of ps in field set s.
    void gather(PointSet& ps, typename solver::Tile<T>::FieldSet& s, std::int64_t count, std::vector<T>& out);
    /// Write `in` to every location of ps in s.
    void scatter(PointSet& ps, typename solver::Tile<T>::FieldSet& s, const std::vector<T>& in);
    /// One objective term: its detector's adjoint (detectors/Detector.hpp) and where its sources go.
    struct Term {
        std::unique_ptr<detectors::TermAdjoint<T>> adj;
        int base = -1;        ///< first capture point of its detector (-1: it reads no fields)
        std::vector<int> src; ///< its source j -> location in src_
    };

    void buildPoints();
    void capture(std::vector<T>& out);
    void buildSources();
    void adjointSources(int n, const std::vector<T>& after, const std::vector<T>& before);
    // AdjointSweep, for the forward-state strategy
    solver::Tile<T>& tile() override { return tile_; }
    const std::vector<FieldPoint>& capturePoints() const override { return points_; }
    void captureForward(std::vector<T>& out) override { capture(out); }
    void adjointStep(int n, const std::vector<T>& after, const std::vector<T>& before,
                     comm::Communicator& comm, const std::function<void()>& reconstructH,
                     const AdjointPassRows* rows) override;
    bool adjointPassTakesRows() const override { return stepper_.passTakesRows(); }
    void reconstructedStep(comm::Communicator& comm) override;
    /// One step of `phase` done: its wall time since the last mark, and the monitor's check when due.
    void stepDone(comm::Phase phase, SweepPhase& ph);

    solver::Tile<T>& tile_;
    const detectors::DetectorSet<T>& dets_;
    const solver::Plan& plan_;
    AdjointStepper<T> stepper_;
    typename solver::Tile<T>::FieldSet& adj_; ///< the stepper's adjoint fields (P, Q)
    DesignGradient<T> design_;
    std::vector<Point> points_;
    PointSet cap_;                ///< the capture list (points_)
    PointSet src_;                ///< where adjoint sources are added
    std::vector<double> srcCoef_; ///< Cb (E) or Db (H) at each source location, read after fill
    std::vector<T> srcVal_, pVal_;
    std::vector<Term> terms_;
    std::vector<double> carry_; ///< per source location: dJ/dE^n carried to the previous reverse step
    std::unique_ptr<ForwardState<T>> forward_;
    SweepMonitor monitor_;
    SweepPhase reconstruct_, adjoint_;
    std::chrono::steady_clock::time_point mark_; ///< end of the last reverse-sweep step
};

extern template class GradientDriver<float>;
extern template class GradientDriver<double>;

} // namespace yee::gradient
