#include "yee/files/Hdf5Util.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "yee/core/Error.hpp"

namespace yee::files::h5 {

std::mutex& libraryMutex() {
    static std::mutex m;
    return m;
}

namespace {

std::atomic<std::uint64_t> sessionsEntered{0};
std::atomic<std::uint64_t> sessionsContended{0};

} // namespace

SessionStats sessionStats() {
    return {sessionsEntered.load(std::memory_order_relaxed),
            sessionsContended.load(std::memory_order_relaxed)};
}

Session::Session() : lock_(libraryMutex(), std::try_to_lock) {
    if (!lock_.owns_lock()) {
        sessionsContended.fetch_add(1, std::memory_order_relaxed);
        lock_.lock();
    }
    sessionsEntered.fetch_add(1, std::memory_order_relaxed);
    H5Eget_auto2(H5E_DEFAULT, &oldFunc_, &oldData_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Session::~Session() {
    H5Eclear2(H5E_DEFAULT);
    H5Eset_auto2(H5E_DEFAULT, oldFunc_, oldData_);
}

namespace {

herr_t deepestError(unsigned n, const H5E_error2_t* err, void* out) {
    auto* s = static_cast<std::string*>(out);
    if (n == 0 && err->desc)
        *s = err->desc;
    return 0;
}

std::string failure(const std::string& what) {
    std::string cause = lastError();
    H5Eclear2(H5E_DEFAULT);
    return cause.empty() ? what : what + ": " + cause;
}

/// "<file>:<object>" for messages.
std::string where(hid_t loc, const std::string& name) {
    char file[1024] = {0};
    char obj[1024] = {0};
    H5Fget_name(loc, file, sizeof file);
    H5Iget_name(loc, obj, sizeof obj);
    std::string path = obj;
    if (path.empty() || path.back() != '/')
        path += '/';
    return std::filesystem::path(file).filename().string() + ":" + path + name;
}

herr_t closeAny(hid_t id) {
    switch (H5Iget_type(id)) {
    case H5I_FILE:
        return H5Fclose(id);
    case H5I_GROUP:
        return H5Gclose(id);
    case H5I_DATASET:
        return H5Dclose(id);
    case H5I_DATASPACE:
        return H5Sclose(id);
    case H5I_DATATYPE:
        return H5Tclose(id);
    case H5I_ATTR:
        return H5Aclose(id);
    case H5I_GENPROP_LST:
        return H5Pclose(id);
    default:
        return -1;
    }
}

Handle scalarSpace() {
    return Handle(H5Screate(H5S_SCALAR), "creating dataspace");
}

Handle simpleSpace(const std::vector<hsize_t>& dims) {
    if (dims.empty())
        return scalarSpace();
    return Handle(H5Screate_simple(int(dims.size()), dims.data(), nullptr), "creating dataspace");
}

std::int64_t elementCount(hid_t space) {
    hssize_t n = H5Sget_simple_extent_npoints(space);
    if (n < 0)
        throw RunError(failure("reading dataspace"));
    return std::int64_t(n);
}

void writeAttrRaw(hid_t obj, const std::string& name, hid_t fileType, hid_t memType,
                  const std::vector<hsize_t>& dims, const void* data) {
    const std::string what = "writing attribute " + where(obj, name);
    if (H5Aexists(obj, name.c_str()) > 0)
        check(H5Adelete(obj, name.c_str()), what);
    Handle space = simpleSpace(dims);
    Handle attr(H5Acreate2(obj, name.c_str(), fileType, space, H5P_DEFAULT, H5P_DEFAULT), what);
    if (std::none_of(dims.begin(), dims.end(), [](hsize_t d) { return d == 0; }))
        check(H5Awrite(attr, memType, data), what);
    attr.close(what);
}

std::vector<char> packStrings(const std::vector<std::string>& values, std::size_t& width) {
    width = 1;
    for (auto& v : values)
        width = std::max(width, v.size());
    std::vector<char> buf(values.size() * width, '\0');
    for (std::size_t i = 0; i < values.size(); ++i)
        std::memcpy(buf.data() + i * width, values[i].data(), values[i].size());
    return buf;
}

/// Reads `n` strings of type `type` from an attribute or dataset through `read(memType, buffer)`.
template <class Read> std::vector<std::string> readStrings(hid_t type, std::int64_t n, const Read& read) {
    if (H5Tget_class(type) != H5T_STRING)
        throw RunError("expected a string");
    std::vector<std::string> out;
    if (H5Tis_variable_str(type) > 0) {
        Handle mem(H5Tcopy(H5T_C_S1), "string type");
        check(H5Tset_size(mem, H5T_VARIABLE), "string type");
        std::vector<char*> ptrs(std::size_t(n), nullptr);
        read(mem.id(), static_cast<void*>(ptrs.data()));
        for (char* p : ptrs) {
            out.emplace_back(p ? p : "");
            if (p)
                H5free_memory(p);
        }
        return out;
    }
    std::size_t width = H5Tget_size(type);
    std::vector<char> buf(std::size_t(n) * width + 1, '\0');
    read(type, static_cast<void*>(buf.data()));
    for (std::int64_t i = 0; i < n; ++i) {
        const char* p = buf.data() + i * width;
        out.emplace_back(p, strnlen(p, width));
    }
    return out;
}

herr_t collectLink(hid_t, const char* name, const H5L_info_t*, void* out) {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
}

herr_t collectAttr(hid_t, const char* name, const H5A_info_t*, void* out) {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
}

Handle openAttr(hid_t obj, const std::string& name) {
    return Handle(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "opening attribute " + where(obj, name));
}

template <class T> std::vector<T> readNumericAttr(hid_t obj, const std::string& name, hid_t memType) {
    Handle attr = openAttr(obj, name);
    Handle type(H5Aget_type(attr), "attribute type");
    auto cls = H5Tget_class(type);
    if (cls != H5T_INTEGER && cls != H5T_FLOAT)
        throw RunError("attribute " + where(obj, name) + ": expected a number");
    Handle space(H5Aget_space(attr), "attribute space");
    std::vector<T> v(std::size_t(elementCount(space)));
    check(H5Aread(attr, memType, v.data()), "reading attribute " + where(obj, name));
    return v;
}

template <class T>
std::vector<T> readNumeric(hid_t dataset, hid_t memType, std::vector<std::int64_t>* shape) {
    if (!holdsNumbers(dataset))
        throw RunError("dataset " + where(dataset, "") + ": expected numbers");
    Handle space(H5Dget_space(dataset), "dataset space");
    std::vector<T> v(std::size_t(elementCount(space)));
    if (!v.empty())
        check(H5Dread(dataset, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "reading dataset");
    if (shape)
        *shape = datasetShape(dataset);
    return v;
}

std::vector<hsize_t> toDims(const std::vector<std::int64_t>& shape, std::size_t count) {
    std::vector<hsize_t> dims;
    std::int64_t n = 1;
    for (auto d : shape) {
        if (d < 0)
            throw RunError("negative array extent");
        dims.push_back(hsize_t(d));
        n *= d;
    }
    if (std::size_t(n) != count)
        throw RunError("array shape holds " + std::to_string(n) + " values but data has " +
                       std::to_string(count));
    return dims;
}

} // namespace

std::string lastError() {
    std::string s;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, deepestError, &s);
    return s;
}

void check(herr_t status, const std::string& what) {
    if (status < 0)
        throw RunError(failure(what));
}

Handle::Handle(hid_t id, const std::string& what) : id_(id) {
    if (id_ < 0)
        throw RunError(failure(what));
}

Handle::~Handle() {
    if (id_ >= 0)
        closeAny(id_);
}

Handle& Handle::operator=(Handle&& o) noexcept {
    if (this != &o) {
        if (id_ >= 0)
            closeAny(id_);
        id_ = o.id_;
        imagePath_ = std::move(o.imagePath_);
        o.id_ = H5I_INVALID_HID;
        o.imagePath_.clear();
    }
    return *this;
}

namespace {

/// Writes `bytes` to `path` with stdio, reporting the system error (ENOSPC, EFBIG, ...).
void writeImage(const std::string& path, const std::vector<char>& bytes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        throw RunError("cannot create '" + path + "': " + std::strerror(errno));
    bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() && std::fflush(f) == 0;
    int err = errno;
    if (std::fclose(f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok)
        throw RunError("cannot write '" + path + "': " + std::strerror(err));
}

} // namespace

void Handle::close(const std::string& what) {
    if (id_ < 0)
        return;
    hid_t id = id_;
    id_ = H5I_INVALID_HID;
    const std::string path = std::move(imagePath_);
    imagePath_.clear();
    if (path.empty()) {
        check(closeAny(id), what);
        return;
    }
    // A file built in memory: take its image, close it (no I/O, cannot fail half-way), then write the
    // image with plain stdio, so a full disk is an ordinary write error and HDF5 keeps nothing open.
    std::vector<char> image;
    const ssize_t size = H5Fflush(id, H5F_SCOPE_GLOBAL) < 0 ? -1 : H5Fget_file_image(id, nullptr, 0);
    if (size > 0) {
        image.resize(std::size_t(size));
        if (H5Fget_file_image(id, image.data(), image.size()) != size)
            image.clear();
    }
    const std::string reason = size > 0 && !image.empty() ? std::string() : failure(what);
    const herr_t closed = H5Fclose(id);
    if (!reason.empty())
        throw RunError(reason);
    check(closed, what);
    try {
        writeImage(path, image);
    } catch (const RunError& e) {
        throw RunError(what + ": " + e.what());
    }
}

Handle createFile(const std::string& path) {
    Handle fcpl(H5Pcreate(H5P_FILE_CREATE), "file creation properties");
    check(H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), "file properties");
    check(H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), "file properties");
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), "file access properties");
    // Closing the file closes (and flushes) everything in it, so a closed file is a complete file.
    check(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), "file properties");
    // Built in memory (no backing store), written to `path` by close(): HDF5 itself never writes to
    // the disk, so a write that fails there leaves no half-closed file inside the library.
    check(H5Pset_fapl_core(fapl, 1 << 20, false), "file properties");
    // Refuse an unwritable location now rather than after the whole file is built.
    {
        std::FILE* probe = std::fopen(path.c_str(), "wb");
        if (!probe)
            throw RunError("cannot create '" + path + "': " + std::strerror(errno));
        std::fclose(probe);
    }
    Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, fapl), "cannot create '" + path + "'");
    file.imagePath_ = path;
    return file;
}

