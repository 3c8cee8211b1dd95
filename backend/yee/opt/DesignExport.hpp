#pragma once
/// \file DesignExport.hpp
/// Designs out of an optimisation: the density of every design region (HDF5 and ParaView VTKHDF) and
/// the thresholded geometry (scene/DesignTrace.hpp) as a plain scene to re-simulate and as a GDSII
/// layer. Every output is written atomically and on its own: one that fails is reported and the others
/// are still written.
///
/// Files, for prefix P:
///   P.design.h5                /designs/<name>/{latent, density} (x fastest, attr shape [vz, vy, vx]),
///                              attrs origin_um (low corner), voxel_um, beta, eta, level, materials
///   P.<name>.density.vtkhdf    the density as an ImageData at the voxel centres
///   P.geometry.json            the scene with each design region replaced by its traced polygons
///   P.gds                      the traced polygons (holes as keyhole cuts), cell = the scene's name, in
///                              each design's (u, v) plane (x, y for designs extruded along z)
#include <string>
#include <vector>

#include "yee/scene/DesignTrace.hpp"
#include "yee/scene/Scene.hpp"

namespace yee::opt {

/// What exportDesign() writes and how it traces.
struct DesignExportOptions {
    std::string prefix;                               ///< path prefix of every file (see above)
    double level = 0.5;                               ///< density level of the traced outline
    scene::TraceMode mode = scene::TraceMode::Smooth; ///< contour placement between voxels
    int gdsLayer = 1;                                 ///< GDSII layer of the polygons
    int gdsDatatype = 0;                              ///< GDSII datatype of the polygons
    bool geometry = true;                             ///< trace, write P.geometry.json and P.gds
};

/// What was written and what failed.
struct DesignExportReport {
    std::vector<std::string> written; ///< paths
    std::vector<std::string> failed;  ///< "path: reason"
    std::vector<std::string> notes;   ///< what was left out and why (e.g. a design not extrudable)
    std::vector<double> solidAreaUm2; ///< per design: traced solid area (when traced)
};

/// The density of every design region of `s` at latent values `latent` with projection steepness
/// `beta` (per region), through the region's filter and projection (DesignMap).
std::vector<std::vector<double>> designDensities(const scene::Scene& s,
                                                 const std::vector<std::vector<double>>& latent,
                                                 const std::vector<double>& beta);

/// Write the design of `s` at `latent`/`beta` as the files above. Throws InputError (before writing
/// anything) when the sizes do not match the scene's design regions or the level lies outside (0, 1);
/// write failures go to the report.
DesignExportReport exportDesign(const scene::Scene& s, const std::vector<std::vector<double>>& latent,
                                const std::vector<double>& beta, const DesignExportOptions& o);

} // namespace yee::opt
