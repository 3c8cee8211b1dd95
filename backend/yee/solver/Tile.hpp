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
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "yee/comm/Communicator.hpp"
#include "yee/core/View.hpp"
#include "yee/device/Device.hpp"
#include "yee/device/FieldTransfer.hpp"
#include "yee/device/HostFill.hpp"
#include "yee/kernels/Coef.hpp"
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
    /// The update coefficients of the three components as the kernels read them, through one accessor
    /// kind C (kernels/Coef.hpp): Cb, and Ca when the scene is lossy, Db when it is magnetic.
    template <class C> struct Coefs { std::array<C, 3> cb, ca, db; };
    /// True when the tile stores one material index per cell (indexBytes(): 1 or 2 bytes) selecting an
    /// entry of small tables of (Cb, Ca, Db) of the three components: the tables hold the values per-cell
    /// arrays would (the cells' coefficients deduplicated by bit pattern; every cell of a design region
    /// has an entry of its own, rewritten by refillDesigns()). A homogeneous tile (no design cells, one
    /// coefficient set but on the low PEC walls) on a CPU device keeps no index at all (indexBytes() 0):
    /// the entry is the cell's wall pattern (kernels::ByteCoef). False when the tile keeps per-cell arrays
    /// instead: the distinct coefficient sets and design cells overflow the index (Plan::materialTableLimit),
    /// the scene has dispersive materials (the pole kernels and their transposes read Cb per cell), the
    /// plan asks for them (Plan::perCellCoefficients), or the tile is a CPU one (not staged, not
    /// homogeneous) of a grid whose fields and per-cell arrays fit Plan::perCellCacheBytes (served from the
    /// cache; solver::perCellCacheResident).
    /// Gradient runs take the index too: the adjoint and the time reversal read the coefficients through the
    /// same accessors (kernels/Adjoint.hpp). Decided at construction from the exact count of distinct
    /// coefficient sets, made without rasterising the cells no object surface cuts
    /// (scene::Rasterizer::uniformRuns()), so a dry run (the memory estimate) counts what a run allocates,
    /// cheaply. Either way the ledger category is `materials`.
    bool indexed() const { return indexed_; }
    /// Bytes per cell of the material index: 1 where the table has at most Plan::smallTableLimit entries
    /// and the device is a CPU one (GPU kernels read 2-byte indices only), else 2; 0 on homogeneous tiles
    /// (CPU devices) and when not indexed(). The index covers the interior cells only.
    int indexBytes() const { return !indexed_ || wall_ ? 0 : small_ ? 1 : 2; }
    /// Entries of the tables (each component's Cb, Ca, Db table has as many; 0 when not indexed()).
    std::int64_t tableEntries() const { return indexed_ ? tabCb_[0].size() : 0; }
    /// Calls f(const Coefs<C>&) with this tile's coefficients, C = kernels::TableCoef<T> on indexed()
    /// tiles with a 2-byte index, kernels::ByteCoef<T> on those with a 1-byte index and on homogeneous
    /// ones, View<const T> (the per-cell arrays) otherwise; returns what f returns.
    template <class F> decltype(auto) withCoefs(F&& f) const {
        if (indexed_ && (small_ || wall_)) { // CPU devices only (planMaterials())
            Coefs<kernels::ByteCoef<T>> k;
            static const kernels::SmallMaterialIndex none = 0; // a homogeneous tile's "index"
            const kernels::SmallMaterialIndex* ix = wall_ ? &none : idx8_.data();
            const std::int64_t mask = wall_ ? 0 : -1;
            const auto at = [&](const device::Buffer<T>& tab) {
                return kernels::ByteCoef<T>{ix,         tab.data(), idxSy_,     idxSz_,     mask,
                                            wallAt_[0], wallAt_[1], wallAt_[2], rowEntry(), box_.extent(1)};
            };
            for (std::size_t c = 0; c < 3; ++c) {
                k.cb[c] = at(tabCb_[c]);
                k.ca[c] = at(tabCa_[c]);
                k.db[c] = at(tabDb_[c]);
            }
            return f(k);
        }
        if (indexed_) {
            Coefs<kernels::TableCoef<T>> k;
            for (std::size_t c = 0; c < 3; ++c) {
                k.cb[c] = {idx_.data(), tabCb_[c].data(), idxSy_, idxSz_, rowEntry(), box_.extent(1)};
                k.ca[c] = {idx_.data(), tabCa_[c].data(), idxSy_, idxSz_, rowEntry(), box_.extent(1)};
                k.db[c] = {idx_.data(), tabDb_[c].data(), idxSy_, idxSz_, rowEntry(), box_.extent(1)};
            }
            return f(k);
        }
        Coefs<View<const T>> k;
        for (int c = 0; c < 3; ++c) {
            k.cb[std::size_t(c)] = cb(c);
            k.ca[std::size_t(c)] = ca(c);
            k.db[std::size_t(c)] = db(c);
        }
        return f(k);
    }
    /// True when the per-cell arrays cb(), ca(), db() exist (not indexed(), or after
    /// requirePerCellCoefficients()).
    bool perCell() const { return cb_[0].allocated(); }
    /// Allocate the per-cell arrays on an indexed() tile (for readers that need them) and, when the tile
    /// is filled, fill them with the same values; a no-op when they exist. Throws what allocation throws.
    void requirePerCellCoefficients();
    /// Per-cell Cb (c = 0..2) and, when the scene is lossy, Ca; Db when magnetic (else the scalar).
    /// Valid when perCell().
    View<T> cb(int c) const { return View<T>(cb_[c].data(), shape_); }
    View<T> ca(int c) const { return View<T>(ca_[c].data(), shape_); }
    View<T> db(int c) const { return View<T>(db_[c].data(), shape_); }
    T dbScalar() const { return dbScalar_; }
    /// The coefficient of component comp (0..2: Cb, 3..5: Db, or the scalar when not magnetic) at
    /// element `offset` of the halo-padded arrays, read from the device (waits for it). After fill().
    T coefficient(int comp, std::int64_t offset) const;
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
    /// The injections of one field group (0 = E, 1 = H) as a table by row of `fused` (tile-local) for a
    /// fused pass (RowInjections.hpp); index[q]: injection q's entry in the table, -1 for the other group.
    /// The table points into this tile's buffers.
    void rowInjections(int fieldGroup, const Box& fused, RowInjections<T>& table, std::vector<int>& index);
    /// The table's amplitudes for inject(fieldGroup, t, sign): the same value per injection.
    void setRowAmplitudes(double t, double sign, RowInjections<T>& table,
                          const std::vector<int>& index) const;
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
    /// The cost of one step's updates on each plane k of `b` (b.extent(2) entries, tile-local box): its
    /// cells plus the cells of every CPML slab there (a slab cell's update costs about a plain cell's), for
    /// the fused passes' thread slabs (kernels::wavefrontCostBounds).
    std::vector<std::int64_t> planeCosts(const Box& b) const;
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

    /// The coefficients of one location, as the update reads them (Ca is 0 when the scene is not lossy,
    /// Db 0 when it is not magnetic).
    struct CoefTuple {
        T cb = 0, ca = 0, db = 0;
    };
    /// The coefficients of the three components of one cell: what one table entry holds.
    using CellTuple = std::array<CoefTuple, 3>;
    /// The table's lookup: bit pattern of a CellTuple -> its index.
    using TupleKey = std::array<std::uint64_t, 9>;
    struct TupleHash {
        std::size_t operator()(const TupleKey& k) const;
    };
    static TupleKey keyOf(const CellTuple& t);
    /// Coefficients of component c at global cells gi0 <= i < gi1 of row (gj, gk) into out[i - gi0][c].
    void coefRow(int c, int gj, int gk, int gi0, int gi1, CellTuple* out) const;
    /// Coefficients of the three components at global cells gi0 <= i < gi1 of row (gj, gk) into
    /// out[i - gi0]: the values coefRow() gives, rasterising only the cells surfaces cut (and designs') and
    /// two cells of each uniform run (scene::Rasterizer::uniformRuns(); the first may be on the PEC wall).
    /// Returns the row's uniform runs (valid until the thread's next call): cells a + 2 <= i < b of a run
    /// [a, b) repeat cell a + 1.
    const std::vector<std::pair<int, int>>& tupleRow(int gj, int gk, int gi0, int gi1, CellTuple* out) const;
    /// First design region holding global cell g, or -1.
    int designOf(const Index3& g) const;
    /// Wall pattern of global cell g (bit a: on the low PEC wall of axis a), the entry of a homogeneous
    /// tile's tables.
    int wallPattern(const Index3& g) const;
    /// Element of the index array of tile-local interior cell (i, j, k).
    std::int64_t indexAt(int i, int j, int k) const { return i + j * idxSy_ + k * idxSz_; }
    /// Table slot of design cell g of design d (the entries after the deduplicated ones).
    std::int64_t designSlot(int d, const Index3& g) const;
    /// Decide indexed() from the rasterised coefficients and build the host tables (constructor).
    void planMaterials();
    /// What fillMaterials writes.
    enum FillWhat : unsigned { kPerCell = 1, kIndex = 2, kDesignTable = 4 };
    /// Cb, Ca, Db of the cells of `g` (global cells inside box()) from the rasteriser, written through
    /// `hf`: the per-cell arrays (where they exist), the material index, the design cells' table entries.
    void fillMaterials(const Box& g, device::HostFill& hf, unsigned what);
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
    std::array<device::Buffer<T>, 3> cb_, ca_, db_; ///< per-cell arrays (perCell())
    T dbScalar_ = 0;
    bool indexed_ = false, small_ = false, wall_ = false, filled_ = false;
    device::Buffer<kernels::MaterialIndex> idx_;       ///< indexed(), 2 bytes: one per interior cell
    device::Buffer<kernels::SmallMaterialIndex> idx8_; ///< indexed(), 1 byte: one per interior cell
    /// indexed() with an index, CPU devices: per interior row (j + k ny) the one entry of its cells i >= 1,
    /// or -1 (fill(), kernels::TableCoef::rowEntry).
    device::Buffer<std::int32_t> rowEntry_;
    const std::int32_t* rowEntry() const { return rowEntry_.allocated() ? rowEntry_.data() : nullptr; }
    std::int64_t idxSy_ = 0, idxSz_ = 0; ///< the index's strides (x fastest, no halo)
    /// Homogeneous tiles: tile-local index of the low PEC wall per axis, or kernels::kNoWall.
    std::array<int, 3> wallAt_{kernels::kNoWall, kernels::kNoWall, kernels::kNoWall};
    std::array<device::Buffer<T>, 3> tabCb_, tabCa_, tabDb_; ///< indexed(): per component
    std::vector<CellTuple> table_;                           ///< the deduplicated entries (host)
    std::unordered_map<TupleKey, kernels::MaterialIndex, TupleHash> lookup_;
    std::vector<std::int64_t> designStart_; ///< per design: its first slot after the deduplicated entries
    std::vector<Box> designBox_;            ///< per design: its cells on this tile (global)
    std::vector<std::unique_ptr<Slab>> slabs_;
    std::vector<std::unique_ptr<TileInjection>> injections_;
    std::unique_ptr<Dispersion<T>> disp_;
    Box coreH_, coreE_;
    std::vector<Box> restH_, restE_;
    TileState state_;
    bool wavefront_ = false;              ///< step() takes the fused pass (setupWavefront)
    int slabPlanes_ = 8;                  ///< fewest planes per thread slab of the fused pass
    int blockRows_ = 0;                   ///< rows per column block of the fused pass (0: whole planes)
    Box fusedE_;                          ///< E box of the fused pass: coreE_ inside coreH_
    std::vector<std::int64_t> planeCost_; ///< planeCosts(coreH_)
    std::vector<Box> restHE_;             ///< the rest of coreE_ (its cells on the high cut faces)
    RowInjections<T> hInj_;               ///< H injections by row of coreH_, for the fused pass
    std::vector<int> hInjIndex_;          ///< injections_[q] -> hInj_ index (-1: an E injection)
    device::FiniteCheck finiteCheck_;     ///< the divergence guard (a device flag word on staged devices)
};

extern template class Tile<float>;
extern template class Tile<double>;

} // namespace yee::solver
