#pragma once
/// \file VtkHdfWriter.hpp
/// Field snapshots as VTKHDF ImageData files (ParaView and VTK >= 9.1 open them), a ParaView
/// `.vtkhdf.series` index per detector for time scrubbing, and readers for both.
///
/// One file holds one detector at one step:
/// ```
/// /VTKHDF                 attributes: Version int64[2] = [1, 0]; Type = "ImageData" (fixed-length
///                         ASCII string); WholeExtent int64[6] = [0, nx-1, 0, ny-1, 0, nz-1];
///                         Origin float64[3] (um); Spacing float64[3] (um); Direction float64[9]
/// /VTKHDF/PointData/<c>   float32 [nz, ny, nx] per component ("Ex", ...); attribute Scalars on
///                         PointData names the first one
/// /                       attributes (outside the VTKHDF spec): detector, step, time_fs,
///                         sample_positions (a sentence: the samples are not interpolated)
/// ```
/// Yee components sit on staggered grids (Ex at (i+1/2, j, k) cells, Hx at (i, j+1/2, k+1/2), ...), so
/// the components of one snapshot detector rarely share a grid. writeSnapshotSeries() writes the
/// components that share one grid into one series; otherwise it writes one series per component,
/// `<detector>.<component>_<step>.vtkhdf` with `<detector>.<component>.vtkhdf.series`, each image at
/// its component's own origin, so ParaView places every component where the solver computed it.
/// VTKHDF 1.0 has no time steps; the series index lists one file per step with its time in fs:
/// `{"file-series-version": "1.0", "files": [{"name": "probe_000010.vtkhdf", "time": 12.5}, ...]}`.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "yee/run/Run.hpp"

namespace yee::io {

/// A regular-grid image as stored in a VTKHDF file.
struct VtkImage {
    std::array<std::int64_t, 2> version{1, 0};
    std::string type;                 ///< "ImageData"
    std::array<int, 3> dims{0, 0, 0}; ///< points along x, y, z (from WholeExtent)
    std::array<double, 3> origin{0, 0, 0};
    std::array<double, 3> spacing{0, 0, 0};
    std::array<double, 9> direction{1, 0, 0, 0, 1, 0, 0, 0, 1};
    /// Point arrays by name, x fastest (VTK order), size dims[0]*dims[1]*dims[2].
    std::map<std::string, std::vector<float>> pointData;
    /// Cell arrays by name, x fastest (read only; our writer stores point data).
    std::map<std::string, std::vector<float>> cellData;
    /// Root attributes written by yee (empty / -1 for foreign files).
    std::string detector;
    int step = -1;
    double timeFs = 0;
};

/// One entry of a `.vtkhdf.series` index.
struct SeriesEntry {
    std::string name; ///< file name, relative to the index's directory
    double time = 0;  ///< fs
};

/// Writes the components of one detector at one step (all on the same grid) as one VTKHDF ImageData
/// file, atomically. Throws yee::RunError on I/O failure, an empty list, mismatched grids or steps,
/// or a data size that does not match dims.
void writeVtkHdf(const std::string& path, const std::vector<const solver::Snapshot*>& components);
/// Single-component convenience overload.
void writeVtkHdf(const std::string& path, const solver::Snapshot& snapshot);

/// Writes every snapshot of a run into `dir` (created if needed): one file per detector and step,
/// `<detector>_<step, 6 digits>.vtkhdf`, then `<detector>.vtkhdf.series`, when the detector's
/// components share one grid; else one series per component (`<detector>.<component>_<step>.vtkhdf`,
/// `<detector>.<component>.vtkhdf.series`). Files of an earlier run with either naming pattern that this
/// run did not write are removed. Returns series name -> index path: the detector's name for one shared
/// grid, `<detector>.<component>` for per-component series.
/// Detector names are made file-system safe (characters other than letters, digits, '.', '-', '_'
/// become '_'). Throws yee::RunError on I/O failure.
std::map<std::string, std::string> writeSnapshotSeries(const std::string& dir,
                                                       const std::vector<solver::Snapshot>& snapshots);

/// Writes a ParaView file-series index atomically. Throws yee::RunError on I/O failure.
void writeSeriesIndex(const std::string& path, const std::vector<SeriesEntry>& entries);
/// Reads a ParaView file-series index. Throws yee::InputError if missing or malformed.
std::vector<SeriesEntry> readSeriesIndex(const std::string& path);

/// Reads a VTKHDF ImageData file (ours or any VTKHDF 1.x/2.x ImageData without time steps).
/// Throws yee::InputError when the file is missing, not HDF5, or not VTKHDF ImageData.
VtkImage readVtkHdf(const std::string& path);

} // namespace yee::io
