#include "ui/FieldSlice.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "yee/scene/MaterialModel.hpp"
#include "yee/scene/Rasterizer.hpp"

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

std::vector<float> permittivityOn(const scene::Scene& s, const scene::Rasterizer& raster,
                                  const FieldSlice& like) {
    std::vector<float> out(like.values.size());
    const scene::Vec3 lo = s.domainLo();
    int n[3];
    for (int a = 0; a < 3; ++a)
        n[a] = std::max(1, int(std::lround(s.domainSize[std::size_t(a)] / s.cellUm)));
    for (int iv = 0; iv < like.nv; ++iv)
        for (int iu = 0; iu < like.nu; ++iu) {
            double p[3] = {like.origin[0], like.origin[1], like.origin[2]};
            p[like.u] += iu * like.du;
            p[like.v] += iv * like.dv;
            int c[3];
            for (int a = 0; a < 3; ++a)
                c[a] =
                    std::clamp(int(std::floor((p[a] - lo[std::size_t(a)]) / s.cellUm + 1e-6)), 0, n[a] - 1);
            double eps = 0;
            for (int comp = 0; comp < 3; ++comp)
                eps += raster.atE(comp, c[0], c[1], c[2]).eps;
            out[std::size_t(iu) + std::size_t(like.nu) * std::size_t(iv)] = float(eps / 3);
        }
    return out;
}

std::vector<std::vector<float>> outlineFields(const scene::Scene& s, const scene::Rasterizer& raster,
                                              const FieldSlice& like) {
    const std::size_t n = like.values.size();
    const scene::Vec3 lo = s.domainLo();
    int cells[3];
    for (int a = 0; a < 3; ++a)
        cells[a] = std::max(1, int(std::lround(s.domainSize[std::size_t(a)] / s.cellUm)));
    std::vector<std::vector<float>> fields(s.materials.size() + 1, std::vector<float>(n, 0.0f));
    std::vector<std::vector<float>> inDesign(std::size_t(raster.designCount()), std::vector<float>(n, 0.0f));
    // Densities only inside their region (NaN elsewhere: no contour there, FieldView skips such cells; the
    // indicator draws the box).
    std::vector<std::vector<float>> density(inDesign.size(),
                                            std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()));
    for (int iv = 0; iv < like.nv; ++iv)
        for (int iu = 0; iu < like.nu; ++iu) {
            const std::size_t at = std::size_t(iu) + std::size_t(like.nu) * std::size_t(iv);
            scene::Vec3 centre{};
            int c[3];
            for (int a = 0; a < 3; ++a) {
                double p = like.origin[std::size_t(a)];
                if (a == like.u)
                    p += iu * like.du;
                if (a == like.v)
                    p += iv * like.dv;
                centre[std::size_t(a)] = (p - lo[std::size_t(a)]) / s.cellUm;
                c[a] = std::clamp(int(std::floor(centre[std::size_t(a)] + 1e-6)), 0, cells[a] - 1);
            }
            const std::vector<double> f = raster.volumeFractions(centre);
            for (std::size_t m = 0; m < f.size() && m < fields.size(); ++m)
                fields[m][at] = float(f[m]);
            const scene::DesignHit h = raster.designAt(c[0], c[1], c[2]);
            if (h.region >= 0) {
                inDesign[std::size_t(h.region)][at] = 1.0f;
                const auto& rho = raster.density(h.region);
                if (h.voxel >= 0 && std::size_t(h.voxel) < rho.size())
                    density[std::size_t(h.region)][at] = float(rho[std::size_t(h.voxel)]);
            }
        }
    std::vector<std::vector<float>> out;
    for (auto* group : {&fields, &inDesign, &density})
        for (auto& field : *group) {
            bool above = false, below = false;
            for (float v : field) {
                above = above || v > 0.5f;
                below = below || v < 0.5f;
            }
            if (above && below) // a contour at 0.5 crosses this slice
                out.push_back(std::move(field));
        }
    return out;
}

std::vector<double> outlineLevels(const scene::Scene& s) {
    // Only materials the structure uses: an unused one would double the lines between two others.
    auto used = [&](const std::string& name) {
        if (name == s.background)
            return true;
        for (const auto& o : s.objects)
            if (o.material == name)
                return true;
        for (const auto& d : s.designs)
            if (d.materials[0] == name || d.materials[1] == name)
                return true;
        return false;
    };
    std::vector<double> eps;
    for (const auto& m : s.materials)
        if (used(m.name))
            eps.push_back(scene::materialModel(m).epsInf);
    if (s.background.empty())
        eps.push_back(1.0);
    std::sort(eps.begin(), eps.end());
    eps.erase(
        std::unique(eps.begin(), eps.end(),
                    [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }),
        eps.end());
    std::vector<double> levels;
    for (std::size_t i = 0; i + 1 < eps.size(); ++i)
        levels.push_back(0.5 * (eps[i] + eps[i + 1]));
    return levels;
}

} // namespace yee::ui
