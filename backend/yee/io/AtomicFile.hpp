#pragma once
/// \file AtomicFile.hpp
/// Forwarding header: atomic file replacement lives in files/AtomicFile.hpp (namespace yee::files),
/// below scene, solver and io. These names keep `yee::io::writeAtomically` and friends working for
/// code written against io; new code includes yee/files/AtomicFile.hpp.
#include "yee/files/AtomicFile.hpp"

namespace yee::io {

/// See yee::files::AtomicFile.
using files::AtomicFile;
/// See yee::files::temporaryPathFor().
using files::temporaryPathFor;
/// See yee::files::writeAtomically().
using files::writeAtomically;
/// See yee::files::writeTextAtomically().
using files::writeTextAtomically;

} // namespace yee::io
