#include "yee/scene/Rasterizer.hpp"

#include "yee/scene/MaterialModel.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "yee/core/Error.hpp"

namespace yee::scene {

namespace {

/// Supersamples per axis for cubes cut by curved or slanted surfaces.
constexpr int kN = 6;
constexpr int kN3 = kN * kN * kN;
/// At most this many cut boxes are integrated exactly (cube split along their faces).
constexpr int kMaxExactBoxes = 3;

/// Planar features within 1e-9 cells of a half-cell position are put exactly on it, so that an
/// interface meant to lie on a cell face does not leave a 1e-15 sliver that costs supersampling.
double snap(double x) {
    const double h = std::round(2 * x) / 2;
    return std::fabs(x - h) < 1e-9 ? h : x;
}

double sq(double x) {
    return x * x;
}

/// Does segment (x0,y0)-(x1,y1) touch the rectangle [ulo,uhi] x [vlo,vhi]?
bool segmentTouchesRect(double x0, double y0, double x1, double y1, double ulo, double uhi, double vlo,
                        double vhi) {
    if (std::max(x0, x1) < ulo || std::min(x0, x1) > uhi || std::max(y0, y1) < vlo || std::min(y0, y1) > vhi)
        return false;
    // The segment's bounding box overlaps the rectangle: it touches it unless all four corners lie
    // strictly on one side of its line.
    const double dx = x1 - x0, dy = y1 - y0;
    auto side = [&](double x, double y) { return dx * (y - y0) - dy * (x - x0); };
    const double s[4] = {side(ulo, vlo), side(uhi, vlo), side(ulo, vhi), side(uhi, vhi)};
    const bool allPos = s[0] > 0 && s[1] > 0 && s[2] > 0 && s[3] > 0;
    const bool allNeg = s[0] < 0 && s[1] < 0 && s[2] < 0 && s[3] < 0;
    return !(allPos || allNeg);
}

/// Even-odd (crossing number) point-in-polygon test.
bool insidePolygon(const std::vector<double>& pu, const std::vector<double>& pv, double x, double y) {
    bool in = false;
    const std::size_t n = pu.size();
    for (std::size_t a = 0, b = n - 1; a < n; b = a++) {
        if ((pv[a] > y) != (pv[b] > y)) {
            const double xc = pu[a] + (y - pv[a]) * (pu[b] - pu[a]) / (pv[b] - pv[a]);
            if (x < xc)
                in = !in;
        }
    }
    return in;
}

/// Area and first moments (integral of u and of v) of a polygon clipped to a rectangle
/// (Sutherland-Hodgman against the convex window, then the shoelace formula; exact for any simple
/// polygon, the degenerate edges clipping can leave in concave ones carry no area).
void clippedMoments(const std::vector<double>& pu, const std::vector<double>& pv, double ulo, double uhi,
                    double vlo, double vhi, double& area, double& mu, double& mv) {
    std::vector<std::array<double, 2>> poly(pu.size()), next;
    for (std::size_t i = 0; i < pu.size(); ++i)
        poly[i] = {pu[i], pv[i]};
    // Clip against u >= ulo, u <= uhi, v >= vlo, v <= vhi in turn.
    for (int edge = 0; edge < 4 && !poly.empty(); ++edge) {
        const int axis = edge / 2;
        const double bound = edge == 0 ? ulo : edge == 1 ? uhi : edge == 2 ? vlo : vhi;
        const bool keepAbove = edge % 2 == 0;
        auto inside = [&](const std::array<double, 2>& q) {
            return keepAbove ? q[axis] >= bound : q[axis] <= bound;
        };
        next.clear();
        for (std::size_t i = 0; i < poly.size(); ++i) {
            const auto& a = poly[(i + poly.size() - 1) % poly.size()];
            const auto& b = poly[i];
            const bool ia = inside(a), ib = inside(b);
            if (ia != ib) {
                const double t = (bound - a[axis]) / (b[axis] - a[axis]);
                std::array<double, 2> x{a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])};
                x[axis] = bound;
                next.push_back(x);
            }
            if (ib)
                next.push_back(b);
        }
        poly.swap(next);
    }
    area = mu = mv = 0;
    for (std::size_t i = 0; i < poly.size(); ++i) {
        const auto& a = poly[i];
        const auto& b = poly[(i + 1) % poly.size()];
        const double cross = a[0] * b[1] - b[0] * a[1];
        area += cross;
        mu += (a[0] + b[0]) * cross;
        mv += (a[1] + b[1]) * cross;
    }
    area *= 0.5;
    mu /= 6;
    mv /= 6;
    if (area < 0) {
        area = -area;
        mu = -mu;
        mv = -mv;
    }
}