Handle openFileReadOnly(const std::string& path) {
    if (!std::filesystem::is_regular_file(path))
        throw InputError("'" + path + "': no such file");
    if (H5Fis_hdf5(path.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        throw InputError("'" + path + "': not an HDF5 file");
    }
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), "file access properties");
    check(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), "file properties");
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
    if (f < 0)
        throw InputError(failure("'" + path + "': cannot open"));
    return Handle(f, path);
}

Handle createGroup(hid_t loc, const std::string& name) {
    const std::string what = "creating group " + where(loc, name);
    Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), what);
    check(H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), what);
    check(H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), what);
    return Handle(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT), what);
}

Handle openGroup(hid_t loc, const std::string& name) {
    return Handle(H5Gopen2(loc, name.c_str(), H5P_DEFAULT), "opening group " + where(loc, name));
}

Handle openDataset(hid_t loc, const std::string& name) {
    return Handle(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "opening dataset " + where(loc, name));
}

bool holdsNumbers(hid_t dataset) {
    Handle type(H5Dget_type(dataset), "dataset type");
    const H5T_class_t cls = H5Tget_class(type);
    return cls == H5T_INTEGER || cls == H5T_FLOAT;
}

bool exists(hid_t loc, const std::string& name) {
    htri_t r = H5Lexists(loc, name.c_str(), H5P_DEFAULT);
    if (r < 0)
        H5Eclear2(H5E_DEFAULT);
    return r > 0;
}

