#pragma once
/// \file Optimize.hpp
/// The inverse-design loop: improve the latent parameters of a scene's design regions with MMA or CCSA
/// (NLopt; the latent bounds [0, 1] as box constraints) or projected Adam, each evaluation one
/// value-and-grad on a prepared run::Session (the scene is rasterised and its tiles allocated once).
///
/// Figure of merit: the scene's objective (weighted sum of its terms), or with form "worst" the worst
/// weighted term, through the epigraph form (an extra variable t, improved subject to t against every
/// term, as MMA constraints). Constraints of the "optimization" section are MMA/CCSA inequalities on
/// unweighted terms. Every function's gradient needs its own reverse sweep: an evaluation runs one
/// value-and-grad for the sum form, one per term for "worst", plus one per constraint.
///
/// Beta continuation: every design region with projection (beta > 0) starts at its scene beta; every
/// beta_every evaluations beta is multiplied by beta_factor (up to beta_max) and the optimiser restarts
/// from the current point (the projected problem changed).
///
/// Determinism and resume: the loop is deterministic. The history (History.hpp) records every
/// function's value and gradient; resuming replays the optimiser from the recorded values (checking that
/// each replayed point equals the recorded one bit for bit), then evaluates on. A resumed run reaches
/// the same iterates as an uninterrupted one.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "yee/opt/History.hpp"
#include "yee/run/Run.hpp"

namespace yee::opt {

/// How the loop runs besides the scene's "optimization" section.
struct OptOptions {
    std::string historyPath;                   ///< written after every evaluation; empty: none
    std::string resumePath;                    ///< history to continue from; empty: start afresh
    const std::atomic<bool>* cancel = nullptr; ///< set: stop after the current evaluation
    std::function<void(int index, const Evaluation&)> onEvaluation; ///< after each new evaluation (rank 0)
    int maxEvaluations = -1; ///< <0: the section's iterations; else at most this (tests)
};

/// What the loop found (rank 0; other MPI ranks get an empty result with `completed` set).
struct OptResult {
    bool completed = false; ///< false: cancelled or failed (the history is valid either way)
    std::string status; ///< "converged (ftol_rel)", "iterations done", "cancelled after 7 evaluations", ...
    std::vector<Evaluation> history;
    int replayed = 0; ///< evaluations taken from the resumed history
    int best = -1;    ///< the evaluation chosen as the result: the last stage's best (feasible) one
    std::vector<std::vector<double>> latent; ///< its point, per design region
};

/// Check what `s` needs for an optimisation (an objective, design regions, options the optimiser
/// supports). Throws InputError naming the field.
void checkOptimization(const scene::Scene& s);

/// Run the optimisation of `s` (validated) with run options `o` (o.gradient is set by the loop).
/// Throws InputError (bad scene, options or history), MemoryError, RunError.
OptResult optimize(const scene::Scene& s, run::RunOptions o, const OptOptions& oo);

} // namespace yee::opt
