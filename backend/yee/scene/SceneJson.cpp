#include "yee/scene/SceneJson.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <random>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "yee/core/Error.hpp"

namespace yee::scene {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// ------------------------------------------------------------------------------------------------
// Messages
// ------------------------------------------------------------------------------------------------

/// User text made safe for a one-line message: control characters escaped, long text cut, and
/// (with `escapeQuotes`) '"' and '\\' escaped as inside a JSON string.
std::string printable(std::string_view s, std::size_t maxLen = 60, bool escapeQuotes = true) {
    std::string out;
    for (unsigned char c : s) {
        if (out.size() >= maxLen) {
            out += "...";
            break;
        }
        if (c < 0x20 || c == 0x7f) {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", unsigned(c));
            out += b;
        } else if (escapeQuotes && (c == '"' || c == '\\')) {
            out += '\\';
            out += char(c);
        } else {
            out += char(c);
        }
    }
    return out;
}

std::string dq(std::string_view s) {
    std::string r(1, '"');
    r += printable(s);
    r += '"';
    return r;
}

/// A number for a message: 6 significant digits, no trailing zeros.
std::string num(double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

std::string vecStr(const Vec3& v) {
    return "[" + num(v[0]) + ", " + num(v[1]) + ", " + num(v[2]) + "]";
}

[[noreturn]] void fail(const std::string& path, const std::string& msg) {
    std::string m = path.empty() ? msg : path + ": " + msg;
    for (char& c : m)
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
    throw InputError(m);
}

bool isIdentifier(std::string_view k) {
    if (k.empty() || k.size() > 60)
        return false;
    for (std::size_t i = 0; i < k.size(); ++i) {
        const char c = k[i];
        const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        const bool digit = c >= '0' && c <= '9';
        if (!(alpha || (i > 0 && digit)))
            return false;
    }
    return true;
}

/// Path of `key` inside the object at `path`: `a.b`, or `a["odd key"]` for keys that are not names.
std::string join(const std::string& path, std::string_view key) {
    if (isIdentifier(key))
        return path.empty() ? std::string(key) : path + "." + std::string(key);
    return (path.empty() ? std::string("scene") : path) + "[" + dq(key) + "]";
}

std::string item(const std::string& path, std::size_t i) {
    return path + "[" + std::to_string(i) + "]";
}

std::size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

const char* const kAxisNames[3] = {"x", "y", "z"};
const char* const kComponentNames[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};

std::string axisName(int a) {
    return a >= 0 && a < 3 ? kAxisNames[a] : "?";
}
std::string directionName(int normal, int sign) {
    std::string r(1, sign < 0 ? '-' : '+');
    r += axisName(normal);
    return r;
}

// ------------------------------------------------------------------------------------------------
// Enum tables
// ------------------------------------------------------------------------------------------------

template <class E> struct EnumName {
    E value;
    const char* name;
};

constexpr EnumName<BoundaryType> kBoundaryTypes[] = {
    {BoundaryType::Pml, "pml"}, {BoundaryType::Periodic, "periodic"}, {BoundaryType::Pec, "pec"}};
constexpr EnumName<Shape> kShapes[] = {{Shape::Box, "box"},
                                       {Shape::Sphere, "sphere"},
                                       {Shape::Cylinder, "cylinder"},
                                       {Shape::Polygon, "polygon"}};
constexpr EnumName<SourceType> kSourceTypes[] = {{SourceType::PointDipole, "point_dipole"},
                                                 {SourceType::GaussianPlane, "gaussian_plane"},
                                                 {SourceType::UniformPlane, "uniform_plane"}};
constexpr EnumName<ProfileType> kProfileTypes[] = {{ProfileType::GaussianPulse, "gaussian_pulse"},
                                                   {ProfileType::Cw, "cw"}};
constexpr EnumName<DetectorType> kDetectorTypes[] = {
    {DetectorType::Snapshot, "snapshot"}, {DetectorType::Flux, "flux"},
    {DetectorType::Energy, "energy"},     {DetectorType::Phasor, "phasor"},
    {DetectorType::Probe, "probe"},       {DetectorType::FluxBox, "flux_box"}};
constexpr EnumName<Quantity> kQuantities[] = {
    {Quantity::Flux, "flux"}, {Quantity::PhasorPower, "phasor_power"}, {Quantity::Energy, "energy"}};
constexpr EnumName<Reduce> kReduces[] = {{Reduce::TimeIntegral, "time_integral"},
                                         {Reduce::AtWavelength, "at_wavelength"},
                                         {Reduce::Final, "final"}};
constexpr EnumName<GradientMethod> kMethods[] = {{GradientMethod::Full, "full"},
                                                 {GradientMethod::Checkpointed, "checkpointed"},
                                                 {GradientMethod::Reversible, "reversible"}};
constexpr EnumName<bool> kGoals[] = {{true, "maximize"}, {false, "minimize"}};

const char* const kRecorderModules[] = {"LinearReconstructEveryK", "DtypeConversion"};
const char* const kDtypes[] = {"bfloat16", "float16", "int8", "float32", "float64"};
const char* const kTiers[] = {"device", "host", "disk"};
const char* const kPrecisions[] = {"float32", "float64"};

template <class E, std::size_t N> const char* nameOf(const EnumName<E> (&table)[N], E v) {
    for (const auto& e : table)
        if (e.value == v)
            return e.name;
    return "?";
}

template <class T, std::size_t N> std::string choices(const T (&table)[N]) {
    std::string out;
    for (std::size_t i = 0; i < N; ++i) {
        if (i)
            out += i + 1 == N ? " or " : ", ";
        if constexpr (std::is_same_v<T, const char*>)
            out += std::string("\"") + table[i] + "\"";
        else
            out += std::string("\"") + table[i].name + "\"";
    }
    return out;
}

template <std::size_t N> bool oneOf(const std::string& s, const char* const (&table)[N]) {
    for (const char* t : table)
        if (s == t)
            return true;
    return false;
}

// ------------------------------------------------------------------------------------------------
// Typed access to JSON values, each error naming the field
// ------------------------------------------------------------------------------------------------

std::string typeName(const Json& v) {
    if (v.is_number_integer() || v.is_number_unsigned())
        return "an integer";
    if (v.is_number())
        return "a number";
    if (v.is_string())
        return "a string";
    if (v.is_boolean())
        return "a boolean";
    if (v.is_null())
        return "null";
    if (v.is_array())
        return "an array";
    return "an object";
}

double number(const Json& v, const std::string& path) {
    if (!v.is_number())
        fail(path, "must be a number, got " + typeName(v));
    const double d = v.get<double>();
    if (!std::isfinite(d))
        fail(path, "must be a finite number");
    return d;
}

int integer(const Json& v, const std::string& path) {
    if (v.is_number_integer()) {
        const auto i = v.get<std::int64_t>();
        if (i < -2147483647 || i > 2147483647)
            fail(path, "integer " + std::to_string(i) + " is out of range");
        return int(i);
    }
    if (v.is_number_unsigned())
        fail(path, "integer " + v.dump() + " is out of range");
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (d != std::floor(d))
            fail(path, "must be an integer, got " + num(d));
        if (std::fabs(d) > 2147483647.0)
            fail(path, "integer " + num(d) + " is out of range");
        return int(d);
    }
    fail(path, "must be an integer, got " + typeName(v));
}

std::string stringValue(const Json& v, const std::string& path) {
    if (!v.is_string())
        fail(path, "must be a string, got " + typeName(v));
    return v.get<std::string>();
}

bool boolean(const Json& v, const std::string& path) {
    if (!v.is_boolean())
        fail(path, "must be true or false, got " + typeName(v));
    return v.get<bool>();
}

const Json& arrayValue(const Json& v, const std::string& path) {
    if (!v.is_array())
        fail(path, "must be an array, got " + typeName(v));
    return v;
}

Vec3 vec3(const Json& v, const std::string& path) {
    if (!v.is_array() || v.size() != 3)
        fail(path, "must be an array of 3 numbers [x, y, z], got " +
                       (v.is_array() ? "an array of " + std::to_string(v.size()) : typeName(v)));
    Vec3 r{};
    for (std::size_t i = 0; i < 3; ++i)
        r[i] = number(v[i], item(path, i));
    return r;
}

std::array<int, 3> ivec3(const Json& v, const std::string& path) {
    if (!v.is_array() || v.size() != 3)
        fail(path, "must be an array of 3 integers, got " +
                       (v.is_array() ? "an array of " + std::to_string(v.size()) : typeName(v)));
    std::array<int, 3> r{};
    for (std::size_t i = 0; i < 3; ++i)
        r[i] = integer(v[i], item(path, i));
    return r;
}

std::vector<double> numbers(const Json& v, const std::string& path) {
    arrayValue(v, path);
    std::vector<double> r;
    r.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        r.push_back(number(v[i], item(path, i)));
    return r;
}

template <class E, std::size_t N>
E enumValue(const Json& v, const std::string& path, const EnumName<E> (&table)[N]) {
    const std::string s = stringValue(v, path);
    for (const auto& e : table)
        if (s == e.name)
            return e.value;
    fail(path, "unknown value " + dq(s) + " (expected " + choices(table) + ")");
}

int axisValue(const Json& v, const std::string& path) {
    const std::string s = stringValue(v, path);
    for (int a = 0; a < 3; ++a)
        if (s == kAxisNames[a])
            return a;
    fail(path, "unknown axis " + dq(s) + " (expected \"x\", \"y\" or \"z\")");
}

/// "+x".."-z" -> (normal axis, sign).
std::pair<int, int> directionValue(const Json& v, const std::string& path) {
    const std::string s = stringValue(v, path);
    if (s.size() == 2 && (s[0] == '+' || s[0] == '-'))
        for (int a = 0; a < 3; ++a)
            if (s[1] == kAxisNames[a][0])
                return {a, s[0] == '-' ? -1 : +1};
    fail(path, "unknown direction " + dq(s) + " (expected \"+x\", \"-x\", \"+y\", \"-y\", \"+z\" or \"-z\")");
}

/// "x" | "y" | "z" | [px, py, pz].
Vec3 polarizationValue(const Json& v, const std::string& path) {
    if (v.is_string()) {
        const int a = axisValue(v, path);
        Vec3 p{0, 0, 0};
        p[std::size_t(a)] = 1;
        return p;
    }
    if (v.is_array())
        return vec3(v, path);
    fail(path, "must be \"x\", \"y\", \"z\" or [px, py, pz], got " + typeName(v));
}

/// Why a key is not accepted here (empty: it is simply unknown).
using KeyHint = std::function<std::string(const std::string&)>;

/// A JSON object being read: typed lookups, and a whitelist of keys checked before any value is read,
/// so that a misspelt key is reported as such rather than as a missing one.
class Obj {
public:
    Obj(const Json& j, std::string path) : j_(j), path_(std::move(path)) {
        if (!j.is_object())
            fail(path_.empty() ? std::string("scene") : path_, "must be an object, got " + typeName(j));
    }