std::vector<std::string> children(hid_t group) {
    std::vector<std::string> names;
    hsize_t idx = 0;
    if (H5Literate(group, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, collectLink, &names) < 0) {
        H5Eclear2(H5E_DEFAULT);
        names.clear();
        idx = 0;
        check(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &idx, collectLink, &names),
              "listing group " + where(group, ""));
    }
    return names;
}

Handle stringType(std::size_t size, H5T_cset_t cset) {
    Handle t(H5Tcopy(H5T_C_S1), "string type");
    check(H5Tset_size(t, std::max<std::size_t>(size, 1)), "string type");
    check(H5Tset_strpad(t, H5T_STR_NULLPAD), "string type");
    check(H5Tset_cset(t, cset), "string type");
    return t;
}

void writeAttr(hid_t obj, const std::string& name, const std::string& value, H5T_cset_t cset) {
    Handle t = stringType(value.size(), cset);
    std::string padded = value.empty() ? std::string(1, '\0') : value;
    writeAttrRaw(obj, name, t, t, {}, padded.data());
}

void writeAttr(hid_t obj, const std::string& name, const char* value) {
    writeAttr(obj, name, std::string(value));
}

void writeAttr(hid_t obj, const std::string& name, std::int64_t value) {
    writeAttrRaw(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, {}, &value);
}

