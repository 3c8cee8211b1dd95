#include "yee/scene/Scene.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

namespace yee::scene {

namespace {

/// Nearest integer of a value clamped into [-lim, lim] (0 for NaN).
int roundClamped(double v, int lim = INT_MAX) {
    if (!(v == v))
        return 0;
    if (v >= double(lim))
        return lim;
    if (v <= -double(lim))
        return -lim;
    return int(std::lround(v));
}

/// Bound on snapped design indices, so that extents of out-of-range boxes cannot overflow.
constexpr int kIndexLimit = 1 << 29;

} // namespace

std::pair<Vec3, Vec3> objectBounds(const Object& o) {
    Vec3 lo = o.center, hi = o.center;
    switch (o.shape) {
    case Shape::Box:
        for (int a = 0; a < 3; ++a) {
            lo[a] = o.center[a] - 0.5 * o.size[a];
            hi[a] = o.center[a] + 0.5 * o.size[a];
        }
        break;
    case Shape::Sphere:
        for (int a = 0; a < 3; ++a) {
            lo[a] = o.center[a] - o.radius;
            hi[a] = o.center[a] + o.radius;
        }
        break;
    case Shape::Cylinder:
        for (int a = 0; a < 3; ++a) {
            const double h = a == o.axis ? 0.5 * o.height : o.radius;
            lo[a] = o.center[a] - h;
            hi[a] = o.center[a] + h;
        }
        break;
    case Shape::Polygon: {
        const int ax = std::clamp(o.axis, 0, 2);
        const int u = ax == 0 ? 1 : 0, v = ax == 2 ? 1 : 2;
        lo[ax] = o.center[ax] - 0.5 * o.height;
        hi[ax] = o.center[ax] + 0.5 * o.height;
        if (!o.vertices.empty()) {
            lo[u] = hi[u] = o.vertices[0][0];
            lo[v] = hi[v] = o.vertices[0][1];
            for (const auto& p : o.vertices) {
                lo[u] = std::min(lo[u], p[0]);
                hi[u] = std::max(hi[u], p[0]);
                lo[v] = std::min(lo[v], p[1]);
                hi[v] = std::max(hi[v], p[1]);
            }
        }
        break;
    }
    }
    return {lo, hi};
}

std::array<int, 3> Scene::gridCells() const {
    std::array<int, 3> n{0, 0, 0};
    if (!(cellUm > 0))
        return n;
    for (int a = 0; a < 3; ++a)
        n[a] = std::max(0, roundClamped(domainSize[a] / cellUm));
    return n;
}

double Scene::dt() const {
    return courant / std::sqrt(3.0);
}

double Scene::dtFs() const {
    return dt() * cellUm / kC_um_per_fs;
}

int Scene::steps() const {
    const double dtf = dtFs();
    if (!(dtf > 0) || !(durationFs > 0))
        return 0;
    const double n = durationFs / dtf;
    // A duration that is a whole number of steps up to rounding does not get one extra step.
    const double c = std::ceil(n * (1 - 1e-9));
    return c >= double(INT_MAX) ? INT_MAX : int(c);
}

const Material* Scene::findMaterial(const std::string& n) const {
    for (const auto& m : materials)
        if (m.name == n)
            return &m;
    return nullptr;
}

int Scene::materialIndex(const std::string& n) const {
    for (std::size_t i = 0; i < materials.size(); ++i)
        if (materials[i].name == n)
            return int(i);
    return -1;
}

Vec3 Scene::domainLo() const {
    return {domainCenter[0] - 0.5 * domainSize[0], domainCenter[1] - 0.5 * domainSize[1],
            domainCenter[2] - 0.5 * domainSize[2]};
}

int Scene::pmlCells(int axis) const {
    const Boundary& b = boundaries[std::size_t(axis)];
    return b.type == BoundaryType::Pml ? std::max(0, b.cells) : 0;
}

Box Scene::interiorCells() const {
    const auto n = gridCells();
    Box b;
    for (int a = 0; a < 3; ++a) {
        b.lo[a] = pmlCells(a);
        b.hi[a] = n[a] - pmlCells(a);
    }
    return b;
}

Box Scene::designCells(std::size_t d) const {
    Box b;
    if (d >= designs.size() || !(cellUm > 0))
        return b;
    const Design& g = designs[d];
    const Vec3 lo = domainLo();
    for (int a = 0; a < 3; ++a) {
        b.lo[a] = roundClamped((g.center[a] - 0.5 * g.size[a] - lo[a]) / cellUm, kIndexLimit);
        b.hi[a] = roundClamped((g.center[a] + 0.5 * g.size[a] - lo[a]) / cellUm, kIndexLimit);
    }
    return b;
}

double Scene::designFilterRadius(std::size_t d) const {
    const double own = d < designs.size() ? designs[d].filterRadius : 0.0;
    return own > 0 ? own : optimization.minLengthUm;
}

std::array<int, 3> Scene::designVoxels(std::size_t d) const {
    std::array<int, 3> v{0, 0, 0};
    const Box b = designCells(d);
    if (b.empty())
        return v;
    for (int a = 0; a < 3; ++a) {
        const int vc = std::max(1, designs[d].voxelCells[std::size_t(a)]);
        v[a] = int((std::int64_t(b.extent(a)) + vc - 1) / vc);
    }
    return v;
}

std::size_t Scene::designLatentSize(std::size_t d) const {
    const auto v = designVoxels(d);
    return std::size_t(v[0]) * std::size_t(v[1]) * std::size_t(v[2]);
}

bool isDefault(const OptimizationConfig& o) {
    const OptimizationConfig d;
    return o.optimizer == d.optimizer && o.iterations == d.iterations && o.step == d.step &&
           o.beta1 == d.beta1 && o.beta2 == d.beta2 && o.ftolRel == d.ftolRel && o.xtolRel == d.xtolRel &&
           o.form == d.form && o.betaFactor == d.betaFactor && o.betaEvery == d.betaEvery &&
           o.betaMax == d.betaMax && o.minLengthUm == d.minLengthUm &&
           o.lengthConstraints == d.lengthConstraints && o.lengthTolerance == d.lengthTolerance &&
           o.constraints.empty();
}

} // namespace yee::scene
