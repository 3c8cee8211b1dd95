#pragma once
/// \file KernelGrid.hpp
/// A few cells of one tile on one device, for kernel-level tests: halo-padded arrays (the layout the
/// solver uses, core/View.hpp), dense arrays (CPML psi, halo buffers), random fills and inner products,
/// and launches through device::launch, so one test body runs on CPU devices and on CUDA GPUs.
///
/// Device rows: "cpu" (one thread), "cpu-threads" (3 OpenMP threads: the row launcher splits the box),
/// "cuda" (GPU 0). openDevice() says why a row cannot run here; a CUDA row that can run but whose
/// device or launch fails throws, which the tests turn into a failure, never a skip.
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "yee/core/Box.hpp"
#include "yee/core/View.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/device/Device.hpp"
#include "yee/device/Exec.hpp"
#include "yee/kernels/Launch.hpp"

namespace yee::testing {

/// The device of row `name` ("cpu", "cpu-threads", "cuda"); nullptr with `whyNot` set when this machine
/// or build cannot run it (CUDA without a usable GPU). Throws what Device throws for a visible GPU.
inline std::unique_ptr<device::Device> openDevice(const std::string& name, std::string& whyNot) {
    using device::DeviceKind;
    const std::int64_t capacity = std::int64_t(256) << 20;
    if (name == "cpu")
        return std::make_unique<device::Device>(DeviceKind::Cpu, 0, 1, capacity);
    if (name == "cpu-threads")
        return std::make_unique<device::Device>(DeviceKind::Cpu, 0, 3, capacity);
    if (cuda::deviceCount() == 0) {
        whyNot = "no GPU: " + cuda::unavailableReason() + " [" + cuda::versionText() + "]";
        return nullptr;
    }
    auto dev = std::make_unique<device::Device>(DeviceKind::Cuda, 0, 1, 0);
    dev->setManagedMemory(true); // the tests read and write the arrays on the host between launches
    return dev;
}

/// nx x ny x nz interior cells of one tile on `dev` (not owned), with the one-cell halo of the solver.
/// Arrays are device::Buffers (on CUDA managed memory, Device::setManagedMemory, which the host reads and
/// writes between launches: every launch through this class waits for the device before returning).
template <class T> class KernelGrid {
public:
    using Array = device::Buffer<T>;

    KernelGrid(device::Device& dev, int nx, int ny, int nz)
        : dev_(dev), shape_(ArrayShape::make(nx, ny, nz)), box_{{0, 0, 0}, {nx, ny, nz}} {}

    device::Device& device() const { return dev_; }
    const ArrayShape& shape() const { return shape_; }
    /// The interior cells, tile-local.
    const Box& box() const { return box_; }
    int n(int axis) const { return box_.hi[axis]; }

    /// A zeroed halo-padded array (shape().size elements).
    Array field() const { return Array(dev_, shape_.size, device::Category::Fields); }
    /// A zeroed dense array of `count` elements.
    Array dense(std::int64_t count) const { return Array(dev_, count, device::Category::Staging); }
    /// View of a halo-padded array.
    View<T> view(const Array& a) const { return View<T>(a.data(), shape_); }
    /// Element (i,j,k) (tile-local, -1 and n are halo) of a halo-padded array.
    T& at(const Array& a, int i, int j, int k) const { return a.data()[shape_.offset(i, j, k)]; }

    /// Uniform values in [lo, hi) in the interior cells of a halo-padded array; the halo stays zero.
    void fillInterior(Array& a, std::mt19937_64& rng, double lo, double hi) const {
        std::uniform_real_distribution<double> u(lo, hi);
        forInterior([&](int i, int j, int k) { at(a, i, j, k) = T(u(rng)); });
    }
    /// Uniform values in [lo, hi) in every element of a dense array.
    static void fillDense(Array& a, std::mt19937_64& rng, double lo, double hi) {
        std::uniform_real_distribution<double> u(lo, hi);
        for (std::int64_t n = 0; n < a.size(); ++n)
            a[n] = T(u(rng));
    }
    /// Sum over interior cells of a(i,j,k) * b(i,j,k), accumulated in long double.
    long double dotInterior(const Array& a, const Array& b) const {
        long double s = 0;
        forInterior([&](int i, int j, int k) { s += (long double)at(a, i, j, k) * at(b, i, j, k); });
        return s;
    }
    /// Sum over every element (halo included, or a dense array) of a[n] * b[n].
    static long double dotAll(const Array& a, const Array& b) {
        long double s = 0;
        for (std::int64_t n = 0; n < a.size(); ++n)
            s += (long double)a[n] * b[n];
        return s;
    }
    /// Copy every element of `src` into `dst` (same size).
    static void copy(Array& dst, const Array& src) {
        for (std::int64_t n = 0; n < src.size(); ++n)
            dst[n] = src[n];
    }
    /// f(i,j,k) on the host for every interior cell, x fastest.
    template <class F> void forInterior(F&& f) const {
        for (int k = 0; k < box_.hi[2]; ++k)
            for (int j = 0; j < box_.hi[1]; ++j)
                for (int i = 0; i < box_.hi[0]; ++i)
                    f(i, j, k);
    }

    /// Launch a library kernel functor (one instantiated for CUDA in cuda/CudaInstantiate.cuh) over `b`
    /// on the device and wait for it.
    template <class F> void launch(const Box& b, const F& f) const {
        device::launch(dev_, b, dev_.threads(), f);
        dev_.sync();
    }
    /// Launch a library index functor for n in [0, count) and wait for it.
    template <class F> void launchIndex(std::int64_t count, const F& f) const {
        device::launchIndex(dev_, count, dev_.threads(), f);
        dev_.sync();
    }
    /// Run a test-local functor with the CPU row launcher. Test-local functors have no CUDA
    /// instantiation (those live in libyee's .cu units), so rows using them are CPU-only.
    template <class F> void launchCpu(const Box& b, const F& f) const {
        kernels::forEachCell(b, dev_.threads(), f);
    }

private:
    device::Device& dev_;
    ArrayShape shape_;
    Box box_;
};

/// |lhs - rhs| / max(|lhs|, |rhs|): the relative violation of a dot-product identity.
inline double relativeGap(long double lhs, long double rhs) {
    const long double m = std::fmax(std::fabs(lhs), std::fabs(rhs));
    return m == 0 ? 0.0 : double(std::fabs(lhs - rhs) / m);
}

} // namespace yee::testing