/// Kottke effective value along a component with squared normal projection nc2.
double kottke(double mean, double meanInv, double nc2) {
    const double inv = nc2 * meanInv + (1 - nc2) / mean;
    return 1 / inv;
}

} // namespace

Vec3 Rasterizer::yeeOffset(int field, int c) {
    Vec3 o{0, 0, 0};
    for (int a = 0; a < 3; ++a)
        o[a] = ((a == c) == (field == 0)) ? 0.5 : 0.0;
    return o;
}

Rasterizer::Rasterizer(const Scene& s) {
    for (const auto& m : s.materials) {
        const MaterialModel mm = materialModel(m); // eps_inf for dispersive materials (poles: solver/)
        mats_.push_back({mm.epsInf, mm.mu, mm.sigma});
    }
    mats_.push_back({1, 1, 0});
    background_ = int(s.materials.size());
    if (!s.background.empty()) {
        background_ = s.materialIndex(s.background);
        if (background_ < 0)
            throw InputError("background: unknown material \"" + s.background + "\"");
    }
    const Vec3 lo = s.domainLo();
    const double dx = s.cellUm;
    auto cells = [&](double um, int a) { return (um - lo[std::size_t(a)]) / dx; };
    for (std::size_t i = 0; i < s.objects.size(); ++i) {
        const Object& o = s.objects[i];
        Geo g;
        g.shape = o.shape;
        g.mat = s.materialIndex(o.material);
        if (g.mat < 0)
            throw InputError("objects[" + std::to_string(i) + "].material: unknown material \"" + o.material +
                             "\"");
        g.axis = std::clamp(o.axis, 0, 2);
        g.u = g.axis == 0 ? 1 : 0;
        g.v = g.axis == 2 ? 1 : 2;
        for (int a = 0; a < 3; ++a)
            g.c[a] = cells(o.center[std::size_t(a)], a);
        g.r2 = sq(o.radius / dx);
        const auto [blo, bhi] = objectBounds(o);
        const bool planar = o.shape == Shape::Box || o.shape == Shape::Polygon;
        for (int a = 0; a < 3; ++a) {
            g.lo[a] = cells(blo[std::size_t(a)], a);
            g.hi[a] = cells(bhi[std::size_t(a)], a);
            if (planar || a == g.axis) {
                g.lo[a] = snap(g.lo[a]);
                g.hi[a] = snap(g.hi[a]);
            }
        }
        if (o.shape == Shape::Polygon) {
            for (const auto& v : o.vertices) {
                g.pu.push_back(snap(cells(v[0], g.u)));
                g.pv.push_back(snap(cells(v[1], g.v)));
            }
        }
        geo_.push_back(std::move(g));
    }
    for (std::size_t d = 0; d < s.designs.size(); ++d) {
        const Design& g = s.designs[d];
        DesignRegion r{s.designCells(d), g.voxelCells, s.designVoxels(d), DesignMap(s, d), {}, 1, 0};
        const std::vector<double> latent =
            g.latent.empty() ? std::vector<double>(r.map.size(), 0.5) : g.latent;
        r.rho = r.map.forward(latent);
        if (const Material* m = s.findMaterial(g.materials[0])) {
            r.mu = m->mu;
            r.sigma = m->sigma;
        }
        designs_.push_back(std::move(r));
    }
}

void Rasterizer::setDensity(int d, std::vector<double> rho) {
    DesignRegion& r = designs_.at(std::size_t(d));
    if (rho.size() != r.map.size())
        throw std::invalid_argument("Rasterizer::setDensity: " + std::to_string(rho.size()) +
                                    " values, expected " + std::to_string(r.map.size()));
    r.rho = std::move(rho);
}

void Rasterizer::setDesign(int d, const Scene& s) {
    DesignRegion& r = designs_.at(std::size_t(d));
    DesignMap map(s, std::size_t(d));
    if (map.size() != r.map.size())
        throw std::invalid_argument("Rasterizer::setDesign: " + std::to_string(map.size()) +
                                    " voxels, expected " + std::to_string(r.map.size()));
    const Design& g = s.designs[std::size_t(d)];
    std::vector<double> rho = map.forward(g.latent.empty() ? std::vector<double>(map.size(), 0.5) : g.latent);
    r.map = std::move(map);
    r.rho = std::move(rho);
}

