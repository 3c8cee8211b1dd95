#pragma once
/// \file Error.hpp
/// Error types. Messages name the offending field so a user can act on them
/// (e.g. `sources[2].profile.wavelength_um: must be > 0`).
#include <exception>
#include <stdexcept>
#include <string>

namespace yee {

/// Bad user input: malformed scene, impossible configuration. Raised before anything is allocated.
class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& msg) : std::runtime_error(msg) {}
};

/// Not enough memory on a device for the planned allocations (raised before allocating).
class MemoryError : public InputError {
public:
    explicit MemoryError(const std::string& msg) : InputError(msg) {}
};

/// Failure while running (divergence, I/O failure, communication failure).
class RunError : public std::runtime_error {
public:
    explicit RunError(const std::string& msg) : std::runtime_error(msg) {}
};

/// The run was cancelled by the user.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("run cancelled") {}
};

/// The message of a captured exception ("unknown exception" for non-standard ones).
inline std::string describe(const std::exception_ptr& ep) {
    try {
        std::rethrow_exception(ep);
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "unknown exception";
    }
}

} // namespace yee