    const std::string& path() const { return path_; }
    std::string at(std::string_view key) const { return join(path_, key); }
    const Json* find(const std::string& key) const {
        auto it = j_.find(key);
        return it == j_.end() ? nullptr : &it.value();
    }
    bool has(const std::string& key) const { return find(key) != nullptr; }
    const Json& req(const std::string& key) const {
        const Json* v = find(key);
        if (!v)
            fail(at(key), "missing (required)");
        return *v;
    }

    /// Refuse every key not in `allowed`. `hint` may explain keys that belong elsewhere.
    void allow(std::initializer_list<std::string_view> allowed, const KeyHint& hint = {}) const {
        for (auto it = j_.begin(); it != j_.end(); ++it) {
            const std::string& k = it.key();
            if (std::find(allowed.begin(), allowed.end(), k) != allowed.end())
                continue;
            std::string why = hint ? hint(k) : std::string();
            if (why.empty()) {
                why = "unknown key";
                std::size_t best = 3;
                std::string_view guess;
                for (auto a : allowed) {
                    const std::size_t d = editDistance(k, a);
                    if (d < best && d < a.size() / 2 + 1) {
                        best = d;
                        guess = a;
                    }
                }
                if (!guess.empty())
                    why += " (did you mean " + dq(guess) + "?)";
            }
            fail(at(k), why);
        }
    }