DesignHit Rasterizer::designAt(int i, int j, int k) const {
    for (std::size_t d = 0; d < designs_.size(); ++d) {
        const DesignRegion& r = designs_[d];
        if (!r.box.contains({i, j, k}))
            continue;
        const std::int64_t a = (i - r.box.lo[0]) / r.voxelCells[0];
        const std::int64_t b = (j - r.box.lo[1]) / r.voxelCells[1];
        const std::int64_t c = (k - r.box.lo[2]) / r.voxelCells[2];
        return {int(d), a + r.voxels[0] * (b + std::int64_t(r.voxels[1]) * c)};
    }
    return {};
}

CellMaterial Rasterizer::designMaterial(const DesignHit& h) const {
    const DesignRegion& r = designs_[std::size_t(h.region)];
    return {r.map.eps(r.rho[std::size_t(h.voxel)]), r.mu, r.sigma};
}

Rasterizer::Cover Rasterizer::classify(const Geo& g, const double lo[3], const double hi[3]) const {
    for (int a = 0; a < 3; ++a)
        if (hi[a] <= g.lo[a] || lo[a] >= g.hi[a])
            return Cover::Outside;
    switch (g.shape) {
    case Shape::Box:
        for (int a = 0; a < 3; ++a)
            if (lo[a] < g.lo[a] || hi[a] > g.hi[a])
                return Cover::Partial;
        return Cover::Inside;
    case Shape::Sphere: {
        double dmin = 0, dmax = 0;
        for (int a = 0; a < 3; ++a) {
            dmin += sq(std::max({g.c[a] - hi[a], 0.0, lo[a] - g.c[a]}));
            dmax += sq(std::max(std::fabs(lo[a] - g.c[a]), std::fabs(hi[a] - g.c[a])));
        }
        if (dmin >= g.r2)
            return Cover::Outside;
        return dmax <= g.r2 ? Cover::Inside : Cover::Partial;
    }
    case Shape::Cylinder: {
        double dmin = 0, dmax = 0;
        for (int a : {g.u, g.v}) {
            dmin += sq(std::max({g.c[a] - hi[a], 0.0, lo[a] - g.c[a]}));
            dmax += sq(std::max(std::fabs(lo[a] - g.c[a]), std::fabs(hi[a] - g.c[a])));
        }
        if (dmin >= g.r2)
            return Cover::Outside;
        const bool axialIn = lo[g.axis] >= g.lo[g.axis] && hi[g.axis] <= g.hi[g.axis];
        return axialIn && dmax <= g.r2 ? Cover::Inside : Cover::Partial;
    }
    case Shape::Polygon: {
        const int u = g.u, v = g.v;
        const std::size_t n = g.pu.size();
        for (std::size_t a = 0, b = n - 1; a < n; b = a++)
            if (segmentTouchesRect(g.pu[b], g.pv[b], g.pu[a], g.pv[a], lo[u], hi[u], lo[v], hi[v]))
                return Cover::Partial;
        if (!insidePolygon(g.pu, g.pv, 0.5 * (lo[u] + hi[u]), 0.5 * (lo[v] + hi[v])))
            return Cover::Outside;
        const bool axialIn = lo[g.axis] >= g.lo[g.axis] && hi[g.axis] <= g.hi[g.axis];
        return axialIn ? Cover::Inside : Cover::Partial;
    }
    }
    return Cover::Partial;
}

