#pragma once
/// \file OutputGuard.hpp
/// The divergence guard over everything a user gets from a run. The time loop's guard sees only the
/// fields; with large amplitudes the fields stay finite while quantities built from them (flux, energy,
/// phasor products, float32 snapshots, the objective, the gradient) overflow. After assembly every one
/// of them is checked, and a run with a non-finite value is marked failed, naming the quantity and the
/// step.
#include <string>

#include "yee/run/Run.hpp"

namespace yee::run {

/// The first non-finite value of `r` a user would get, as one line, e.g. "detector 'flux' flux at step
/// 120 (t = 15.3 fs)", "objective", "gradient 'core' at index 7", "snapshot 'plane' Ez at step 40";
/// empty when every detector array, snapshot, the objective and every gradient are finite. Arrays of a
/// detector whose first axis is its time axis (`time_fs`) give the step of the first bad sample; other
/// arrays (spectra, phasors) accumulate over the whole run and give the last step.
std::string firstNonFinite(const RunResult& r);

/// Refuses (InputError naming gradient.storage.path) a value-and-grad run whose disk recorder could not
/// create its file in the scene's gradient.storage.path (or the temporary directory when empty).
void checkRecorderLocation(const scene::Scene& s, const RunOptions& o);

/// Applies the guard to an assembled result: a non-finite value marks it not completed with status
/// "diverged: non-finite <what> (...)" (a run already stopped keeps its reason, extended), and outputs
/// that could not be written during the run (r.failedOutputs) mark it incomplete, named in the status.
void guardOutputs(RunResult& r);

} // namespace yee::run
