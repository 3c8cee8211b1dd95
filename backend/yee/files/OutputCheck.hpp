#pragma once
/// \file OutputCheck.hpp
/// Checks, before a run starts, that its outputs can be written where they are asked to go: the
/// directory exists (or can be created), is a directory, and really accepts a new file (probed by
/// creating and removing one, so read-only mounts, /proc and permission bits are all caught the same
/// way, also for root). Nothing is left behind.
#include <string>

namespace yee::files {

/// Why a file could not be written at `path` (one clause, e.g. "'/proc' does not accept new files
/// (No such file or directory)"), or "" when it can. `path` must not be a directory; its directory
/// must exist or be creatable (see whyNotWritableDirectory()).
std::string whyNotWritableFile(const std::string& path);

/// Why files could not be written into directory `dir`, or "" when they can. A missing `dir` is fine
/// when its nearest existing ancestor is a directory that accepts new entries (it is created later);
/// an ancestor (or `dir` itself) that is a file is not.
std::string whyNotWritableDirectory(const std::string& dir);

} // namespace yee::files
