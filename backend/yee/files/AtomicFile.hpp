#pragma once
/// \file AtomicFile.hpp
/// Atomic file replacement: a file is written completely under a temporary name in the target's
/// directory, flushed to disk and renamed over the target. Readers see either the old file or the
/// new one, never a half-written one. Every file libyee writes (results, VTKHDF, JSON indexes, scenes
/// and their design sidecars, restart files, bundles) goes through here.
///
/// Thread safety: any number of threads may write at once, also to the same target (each write has its
/// own temporary; the last rename wins). Writing HDF5 content additionally needs an h5::Session
/// (files/Hdf5Util.hpp) around the HDF5 calls inside the writer.
#include <functional>
#include <string>
#include <string_view>

namespace yee::files {

/// A fresh temporary name for writing `path`: `<path>.tmp.<pid>.<n>`, with `n` counting the calls in
/// this process, so concurrent writers never share a temporary. Same directory as `path`, so the final
/// rename never crosses a file system.
std::string temporaryPathFor(const std::string& path);

/// One pending atomic replacement of a file (RAII).
///
/// Write the new content to tempPath() by any means (C stdio, HDF5, ...), then call commit(). If the
/// object is destroyed without a successful commit(), the temporary file is removed and the target
/// is left as it was.
class AtomicFile {
public:
    /// Prepares a replacement of `path` under a fresh temporaryPathFor(path). Nothing is created yet.
    explicit AtomicFile(std::string path);
    /// Removes the temporary unless commit() succeeded. Never throws.
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    /// Final path of the file.
    const std::string& path() const { return path_; }
    /// Where the content must be written before commit().
    const std::string& tempPath() const { return temp_; }

    /// fsync the temporary, rename it over path() and fsync the directory.
    /// Throws yee::RunError (naming the file and the system error) if the temporary is missing or
    /// any step fails; the temporary is then removed and the target is untouched.
    void commit();

private:
    std::string path_;
    std::string temp_;
    bool committed_ = false;
};

/// Writes `path` atomically: calls `write(tempPath)`, which must create the whole file at tempPath,
/// then commits. If `write` throws, the temporary is removed, the target is untouched and the
/// exception propagates unchanged. Throws yee::RunError if committing fails.
void writeAtomically(const std::string& path, const std::function<void(const std::string& tempPath)>& write);

/// Writes `text` to `path` atomically (binary, exactly those bytes). Throws yee::RunError on failure.
void writeTextAtomically(const std::string& path, std::string_view text);

} // namespace yee::files
