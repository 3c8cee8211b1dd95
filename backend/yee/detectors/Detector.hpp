#pragma once
/// \file Detector.hpp
/// The one interface of a detector kind. A kind (flux, energy, phasor, probe, snapshot, flux_box) is a
/// stateless Kind registered by its scene type name (Registry.hpp); it plans the detector in global cells,
/// makes the detector's part on each tile (a TilePart: what the tile owns, its accumulators in the tile's
/// memory ledger and state registry, what it records each step), assembles the parts gathered on rank 0
/// into a result, and — for kinds usable in an objective — evaluates a term and makes the term's
/// adjoint (the field locations it reads and its adjoint source dJ/dfield at each reverse step).
///
/// Nothing outside the kind's own file knows what a kind records: the tile loop (DetectorSet.hpp), the
/// result assembly and the gradient driver only call this interface.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "yee/core/Bytes.hpp"
#include "yee/core/ExactSum.hpp"
#include "yee/scene/DetectorKinds.hpp"
#include "yee/scene/Scene.hpp"
#include "yee/solver/Plan.hpp"
#include "yee/solver/Result.hpp"
#include "yee/solver/Tile.hpp"
#include "yee/solver/TileState.hpp"

namespace yee::detectors {

using solver::DetectorPlan;

/// Words of one exact sum in the output all-reduce: ExactSum's digits and a non-finite flag.
inline constexpr int kSumWords = ExactSum::kWords + 1;

/// A tile-local field location: component 0..5 and element offset into the halo-padded array
/// (ArrayShape::offset of the tile-local cell).
struct FieldPoint {
    int comp = 0;
    std::int64_t off = 0;
};

/// How a detector part reads the fields while recording: directly on CPU devices, through one download
/// of just the regions it names on staged (GPU) devices, into a staging buffer shared by all detectors of
/// the tile (sized by DetectorSet from every part's stageCells()).
template <class T> class FieldAccess {
public:
    using Region = typename solver::Tile<T>::Region;
    /// Reads the fields of `tile`; `stageCells` is the largest download any part makes (0 on CPU paths).
    FieldAccess(solver::Tile<T>& tile, std::int64_t stageCells);
    /// Views of the six components such that the cells of `regions` (tile-local) can be read.
    void views(const std::vector<Region>& regions, View<T>* F);
    /// The tile being read.
    solver::Tile<T>& tile() { return tile_; }

private:
    solver::Tile<T>& tile_;
    device::Buffer<T> stage_; ///< staged devices: packed regions on their way to the host
    std::vector<T> host_;     ///< their host copy
};

/// The host copy of a detector buffer (an explicit copy from device memory; waits for the device's work).
template <class U> std::vector<U> toHost(device::Device& dev, const device::Buffer<U>& b) {
    std::vector<U> out(std::size_t(b.size()));
    if (b.allocated() && b.data())
        dev.copy(out.data(), b.data(), b.bytes());
    return out;
}

/// The DFT weights dt exp(i omega t) of one step at the E times ((n+1) dt) and H times ((n+1/2) dt), as
/// the accumulation kernels (kernels/Accumulate.hpp) read them: [lambda][re, im], E then H. Computed on
/// the host (the same values on every device); on GPUs copied to a small device buffer each step, ordered
/// on the stream before the kernels that read them.
class StepWeights {
public:
    /// For `omegas` (normalised) on `dev` (a device buffer only on GPUs, ledger category Staging).
    StepWeights(device::Device& dev, const std::vector<double>& omegas);
    /// The weights of step n (time step dt): E weights at the returned pointer, H weights 2 nl further,
    /// addressable by kernels on the device.
    const double* at(int n, double dt);

private:
    device::Device& dev_;
    const std::vector<double>& omegas_;
    std::vector<double> host_;
    device::Buffer<double> dev_buf_;
};

/// Where a term's adjoint sources go during one reverse step (filled by the gradient driver). Index j is
/// the term's own source number (the position in TermAdjoint::sources()).
template <class T> struct AdjointSink {
    T* value = nullptr;           ///< adjoint field value at each source location (P or Q)
    const double* coef = nullptr; ///< Cb (E locations) or Db (H locations) at each location
    double* carry = nullptr;      ///< dJ/dE carried to the next (earlier) reverse step, per location
    const int* index = nullptr;   ///< term source j -> location
    /// P += Cb dJ/dE at the term's E source j.
    void addE(int j, double dj) const {
        const int q = index[j];
        value[q] += T(coef[q] * dj);
    }
    /// Q -= Db dJ/dH at the term's H source j.
    void addH(int j, double dj) const {
        const int q = index[j];
        value[q] -= T(coef[q] * dj);
    }
    /// dJ/dE^n found at reverse step n: added (as addE) at the start of reverse step n-1, where E^n is the
    /// field after the step, before any term's own sources.
    void carryE(int j, double dj) const { carry[index[j]] += dj; }
};

/// The adjoint of one objective term on one tile.
template <class T> class TermAdjoint {
public:
    virtual ~TermAdjoint() = default;
    /// Field locations the term reads at every reverse step (E^{n+1}, H^{n+1/2} after forward step n and
    /// E^n before it), in the order addSources() reads them. Every term of one detector that reads fields
    /// returns the same list, so the driver captures it once per detector. Empty: it reads none.
    virtual std::vector<FieldPoint> capture() const { return {}; }
    /// Where its adjoint sources go, once each (AdjointSink indices refer to this list).
    virtual std::vector<FieldPoint> sources() const = 0;
    /// Add dJ/dfield of forward step n: `after` and `before` point at this detector's first captured
    /// value after and before the step (null when capture() is empty).
    virtual void addSources(int n, const T* after, const T* before, const AdjointSink<T>& sink) const = 0;
};

/// One detector's part on one tile: what the tile owns of it and what it accumulates. Allocates through
/// the tile's device (so the memory ledger sees it) and nothing when the tile owns none of its cells.
template <class T> class TilePart {
public:
    using Region = typename solver::Tile<T>::Region;
    TilePart(const DetectorPlan& plan, solver::Tile<T>& tile) : plan_(plan), tile_(tile) {}
    virtual ~TilePart() = default;
    TilePart(const TilePart&) = delete;
    TilePart& operator=(const TilePart&) = delete;

    /// The detector's plan.
    const DetectorPlan& plan() const { return plan_; }
    /// The tile it lives on.
    solver::Tile<T>& tile() const { return tile_; }
    /// Cells of the largest field download record() or beforeStep() makes on staged devices.
    virtual std::int64_t stageCells() const { return 0; }
    /// Register the accumulators (role Record) as "detector.<name>.<buffer>" in `state`.
    virtual void registerState(solver::TileState& state) = 0;
    /// Before forward step n (fields E^n, H^{n-1/2}).
    virtual void beforeStep(int n, FieldAccess<T>& fields) {}
    /// After forward step n (fields E^{n+1}, H^{n+1/2}, halos valid).
    virtual void record(int n, FieldAccess<T>& fields) = 0;
    /// Append this tile's words of the output integer all-reduce (Kind::sumWords() of them; zeros from
    /// a host temporary when the tile owns nothing).
    virtual void sums(std::vector<std::int64_t>& out) const {}
    /// Append this tile's part of the output gather (read back by Kind::assemble()).
    virtual void write(ByteWriter& w) const = 0;
    /// The adjoint of `term` (on this detector) on this tile. The default refuses (InputError naming
    /// `field`).
    virtual std::unique_ptr<TermAdjoint<T>> adjoint(const scene::ObjectiveTerm& term,
                                                    const std::string& field) const;

protected:
    /// Tile-local cell of a global cell.
    Index3 local(const Index3& g) const {
        return {g[0] - tile_.box().lo[0], g[1] - tile_.box().lo[1], g[2] - tile_.box().lo[2]};
    }
    /// Field-array offset of global cell (i, j, k).
    std::int64_t offset(int i, int j, int k) const {
        return tile_.shape().offset(i - tile_.box().lo[0], j - tile_.box().lo[1], k - tile_.box().lo[2]);
    }
    /// A global box in tile-local coordinates.
    Box toLocal(const Box& g) const;

    const DetectorPlan& plan_;
    solver::Tile<T>& tile_;
};

/// Rank-0 inputs of one detector's assembly.
struct Gathered {
    const solver::Plan& plan;
    int done = 0;                             ///< steps taken
    const std::int64_t* sums = nullptr;       ///< the detector's all-reduced words (Kind::sumWords())
    std::vector<ByteReader*>& parts;          ///< every rank's blob, positioned at this detector's part
    std::vector<solver::Snapshot>& snapshots; ///< where snapshot kinds append their frames
};

/// One kind of detector (stateless; one instance per kind in the registry).
class Kind {
public:
    virtual ~Kind() = default;
    /// The scene type name ("flux"): the registry key and DetectorResult::type.
    virtual std::string type() const = 0;
    /// The scene id of this kind (by default the id registered under type()).
    virtual scene::DetectorType sceneType() const { return scene::detectorType(type()); }
    /// A plug-in kind's declaration for the scene schema: its keys, what it offers an objective and its
    /// rules across keys (scene/DetectorKinds.hpp). The registry hands it to scene::registerDetectorKind()
    /// before main() runs. The kinds built into the scene format (declared there) return nullopt.
    virtual std::optional<scene::DetectorKindSpec> declare() const { return std::nullopt; }
    /// The detector in global cells, from a validated scene detector (index `index` in the scene).
    virtual DetectorPlan plan(const scene::Detector& d, int index, const solver::Plan& p) const = 0;
    /// Its part on `tile` (dry-run aware: in a dry run nothing is taken, only counted).
    virtual std::unique_ptr<TilePart<float>> part(const DetectorPlan& dp,
                                                  solver::Tile<float>& tile) const = 0;
    virtual std::unique_ptr<TilePart<double>> part(const DetectorPlan& dp,
                                                   solver::Tile<double>& tile) const = 0;
    /// Words it contributes to the output integer all-reduce (the same on every tile).
    virtual std::int64_t sumWords(const DetectorPlan& dp) const { return 0; }
    /// Rank 0: read every rank's part from `g.parts` (in rank order) and fill `res` (arrays, attrs).
    virtual void assemble(const DetectorPlan& dp, Gathered& g, solver::DetectorResult& res) const = 0;
    /// The value of objective term `t` from the assembled result. The default refuses (InputError).
    virtual double objective(const DetectorPlan& dp, const scene::ObjectiveTerm& t,
                             const solver::DetectorResult& res, const solver::Plan& p) const;
    /// Refuse, with an InputError naming `field`, a term this kind cannot differentiate in plan `p`
    /// (`reversible`: gradient method "reversible"). The default refuses every term.
    virtual void checkGradient(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::Plan& p,
                               bool reversible, const std::string& field) const;
};

/// A Kind whose parts are the class template Part<T> (constructed from the plan and the tile).
template <template <class> class Part> class KindOf : public Kind {
public:
    std::unique_ptr<TilePart<float>> part(const DetectorPlan& dp, solver::Tile<float>& tile) const override {
        return std::make_unique<Part<float>>(dp, tile);
    }
    std::unique_ptr<TilePart<double>> part(const DetectorPlan& dp,
                                           solver::Tile<double>& tile) const override {
        return std::make_unique<Part<double>>(dp, tile);
    }
};

// ---- helpers shared by the kinds ----

/// The plan fields every kind shares: index, type, name, normal and sign, every, downsample,
/// wavelengths and their normalised omegas, components (as listed), samples, and the box of cells whose
/// centres lie in [center - size/2, center + size/2] (at least one cell per axis, clamped to the grid).
DetectorPlan commonPlan(const scene::Detector& d, int index, const solver::Plan& p);
/// Index of the wavelength of `wls` nearest to `wl` (0 when empty).
std::size_t nearestWavelength(const std::vector<double>& wls, double wl);
/// The time samples of a series: (s + 1) * every * dtFs for s < min(samples, done / every).
solver::NamedArray timeAxis(const DetectorPlan& dp, const solver::Plan& p, int done);
/// A series of exact sums (samples * kSumWords words) as doubles, NaN where non-finite, the first
/// min(samples, done / every) of them.
solver::NamedArray exactSeries(const DetectorPlan& dp, const std::int64_t* words, int done,
                               const std::string& name);
/// Write a normalised exact sum into kSumWords words.
void storeSum(ExactSum& acc, std::int64_t* out);
/// Gather per-cell records (`per` doubles a cell, in own-box order) from every rank's part into the
/// global order of `box`. Each part is an own box followed by an array of doubles.
std::vector<double> gatherCells(const Box& box, std::int64_t per, std::vector<ByteReader*>& parts);
/// The sum J of a time series as an objective: time_integral (sum * dt * every) or final (last value).
double seriesObjective(const solver::NamedArray& s, const scene::ObjectiveTerm& t, const DetectorPlan& dp,
                       const solver::Plan& p);
/// True when `inner` lies inside `outer`.
bool inside(const Box& inner, const Box& outer);

} // namespace yee::detectors
