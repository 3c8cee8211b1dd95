#include "yee/files/Gdsii.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>

#include "yee/core/Error.hpp"
#include "yee/files/AtomicFile.hpp"

namespace yee::files {

namespace {

using Point = std::array<double, 2>;

double signedArea(const std::vector<Point>& p) {
    double a = 0;
    for (std::size_t i = 0, n = p.size(); i < n; ++i)
        a += p[i][0] * p[(i + 1) % n][1] - p[(i + 1) % n][0] * p[i][1];
    return 0.5 * a;
}

// Record types (high byte) and data types (low byte) of the GDSII stream format.
enum : std::uint16_t {
    kHeader = 0x0002,
    kBgnLib = 0x0102,
    kLibName = 0x0206,
    kUnits = 0x0305,
    kEndLib = 0x0400,
    kBgnStr = 0x0502,
    kStrName = 0x0606,
    kEndStr = 0x0700,
    kBoundary = 0x0800,
    kLayer = 0x0D02,
    kDataType = 0x0E02,
    kXY = 0x1003,
    kEndEl = 0x1100,
};

class Stream {
public:
    void record(std::uint16_t type, const std::string& payload) {
        const std::size_t n = payload.size() + 4;
        if (n > 0xFFFF)
            throw std::invalid_argument("GDSII: a record longer than 65535 bytes");
        put16(std::uint16_t(n));
        put16(type);
        bytes_ += payload;
    }
    const std::string& bytes() const { return bytes_; }

