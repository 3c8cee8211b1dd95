#pragma once
/// \file TileGrid.hpp
/// The px x py x pz tile grid over the global cell grid: tile boxes, neighbours, PML slabs per tile.
#include <array>
#include <vector>

#include "yee/core/Box.hpp"

namespace yee::tiling {

/// Boundary condition of one axis as the tiling sees it.
enum class AxisBoundary { Pml, Periodic, Pec };

/// A global CPML slab: axis, side (0 = low, 1 = high), its global cell box.
struct PmlSlab {
    int axis = 0;
    int side = 0;
    int thickness = 0;
    Box box; ///< global cells
};

/// One tile: its global box and its neighbours (-1 = none) per axis and side.
struct TileInfo {
    int index = 0;
    std::array<int, 3> coord{0, 0, 0};
    Box box; ///< global cells owned
    std::array<std::array<int, 2>, 3> neighbor{{{-1, -1}, {-1, -1}, {-1, -1}}};
    std::vector<PmlSlab> pml; ///< global PML slabs intersected with this tile (box = intersection)
};

/// Split of a global grid into tiles. Tile index t = tx + px (ty + py tz).
class TileGrid {
public:
    /// Throws InputError (naming `run.tiles`) when the split is impossible: a non-positive count, more
    /// tiles than cells, or a tile thinner than `minCells` along an axis.
    TileGrid(std::array<int, 3> cells, std::array<int, 3> tiles, std::array<AxisBoundary, 3> bc,
             std::array<int, 3> pmlCells, int minCells = 2);

    int count() const { return tiles_[0] * tiles_[1] * tiles_[2]; }
    std::array<int, 3> tiles() const { return tiles_; }
    std::array<int, 3> cells() const { return cells_; }
    Box globalBox() const { return Box{{0, 0, 0}, cells_}; }
    const TileInfo& tile(int t) const { return info_[t]; }
    const std::vector<PmlSlab>& pmlSlabs() const { return slabs_; }
    /// Tile owning global cell p (p inside the grid).
    int owner(const Index3& p) const;

private:
    std::array<int, 3> cells_;
    std::array<int, 3> tiles_;
    std::array<std::vector<int>, 3> cuts_; ///< cut positions per axis, size tiles+1
    std::vector<TileInfo> info_;
    std::vector<PmlSlab> slabs_;
};

} // namespace yee::tiling
