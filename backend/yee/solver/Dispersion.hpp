#pragma once
/// \file Dispersion.hpp
/// The dispersive poles of one tile (kernels/Dispersion.hpp gives the update and its derivation):
/// one pole list per (dispersive material, E component) holding the owned cells where that material
/// is present, each with its volume weight, its E^n scratch and the state of every pole of the
/// material. A tile without dispersive cells holds nothing (every list empty, zero bytes in the
/// ledger's "dispersive" category); a scene without dispersive materials has no lists at all.
///
/// Subpixel averaging at interfaces: eps_inf takes part in the rasteriser's anisotropic (Kottke)
/// average like any eps; each dispersive material's poles act at a location with weight w = the
/// volume fraction of that material in the location's averaging cube (the arithmetic average that
/// sigma gets), so a cell half filled with gold carries half of gold's pole currents on top of the
/// averaged eps_inf. Design regions hold no poles (their materials are non-dispersive by validation).
///
/// State: each list's pole variables are registered in the tile's TileState (role Dynamics, names
/// "disp.<material>.<component>", registered even when empty so names do not depend on the tile) and
/// so travel with gradient checkpoints and restart files; the E^n scratch is not state.
///
/// CPU devices fold the forward update into the E sweep (folded(): kernels::poleFoldRow, row by row,
/// E^n on the stack, no scratch buffer) when no E location is in two lists. The few listed locations
/// that an E injection (source, TF/SF correction) writes between the E update and the pole currents
/// are left out of the fold (each list's `skip` entries) and keep the separate passes, in beforeE()
/// and afterE(), for the same bits. A folded list whose run table (kernels::poleRunTable, 32 bytes
/// per run of consecutive cells of one weight) is smaller than the E^n scratch it would need holds one
/// (`runs`, category Dispersive, so the ledger and the estimate count it): the fold then reads a few
/// words per row instead of an offset and a weight per cell. Otherwise, and on staged devices,
/// beforeE() and afterE() run the passes for every entry.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "yee/core/View.hpp"
#include "yee/device/Device.hpp"
#include "yee/device/HostFill.hpp"
#include "yee/kernels/Dispersion.hpp"
#include "yee/solver/Plan.hpp"
#include "yee/solver/TileState.hpp"

namespace yee::solver {

template <class T> class Dispersion {
public:
    /// One pole list (see the file comment). Buffers are in category Dispersive.
    struct List {
        int material = 0;                    ///< scene material index
        int comp = 0;                        ///< E component 0..2
        kernels::PoleCoefs<T> coef;          ///< the material's poles (normalised units)
        int stateSlots = 0;                  ///< state variables per cell
        std::int64_t count = 0;              ///< cells in the list
        device::Buffer<std::int64_t> offset; ///< index into the halo-padded field arrays
        device::Buffer<T> weight, state;
        device::Buffer<T> scratch;             ///< E^n for the passes; empty when folded()
        device::Buffer<std::int64_t> skip;     ///< folded(): the entries left to the passes (increasing)
        device::Buffer<T> skipSave;            ///< folded(): E^n of the skip entries
        device::Buffer<std::int64_t> runs;     ///< folded(): the run table (kernels::poleRunTable)
        std::vector<std::int64_t> hostSkip;    ///< kept until fill()
        std::vector<std::int64_t> hostRuns;    ///< kept until fill()
        std::vector<std::int64_t> hostOffsets; ///< kept until fill()
        std::vector<double> hostWeights;
        std::vector<Index3> hostCells; ///< global cells, kept until fill()
    };

    /// Find the dispersive cells of the tile `box` (global cells; fields shaped `shape`) and allocate
    /// their lists on `dev` (dry-run aware); register the pole state in `state`.
    Dispersion(const Plan& plan, const Box& box, const ArrayShape& shape, device::Device& dev,
               TileState& state);

    /// True when the scene has no dispersive material (no lists).
    bool none() const { return lists_.empty(); }
    /// Cells with poles on this tile, summed over the lists.
    std::int64_t cells() const;
    /// Write the lists' offsets and weights, and fold each cell's d w into its Ca and Cb (the
    /// implicit part of the pole currents, as a conductivity). `cb`, `ca` are the tile's coefficient
    /// arrays as Tile::fill() has just written them on the host through `hf` (device/HostFill.hpp), which
    /// these writes go through too.
    void fill(device::HostFill& hf, std::array<device::Buffer<T>, 3>& cb,
              std::array<device::Buffer<T>, 3>& ca);
    /// True when the forward update runs inside the E sweep (foldLists(), see the file comment);
    /// beforeE() and afterE() then update only the entries the fold leaves out.
    bool folded() const { return fold_; }
    /// True when Ca differs from 1 only at listed cells (no material has a conductivity): an E sweep
    /// may then take the Ca-free update wherever a chunk holds no listed cell, for the same bits.
    bool caOnlyAtPoles() const { return caOnlyAtPoles_; }
    /// The non-empty lists as kernels::poleFoldRow takes them; `e`, `cb` the E and Cb arrays (buffer
    /// starts).
    std::vector<kernels::PoleFoldList<T>> foldLists(const std::array<T*, 3>& e,
                                                    const std::array<const T*, 3>& cb) const;
    /// The normalised time step the poles advance by.
    T dt() const { return T(plan_.dt); }
    /// Before the E update: keep E^n of every listed cell the passes update (all of them, or the skip
    /// entries when folded()). `e` are the three E arrays (buffer starts).
    void beforeE(const std::array<T*, 3>& e, int threads);
    /// After the E update and the E sources: the explicit pole currents, then the pole state to n + 1,
    /// of every listed cell the passes update.
    void afterE(const std::array<T*, 3>& e, const std::array<const T*, 3>& cb, int threads);

    std::vector<List>& lists() { return lists_; }

private:
    const Plan& plan_;
    device::Device& dev_;
    Box box_;
    ArrayShape shape_;
    std::vector<List> lists_;
    bool fused_ = false;        ///< no E location in two lists: currents and advance in one pass
    bool fold_ = false;         ///< folded()
    bool caOnlyAtPoles_ = true; ///< caOnlyAtPoles()
};

extern template class Dispersion<float>;
extern template class Dispersion<double>;

} // namespace yee::solver
