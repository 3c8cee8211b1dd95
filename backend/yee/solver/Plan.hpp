#pragma once
/// \file Plan.hpp
/// The global, tile-independent plan of a run derived from a validated scene: grid geometry, time
/// step, tile grid, CPML grading, sources as lists of injections and detectors as global boxes.
/// Every tile reads the same plan and takes the part it owns, so results do not depend on the split.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "yee/core/Box.hpp"
#include "yee/scene/Scene.hpp"
#include "yee/solver/SourceTime.hpp"
#include "yee/tiling/TileGrid.hpp"

namespace yee::scene {
class Rasterizer;
}
namespace yee::modes {
class ModeCache;
}
namespace yee::comm {
class Communicator;
}

namespace yee::solver {

/// Field component ids: 0..2 = Ex, Ey, Ez; 3..5 = Hx, Hy, Hz.
const char* componentName(int comp);
int componentFromName(const std::string& n); ///< -1 if unknown

/// Grid geometry and Yee positions.
struct Geometry {
    std::array<int, 3> cells{0, 0, 0};
    std::array<double, 3> loUm{0, 0, 0};
    double cellUm = 0;
    /// Yee offset (0 or 0.5 cells) of component `comp` (0..5) along `axis`.
    static double offset(int comp, int axis) {
        if (comp < 3)
            return comp == axis ? 0.5 : 0.0;
        return (comp - 3) == axis ? 0.0 : 0.5;
    }
    /// Position in cells (from the domain's low corner) of a physical coordinate in um.
    double toCells(int axis, double um) const { return (um - loUm[axis]) / cellUm; }
    /// Nearest global index of component `comp` to coordinate `um` along `axis`, clamped to the grid.
    int nearest(int comp, int axis, double um) const;
    /// Physical coordinate (um) of component `comp` at index `idx` along `axis`.
    double position(int comp, int axis, int idx) const {
        return loUm[axis] + (idx + offset(comp, axis)) * cellUm;
    }
};

/// One injection list: field component `comp` (0..5) += coefficient(cell) * amp * g(t + shift).
/// The coefficient is Cb (E) or Db (H) of the cell; t is the time the half-step is centred on.
struct Injection {
    int source = 0;
    int comp = 0;
    double shift = 0; ///< normalised time shift of the profile
    std::vector<Index3> cells;
    std::vector<double> amp;
};

/// Detector in global cells, planned by its kind (detectors::planDetectors(), the layer above).
struct DetectorPlan {
    int index = 0;
    scene::DetectorType type = scene::DetectorType::Probe;
    std::string typeName; ///< the kind's scene type name ("flux"), its key in the detector registry
    std::string name;
    Box box; ///< global cells (for flux: one cell thick along normal)
    int normal = 0;
    int sign = 1;
    std::vector<int> comps; ///< components recorded (probe, phasor, snapshot)
    std::vector<double> wavelengths;
    std::vector<double> omegas; ///< normalised angular frequencies
    int every = 1;
    int down = 1;
    int samples = 0;            ///< number of time samples recorded over the run
    std::vector<Index3> points; ///< probe: one global cell per entry of comps
    /// Composite kinds: the detectors it is made of (flux_box: its six flux planes), planned by the kind.
    std::vector<DetectorPlan> parts;
};

/// CPML grading per axis (normalised).
struct PmlParams {
    int cells = 0;
    double sigmaMax = 0, kappaMax = 1, alphaMax = 0, order = 3;
};

/// Plan::smallTableLimit's default: kernels::kSmallTableMax (one-byte index, none on homogeneous tiles),
/// or 0 (the two-byte index everywhere) when YEE_SMALL_INDEX=0 is in the environment (A/B benchmarks:
/// `yee-bench --ab YEE_SMALL_INDEX`; the results are the same bits either way).
std::int64_t defaultSmallTableLimit();
/// Whether YEE_MATERIAL_INDEX=0 is in the environment: every plan then keeps per-cell coefficient arrays
/// (Plan::perCellCoefficients; A/B benchmarks of the material index, forward and value-and-grad; the
/// results are the same bits either way).
bool perCellCoefficientsForced();
/// Plan::perCellCacheBytes' default: half the last-level cache (sysconf, else the first CPU's sysfs
/// entry), or 0 (unknown, or YEE_CACHE_PER_CELL=0 in the environment: A/B benchmarks and the tests of
/// the index; the results are the same bits either way).
std::int64_t defaultPerCellCacheBytes();

struct Plan {
    scene::Scene scene;
    Geometry geom;
    double dt = 0;
    double dtFs = 0;
    int steps = 0;
    std::array<tiling::AxisBoundary, 3> bc{};
    std::array<PmlParams, 3> pml{};
    bool lossy = false;
    bool magnetic = false;
    std::vector<SourceTime> sourceTimes;
    std::vector<Injection> injections;
    std::vector<DetectorPlan> detectors;
    std::unique_ptr<tiling::TileGrid> tiles;
    std::shared_ptr<const scene::Rasterizer> raster;
    /// Waveguide modes solved for this prepared scene (mode sources, mode monitors), shared by its tiles.
    std::shared_ptr<modes::ModeCache> modeCache; ///< set by makePlan() (modes/ModeCache.hpp)
    /// Tiles keep per-cell coefficient arrays instead of a material index and tables (PlanOptions, or
    /// perCellCoefficientsForced()).
    bool perCellCoefficients = false;
    /// Most entries a tile's coefficient table per component may hold before the tile keeps per-cell
    /// arrays instead (kernels::kMaterialTableMax; tests lower it to reach the fallback on small grids).
    std::int64_t materialTableLimit = 65536;
    /// Most entries a tile's tables may hold for its material index to take one byte per cell, and
    /// whether a homogeneous tile may keep none (kernels::ByteCoef, CPU devices): 0 turns both off, at most
    /// kernels::kSmallTableMax. Default: defaultSmallTableLimit().
    std::int64_t smallTableLimit = defaultSmallTableLimit();
    /// Where the whole grid's fields and per-cell arrays would take at most this many bytes
    /// (perCellCacheResident), CPU tiles (not staged) keep per-cell arrays instead of a material index (a
    /// homogeneous tile keeps no index either way): the run is served from the cache, where the index
    /// saves no time and its runs and table loads cost some (the bend waveguide scene, 64 x 64 x 32
    /// cells: 721 Mcell/s with per-cell arrays, 508 with the index). The whole grid, not the tile: the
    /// emulated devices of one host share its cache, and every decomposition of a scene then stores its
    /// coefficients alike (the memory of N tiles stays that of one tile split N ways). 0 turns it off.
    /// Default: defaultPerCellCacheBytes().
    std::int64_t perCellCacheBytes = defaultPerCellCacheBytes();
};

/// Whether the plan's whole grid, fields and per-cell coefficient arrays of `realBytes`-byte reals, fits
/// Plan::perCellCacheBytes.
bool perCellCacheResident(const Plan& p, std::size_t realBytes);

/// What the plan needs besides the scene: typed values decided by the run layer.
struct PlanOptions {
    std::array<int, 3> tiles{1, 1, 1}; ///< tile grid px, py, pz
    int maxSteps = -1;                 ///< <0: the scene's duration; else at most this many steps
    /// Per-cell coefficient arrays on every tile (tests of the fallback); otherwise tiles take a material
    /// index and small tables where they fit (solver/Tile.hpp), in forward and gradient runs alike (the
    /// adjoint and the time reversal read the coefficients through the same accessors).
    bool perCellCoefficients = false;
    /// The mode cache to plan with (modes solved by an earlier plan of the same scene are reused; one of
    /// another scene is emptied first, ModeCache::bind()). Null: a new one.
    std::shared_ptr<modes::ModeCache> modeCache{};
    /// The job's communicator when the ranks of an MPI job plan the same scene: every mode solve is then
    /// made once, by the rank owning the port, and broadcast (solver/ModeShare.hpp). The resolver stays
    /// set on the cache: the caller clears it (ModeCache::setResolver({})) when planning ends, after
    /// detectors::planDetectors(), also when planning throws. Null, or one rank: each process solves.
    comm::Communicator* modeComm = nullptr;
};

/// Build the plan of a validated scene for a tile grid. Throws InputError naming the field before
/// anything is allocated. `detectors` is left empty: the detector kinds plan them
/// (detectors::planDetectors()).
std::shared_ptr<Plan> makePlan(const scene::Scene& s, const PlanOptions& o);

/// Give design region `d` of a prepared plan new latent values (voxel order of Design::latent) and
/// projection steepness `beta`, between runs, while no tile reads the plan: the plan's scene and its
/// rasteriser's density follow; tiles then take the new materials with Tile::refillDesigns(). Nothing
/// else of the plan changes. Throws InputError naming `designs[d].latent` (wrong size, a value outside
/// [0, 1] or not finite) or `designs[d].beta` (negative or not finite).
void setDesign(Plan& p, int d, std::vector<double> latent, double beta);

} // namespace yee::solver
