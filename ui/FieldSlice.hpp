#pragma once
/// \file FieldSlice.hpp
/// A 2-D slice of a regular 3-D scalar grid (a field snapshot or a gradient map), ready to draw.
#include <array>
#include <vector>

#include "yee/run/Run.hpp"

namespace yee::scene {
class Rasterizer;
}

namespace yee::ui {

/// Values on an nu x nv grid spanning the plane normal to `normal`; u and v are the other two axes in
/// increasing order. values[iu + nu * iv]. Coordinates in um.
struct FieldSlice {
    int normal = 2;
    int u = 0, v = 1;
    int nu = 0, nv = 0;
    std::array<double, 3> origin{0, 0, 0}; ///< world position of sample (0, 0)
    double du = 0, dv = 0;                 ///< spacing along u and v
    std::vector<float> values;
    float min = 0, max = 0;

    bool empty() const { return values.empty(); }
    /// True when not all values are equal.
    bool varies() const { return max > min; }
};

/// The slice of `snap` at sample `index` (clamped) along `normal` (0..2).
FieldSlice sliceOf(const solver::Snapshot& snap, int normal, int index);
/// The axis along which `snap` is one sample thick (a plane snapshot), or 2 for a volume.
int naturalNormal(const solver::Snapshot& snap);
/// A design region's gradient (C-order array shaped [nz, ny, nx] or flat) as a snapshot-like volume
/// centred on the design's voxels, so it can be sliced and drawn like a field.
solver::Snapshot gradientVolume(const scene::Scene& s, std::size_t design,
                                const solver::NamedArray& gradient);

/// The relative permittivity the solver sees at every sample of `like` (same order as its values): the
/// mean over Ex, Ey, Ez of the rasterised, subpixel-averaged eps of the grid cell holding the sample
/// (clamped to the domain), from `raster` of scene `s`.
std::vector<float> permittivityOn(const scene::Scene& s, const scene::Rasterizer& raster,
                                  const FieldSlice& like);
/// Fields whose contours at 0.5 outline the structure of `s` on the samples of `like` (same order as its
/// values), one line per material boundary: the volume fraction of each material (vacuum last) in the
/// cell-sized cube around each sample (Rasterizer::volumeFractions, designs aside), then per design
/// region its indicator (1 in its voxels) and its density (NaN outside it). Fields constant over the slice
/// are left out. Unlike contours of the averaged permittivity, a boundary between two materials whose
/// permittivities have a third between them is one line, not two.
std::vector<std::vector<float>> outlineFields(const scene::Scene& s, const scene::Rasterizer& raster,
                                              const FieldSlice& like);
/// Contour levels that outline the structure of `s`: the midpoints between consecutive distinct
/// permittivities (eps_inf of dispersive ones) of the scene's materials, vacuum included when the
/// background is empty; only materials the background, objects or designs use. Empty for a scene of one
/// permittivity.
std::vector<double> outlineLevels(const scene::Scene& s);

} // namespace yee::ui
