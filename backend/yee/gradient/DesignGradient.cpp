#include "yee/gradient/DesignGradient.hpp"

#include "yee/scene/Rasterizer.hpp"

namespace yee::gradient {

using device::Buffer;
using device::Category;
using solver::Plan;

template <class T> DesignGradient<T>::DesignGradient(solver::Tile<T>& tile) : tile_(tile) {
    const Plan& plan = tile.plan();
    const Box& tb = tile.box();
    const ArrayShape& sh = tile.shape();
    const scene::Rasterizer& r = *plan.raster;
    auto off = [&](int i, int j, int k) { return sh.offset(i - tb.lo[0], j - tb.lo[1], k - tb.lo[2]); };
    // Design cells owned (E locations, all three components).
    for (int d = 0; d < r.designCount(); ++d) {
        const Box b = r.designBox(d).intersect(tb);
        if (b.empty())
            continue;
        for (int k = b.lo[2]; k < b.hi[2]; ++k)
            for (int j = b.lo[1]; j < b.hi[1]; ++j)
                for (int i = b.lo[0]; i < b.hi[0]; ++i) {
                    if (r.designAt(i, j, k).region != d)
                        continue;
                    cells_.push_back(i + std::int64_t(plan.geom.cells[0]) *
                                             (j + std::int64_t(plan.geom.cells[1]) * k));
                    regions_.push_back(d);
                    for (int c = 0; c < 3; ++c)
                        points_.push_back({c, off(i, j, k)});
                }
    }
    // Accumulated on the host from the captured values: host memory (its own ledger category, outside a
    // GPU's capacity).
    grad_ = Buffer<double>(tile.device(), std::int64_t(cells_.size()) * 3, Category::Host);
}

template <class T> void DesignGradient<T>::appendPoints(std::vector<FieldPoint>& points) const {
    points.insert(points.end(), points_.begin(), points_.end());
}

template <class T>
void DesignGradient<T>::accumulate(const std::vector<T>& p, const std::vector<T>& after,
                                   const std::vector<T>& before) {
    // dJ/deps = dJ/dCb dCb/deps with Cb = dt/eps: dJ/deps = -P (E^{n+1} - E^n) / dt.
    const double inv = 1.0 / tile_.plan().dt;
    for (int q = 0; q < pointCount(); ++q)
        grad_[q] -= double(p[std::size_t(q)]) *
                    (double(after[std::size_t(q)]) - double(before[std::size_t(q)])) * inv;
}

template <class T> void DesignGradient<T>::serialize(ByteWriter& w) const {
    w.putArray(cells_.data(), std::int64_t(cells_.size()));
    w.putArray(regions_.data(), std::int64_t(regions_.size()));
    w.putArray(grad_.data(), grad_.size());
}

template <class T>
std::vector<solver::NamedArray> DesignGradient<T>::assemble(const Plan& p, std::vector<ByteReader*>& readers,
                                                            std::vector<std::int64_t>* recomputed,
                                                            std::vector<double>* drift) {
    const scene::Rasterizer& r = *p.raster;
    const int D = r.designCount();
    // Per-cell dJ/deps placed in global order, then summed per voxel in that order (tiling-independent).
    std::vector<std::vector<double>> cellGrad(static_cast<std::size_t>(D));
    for (int d = 0; d < D; ++d)
        cellGrad[std::size_t(d)].assign(std::size_t(r.designBox(d).cells()), 0.0);
    for (std::size_t q = 0; q < readers.size(); ++q) {
        ByteReader* rd = readers[q];
        const auto cells = rd->getArray<std::int64_t>();
        const auto regions = rd->getArray<int>();
        const auto g = rd->getArray<double>();
        if (recomputed)
            (*recomputed)[q] = rd->get<std::int64_t>();
        if (drift)
            (*drift)[q] = rd->get<double>();
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const int d = regions[c];
            const Box& b = r.designBox(d);
            const std::int64_t gi = cells[c];
            const int i = int(gi % p.geom.cells[0]), j = int((gi / p.geom.cells[0]) % p.geom.cells[1]),
                      k = int(gi / (std::int64_t(p.geom.cells[0]) * p.geom.cells[1]));
            const std::int64_t li =
                (i - b.lo[0]) +
                std::int64_t(b.extent(0)) * ((j - b.lo[1]) + std::int64_t(b.extent(1)) * (k - b.lo[2]));
            cellGrad[std::size_t(d)][std::size_t(li)] = g[3 * c] + g[3 * c + 1] + g[3 * c + 2];
        }
    }
    std::vector<solver::NamedArray> out;
    for (int d = 0; d < D; ++d) {
        const scene::DesignMap& map = r.designMap(d);
        const Box& b = r.designBox(d);
        std::vector<double> dRho(map.size(), 0.0);
        std::int64_t li = 0;
        for (int k = b.lo[2]; k < b.hi[2]; ++k)
            for (int j = b.lo[1]; j < b.hi[1]; ++j)
                for (int i = b.lo[0]; i < b.hi[0]; ++i, ++li) {
                    const scene::DesignHit h = r.designAt(i, j, k);
                    if (h.region == d && h.voxel >= 0)
                        dRho[std::size_t(h.voxel)] += cellGrad[std::size_t(d)][std::size_t(li)];
                }
        for (double& v : dRho)
            v *= map.epsDerivative();
        std::vector<double> latent = p.scene.designs[std::size_t(d)].latent;
        if (latent.empty())
            latent.assign(map.size(), 0.5);
        const std::vector<double> g = map.backward(latent, dRho);
        const auto v = map.voxels();
        out.push_back(solver::NamedArray{p.scene.designs[std::size_t(d)].name, {v[2], v[1], v[0]}, g});
    }
    return out;
}

template class DesignGradient<float>;
template class DesignGradient<double>;

} // namespace yee::gradient
