#pragma once
/// \file ModeSetBytes.hpp
/// A solved mode set as bytes and back, bit for bit (the rank that solves a port sends it to the others,
/// solver/ModeShare.hpp).
#include <vector>

#include "yee/modes/ModeSolver.hpp"

namespace yee::modes {

/// The bytes of `set` (everything but its request, which the receiver knows).
std::vector<char> encodeModeSet(const ModeSet& set);

/// The set encoded in `bytes`, with request `req`. Throws std::runtime_error when the bytes are not an
/// encoded set.
ModeSet decodeModeSet(const std::vector<char>& bytes, const ModeRequest& req);

} // namespace yee::modes
