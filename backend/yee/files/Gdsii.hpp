#pragma once
/// \file Gdsii.hpp
/// GDSII stream files (the mask-layout format foundries take): polygons on layers, written
/// atomically, and read back (for tests and for tools that check what was written).
///
/// Written by hand because no library in Debian writes GDSII from C++ (libgdsii reads only; gdstk and
/// gdspy are Python). The subset is the one layouts of optimised devices need: one library, one cell,
/// BOUNDARY elements (layer, datatype, closed XY). GDSII boundaries have no holes, so a polygon with
/// holes is written as one keyhole polygon: each hole is joined to the outline by a zero-width cut, the
/// form layout tools and mask writers accept. Coordinates are integers in database units.
#include <array>
#include <string>
#include <vector>

namespace yee::files {

/// A filled polygon, possibly with holes, on one GDSII layer. Coordinates in um.
struct GdsPolygon {
    int layer = 1;                                         ///< 0..32767
    int datatype = 0;                                      ///< 0..32767
    std::vector<std::array<double, 2>> outline;            ///< either orientation, not self-intersecting
    std::vector<std::vector<std::array<double, 2>>> holes; ///< inside the outline, disjoint
};

/// One BOUNDARY element as stored in a file.
struct GdsBoundary {
    int layer = 0;
    int datatype = 0;
    std::vector<std::array<double, 2>> points; ///< um, closing point dropped
};

/// What readGdsii() found.
struct GdsLibrary {
    std::string library, cell;
    double dbUnitUm = 0; ///< size of a database unit, um
    std::vector<GdsBoundary> boundaries;
};

/// The vertex list of `p` as one keyhole polygon (outline counter-clockwise, each hole clockwise and
/// joined to the rest by a cut from its rightmost vertex to the nearest edge on its right).
std::vector<std::array<double, 2>> keyholePolygon(const GdsPolygon& p);

/// Write `polygons` into cell `cell` of library `library` at `path`, atomically, with database unit
/// `dbUnitUm` um (user unit: 1 um). Throws yee::RunError naming the path when writing fails, and
/// std::invalid_argument for a bad layer/datatype, an empty name, a polygon with fewer than three
/// vertices, a coordinate beyond the 32-bit database range or a keyhole polygon above the format's
/// 8190 vertices.
void writeGdsii(const std::string& path, const std::string& library, const std::string& cell,
                const std::vector<GdsPolygon>& polygons, double dbUnitUm = 1e-3);

/// Read the BOUNDARY elements of the first cell of a GDSII file. Throws yee::InputError naming the path
/// when it is missing or not a GDSII stream.
GdsLibrary readGdsii(const std::string& path);

} // namespace yee::files
