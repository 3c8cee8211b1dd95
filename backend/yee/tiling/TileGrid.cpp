#include "yee/tiling/TileGrid.hpp"

#include <algorithm>
#include <string>

#include "yee/core/Error.hpp"

namespace yee::tiling {

namespace {
const char* axisName(int a) {
    return a == 0 ? "x" : (a == 1 ? "y" : "z");
}
} // namespace

TileGrid::TileGrid(std::array<int, 3> cells, std::array<int, 3> tiles, std::array<AxisBoundary, 3> bc,
                   std::array<int, 3> pmlCells, int minCells)
    : cells_(cells), tiles_(tiles) {
    for (int a = 0; a < 3; ++a) {
        if (tiles[a] < 1)
            throw InputError(std::string("run.tiles[") + std::to_string(a) + "]: must be >= 1 (got " +
                             std::to_string(tiles[a]) + ")");
        if (tiles[a] > cells[a])
            throw InputError(std::string("run.tiles[") + std::to_string(a) +
                             "]: " + std::to_string(tiles[a]) + " tiles along " + axisName(a) +
                             " but the grid has only " + std::to_string(cells[a]) + " cells");
        // A grid too thin on its own is the domain's size, not the tiling: name what to change.
        if (cells[a] < minCells)
            throw InputError(std::string("domain.size_um[") + std::to_string(a) + "]: the grid has " +
                             std::to_string(cells[a]) + " cell" + (cells[a] == 1 ? "" : "s") + " along " +
                             axisName(a) + ", fewer than the stencil needs (" + std::to_string(minCells) +
                             "); make the domain at least " + std::to_string(minCells) + " cells wide there");
        if (cells[a] / tiles[a] < minCells)
            throw InputError(std::string("run.tiles[") + std::to_string(a) + "]: tiles along " + axisName(a) +
                             " would be " + std::to_string(cells[a] / tiles[a]) +
                             " cells thick, thinner than the stencil needs (" + std::to_string(minCells) +
                             ")");
        // Near-equal split; the remainder goes to the first tiles.
        int base = cells[a] / tiles[a], rem = cells[a] % tiles[a];
        cuts_[a].resize(tiles[a] + 1);
        cuts_[a][0] = 0;
        for (int t = 0; t < tiles[a]; ++t)
            cuts_[a][t + 1] = cuts_[a][t] + base + (t < rem ? 1 : 0);
    }
    for (int a = 0; a < 3; ++a) {
        if (bc[a] != AxisBoundary::Pml || pmlCells[a] <= 0)
            continue;
        for (int side = 0; side < 2; ++side) {
            PmlSlab s;
            s.axis = a;
            s.side = side;
            s.thickness = pmlCells[a];
            s.box = globalBox();
            if (side == 0)
                s.box.hi[a] = pmlCells[a];
            else
                s.box.lo[a] = cells[a] - pmlCells[a];
            slabs_.push_back(s);
        }
    }
    info_.resize(count());
    for (int tz = 0; tz < tiles[2]; ++tz)
        for (int ty = 0; ty < tiles[1]; ++ty)
            for (int tx = 0; tx < tiles[0]; ++tx) {
                std::array<int, 3> c{tx, ty, tz};
                int t = tx + tiles[0] * (ty + tiles[1] * tz);
                TileInfo& ti = info_[t];
                ti.index = t;
                ti.coord = c;
                for (int a = 0; a < 3; ++a) {
                    ti.box.lo[a] = cuts_[a][c[a]];
                    ti.box.hi[a] = cuts_[a][c[a] + 1];
                    for (int side = 0; side < 2; ++side) {
                        std::array<int, 3> n = c;
                        n[a] += side == 0 ? -1 : 1;
                        if (n[a] < 0 || n[a] >= tiles[a]) {
                            if (bc[a] != AxisBoundary::Periodic)
                                continue;
                            n[a] = (n[a] + tiles[a]) % tiles[a];
                        }
                        ti.neighbor[a][side] = n[0] + tiles[0] * (n[1] + tiles[1] * n[2]);
                    }
                }
                for (const PmlSlab& s : slabs_) {
                    Box b = s.box.intersect(ti.box);
                    if (b.empty())
                        continue;
                    PmlSlab local = s;
                    local.box = b;
                    ti.pml.push_back(local);
                }
            }
}

int TileGrid::owner(const Index3& p) const {
    std::array<int, 3> c{};
    for (int a = 0; a < 3; ++a) {
        auto it = std::upper_bound(cuts_[a].begin(), cuts_[a].end(), p[a]);
        c[a] = int(it - cuts_[a].begin()) - 1;
        c[a] = std::clamp(c[a], 0, tiles_[a] - 1);
    }
    return c[0] + tiles_[0] * (c[1] + tiles_[1] * c[2]);
}

} // namespace yee::tiling
