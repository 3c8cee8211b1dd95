#pragma once
/// \file FieldTransfer.hpp
/// Moving boxes of field cells between a device and the host, and the divergence guard's check, on any
/// device. The solver asks for the cells; whether they are read in place (CPU devices) or packed on the
/// device into a staging buffer and copied in one transfer (staged devices: GPUs, and CPU devices
/// emulating their data paths) is decided here. Both orders are the same (box after box, x fastest), so
/// the host sees the same values either way.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <vector>

#include "yee/core/Box.hpp"
#include "yee/core/View.hpp"
#include "yee/device/Device.hpp"
#include "yee/device/Exec.hpp"
#include "yee/kernels/Halo.hpp"
#include "yee/kernels/Points.hpp"

namespace yee::device {

/// The cells `box` (tile-local) of the field `view`.
template <class T> struct FieldBox {
    View<T> view;
    Box box;
};

/// Total cells of `parts`.
template <class T> std::int64_t fieldBoxCells(const std::vector<FieldBox<T>>& parts) {
    std::int64_t n = 0;
    for (const auto& p : parts)
        n += p.box.empty() ? 0 : p.box.cells();
    return n;
}

namespace detail {
inline kernels::BoxIndex denseIndex(const Box& b) {
    return {b.lo[0], b.lo[1], b.lo[2], std::int64_t(b.extent(0)), std::int64_t(b.extent(0)) * b.extent(1)};
}
/// fn(value&) for every cell of every part, box after box, x fastest.
template <class T, class Fn> void forCells(const std::vector<FieldBox<T>>& parts, Fn&& fn) {
    for (const auto& p : parts)
        for (int k = p.box.lo[2]; k < p.box.hi[2]; ++k)
            for (int j = p.box.lo[1]; j < p.box.hi[1]; ++j)
                for (int i = p.box.lo[0]; i < p.box.hi[0]; ++i)
                    fn(p.view(i, j, k));
}
} // namespace detail

/// Copies the cells of `parts` into `host` (resized to their count). Staged devices pack them into
/// `stage` (at least fieldBoxCells(parts) elements) and copy once; CPU devices read them in place.
template <class T>
void downloadBoxes(Device& dev, const std::vector<FieldBox<T>>& parts, Buffer<T>& stage,
                   std::vector<T>& host) {
    host.resize(std::size_t(fieldBoxCells(parts)));
    if (!dev.staged()) {
        std::size_t q = 0;
        detail::forCells(parts, [&](T& v) { host[q++] = v; });
        return;
    }
    std::int64_t off = 0;
    for (const auto& p : parts) {
        if (p.box.empty())
            continue;
        launch(dev, p.box, 1, kernels::PackFace<T>{p.view, stage.data() + off, detail::denseIndex(p.box)});
        off += p.box.cells();
    }
    dev.copy(host.data(), stage.data(), off * std::int64_t(sizeof(T)));
}

/// The reverse of downloadBoxes: writes `host` (laid out as downloadBoxes writes it) into the cells of
/// `parts`.
template <class T>
void uploadBoxes(Device& dev, const std::vector<FieldBox<T>>& parts, Buffer<T>& stage,
                 const std::vector<T>& host) {
    if (!dev.staged()) {
        std::size_t q = 0;
        detail::forCells(parts, [&](T& v) { v = host[q++]; });
        return;
    }
    dev.copy(stage.data(), host.data(), fieldBoxCells(parts) * std::int64_t(sizeof(T)));
    std::int64_t off = 0;
    for (const auto& p : parts) {
        if (p.box.empty())
            continue;
        launch(dev, p.box, 1,
               kernels::UnpackFace<T>{p.view, stage.data() + off, detail::denseIndex(p.box), 0, 0, 0});
        off += p.box.cells();
    }
}

/// The divergence guard: whether every value of some fields is finite. Staged devices set one flag word
/// on the device (allocated here, ledger category Staging) and read it back once; CPU devices scan the
/// rows with `threads` OpenMP threads.
class FiniteCheck {
public:
    FiniteCheck() = default;
    /// Allocates the flag word on staged devices (none on CPU devices).
    explicit FiniteCheck(Device& dev) {
        if (dev.staged())
            flag_ = Buffer<int>(dev, 1, Category::Staging);
    }
    /// True when every cell of [0, n) of each of the `count` views is finite. Waits for the device.
    template <class T>
    bool allFinite(Device& dev, int threads, const View<T>* fields, int count, Index3 n) const {
        if (dev.staged()) {
            // The flag is device memory: cleared and read back by explicit copies (one word each way).
            dev.zero(flag_.data(), flag_.bytes());
            const Box all{{0, 0, 0}, n};
            for (int c = 0; c < count; ++c)
                launch(dev, all, 1, kernels::FlagNonFinite<T>{fields[c], flag_.data()});
            int bad = 0;
            dev.copy(&bad, flag_.data(), flag_.bytes());
            return bad == 0;
        }
        bool ok = true;
        for (int c = 0; c < count && ok; ++c) {
            const View<T> f = fields[c];
            std::atomic<int> bad{0};
            kernels::forEachRow(Box{{0, 0, 0}, n}, threads, [&](int j, int k, int i0, int i1) {
                const T* row = f.row(j, k);
                int b = 0;
                for (int i = i0; i < i1; ++i)
                    b |= !std::isfinite(row[i]);
                if (b)
                    bad.store(1, std::memory_order_relaxed);
            });
            ok = bad.load() == 0;
        }
        return ok;
    }

private:
    Buffer<int> flag_;
};

} // namespace yee::device
