#pragma once
/// \file Touchstone.hpp
/// S-parameters of a run as a Touchstone (version 1) file: `# HZ S RI R 50`, one record per frequency in
/// increasing order, N x N complex entries (2 ports: S11 S21 S12 S22; more: row by row, at most four
/// entries a line). A run excites one port, so only column j of the matrix is measured; the other
/// entries are written as 0 and the header comment says so. The reference impedance is nominal (mode
/// amplitudes are power waves normalised to the mode's power).
#include <string>

#include "yee/run/SParameters.hpp"

namespace yee::io {

/// The Touchstone text of `sp` (`sceneName` goes into the header comment).
std::string touchstoneText(const run::SParameters& sp, const std::string& sceneName);

/// The Touchstone file next to results file `resultsPath`: its extension (if any) replaced by ".sNp",
/// N = `ports`.
std::string touchstonePath(const std::string& resultsPath, std::size_t ports);

/// Writes touchstoneText() to `path` atomically. Throws yee::RunError on I/O failure (a previous file
/// at `path` is then untouched).
void writeTouchstone(const std::string& path, const run::SParameters& sp, const std::string& sceneName);

} // namespace yee::io
