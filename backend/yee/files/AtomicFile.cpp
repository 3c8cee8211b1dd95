#include "yee/files/AtomicFile.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

#include "yee/core/Error.hpp"

namespace yee::files {

namespace {

std::string systemError(const std::string& what, const std::string& path, int err) {
    return what + " '" + path + "': " + std::strerror(err);
}

/// Flushes a file (or directory) to stable storage. Directories on some file systems refuse fsync
/// with EINVAL; that is not a failure of ours.
void syncPath(const std::string& path, bool directory) {
    int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
    if (fd < 0)
        throw RunError(systemError("cannot open", path, errno));
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0 && !(directory && (err == EINVAL || err == EROFS)))
        throw RunError(systemError("cannot flush", path, err));
}

std::string directoryOf(const std::string& path) {
    auto parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

} // namespace

std::string temporaryPathFor(const std::string& path) {
    static std::atomic<std::uint64_t> counter{0};
    return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temp_(temporaryPathFor(path_)) {}

AtomicFile::~AtomicFile() {
    if (!committed_)
        ::unlink(temp_.c_str());
}

void AtomicFile::commit() {
    try {
        syncPath(temp_, false);
        if (::rename(temp_.c_str(), path_.c_str()) != 0)
            throw RunError(systemError("cannot rename '" + temp_ + "' to", path_, errno));
        committed_ = true;
        syncPath(directoryOf(path_), true);
    } catch (...) {
        if (!committed_)
            ::unlink(temp_.c_str());
        throw;
    }
}

void writeAtomically(const std::string& path, const std::function<void(const std::string& tempPath)>& write) {
    AtomicFile file(path);
    write(file.tempPath());
    file.commit();
}

void writeTextAtomically(const std::string& path, std::string_view text) {
    writeAtomically(path, [&](const std::string& temp) {
        std::FILE* f = std::fopen(temp.c_str(), "wb");
        if (!f)
            throw RunError(systemError("cannot create", temp, errno));
        bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
        int err = errno;
        if (std::fclose(f) != 0 && ok) {
            ok = false;
            err = errno;
        }
        if (!ok)
            throw RunError(systemError("cannot write", temp, err));
    });
}

} // namespace yee::files
