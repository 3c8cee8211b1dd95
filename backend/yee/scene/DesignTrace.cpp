#include "yee/scene/DesignTrace.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "yee/core/Error.hpp"

namespace yee::scene {

namespace {

using Point = std::array<double, 2>;

/// Sample positions and voxel faces along one in-plane axis of the padded trace grid: an outside
/// sample and a repeat of the edge voxel on each boundary, the voxel centres in between.
struct AxisSamples {
    std::vector<double> pos;  ///< sample k's coordinate, um
    std::vector<double> face; ///< where a staircase contour between samples k and k+1 lies, um
    std::vector<int> voxel;   ///< voxel of sample k, -1 outside
};

AxisSamples axisSamples(const Scene& s, const Box& b, int axis, int voxelCells, int voxels) {
    const double lo = s.domainLo()[axis];
    const double c = s.cellUm;
    auto cellPos = [&](int cell) { return lo + c * cell; };
    const double boxLo = cellPos(b.lo[axis]), boxHi = cellPos(b.hi[axis]);
    AxisSamples a;
    a.pos.push_back(boxLo);
    a.voxel.push_back(-1);
    a.pos.push_back(boxLo);
    a.voxel.push_back(0);
    for (int i = 0; i < voxels; ++i) {
        const int first = b.lo[axis] + i * voxelCells;
        const int end = std::min(first + voxelCells, b.hi[axis]);
        a.pos.push_back(0.5 * (cellPos(first) + cellPos(end)));
        a.voxel.push_back(i);
    }
    a.pos.push_back(boxHi);
    a.voxel.push_back(voxels - 1);
    a.pos.push_back(boxHi);
    a.voxel.push_back(-1);
    a.face.resize(a.pos.size() - 1);
    for (std::size_t k = 0; k + 1 < a.pos.size(); ++k) {
        const bool voxelGap = k >= 2 && k + 4 <= a.pos.size(); // between voxels k-2 and k-1
        a.face[k] = voxelGap ? std::min(boxHi, cellPos(b.lo[axis] + int(k - 1) * voxelCells)) : a.pos[k];
    }
    return a;
}

double signedArea(const std::vector<Point>& p) {
    double a = 0;
    for (std::size_t i = 0, n = p.size(); i < n; ++i) {
        const Point& q = p[i];
        const Point& r = p[(i + 1) % n];
        a += q[0] * r[1] - r[0] * q[1];
    }
    return 0.5 * a;
}

/// Even-odd ray test of `q` against polygon `p`.
bool inside(const std::vector<Point>& p, const Point& q) {
    bool in = false;
    for (std::size_t i = 0, j = p.size() - 1; i < p.size(); j = i++) {
        const Point& a = p[i];
        const Point& b = p[j];
        if ((a[1] > q[1]) != (b[1] > q[1]) && q[0] < a[0] + (q[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]))
            in = !in;
    }
    return in;
}

/// Drops repeated and collinear vertices (marching squares puts one vertex on every voxel edge).
std::vector<Point> simplify(std::vector<Point> p, double eps) {
    bool changed = true;
    while (changed && p.size() >= 3) {
        changed = false;
        std::vector<Point> out;
        out.reserve(p.size());
        const std::size_t n = p.size();
        for (std::size_t i = 0; i < n; ++i) {
            const Point& prev = out.empty() ? p[n - 1] : out.back();
            const Point& cur = p[i];
            const Point& next = p[(i + 1) % n];
            const double ux = cur[0] - prev[0], uy = cur[1] - prev[1];
            const double vx = next[0] - cur[0], vy = next[1] - cur[1];
            const bool repeated = std::hypot(ux, uy) <= eps;
            const bool straight =
                std::abs(ux * vy - uy * vx) <= eps * (std::hypot(ux, uy) + std::hypot(vx, vy)) &&
                ux * vx + uy * vy >= 0;
            if (repeated || straight) {
                changed = true;
                continue;
            }
            out.push_back(cur);
        }
        p = std::move(out);
    }
    return p;
}

/// Voxel face coordinates 0..n along one axis of the padded samples (box faces at both ends).
std::vector<double> faces(const AxisSamples& a, int n) {
    std::vector<double> f(std::size_t(n) + 1);
    f[0] = a.pos.front();
    for (int i = 1; i < n; ++i)
        f[std::size_t(i)] = a.face[std::size_t(i) + 1];
    f[std::size_t(n)] = a.pos.back();
    return f;
}

/// The outline of {solid voxels} along voxel faces: every face between a solid and a void voxel (or
/// the outside) as an edge with the solid on its left, linked into loops. Where two solid voxels touch
/// only at a corner, the loop turns left, so diagonal neighbours stay separate polygons.
std::vector<std::vector<Point>> staircaseRings(int nu, int nv, const std::function<bool(int, int)>& solid,
                                               const std::vector<double>& fu, const std::vector<double>& fv) {
    struct Edge {
        int a, b, c, d; ///< from lattice vertex (a, b) to (c, d)
    };
    std::vector<Edge> edges;
    for (int j = 0; j < nv; ++j)
        for (int i = 0; i < nu; ++i) {
            if (!solid(i, j))
                continue;
            if (!solid(i, j - 1))
                edges.push_back({i, j, i + 1, j});
            if (!solid(i + 1, j))
                edges.push_back({i + 1, j, i + 1, j + 1});
            if (!solid(i, j + 1))
                edges.push_back({i + 1, j + 1, i, j + 1});
            if (!solid(i - 1, j))
                edges.push_back({i, j + 1, i, j});
        }
    auto vertex = [&](int a, int b) { return std::size_t(b) * std::size_t(nu + 1) + std::size_t(a); };
    std::vector<std::array<int, 2>> out(std::size_t(nu + 1) * std::size_t(nv + 1), {-1, -1});
    for (std::size_t e = 0; e < edges.size(); ++e) {
        auto& slot = out[vertex(edges[e].a, edges[e].b)];
        slot[slot[0] < 0 ? 0 : 1] = int(e);
    }
    std::vector<bool> used(edges.size(), false);
    std::vector<std::vector<Point>> rings;
    for (std::size_t start = 0; start < edges.size(); ++start) {
        if (used[start])
            continue;
        std::vector<Point> ring;
        std::size_t e = start;
        while (!used[e]) {
            used[e] = true;
            const Edge& E = edges[e];
            ring.push_back({fu[std::size_t(E.a)], fv[std::size_t(E.b)]});
            const auto& slot = out[vertex(E.c, E.d)];
            const int dx = E.c - E.a, dy = E.d - E.b;
            // One way on, or at a corner where two solid voxels touch diagonally the left turn; a used
            // edge there is where this loop started.
            int next = slot[0];
            if (slot[1] >= 0) {
                const Edge& N = edges[std::size_t(slot[1])];
                if (N.c - N.a == -dy && N.d - N.b == dx)
                    next = slot[1];
            }
            if (next < 0 || used[std::size_t(next)])
                break;
            e = std::size_t(next);
        }
        rings.push_back(std::move(ring));
    }
    return rings;
}

} // namespace

double DesignTrace::solidAreaUm2() const {
    double a = 0;
    for (const auto& l : loops)
        a += (l.depth % 2 == 0 ? 1 : -1) * l.areaUm2;
    return a;
}

DesignTrace traceDesign(const Scene& s, std::size_t d, const std::vector<double>& density, double level,
                        TraceMode mode) {
    if (d >= s.designs.size())
        throw std::invalid_argument("traceDesign: no design " + std::to_string(d));
    if (!(level > 0 && level < 1))
        throw std::invalid_argument("traceDesign: level must lie in (0, 1)");
    const std::string field = "designs[" + std::to_string(d) + "]";
    const auto n = s.designVoxels(d);
    if (density.size() != s.designLatentSize(d))
        throw std::invalid_argument("traceDesign: " + field + " has " +
                                    std::to_string(s.designLatentSize(d)) + " voxels, got " +
                                    std::to_string(density.size()) + " density values");
    DesignTrace t;
    t.design = d;
    t.axis = n[2] == 1 ? 2 : n[1] == 1 ? 1 : n[0] == 1 ? 0 : -1;
    if (t.axis < 0)
        throw InputError(field +
                         ": geometry export needs a design that is one voxel thick along x, y or z "
                         "(it is extruded along that axis); this one has " +
                         std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]) +
                         " voxels");
    const Box b = s.designCells(d);
    const Vec3 dlo = s.domainLo();
    for (int a = 0; a < 3; ++a) {
        t.lo[a] = dlo[a] + s.cellUm * b.lo[a];
        t.hi[a] = dlo[a] + s.cellUm * b.hi[a];
    }
    const int au = t.axis == 0 ? 1 : 0;
    const int av = t.axis == 2 ? 1 : 2;
    const auto& g = s.designs[d];
    const AxisSamples U =
        axisSamples(s, b, au, std::max(1, g.voxelCells[std::size_t(au)]), n[std::size_t(au)]);
    const AxisSamples V =
        axisSamples(s, b, av, std::max(1, g.voxelCells[std::size_t(av)]), n[std::size_t(av)]);
    const int nu = int(U.pos.size()), nv = int(V.pos.size());
    auto value = [&](int ku, int kv) {
        const int iu = U.voxel[std::size_t(ku)], iv = V.voxel[std::size_t(kv)];
        if (iu < 0 || iv < 0)
            return -1.0;
        std::array<std::size_t, 3> idx{0, 0, 0};
        idx[std::size_t(au)] = std::size_t(iu);
        idx[std::size_t(av)] = std::size_t(iv);
        return density[idx[0] + std::size_t(n[0]) * (idx[1] + std::size_t(n[1]) * idx[2])];
    };
    auto crossing = [&](const AxisSamples& A, int k, double a, double bv) {
        if (mode == TraceMode::Staircase || A.pos[std::size_t(k)] == A.pos[std::size_t(k) + 1])
            return mode == TraceMode::Staircase ? A.face[std::size_t(k)] : A.pos[std::size_t(k)];
        const double f = (level - a) / (bv - a);
        return A.pos[std::size_t(k)] + f * (A.pos[std::size_t(k) + 1] - A.pos[std::size_t(k)]);
    };
    // Edge ids: 2 (kv nu + ku) for the edge from sample (ku, kv) along u, + 1 for the one along v.
    auto edgeU = [&](int ku, int kv) { return 2 * (std::size_t(kv) * std::size_t(nu) + std::size_t(ku)); };
    auto edgeV = [&](int ku, int kv) { return edgeU(ku, kv) + 1; };
    auto edgePoint = [&](std::size_t e) -> Point {
        const std::size_t cell = e / 2;
        const int ku = int(cell % std::size_t(nu)), kv = int(cell / std::size_t(nu));
        if (e % 2 == 0)
            return {crossing(U, ku, value(ku, kv), value(ku + 1, kv)), V.pos[std::size_t(kv)]};
        return {U.pos[std::size_t(ku)], crossing(V, kv, value(ku, kv), value(ku, kv + 1))};
    };
    const double voxelUm =
        s.cellUm * std::max(1, *std::min_element(g.voxelCells.begin(), g.voxelCells.end()));
    const double eps = 1e-9 * voxelUm;
    std::vector<std::vector<Point>> rings;
    if (mode == TraceMode::Staircase) {
        const int mu = n[std::size_t(au)], mv = n[std::size_t(av)];
        auto solid = [&](int iu, int iv) {
            return iu >= 0 && iv >= 0 && iu < mu && iv < mv && value(iu + 2, iv + 2) >= level;
        };
        rings = staircaseRings(mu, mv, solid, faces(U, mu), faces(V, mv));
        for (auto& r : rings)
            r = simplify(std::move(r), eps);
    } else {
        std::vector<std::pair<std::size_t, std::size_t>> segments;
        for (int kv = 0; kv + 1 < nv; ++kv)
            for (int ku = 0; ku + 1 < nu; ++ku) {
                const double c[4] = {value(ku, kv), value(ku + 1, kv), value(ku + 1, kv + 1),
                                     value(ku, kv + 1)};
                const bool in[4] = {c[0] >= level, c[1] >= level, c[2] >= level, c[3] >= level};
                // Edges of the square: 0 bottom (corners 0-1), 1 right (1-2), 2 top (3-2), 3 left (0-3).
                const std::size_t e[4] = {edgeU(ku, kv), edgeV(ku + 1, kv), edgeU(ku, kv + 1), edgeV(ku, kv)};
                const int count = in[0] + in[1] + in[2] + in[3];
                if (count == 0 || count == 4)
                    continue;
                if (count == 2 && in[0] == in[2]) { // saddle: cut off the corners unlike the centre
                    const bool centre = 0.25 * (c[0] + c[1] + c[2] + c[3]) >= level;
                    for (int k = 0; k < 4; ++k)
                        if (in[k] != centre)
                            segments.emplace_back(e[(k + 3) % 4], e[k]);
                    continue;
                }
                std::size_t ends[2];
                int m = 0;
                for (int k = 0; k < 4; ++k)
                    if (in[k] != in[(k + 1) % 4])
                        ends[m++] = e[k];
                segments.emplace_back(ends[0], ends[1]);
            }
        // Link segments into loops through the edges they share (each crossed edge joins two squares).
        std::vector<std::array<int, 2>> at(2 * std::size_t(nu) * std::size_t(nv), {-1, -1});
        for (std::size_t i = 0; i < segments.size(); ++i)
            for (const std::size_t e : {segments[i].first, segments[i].second}) {
                auto& slot = at[e];
                slot[slot[0] < 0 ? 0 : 1] = int(i);
            }
        std::vector<bool> used(segments.size(), false);
        for (std::size_t start = 0; start < segments.size(); ++start) {
            if (used[start])
                continue;
            std::vector<Point> ring;
            std::size_t seg = start, edge = segments[start].second;
            used[start] = true;
            ring.push_back(edgePoint(segments[start].first));
            while (edge != segments[start].first) {
                ring.push_back(edgePoint(edge));
                const auto& slot = at[edge];
                const int next = slot[0] == int(seg) ? slot[1] : slot[0];
                if (next < 0 || used[std::size_t(next)])
                    throw std::logic_error("traceDesign: an open contour (internal error)");
                seg = std::size_t(next);
                used[seg] = true;
                edge = segments[seg].first == edge ? segments[seg].second : segments[seg].first;
            }
            ring = simplify(std::move(ring), eps);
            if (ring.size() >= 3 && std::abs(signedArea(ring)) > 1e-9 * voxelUm * voxelUm)
                rings.push_back(std::move(ring));
        }
    }
    // Nesting: a ring's depth is the number of rings around it, its parent the smallest of them.
    const double uLo = t.lo[au], uHi = t.hi[au], vLo = t.lo[av], vHi = t.hi[av];
    // A ring's probe point: the midpoint of its first edge off the region's boundary (rings share no
    // edge, so no other ring passes through it).
    auto probe = [&](const std::vector<Point>& r) {
        for (std::size_t k = 0; k < r.size(); ++k) {
            const Point& a = r[k];
            const Point& b = r[(k + 1) % r.size()];
            const Point p{0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])};
            if (p[0] > uLo + eps && p[0] < uHi - eps && p[1] > vLo + eps && p[1] < vHi - eps)
                return p;
        }
        return r.front();
    };
    std::vector<TracedLoop> loops(rings.size());
    for (std::size_t i = 0; i < rings.size(); ++i)
        loops[i].areaUm2 = std::abs(signedArea(rings[i]));
    for (std::size_t i = 0; i < rings.size(); ++i) {
        const Point q = probe(rings[i]);
        for (std::size_t j = 0; j < rings.size(); ++j) {
            if (j == i || !inside(rings[j], q))
                continue;
            ++loops[i].depth;
            if (loops[i].parent < 0 || loops[j].areaUm2 < loops[std::size_t(loops[i].parent)].areaUm2)
                loops[i].parent = int(j);
        }
    }
    for (std::size_t i = 0; i < rings.size(); ++i) {
        const bool ccw = signedArea(rings[i]) > 0;
        if (ccw != (loops[i].depth % 2 == 0))
            std::reverse(rings[i].begin(), rings[i].end());
        loops[i].vertices = std::move(rings[i]);
    }
    std::vector<std::size_t> order(loops.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b2) { return loops[a].depth < loops[b2].depth; });
    std::vector<int> where(loops.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        where[order[i]] = int(i);
    for (const std::size_t i : order) {
        TracedLoop l = loops[i];
        if (l.parent >= 0)
            l.parent = where[std::size_t(l.parent)];
        t.loops.push_back(std::move(l));
    }
    return t;
}

