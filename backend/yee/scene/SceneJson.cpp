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
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "yee/core/Error.hpp"
#include "yee/files/AtomicFile.hpp"
#include "yee/files/Hdf5Util.hpp"
#include "yee/scene/DetectorKinds.hpp"
#include "yee/scene/DeviceSpec.hpp"
#include "yee/scene/MaterialCheck.hpp"
#include "yee/scene/MaterialModel.hpp"
#include "yee/scene/Resolution.hpp"
#include "yee/scene/Schema.hpp"

namespace yee::scene {

namespace {

namespace fs = std::filesystem;
namespace h5 = files::h5;
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
    std::string r = "[";
    r += num(v[0]) + ", " + num(v[1]) + ", " + num(v[2]);
    return r + "]";
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

std::string axisName(int a) {
    return a >= 0 && a < 3 ? kAxisNames[a] : "?";
}
std::string directionName(int normal, int sign) {
    std::string r(1, sign < 0 ? '-' : '+');
    r += axisName(normal);
    return r;
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

/// A string naming one entry of `spec` (or, with `lenient`, any string: the validator checks it).
std::string enumString(const Json& v, const std::string& path, const EnumSpec& spec, bool lenient = false) {
    std::string s = stringValue(v, path);
    if (!lenient && !spec.find(s))
        fail(path, spec.unknownText(s));
    return s;
}

/// "x" | "y" | "z" | [px, py, pz].
Vec3 polarizationValue(const Json& v, const std::string& path) {
    if (v.is_string()) {
        const EnumEntry* a = axes().find(enumString(v, path, axes()));
        Vec3 p{0, 0, 0};
        p[std::size_t(a->value)] = 1;
        return p;
    }
    if (v.is_array())
        return vec3(v, path);
    fail(path, "must be \"x\", \"y\", \"z\" or [px, py, pz], got " + typeName(v));
}

/// The value of key `k` at `path`, in the canonical type of the schema.
SchemaValue readValue(const KeySpec& k, const Json& v, const std::string& path) {
    switch (k.type) {
    case KeyType::Number:
        return number(v, path);
    case KeyType::Integer:
        return integer(v, path);
    case KeyType::Boolean:
        return boolean(v, path);
    case KeyType::String:
    case KeyType::MaterialRef:
    case KeyType::DetectorRef:
        return stringValue(v, path);
    case KeyType::Enum:
        return enumString(v, path, *k.choices, k.lenient);
    case KeyType::EnumList: {
        arrayValue(v, path);
        std::vector<std::string> r;
        for (std::size_t i = 0; i < v.size(); ++i)
            r.push_back(enumString(v[i], item(path, i), *k.choices, k.lenient));
        return r;
    }
    case KeyType::Vec3:
        return vec3(v, path);
    case KeyType::IntVec3:
        return ivec3(v, path);
    case KeyType::NumberList:
        return numbers(v, path);
    case KeyType::Points2: {
        arrayValue(v, path);
        std::vector<std::array<double, 2>> r;
        for (std::size_t i = 0; i < v.size(); ++i) {
            const std::string ip = item(path, i);
            if (!v[i].is_array() || v[i].size() != 2)
                fail(ip, "must be a pair of numbers [u, v]");
            r.push_back({number(v[i][0], item(ip, 0)), number(v[i][1], item(ip, 1))});
        }
        return r;
    }
    case KeyType::Polarization:
        return polarizationValue(v, path);
    case KeyType::MaterialPair:
        if (!v.is_array() || v.size() != 2)
            fail(path, "must be an array of 2 material names [rho = 0, rho = 1]");
        return std::vector<std::string>{stringValue(v[0], item(path, 0)), stringValue(v[1], item(path, 1))};
    default:
        throw std::logic_error(std::string("scene schema: ") + k.name + " has no plain value");
    }
}

/// A JSON object being read: lookups by key, each error naming the field.
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
    std::string str(const std::string& k) const { return stringValue(req(k), at(k)); }
    int integer(const std::string& k) const { return scene::integer(req(k), at(k)); }
    const Json& json() const { return j_; }

private:
    const Json& j_;
    std::string path_;
};

/// Refuse every key of `o` that does not apply to `variant` of `sec`, checked before any value is read
/// so that a misspelt key is reported as such rather than as a missing one. A key of another variant
/// is "not used by <discriminator> "<value>"", a key of a sub-section marked hintMisplaced "belongs in"
/// it, anything else
/// is unknown (with a spelling suggestion).
void allowKeys(const Obj& o, const SectionSpec& sec, int variant, const std::string& variantName) {
    const auto allowed = sec.keysFor(variant);
    for (auto it = o.json().begin(); it != o.json().end(); ++it) {
        const std::string& k = it.key();
        const bool ok = std::any_of(allowed.begin(), allowed.end(), [&](const KeySpec* a) {
            return a->type != KeyType::MapKey && k == a->name;
        });
        if (ok)
            continue;
        std::string why;
        const KeySpec* other = sec.findAny(k);
        if (other && other->type != KeyType::MapKey) {
            why = "not used by " + std::string(sec.discriminator()->name) + " " + dq(variantName);
            if (*sec.noteOf(variant))
                why += std::string(" (") + sec.noteOf(variant) + ")";
        }
        for (const auto& sub : sec.keys)
            if (why.empty() && sub.hintMisplaced && section(sub.sub).findAny(k))
                why = "unknown key (" + k + " belongs in " + dq(sub.name) + ")";
        if (why.empty()) {
            why = "unknown key";
            std::size_t best = 3;
            std::string_view guess;
            for (const KeySpec* a : allowed) {
                const std::string_view an = a->name;
                const std::size_t d = editDistance(k, an);
                if (a->type != KeyType::MapKey && d < best && d < an.size() / 2 + 1) {
                    best = d;
                    guess = an;
                }
            }
            if (!guess.empty())
                why += " (did you mean " + dq(guess) + "?)";
        }
        fail(o.at(k), why);
    }
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

constexpr std::uint64_t kMaxLatent = std::uint64_t(1) << 28;

/// Split "file.h5:/dataset" at the last ":/".
std::pair<std::string, std::string> splitParams(const std::string& params, const std::string& path) {
    const auto p = params.rfind(":/");
    if (p == std::string::npos || p == 0)
        fail(path, dq(params) + " is not a sidecar reference (expected \"file.h5:/dataset\")");
    return {params.substr(0, p), params.substr(p + 1)};
}

/// Read a numeric dataset as doubles (under the library-wide HDF5 session). `dims` receives its shape
/// (C order).
std::vector<double> readDataset(const std::string& file, const std::string& dataset, const std::string& path,
                                std::vector<std::uint64_t>& dims) {
    std::error_code ec;
    if (!fs::is_regular_file(fs::u8path(file), ec))
        fail(path, "cannot find sidecar file " + dq(file));
    h5::Session session;
    h5::Handle f;
    try {
        f = h5::openFileReadOnly(file);
    } catch (const std::runtime_error&) {
        fail(path, dq(file) + " is not a readable HDF5 file");
    }
    h5::Handle d;
    try {
        d = h5::openDataset(f, dataset);
    } catch (const RunError&) {
        fail(path, "no dataset " + dq(dataset) + " in " + dq(file));
    }
    if (!h5::holdsNumbers(d))
        fail(path, "dataset " + dq(dataset) + " does not hold numbers");
    const std::vector<std::int64_t> shape = h5::datasetShape(d);
    const int rank = int(shape.size());
    if (rank < 1 || rank > 3)
        fail(path,
             "dataset " + dq(dataset) + " must have 1 to 3 dimensions (has " + std::to_string(rank) + ")");
    std::uint64_t count = 1;
    dims.assign(shape.begin(), shape.end());
    for (int r = 0; r < rank; ++r) {
        count *= dims[std::size_t(r)];
        if (count > kMaxLatent)
            fail(path, "dataset " + dq(dataset) + " is too large");
    }
    try {
        return h5::readDoubles(d);
    } catch (const RunError&) {
        fail(path, "cannot read dataset " + dq(dataset) + " from " + dq(file));
    }
}

/// One dataset of a sidecar file.
struct SidecarArray {
    std::string dataset;               ///< absolute path in the file
    std::vector<std::int64_t> dims;    ///< C order
    const std::vector<double>* values; ///< not owned
};

/// The group at absolute `path` in `file`, created (with its parents) where missing.
h5::Handle groupFor(hid_t file, const std::string& path) {
    h5::Handle g = h5::openGroup(file, "/");
    std::size_t begin = 1;
    while (begin < path.size()) {
        const std::size_t end = std::min(path.find('/', begin), path.size());
        const std::string name = path.substr(begin, end - begin);
        if (!name.empty())
            g = h5::exists(g, name) ? h5::openGroup(g, name) : h5::createGroup(g, name);
        begin = end + 1;
    }
    return g;
}

/// Write the sidecar atomically (files::writeAtomically: temporary, fsync, rename) under the
/// library-wide HDF5 session. Throws RunError.
void writeSidecar(const fs::path& file, const std::vector<SidecarArray>& arrays) {
    files::writeAtomically(file.string(), [&](const std::string& temp) {
        h5::Session session;
        h5::Handle f = h5::createFile(temp);
        for (const auto& a : arrays) {
            const std::size_t cut = a.dataset.rfind('/');
            h5::Handle g = groupFor(f, a.dataset.substr(0, cut));
            h5::writeDataset(g, a.dataset.substr(cut + 1), a.dims, *a.values);
        }
        f.close("cannot write " + file.string());
    });
}

// ------------------------------------------------------------------------------------------------
// JSON -> Scene
// ------------------------------------------------------------------------------------------------

/// A design whose parameters live in a sidecar file, loaded after the whole scene is parsed.
struct PendingLoad {
    std::size_t design;
    std::string file, dataset, path;
};

/// State of one parse.
struct ReadContext {
    std::string baseDir;
    std::vector<PendingLoad> pending;
};

void readSection(const Obj& o, const SectionSpec& sec, Scene& s, int index, ReadContext& ctx);

/// The keys the schema leaves to code: format and version (checked first), the materials map and a
/// design's latent values (a sidecar reference or an inline array, not both).
void readCustom(const Obj& o, const SectionSpec& sec, const KeySpec& k, Scene& s, int index,
                ReadContext& ctx) {
    const std::string key = k.name;
    if (sec.id == SectionId::Scene && key == "materials" && o.has(key)) {
        const Json& m = o.req(key);
        if (!m.is_object())
            fail("materials", "must be an object {name: {eps, mu, sigma_S_per_m}}, got " + typeName(m));
        const SectionSpec& ms = section(SectionId::Material);
        for (auto it = m.begin(); it != m.end(); ++it) {
            const Obj mo(it.value(), join("materials", it.key()));
            const int i = ms.append(s);
            s.materials[std::size_t(i)].name = it.key();
            readSection(mo, ms, s, i, ctx);
        }
    } else if (sec.id == SectionId::Material && key == "poles" && o.has(key)) {
        const Json& a = o.req(key);
        arrayValue(a, o.at(key));
        const SectionSpec& ps = section(SectionId::Pole);
        for (std::size_t j = 0; j < a.size(); ++j) {
            s.materials[std::size_t(index)].poles.emplace_back();
            readSection(Obj(a[j], item(o.at(key), j)), ps, s, poleIndex(s, std::size_t(index), j), ctx);
        }
    } else if (sec.id == SectionId::Design && key == "params" && o.has(key)) {
        if (o.has("latent"))
            fail(o.at("latent"), "give either \"params\" or \"latent\", not both");
        Design& g = s.designs[std::size_t(index)];
        g.params = o.str(key);
        auto [file, dataset] = splitParams(g.params, o.at(key));
        fs::path fp = fs::u8path(file);
        if (fp.is_relative())
            fp = fs::u8path(ctx.baseDir.empty() ? std::string(".") : ctx.baseDir) / fp;
        ctx.pending.push_back({std::size_t(index), fp.string(), dataset, o.at(key)});
    } else if (sec.id == SectionId::Design && key == "latent" && o.has(key)) {
        s.designs[std::size_t(index)].latent = numbers(o.req(key), o.at(key));
    }
}

/// Read key `k` of `o` into the scene: its value, its sub-section(s), or its default when left out.
void readKey(const Obj& o, const SectionSpec& sec, const KeySpec& k, Scene& s, int index, ReadContext& ctx) {
    if (k.type == KeyType::Custom) {
        readCustom(o, sec, k, s, index, ctx);
        return;
    }
    if (!o.has(k.name)) {
        if (k.required)
            fail(o.at(k.name), "missing (required)");
        if (k.defaultValue && k.set)
            k.set(s, index, *k.defaultValue);
        return;
    }
    const std::string path = o.at(k.name);
    const Json& v = o.req(k.name);
    if (k.type == KeyType::Section) {
        readSection(Obj(v, path), section(k.sub), s, k.subIndex >= 0 ? k.subIndex : index, ctx);
    } else if (k.type == KeyType::SectionList) {
        const SectionSpec& sub = section(k.sub);
        arrayValue(v, path);
        for (std::size_t i = 0; i < v.size(); ++i) {
            const Obj e(v[i], item(path, i));
            readSection(e, sub, s, sub.append(s), ctx);
        }
    } else {
        k.set(s, index, readValue(k, v, path));
    }
}

/// What the schema cannot say about one section: derived geometry, the automatic pulse delay, an
/// objective without terms.
void finishSection(const Obj& o, const SectionSpec& sec, Scene& s, int index) {
    if (sec.id == SectionId::Object) {
        Object& ob = s.objects[std::size_t(index)];
        if (ob.shape == Shape::Polygon) {
            // The in-plane position comes from the vertices; center_um may repeat it, must not contradict it.
            const Vec3 given = ob.center;
            ob.center = {0, 0, 0};
            const auto [lo, hi] = objectBounds(ob);
            Vec3 c{};
            for (int a = 0; a < 3; ++a)
                c[a] = 0.5 * (lo[a] + hi[a]);
            c[ob.axis] = 0;
            if (o.has("center_um")) {
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
        } else if (ob.shape == Shape::Sphere) {
            ob.size = {2 * ob.radius, 2 * ob.radius, 2 * ob.radius};
        } else if (ob.shape == Shape::Cylinder) {
            ob.size = {2 * ob.radius, 2 * ob.radius, 2 * ob.radius};
            ob.size[ob.axis] = ob.height;
        }
    } else if (sec.id == SectionId::Profile) {
        if (o.has("delay_fs") && s.sources[std::size_t(index)].profile.delay < 0)
            fail(o.at("delay_fs"), "must be >= 0 (leave it out for an automatic delay)");
    } else if (sec.id == SectionId::Objective) {
        if (s.objective.terms.empty())
            fail(o.at("terms"), "must not be empty (leave out \"objective\" for a forward-only scene)");
    }
}

/// Read the object `o` as element `index` of section `sec`: the keys read first, the discriminator
/// (which selects the variant), the allowed keys of that variant, then every key in schema order.
void readSection(const Obj& o, const SectionSpec& sec, Scene& s, int index, ReadContext& ctx) {
    std::set<std::string> done;
    for (const char* name : sec.readFirst) {
        readKey(o, sec, *sec.findAny(name), s, index, ctx);
        done.insert(name);
    }
    int variant = -1;
    std::string variantName;
    if (const KeySpec* d = sec.discriminator()) {
        if (o.has(d->name))
            d->set(s, index, readValue(*d, o.req(d->name), o.at(d->name)));
        else if (d->required)
            fail(o.at(d->name), "missing (required)");
        else if (d->defaultValue)
            d->set(s, index, *d->defaultValue);
        else if (sec.defaultVariant)
            d->set(s, index, std::string(sec.variants->nameOf(sec.defaultVariant(s, index))));
        variant = sec.variantOf(s, index);
        variantName = std::get<std::string>(d->get(s, index));
        done.insert(d->name);
    }
    allowKeys(o, sec, variant, variantName);
    for (const KeySpec* k : sec.keysFor(variant))
        if (k->type != KeyType::MapKey && !done.count(k->name))
            readKey(o, sec, *k, s, index, ctx);
    finishSection(o, sec, s, index);
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
    Scene s;
    ReadContext ctx{baseDir, {}};
    readSection(o, section(SectionId::Scene), s, -1, ctx);
    loadPending(s, ctx.pending);
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
            return axes().nameOf(a);
    }
    return jvec(p);
}

enum class LatentMode { Reference, Inline };

/// A canonical value as JSON.
Json valueJson(const KeySpec& k, const SchemaValue& v) {
    if (k.type == KeyType::Polarization)
        return polarizationJson(std::get<Vec3>(v));
    struct Visitor {
        Json operator()(std::monostate) const { return nullptr; }
        Json operator()(double d) const { return d; }
        Json operator()(int i) const { return i; }
        Json operator()(bool b) const { return b; }
        Json operator()(const std::string& s) const { return s; }
        Json operator()(const Vec3& a) const { return jvec(a); }
        Json operator()(const std::array<int, 3>& a) const { return jivec(a); }
        Json operator()(const std::vector<double>& l) const { return l; }
        Json operator()(const std::vector<std::string>& l) const { return l; }
        Json operator()(const std::vector<std::array<double, 2>>& l) const {
            Json a = Json::array();
            for (const auto& p : l)
                a.push_back(Json::array({p[0], p[1]}));
            return a;
        }
    };
    return std::visit(Visitor{}, v);
}

Json writeSection(const SectionSpec& sec, const Scene& s, int index, LatentMode mode);

/// The keys the schema leaves to code (see readCustom()).
void writeCustom(const SectionSpec& sec, const KeySpec& k, const Scene& s, int index, LatentMode mode,
                 Json& j) {
    const std::string key = k.name;
    if (key == "format") {
        j[key] = kFormatName;
    } else if (key == "version") {
        j[key] = kFormatVersion;
    } else if (key == "materials") {
        Json m = Json::object();
        for (std::size_t i = 0; i < s.materials.size(); ++i)
            m[s.materials[i].name] = writeSection(section(SectionId::Material), s, int(i), mode);
        j[key] = m;
    } else if (sec.id == SectionId::Material && key == "poles") {
        const Material& m = s.materials[std::size_t(index)];
        if (m.poles.empty())
            return;
        Json a = Json::array();
        for (std::size_t p = 0; p < m.poles.size(); ++p)
            a.push_back(writeSection(section(SectionId::Pole), s, poleIndex(s, std::size_t(index), p), mode));
        j[key] = a;
    } else if (sec.id == SectionId::Design && key == "params") {
        const Design& g = s.designs[std::size_t(index)];
        if (mode == LatentMode::Inline) {
            if (!g.latent.empty())
                j["latent"] = g.latent;
            else if (!g.params.empty())
                j["params"] = g.params;
        } else if (!g.params.empty()) {
            j["params"] = g.params;
        } else if (!g.latent.empty()) {
            j["latent"] = g.latent;
        }
    }
}

/// Element `index` of section `sec` as JSON: every key of its variant, in schema order.
Json writeSection(const SectionSpec& sec, const Scene& s, int index, LatentMode mode) {
    Json j = Json::object();
    for (const KeySpec* k : sec.keysFor(sec.variantOf(s, index))) {
        if (k->type == KeyType::MapKey || (k->present && !k->present(s, index)))
            continue;
        if (k->type == KeyType::Custom) {
            writeCustom(sec, *k, s, index, mode, j);
        } else if (k->type == KeyType::Section) {
            j[k->name] = writeSection(section(k->sub), s, k->subIndex >= 0 ? k->subIndex : index, mode);
        } else if (k->type == KeyType::SectionList) {
            const SectionSpec& sub = section(k->sub);
            Json a = Json::array();
            for (int i = 0; i < sub.count(s); ++i)
                a.push_back(writeSection(sub, s, i, mode));
            j[k->name] = a;
        } else {
            j[k->name] = valueJson(*k, k->get(s, index));
        }
    }
    return j;
}

Json toJson(const Scene& s, LatentMode latentMode) {
    return writeSection(section(SectionId::Scene), s, -1, latentMode);
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

bool validName(const std::string& n) {
    if (n.empty() || n == "." || n == ".." || n.size() > 200)
        return false;
    for (unsigned char c : n)
        if (c < 0x20 || c == 0x7f || c == '/')
            return false;
    return true;
}

/// Number of devices a "run.devices" string names; 0 for all GPUs; throws if malformed. The list is
/// parsed by the one device-list parser (DeviceSpec), in this file's wording for malformed text.
int deviceCount(const std::string& dev) {
    return DeviceSpec::parse(
               dev, "run.devices",
               dq(dev) + " is not a device list (expected \"cpu:N\", \"cuda:0,1,...\" or \"cuda:all\")")
        .count();
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
        optimization();
        gradient();
        runConfig();
    }

private:
    const Scene& s_;
    std::array<int, 3> n_{};
    Vec3 lo_{}, hi_{}, ilo_{}, ihi_{};
    double tol_ = 0;

    /// The per-key rules of the schema for element `index` of section `id` at `path`: numbers finite
    /// and in range (every element of vectors and lists), enum strings known; sub-sections included,
    /// lists of sub-sections left to the caller.
    void keys(SectionId id, int index, const std::string& path) const {
        const SectionSpec& sec = section(id);
        for (const KeySpec* k : sec.keysFor(sec.variantOf(s_, index))) {
            const std::string p = join(path, k->name);
            if (k->type == KeyType::Section) {
                keys(k->sub, k->subIndex >= 0 ? k->subIndex : index, p);
                continue;
            }
            if (!k->get || k->type == KeyType::Custom)
                continue;
            const SchemaValue v = k->get(s_, index);
            auto check = [&](double x, const std::string& at) {
                if (const std::string m = checkNumber(*k, x); !m.empty())
                    fail(at, m);
            };
            auto name = [&](const std::string& n, const std::string& at) {
                if (k->choices && !k->choices->find(n))
                    fail(at, k->choices->unknownText(n));
            };
            if (const auto* d = std::get_if<double>(&v))
                check(*d, p);
            else if (const auto* i = std::get_if<int>(&v))
                check(*i, p);
            else if (const auto* a = std::get_if<Vec3>(&v))
                for (std::size_t c = 0; c < 3; ++c)
                    check((*a)[c], item(p, c));
            else if (const auto* ia = std::get_if<std::array<int, 3>>(&v))
                for (std::size_t c = 0; c < 3; ++c)
                    check((*ia)[c], item(p, c));
            else if (const auto* l = std::get_if<std::vector<double>>(&v))
                for (std::size_t c = 0; c < l->size(); ++c)
                    check((*l)[c], item(p, c));
            else if (const auto* pts = std::get_if<std::vector<std::array<double, 2>>>(&v))
                for (std::size_t c = 0; c < pts->size(); ++c)
                    for (std::size_t u = 0; u < 2; ++u)
                        check((*pts)[c][u], item(item(p, c), u));
            else if (const auto* str = std::get_if<std::string>(&v); str && k->type == KeyType::Enum)
                name(*str, p);
            else if (const auto* names = std::get_if<std::vector<std::string>>(&v);
                     names && k->type == KeyType::EnumList)
                for (std::size_t c = 0; c < names->size(); ++c)
                    name((*names)[c], item(p, c));
        }
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
    /// True when the closed boxes (centre, size) share more than a boundary point along some axis and
    /// overlap along all three.
    static bool boxesTouch(const Vec3& c1, const Vec3& s1, const Vec3& c2, const Vec3& s2) {
        for (int a = 0; a < 3; ++a)
            if (c1[a] + 0.5 * s1[a] < c2[a] - 0.5 * s2[a] || c2[a] + 0.5 * s2[a] < c1[a] - 0.5 * s1[a])
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
    /// The Nyquist rule of a wavelength already checked to be > 0.
    void wavelength(double w, const std::string& path) const {
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
        if (std::isfinite(s_.courant) && s_.courant > 1)
            fail("grid.courant", num(s_.courant) + " is unstable (must be in (0, 1])");
        keys(SectionId::Grid, -1, "grid");
        keys(SectionId::Domain, -1, "domain");
        for (std::size_t a = 0; a < 3; ++a) {
            const std::string p = item("domain.size_um", a);
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
        keys(SectionId::Time, -1, "time");
        if (s_.durationFs / s_.dtFs() > kMaxSteps)
            fail("time.duration_fs", num(s_.durationFs) + " fs needs " + num(s_.durationFs / s_.dtFs()) +
                                         " steps (the limit is " + std::to_string(kMaxSteps) + ")");
        for (int a = 0; a < 3; ++a) {
            const Boundary& b = s_.boundaries[std::size_t(a)];
            const std::string p = std::string("boundaries.") + axisName(a);
            keys(SectionId::Boundary, a, p);
            if (b.type != BoundaryType::Pml)
                continue;
            if (2 * std::int64_t(b.cells) >= n_[a])
                fail(p + ".cells", "PML (" + std::to_string(b.cells) +
                                       " cells per side) is thicker than the domain allows (" +
                                       std::to_string(n_[a]) + " cells)");
        }
        for (int a = 0; a < 3; ++a) {
            ilo_[a] = lo_[a] + s_.pmlCells(a) * s_.cellUm;
            ihi_[a] = hi_[a] - s_.pmlCells(a) * s_.cellUm;
        }
    }

    void materials() {
        std::set<std::string> seen;
        for (std::size_t i = 0; i < s_.materials.size(); ++i) {
            const Material& m = s_.materials[i];
            const std::string p = join("materials", m.name);
            if (!validName(m.name))
                fail(p, "is not a valid material name");
            if (!seen.insert(m.name).second)
                fail(p, "is defined twice");
            keys(SectionId::Material, int(i), p);
            for (std::size_t j = 0; j < m.poles.size(); ++j)
                keys(SectionId::Pole, poleIndex(s_, i, j), item(join(p, "poles"), j));
            checkDispersive(s_, m, p);
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
            keys(SectionId::Object, int(i), p);
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
            keys(SectionId::Source, int(i), p);
            if (src.type != SourceType::Mode && src.polarization == Vec3{0, 0, 0})
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
                if (src.type == SourceType::Mode)
                    for (std::size_t g = 0; g < s_.designs.size(); ++g)
                        if (boxesTouch(src.center, src.size, s_.designs[g].center, s_.designs[g].size))
                            fail(p, "the mode source plane crosses design " + dq(s_.designs[g].name) +
                                        "; its mode would depend on the design (move the port out of it)");
                if (src.type != SourceType::Mode) { // a mode source's fields come from its mode
                    if (src.polarization[std::size_t(src.normal)] != 0)
                        fail(p + ".polarization", "must be transverse to the plane normal " +
                                                      axisName(src.normal) + " (got " +
                                                      vecStr(src.polarization) + ")");
                    const int nonzero = int(src.polarization[0] != 0) + int(src.polarization[1] != 0) +
                                        int(src.polarization[2] != 0);
                    if (nonzero != 1)
                        fail(p + ".polarization",
                             "a plane source is polarised along one transverse axis (\"" +
                                 axisName((src.normal + 1) % 3) + "\" or \"" +
                                 axisName((src.normal + 2) % 3) + "\"), got " + vecStr(src.polarization));
                }
                planeInInterior(src.center, src.size, src.normal, p, "source plane");
            }
            const Profile& pr = src.profile;
            const std::string pp = p + ".profile";
            wavelength(pr.wavelength, pp + ".wavelength_um");
            if (pr.type == ProfileType::GaussianPulse && pr.bandwidth >= pr.wavelength)
                fail(pp + ".bandwidth_um", "must be smaller than wavelength_um (" + num(pr.wavelength) + ")");
        }
    }

    /// The variants `key` applies to: "flux, phasor and flux_box".
    static std::string usedBy(const SectionSpec& sec, const char* key) {
        std::vector<std::string> names;
        for (const auto& e : sec.variants->entries)
            if (sec.find(key, e.value))
                names.emplace_back(e.name);
        std::string r;
        for (std::size_t i = 0; i < names.size(); ++i)
            r += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
        return r;
    }

    /// Components already checked to be known names: at least one, none twice.
    void components(const std::vector<std::string>& comps, const std::string& path) const {
        if (comps.empty())
            fail(path, "must list at least one component");
        std::set<std::string> seen;
        for (std::size_t c = 0; c < comps.size(); ++c) {
            if (!seen.insert(comps[c]).second)
                fail(item(path, c), dq(comps[c]) + " is listed twice");
        }
    }

    /// A detector kind's view of the validator (DetectorKinds.hpp).
    class Check final : public DetectorCheck {
    public:
        Check(const Validator& v, const Detector& d, std::string path)
            : v_(v), d_(d), path_(std::move(path)) {}
        const Scene& scene() const override { return v_.s_; }
        const Detector& detector() const override { return d_; }
        const std::string& path() const override { return path_; }
        [[noreturn]] void fail(const std::string& key, const std::string& message) const override {
            scene::fail(path_ + "." + key, message); // key may carry an index: "wavelengths_um[1]"
        }
        void plane(const char* what) const override {
            v_.plane(d_.size, d_.normal, d_.direction, path_, what);
        }
        void planeInInterior(const char* what) const override {
            v_.planeInInterior(d_.center, d_.size, d_.normal, path_, what);
        }
        int pmlAxis() const override { return v_.pmlAxisOf(d_.center, d_.size); }
        std::string pmlText(int axis) const override { return v_.pmlText(axis); }

    private:
        const Validator& v_;
        const Detector& d_;
        std::string path_;
    };

    void detectors() {
        std::set<std::string> names;
        for (std::size_t i = 0; i < s_.detectors.size(); ++i) {
            const Detector& d = s_.detectors[i];
            const std::string p = item("detectors", i);
            uniqueName(names, d.name, p + ".name", true);
            keys(SectionId::Detector, int(i), p);
            const int variant = int(d.type);
            const DetectorKindSpec* kind = detectorKind(d.type);
            if (!kind)
                fail(p + ".type", "unknown detector type " + std::to_string(variant));
            const Check c(*this, d, p);
            if (kind->check)
                kind->check(c);
            if (kind->insideDomain) {
                if (!pointInside(d.center))
                    fail(p + ".center_um", vecStr(d.center) + " lies outside the domain");
                if (!boxInside(d.center, d.size, lo_, hi_))
                    fail(p + ".size_um", "the detector extends outside the domain");
            }
            const SectionSpec& sec = section(SectionId::Detector);
            if (const KeySpec* w = sec.find("wavelengths_um", variant);
                w && w->required && d.wavelengths.empty())
                fail(p + ".wavelengths_um", "must list at least one wavelength");
            if (!sec.find("wavelengths_um", variant) && !d.wavelengths.empty())
                fail(p + ".wavelengths_um", "only used by " + usedBy(sec, "wavelengths_um") + " detectors");
            for (std::size_t w = 0; w < d.wavelengths.size(); ++w)
                wavelength(d.wavelengths[w], item(p + ".wavelengths_um", w));
            if (sec.find("components", variant))
                components(d.components, p + ".components");
            else if (!d.components.empty())
                fail(p + ".components", "only used by " + usedBy(sec, "components") + " detectors");
        }
    }

    void designs() {
        std::set<std::string> names;
        for (std::size_t i = 0; i < s_.designs.size(); ++i) {
            const Design& g = s_.designs[i];
            const std::string p = item("designs", i);
            uniqueName(names, g.name, p + ".name", true);
            keys(SectionId::Design, int(i), p);
            for (std::size_t m = 0; m < 2; ++m)
                materialRef(g.materials[m], item(p + ".materials", m));
            const Material* m0 = s_.findMaterial(g.materials[0]);
            const Material* m1 = s_.findMaterial(g.materials[1]);
            if (isDispersive(*m0) || isDispersive(*m1) || m0->n > 0 || m1->n > 0)
                fail(p + ".materials", "design materials must be given by eps (not poles, library or n, k)");
            if (m0->mu != m1->mu || m0->sigma != m1->sigma)
                fail(p + ".materials",
                     "both materials must have the same mu and sigma_S_per_m (only eps is designable)");
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
                const double reach = std::min(
                    double(vox[a] - 1), std::floor(s_.designFilterRadius(i) / (g.voxelCells[a] * s_.cellUm)));
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
        for (std::size_t i = 0; i < s_.objective.terms.size(); ++i) {
            const std::string p = item("objective.terms", i);
            keys(SectionId::Term, int(i), p);
            term(s_.objective.terms[i], p);
        }
    }

    void optimization() {
        const OptimizationConfig& o = s_.optimization;
        if (isDefault(o))
            return;
        keys(SectionId::Optimization, -1, "optimization");
        for (std::size_t i = 0; i < o.constraints.size(); ++i) {
            const std::string p = item("optimization.constraints", i);
            keys(SectionId::Constraint, int(i), p);
            term(o.constraints[i].term, p);
            if (!std::isfinite(o.constraints[i].bound))
                fail(p + ".limit", "must be a finite number");
        }
        if (o.betaEvery < 1)
            fail("optimization.beta_every", "must be >= 1");
        if (o.lengthConstraints && !(o.minLengthUm > 0))
            fail("optimization.length_constraints",
                 "needs optimization.min_length_um > 0 (the length to enforce)");
        for (std::size_t d = 0; d < s_.designs.size() && o.minLengthUm > 0; ++d) {
            const double r = s_.designs[d].filterRadius;
            if (r > 0 && r < o.minLengthUm)
                fail(
                    item("designs", d) + ".filter_radius_um",
                    num(r) + " um is below optimization.min_length_um (" + num(o.minLengthUm) +
                        " um): a conic filter of radius R gives features of at least R; leave the radius out "
                        "(it then equals the minimum length) or make it >= the minimum length");
            const double voxel = s_.cellUm * *std::min_element(s_.designs[d].voxelCells.begin(),
                                                               s_.designs[d].voxelCells.end());
            if (s_.designFilterRadius(d) < 2 * voxel)
                fail("optimization.min_length_um",
                     num(o.minLengthUm) + " um spans fewer than 2 voxels of " + item("designs", d) + " (" +
                         num(voxel) + " um); a length scale needs a filter at least 2 voxels wide");
        }
    }

    /// One term (of the objective, or constrained) at `p`: its detector, quantity and reduction.
    void term(const ObjectiveTerm& t, const std::string& p) {
        const bool reversible = s_.gradient.method == GradientMethod::Reversible;
        {
            const Detector* d = nullptr;
            for (const auto& e : s_.detectors)
                if (e.name == t.detector)
                    d = &e;
            if (!d)
                fail(p + ".detector", "unknown detector " + dq(t.detector));
            const char* dt = enumName(d->type);
            const DetectorKindSpec* kind = detectorKind(d->type);
            const ObjectiveUse* use = kind ? kind->use(t.quantity) : nullptr;
            if (!use)
                fail(p + ".quantity",
                     dq(enumName(t.quantity)) + " cannot be read from " + dt + " detector " + dq(d->name));
            if (std::find(use->reductions.begin(), use->reductions.end(), t.reduce) == use->reductions.end())
                fail(p + ".reduce",
                     dq(enumName(t.reduce)) + " does not apply to quantity " + dq(enumName(t.quantity)));
            if (t.reduce == Reduce::AtWavelength) {
                const bool listed = std::any_of(d->wavelengths.begin(), d->wavelengths.end(), [&](double w) {
                    return std::fabs(w - t.wavelength) <= 1e-9 * w;
                });
                if (!listed)
                    fail(p + ".wavelength_um", num(t.wavelength) + " um is not among detector " +
                                                   dq(d->name) + "'s wavelengths_um");
            }
            if (kind->checkTerm) {
                const std::size_t di = std::size_t(d - s_.detectors.data());
                kind->checkTerm(Check(*this, *d, item("detectors", di)), t, p);
            }
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
        keys(SectionId::Gradient, -1, "gradient");
        if (g.method != GradientMethod::Reversible && !g.recorder.empty())
            fail("gradient.recorder", "only used by method \"reversible\"");
        bool lrk = false, dtype = false;
        for (std::size_t i = 0; i < g.recorder.size(); ++i) {
            const RecorderModule& r = g.recorder[i];
            const std::string p = item("gradient.recorder", i);
            keys(SectionId::Recorder, int(i), p);
            bool& seen = r.module == "LinearReconstructEveryK" ? lrk : dtype;
            if (seen)
                fail(p + ".module", r.module + " is listed twice");
            seen = true;
        }
        if (g.tier != "device") {
            if (g.method != GradientMethod::Reversible)
                fail("gradient.storage.tier",
                     dq(g.tier) + " stages the recorder of method \"reversible\" only");
            if (g.ringBuffers < 3)
                fail("gradient.storage.ring_buffers",
                     "staging needs at least 3 ring slots (writing, reading, read-ahead)");
        }
    }

    void runConfig() {
        const RunConfig& r = s_.run;
        keys(SectionId::Run, -1, "run");
        for (std::size_t a = 0; a < 3; ++a) {
            const std::string p = item("run.tiles", a);
            if (r.tiles[a] > n_[a])
                fail(p, std::to_string(r.tiles[a]) + " tiles along " + axisName(int(a)) +
                            " but the grid has only " + std::to_string(n_[a]) + " cells");
        }
        const int devices = deviceCount(r.devices);
        const std::int64_t tiles = std::int64_t(r.tiles[0]) * r.tiles[1] * r.tiles[2];
        if (devices > 0 && tiles > devices)
            fail("run.tiles", std::to_string(tiles) + " tiles need " + std::to_string(tiles) +
                                  " devices but run.devices names " + std::to_string(devices));
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
    const std::string tooBig = "the scene file is larger than " + std::to_string(kMaxSceneFileBytes >> 20) +
                               " MiB; keep bulky arrays (design latents) in the HDF5 sidecar "
                               "(\"params\": \"file.h5:/dataset\")";
    std::error_code ec;
    const std::uintmax_t size = fs::is_regular_file(p, ec) ? fs::file_size(p, ec) : kMaxSceneFileBytes;
    if (!ec && size > kMaxSceneFileBytes)
        fail(path, tooBig);
    std::ifstream in(p, std::ios::binary);
    if (!in)
        fail(path, "cannot open the scene file");
    // Read at most one byte past the size (a pipe or a special file has no size to check first: the
    // limit holds for what is read).
    std::string text(std::size_t(ec ? kMaxSceneFileBytes : size) + 1, '\0');
    in.read(text.data(), std::streamsize(text.size()));
    if (in.bad())
        fail(path, "cannot read the scene file");
    if (std::uintmax_t(in.gcount()) > kMaxSceneFileBytes)
        fail(path, tooBig);
    if (!ec && std::uintmax_t(in.gcount()) > size)
        fail(path, "the scene file grew while it was read");
    text.resize(std::size_t(in.gcount()));
    const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
    return parseScene(text, dir, validate);
}

std::string sceneToJson(const Scene& s, bool inlineArrays) {
    std::string out;
    pretty(toJson(s, inlineArrays ? LatentMode::Inline : LatentMode::Reference), 0, out);
    out += '\n';
    return out;
}

std::string sidecarPath(const std::string& path) {
    const fs::path p = fs::u8path(path);
    fs::path sidecar = p;
    sidecar.replace_extension(".h5");
    if (sidecar == p)
        sidecar += ".h5";
    return sidecar.string();
}

void saveScene(const Scene& s, const std::string& path) {
    const fs::path p = fs::u8path(path);
    Scene copy = s;
    std::vector<SidecarArray> arrays;
    const fs::path sidecar = fs::u8path(sidecarPath(path));
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
            a.dims = {v[2], v[1], v[0]};
        else
            a.dims = {std::int64_t(g.latent.size())};
        g.params = sidecar.filename().string() + ":" + a.dataset;
        arrays.push_back(a);
    }
    if (!arrays.empty())
        writeSidecar(sidecar, arrays);

    files::writeTextAtomically(path, sceneToJson(copy));
}

void validateScene(const Scene& s) {
    Validator(s).run();
    checkResolution(s); // where the light is: the shortest wavelength in the highest-index material
}

std::string sceneHash(const Scene& s) {
    std::string canon;
    compact(toJson(s, LatentMode::Inline), canon);
    char b[20];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(fnv1a(canon)));
    return b;
}

} // namespace yee::scene