template <class Acc>
void Rasterizer::integrate(const double p[3], const int* partial, int npartial, int base, Acc&& acc) const {
    // `partial` lists the cut objects from the top down; `base` is the material under all of them.
    const bool allBoxes = npartial <= kMaxExactBoxes && std::all_of(partial, partial + npartial, [&](int o) {
                              return geo_[std::size_t(o)].shape == Shape::Box;
                          });
    if (allBoxes) {
        // Exact: split the cube along every face of the cut boxes; each piece is uniform.
        double cuts[3][2 * kMaxExactBoxes + 2];
        int ncut[3];
        for (int a = 0; a < 3; ++a) {
            int n = 0;
            cuts[a][n++] = p[a] - 0.5;
            cuts[a][n++] = p[a] + 0.5;
            for (int t = 0; t < npartial; ++t) {
                const Geo& g = geo_[std::size_t(partial[t])];
                for (double x : {g.lo[a], g.hi[a]})
                    if (x > p[a] - 0.5 && x < p[a] + 0.5)
                        cuts[a][n++] = x;
            }
            std::sort(cuts[a], cuts[a] + n);
            ncut[a] = int(std::unique(cuts[a], cuts[a] + n) - cuts[a]);
        }
        for (int z = 0; z + 1 < ncut[2]; ++z)
            for (int y = 0; y + 1 < ncut[1]; ++y)
                for (int x = 0; x + 1 < ncut[0]; ++x) {
                    const double q[3] = {0.5 * (cuts[0][x] + cuts[0][x + 1]),
                                         0.5 * (cuts[1][y] + cuts[1][y + 1]),
                                         0.5 * (cuts[2][z] + cuts[2][z + 1])};
                    const double w = (cuts[0][x + 1] - cuts[0][x]) * (cuts[1][y + 1] - cuts[1][y]) *
                                     (cuts[2][z + 1] - cuts[2][z]);
                    int m = base;
                    for (int t = 0; t < npartial; ++t) {
                        const Geo& g = geo_[std::size_t(partial[t])];
                        if (q[0] >= g.lo[0] && q[0] < g.hi[0] && q[1] >= g.lo[1] && q[1] < g.hi[1] &&
                            q[2] >= g.lo[2] && q[2] < g.hi[2]) {
                            m = g.mat;
                            break;
                        }
                    }
                    acc(m, w, q[0] - p[0], q[1] - p[1], q[2] - p[2]);
                }
        return;
    }

    if (npartial == 1 && (geo_[std::size_t(partial[0])].shape == Shape::Cylinder ||
                          geo_[std::size_t(partial[0])].shape == Shape::Polygon)) {
        // One cut prism: the overlap is (cross-section in the plane) x (interval along the axis).
        // The polygon's cross-section is clipped exactly; the disk's is sampled on a fine 2-D grid.
        const Geo& g = geo_[std::size_t(partial[0])];
        const int u = g.u, v = g.v, ax = g.axis;
        double area = 0, cu = 0, cv = 0;
        if (g.shape == Shape::Polygon) {
            double mu = 0, mv = 0;
            clippedMoments(g.pu, g.pv, p[u] - 0.5, p[u] + 0.5, p[v] - 0.5, p[v] + 0.5, area, mu, mv);
            if (area > 0) {
                cu = mu / area - p[u];
                cv = mv / area - p[v];
            }
        } else {
            constexpr int kDisk = 16;
            int count = 0;
            for (int a = 0; a < kDisk; ++a)
                for (int b = 0; b < kDisk; ++b) {
                    const double du = (a + 0.5) / kDisk - 0.5, dv = (b + 0.5) / kDisk - 0.5;
                    if (sq(p[u] + du - g.c[u]) + sq(p[v] + dv - g.c[v]) < g.r2) {
                        ++count;
                        cu += du;
                        cv += dv;
                    }
                }
            area = double(count) / (kDisk * kDisk);
            if (count > 0) {
                cu /= count;
                cv /= count;
            }
        }
        const double a0 = std::max(p[ax] - 0.5, g.lo[ax]), a1 = std::min(p[ax] + 0.5, g.hi[ax]);
        const double f = area * std::max(0.0, a1 - a0);
        if (f <= 0) {
            acc(base, 1.0, 0.0, 0.0, 0.0);
            return;
        }
        double d[3];
        d[u] = cu;
        d[v] = cv;
        d[ax] = 0.5 * (a0 + a1) - p[ax];
        if (f >= 1) {
            acc(g.mat, 1.0, 0.0, 0.0, 0.0);
            return;
        }
        // The rest of the cube has the opposite first moment (the cube's own is zero).
        const double r = -f / (1 - f);
        acc(g.mat, f, d[0], d[1], d[2]);
        acc(base, 1 - f, r * d[0], r * d[1], r * d[2]);
        return;
    }

    // Supersampling on a kN^3 grid: paint objects bottom-up so each sample ends with the topmost.
    double off[kN];
    for (int s = 0; s < kN; ++s)
        off[s] = (s + 0.5) / kN - 0.5;
    int slot[kN3];
    std::fill(slot, slot + kN3, -1);
    for (int t = npartial - 1; t >= 0; --t) {
        const Geo& g = geo_[std::size_t(partial[t])];
        int idx[3];
        auto at = [&]() { return idx[0] + kN * (idx[1] + kN * idx[2]); };
        switch (g.shape) {
        case Shape::Box:
        case Shape::Sphere:
            for (idx[2] = 0; idx[2] < kN; ++idx[2])
                for (idx[1] = 0; idx[1] < kN; ++idx[1])
                    for (idx[0] = 0; idx[0] < kN; ++idx[0]) {
                        const double q[3] = {p[0] + off[idx[0]], p[1] + off[idx[1]], p[2] + off[idx[2]]};
                        bool in;
                        if (g.shape == Shape::Box)
                            in = q[0] >= g.lo[0] && q[0] < g.hi[0] && q[1] >= g.lo[1] && q[1] < g.hi[1] &&
                                 q[2] >= g.lo[2] && q[2] < g.hi[2];
                        else
                            in = sq(q[0] - g.c[0]) + sq(q[1] - g.c[1]) + sq(q[2] - g.c[2]) < g.r2;
                        if (in)
                            slot[at()] = t;
                    }
            break;
        case Shape::Cylinder:
        case Shape::Polygon:
            // In-plane test once per (u, v) sample, then the axial range per w sample.
            for (idx[g.u] = 0; idx[g.u] < kN; ++idx[g.u])
                for (idx[g.v] = 0; idx[g.v] < kN; ++idx[g.v]) {
                    const double qu = p[g.u] + off[idx[g.u]], qv = p[g.v] + off[idx[g.v]];
                    const bool in = g.shape == Shape::Cylinder ? sq(qu - g.c[g.u]) + sq(qv - g.c[g.v]) < g.r2
                                                               : insidePolygon(g.pu, g.pv, qu, qv);
                    if (!in)
                        continue;
                    for (idx[g.axis] = 0; idx[g.axis] < kN; ++idx[g.axis]) {
                        const double qw = p[g.axis] + off[idx[g.axis]];
                        if (qw >= g.lo[g.axis] && qw < g.hi[g.axis])
                            slot[at()] = t;
                    }
                }
            break;
        }
    }
    constexpr double w = 1.0 / kN3;
    for (int z = 0; z < kN; ++z)
        for (int y = 0; y < kN; ++y)
            for (int x = 0; x < kN; ++x) {
                const int s = slot[x + kN * (y + kN * z)];
                acc(s < 0 ? base : geo_[std::size_t(partial[s])].mat, w, off[x], off[y], off[z]);
            }
}