void writeAttr(hid_t obj, const std::string& name, int value) {
    writeAttr(obj, name, std::int64_t(value));
}

void writeAttr(hid_t obj, const std::string& name, double value) {
    writeAttrRaw(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {}, &value);
}

void writeAttr(hid_t obj, const std::string& name, const std::vector<std::int64_t>& values) {
    writeAttrRaw(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, {hsize_t(values.size())}, values.data());
}

void writeAttr(hid_t obj, const std::string& name, const std::vector<double>& values) {
    writeAttrRaw(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {hsize_t(values.size())}, values.data());
}

void writeAttr(hid_t obj, const std::string& name, const std::vector<std::string>& values) {
    std::size_t width = 1;
    std::vector<char> buf = packStrings(values, width);
    Handle t = stringType(width);
    writeAttrRaw(obj, name, t, t, {hsize_t(values.size())}, buf.data());
}

bool hasAttr(hid_t obj, const std::string& name) {
    htri_t r = H5Aexists(obj, name.c_str());
    if (r < 0)
        H5Eclear2(H5E_DEFAULT);
    return r > 0;
}

bool attrIsString(hid_t obj, const std::string& name) {
    Handle attr = openAttr(obj, name);
    Handle type(H5Aget_type(attr), "attribute type");
    return H5Tget_class(type) == H5T_STRING;
}

std::vector<std::string> readStringArrayAttr(hid_t obj, const std::string& name) {
    Handle attr = openAttr(obj, name);
    Handle type(H5Aget_type(attr), "attribute type");
    Handle space(H5Aget_space(attr), "attribute space");
    const std::string what = "reading attribute " + where(obj, name);
    try {
        return readStrings(type, elementCount(space),
                           [&](hid_t mem, void* buf) { check(H5Aread(attr, mem, buf), what); });
    } catch (const RunError& e) {
        throw RunError(what + ": " + e.what());
    }
}

std::string readStringAttr(hid_t obj, const std::string& name) {
    auto v = readStringArrayAttr(obj, name);
    return v.empty() ? std::string() : v.front();
}

std::vector<std::int64_t> readIntArrayAttr(hid_t obj, const std::string& name) {
    return readNumericAttr<std::int64_t>(obj, name, H5T_NATIVE_INT64);
}

std::vector<double> readDoubleArrayAttr(hid_t obj, const std::string& name) {
    return readNumericAttr<double>(obj, name, H5T_NATIVE_DOUBLE);
}

std::int64_t readIntAttr(hid_t obj, const std::string& name) {
    auto v = readIntArrayAttr(obj, name);
    if (v.size() != 1)
        throw RunError("attribute " + where(obj, name) + ": expected one value");
    return v[0];
}

