#pragma once
/// \file Tile.hpp
/// One tile of the grid on one device: its fields with a one-cell halo, update coefficients, CPML
/// slabs, source injections, detector state and planned halo exchanges. All memory comes from the
/// device (and so from its ledger). The same class runs single-domain (one tile) and decomposed.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "yee/comm/Communicator.hpp"
#include "yee/core/ExactSum.hpp"
#include "yee/core/View.hpp"
#include "yee/device/Device.hpp"
#include "yee/solver/Plan.hpp"

namespace yee::solver {

/// Per-tile state of one detector (only the part this tile owns).
template <class T> struct TileDetector {
    const DetectorPlan* plan = nullptr;
    Box own;                                   ///< global cells of the detector owned by this tile
    device::Buffer<std::int64_t> sums;         ///< flux / energy: exact sums per sample (kWords + 1 each)
    device::Buffer<double> phasor;             ///< flux: [cell][lambda][4 comps][re, im]; phasor: [cell][comp][lambda][re, im]
    device::Buffer<double> eps;                ///< energy: [3][cell] permittivity at E locations
    device::Buffer<double> mu;                 ///< energy: [3][cell] permeability at H locations
    device::Buffer<double> prevE;              ///< energy: [3][cell] E^n saved before the E update
    device::Buffer<double> series;             ///< probe: [sample][owned comps]
    std::vector<int> probeSlots;               ///< probe: which plan comps this tile owns
    device::Buffer<float> snap;                ///< snapshot: [sample][comp][owned downsampled cells]
    Box snapOwn;                               ///< snapshot: downsampled index box owned
};

/// One tile's fields and the step that advances them.
template <class T> class Tile {
public:
    /// Allocate everything this tile needs on `dev` (in dry-run mode nothing is taken, only counted).
    Tile(std::shared_ptr<const Plan> plan, int index, device::Device& dev);
    ~Tile();
    Tile(const Tile&) = delete;
    Tile& operator=(const Tile&) = delete;

    /// Fill materials, CPML profiles, injections and detector constants. Not in dry-run mode.
    void fill();

    /// Advance one full leapfrog step n (H^{n-1/2} -> H^{n+1/2}, E^n -> E^{n+1}), exchanging halos
    /// through `comm`. With `overlap`, interior updates run while halo messages are in flight.
    void step(int n, comm::Communicator& comm, bool overlap);
    /// Complete a pending E halo exchange (after the last step).
    void finishPending(comm::Communicator& comm);
    /// Record detectors after step n.
    void record(int n);
    /// True when every owned field value is finite.
    bool finite() const;

    const Box& box() const { return box_; }
    device::Device& device() { return dev_; }
    const Plan& plan() const { return *plan_; }
    int index() const { return index_; }
    std::vector<TileDetector<T>>& detectors() { return dets_; }
    /// Owned cell count.
    std::int64_t cells() const { return box_.cells(); }

    /// Views of the six components (0..5 = Ex..Hz).
    View<T> field(int c) const { return View<T>(f_[c].data(), shape_); }
    const ArrayShape& shape() const { return shape_; }

private:
    struct Slab {
        tiling::PmlSlab slab;
        Box local;                       ///< tile-local cells
        int profLo = 0;                  ///< tile-local coordinate of profile[0] along the axis
        std::array<device::Buffer<T>, 2> psiE, psiH;
        std::array<device::Buffer<T>, 3> profE, profH; ///< b, c, 1/kappa - 1
    };
    struct TileInjection {
        const Injection* inj = nullptr;
        device::Buffer<std::int64_t> offset;
        device::Buffer<T> coef;
        std::vector<std::int64_t> hostOffsets; ///< kept until fill()
        std::vector<double> hostAmp;
        std::vector<Index3> hostCells;
    };
    struct Face {
        int axis = 0;
        int field = 0; ///< 0 = E, 1 = H
        Box sendBox;   ///< tile-local
        Box recvBox;   ///< tile-local (halo)
        device::Buffer<T> send, recv;
        bool hasSend = false, hasRecv = false;
    };

    void allocateDetectors();
    void buildExchanges();
    void updateH(const Box& b);
    void updateE(const Box& b);
    void cpmlH();
    void cpmlE();
    void inject(int fieldGroup, double t);
    void pack(int field);
    void saveEnergyE();
    void unpack(int field);

    std::shared_ptr<const Plan> plan_;
    int index_;
    device::Device& dev_;
    Box box_;
    ArrayShape shape_;
    int threads_ = 1;
    std::array<device::Buffer<T>, 6> f_;
    std::array<device::Buffer<T>, 3> cb_, ca_, db_;
    T dbScalar_ = 0;
    std::vector<std::unique_ptr<Slab>> slabs_;
    std::vector<std::unique_ptr<TileInjection>> injections_;
    std::vector<Face> faces_;
    comm::ExchangeGroup groupE_, groupH_;
    bool pendingE_ = false;
    Box coreH_, coreE_;
    std::vector<Box> restH_, restE_;
    std::vector<TileDetector<T>> dets_;
};

extern template class Tile<float>;
extern template class Tile<double>;

} // namespace yee::solver