Vec3 Rasterizer::surfaceNormal(const Geo& g, const double p[3]) const {
    Vec3 n{0, 0, 0};
    switch (g.shape) {
    case Shape::Box: {
        double out[3], dist2 = 0;
        for (int a = 0; a < 3; ++a) {
            out[a] = p[a] < g.lo[a] ? p[a] - g.lo[a] : p[a] > g.hi[a] ? p[a] - g.hi[a] : 0.0;
            dist2 += sq(out[a]);
        }
        if (dist2 > 0) {
            for (int a = 0; a < 3; ++a)
                n[a] = out[a];
        } else {
            int best = 0;
            double bd = 1e300;
            for (int a = 0; a < 3; ++a) {
                const double d = std::min(p[a] - g.lo[a], g.hi[a] - p[a]);
                if (d < bd) {
                    bd = d;
                    best = a;
                }
            }
            n[best] = 1;
        }
        break;
    }
    case Shape::Sphere:
        for (int a = 0; a < 3; ++a)
            n[a] = p[a] - g.c[a];
        break;
    case Shape::Cylinder:
    case Shape::Polygon: {
        const double w = p[g.axis];
        const double dAxial = std::min(std::fabs(w - g.lo[g.axis]), std::fabs(w - g.hi[g.axis]));
        double dIn = 1e300, nu = 0, nv = 0;
        if (g.shape == Shape::Cylinder) {
            nu = p[g.u] - g.c[g.u];
            nv = p[g.v] - g.c[g.v];
            dIn = std::fabs(std::sqrt(nu * nu + nv * nv) - std::sqrt(g.r2));
        } else {
            const std::size_t cnt = g.pu.size();
            for (std::size_t a = 0, b = cnt - 1; a < cnt; b = a++) {
                const double ex = g.pu[a] - g.pu[b], ey = g.pv[a] - g.pv[b];
                const double len2 = ex * ex + ey * ey;
                if (len2 <= 0)
                    continue;
                const double t =
                    std::clamp(((p[g.u] - g.pu[b]) * ex + (p[g.v] - g.pv[b]) * ey) / len2, 0.0, 1.0);
                const double d = std::hypot(p[g.u] - (g.pu[b] + t * ex), p[g.v] - (g.pv[b] + t * ey));
                if (d < dIn) {
                    dIn = d;
                    nu = -ey;
                    nv = ex;
                }
            }
        }
        if (dAxial < dIn) {
            n[g.axis] = 1;
        } else {
            n[g.u] = nu;
            n[g.v] = nv;
        }
        break;
    }
    }
    const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (len > 0)
        for (double& x : n)
            x /= len;
    return n;
}