std::vector<Object> tracedObjects(const Scene& s, const DesignTrace& t) {
    const Design& g = s.designs.at(t.design);
    std::vector<Object> out;
    Object box;
    box.name = g.name + "_background";
    box.shape = Shape::Box;
    for (int a = 0; a < 3; ++a) {
        box.center[a] = 0.5 * (t.lo[a] + t.hi[a]);
        box.size[a] = t.hi[a] - t.lo[a];
    }
    box.material = g.materials[0];
    out.push_back(box);
    const int au = t.axis == 0 ? 1 : 0;
    const int av = t.axis == 2 ? 1 : 2;
    int solids = 0, holes = 0;
    for (const TracedLoop& l : t.loops) {
        Object p;
        const bool solid = l.depth % 2 == 0;
        p.name = g.name + (solid ? "_solid" + std::to_string(solids++) : "_hole" + std::to_string(holes++));
        p.shape = Shape::Polygon;
        p.axis = t.axis;
        p.height = t.hi[t.axis] - t.lo[t.axis];
        p.center = box.center;
        p.vertices = l.vertices;
        double lo[2] = {l.vertices[0][0], l.vertices[0][1]}, hi[2] = {lo[0], lo[1]};
        for (const auto& v : l.vertices)
            for (int k = 0; k < 2; ++k) {
                lo[k] = std::min(lo[k], v[std::size_t(k)]);
                hi[k] = std::max(hi[k], v[std::size_t(k)]);
            }
        p.center[au] = 0.5 * (lo[0] + hi[0]);
        p.center[av] = 0.5 * (lo[1] + hi[1]);
        p.size = box.size;
        p.size[au] = hi[0] - lo[0];
        p.size[av] = hi[1] - lo[1];
        p.material = solid ? g.materials[1] : g.materials[0];
        out.push_back(std::move(p));
    }
    return out;
}

Scene withTracedDesigns(const Scene& s, const std::vector<std::vector<double>>& densities, double level,
                        TraceMode mode) {
    if (densities.size() != s.designs.size())
        throw std::invalid_argument("withTracedDesigns: one density per design region expected");
    std::vector<DesignTrace> traces;
    for (std::size_t d = 0; d < s.designs.size(); ++d)
        traces.push_back(traceDesign(s, d, densities[d], level, mode));
    return withTraces(s, traces);
}

Scene withTraces(const Scene& s, const std::vector<DesignTrace>& traces) {
    Scene r = s;
    for (const DesignTrace& t : traces) {
        const auto objs = tracedObjects(s, t);
        r.objects.insert(r.objects.end(), objs.begin(), objs.end());
    }
    r.designs.clear();
    r.optimization = OptimizationConfig{};
    return r;
}

} // namespace yee::scene
