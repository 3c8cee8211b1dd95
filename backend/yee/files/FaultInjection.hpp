#pragma once
/// \file FaultInjection.hpp
/// Test hook: make a named kind of output fail, to prove that one failing output never loses the
/// others. The kinds are the outputs a run writes: "results" (the HDF5 results file), "snapshots"
/// (VTKHDF images and their series indexes), "restart" (restart files) and "recorder" (the reversible
/// gradient's host or disk tier: each slot written off the device; the run keeps its forward results
/// and drops the gradient, gradient/RecordStore.hpp). Set the environment variable `YEE_FAIL_OUTPUT` to a
/// comma-separated list of kinds (e.g. `YEE_FAIL_OUTPUT=snapshots,restart yee-run scene.json`), or call
/// setInjectedFailures() in-process. Unset (the default), nothing fails.
#include <string>
#include <string_view>

namespace yee::files {

/// Overrides `YEE_FAIL_OUTPUT` for this process (tests); an empty list restores the environment's.
void setInjectedFailures(const std::string& kinds);

/// True when writing outputs of `kind` is made to fail.
bool failureInjected(std::string_view kind);

/// Throws yee::RunError("<path>: injected failure writing <kind> (YEE_FAIL_OUTPUT)") when writing
/// outputs of `kind` is made to fail; else does nothing. Writers call it while their temporary file
/// is open and partly written, so the failure takes the same clean-up path as a real one.
void failIfInjected(std::string_view kind, const std::string& path);

} // namespace yee::files