CellMaterial Rasterizer::evaluate(int c, const double p[3], const int* cand, int ncand) const {
    const double lo[3] = {p[0] - 0.5, p[1] - 0.5, p[2] - 0.5};
    const double hi[3] = {p[0] + 0.5, p[1] + 0.5, p[2] + 0.5};
    int partial[64];
    int npartial = 0;
    int base = background_;
    for (int t = ncand - 1; t >= 0; --t) {
        const Geo& g = geo_[std::size_t(cand[t])];
        const Cover cv = classify(g, lo, hi);
        if (cv == Cover::Outside)
            continue;
        if (cv == Cover::Inside) {
            base = g.mat;
            break;
        }
        if (npartial == 64)
            break; // deeper objects are hidden in practice; treat the rest as base
        partial[npartial++] = cand[t];
    }
    if (npartial == 0)
        return mats_[std::size_t(base)];

    double eps = 0, invEps = 0, mu = 0, invMu = 0, sigma = 0;
    double me[3] = {0, 0, 0}, mm[3] = {0, 0, 0};
    double epsLo = 1e300, epsHi = -1e300, muLo = 1e300, muHi = -1e300;
    integrate(p, partial, npartial, base, [&](int m, double w, double dx, double dy, double dz) {
        const CellMaterial& cm = mats_[std::size_t(m)];
        eps += w * cm.eps;
        invEps += w / cm.eps;
        mu += w * cm.mu;
        invMu += w / cm.mu;
        sigma += w * cm.sigma;
        const double d[3] = {dx, dy, dz};
        for (int a = 0; a < 3; ++a) {
            me[a] += w * d[a] * cm.eps;
            mm[a] += w * d[a] * cm.mu;
        }
        epsLo = std::min(epsLo, cm.eps);
        epsHi = std::max(epsHi, cm.eps);
        muLo = std::min(muLo, cm.mu);
        muHi = std::max(muHi, cm.mu);
    });

    // Interface normal: the first moment of the property over the cube points across the interface;
    // it vanishes for features symmetric about the location (a thin film through its centre), where
    // the surface normal of the topmost cut object is used instead.
    bool haveShape = false;
    Vec3 shapeN{0, 0, 0};
    auto normalSq = [&](const double m[3], double contrast) {
        const double len2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
        if (len2 > sq(0.01 * contrast))
            return m[c] * m[c] / len2;
        if (!haveShape) {
            shapeN = surfaceNormal(geo_[std::size_t(partial[0])], p);
            haveShape = true;
        }
        return shapeN[std::size_t(c)] * shapeN[std::size_t(c)];
    };
    CellMaterial out;
    out.eps = epsHi > epsLo ? kottke(eps, invEps, normalSq(me, epsHi - epsLo)) : epsLo;
    out.mu = muHi > muLo ? kottke(mu, invMu, normalSq(mm, muHi - muLo)) : muLo;
    out.sigma = sigma;
    return out;
}

CellMaterial Rasterizer::at(int field, int c, int i, int j, int k) const {
    CellMaterial m;
    fillRow(field, c, j, k, i, i + 1, &m);
    return m;
}

void Rasterizer::fillRow(int field, int c, int j, int k, int i0, int i1, CellMaterial* out) const {
    const Vec3 o = yeeOffset(field, c);
    const double py = j + o[1], pz = k + o[2];
    // Objects whose bounding boxes reach the row's cubes, bottom to top.
    std::vector<int> cand;
    cand.reserve(geo_.size());
    for (std::size_t t = 0; t < geo_.size(); ++t) {
        const Geo& g = geo_[t];
        if (g.hi[1] > py - 0.5 && g.lo[1] < py + 0.5 && g.hi[2] > pz - 0.5 && g.lo[2] < pz + 0.5)
            cand.push_back(int(t));
    }
    std::vector<int> rowDesigns;
    for (std::size_t d = 0; d < designs_.size(); ++d) {
        const Box& b = designs_[d].box;
        if (j >= b.lo[1] && j < b.hi[1] && k >= b.lo[2] && k < b.hi[2])
            rowDesigns.push_back(int(d));
    }
    std::vector<int> xcand;
    xcand.reserve(cand.size());
    for (int i = i0; i < i1; ++i) {
        CellMaterial& dst = out[i - i0];
        bool done = false;
        for (int d : rowDesigns) {
            const Box& b = designs_[std::size_t(d)].box;
            if (i >= b.lo[0] && i < b.hi[0]) {
                dst = designMaterial(designAt(i, j, k));
                done = true;
                break;
            }
        }
        if (done)
            continue;
        const double p[3] = {i + o[0], py, pz};
        xcand.clear();
        for (int t : cand) {
            const Geo& g = geo_[std::size_t(t)];
            if (g.hi[0] > p[0] - 0.5 && g.lo[0] < p[0] + 0.5)
                xcand.push_back(t);
        }
        dst =
            xcand.empty() ? mats_[std::size_t(background_)] : evaluate(c, p, xcand.data(), int(xcand.size()));
    }
}