    double num(const std::string& k, double def) const { return has(k) ? number(req(k), at(k)) : def; }
    double num(const std::string& k) const { return number(req(k), at(k)); }
    int integer(const std::string& k, int def) const { return has(k) ? scene::integer(req(k), at(k)) : def; }
    int integer(const std::string& k) const { return scene::integer(req(k), at(k)); }
    std::string str(const std::string& k, const std::string& def) const {
        return has(k) ? stringValue(req(k), at(k)) : def;
    }
    std::string str(const std::string& k) const { return stringValue(req(k), at(k)); }
    Vec3 vec(const std::string& k, const Vec3& def) const { return has(k) ? vec3(req(k), at(k)) : def; }
    Vec3 vec(const std::string& k) const { return vec3(req(k), at(k)); }
    Obj obj(const std::string& k) const { return Obj(req(k), at(k)); }
    template <class E, std::size_t N> E enumOf(const std::string& k, const EnumName<E> (&table)[N]) const {
        return enumValue(req(k), at(k), table);
    }
    template <class E, std::size_t N>
    E enumOf(const std::string& k, const EnumName<E> (&table)[N], E def) const {
        return has(k) ? enumValue(req(k), at(k), table) : def;
    }

private:
    const Json& j_;
    std::string path_;
};

/// Hint for keys that exist for other variants: `not used by shape "box"`.
KeyHint usedElsewhere(std::initializer_list<std::string_view> otherKeys, std::string what) {
    std::vector<std::string> keys(otherKeys.begin(), otherKeys.end());
    return [keys, what](const std::string& k) {
        return std::find(keys.begin(), keys.end(), k) != keys.end() ? "not used by " + what : std::string();
    };
}

// ------------------------------------------------------------------------------------------------
// JSON text -> tree, refusing duplicate keys (the JSON standard leaves them undefined)
// ------------------------------------------------------------------------------------------------

Json parseText(const std::string& text) {
    // Tracks where the parser is, to name duplicate keys and refuse absurd nesting. Paths are built
    // only when an error is reported, so deep documents cost linear memory.
    constexpr std::size_t kMaxDepth = 64;
    struct Frame {
        bool object = false;
        std::set<std::string> keys;
        std::string key;
        std::size_t index = 0;
    };
    std::vector<Frame> stack;
    auto pathOf = [&](std::size_t depth) {
        std::string path;
        for (std::size_t i = 0; i < depth; ++i)
            path = stack[i].object ? join(path, stack[i].key) : item(path, stack[i].index);
        return path;
    };
    auto elementDone = [&]() {
        if (!stack.empty() && !stack.back().object)
            ++stack.back().index;
    };
    Json::parser_callback_t cb = [&](int, Json::parse_event_t ev, Json& parsed) {
        switch (ev) {
        case Json::parse_event_t::object_start:
        case Json::parse_event_t::array_start: {
            if (stack.size() >= kMaxDepth)
                fail("", "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
            Frame f;
            f.object = ev == Json::parse_event_t::object_start;
            stack.push_back(std::move(f));
            break;
        }
        case Json::parse_event_t::key: {
            Frame& f = stack.back();
            f.key = parsed.get<std::string>();
            if (!f.keys.insert(f.key).second)
                fail(pathOf(stack.size()), "duplicate key");
            break;
        }
        case Json::parse_event_t::object_end:
        case Json::parse_event_t::array_end:
            stack.pop_back();
            elementDone();
            break;
        case Json::parse_event_t::value:
            elementDone();
            break;
        }
        return true;
    };
    try {
        return Json::parse(text, cb);
    } catch (const Json::parse_error& e) {
        // e.what(): "[json.exception.parse_error.101] parse error at line 3, column 14: syntax error ..."
        std::string w = e.what();
        const auto p = w.find("] ");
        if (p != std::string::npos)
            w = w.substr(p + 2);
        fail("", "JSON " + printable(w, 240, false));
    } catch (const Json::exception& e) {
        std::string w = e.what();
        const auto p = w.find("] ");
        if (p != std::string::npos)
            w = w.substr(p + 2);
        fail("", "JSON error: " + printable(w, 240, false));
    }
}

// ------------------------------------------------------------------------------------------------
// HDF5 sidecar arrays
// ------------------------------------------------------------------------------------------------

/// Silences HDF5's automatic error printing for its lifetime (restores the previous handler).
class H5Quiet {
public:
    H5Quiet() {
        H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~H5Quiet() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
    H5Quiet(const H5Quiet&) = delete;
    H5Quiet& operator=(const H5Quiet&) = delete;

private:
    H5E_auto2_t func_ = nullptr;
    void* data_ = nullptr;
};

/// Owns an HDF5 identifier.
class H5Id {
public:
    H5Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
    ~H5Id() {
        if (id_ >= 0)
            close_(id_);
    }
    H5Id(const H5Id&) = delete;
    H5Id& operator=(const H5Id&) = delete;
    hid_t get() const { return id_; }
    bool ok() const { return id_ >= 0; }

private:
    hid_t id_;
    herr_t (*close_)(hid_t);
};

constexpr std::uint64_t kMaxLatent = std::uint64_t(1) << 28;

/// Split "file.h5:/dataset" at the last ":/".
std::pair<std::string, std::string> splitParams(const std::string& params, const std::string& path) {
    const auto p = params.rfind(":/");
    if (p == std::string::npos || p == 0)
        fail(path, dq(params) + " is not a sidecar reference (expected \"file.h5:/dataset\")");
    return {params.substr(0, p), params.substr(p + 1)};
}

/// Read a numeric dataset as doubles. `dims` receives its shape (C order).
std::vector<double> readDataset(const std::string& file, const std::string& dataset, const std::string& path,
                                std::vector<std::uint64_t>& dims) {
    std::error_code ec;
    if (!fs::is_regular_file(fs::u8path(file), ec))
        fail(path, "cannot find sidecar file " + dq(file));
    H5Quiet quiet;
    H5Id f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!f.ok())
        fail(path, dq(file) + " is not a readable HDF5 file");
    H5Id d(H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
    if (!d.ok())
        fail(path, "no dataset " + dq(dataset) + " in " + dq(file));
    H5Id type(H5Dget_type(d.get()), H5Tclose);
    const H5T_class_t cls = type.ok() ? H5Tget_class(type.get()) : H5T_NO_CLASS;
    if (cls != H5T_FLOAT && cls != H5T_INTEGER)
        fail(path, "dataset " + dq(dataset) + " does not hold numbers");
    H5Id space(H5Dget_space(d.get()), H5Sclose);
    const int rank = space.ok() ? H5Sget_simple_extent_ndims(space.get()) : -1;
    if (rank < 1 || rank > 3)
        fail(path,
             "dataset " + dq(dataset) + " must have 1 to 3 dimensions (has " + std::to_string(rank) + ")");
    hsize_t h[3] = {0, 0, 0};
    H5Sget_simple_extent_dims(space.get(), h, nullptr);
    std::uint64_t count = 1;
    dims.assign(h, h + rank);
    for (int r = 0; r < rank; ++r) {
        count *= h[r];
        if (count > kMaxLatent)
            fail(path, "dataset " + dq(dataset) + " is too large");
    }
    std::vector<double> data(count);
    if (count > 0 && H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0)
        fail(path, "cannot read dataset " + dq(dataset) + " from " + dq(file));
    return data;
}

std::string uniqueTempName(const fs::path& target) {
    std::random_device rd;
    char b[32];
    std::snprintf(b, sizeof b, ".tmp-%08x", unsigned(rd()));
    return target.string() + b;
}

/// One dataset of a sidecar file.
struct SidecarArray {
    std::string dataset;               ///< absolute path in the file
    std::vector<hsize_t> dims;         ///< C order
    const std::vector<double>* values; ///< not owned
};

/// Write the sidecar atomically (temporary file, then rename). Throws RunError.
void writeSidecar(const fs::path& file, const std::vector<SidecarArray>& arrays) {
    const std::string tmp = uniqueTempName(file);
    {
        H5Quiet quiet;
        H5Id f(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        if (!f.ok())
            throw RunError("cannot create " + file.string());
        bool ok = true;
        H5Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
        ok = ok && lcpl.ok() && H5Pset_create_intermediate_group(lcpl.get(), 1) >= 0;
        for (const auto& a : arrays) {
            if (!ok)
                break;
            H5Id space(H5Screate_simple(int(a.dims.size()), a.dims.data(), nullptr), H5Sclose);
            H5Id d(H5Dcreate2(f.get(), a.dataset.c_str(), H5T_IEEE_F64LE, space.get(), lcpl.get(),
                              H5P_DEFAULT, H5P_DEFAULT),
                   H5Dclose);
            ok = space.ok() && d.ok() &&
                 H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.values->data()) >= 0;
        }
        if (!ok) {
            std::error_code ec;
            fs::remove(tmp, ec);
            throw RunError("cannot write " + file.string());
        }
    }
    std::error_code ec;
    fs::rename(tmp, file, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw RunError("cannot write " + file.string() + ": " + ec.message());
    }
}

// ------------------------------------------------------------------------------------------------
// JSON -> Scene
// ------------------------------------------------------------------------------------------------

/// A design whose parameters live in a sidecar file, loaded after the whole scene is parsed.
struct PendingLoad {
    std::size_t design;
    std::string file, dataset, path;
};

Boundary parseBoundary(const Obj& o) {
    Boundary b;
    b.type = o.enumOf("type", kBoundaryTypes);
    if (b.type == BoundaryType::Pml) {
        o.allow({"type", "cells", "order", "sigma_factor", "kappa_max", "alpha_max"});
        b.cells = o.integer("cells", b.cells);
        b.order = o.num("order", b.order);
        b.sigmaFactor = o.num("sigma_factor", b.sigmaFactor);
        b.kappaMax = o.num("kappa_max", b.kappaMax);
        b.alphaMax = o.num("alpha_max", b.alphaMax);
    } else {
        o.allow({"type"}, usedElsewhere({"cells", "order", "sigma_factor", "kappa_max", "alpha_max"},
                                        "type " + dq(nameOf(kBoundaryTypes, b.type)) + " (PML only)"));
    }
    return b;
}

Object parseObject(const Obj& o) {
    Object ob;
    ob.shape = o.enumOf("shape", kShapes);
    const std::string what = "shape " + dq(nameOf(kShapes, ob.shape));
    const auto others = usedElsewhere({"size_um", "radius_um", "axis", "height_um", "vertices_um"}, what);
    switch (ob.shape) {
    case Shape::Box:
        o.allow({"name", "shape", "center_um", "size_um", "material"}, others);
        ob.size = o.vec("size_um");
        break;
    case Shape::Sphere:
        o.allow({"name", "shape", "center_um", "radius_um", "material"}, others);
        ob.radius = o.num("radius_um");
        break;
    case Shape::Cylinder:
        o.allow({"name", "shape", "center_um", "radius_um", "axis", "height_um", "material"}, others);
        ob.radius = o.num("radius_um");
        ob.axis = axisValue(o.req("axis"), o.at("axis"));
        ob.height = o.num("height_um");
        break;
    case Shape::Polygon:
        o.allow({"name", "shape", "center_um", "axis", "vertices_um", "height_um", "material"}, others);
        ob.axis = axisValue(o.req("axis"), o.at("axis"));
        ob.height = o.num("height_um");
        {
            const std::string vp = o.at("vertices_um");
            const Json& vs = arrayValue(o.req("vertices_um"), vp);
            for (std::size_t i = 0; i < vs.size(); ++i) {
                const std::string ip = item(vp, i);
                if (!vs[i].is_array() || vs[i].size() != 2)
                    fail(ip, "must be a pair of numbers [u, v]");
                ob.vertices.push_back({number(vs[i][0], item(ip, 0)), number(vs[i][1], item(ip, 1))});
            }
        }
        break;
    }
    ob.name = o.str("name", "");
    ob.material = o.str("material");
    if (ob.shape == Shape::Polygon) {
        // The in-plane position comes from the vertices; center_um may repeat it, must not contradict it.
        const auto [lo, hi] = objectBounds(ob);
        Vec3 c{};
        for (int a = 0; a < 3; ++a)
            c[a] = 0.5 * (lo[a] + hi[a]);
        c[ob.axis] = 0;
        if (o.has("center_um")) {
            const Vec3 given = o.vec("center_um");
            for (int a = 0; a < 3; ++a) {
                if (a == ob.axis || ob.vertices.empty())
                    continue;
                if (std::fabs(given[a] - c[a]) > 1e-9 * std::max(1.0, std::fabs(c[a])))
                    fail(item(o.at("center_um"), std::size_t(a)),
                         num(given[a]) + " contradicts vertices_um, whose bounding box is centred at " +
                             num(c[a]) + " (a polygon's in-plane position is given by its vertices)");
            }
            c[ob.axis] = given[ob.axis];
        }
        ob.center = c;
        const auto [lo2, hi2] = objectBounds(ob);
        for (int a = 0; a < 3; ++a)
            ob.size[a] = hi2[a] - lo2[a];
    } else {
        ob.center = o.vec("center_um");
        if (ob.shape == Shape::Sphere)
            ob.size = {2 * ob.radius, 2 * ob.radius, 2 * ob.radius};
        if (ob.shape == Shape::Cylinder) {
            ob.size = {2 * ob.radius, 2 * ob.radius, 2 * ob.radius};
            ob.size[ob.axis] = ob.height;
        }
    }
    return ob;
}

Profile parseProfile(const Obj& o) {
    Profile p;
    p.type = o.enumOf("type", kProfileTypes, ProfileType::GaussianPulse);
    if (p.type == ProfileType::GaussianPulse) {
        o.allow({"type", "wavelength_um", "bandwidth_um", "delay_fs", "amplitude", "phase"},
                usedElsewhere({"ramp_fs"}, "type \"gaussian_pulse\" (cw only)"));
        p.bandwidth = o.num("bandwidth_um", p.bandwidth);
        if (o.has("delay_fs")) {
            p.delay = o.num("delay_fs");
            if (p.delay < 0)
                fail(o.at("delay_fs"), "must be >= 0 (leave it out for an automatic delay)");
        }
    } else {
        o.allow({"type", "wavelength_um", "ramp_fs", "amplitude", "phase"},
                usedElsewhere({"bandwidth_um", "delay_fs"}, "type \"cw\" (gaussian_pulse only)"));
        p.ramp = o.num("ramp_fs", p.ramp);
    }
    p.wavelength = o.num("wavelength_um");
    p.amplitude = o.num("amplitude", p.amplitude);
    p.phase = o.num("phase", p.phase);
    return p;
}

Source parseSource(const Obj& o) {
    Source s;
    s.type = o.enumOf("type", kSourceTypes);
    const std::string what = "type " + dq(nameOf(kSourceTypes, s.type));
    KeyHint hint = [what](const std::string& k) -> std::string {
        if (k == "size_um" || k == "direction" || k == "waist_um")
            return "not used by " + what;
        if (k == "amplitude" || k == "wavelength_um" || k == "bandwidth_um" || k == "phase")
            return "unknown key (" + k + " belongs in \"profile\")";
        return "";
    };
    switch (s.type) {
    case SourceType::PointDipole:
        o.allow({"name", "type", "center_um", "polarization", "profile"}, hint);
        break;
    case SourceType::GaussianPlane:
        o.allow({"name", "type", "center_um", "size_um", "direction", "polarization", "waist_um", "profile"},
                hint);
        break;
    case SourceType::UniformPlane:
        o.allow({"name", "type", "center_um", "size_um", "direction", "polarization", "profile"}, hint);
        break;
    }
    s.name = o.str("name", "");
    s.center = o.vec("center_um");
    s.polarization = polarizationValue(o.req("polarization"), o.at("polarization"));
    if (s.type != SourceType::PointDipole) {
        s.size = o.vec("size_um");
        std::tie(s.normal, s.direction) = directionValue(o.req("direction"), o.at("direction"));
    }
    if (s.type == SourceType::GaussianPlane)
        s.waist = o.num("waist_um");
    s.profile = parseProfile(o.obj("profile"));
    return s;
}

std::vector<std::string> parseComponents(const Json& v, const std::string& path) {
    arrayValue(v, path);
    std::vector<std::string> r;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string c = stringValue(v[i], item(path, i));
        if (!oneOf(c, kComponentNames))
            fail(item(path, i), "unknown field component " + dq(c) + " (expected \"Ex\" .. \"Hz\")");
        r.push_back(c);
    }
    return r;
}

Detector parseDetector(const Obj& o) {
    Detector d;
    d.type = o.enumOf("type", kDetectorTypes);
    const std::string what = "type " + dq(nameOf(kDetectorTypes, d.type));
    const auto hint =
        usedElsewhere({"size_um", "direction", "wavelengths_um", "components", "every", "downsample"}, what);
    switch (d.type) {
    case DetectorType::Snapshot:
        o.allow({"name", "type", "center_um", "size_um", "components", "every", "downsample"}, hint);
        break;
    case DetectorType::Flux:
        o.allow({"name", "type", "center_um", "size_um", "direction", "wavelengths_um", "every"}, hint);
        break;
    case DetectorType::Energy:
        o.allow({"name", "type", "center_um", "size_um", "every"}, hint);
        break;
    case DetectorType::Phasor:
        o.allow({"name", "type", "center_um", "size_um", "components", "wavelengths_um"}, hint);
        break;
    case DetectorType::Probe:
        o.allow({"name", "type", "center_um", "components", "every"}, hint);
        break;
    case DetectorType::FluxBox:
        o.allow({"name", "type", "center_um", "size_um", "wavelengths_um", "every"}, hint);
        break;
    }
    d.name = o.str("name");
    d.center = o.vec("center_um");
    if (d.type != DetectorType::Probe)
        d.size = o.vec("size_um");
    if (d.type == DetectorType::Flux)
        std::tie(d.normal, d.direction) = directionValue(o.req("direction"), o.at("direction"));
    if ((d.type == DetectorType::Flux || d.type == DetectorType::FluxBox) && o.has("wavelengths_um"))
        d.wavelengths = numbers(o.req("wavelengths_um"), o.at("wavelengths_um"));
    if (d.type == DetectorType::Phasor)
        d.wavelengths = numbers(o.req("wavelengths_um"), o.at("wavelengths_um"));
    if (d.type == DetectorType::Snapshot || d.type == DetectorType::Phasor || d.type == DetectorType::Probe)
        d.components = o.has("components") ? parseComponents(o.req("components"), o.at("components"))
                                           : std::vector<std::string>{"Ex", "Ey", "Ez"};
    d.every = o.integer("every", d.every);
    d.downsample = o.integer("downsample", d.downsample);
    return d;
}

Design parseDesign(const Obj& o, std::size_t index, std::vector<PendingLoad>& pending,
                   const std::string& baseDir) {
    o.allow({"name", "center_um", "size_um", "voxel_cells", "materials", "filter_radius_um", "projection",
             "params", "latent"});
    Design g;
    g.name = o.str("name");
    g.center = o.vec("center_um");
    g.size = o.vec("size_um");
    if (o.has("voxel_cells"))
        g.voxelCells = ivec3(o.req("voxel_cells"), o.at("voxel_cells"));
    {
        const std::string mp = o.at("materials");
        const Json& m = o.req("materials");
        if (!m.is_array() || m.size() != 2)
            fail(mp, "must be an array of 2 material names [rho = 0, rho = 1]");
        g.materials = {stringValue(m[0], item(mp, 0)), stringValue(m[1], item(mp, 1))};
    }
    g.filterRadius = o.num("filter_radius_um", g.filterRadius);
    if (o.has("projection")) {
        const Obj p = o.obj("projection");
        p.allow({"beta", "eta"});
        g.beta = p.num("beta", g.beta);
        g.eta = p.num("eta", g.eta);
    }
    if (o.has("params") && o.has("latent"))
        fail(o.at("latent"), "give either \"params\" or \"latent\", not both");
    if (o.has("params")) {
        g.params = o.str("params");
        auto [file, dataset] = splitParams(g.params, o.at("params"));
        fs::path fp = fs::u8path(file);
        if (fp.is_relative())
            fp = fs::u8path(baseDir.empty() ? std::string(".") : baseDir) / fp;
        pending.push_back({index, fp.string(), dataset, o.at("params")});
    }
    if (o.has("latent"))
        g.latent = numbers(o.req("latent"), o.at("latent"));
    return g;
}

ObjectiveTerm parseTerm(const Obj& o) {
    ObjectiveTerm t;
    t.detector = o.str("detector");
    t.quantity = o.enumOf("quantity", kQuantities);
    const Reduce def = t.quantity == Quantity::Flux     ? Reduce::TimeIntegral
                       : t.quantity == Quantity::Energy ? Reduce::Final
                                                        : Reduce::AtWavelength;
    t.reduce = o.enumOf("reduce", kReduces, def);
    if (t.reduce == Reduce::AtWavelength) {
        o.allow({"detector", "quantity", "reduce", "wavelength_um", "weight"});
        t.wavelength = o.num("wavelength_um");
    } else {
        o.allow({"detector", "quantity", "reduce", "weight"},
                usedElsewhere({"wavelength_um"},
                              "reduce " + dq(nameOf(kReduces, t.reduce)) + " (at_wavelength only)"));
    }
    t.weight = o.num("weight", t.weight);
    return t;
}

GradientConfig parseGradient(const Obj& o) {
    GradientConfig g;
    g.method = o.enumOf("method", kMethods, g.method);
    switch (g.method) {
    case GradientMethod::Full:
        o.allow(
            {"method", "storage"},
            usedElsewhere({"num_checkpoints", "num_checkpoints_reversible", "recorder"}, "method \"full\""));
        break;
    case GradientMethod::Checkpointed:
        o.allow({"method", "num_checkpoints", "storage"},
                usedElsewhere({"num_checkpoints_reversible", "recorder"}, "method \"checkpointed\""));
        break;
    case GradientMethod::Reversible:
        o.allow({"method", "num_checkpoints_reversible", "recorder", "storage"},
                usedElsewhere({"num_checkpoints"}, "method \"reversible\" (see num_checkpoints_reversible)"));
        break;
    }
    g.numCheckpoints = o.integer("num_checkpoints", g.numCheckpoints);
    g.numCheckpointsReversible = o.integer("num_checkpoints_reversible", g.numCheckpointsReversible);
    if (o.has("recorder")) {
        const std::string rp = o.at("recorder");
        const Json& r = arrayValue(o.req("recorder"), rp);
        for (std::size_t i = 0; i < r.size(); ++i) {
            const Obj m(r[i], item(rp, i));
            RecorderModule rm;
            rm.module = m.str("module");
            if (rm.module == "LinearReconstructEveryK") {
                m.allow({"module", "k", "start_after"},
                        usedElsewhere({"dtype"}, "module \"LinearReconstructEveryK\""));
                rm.k = m.integer("k");
                rm.startAfter = m.integer("start_after", 0);
            } else if (rm.module == "DtypeConversion") {
                m.allow({"module", "dtype"},
                        usedElsewhere({"k", "start_after"}, "module \"DtypeConversion\""));
                rm.dtype = m.str("dtype");
            } else {
                fail(m.at("module"), "unknown recorder module " + dq(rm.module) + " (expected " +
                                         choices(kRecorderModules) + ")");
            }
            g.recorder.push_back(rm);
        }
    }
    if (o.has("storage")) {
        const Obj st = o.obj("storage");
        g.tier = st.str("tier", g.tier);
        if (g.tier == "disk")
            st.allow({"tier", "transfer_interval", "ring_buffers", "path"});
        else if (g.tier == "host")
            st.allow({"tier", "transfer_interval", "ring_buffers"}, usedElsewhere({"path"}, "tier \"host\""));
        else
            st.allow({"tier"},
                     usedElsewhere({"transfer_interval", "ring_buffers", "path"}, "tier " + dq(g.tier)));
        g.transferInterval = st.integer("transfer_interval", g.transferInterval);
        g.ringBuffers = st.integer("ring_buffers", g.ringBuffers);
        g.diskPath = st.str("path", g.diskPath);
    }
    return g;
}

RunConfig parseRun(const Obj& o) {
    o.allow({"tiles", "devices", "precision", "overlap"});
    RunConfig r;
    if (o.has("tiles"))
        r.tiles = ivec3(o.req("tiles"), o.at("tiles"));
    r.devices = o.str("devices", r.devices);
    r.precision = o.str("precision", r.precision);
    if (o.has("overlap"))
        r.overlap = boolean(o.req("overlap"), o.at("overlap"));
    return r;
}

/// Loads the sidecar arrays of `pending` into the designs, checking the shape when it is known.
void loadPending(Scene& s, const std::vector<PendingLoad>& pending) {
    const bool gridKnown = std::isfinite(s.cellUm) && s.cellUm > 0;
    for (const auto& p : pending) {
        std::vector<std::uint64_t> dims;
        Design& g = s.designs[p.design];
        g.latent = readDataset(p.file, p.dataset, p.path, dims);
        if (gridKnown && dims.size() == 3) {
            const auto v = s.designVoxels(p.design);
            const std::uint64_t want[3] = {std::uint64_t(v[2]), std::uint64_t(v[1]), std::uint64_t(v[0])};
            if (dims[0] != want[0] || dims[1] != want[1] || dims[2] != want[2])
                fail(p.path, "dataset " + dq(p.dataset) + " has shape [" + std::to_string(dims[0]) + ", " +
                                 std::to_string(dims[1]) + ", " + std::to_string(dims[2]) +
                                 "] but the design has [nz, ny, nx] = [" + std::to_string(want[0]) + ", " +
                                 std::to_string(want[1]) + ", " + std::to_string(want[2]) + "] voxels");
        }
    }
}

Scene fromJson(const Json& root, const std::string& baseDir) {
    const Obj o(root, "");
    if (!o.has("format"))
        fail("format", "missing (a scene file starts with \"format\": \"yee-scene\", \"version\": 1)");
    const std::string format = o.str("format");
    if (format != kFormatName)
        fail("format", dq(format) + " is not a Yee Studio scene (expected \"" + kFormatName + "\")");
    const int version = o.integer("version");
    if (version != kFormatVersion)
        fail("version", std::to_string(version) + " is not supported (this build reads version " +
                            std::to_string(kFormatVersion) + ")");
    o.allow({"format", "version", "name", "grid", "domain", "time", "boundaries", "materials", "background",
             "objects", "sources", "detectors", "designs", "objective", "gradient", "run"});

    Scene s;
    s.name = o.str("name", "");
    {
        const Obj g = o.obj("grid");
        g.allow({"cell_um", "courant"});
        s.cellUm = g.num("cell_um");
        s.courant = g.num("courant", s.courant);
    }
    {
        const Obj d = o.obj("domain");
        d.allow({"center_um", "size_um"});
        s.domainCenter = d.vec("center_um", s.domainCenter);
        s.domainSize = d.vec("size_um");
    }
    if (o.has("time")) {
        const Obj t = o.obj("time");
        t.allow({"duration_fs"});
        s.durationFs = t.num("duration_fs");
    }
    if (o.has("boundaries")) {
        const Obj b = o.obj("boundaries");
        b.allow({"x", "y", "z"});
        for (int a = 0; a < 3; ++a)
            if (b.has(kAxisNames[a]))
                s.boundaries[std::size_t(a)] = parseBoundary(b.obj(kAxisNames[a]));
    }
    if (o.has("materials")) {
        const Json& m = o.req("materials");
        if (!m.is_object())
            fail("materials", "must be an object {name: {eps, mu, sigma_S_per_m}}, got " + typeName(m));
        for (auto it = m.begin(); it != m.end(); ++it) {
            const Obj mo(it.value(), join("materials", it.key()));
            mo.allow({"eps", "mu", "sigma_S_per_m"});
            Material mat;
            mat.name = it.key();
            mat.eps = mo.num("eps", mat.eps);
            mat.mu = mo.num("mu", mat.mu);
            mat.sigma = mo.num("sigma_S_per_m", mat.sigma);
            s.materials.push_back(mat);
        }
    }
    s.background = o.str("background", "");
    auto list = [&](const char* key, auto&& each) {
        if (!o.has(key))
            return;
        const Json& a = arrayValue(o.req(key), key);
        for (std::size_t i = 0; i < a.size(); ++i)
            each(Obj(a[i], item(key, i)), i);
    };
    list("objects", [&](const Obj& e, std::size_t) { s.objects.push_back(parseObject(e)); });
    list("sources", [&](const Obj& e, std::size_t) { s.sources.push_back(parseSource(e)); });
    list("detectors", [&](const Obj& e, std::size_t) { s.detectors.push_back(parseDetector(e)); });
    std::vector<PendingLoad> pending;
    list("designs",
         [&](const Obj& e, std::size_t i) { s.designs.push_back(parseDesign(e, i, pending, baseDir)); });
    if (o.has("objective")) {
        const Obj ob = o.obj("objective");
        ob.allow({"goal", "terms"});
        s.objective.maximize = ob.enumOf("goal", kGoals, true);
        const Json& t = arrayValue(ob.req("terms"), ob.at("terms"));
        if (t.empty())
            fail(ob.at("terms"), "must not be empty (leave out \"objective\" for a forward-only scene)");
        for (std::size_t i = 0; i < t.size(); ++i)
            s.objective.terms.push_back(parseTerm(Obj(t[i], item(ob.at("terms"), i))));
    }
    if (o.has("gradient"))
        s.gradient = parseGradient(o.obj("gradient"));
    if (o.has("run"))
        s.run = parseRun(o.obj("run"));
    loadPending(s, pending);
    return s;
}

// ------------------------------------------------------------------------------------------------
// Scene -> JSON
// ------------------------------------------------------------------------------------------------

Json jvec(const Vec3& v) {
    return Json::array({v[0], v[1], v[2]});
}
Json jivec(const std::array<int, 3>& v) {
    return Json::array({v[0], v[1], v[2]});
}

Json polarizationJson(const Vec3& p) {
    for (int a = 0; a < 3; ++a) {
        Vec3 unit{0, 0, 0};
        unit[std::size_t(a)] = 1;
        if (p == unit)
            return kAxisNames[a];
    }
    return jvec(p);
}

enum class LatentMode { Reference, Inline };

Json toJson(const Scene& s, LatentMode latentMode) {
    Json j;
    j["format"] = kFormatName;
    j["version"] = kFormatVersion;
    j["name"] = s.name;
    j["grid"] = {{"cell_um", s.cellUm}, {"courant", s.courant}};
    j["domain"] = {{"center_um", jvec(s.domainCenter)}, {"size_um", jvec(s.domainSize)}};
    j["time"] = {{"duration_fs", s.durationFs}};
    Json b = Json::object();
    for (int a = 0; a < 3; ++a) {
        const Boundary& bd = s.boundaries[std::size_t(a)];
        Json e = {{"type", nameOf(kBoundaryTypes, bd.type)}};
        if (bd.type == BoundaryType::Pml) {
            e["cells"] = bd.cells;
            e["order"] = bd.order;
            e["sigma_factor"] = bd.sigmaFactor;
            e["kappa_max"] = bd.kappaMax;
            e["alpha_max"] = bd.alphaMax;
        }
        b[kAxisNames[a]] = e;
    }
    j["boundaries"] = b;
    Json m = Json::object();
    for (const auto& mat : s.materials)
        m[mat.name] = {{"eps", mat.eps}, {"mu", mat.mu}, {"sigma_S_per_m", mat.sigma}};
    j["materials"] = m;
    j["background"] = s.background;

    Json objs = Json::array();
    for (const auto& ob : s.objects) {
        Json e;
        if (!ob.name.empty())
            e["name"] = ob.name;
        e["shape"] = nameOf(kShapes, ob.shape);
        e["center_um"] = jvec(ob.center);
        switch (ob.shape) {
        case Shape::Box:
            e["size_um"] = jvec(ob.size);
            break;
        case Shape::Sphere:
            e["radius_um"] = ob.radius;
            break;
        case Shape::Cylinder:
            e["radius_um"] = ob.radius;
            e["axis"] = axisName(ob.axis);
            e["height_um"] = ob.height;
            break;
        case Shape::Polygon: {
            e["axis"] = axisName(ob.axis);
            e["height_um"] = ob.height;
            Json vs = Json::array();
            for (const auto& v : ob.vertices)
                vs.push_back(Json::array({v[0], v[1]}));
            e["vertices_um"] = vs;
            break;
        }
        }
        e["material"] = ob.material;
        objs.push_back(e);
    }
    j["objects"] = objs;

    Json srcs = Json::array();
    for (const auto& src : s.sources) {
        Json e;
        if (!src.name.empty())
            e["name"] = src.name;
        e["type"] = nameOf(kSourceTypes, src.type);
        e["center_um"] = jvec(src.center);
        if (src.type != SourceType::PointDipole) {
            e["size_um"] = jvec(src.size);
            e["direction"] = directionName(src.normal, src.direction);
        }
        e["polarization"] = polarizationJson(src.polarization);
        if (src.type == SourceType::GaussianPlane)
            e["waist_um"] = src.waist;
        const Profile& p = src.profile;
        Json pj = {{"type", nameOf(kProfileTypes, p.type)}, {"wavelength_um", p.wavelength}};
        if (p.type == ProfileType::GaussianPulse) {
            pj["bandwidth_um"] = p.bandwidth;
            if (p.delay >= 0)
                pj["delay_fs"] = p.delay;
        } else {
            pj["ramp_fs"] = p.ramp;
        }
        pj["amplitude"] = p.amplitude;
        pj["phase"] = p.phase;
        e["profile"] = pj;
        srcs.push_back(e);
    }
    j["sources"] = srcs;

    Json dets = Json::array();
    for (const auto& d : s.detectors) {
        Json e;
        e["name"] = d.name;
        e["type"] = nameOf(kDetectorTypes, d.type);
        e["center_um"] = jvec(d.center);
        if (d.type != DetectorType::Probe)
            e["size_um"] = jvec(d.size);
        if (d.type == DetectorType::Flux)
            e["direction"] = directionName(d.normal, d.direction);
        if (d.type == DetectorType::Flux || d.type == DetectorType::Phasor || d.type == DetectorType::FluxBox)
            e["wavelengths_um"] = d.wavelengths;
        if (d.type == DetectorType::Snapshot || d.type == DetectorType::Phasor ||
            d.type == DetectorType::Probe)
            e["components"] = d.components;
        if (d.type != DetectorType::Phasor)
            e["every"] = d.every;
        if (d.type == DetectorType::Snapshot)
            e["downsample"] = d.downsample;
        dets.push_back(e);
    }
    j["detectors"] = dets;

    Json des = Json::array();
    for (const auto& g : s.designs) {
        Json e;
        e["name"] = g.name;
        e["center_um"] = jvec(g.center);
        e["size_um"] = jvec(g.size);
        e["voxel_cells"] = jivec(g.voxelCells);
        e["materials"] = Json::array({g.materials[0], g.materials[1]});
        e["filter_radius_um"] = g.filterRadius;
        e["projection"] = {{"beta", g.beta}, {"eta", g.eta}};
        if (latentMode == LatentMode::Inline) {
            if (!g.latent.empty())
                e["latent"] = g.latent;
            else if (!g.params.empty())
                e["params"] = g.params;
        } else if (!g.params.empty()) {
            e["params"] = g.params;
        } else if (!g.latent.empty()) {
            e["latent"] = g.latent;
        }
        des.push_back(e);
    }
    j["designs"] = des;

    if (s.objective.defined()) {
        Json terms = Json::array();
        for (const auto& t : s.objective.terms) {
            Json e = {{"detector", t.detector},
                      {"quantity", nameOf(kQuantities, t.quantity)},
                      {"reduce", nameOf(kReduces, t.reduce)}};
            if (t.reduce == Reduce::AtWavelength)
                e["wavelength_um"] = t.wavelength;
            e["weight"] = t.weight;
            terms.push_back(e);
        }
        j["objective"] = {{"goal", nameOf(kGoals, s.objective.maximize)}, {"terms", terms}};
    }

    const GradientConfig& gc = s.gradient;
    Json gj = {{"method", nameOf(kMethods, gc.method)}};
    if (gc.method == GradientMethod::Checkpointed)
        gj["num_checkpoints"] = gc.numCheckpoints;
    if (gc.method == GradientMethod::Reversible) {
        gj["num_checkpoints_reversible"] = gc.numCheckpointsReversible;
        Json rec = Json::array();
        for (const auto& r : gc.recorder) {
            Json e = {{"module", r.module}};
            if (r.module == "DtypeConversion") {
                e["dtype"] = r.dtype;
            } else {
                e["k"] = r.k;
                e["start_after"] = r.startAfter;
            }
            rec.push_back(e);
        }
        gj["recorder"] = rec;
    }
    Json st = {{"tier", gc.tier}};
    if (gc.tier == "host" || gc.tier == "disk") {
        st["transfer_interval"] = gc.transferInterval;
        st["ring_buffers"] = gc.ringBuffers;
    }
    if (gc.tier == "disk")
        st["path"] = gc.diskPath;
    gj["storage"] = st;
    j["gradient"] = gj;

    j["run"] = {{"tiles", jivec(s.run.tiles)},
                {"devices", s.run.devices},
                {"precision", s.run.precision},
                {"overlap", s.run.overlap}};
    return j;
}

/// Compact JSON with a space after ':' and ',' (used for short containers of the pretty form).
void compact(const Json& j, std::string& out) {
    if (j.is_object()) {
        out += '{';
        bool first = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (!first)
                out += ", ";
            first = false;
            out += Json(it.key()).dump();
            out += ": ";
            compact(it.value(), out);
        }
        out += '}';
    } else if (j.is_array()) {
        out += '[';
        for (std::size_t i = 0; i < j.size(); ++i) {
            if (i)
                out += ", ";
            compact(j[i], out);
        }
        out += ']';
    } else {
        out += j.dump();
    }
}

/// Readable JSON: containers that fit on a line stay on one line, number arrays wrap like text.
void pretty(const Json& j, int indent, std::string& out) {
    constexpr std::size_t kWidth = 110;
    std::string one;
    compact(j, one);
    if (indent > 0 && (!j.is_structured() || one.size() + std::size_t(indent) <= kWidth)) {
        out += one;
        return;
    }
    const std::string pad(std::size_t(indent) + 2, ' ');
    if (j.is_object()) {
        out += "{\n";
        std::size_t i = 0;
        for (auto it = j.begin(); it != j.end(); ++it, ++i) {
            out += pad + Json(it.key()).dump() + ": ";
            pretty(it.value(), indent + 2, out);
            out += i + 1 < j.size() ? ",\n" : "\n";
        }
        out += std::string(std::size_t(indent), ' ') + "}";
        return;
    }
    const bool scalars = std::all_of(j.begin(), j.end(), [](const Json& e) { return !e.is_structured(); });
    out += "[\n";
    std::string line;
    for (std::size_t i = 0; i < j.size(); ++i) {
        const std::string sep = i + 1 < j.size() ? "," : "";
        if (scalars) {
            const std::string v = j[i].dump() + sep;
            if (!line.empty() && pad.size() + line.size() + 1 + v.size() > kWidth) {
                out += pad + line + "\n";
                line.clear();
            }
            line += (line.empty() ? "" : " ") + v;
        } else {
            out += pad;
            pretty(j[i], indent + 2, out);
            out += sep + "\n";
        }
    }
    if (!line.empty())
        out += pad + line + "\n";
    out += std::string(std::size_t(indent), ' ') + "]";
}

// ------------------------------------------------------------------------------------------------
// Validation
// ------------------------------------------------------------------------------------------------

constexpr int kMaxCellsPerAxis = 1 << 20;
constexpr int kMaxSteps = 1 << 30;
constexpr int kMaxDevices = 4096;

bool validName(const std::string& n) {
    if (n.empty() || n == "." || n == ".." || n.size() > 200)
        return false;
    for (unsigned char c : n)
        if (c < 0x20 || c == 0x7f || c == '/')
            return false;
    return true;
}

/// Number of devices a "run.devices" string names; 0 for "cuda:all"; throws if malformed.
int deviceCount(const std::string& dev) {
    const std::string path = "run.devices";
    const std::string bad =
        dq(dev) + " is not a device list (expected \"cpu:N\", \"cuda:0,1,...\" or \"cuda:all\")";
    auto parseInt = [&](const std::string& t) {
        if (t.empty() || t.size() > 6 ||
            !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
            fail(path, bad);
        return std::stoi(t);
    };
    if (dev.rfind("cpu:", 0) == 0) {
        const int n = parseInt(dev.substr(4));
        if (n < 1 || n > kMaxDevices)
            fail(path, "cpu device count must be in [1, " + std::to_string(kMaxDevices) + "]");
        return n;
    }
    if (dev == "cuda:all")
        return 0;
    if (dev.rfind("cuda:", 0) == 0) {
        std::set<int> ids;
        std::stringstream ss(dev.substr(5));
        std::string t;
        std::size_t commas = std::size_t(std::count(dev.begin(), dev.end(), ','));
        while (std::getline(ss, t, ',')) {
            const int id = parseInt(t);
            if (!ids.insert(id).second)
                fail(path, "GPU " + std::to_string(id) + " is listed twice");
        }
        if (ids.empty() || ids.size() != commas + 1)
            fail(path, bad);
        return int(ids.size());
    }
    fail(path, bad);
}

class Validator {
public:
    explicit Validator(const Scene& s) : s_(s) {}

    void run() {
        grid();
        materials();
        objects();
        sources();
        detectors();
        designs();
        objective();
        gradient();
        runConfig();
    }

private:
    const Scene& s_;
    std::array<int, 3> n_{};
    Vec3 lo_{}, hi_{}, ilo_{}, ihi_{};
    double tol_ = 0;

    void positive(double v, const std::string& path) const {
        if (!std::isfinite(v))
            fail(path, "must be a finite number");
        if (!(v > 0))
            fail(path, "must be > 0 (got " + num(v) + ")");
    }
    void nonNegative(double v, const std::string& path) const {
        if (!std::isfinite(v))
            fail(path, "must be a finite number");
        if (!(v >= 0))
            fail(path, "must be >= 0 (got " + num(v) + ")");
    }
    void finite(double v, const std::string& path) const {
        if (!std::isfinite(v))
            fail(path, "must be a finite number");
    }
    void finite(const Vec3& v, const std::string& path) const {
        for (std::size_t a = 0; a < 3; ++a)
            finite(v[a], item(path, a));
    }
    void atLeast(int v, int min, const std::string& path) const {
        if (v < min)
            fail(path, "must be >= " + std::to_string(min) + " (got " + std::to_string(v) + ")");
    }

    bool pointInside(const Vec3& p) const {
        for (int a = 0; a < 3; ++a)
            if (p[a] < lo_[a] - tol_ || p[a] > hi_[a] + tol_)
                return false;
        return true;
    }
    bool boxInside(const Vec3& c, const Vec3& sz, const Vec3& lo, const Vec3& hi) const {
        for (int a = 0; a < 3; ++a)
            if (c[a] - 0.5 * sz[a] < lo[a] - tol_ || c[a] + 0.5 * sz[a] > hi[a] + tol_)
                return false;
        return true;
    }
    /// First PML axis the box reaches into, or -1.
    int pmlAxisOf(const Vec3& c, const Vec3& sz) const {
        for (int a = 0; a < 3; ++a)
            if (s_.pmlCells(a) > 0 &&
                (c[a] - 0.5 * sz[a] < ilo_[a] - tol_ || c[a] + 0.5 * sz[a] > ihi_[a] + tol_))
                return a;
        return -1;
    }
    std::string pmlText(int a) const {
        return "the " + axisName(a) + " PML (" + std::to_string(s_.pmlCells(a)) +
               " cells per side; the interior spans [" + num(ilo_[a]) + ", " + num(ihi_[a]) + "] um)";
    }
    void wavelength(double w, const std::string& path) const {
        positive(w, path);
        if (w < 2 * s_.cellUm)
            fail(path,
                 num(w) + " um is below the grid's Nyquist limit (2 cells = " + num(2 * s_.cellUm) + " um)");
    }
    void uniqueName(std::set<std::string>& seen, const std::string& name, const std::string& path,
                    bool required) const {
        if (name.empty()) {
            if (required)
                fail(path, "must not be empty");
            return;
        }
        if (!validName(name))
            fail(path, dq(name) + " is not a valid name (no '/' or control characters)");
        if (!seen.insert(name).second)
            fail(path, dq(name) + " is used twice");
    }
    /// Plane (exactly one zero extent, agreeing with `normal`) checks shared by sources and flux.
    void plane(const Vec3& size, int normal, int sign, const std::string& base, const char* what) const {
        for (std::size_t a = 0; a < 3; ++a)
            nonNegative(size[a], item(base + ".size_um", a));
        int zeros = 0, zeroAxis = -1;
        for (int a = 0; a < 3; ++a)
            if (size[a] == 0) {
                ++zeros;
                zeroAxis = a;
            }
        if (zeros != 1)
            fail(base + ".size_um", std::string("a ") + what +
                                        " needs exactly one zero extent (its normal), got " + vecStr(size));
        if (zeroAxis != normal)
            fail(base + ".direction", dq(directionName(normal, sign)) + " is not normal to the " + what +
                                          " (size_um is zero along " + axisName(zeroAxis) + ")");
    }
    /// Plane inside the domain and outside every PML.
    void planeInInterior(const Vec3& c, const Vec3& size, int normal, const std::string& base,
                         const char* what) const {
        if (!pointInside(c))
            fail(base + ".center_um", vecStr(c) + " lies outside the domain");
        if (!boxInside(c, size, lo_, hi_))
            fail(base + ".size_um", std::string("the ") + what + " extends outside the domain");
        const int a = pmlAxisOf(c, size);
        if (a >= 0)
            fail(base + (a == normal ? ".center_um" : ".size_um"),
                 std::string("the ") + what + " reaches into " + pmlText(a) + "; move it into the interior");
    }

    void grid() {
        positive(s_.cellUm, "grid.cell_um");
        finite(s_.courant, "grid.courant");
        if (s_.courant > 1)
            fail("grid.courant", num(s_.courant) + " is unstable (must be in (0, 1])");
        if (!(s_.courant > 0))
            fail("grid.courant", "must be in (0, 1] (got " + num(s_.courant) + ")");
        finite(s_.domainCenter, "domain.center_um");
        for (std::size_t a = 0; a < 3; ++a) {
            const std::string p = item("domain.size_um", a);
            positive(s_.domainSize[a], p);
            const double cells = s_.domainSize[a] / s_.cellUm;
            if (!(cells < kMaxCellsPerAxis + 0.5))
                fail(p, num(s_.domainSize[a]) + " um is " + num(cells) + " cells, more than " +
                            std::to_string(kMaxCellsPerAxis) + " per axis");
            const double r = std::round(cells);
            if (r < 1)
                fail(p, num(s_.domainSize[a]) + " um is less than one cell (" + num(s_.cellUm) + " um)");
            if (std::fabs(cells - r) > 1e-6 * std::max(1.0, r))
                fail(p, num(s_.domainSize[a]) + " um is not a whole number of cells (" + num(cells) +
                            " cells of " + num(s_.cellUm) + " um)");
        }
        n_ = s_.gridCells();
        lo_ = s_.domainLo();
        for (int a = 0; a < 3; ++a)
            hi_[a] = lo_[a] + n_[a] * s_.cellUm;
        tol_ = 1e-6 * s_.cellUm;
        positive(s_.durationFs, "time.duration_fs");
        if (s_.durationFs / s_.dtFs() > kMaxSteps)
            fail("time.duration_fs", num(s_.durationFs) + " fs needs " + num(s_.durationFs / s_.dtFs()) +
                                         " steps (the limit is " + std::to_string(kMaxSteps) + ")");
        for (int a = 0; a < 3; ++a) {
            const Boundary& b = s_.boundaries[std::size_t(a)];
            const std::string p = std::string("boundaries.") + kAxisNames[a];
            if (b.type != BoundaryType::Pml)
                continue;
            atLeast(b.cells, 1, p + ".cells");
            if (2 * std::int64_t(b.cells) >= n_[a])
                fail(p + ".cells", "PML (" + std::to_string(b.cells) +
                                       " cells per side) is thicker than the domain allows (" +
                                       std::to_string(n_[a]) + " cells)");
            finite(b.order, p + ".order");
            if (b.order < 0 || b.order > 20)
                fail(p + ".order", "must be in [0, 20] (got " + num(b.order) + ")");
            nonNegative(b.sigmaFactor, p + ".sigma_factor");
            finite(b.kappaMax, p + ".kappa_max");
            if (b.kappaMax < 1)
                fail(p + ".kappa_max", "must be >= 1 (got " + num(b.kappaMax) + ")");
            nonNegative(b.alphaMax, p + ".alpha_max");
        }
        for (int a = 0; a < 3; ++a) {
            ilo_[a] = lo_[a] + s_.pmlCells(a) * s_.cellUm;
            ihi_[a] = hi_[a] - s_.pmlCells(a) * s_.cellUm;
        }
    }

    void materials() {
        std::set<std::string> seen;
        for (const auto& m : s_.materials) {
            const std::string p = join("materials", m.name);
            if (!validName(m.name))
                fail(p, "is not a valid material name");
            if (!seen.insert(m.name).second)
                fail(p, "is defined twice");
            finite(m.eps, p + ".eps");
            if (!(m.eps > 0))
                fail(p + ".eps", "must be > 0 (got " + num(m.eps) +
                                     "; metals: use sigma_S_per_m, dispersion is not supported)");
            positive(m.mu, p + ".mu");
            nonNegative(m.sigma, p + ".sigma_S_per_m");
        }
        if (!s_.background.empty() && !s_.findMaterial(s_.background))
            fail("background", "unknown material " + dq(s_.background));
    }

    void materialRef(const std::string& name, const std::string& path) const {
        if (name.empty())
            fail(path, "must name a material");
        if (!s_.findMaterial(name)) {
            std::string msg = "unknown material " + dq(name);
            std::size_t best = 3;
            std::string guess;
            for (const auto& m : s_.materials) {
                const std::size_t d = editDistance(name, m.name);
                if (d < best) {
                    best = d;
                    guess = m.name;
                }
            }
            if (!guess.empty())
                msg += " (did you mean " + dq(guess) + "?)";
            fail(path, msg);
        }
    }

    void objects() {
        for (std::size_t i = 0; i < s_.objects.size(); ++i) {
            const Object& o = s_.objects[i];
            const std::string p = item("objects", i);
            finite(o.center, p + ".center_um");
            switch (o.shape) {
            case Shape::Box:
                for (std::size_t a = 0; a < 3; ++a)
                    positive(o.size[a], item(p + ".size_um", a));
                break;
            case Shape::Sphere:
                positive(o.radius, p + ".radius_um");
                break;
            case Shape::Cylinder:
            case Shape::Polygon:
                if (o.axis < 0 || o.axis > 2)
                    fail(p + ".axis", "must be \"x\", \"y\" or \"z\"");
                if (o.shape == Shape::Cylinder)
                    positive(o.radius, p + ".radius_um");
                positive(o.height, p + ".height_um");
                break;
            }
            if (o.shape == Shape::Polygon) {
                if (o.vertices.size() < 3)
                    fail(p + ".vertices_um", "a polygon needs at least 3 vertices (got " +
                                                 std::to_string(o.vertices.size()) + ")");
                if (o.vertices.size() > 100000)
                    fail(p + ".vertices_um", "more than 100000 vertices");
                double area2 = 0;
                for (std::size_t v = 0; v < o.vertices.size(); ++v) {
                    const auto& a = o.vertices[v];
                    const auto& b = o.vertices[(v + 1) % o.vertices.size()];
                    finite(a[0], item(item(p + ".vertices_um", v), 0));
                    finite(a[1], item(item(p + ".vertices_um", v), 1));
                    area2 += a[0] * b[1] - a[1] * b[0];
                }
                if (!(std::fabs(area2) > 0))
                    fail(p + ".vertices_um", "the polygon has zero area");
            }
            materialRef(o.material, p + ".material");
            const auto [blo, bhi] = objectBounds(o);
            for (int a = 0; a < 3; ++a)
                if (!(bhi[a] > lo_[a] + tol_ && blo[a] < hi_[a] - tol_))
                    fail(p, "lies outside the domain");
            for (int a = 0; a < 3; ++a) {
                if (s_.boundaries[std::size_t(a)].type != BoundaryType::Periodic)
                    continue;
                const bool spans = blo[a] <= lo_[a] + tol_ && bhi[a] >= hi_[a] - tol_;
                const bool crosses = blo[a] < lo_[a] - tol_ || bhi[a] > hi_[a] + tol_;
                if (crosses && !spans)
                    fail(p, "crosses the periodic " + axisName(a) +
                                " boundary without spanning the domain (periodic images are not generated)");
            }
        }
    }

    void sources() {
        std::set<std::string> names;
        for (std::size_t i = 0; i < s_.sources.size(); ++i) {
            const Source& src = s_.sources[i];
            const std::string p = item("sources", i);
            uniqueName(names, src.name, p + ".name", false);
            finite(src.center, p + ".center_um");
            finite(src.polarization, p + ".polarization");
            if (src.polarization == Vec3{0, 0, 0})
                fail(p + ".polarization", "must not be zero");
            if (src.type == SourceType::PointDipole) {
                if (!pointInside(src.center))
                    fail(p + ".center_um", vecStr(src.center) + " lies outside the domain");
            } else {
                if (src.normal < 0 || src.normal > 2)
                    fail(p + ".direction", "has no normal axis");
                if (src.direction != 1 && src.direction != -1)
                    fail(p + ".direction", "sign must be +1 or -1");
                plane(src.size, src.normal, src.direction, p, "plane source");
                if (src.polarization[std::size_t(src.normal)] != 0)
                    fail(p + ".polarization", "must be transverse to the plane normal " +
                                                  axisName(src.normal) + " (got " + vecStr(src.polarization) +
                                                  ")");
                const int nonzero = int(src.polarization[0] != 0) + int(src.polarization[1] != 0) +
                                    int(src.polarization[2] != 0);
                if (nonzero != 1)
                    fail(p + ".polarization", "a plane source is polarised along one transverse axis (\"" +
                                                  axisName((src.normal + 1) % 3) + "\" or \"" +
                                                  axisName((src.normal + 2) % 3) + "\"), got " +
                                                  vecStr(src.polarization));
                planeInInterior(src.center, src.size, src.normal, p, "source plane");
                if (src.type == SourceType::GaussianPlane)
                    positive(src.waist, p + ".waist_um");
            }
            const Profile& pr = src.profile;
            const std::string pp = p + ".profile";
            wavelength(pr.wavelength, pp + ".wavelength_um");
            if (pr.type == ProfileType::GaussianPulse) {
                positive(pr.bandwidth, pp + ".bandwidth_um");
                if (pr.bandwidth >= pr.wavelength)
                    fail(pp + ".bandwidth_um",
                         "must be smaller than wavelength_um (" + num(pr.wavelength) + ")");
                finite(pr.delay, pp + ".delay_fs");
            } else {
                nonNegative(pr.ramp, pp + ".ramp_fs");
            }
            finite(pr.amplitude, pp + ".amplitude");
            finite(pr.phase, pp + ".phase");
        }
    }

    void components(const std::vector<std::string>& comps, const std::string& path) const {
        if (comps.empty())
            fail(path, "must list at least one component");
        std::set<std::string> seen;
        for (std::size_t c = 0; c < comps.size(); ++c) {
            if (!oneOf(comps[c], kComponentNames))
                fail(item(path, c),
                     "unknown field component " + dq(comps[c]) + " (expected \"Ex\" .. \"Hz\")");
            if (!seen.insert(comps[c]).second)
                fail(item(path, c), dq(comps[c]) + " is listed twice");
        }
    }

    void detectors() {
        std::set<std::string> names;
        for (std::size_t i = 0; i < s_.detectors.size(); ++i) {
            const Detector& d = s_.detectors[i];
            const std::string p = item("detectors", i);
            uniqueName(names, d.name, p + ".name", true);
            finite(d.center, p + ".center_um");
            for (std::size_t a = 0; a < 3; ++a)
                nonNegative(d.size[a], item(p + ".size_um", a));
            switch (d.type) {
            case DetectorType::Flux:
                if (d.normal < 0 || d.normal > 2)
                    fail(p + ".direction", "has no normal axis");
                if (d.direction != 1 && d.direction != -1)
                    fail(p + ".direction", "sign must be +1 or -1");
                plane(d.size, d.normal, d.direction, p, "flux plane");
                planeInInterior(d.center, d.size, d.normal, p, "flux plane");
                break;
            case DetectorType::Energy:
            case DetectorType::FluxBox:
                for (std::size_t a = 0; a < 3; ++a)
                    positive(d.size[a], item(p + ".size_um", a));
                break;
            case DetectorType::Probe:
                if (d.size != Vec3{0, 0, 0})
                    fail(p + ".size_um", "a probe is a point (size must be zero)");
                break;
            default:
                break;
            }
            if (d.type != DetectorType::Flux) {
                if (!pointInside(d.center))
                    fail(p + ".center_um", vecStr(d.center) + " lies outside the domain");
                if (!boxInside(d.center, d.size, lo_, hi_))
                    fail(p + ".size_um", "the detector extends outside the domain");
            }
            if (d.type == DetectorType::Phasor && d.wavelengths.empty())
                fail(p + ".wavelengths_um", "must list at least one wavelength");
            if (d.type != DetectorType::Flux && d.type != DetectorType::Phasor &&
                d.type != DetectorType::FluxBox && !d.wavelengths.empty())
                fail(p + ".wavelengths_um", "only used by flux, flux_box and phasor detectors");
            for (std::size_t w = 0; w < d.wavelengths.size(); ++w)
                wavelength(d.wavelengths[w], item(p + ".wavelengths_um", w));
            if (d.type == DetectorType::Snapshot || d.type == DetectorType::Phasor ||
                d.type == DetectorType::Probe)
                components(d.components, p + ".components");
            else if (!d.components.empty())
                fail(p + ".components", "only used by snapshot, phasor and probe detectors");
            atLeast(d.every, 1, p + ".every");
            atLeast(d.downsample, 1, p + ".downsample");
        }
    }

    void designs() {
        std::set<std::string> names;
        for (std::size_t i = 0; i < s_.designs.size(); ++i) {
            const Design& g = s_.designs[i];
            const std::string p = item("designs", i);
            uniqueName(names, g.name, p + ".name", true);
            finite(g.center, p + ".center_um");
            for (std::size_t a = 0; a < 3; ++a)
                positive(g.size[a], item(p + ".size_um", a));
            for (std::size_t a = 0; a < 3; ++a)
                atLeast(g.voxelCells[a], 1, item(p + ".voxel_cells", a));
            for (std::size_t m = 0; m < 2; ++m)
                materialRef(g.materials[m], item(p + ".materials", m));
            const Material* m0 = s_.findMaterial(g.materials[0]);
            const Material* m1 = s_.findMaterial(g.materials[1]);
            if (m0->mu != m1->mu || m0->sigma != m1->sigma)
                fail(p + ".materials",
                     "both materials must have the same mu and sigma_S_per_m (only eps is designable)");
            nonNegative(g.filterRadius, p + ".filter_radius_um");
            nonNegative(g.beta, p + ".projection.beta");
            if (g.beta > 1e4)
                fail(p + ".projection.beta", "must be <= 10000 (got " + num(g.beta) + ")");
            finite(g.eta, p + ".projection.eta");
            if (g.eta < 0 || g.eta > 1)
                fail(p + ".projection.eta", "must be in [0, 1] (got " + num(g.eta) + ")");
            if (!boxInside(g.center, g.size, lo_, hi_))
                fail(p, "lies outside the domain");
            const Box b = s_.designCells(i);
            for (int a = 0; a < 3; ++a)
                if (b.extent(a) < 1)
                    fail(item(p + ".size_um", std::size_t(a)),
                         "the design region is thinner than one cell along " + axisName(a));
            const Box in = s_.interiorCells();
            for (int a = 0; a < 3; ++a)
                if (b.lo[a] < in.lo[a] || b.hi[a] > in.hi[a])
                    fail(p, "reaches into " + pmlText(a) + "; design regions must lie in the interior");
            for (std::size_t k = 0; k < i; ++k)
                if (!b.intersect(s_.designCells(k)).empty())
                    fail(p, "overlaps designs[" + std::to_string(k) + "] (" + dq(s_.designs[k].name) + ")");
            const auto vox = s_.designVoxels(i);
            double taps = 1;
            for (std::size_t a = 0; a < 3; ++a) {
                const double reach =
                    std::min(double(vox[a] - 1), std::floor(g.filterRadius / (g.voxelCells[a] * s_.cellUm)));
                taps *= 2 * reach + 1;
            }
            if (taps > 1e5)
                fail(p + ".filter_radius_um",
                     num(g.filterRadius) +
                         " um spans more than 100000 voxels; use a smaller radius or larger voxels");
            const std::size_t want = s_.designLatentSize(i);
            const std::string lp = p + (g.params.empty() ? ".latent" : ".params");
            if (g.latent.empty() && !g.params.empty())
                fail(lp, "the sidecar array was not loaded (load the scene with loadScene or parseScene)");
            if (!g.latent.empty() && g.latent.size() != want) {
                const auto v = s_.designVoxels(i);
                fail(lp, "holds " + std::to_string(g.latent.size()) + " values but the design has " +
                             std::to_string(v[0]) + " x " + std::to_string(v[1]) + " x " +
                             std::to_string(v[2]) + " = " + std::to_string(want) + " voxels");
            }
            for (std::size_t v = 0; v < g.latent.size(); ++v)
                if (!(g.latent[v] >= 0 && g.latent[v] <= 1))
                    fail(lp, "value " + num(g.latent[v]) + " at voxel " + std::to_string(v) +
                                 " is outside [0, 1]");
        }
    }

    void objective() {
        const bool reversible = s_.gradient.method == GradientMethod::Reversible;
        for (std::size_t i = 0; i < s_.objective.terms.size(); ++i) {
            const ObjectiveTerm& t = s_.objective.terms[i];
            const std::string p = item("objective.terms", i);
            const Detector* d = nullptr;
            for (const auto& e : s_.detectors)
                if (e.name == t.detector)
                    d = &e;
            if (!d)
                fail(p + ".detector", "unknown detector " + dq(t.detector));
            const char* dt = nameOf(kDetectorTypes, d->type);
            const bool box = d->type == DetectorType::FluxBox;
            const bool typeOk =
                (t.quantity == Quantity::Flux && (d->type == DetectorType::Flux || box)) ||
                (t.quantity == Quantity::PhasorPower && (d->type == DetectorType::Phasor || box)) ||
                (t.quantity == Quantity::Energy && d->type == DetectorType::Energy);
            if (!typeOk)
                fail(p + ".quantity", dq(nameOf(kQuantities, t.quantity)) + " cannot be read from " + dt +
                                          " detector " + dq(d->name));
            const bool reduceOk = (t.quantity == Quantity::Flux && (t.reduce != Reduce::Final || box)) ||
                                  (t.quantity == Quantity::PhasorPower && t.reduce == Reduce::AtWavelength) ||
                                  (t.quantity == Quantity::Energy && t.reduce != Reduce::AtWavelength);
            if (!reduceOk)
                fail(p + ".reduce", dq(nameOf(kReduces, t.reduce)) + " does not apply to quantity " +
                                        dq(nameOf(kQuantities, t.quantity)));
            if (t.reduce == Reduce::AtWavelength) {
                positive(t.wavelength, p + ".wavelength_um");
                const bool listed = std::any_of(d->wavelengths.begin(), d->wavelengths.end(), [&](double w) {
                    return std::fabs(w - t.wavelength) <= 1e-9 * w;
                });
                if (!listed)
                    fail(p + ".wavelength_um", num(t.wavelength) + " um is not among detector " +
                                                   dq(d->name) + "'s wavelengths_um");
            }
            finite(t.weight, p + ".weight");
            if (reversible) {
                const int a = pmlAxisOf(d->center, d->size);
                if (a >= 0)
                    fail(p + ".detector", "detector " + dq(d->name) + " reaches into " + pmlText(a) +
                                              ", where method \"reversible\" cannot reconstruct the fields");
            }
        }
    }

    void gradient() {
        const GradientConfig& g = s_.gradient;
        atLeast(g.numCheckpoints, 1, "gradient.num_checkpoints");
        atLeast(g.numCheckpointsReversible, 0, "gradient.num_checkpoints_reversible");
        if (g.method != GradientMethod::Reversible && !g.recorder.empty())
            fail("gradient.recorder", "only used by method \"reversible\"");
        bool lrk = false, dtype = false;
        for (std::size_t i = 0; i < g.recorder.size(); ++i) {
            const RecorderModule& r = g.recorder[i];
            const std::string p = item("gradient.recorder", i);
            if (r.module == "LinearReconstructEveryK") {
                if (lrk)
                    fail(p + ".module", "LinearReconstructEveryK is listed twice");
                lrk = true;
                atLeast(r.k, 1, p + ".k");
                atLeast(r.startAfter, 0, p + ".start_after");
            } else if (r.module == "DtypeConversion") {
                if (dtype)
                    fail(p + ".module", "DtypeConversion is listed twice");
                dtype = true;
                if (!oneOf(r.dtype, kDtypes))
                    fail(p + ".dtype",
                         "unknown dtype " + dq(r.dtype) + " (expected " + choices(kDtypes) + ")");
            } else {
                fail(p + ".module", "unknown recorder module " + dq(r.module) + " (expected " +
                                        choices(kRecorderModules) + ")");
            }
        }
        if (!oneOf(g.tier, kTiers))
            fail("gradient.storage.tier",
                 "unknown tier " + dq(g.tier) + " (expected " + choices(kTiers) + ")");
        atLeast(g.transferInterval, 1, "gradient.storage.transfer_interval");
        atLeast(g.ringBuffers, 1, "gradient.storage.ring_buffers");
    }

    void runConfig() {
        const RunConfig& r = s_.run;
        for (std::size_t a = 0; a < 3; ++a) {
            const std::string p = item("run.tiles", a);
            atLeast(r.tiles[a], 1, p);
            if (r.tiles[a] > n_[a])
                fail(p, std::to_string(r.tiles[a]) + " tiles along " + axisName(int(a)) +
                            " but the grid has only " + std::to_string(n_[a]) + " cells");
        }
        const int devices = deviceCount(r.devices);
        const std::int64_t tiles = std::int64_t(r.tiles[0]) * r.tiles[1] * r.tiles[2];
        if (devices > 0 && tiles > devices)
            fail("run.tiles", std::to_string(tiles) + " tiles need " + std::to_string(tiles) +
                                  " devices but run.devices names " + std::to_string(devices));
        if (!oneOf(r.precision, kPrecisions))
            fail("run.precision",
                 "unknown precision " + dq(r.precision) + " (expected " + choices(kPrecisions) + ")");
    }
};

std::uint64_t fnv1a(std::string_view s) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

} // namespace

Scene parseScene(const std::string& jsonText, const std::string& baseDir, bool validate) {
    const Json root = parseText(jsonText);
    Scene s = fromJson(root, baseDir);
    if (validate)
        validateScene(s);
    return s;
}

Scene loadScene(const std::string& path, bool validate) {
    const fs::path p = fs::u8path(path);
    std::ifstream in(p, std::ios::binary);
    if (!in)
        fail(path, "cannot open the scene file");
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad())
        fail(path, "cannot read the scene file");
    const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
    return parseScene(ss.str(), dir, validate);
}

