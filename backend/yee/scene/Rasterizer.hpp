#pragma once
/// \file Rasterizer.hpp
/// Materials at Yee component locations, with subpixel averaging at interfaces.
///
/// Geometry: the domain spans [center - size/2, center + size/2] um; global cell (i, j, k) spans
/// [lo + i dx, lo + (i+1) dx] per axis. Component locations in cells from the domain's low corner:
/// Ex (i+.5, j, k), Ey (i, j+.5, k), Ez (i, j, k+.5); Hx (i, j+.5, k+.5), Hy (i+.5, j, k+.5),
/// Hz (i+.5, j+.5, k). Indices outside [0, n) (halo cells) are evaluated like any other.
///
/// Averaging: over the cell-sized cube centred on the location. A cube inside one object (later
/// objects override earlier ones) or in the background takes that material unchanged. A cube cut
/// by object surfaces gets volume fractions f_m and the anisotropic (Kottke) effective value for
/// component c. Fractions are exact where only boxes (up to three) or a single polygon prism cut
/// the cube; a single cylinder uses 16x16 samples across and the exact axial overlap; anything else
/// (spheres, several cut non-box objects) 6x6x6 supersampling:
///   1 / eps_c = n_c^2 <1/eps> + (1 - n_c^2) / <eps>,
/// with n the interface normal (first moment of eps over the cube, or the surface normal of the
/// topmost cut object where that moment vanishes). mu is averaged the same way with its own
/// moment; sigma arithmetically. Periodic boundaries do not wrap geometry (validateScene() refuses
/// objects that would need periodic images).
///
/// Design regions: a location whose cell index (i, j, k) lies in Scene::designCells(d) takes
/// eps = eps_min + rho (eps_max - eps_min) from the density of the voxel holding that cell, and
/// mu, sigma of the region's materials (equal by validation); no averaging inside designs and
/// designs do not take part in the averaging of locations outside them.
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "yee/core/Box.hpp"
#include "yee/scene/DesignMap.hpp"
#include "yee/scene/Scene.hpp"

namespace yee::scene {

/// Material seen by one field component at one location.
struct CellMaterial {
    double eps = 1;   ///< relative permittivity (effective, for this component)
    double mu = 1;    ///< relative permeability (effective, for this component)
    double sigma = 0; ///< electric conductivity, S/m
};

/// Design voxel holding a location.
struct DesignHit {
    int region = -1;         ///< design index, -1 if none
    std::int64_t voxel = -1; ///< voxel index inside the region (x fastest), -1 if none
};

/// Evaluates materials on the Yee grid of a validated scene. All const members are thread-safe.
class Rasterizer {
public:
    /// Prepare geometry of `s` (validated; throws InputError for unknown materials). Design densities
    /// are computed through DesignMap from s.designs[d].latent (empty latent = 0.5 everywhere).
    explicit Rasterizer(const Scene& s);

    /// Material of E component c (0, 1, 2) at global cell (i, j, k).
    CellMaterial atE(int c, int i, int j, int k) const { return at(0, c, i, j, k); }
    /// Material of H component c (0, 1, 2) at global cell (i, j, k).
    CellMaterial atH(int c, int i, int j, int k) const { return at(1, c, i, j, k); }
    /// Material of component c of E (field = 0) or H (field = 1) at global cell (i, j, k).
    CellMaterial at(int field, int c, int i, int j, int k) const;

    /// Materials of cells i0 <= i < i1 of row (j, k) into out[0 .. i1 - i0). Cheaper per cell than at().
    void fillRow(int field, int c, int j, int k, int i0, int i1, CellMaterial* out) const;

    /// Runs of cells of row (j, k), i0 <= i < i1, along which fillRow() gives every one of the six
    /// component locations (E and H, field 0 and 1) one value, bit for bit: no object surface cuts the
    /// cubes of the run's locations and no design region holds its cells, so each location takes the
    /// unaveraged material of the topmost object containing its cube (or the background) all along the
    /// run. Written into `runs` as half-open [first, second), increasing, disjoint; cells outside every
    /// run (cut cubes, design cells, cells next to where an object's cover of the cubes changes) are
    /// left to per-cell evaluation. Costs O(objects reaching the row) plus the run count, not O(cells):
    /// what lets a caller deduplicate the coefficients of a tile without rasterising every cell.
    void uniformRuns(int j, int k, int i0, int i1, std::vector<std::pair<int, int>>& runs) const;

