#pragma once
/// \file Session.hpp
/// A prepared scene that is run many times with different designs: the optimisation loop's evaluator.
/// The scene is planned, rasterised and its tiles allocated and filled once; each evaluate() gives the
/// design regions new latent values (and projection steepness), fills again only the cells of the design
/// regions, starts every tile from a zero state and runs forward (and, with RunOptions::gradient, the
/// reverse sweep) exactly as run::run() would. An evaluation's results equal, bit for bit, those of
/// run::run() on the scene with the same designs (the tests check it), on every tile grid.
///
/// Threads: on in-process devices (LocalComm, or NCCL) the tiles live on one thread each for the whole
/// session, parked between evaluations. Under MPI (RunOptions::communicator) each process holds its one
/// tile on the calling thread: rank 0 calls evaluate() and close(), every other rank calls serve(), which
/// evaluates what rank 0 sends (one Setup-phase all-reduce per evaluation) until rank 0 closes.
#include <cstdint>
#include <memory>
#include <vector>

#include "yee/run/Run.hpp"

namespace yee::run {

/// What one evaluation changes. Empty vectors keep the current values.
struct DesignUpdate {
    /// Latent values per design region (scene order; voxel order of scene::Design::latent, in [0, 1]).
    std::vector<std::vector<double>> latent;
    /// Projection steepness beta per design region (>= 0).
    std::vector<double> beta;
    /// Weights of the scene's objective terms for this evaluation (term order); empty: the scene's.
    /// E.g. one-hot weights give one term's value and gradient.
    std::vector<double> weights;
};

/// A prepared scene for repeated value (and gradient) evaluations. Not copyable.
class Session {
public:
    /// Validate and plan `s`, check every device's memory (as run::run() does) and allocate and fill
    /// the tiles. Throws InputError (bad scene or options; restart files are refused: a session has no
    /// use for them), MemoryError (does not fit) or RunError.
    Session(const scene::Scene& s, const RunOptions& o);
    /// Stops the tiles (rank 0 under MPI: close() if not done yet). Never throws.
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    /// One evaluation with the designs of `u` (rank 0 under MPI). The result is the assembled result of
    /// rank 0, as run::run() returns it. Throws InputError naming the field for a malformed update
    /// (before anything runs), or what a tile threw (the session is then unusable).
    RunResult evaluate(const DesignUpdate& u);
    /// MPI ranks other than 0: evaluate what rank 0 sends until it calls close(). Throws what a tile threw.
    void serve();
    /// Rank 0 under MPI: let serve() return on the other ranks. In-process sessions: stop the tiles.
    void close();

    /// Number of evaluations so far.
    int evaluations() const;
    /// Voxel count of each design region (scene order).
    std::vector<std::size_t> designSizes() const;
    /// Current latent values of each design region (after the last update; 0.5 where the scene had none).
    std::vector<std::vector<double>> latent() const;
    /// The prepared plan's scene (designs as of the last update).
    const scene::Scene& scene() const;

    /// Implementation (Run.cpp).
    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

} // namespace yee::run
