#pragma once
/// \file ResultsWriter.hpp
/// The HDF5 results file of a run, and its reader.
///
/// Layout (all written atomically; a cancelled or failed run still gives a valid file with
/// `complete` = 0 and `status` = "incomplete: <reason>"):
///
/// ```
/// /                      attributes: format="yee-results", version=1, yee_version, scene_hash,
///                        scene_name, status, complete (0/1), steps, total_steps, dt_fs,
///                        grid_cells [nx, ny, nz]; failed_outputs (string array, only when some
///                        output of the run could not be written: one line each naming it and why)
/// /scene                 the scene as JSON text (scalar string dataset)
/// /detectors/<name>/     group; attribute type ("flux", ...) and the detector's scalar attributes
///                        (a scalar attribute called "type" is not stored: the name is taken)
///            <array>     float64 dataset shaped as the result array (C order, last index fastest)
/// /s_parameters          (when the scene names ports and one mode source excites one; run/SParameters.hpp)
///                        attributes ports, detectors (string arrays), excited_port (string); datasets
///                        wavelengths_um [L], s_re, s_im [L, ports]: S_ij of the excited port j
/// /objective             float64 scalar (only when the scene defines an objective and it was evaluated)
/// /gradient/<design>     float64 dataset per design region (when gradients were computed)
/// /snapshots/<detector>  attribute series: path of the ParaView .vtkhdf.series index (relative to
///                        the results file's directory)
/// /telemetry             attributes: wall_seconds (the whole run: forward and reverse sweep),
///                        cell_updates (forward), cell_updates_per_second (of the forward sweep)
/// /telemetry/phases      attributes names, steps, total_steps, seconds: one entry per phase in
///                        run order ("forward"; "reconstruct", "adjoint" for value-and-grad runs)
/// /telemetry/devices/    attribute names (device names)
///     capacity           int64 [devices]                   bytes each device may hold
///     tile               int64 [devices, 6]                lo x,y,z then hi x,y,z (cells)
///     memory_peak        int64 [devices, categories]       attribute categories
///     memory_current     int64 [devices, categories]       attribute categories
///     memory_peak_total  int64 [devices]
///     comm_calls         int64 [devices, phases, kinds]    attributes phases, kinds
///     comm_bytes         int64 [devices, phases, kinds]    attributes phases, kinds
/// /telemetry/timeline/   (when reports were sampled)
///     phase              string [samples]
///     step               int64 [samples]
///     elapsed_s, steps_per_s, cell_updates_per_s   float64 [samples]
///     memory_current     int64 [samples, devices]  total current bytes per device
/// ```
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "yee/run/Run.hpp"
#include "yee/run/SParameters.hpp"
#include "yee/telemetry/Telemetry.hpp"

namespace yee::io {

/// Name stored in the root `format` attribute.
inline constexpr const char* kResultsFormat = "yee-results";
/// Version stored in the root `version` attribute; bumped on incompatible layout changes.
inline constexpr int kResultsVersion = 1;

/// What a results file holds besides the RunResult itself.
struct ResultsExtras {
    /// Gradient of the objective per design region (design name -> array shaped like its voxel grid).
    std::map<std::string, solver::NamedArray> gradients;
    /// Telemetry reports sampled during the run, in order (written to /telemetry/timeline).
    std::vector<telemetry::Report> timeline;
    /// Snapshot series index per detector, relative to the results file's directory.
    std::map<std::string, std::string> snapshotSeries;
    /// The S-matrix column of the run (written to /s_parameters), when it gives one.
    std::optional<run::SParameters> sParameters;
};

/// One row of /telemetry/timeline.
struct TimelineSample {
    std::string phase;
    int step = 0;
    double elapsedSeconds = 0;
    double stepsPerSecond = 0;
    double cellUpdatesPerSecond = 0;
    std::vector<std::int64_t> deviceMemory; ///< total current bytes per device
};

/// Everything readResults() gives back; mirrors the file layout in plain C++ types.
struct ResultsFile {
    int version = 0;
    std::string yeeVersion;
    std::string sceneHash;
    std::string sceneName;
    std::string sceneJson;
    std::string status; ///< "complete" or "incomplete: <reason>"
    bool complete = false;
    std::vector<std::string> failedOutputs; ///< outputs of the run that could not be written
    int steps = 0;
    int totalSteps = 0;
    double dtFs = 0;
    std::array<int, 3> gridCells{0, 0, 0};
    std::vector<solver::DetectorResult> detectors;
    std::optional<double> objective;
    std::map<std::string, solver::NamedArray> gradients;
    std::map<std::string, std::string> snapshotSeries;
    std::optional<run::SParameters> sParameters; ///< /s_parameters, when the file has it
    double wallSeconds = 0;
    std::int64_t cellUpdates = 0;
    double cellUpdatesPerSecond = 0;
    /// Per-device tables; memory categories and comm phases/kinds are matched by name, so a file from
    /// another version fills what it shares with this one.
    std::vector<solver::DeviceSummary> devices;
    std::vector<TimelineSample> timeline;
    /// Steps done, planned and wall time per phase, in run order (empty for files without them).
    std::vector<telemetry::PhaseProgress> phases;

    /// The detector called `name`, or nullptr.
    const solver::DetectorResult* detector(const std::string& name) const;
};

/// The root `status` text for a run result: "complete", or "incomplete: <reason>".
std::string resultsStatus(const run::RunResult& result);

/// Writes the results of a run to `path` atomically (temporary file, then rename).
/// `sceneJson` is the scene as saved (stored verbatim in /scene). Throws yee::RunError on I/O failure
/// (the previous file at `path`, if any, is then left untouched) or when a name cannot be used as an
/// HDF5 group name (empty, ".", or containing '/').
void writeResults(const std::string& path, const scene::Scene& scene, const std::string& sceneJson,
                  const run::RunResult& result, const ResultsExtras& extras = {});

/// Reads a results file written by writeResults(). Throws yee::InputError when the file is missing,
/// is not HDF5, is not a yee results file or has a newer major version, naming the file and the
/// missing piece.
ResultsFile readResults(const std::string& path);

} // namespace yee::io
