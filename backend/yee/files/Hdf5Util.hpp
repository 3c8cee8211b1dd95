#pragma once
/// \file Hdf5Util.hpp
/// INTERNAL to libyee (used by io/ and scene/): the one place that talks to the HDF5 C API. Thin RAII
/// handles, typed helpers and the library-wide HDF5 mutex. Includes <hdf5.h>, so it must never be
/// included from a public header (HDF5 is a private dependency of libyee).
/// Every helper throws yee::RunError naming the file object and the HDF5 root cause on failure.
///
/// Threading: the HDF5 build we link (1.10, serial) is not thread-safe, so every HDF5 call in libyee
/// must run inside an h5::Session, which holds libraryMutex(). Sessions do not nest (the mutex is not
/// recursive): take one at the public entry point of a read or write, never inside a helper.
#include <hdf5.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace yee::files::h5 {

/// Serialises all HDF5 use in libyee (Debian's HDF5 is not built thread-safe). Take it, through a
/// Session, for the whole of any public read or write.
std::mutex& libraryMutex();

/// Counters of Session use since the process started, for tests and diagnostics (they prove that a
/// code path goes through the library mutex). Both only ever grow; read them with sessionStats().
struct SessionStats {
    std::uint64_t entered = 0;   ///< Sessions that acquired libraryMutex()
    std::uint64_t contended = 0; ///< of those, how many found it held (try_lock failed) and waited
};
/// Current counters (relaxed atomic reads; each count is exact, the pair is not one snapshot).
SessionStats sessionStats();

/// Holds the library mutex and silences HDF5's automatic error printing for its lifetime; errors are
/// turned into exceptions with the root-cause text instead. Blocks while another thread holds the
/// mutex (counted in SessionStats::contended). Not re-entrant: a thread holding a Session must not
/// open another (it would deadlock).
class Session {
public:
    Session();
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

private:
    std::unique_lock<std::mutex> lock_;
    H5E_auto2_t oldFunc_ = nullptr;
    void* oldData_ = nullptr;
};

/// Owning HDF5 identifier (file, group, dataset, dataspace, datatype, attribute, property list).
class Handle {
public:
    Handle() = default;
    /// Takes ownership of `id`; throws RunError("<what>: <HDF5 reason>") if `id` is negative.
    Handle(hid_t id, const std::string& what);
    ~Handle();
    Handle(Handle&& o) noexcept : id_(o.id_), imagePath_(std::move(o.imagePath_)) {
        o.id_ = H5I_INVALID_HID;
        o.imagePath_.clear();
    }
    Handle& operator=(Handle&& o) noexcept;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;

    hid_t id() const { return id_; }
    operator hid_t() const { return id_; }
    bool valid() const { return id_ >= 0; }
    /// Closes now and reports failure (a file's close is where data is flushed). A file made by
    /// createFile() is written to its path here; on failure it is closed all the same (nothing stays
    /// open in HDF5) and RunError names the system error (e.g. "No space left on device").
    void close(const std::string& what);

private:
    friend Handle createFile(const std::string& path);
    hid_t id_ = H5I_INVALID_HID;
    std::string imagePath_; ///< createFile(): where close() writes the in-memory file's image
};

/// Throws RunError("<what>: <HDF5 reason>") when `status` is negative.
void check(herr_t status, const std::string& what);
/// The deepest message on HDF5's current error stack ("" when empty).
std::string lastError();

/// Creates (truncating) an HDF5 file that tracks link creation order. The file is built in memory and
/// written to `path` by Handle::close() (destroying the handle without close() writes nothing more than
/// the empty file created here). Throws RunError when `path` cannot be created.
Handle createFile(const std::string& path);
/// Opens an existing file read-only. Throws yee::InputError if it is missing or not HDF5.
Handle openFileReadOnly(const std::string& path);
/// Creates a group that tracks link and attribute creation order (so readers list in write order).
Handle createGroup(hid_t loc, const std::string& name);
Handle openGroup(hid_t loc, const std::string& name);
Handle openDataset(hid_t loc, const std::string& name);
/// True when a dataset holds integers or floating-point numbers (readable by readDoubles()).
bool holdsNumbers(hid_t dataset);
/// True when `loc` has a direct link `name`.
bool exists(hid_t loc, const std::string& name);
/// Names of the direct children of a group, in creation order when tracked, else by name.
std::vector<std::string> children(hid_t group);

/// Fixed-length string type of `size` bytes (>= 1), null-padded, in the given character set.
Handle stringType(std::size_t size, H5T_cset_t cset = H5T_CSET_UTF8);

// ---- attributes (written on groups or datasets) ----
void writeAttr(hid_t obj, const std::string& name, const std::string& value, H5T_cset_t cset = H5T_CSET_UTF8);
void writeAttr(hid_t obj, const std::string& name, const char* value);
void writeAttr(hid_t obj, const std::string& name, std::int64_t value);
void writeAttr(hid_t obj, const std::string& name, int value);
void writeAttr(hid_t obj, const std::string& name, double value);
void writeAttr(hid_t obj, const std::string& name, const std::vector<std::int64_t>& values);
void writeAttr(hid_t obj, const std::string& name, const std::vector<double>& values);
void writeAttr(hid_t obj, const std::string& name, const std::vector<std::string>& values);

bool hasAttr(hid_t obj, const std::string& name);
/// Reads a string attribute (fixed or variable length; trailing NULs stripped).
std::string readStringAttr(hid_t obj, const std::string& name);
std::vector<std::string> readStringArrayAttr(hid_t obj, const std::string& name);
std::vector<std::int64_t> readIntArrayAttr(hid_t obj, const std::string& name);
std::vector<double> readDoubleArrayAttr(hid_t obj, const std::string& name);
std::int64_t readIntAttr(hid_t obj, const std::string& name);
double readDoubleAttr(hid_t obj, const std::string& name);
/// All attribute names of an object, in creation order when tracked.
std::vector<std::string> attrNames(hid_t obj);
/// True when the attribute holds a string.
bool attrIsString(hid_t obj, const std::string& name);

// ---- datasets ----
/// Writes a dataset of `dims` (empty = scalar) from `data` in memory type `memType`, stored as
/// `fileType`. Returns the open dataset so attributes can be added.
Handle writeDataset(hid_t loc, const std::string& name, const std::vector<hsize_t>& dims, hid_t memType,
                    hid_t fileType, const void* data);
Handle writeDataset(hid_t loc, const std::string& name, const std::vector<std::int64_t>& shape,
                    const std::vector<double>& data);
Handle writeDataset(hid_t loc, const std::string& name, const std::vector<std::int64_t>& shape,
                    const std::vector<std::int64_t>& data);
/// Writes a string as a scalar fixed-length string dataset.
Handle writeStringDataset(hid_t loc, const std::string& name, const std::string& value);
/// Writes a 1-D dataset of fixed-length strings.
Handle writeStringArrayDataset(hid_t loc, const std::string& name, const std::vector<std::string>& values);

/// Shape of a dataset (empty for a scalar).
std::vector<std::int64_t> datasetShape(hid_t dataset);
/// Reads any numeric dataset converted to double; `shape` receives its shape.
std::vector<double> readDoubles(hid_t dataset, std::vector<std::int64_t>* shape = nullptr);
std::vector<float> readFloats(hid_t dataset, std::vector<std::int64_t>* shape = nullptr);
std::vector<std::int64_t> readInts(hid_t dataset, std::vector<std::int64_t>* shape = nullptr);
std::string readStringDataset(hid_t dataset);
std::vector<std::string> readStringArrayDataset(hid_t dataset);

} // namespace yee::files::h5