    /// Call fn(i, j, k, const CellMaterial&) for every cell of `box` (global, half-open) of component
    /// c of E (field = 0) or H (field = 1), x fastest. Thread-safe: callers may split the box over k.
    template <class Fn> void forEach(int field, int c, const Box& box, Fn&& fn) const {
        if (box.empty())
            return;
        std::vector<CellMaterial> row(std::size_t(box.extent(0)));
        for (int k = box.lo[2]; k < box.hi[2]; ++k)
            for (int j = box.lo[1]; j < box.hi[1]; ++j) {
                fillRow(field, c, j, k, box.lo[0], box.hi[0], row.data());
                for (int i = box.lo[0]; i < box.hi[0]; ++i)
                    fn(i, j, k, row[std::size_t(i - box.lo[0])]);
            }
    }

    /// Design region and voxel of the locations of cell (i, j, k) (the same for all components).
    DesignHit designAt(int i, int j, int k) const;
    /// Number of design regions.
    int designCount() const { return int(designs_.size()); }
    /// Cells of design d (global, half-open).
    const Box& designBox(int d) const { return designs_[std::size_t(d)].box; }
    /// The parameter chain of design d.
    const DesignMap& designMap(int d) const { return designs_[std::size_t(d)].map; }
    /// Current density rho of design d per voxel (x fastest).
    const std::vector<double>& density(int d) const { return designs_[std::size_t(d)].rho; }
    /// Replace the density of design d (values in [0, 1], size = designMap(d).size()), e.g. after an
    /// optimiser step; geometry outside designs is unaffected. Not thread-safe against readers.
    /// Throws std::invalid_argument on a size mismatch.
    void setDensity(int d, std::vector<double> rho);
    /// Rebuild design d's parameter chain and density from `s.designs[d]` (latent, filter, beta, eta;
    /// same voxels and box as when prepared), e.g. after an optimiser step or a beta increase. Not
    /// thread-safe against readers. Throws std::invalid_argument when the voxel count changed.
    void setDesign(int d, const Scene& s);

    /// Volume fractions of the cell-sized cube centred at `centreCells` (cells from the domain's low
    /// corner) per material index of the scene; the last entry (index materials.size()) is vacuum,
    /// used when the background is empty. Designs are ignored. Sums to 1.
    std::vector<double> volumeFractions(const Vec3& centreCells) const;

    /// Offset of component c of E (field = 0) or H (field = 1) from the cell corner, in cells.
    static Vec3 yeeOffset(int field, int c);

private:
    struct Geo {
        Shape shape = Shape::Box;
        int mat = 0;
        double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}; ///< bounding box (cells)
        double c[3] = {0, 0, 0};                     ///< centre (cells)
        double r2 = 0;                               ///< squared radius (cells^2)
        int axis = 2, u = 0, v = 1;                  ///< extrusion axis and in-plane axes
        std::vector<double> pu, pv;                  ///< polygon vertices (cells)
    };
    struct DesignRegion {
        Box box;
        std::array<int, 3> voxelCells{1, 1, 1};
        std::array<int, 3> voxels{1, 1, 1};
        DesignMap map;
        std::vector<double> rho;
        double mu = 1, sigma = 0;
    };
    enum class Cover { Outside, Inside, Partial };

    std::vector<CellMaterial> mats_; ///< scene materials, then vacuum
    int background_ = 0;
    std::vector<Geo> geo_;
    std::vector<DesignRegion> designs_;

    Cover classify(const Geo& g, const double lo[3], const double hi[3]) const;
    /// True when the cube of location p (cells) is cut by no object among `cand` (bottom to top): what
    /// evaluate() then returns is the unaveraged material of the topmost object holding the cube.
    bool uncut(const double p[3], const int* cand, int ncand) const;
    /// Cube-centre x coordinates (cells) around which object g's cover of the cubes of a location in
    /// row (py, pz) may change: mark(a, b) for each such point (a = b) or interval [a, b].
    template <class Mark> void coverBreaks(const Geo& g, double py, double pz, Mark&& mark) const;
    /// Material of the location p (cells) given the candidate objects (indices, bottom to top) whose
    /// bounding boxes may touch its cube.
    CellMaterial evaluate(int c, const double p[3], const int* cand, int ncand) const;
    /// Integrate over the cube at p: calls acc(material, weight, dx, dy, dz) per piece.
    template <class Acc>
    void integrate(const double p[3], const int* partial, int npartial, int base, Acc&& acc) const;
    Vec3 surfaceNormal(const Geo& g, const double p[3]) const;
    CellMaterial designMaterial(const DesignHit& h) const;
};

} // namespace yee::scene
