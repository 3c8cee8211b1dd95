#pragma once
/// \file DesignTrace.hpp
/// A design region's density as geometry: closed polygons traced at a level set of the density, for
/// designs that are uniform along one axis (one voxel along x, y or z: the extrusion axis), and the
/// scene objects that paint them.
///
/// Tracing is marching squares on the voxel centres, with the region boundary added as samples that
/// repeat the edge voxels' values, so a contour that reaches the boundary follows it and every loop
/// closes inside the region. Two placements of a contour between neighbouring voxels a, b:
///   - Smooth: linear interpolation of the density, x = xa + (level - rho_a) / (rho_b - rho_a) (xb - xa),
///     the level set of the piecewise-linear density (sub-voxel boundaries).
///   - Staircase: the face between the two voxels, the exact outline of {rho >= level} voxel by voxel;
///     painted with voxel-aligned cells it reproduces the binarised design exactly.
/// Saddle squares are resolved by the mean of their four corners. Loops are nested: depth 0 is the
/// outline of a solid part (rho >= level, painted with the design's second material), depth 1 a hole in
/// it (first material), depth 2 an island in a hole, and so on.
#include <array>
#include <cstddef>
#include <vector>

#include "yee/scene/Scene.hpp"

namespace yee::scene {

/// How a contour is placed between neighbouring voxels.
enum class TraceMode { Smooth, Staircase };

/// One closed loop of a traced design, in the (u, v) plane of Object's polygon convention.
struct TracedLoop {
    std::vector<std::array<double, 2>> vertices; ///< um, counter-clockwise for depth 0, 2, ...; no repeat
    int depth = 0;                               ///< nesting depth (even: solid outline, odd: hole)
    int parent = -1;                             ///< index of the directly enclosing loop, or -1
    double areaUm2 = 0;                          ///< enclosed area (positive), um^2
};

/// A design region traced as polygons.
struct DesignTrace {
    std::size_t design = 0;        ///< index in Scene::designs
    int axis = 2;                  ///< extrusion axis (the axis with one voxel; z preferred, then y, x)
    Vec3 lo{0, 0, 0}, hi{0, 0, 0}; ///< the region's cell-snapped bounds, um
    std::vector<TracedLoop> loops; ///< ordered by depth (painting order)

    /// Area of {rho >= level} in the (u, v) plane: solid outlines minus holes, um^2.
    double solidAreaUm2() const;
};

/// Trace design `d` of validated scene `s` at density `level`. `density` holds one value per voxel
/// (x fastest), e.g. DesignMap::forward() of the latent values. Throws InputError naming
/// `designs[d]` when no axis has a single voxel, and std::invalid_argument on a size mismatch or a level
/// outside (0, 1).
DesignTrace traceDesign(const Scene& s, std::size_t d, const std::vector<double>& density, double level = 0.5,
                        TraceMode mode = TraceMode::Smooth);

/// Objects that paint trace `t` of scene `s`: a box of the design's first material over the region,
/// then every loop as a polygon prism over the region's extent along the extrusion axis (solid outlines
/// in the second material, holes in the first), in depth order.
std::vector<Object> tracedObjects(const Scene& s, const DesignTrace& t);

/// `s` with every design region replaced by its traced geometry (the objects appended after all other
/// objects, where the design was painted), the design regions and the optimisation section removed, so
/// the result is a plain scene to re-simulate. `densities[d]` is design d's density. The gradient
/// section's method stays; with no design left a run computes the objective only.
Scene withTracedDesigns(const Scene& s, const std::vector<std::vector<double>>& densities, double level = 0.5,
                        TraceMode mode = TraceMode::Smooth);
/// As withTracedDesigns(), from traces already made (one per design region, in order).
Scene withTraces(const Scene& s, const std::vector<DesignTrace>& traces);

} // namespace yee::scene