std::string sceneToJson(const Scene& s, bool inlineArrays) {
    std::string out;
    pretty(toJson(s, inlineArrays ? LatentMode::Inline : LatentMode::Reference), 0, out);
    out += '\n';
    return out;
}

void saveScene(const Scene& s, const std::string& path) {
    const fs::path p = fs::u8path(path);
    Scene copy = s;
    std::vector<SidecarArray> arrays;
    fs::path sidecar = p;
    sidecar.replace_extension(".h5");
    if (sidecar == p)
        sidecar += ".h5";
    std::set<std::string> used;
    for (std::size_t i = 0; i < copy.designs.size(); ++i) {
        Design& g = copy.designs[i];
        if (g.latent.empty())
            continue;
        std::string ds =
            validName(g.name) && used.insert(g.name).second ? g.name : "design_" + std::to_string(i);
        SidecarArray a;
        a.dataset = "/designs/" + ds;
        a.values = &g.latent;
        const auto v = copy.designVoxels(i);
        if (copy.designLatentSize(i) == g.latent.size())
            a.dims = {hsize_t(v[2]), hsize_t(v[1]), hsize_t(v[0])};
        else
            a.dims = {hsize_t(g.latent.size())};
        g.params = sidecar.filename().string() + ":" + a.dataset;
        arrays.push_back(a);
    }
    if (!arrays.empty())
        writeSidecar(sidecar, arrays);

    const std::string text = sceneToJson(copy);
    const std::string tmp = uniqueTempName(p);
    {
        std::ofstream out(fs::u8path(tmp), std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) {
            std::error_code ec;
            out.close();
            fs::remove(fs::u8path(tmp), ec);
            throw RunError("cannot write " + path);
        }
    }
    std::error_code ec;
    fs::rename(fs::u8path(tmp), p, ec);
    if (ec) {
        fs::remove(fs::u8path(tmp), ec);
        throw RunError("cannot write " + path + ": " + ec.message());
    }
}

void validateScene(const Scene& s) {
    Validator(s).run();
}

std::string sceneHash(const Scene& s) {
    std::string canon;
    compact(toJson(s, LatentMode::Inline), canon);
    char b[20];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(fnv1a(canon)));
    return b;
}

} // namespace yee::scene
