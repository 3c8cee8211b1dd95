#pragma once
/// \file GradientDriver.hpp
/// The reverse sweep of one tile: the exact discrete adjoint of the forward step (kernels/Adjoint.hpp),
/// the design-region gradient accumulation, and the three ways of bringing the forward state back:
///   full          every step's gradient-relevant fields kept (design E, objective detector fields),
///   checkpointed  full tile states at a binomial (revolve) schedule, segments recomputed,
///   reversible    the interior run backward in time, the PML/interior interface slab replayed from
///                 a recorder (LinearReconstructEveryK, DtypeConversion), optional full checkpoints.
/// Everything here lives on the tile's own device and covers only the tile: nothing is replicated.
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "yee/comm/Communicator.hpp"
#include "yee/core/Bytes.hpp"
#include "yee/detectors/DetectorSet.hpp"
#include "yee/gradient/Codec.hpp"
#include "yee/gradient/RecordStore.hpp"
#include "yee/solver/Result.hpp"
#include "yee/solver/Tile.hpp"

namespace yee::gradient {

/// Gradient configuration derived from the scene's "gradient" section (validated).
struct GradientPlan {
    scene::GradientMethod method = scene::GradientMethod::Checkpointed;
    int numCheckpoints = 8;
    int numCheckpointsReversible = 0;
    int everyK = 1; ///< LinearReconstructEveryK k (1 = every step)
    int startAfter = 0;
    Dtype dtype = Dtype::Float64; ///< recorder storage format
    std::string tier = "device";
    int transferInterval = 1;
    int ringBuffers = 4;
    std::string diskPath;
};

/// Parse and check the gradient section against the plan; throws InputError naming the field.
GradientPlan makeGradientPlan(const solver::Plan& p);

template <class T> class GradientDriver {
public:
    /// Allocates every gradient buffer of this tile on its device (dry-run aware). The objective's
    /// adjoint comes from the detectors' parts on this tile (`dets`, which must outlive the driver).
    GradientDriver(solver::Tile<T>& tile, const detectors::DetectorSet<T>& dets, const GradientPlan& gp);
    ~GradientDriver();

    /// Called after forward step n (and its detector recording) of the original forward run.
    void afterForwardStep(int n, comm::Communicator& comm);
    /// The reverse sweep over all steps; leaves the per-cell design gradient accumulated.
    void backward(comm::Communicator& comm);
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

    std::int64_t recomputedSteps() const { return recomputed_; }
    /// Largest relative difference between the reconstructed and the forward design/objective fields seen
    /// at reversible checkpoints (0 without checkpoints or for exact methods).
    double drift() const { return drift_; }

private:
    static std::vector<solver::NamedArray> assembleImpl(const solver::Plan& p,
                                                        std::vector<ByteReader*>& readers,
                                                        std::vector<std::int64_t>* recomputed,
                                                        std::vector<double>* drift);
    struct Point {
        int comp;
        std::int64_t off; ///< element offset into the field array
    };
    /// A list of field locations read or written as a block: directly on CPU devices, by a gather /
    /// scatter kernel and one copy on GPUs (so per-step traffic is the list, never the fields).
    struct PointSet {
        std::vector<Point> pts;
        device::Buffer<int> comp; ///< GPU copies of the list
        device::Buffer<std::int64_t> off;
        device::Buffer<T> val;
    };
    void preparePoints(PointSet& ps);
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
    void accumulateGradient(const std::vector<T>& after, const std::vector<T>& before);
    void cpmlEAdjoint();
    void cpmlHAdjoint();
    void adjointFirstHalf(int n, const std::vector<T>& after, const std::vector<T>& before);
    void adjointSecondHalf();
    void adjointLast();
    void exchange(comm::Communicator& comm, int field, bool merged, comm::Phase phase);
    void adjointStep(int n, const std::vector<T>& after, const std::vector<T>& before,
                     comm::Communicator& comm);
    // state snapshots (checkpointed / reversible checkpoints)
    std::int64_t stateSize() const;
    void saveState(T* dst) const;
    void loadState(const T* src);
    void zeroState();
    // methods
    void backwardFull(comm::Communicator& comm);
    void backwardCheckpointed(comm::Communicator& comm);
    void revolve(int a, int b, int c, comm::Communicator& comm);
    void advance(int from, int to, comm::Communicator& comm);
    void leaf(int n, comm::Communicator& comm);
    void backwardReversible(comm::Communicator& comm);
    void recordSlab(int n);
    void replay(int n, int part);
    void reconstructE(int n);
    void reconstructH(int n);
    std::vector<int> chainPositions() const;

    solver::Tile<T>& tile_;
    const detectors::DetectorSet<T>& dets_;
    GradientPlan gp_;
    const solver::Plan& plan_;
    typename solver::Tile<T>::FieldSet adj_;
    comm::ExchangeGroup mergedE_, mergedH_;
    std::vector<Point> points_;
    PointSet cap_;                ///< the capture list (points_)
    PointSet src_;                ///< where adjoint sources are added
    std::vector<double> srcCoef_; ///< Cb (E) or Db (H) at each source location, read after fill
    std::vector<T> srcVal_, pVal_;
    std::vector<typename solver::Tile<T>::Region> layerRegions_[2]; ///< reversible: H layers, E layers
    device::Buffer<T> layerStage_;                                  ///< GPU staging of the interface layers
    int designPoints_ = 0;
    std::vector<std::int64_t> designCells_; ///< global linear index per owned design cell
    std::vector<int> designRegion_;
    device::Buffer<double> grad_; ///< [cell][3] dJ/deps
    std::vector<Term> terms_;
    std::vector<double> carry_; ///< per source location: dJ/dE^n carried to the previous reverse step
    std::vector<T> capA_, capB_;

    // slab adjoint state
    struct SlabAdj {
        std::array<device::Buffer<T>, 2> psiE, psiH, w;
    };
    std::vector<SlabAdj> slabAdj_;
    // full
    device::Buffer<T> history_;
    // checkpointed
    device::Buffer<T> slots_;
    std::map<int, int> stored_; ///< step -> slot
    std::vector<int> freeSlots_;
    int current_ = -1; ///< step whose state is in the fields (-1 unknown)
    std::vector<int> chain_;
    // reversible
    struct Layer {
        int comps[2];
        Box box; ///< tile-local cells
    };
    std::vector<Layer> layersH_, layersE_;
    std::int64_t recordLen_ = 0;
    std::vector<int> kept_;      ///< kept record steps, ascending
    std::vector<int> keptIndex_; ///< step -> position in kept_ or -1
    std::unique_ptr<RecordStore> store_;
    device::Buffer<T> revCheckpoints_;
    std::vector<int> revCheckpointSteps_;
    Box interior_;
    std::int64_t recomputed_ = 0;
    double drift_ = 0;
};

extern template class GradientDriver<float>;
extern template class GradientDriver<double>;

} // namespace yee::gradient
