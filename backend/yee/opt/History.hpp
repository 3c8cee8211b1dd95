#pragma once
/// \file History.hpp
/// The optimisation history: one record per evaluation (the point, every function's value and gradient,
/// the terms, beta, binarisation, wall time, per-device peak memory), kept in memory and written as one
/// HDF5 file, atomically, after every evaluation. It is also what `--resume` reads: the optimiser is
/// replayed from the recorded values (bit for bit the same iterates), then continues.
///
/// File layout (format "yee-opt-history", version 1):
///   /                      attrs format, version, scene_hash, optimizer, form, status, completed (0/1)
///   /scene                 the scene as JSON (latent values inline): what the history belongs to
///   /evaluations/<name>    one row per evaluation: stage, merit, objective, grad_norm, binarisation,
///                          seconds [k]; beta [k][designs]; terms [k][terms]; constraints [k][constraints];
///                          peak_bytes [k][devices]; values [k][functions]; gradients [k][functions][n]
///   /designs/<name>/latent, /designs/<name>/density   [k][voxels] (x fastest), attr shape [vz, vy, vx]
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace yee::opt {

/// One evaluation of the optimiser's functions at one design point.
struct Evaluation {
    int stage = 0;                              ///< beta-continuation stage
    std::vector<double> beta;                   ///< per design region
    double merit = 0;                           ///< what the optimiser improves (sum, or the worst term)
    double objective = 0;                       ///< weighted sum of the objective terms
    std::vector<double> terms;                  ///< unweighted objective terms
    std::vector<double> constraints;            ///< unweighted constrained terms
    double gradNorm = 0;                        ///< |d merit / d latent|_2
    double binarisation = 0;                    ///< mean of 4 rho (1 - rho) over all voxels (0: binary)
    double seconds = 0;                         ///< wall time of the simulations of this evaluation
    std::vector<std::int64_t> peakBytes;        ///< per device
    std::vector<std::vector<double>> latent;    ///< per design region: the point evaluated
    std::vector<std::vector<double>> density;   ///< per design region: its projected density
    std::vector<double> values;                 ///< every function the optimiser uses, in a fixed order
    std::vector<std::vector<double>> gradients; ///< d value / d latent (all regions, concatenated)
};

/// What a history belongs to and how it ended.
struct HistoryHeader {
    std::string sceneHash;
    std::string sceneJson;
    std::string optimizer;
    std::string form;
    std::vector<std::string> designNames;
    std::vector<std::array<std::int64_t, 3>> designShapes; ///< [vz, vy, vx]
    std::string status;
    bool completed = false;
};

/// Write `h` and `ev` to `path` atomically (a temporary file renamed over it; the old file stays
/// intact if anything fails). Throws RunError naming the path.
void writeHistory(const std::string& path, const HistoryHeader& h, const std::vector<Evaluation>& ev);
/// Read a history. Throws InputError naming the path (missing, not a history, malformed).
std::vector<Evaluation> readHistory(const std::string& path, HistoryHeader* header = nullptr);

} // namespace yee::opt