bool Rasterizer::uncut(const double p[3], const int* cand, int ncand) const {
    const double lo[3] = {p[0] - 0.5, p[1] - 0.5, p[2] - 0.5};
    const double hi[3] = {p[0] + 0.5, p[1] + 0.5, p[2] + 0.5};
    // evaluate()'s scan: from the top, objects that miss the cube until one holds it (or none does).
    for (int t = ncand - 1; t >= 0; --t) {
        const Cover cv = classify(geo_[std::size_t(cand[t])], lo, hi);
        if (cv == Cover::Inside)
            return true;
        if (cv == Cover::Partial)
            return false;
    }
    return true;
}

template <class Mark> void Rasterizer::coverBreaks(const Geo& g, double py, double pz, Mark&& mark) const {
    // classify() of the cube [x - 1/2, x + 1/2] x [py - 1/2, py + 1/2] x [pz - 1/2, pz + 1/2] as a function
    // of x is constant between these points (the row's y and z are fixed).
    mark(g.lo[0] - 0.5, g.lo[0] - 0.5); // the bounding box: outside below / above
    mark(g.hi[0] + 0.5, g.hi[0] + 0.5);
    const double pw[3] = {0, py, pz};
    // A disc (or ball) of squared radius r2 - `rest` in x: the cube misses it beyond
    // |x - cx| = 1/2 + sqrt(r2 - restMin), lies inside it within |x - cx| = sqrt(r2 - restMax) - 1/2.
    const auto disc = [&](double restMin, double restMax) {
        const double cx = g.c[0];
        mark(cx, cx);
        if (g.r2 - restMin > 0) {
            const double s = 0.5 + std::sqrt(g.r2 - restMin);
            mark(cx - s, cx - s);
            mark(cx + s, cx + s);
        }
        if (g.r2 - restMax > 0) {
            const double s = std::sqrt(g.r2 - restMax) - 0.5;
            mark(cx - s, cx - s);
            mark(cx + s, cx + s);
        }
    };
    const auto gap = [&](int a) { return std::max({g.c[a] - (pw[a] + 0.5), 0.0, (pw[a] - 0.5) - g.c[a]}); };
    const auto far = [&](int a) {
        return std::max(std::fabs(pw[a] - 0.5 - g.c[a]), std::fabs(pw[a] + 0.5 - g.c[a]));
    };
    switch (g.shape) {
    case Shape::Box:
        mark(g.lo[0] + 0.5, g.lo[0] + 0.5);
        mark(g.hi[0] - 0.5, g.hi[0] - 0.5);
        return;
    case Shape::Sphere:
        disc(sq(gap(1)) + sq(gap(2)), sq(far(1)) + sq(far(2)));
        return;
    case Shape::Cylinder:
    case Shape::Polygon:
        if (g.axis == 0) { // the cross-section is fixed along the row; the axial cover changes at the ends
            mark(g.lo[0] + 0.5, g.lo[0] + 0.5);
            mark(g.hi[0] - 0.5, g.hi[0] - 0.5);
            return;
        }
        // x is the in-plane u; v is the row's other coordinate; the axial cover is fixed along the row.
        if (g.shape == Shape::Cylinder) {
            disc(sq(gap(g.v)), sq(far(g.v)));
            return;
        }
        {
            // An edge can touch the cube only where their extents overlap (segmentTouchesRect); between
            // edges the cube's centre stays inside or outside (the row's line crosses edges only there).
            const double vlo = pw[g.v] - 0.5, vhi = pw[g.v] + 0.5;
            const std::size_t n = g.pu.size();
            for (std::size_t a = 0, b = n - 1; a < n; b = a++) {
                if (std::max(g.pv[a], g.pv[b]) < vlo || std::min(g.pv[a], g.pv[b]) > vhi)
                    continue;
                mark(std::min(g.pu[a], g.pu[b]) - 0.5, std::max(g.pu[a], g.pu[b]) + 0.5);
            }
        }
        return;
    }
}

