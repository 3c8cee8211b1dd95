#pragma once
/// \file Tile.hpp
/// One tile of the grid on one device: its fields with a one-cell halo, update coefficients, CPML
/// slabs, source injections and planned halo exchanges. Detectors live in the layer above
/// (detectors/DetectorSet.hpp) and register their accumulators in the tile's state registry. All memory comes
/// from the device (and so from its ledger). The same class runs single-domain (one tile) and decomposed.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "yee/comm/Communicator.hpp"
#include "yee/core/View.hpp"
#include "yee/device/Device.hpp"
#include "yee/device/FieldTransfer.hpp"
#include "yee/device/HostFill.hpp"
#include "yee/solver/Dispersion.hpp"
#include "yee/solver/Plan.hpp"
#include "yee/solver/RowInjections.hpp"
#include "yee/solver/TileState.hpp"

namespace yee::kernels {
struct RowSink;
}

namespace yee::solver {

/// One tile's fields and the step that advances them.
template <class T> class Tile {
public:
    /// A face of a halo exchange (one axis, E-type or H-type) with its send/receive buffers.
    struct Face {
        int axis = 0;
        int field = 0; ///< 0 = E-type (high halo), 1 = H-type (low halo)
        Box sendBox;   ///< tile-local
        Box recvBox;   ///< tile-local (halo)
        device::Buffer<T> send, recv;
        bool hasSend = false, hasRecv = false;
    };
    /// Six halo-padded arrays (slots 0..2 at E locations, 3..5 at H locations) and their planned
    /// exchanges. The forward fields are one set; the adjoint (P = Cb*Ebar, Q = -Db*Hbar) is another.
    struct FieldSet {
        std::array<device::Buffer<T>, 6> f;
        std::vector<Face> faces;
        comm::ExchangeGroup groupE, groupH;
        bool pendingE = false;
    };

    /// Allocate everything this tile needs on `dev` (in dry-run mode nothing is taken, only counted).
    Tile(std::shared_ptr<const Plan> plan, int index, device::Device& dev);
    ~Tile();
    Tile(const Tile&) = delete;
    Tile& operator=(const Tile&) = delete;

    /// Fill materials, CPML profiles and injections. Not in dry-run mode.
    void fill();
    /// Fill again the materials of the cells of every design region this tile owns, from the plan's
    /// current design densities (after solver::setDesign()); every other constant is left as fill()
    /// made it. The coefficients are those a fresh fill() would give, bit for bit. Not in dry-run mode.
    void refillDesigns();
    /// Zero every registered state buffer (fields, CPML psi, detector accumulators): the state at step
    /// 0 of a run. Waits for the device.
    void resetState();

    /// Advance one full leapfrog step n (H^{n-1/2} -> H^{n+1/2}, E^n -> E^{n+1}), exchanging halos
    /// through `comm`. With `overlap`, interior updates run while halo messages are in flight. CPU
    /// (non-staged) devices take the fused H-then-E pass unless YEE_WAVEFRONT=0 (solver/Wavefront.hpp);
    /// both paths give the same bits and the same exchanges.
    void step(int n, comm::Communicator& comm, bool overlap, comm::Phase phase = comm::Phase::Forward);
    /// Whether step() takes the fused H-then-E pass (fixed when the tile is built).
    bool wavefront() const { return wavefront_; }
    /// Complete a pending E halo exchange (after the last step).
    void finishPending(comm::Communicator& comm);
    /// True when every owned field value is finite.
    bool finite() const;

    const Box& box() const { return box_; }
    device::Device& device() { return dev_; }
    const Plan& plan() const { return *plan_; }
    int index() const { return index_; }
    int threads() const { return threads_; }
    /// Owned cell count.
    std::int64_t cells() const { return box_.cells(); }

    /// Views of the six forward components (0..5 = Ex..Hz).
    View<T> field(int c) const { return View<T>(fwd_.f[c].data(), shape_); }
    View<T> view(const FieldSet& s, int c) const { return View<T>(s.f[c].data(), shape_); }
    const ArrayShape& shape() const { return shape_; }
    FieldSet& forward() { return fwd_; }

    // ---- building blocks shared by the forward step, the reconstruction and the adjoint ----
    /// Cb (c = 0..2) and, when the scene is lossy, Ca; Db when magnetic (else the scalar).
    View<T> cb(int c) const { return View<T>(cb_[c].data(), shape_); }
    View<T> ca(int c) const { return View<T>(ca_[c].data(), shape_); }
    View<T> db(int c) const { return View<T>(db_[c].data(), shape_); }
    T dbScalar() const { return dbScalar_; }
    /// H-type update of `s` (slots 3..5 -= Db curl slots 0..2) on box b.
    void updateH(FieldSet& s, const Box& b);
    /// E-type update of `s` (slots 0..2 = [Ca] slots 0..2 + Cb curl slots 3..5) on box b.
    void updateE(FieldSet& s, const Box& b, bool withCa);
    /// Full-box boxes used by the split updates.
    const Box& coreH() const { return coreH_; }
    const Box& coreE() const { return coreE_; }
    const std::vector<Box>& restH() const { return restH_; }
    const std::vector<Box>& restE() const { return restE_; }
    /// Source injections of one field group (0 = E at t, 1 = H at t), scaled by `sign`.
    void inject(int fieldGroup, double t, double sign = 1.0);
    /// Pack / unpack the E-type (0) or H-type (1) faces of a field set.
    void pack(FieldSet& s, int fieldGroup);
    void unpack(FieldSet& s, int fieldGroup);
    /// True when `comm` reads this group's buffers on the host (so the device must finish packing
    /// first): host communicators with something to send or receive.
    static bool hostStaged(const comm::Communicator& comm, const comm::ExchangeGroup& g) {
        return !comm.deviceMessages() && !(g.sends.empty() && g.recvs.empty());
    }
    /// Build a field set's faces and exchange groups (tags offset by `tagBase`).
    void buildExchanges(FieldSet& s, device::Category cat, int tagBase);

    // ---- moving parts of the fields between the device and the host ----
    /// One component over a tile-local box (may include halo positions).
    struct Region {
        int comp = 0;
        Box box;
    };
    static std::int64_t regionCells(const std::vector<Region>& rs);
    /// Copy the regions of `s` to `host` (each region x-fastest, regions in order). On GPUs the regions
    /// are packed on the device into `stage` (at least regionCells elements) and copied back in one
    /// transfer; on CPU devices they are read directly.
    void download(FieldSet& s, const std::vector<Region>& rs, device::Buffer<T>& stage, std::vector<T>& host);
    /// The reverse: write `host` (laid out as download() writes it) into the regions of `s`.
    void upload(FieldSet& s, const std::vector<Region>& rs, device::Buffer<T>& stage,
                const std::vector<T>& host);
    /// A view of region r's values inside a downloaded block starting at `base`, indexed by the
    /// tile-local (i,j,k) of r.box.
    static View<T> regionView(T* base, const Box& box);

    /// CPML slabs of this tile (for the adjoint).
    struct Slab {
        tiling::PmlSlab slab;
        Box local;      ///< tile-local cells
        int profLo = 0; ///< tile-local coordinate of profile[0] along the axis
        std::array<device::Buffer<T>, 2> psiE, psiH;
        std::array<device::Buffer<T>, 3> profE, profH; ///< b, c, 1/kappa - 1
    };
    std::vector<std::unique_ptr<Slab>>& slabs() { return slabs_; }
    /// The tile's dispersive pole lists (empty without dispersive materials; for the adjoint).
    Dispersion<T>& dispersion() { return *disp_; }

    // ---- evolving state (TileState.hpp) ----
    /// The registry of this tile's evolving state: the six fields (with halos) and the CPML psi of
    /// every slab (role Dynamics), registered by the tile; then each detector's accumulators (role
    /// Record), registered by the detectors (DetectorSet) through the mutable overload, in that order.
    /// Gradient checkpoints iterate the Dynamics entries, restart files (Restart.hpp) all of them.
    /// These bytes, taken after finishPending() at the end of step n and written back into a freshly
    /// filled tile of the same plan, continue the run from step n bit for bit.
    const TileState& state() const { return state_; }
    TileState& state() { return state_; }
    /// One buffer of the tile's evolving state, as raw bytes in the device's memory.
    using StateBlock = StateEntry;
    /// Every registered entry, after waiting for the device (the bytes are read or written on the host).
    std::vector<StateBlock> stateBlocks();

private:
    struct TileInjection {
        const Injection* inj = nullptr;
        device::Buffer<std::int64_t> offset;
        device::Buffer<T> coef;
        std::vector<std::int64_t> hostOffsets; ///< kept until fill()
        std::vector<double> hostAmp;
        std::vector<Index3> hostCells;
    };

    /// Cb, Ca, Db of the cells of `g` (global cells inside box()) from the rasteriser, written through `hf`.
    void fillMaterials(const Box& g, device::HostFill& hf);
    /// Host threads of the fill: the device's on CPU devices, a share of the host's for a GPU tile.
    int fillThreads() const;
    /// fn(value&) for every cell of the regions, in download order (CPU devices).
    /// The regions `rs` of `s` as the device layer's field boxes.
    std::vector<device::FieldBox<T>> fieldBoxes(FieldSet& s, const std::vector<Region>& rs) const;
    /// Forward H (E) update of box b fused with the CPML corrections of its cells, row by row: per cell
    /// the plain update, then the x, y, z corrections, exactly as separate passes would, with the row
    /// still in cache.
    void updateHWithPml(const Box& b, const kernels::RowSink* sink = nullptr);
    void updateEWithPml(const Box& b, const kernels::RowSink* sink = nullptr);
    // ---- the fused H-then-E pass of CPU devices (TileWavefront.cpp) ----
    void setupWavefront();
    void stepFused(int n, comm::Communicator& comm, bool overlap, comm::Phase phase);

    std::shared_ptr<const Plan> plan_;
    int index_;
    device::Device& dev_;
    Box box_;
    ArrayShape shape_;
    int threads_ = 1;
    FieldSet fwd_;
    std::array<device::Buffer<T>, 3> cb_, ca_, db_;
    T dbScalar_ = 0;
    std::vector<std::unique_ptr<Slab>> slabs_;
    std::vector<std::unique_ptr<TileInjection>> injections_;
    std::unique_ptr<Dispersion<T>> disp_;
    Box coreH_, coreE_;
    std::vector<Box> restH_, restE_;
    TileState state_;
    bool wavefront_ = false;          ///< step() takes the fused pass (setupWavefront)
    int slabPlanes_ = 8;              ///< fewest planes per thread slab of the fused pass
    int blockRows_ = 0;               ///< rows per column block of the fused pass (0: whole planes)
    Box fusedE_;                      ///< E box of the fused pass: coreE_ inside coreH_
    std::vector<Box> restHE_;         ///< the rest of coreE_ (its cells on the high cut faces)
    RowInjections<T> hInj_;           ///< H injections by row of coreH_, for the fused pass
    std::vector<int> hInjIndex_;      ///< injections_[q] -> hInj_ index (-1: an E injection)
    device::FiniteCheck finiteCheck_; ///< the divergence guard (a device flag word on staged devices)
};

extern template class Tile<float>;
extern template class Tile<double>;

} // namespace yee::solver
