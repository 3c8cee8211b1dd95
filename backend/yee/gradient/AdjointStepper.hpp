#pragma once
/// \file AdjointStepper.hpp
/// The exact discrete adjoint of one forward leapfrog step of a tile (kernels/Adjoint.hpp): the adjoint
/// field set (P = Cb Ebar at E locations, Q = -Db Hbar at H locations), the transposed Yee curls, the
/// transposed CPML corrections with their own auxiliary state, and the adjoint halo exchanges.
///
/// Communication class: every reverse step exchanges exactly two grouped halo messages (E-type, then
/// H-type), as the forward step does. A sweep that also brings the forward fields back (the reversible
/// strategy) sends their halos in the same two groups (merged), so it adds no collective.
#include <array>
#include <functional>
#include <vector>

#include "yee/comm/Communicator.hpp"
#include "yee/kernels/Wavefront.hpp"
#include "yee/solver/Tile.hpp"

namespace yee::gradient {

/// Rows of the forward fields that the adjoint step's fused pass runs with its own rows
/// (AdjointStepper::step): `h` after the Q update of each row (or group of rows), `e` after its P update,
/// each called for every row of the tile and restricting itself to its cells. The pass orders them as the
/// forward step's fused pass orders H and E (kernels/Wavefront.hpp), so `h` may read forward E of rows
/// (j, k), (j + 1, k), (j, k + 1) only and `e` forward H of rows (j, k), (j - 1, k), (j, k - 1) only, and
/// neither may touch the adjoint fields. An empty RowRef (fn null) runs nothing.
struct AdjointPassRows {
    kernels::RowRef h, e;
};

template <class T> class AdjointStepper {
public:
    /// Allocates the adjoint fields, their halo exchanges and the adjoint CPML state of every slab of
    /// `tile` (category Adjoint; dry-run aware). The tile must outlive the stepper.
    explicit AdjointStepper(solver::Tile<T>& tile);

    /// The adjoint field set (P in slots 0..2, Q in 3..5), halo-padded like the forward fields.
    typename solver::Tile<T>::FieldSet& fields() { return adj_; }
    /// Zero the adjoint fields (before the reverse sweep). The CPML adjoint state is zero from its
    /// allocation and is not reset: a stepper runs one reverse sweep.
    void zero();

    /// The transpose of forward step n, in the reverse order of the forward step:
    ///   sources()        adds dJ/dE^{n+1} into P and dJ/dH^{n+1/2} into Q; whatever reads the complete
    ///                    P of this step (the design gradient) runs here too,
    ///   the transposed pole update (dispersive cells: PoleAdvanceT, PoleCurrentT), E-type exchange,
    ///   CPML E transposes (they read P, write Q), Q -= Db curl P (the transpose of the E update's curl
    ///                    H); then P *= Ca when lossy, and the transposed E^n capture of the poles,
    ///                    PoleSaveET,
    ///   betweenHalves()  (if set: the reversible strategy reconstructs the forward H^{n-1/2} here),
    ///   H-type exchange,
    ///   CPML H transposes (they read Q, write P), then P += Cb curl Q (the transpose of the H update's
    ///                    curl E).
    /// CPU devices run each field's CPML transposes with the curl that follows them in one row sweep;
    /// every cell sees the same operations in the same order as in separate passes.
    /// With `withForward`, each exchange also carries the forward field set's halos of the same type (one
    /// merged group: the caller has made the forward E current before the call and the forward H current
    /// in betweenHalves()). Throws what the communicator throws.
    /// With `rows` (only where passTakesRows()), the step's fused pass runs them too, in place of
    /// betweenHalves, which must be empty: the reversible strategy's inverse H and E updates ride in the
    /// pass instead of two passes of their own.
    void step(comm::Communicator& comm, bool withForward, const std::function<void()>& sources,
              const std::function<void()>& betweenHalves, const AdjointPassRows* rows = nullptr);
    /// Whether step() takes forward rows into its pass: it runs the fused pass (fusable()) and neither the
    /// forward nor the adjoint H fields have a halo to exchange between the halves.
    bool passTakesRows() const;

private:
    /// CPML-E^T over every slab, then Q -= Db curl P (M: per-cell Db).
    template <bool M> void qAndUpdateH();
    /// CPML-H^T over every slab, then P += Cb curl Q.
    void pAndUpdateE();
    /// Both halves in one wavefront pass (CPU devices, fusable()): per row, CPML-E^T and Q -= Db curl P;
    /// then, rows behind, P *= Ca (lossy), CPML-H^T and P += Cb curl Q (kernels/Wavefront.hpp).
    template <bool M> void fusedSweep(const AdjointPassRows* rows);
    /// Whether this step may run fusedSweep(): a CPU device, no dispersive cells (the pole transposes
    /// sit between the halves), no Q halo to exchange between the halves, the switch on.
    bool fusable() const;
    /// Halo exchange of the E-type (field 0) or H-type (1) adjoint slots, with the forward's if merged.
    void exchange(comm::Communicator& comm, int field, bool merged);

    solver::Tile<T>& tile_;
    typename solver::Tile<T>::FieldSet adj_;
    comm::ExchangeGroup mergedE_, mergedH_; ///< forward + adjoint faces of one type, one group each
    /// Adjoint CPML state of one slab: the transposed psi recursions of both transposes, two slots each,
    /// in two buffers: a step reads buffer parity_ and writes the other (kernels::CpmlEAdjoint).
    struct SlabAdj {
        std::array<std::array<device::Buffer<T>, 2>, 2> psiE, psiH; ///< [buffer][slot]
    };
    std::vector<SlabAdj> slabAdj_;       ///< parallel to tile.slabs()
    int parity_ = 0;                     ///< the psibar buffer the next step reads
    bool wavefront_ = false;             ///< the fused pass allowed (solver::Wavefront, read at construction)
    int slabPlanes_ = 8, blockRows_ = 0; ///< its slab and column-block sizes
    std::vector<std::int64_t>
        planeCost_; ///< the tile's plane costs (Tile::planeCosts), which cut its thread slabs
    /// The psibar buffers of slab s's E (eField) or H transpose this step: read parity_, write the other.
    struct Psi {
        const T* in1;
        const T* in2;
        T* out1;
        T* out2;
    };
    Psi psiPair(std::size_t s, bool eField);
    /// Adjoint of one pole list (kernels/Dispersion.hpp): its state's and its E^n scratch's adjoints.
    struct PoleAdj {
        device::Buffer<T> state, scratch;
    };
    std::vector<PoleAdj> poleAdj_; ///< parallel to tile.dispersion().lists()
    /// Transposes of the pole currents and pole advance (after the step's adjoint sources).
    void polesAfterE();
    /// Transpose of the E^n capture (after P *= Ca).
    void polesBeforeE();
    /// Cb of E component c from the start of its buffer (the indexing of pole-list offsets).
    const T* cbData(int c) const;
};

extern template class AdjointStepper<float>;
extern template class AdjointStepper<double>;

} // namespace yee::gradient
