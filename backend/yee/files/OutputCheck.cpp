#include "yee/files/OutputCheck.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;

namespace yee::files {

namespace {

/// Creates and removes a file in `dir`; "" on success, else the system's reason.
std::string probe(const fs::path& dir) {
    std::string tmpl = (dir / ".yee-write-check-XXXXXX").string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        return std::strerror(errno);
    ::close(fd);
    ::unlink(tmpl.c_str());
    return {};
}

/// `'<p>'` (built by append: GCC 12 warns falsely on "literal" + std::string here).
std::string quoted(const fs::path& p) {
    std::string q(1, '\'');
    q.append(p.string());
    q.push_back('\'');
    return q;
}

} // namespace

std::string whyNotWritableDirectory(const std::string& dir) {
    fs::path p = dir.empty() ? fs::path(".") : fs::path(dir);
    std::error_code ec;
    // The nearest existing ancestor: every level below it is created by the writer.
    fs::path existing = p;
    while (!existing.empty() && !fs::exists(existing, ec)) {
        if (fs::is_symlink(fs::symlink_status(existing, ec)))
            return quoted(existing).append(" is a dangling link");
        existing = existing.parent_path();
    }
    if (existing.empty())
        existing = ".";
    if (!fs::is_directory(existing, ec))
        return quoted(existing).append(" is not a directory");
    if (const std::string why = probe(existing); !why.empty())
        return quoted(existing).append(" does not accept new files (").append(why).append(")");
    return {};
}

std::string whyNotWritableFile(const std::string& path) {
    if (path.empty())
        return "the path is empty";
    const fs::path p(path);
    std::error_code ec;
    if (!p.has_filename() || fs::is_directory(p, ec))
        return quoted(p).append(" is a directory");
    if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))
        return quoted(p).append(" is not a regular file");
    fs::path dir = p.parent_path();
    if (dir.empty())
        dir = ".";
    if (!fs::is_directory(dir, ec))
        return fs::exists(dir, ec) ? quoted(dir).append(" is not a directory")
                                   : "directory " + quoted(dir).append(" does not exist");
    if (const std::string why = probe(dir); !why.empty())
        return "directory " + quoted(dir).append(" does not accept new files (").append(why).append(")");
    return {};
}

} // namespace yee::files
