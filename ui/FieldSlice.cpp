#include "ui/FieldSlice.hpp"

#include <algorithm>
#include <limits>

namespace yee::ui {

int naturalNormal(const solver::Snapshot& snap) {
    for (int a = 2; a >= 0; --a)
        if (snap.dims[a] == 1)
            return a;
    return 2;
}

FieldSlice sliceOf(const solver::Snapshot& snap, int normal, int index) {
    FieldSlice f;
    f.normal = std::clamp(normal, 0, 2);
    f.u = f.normal == 0 ? 1 : 0;
    f.v = f.normal == 2 ? 1 : 2;
    const auto& d = snap.dims;
    if (std::int64_t(d[0]) * d[1] * d[2] != std::int64_t(snap.data.size()) || snap.data.empty())
        return f;
    index = std::clamp(index, 0, d[f.normal] - 1);
    f.nu = d[f.u];
    f.nv = d[f.v];
    f.du = snap.spacingUm[f.u];
    f.dv = snap.spacingUm[f.v];
    f.origin = snap.originUm;
    f.origin[f.normal] += index * snap.spacingUm[f.normal];
    f.values.resize(std::size_t(f.nu) * f.nv);
    float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
    for (int iv = 0; iv < f.nv; ++iv)
        for (int iu = 0; iu < f.nu; ++iu) {
            std::array<int, 3> ijk{};
            ijk[f.normal] = index;
            ijk[f.u] = iu;
            ijk[f.v] = iv;
            const float x =
                snap.data[std::size_t(ijk[0] + std::int64_t(d[0]) * (ijk[1] + std::int64_t(d[1]) * ijk[2]))];
            f.values[std::size_t(iu + f.nu * iv)] = x;
            lo = std::min(lo, x);
            hi = std::max(hi, x);
        }
    f.min = lo;
    f.max = hi;
    return f;
}

solver::Snapshot gradientVolume(const scene::Scene& s, std::size_t design, const solver::NamedArray& g) {
    solver::Snapshot out;
    out.detector = design < s.designs.size() ? s.designs[design].name : g.name;
    out.component = "gradient";
    std::array<int, 3> n{int(g.data.size()), 1, 1};
    if (design < s.designs.size())
        n = s.designVoxels(design);
    if (g.shape.size() == 3)
        n = {int(g.shape[2]), int(g.shape[1]), int(g.shape[0])};
    if (std::int64_t(n[0]) * n[1] * n[2] != std::int64_t(g.data.size()))
        n = {int(g.data.size()), 1, 1};
    out.dims = n;
    if (design < s.designs.size()) {
        const Box cells = s.designCells(design);
        const auto lo = s.domainLo();
        const auto& vc = s.designs[design].voxelCells;
        for (int a = 0; a < 3; ++a) {
            out.spacingUm[a] = vc[a] * s.cellUm;
            out.originUm[a] = lo[a] + (cells.lo[a] + 0.5 * vc[a]) * s.cellUm;
        }
    } else {
        out.spacingUm = {1, 1, 1};
    }
    out.data.assign(g.data.begin(), g.data.end());
    return out;
}

} // namespace yee::ui