double readDoubleAttr(hid_t obj, const std::string& name) {
    auto v = readDoubleArrayAttr(obj, name);
    if (v.size() != 1)
        throw RunError("attribute " + where(obj, name) + ": expected one value");
    return v[0];
}

std::vector<std::string> attrNames(hid_t obj) {
    std::vector<std::string> names;
    hsize_t idx = 0;
    if (H5Aiterate2(obj, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, collectAttr, &names) < 0) {
        H5Eclear2(H5E_DEFAULT);
        names.clear();
        idx = 0;
        check(H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, collectAttr, &names), "listing attributes");
    }
    return names;
}

Handle writeDataset(hid_t loc, const std::string& name, const std::vector<hsize_t>& dims, hid_t memType,
                    hid_t fileType, const void* data) {
    const std::string what = "writing dataset " + where(loc, name);
    Handle space = simpleSpace(dims);
    Handle ds(H5Dcreate2(loc, name.c_str(), fileType, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), what);
    if (std::none_of(dims.begin(), dims.end(), [](hsize_t d) { return d == 0; }))
        check(H5Dwrite(ds, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), what);
    return ds;
}

Handle writeDataset(hid_t loc, const std::string& name, const std::vector<std::int64_t>& shape,
                    const std::vector<double>& data) {
    return writeDataset(loc, name, toDims(shape, data.size()), H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE,
                        data.data());
}

Handle writeDataset(hid_t loc, const std::string& name, const std::vector<std::int64_t>& shape,
                    const std::vector<std::int64_t>& data) {
    return writeDataset(loc, name, toDims(shape, data.size()), H5T_NATIVE_INT64, H5T_STD_I64LE, data.data());
}

Handle writeStringDataset(hid_t loc, const std::string& name, const std::string& value) {
    Handle t = stringType(value.size());
    std::string padded = value.empty() ? std::string(1, '\0') : value;
    return writeDataset(loc, name, {}, t, t, padded.data());
}

Handle writeStringArrayDataset(hid_t loc, const std::string& name, const std::vector<std::string>& values) {
    std::size_t width = 1;
    std::vector<char> buf = packStrings(values, width);
    Handle t = stringType(width);
    return writeDataset(loc, name, {hsize_t(values.size())}, t, t, buf.data());
}

std::vector<std::int64_t> datasetShape(hid_t dataset) {
    Handle space(H5Dget_space(dataset), "dataset space");
    int rank = H5Sget_simple_extent_ndims(space);
    if (rank < 0)
        throw RunError(failure("dataset rank"));
    std::vector<hsize_t> dims(std::size_t(rank), 0);
    if (rank > 0)
        check(H5Sget_simple_extent_dims(space, dims.data(), nullptr), "dataset extent");
    return std::vector<std::int64_t>(dims.begin(), dims.end());
}

std::vector<double> readDoubles(hid_t dataset, std::vector<std::int64_t>* shape) {
    return readNumeric<double>(dataset, H5T_NATIVE_DOUBLE, shape);
}

std::vector<float> readFloats(hid_t dataset, std::vector<std::int64_t>* shape) {
    return readNumeric<float>(dataset, H5T_NATIVE_FLOAT, shape);
}

std::vector<std::int64_t> readInts(hid_t dataset, std::vector<std::int64_t>* shape) {
    return readNumeric<std::int64_t>(dataset, H5T_NATIVE_INT64, shape);
}

std::vector<std::string> readStringArrayDataset(hid_t dataset) {
    Handle type(H5Dget_type(dataset), "dataset type");
    Handle space(H5Dget_space(dataset), "dataset space");
    return readStrings(type, elementCount(space), [&](hid_t mem, void* buf) {
        check(H5Dread(dataset, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), "reading string dataset");
    });
}

std::string readStringDataset(hid_t dataset) {
    auto v = readStringArrayDataset(dataset);
    return v.empty() ? std::string() : v.front();
}

} // namespace yee::files::h5
