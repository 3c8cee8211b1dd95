#include "yee/gradient/PointList.hpp"

#include <algorithm>
#include <vector>

#include "yee/device/Exec.hpp"
#include "yee/kernels/Points.hpp"

namespace yee::gradient {

using device::Buffer;
using device::Category;

template <class T> void PointList<T>::prepare(device::Device& dev) {
    if (!dev.staged())
        return;
    const std::int64_t n = std::int64_t(pts.size());
    comp_ = Buffer<int>(dev, n, Category::Staging);
    off_ = Buffer<std::int64_t>(dev, n, Category::Staging);
    val_ = Buffer<T>(dev, n, Category::Staging);
    if (dev.dryRun())
        return;
    // Written on the host, moved to the device in one copy each.
    std::vector<int> comp(pts.size());
    std::vector<std::int64_t> off(pts.size());
    for (std::size_t q = 0; q < pts.size(); ++q) {
        comp[q] = pts[q].comp;
        off[q] = pts[q].off;
    }
    dev.copy(comp_.data(), comp.data(), comp_.bytes());
    dev.copy(off_.data(), off.data(), off_.bytes());
}

template <class T>
void PointList<T>::gather(device::Device& dev, typename solver::Tile<T>::FieldSet& s, std::int64_t count,
                          std::vector<T>& out) {
    out.resize(std::max(out.size(), std::size_t(count)));
    if (!dev.staged()) {
        for (std::int64_t q = 0; q < count; ++q) {
            const FieldPoint& p = pts[std::size_t(q)];
            out[std::size_t(q)] = s.f[std::size_t(p.comp)][p.off];
        }
        return;
    }
    if (count <= 0)
        return;
    kernels::GatherPoints<T> k{s.f[0].data(), s.f[1].data(), s.f[2].data(), s.f[3].data(), s.f[4].data(),
                               s.f[5].data(), comp_.data(),  off_.data(),   val_.data()};
    device::launchIndex(dev, count, 1, k);
    dev.copy(out.data(), val_.data(), count * std::int64_t(sizeof(T)));
}

template <class T>
void PointList<T>::scatter(device::Device& dev, typename solver::Tile<T>::FieldSet& s,
                           const std::vector<T>& in) {
    const std::int64_t n = std::int64_t(pts.size());
    if (!dev.staged()) {
        for (std::int64_t q = 0; q < n; ++q) {
            const FieldPoint& p = pts[std::size_t(q)];
            s.f[std::size_t(p.comp)][p.off] = in[std::size_t(q)];
        }
        return;
    }
    if (n <= 0)
        return;
    dev.copy(val_.data(), in.data(), n * std::int64_t(sizeof(T)));
    kernels::ScatterPoints<T> k{s.f[0].data(), s.f[1].data(), s.f[2].data(), s.f[3].data(), s.f[4].data(),
                                s.f[5].data(), comp_.data(),  off_.data(),   val_.data()};
    device::launchIndex(dev, n, 1, k);
}

template class PointList<float>;
template class PointList<double>;

} // namespace yee::gradient