    static std::string i16(const std::vector<int>& v) {
        std::string s;
        for (int x : v) {
            s.push_back(char((x >> 8) & 0xFF));
            s.push_back(char(x & 0xFF));
        }
        return s;
    }
    static std::string i32(const std::vector<std::int32_t>& v) {
        std::string s;
        for (std::int32_t x : v) {
            const auto u = std::uint32_t(x);
            for (int k = 3; k >= 0; --k)
                s.push_back(char((u >> (8 * k)) & 0xFF));
        }
        return s;
    }
    /// GDSII's 8-byte real: sign, excess-64 base-16 exponent, 56-bit mantissa in [1/16, 1).
    static std::string real8(double v) {
        std::string s(8, '\0');
        if (v == 0)
            return s;
        double m = std::abs(v);
        int e = 64;
        while (m >= 1) {
            m /= 16;
            ++e;
        }
        while (m < 1.0 / 16) {
            m *= 16;
            --e;
        }
        auto mant = std::uint64_t(std::llround(std::ldexp(m, 56)));
        if (mant >> 56) {
            mant >>= 4;
            ++e;
        }
        s[0] = char((v < 0 ? 0x80 : 0) | (e & 0x7F));
        for (int k = 0; k < 7; ++k)
            s[std::size_t(k) + 1] = char((mant >> (8 * (6 - k))) & 0xFF);
        return s;
    }
    static std::string text(const std::string& t) {
        std::string s = t;
        if (s.size() % 2)
            s.push_back('\0');
        return s;
    }

private:
    std::string bytes_;
    void put16(std::uint16_t x) {
        bytes_.push_back(char(x >> 8));
        bytes_.push_back(char(x & 0xFF));
    }
};

double readReal8(const unsigned char* b) {
    std::uint64_t mant = 0;
    for (int k = 1; k < 8; ++k)
        mant = (mant << 8) | b[k];
    const int e = (b[0] & 0x7F) - 64;
    const double v = std::ldexp(double(mant), -56) * std::pow(16.0, e);
    return (b[0] & 0x80) ? -v : v;
}

std::vector<int> dateFields() {
    const std::time_t now = std::time(nullptr);
    std::tm t{};
    gmtime_r(&now, &t);
    const std::vector<int> one{t.tm_year, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec};
    std::vector<int> both = one;
    both.insert(both.end(), one.begin(), one.end());
    return both;
}

void checkName(const std::string& what, const std::string& name) {
    if (name.empty() || name.size() > 32)
        throw std::invalid_argument("GDSII: the " + what + " name must have 1 to 32 characters, got '" +
                                    name + "'");
}

} // namespace

std::vector<Point> keyholePolygon(const GdsPolygon& p) {
    if (p.outline.size() < 3)
        throw std::invalid_argument("GDSII: a polygon needs at least three vertices");
    std::vector<Point> cur = p.outline;
    if (signedArea(cur) < 0)
        std::reverse(cur.begin(), cur.end());
    std::vector<std::vector<Point>> holes = p.holes;
    for (auto& h : holes) {
        if (h.size() < 3)
            throw std::invalid_argument("GDSII: a hole needs at least three vertices");
        if (signedArea(h) > 0)
            std::reverse(h.begin(), h.end());
    }
    auto maxX = [](const std::vector<Point>& h) {
        return std::max_element(h.begin(), h.end(),
                                [](const Point& a, const Point& b) { return a[0] < b[0]; }) -
               h.begin();
    };
    // Rightmost holes first: the cut from a hole's rightmost vertex runs right, where only the outline
    // and the holes already joined to it can lie.
    std::sort(holes.begin(), holes.end(), [&](const auto& a, const auto& b) {
        return a[std::size_t(maxX(a))][0] > b[std::size_t(maxX(b))][0];
    });
    for (const auto& h : holes) {
        const std::size_t m = std::size_t(maxX(h));
        const Point M = h[m];
        double best = std::numeric_limits<double>::infinity();
        std::size_t edge = cur.size();
        for (std::size_t i = 0; i < cur.size(); ++i) {
            const Point& a = cur[i];
            const Point& b = cur[(i + 1) % cur.size()];
            if ((a[1] > M[1]) == (b[1] > M[1]))
                continue;
            const double x = a[0] + (M[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
            if (x >= M[0] && x < best) {
                best = x;
                edge = i;
            }
        }
        if (edge == cur.size())
            throw std::invalid_argument("GDSII: a hole lies outside its polygon's outline");
        const Point P{best, M[1]};
        std::vector<Point> next(cur.begin(), cur.begin() + std::ptrdiff_t(edge) + 1);
        next.push_back(P);
        for (std::size_t k = 0; k <= h.size(); ++k)
            next.push_back(h[(m + k) % h.size()]);
        next.push_back(P);
        next.insert(next.end(), cur.begin() + std::ptrdiff_t(edge) + 1, cur.end());
        cur = std::move(next);
    }
    std::vector<Point> out;
    for (const Point& q : cur)
        if (out.empty() || q != out.back())
            out.push_back(q);
    while (out.size() > 1 && out.front() == out.back())
        out.pop_back();
    return out;
}

void writeGdsii(const std::string& path, const std::string& library, const std::string& cell,
                const std::vector<GdsPolygon>& polygons, double dbUnitUm) {
    checkName("library", library);
    checkName("cell", cell);
    if (!(dbUnitUm > 0) || !std::isfinite(dbUnitUm))
        throw std::invalid_argument("GDSII: the database unit must be a positive length");
    Stream s;
    s.record(kHeader, Stream::i16({600}));
    s.record(kBgnLib, Stream::i16(dateFields()));
    s.record(kLibName, Stream::text(library));
    s.record(kUnits, Stream::real8(dbUnitUm) + Stream::real8(dbUnitUm * 1e-6));
    s.record(kBgnStr, Stream::i16(dateFields()));
    s.record(kStrName, Stream::text(cell));
    for (const GdsPolygon& p : polygons) {
        if (p.layer < 0 || p.layer > 32767 || p.datatype < 0 || p.datatype > 32767)
            throw std::invalid_argument("GDSII: layer and datatype must lie in 0..32767");
        const auto pts = keyholePolygon(p);
        if (pts.size() > 8190)
            throw std::invalid_argument("GDSII: a polygon of " + std::to_string(pts.size()) +
                                        " vertices exceeds the format's 8190; use a coarser design grid");
        std::vector<std::int32_t> xy;
        xy.reserve(2 * pts.size() + 2);
        for (std::size_t k = 0; k <= pts.size(); ++k)
            for (const double c : pts[k % pts.size()]) {
                const double v = std::round(c / dbUnitUm);
                if (!(std::abs(v) <= double(std::numeric_limits<std::int32_t>::max())))
                    throw std::invalid_argument("GDSII: a coordinate beyond the 32-bit database range");
                xy.push_back(std::int32_t(v));
            }
        s.record(kBoundary, "");
        s.record(kLayer, Stream::i16({p.layer}));
        s.record(kDataType, Stream::i16({p.datatype}));
        s.record(kXY, Stream::i32(xy));
        s.record(kEndEl, "");
    }
    s.record(kEndStr, "");
    s.record(kEndLib, "");
    writeTextAtomically(path, s.bytes());
}

GdsLibrary readGdsii(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path + ": cannot open the GDSII file");
    const std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto bad = [&](const std::string& why) {
        return InputError(path + ": not a GDSII stream (" + why + ")");
    };
    GdsLibrary lib;
    GdsBoundary cur;
    bool inBoundary = false, sawHeader = false, ended = false;
    for (std::size_t at = 0; at + 4 <= b.size() && !ended;) {
        const auto* r = reinterpret_cast<const unsigned char*>(b.data() + at);
        const std::size_t n = std::size_t(r[0]) << 8 | r[1];
        const std::uint16_t type = std::uint16_t(r[2] << 8 | r[3]);
        if (n < 4 || at + n > b.size())
            throw bad("a record runs past the end");
        const unsigned char* d = r + 4;
        const std::size_t len = n - 4;
        auto text = [&] {
            return std::string(reinterpret_cast<const char*>(d),
                               strnlen(reinterpret_cast<const char*>(d), len));
        };
        auto i16 = [&](std::size_t k) { return int(std::int16_t(d[2 * k] << 8 | d[2 * k + 1])); };
        if (!sawHeader && type != kHeader)
            throw bad("no HEADER record");
        switch (type) {
        case kHeader:
            sawHeader = true;
            break;
        case kLibName:
            lib.library = text();
            break;
        case kUnits:
            if (len < 16)
                throw bad("a short UNITS record");
            lib.dbUnitUm = readReal8(d + 8) * 1e6;
            break;
        case kStrName:
            if (lib.cell.empty())
                lib.cell = text();
            break;
        case kEndStr:
            ended = true;
            break;
        case kBoundary:
            inBoundary = true;
            cur = GdsBoundary{};
            break;
        case kLayer:
            if (inBoundary && len >= 2)
                cur.layer = i16(0);
            break;
        case kDataType:
            if (inBoundary && len >= 2)
                cur.datatype = i16(0);
            break;
        case kXY:
            if (inBoundary)
                for (std::size_t k = 0; k + 8 <= len; k += 8) {
                    auto i32 = [&](std::size_t o) {
                        return std::int32_t(std::uint32_t(d[o]) << 24 | std::uint32_t(d[o + 1]) << 16 |
                                            std::uint32_t(d[o + 2]) << 8 | std::uint32_t(d[o + 3]));
                    };
                    cur.points.push_back({i32(k) * lib.dbUnitUm, i32(k + 4) * lib.dbUnitUm});
                }
            break;
        case kEndEl:
            if (inBoundary) {
                if (cur.points.size() > 1 && cur.points.front() == cur.points.back())
                    cur.points.pop_back();
                lib.boundaries.push_back(std::move(cur));
            }
            inBoundary = false;
            break;
        default:
            break;
        }
        at += n;
    }
    if (!sawHeader)
        throw bad("empty");
    return lib;
}

} // namespace yee::files