void Rasterizer::uniformRuns(int j, int k, int i0, int i1, std::vector<std::pair<int, int>>& runs) const {
    runs.clear();
    const int n = i1 - i0;
    if (n <= 0)
        return;
    // Cells that need their own evaluation: within a cell of a point where some object's cover of some
    // location's cube may change (so two neighbours both outside that margin see the same cover), and
    // design cells.
    thread_local std::vector<unsigned char> own;
    own.assign(std::size_t(n), 0);
    for (const DesignRegion& d : designs_) {
        const Box& b = d.box;
        if (j < b.lo[1] || j >= b.hi[1] || k < b.lo[2] || k >= b.hi[2])
            continue;
        for (int i = std::max(i0, b.lo[0]); i < std::min(i1, b.hi[0]); ++i)
            own[std::size_t(i - i0)] = 1;
    }
    thread_local std::vector<int> cand;
    thread_local std::array<std::vector<int>, 6> cands; // per location: the objects reaching its row
    for (auto& cl : cands)
        cl.clear();
    for (int field = 0; field < 2; ++field)
        for (int c = 0; c < 3; ++c) {
            const Vec3 o = yeeOffset(field, c);
            const double py = j + o[1], pz = k + o[2];
            std::vector<int>& cl = cands[std::size_t(3 * field + c)];
            for (std::size_t t = 0; t < geo_.size(); ++t) {
                const Geo& g = geo_[t];
                if (!(g.hi[1] > py - 0.5 && g.lo[1] < py + 0.5 && g.hi[2] > pz - 0.5 && g.lo[2] < pz + 0.5))
                    continue;
                cl.push_back(int(t));
                coverBreaks(g, py, pz, [&](double a, double b) {
                    // Cell i's location sits at x = i + o[0].
                    const double lo = std::ceil(a - 1 - 1e-6 - o[0]), hi = std::floor(b + 1 + 1e-6 - o[0]);
                    if (!(hi >= i0 && lo < i1)) // also false for NaN
                        return;
                    const int s = int(std::max(lo, double(i0))), e = int(std::min(hi, double(i1 - 1)));
                    std::fill(own.begin() + (s - i0), own.begin() + (e - i0) + 1, 1);
                });
            }
        }
    cand.clear();
    for (int i = i0; i < i1;) {
        if (own[std::size_t(i - i0)]) {
            ++i;
            continue;
        }
        int e = i + 1;
        while (e < i1 && !own[std::size_t(e - i0)])
            ++e;
        // Every object's cover is the same along [i, e): the run is uniform when no location's cube is cut
        // at its first cell.
        bool plain = true;
        for (int q = 0; q < 6 && plain; ++q) {
            const Vec3 o = yeeOffset(q / 3, q % 3);
            const double p[3] = {i + o[0], j + o[1], k + o[2]};
            const std::vector<int>& cl = cands[std::size_t(q)];
            cand.clear();
            for (int t : cl) {
                const Geo& g = geo_[std::size_t(t)];
                if (g.hi[0] > p[0] - 0.5 && g.lo[0] < p[0] + 0.5)
                    cand.push_back(t);
            }
            plain = uncut(p, cand.data(), int(cand.size()));
        }
        if (plain)
            runs.emplace_back(i, e);
        i = e;
    }
}

std::vector<double> Rasterizer::volumeFractions(const Vec3& centre) const {
    std::vector<double> f(mats_.size(), 0.0);
    const double p[3] = {centre[0], centre[1], centre[2]};
    const double lo[3] = {p[0] - 0.5, p[1] - 0.5, p[2] - 0.5};
    const double hi[3] = {p[0] + 0.5, p[1] + 0.5, p[2] + 0.5};
    int partial[64];
    int npartial = 0;
    int base = background_;
    for (int t = int(geo_.size()) - 1; t >= 0 && npartial < 64; --t) {
        const Cover cv = classify(geo_[std::size_t(t)], lo, hi);
        if (cv == Cover::Outside)
            continue;
        if (cv == Cover::Inside) {
            base = geo_[std::size_t(t)].mat;
            break;
        }
        partial[npartial++] = t;
    }
    if (npartial == 0) {
        f[std::size_t(base)] = 1;
        return f;
    }
    integrate(p, partial, npartial, base,
              [&](int m, double w, double, double, double) { f[std::size_t(m)] += w; });
    return f;
}

} // namespace yee::scene
