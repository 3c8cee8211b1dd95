#pragma once
/// \file ReversibleState.hpp
/// Forward-state strategy "reversible": the interior of the tile is run backward in time (the inverse
/// leapfrog update, sources subtracted), and the one-cell layers where the interior meets the PML —
/// which the interior update reads but cannot reconstruct — are recorded during the forward run and
/// replayed. The recorder keeps every k-th step (LinearReconstructEveryK; the rest interpolated), in a
/// storage format of choice (DtypeConversion, Codec.hpp), on the device or staged to host or disk
/// (RecordStore.hpp). Optional full-state checkpoints (StateSnapshots) at evenly spaced steps replace the
/// reconstruction there, which bounds drift in lossy media; the drift they reveal is measured.
#include <memory>
#include <vector>

#include "yee/gradient/ForwardState.hpp"
#include "yee/gradient/RecordStore.hpp"
#include "yee/gradient/StateSnapshots.hpp"
#include "yee/kernels/RecordCodec.hpp"

namespace yee::gradient {

template <class T> class ReversibleState final : public ForwardState<T> {
public:
    /// Finds the interface layers this tile owns and allocates the recorder, its staging and the
    /// checkpoints on the tile's device (dry-run aware).
    ReversibleState(AdjointSweep<T>& sweep, const GradientPlan& gp);
    void afterForwardStep(int n, comm::Communicator& comm) override;
    void backward(comm::Communicator& comm) override;
    double drift() const override { return drift_; }
    std::string failure() const override { return store_ ? store_->failure() : std::string(); }

private:
    /// Record the interface layers after forward step n (kept steps only).
    void record(int n);
    /// Staged devices: encode record r from the fields into the store on the device (RecordCodec kernels).
    void recordOnDevice(int r);
    /// Staged devices: replay's work on the device (the same values as the host path writes).
    void replayOnDevice(int n, int part);
    /// The record's field regions, H layers then E layers, for the RecordCodec kernels.
    kernels::RecordLayout<T> recordLayout() const;
    /// Write the recorded (or interpolated) layers of step n back into the fields: the H layers (part 0)
    /// or the E layers (part 1); n < 0 writes zeros.
    void replay(int n, int part);
    /// E^{n+1} -> E^n in the interior (the inverse E update, the E sources of step n subtracted).
    void reconstructE(int n);
    /// H^{n+1/2} -> H^{n-1/2} in the interior.
    void reconstructH(int n);
    /// Compare the reconstructed capture values with checkpoint j (kept as the largest relative
    /// difference) and continue from the checkpoint.
    void restoreCheckpoint(int j);
    /// Whether the reverse sweep may run the inverse updates inside the adjoint step's fused pass
    /// (backwardInPass): the sweep takes forward rows (AdjointSweep::adjointPassTakesRows) and every
    /// capture point lies in the interior.
    bool inPassAllowed() const;
    /// The reverse sweep with the inverse H update of step n and the inverse E update of step n - 1 in
    /// the adjoint step n's fused pass (see backward()).
    void backwardInPass(comm::Communicator& comm);
    /// The first part of reverse step n in the separate passes: the checkpoint of state n+1 where there
    /// is one, the capture after the step, the H layers of step n, E^n in the interior, the capture
    /// before the step.
    void beforeAdjointStep(int n);

    /// One recorded layer: two tangential components on a one-cell slab.
    struct Layer {
        int comps[2];
        Box box; ///< tile-local cells
    };

    AdjointSweep<T>& sweep_;
    solver::Tile<T>& tile_;
    GradientPlan gp_;
    Box interior_; ///< tile-local cells outside every PML
    std::vector<Layer> layersH_, layersE_;
    std::vector<typename solver::Tile<T>::Region> layerRegions_[2]; ///< H layers, E layers
    std::int64_t recordLen_ = 0;                                    ///< values per record
    device::Buffer<T>
        layerStage_; ///< empty: the host path runs on CPU devices, which read the layers in place
    // Staged devices (GPUs) encode and decode on the device: each record's max |x| (its scale) stays there,
    // and an interpolated replay copies the upper record's bytes aside before reading the lower one.
    device::Buffer<std::uint64_t> maxAbs_; ///< per kept record
    device::Buffer<unsigned char> upper_;  ///< one record's bytes
    std::vector<int> kept_;                ///< kept record steps, ascending
    std::vector<int> keptIndex_;           ///< step -> position in kept_ or -1
    std::unique_ptr<RecordStore> store_;
    std::vector<int> checkpointSteps_; ///< states stored during the forward run, ascending
    std::unique_ptr<StateSnapshots> checkpoints_;
    std::vector<T> after_, before_;
    solver::RowInjections<T> eInj_; ///< the E injections by row of interior_ (backwardInPass)
    std::vector<int> eInjIndex_;    ///< their table entries (Tile::rowInjections)
    /// The last two records decoded (the reverse sweep reads each kept record for up to 2k steps).
    struct Decoded {
        int record = -1;
        std::vector<double> values;
    };
    Decoded decoded_[2];
    std::vector<T> vals_; ///< one part of a replayed record, as uploaded
    /// Record r decoded, from the cache or the store; evicts the cached record other than `keep`.
    const std::vector<double>& decoded(int r, int keep);
    double drift_ = 0;
};

extern template class ReversibleState<float>;
extern template class ReversibleState<double>;

} // namespace yee::gradient
