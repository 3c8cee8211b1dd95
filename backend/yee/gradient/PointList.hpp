#pragma once
/// \file PointList.hpp
/// Lists of field locations that the reverse sweep reads or writes as one block: the capture points
/// (the forward fields the design gradient and the objective need at each step) and the adjoint-source
/// locations. On CPU devices the values are read and written in place; on GPUs (and on CPU devices told
/// to take the GPU's data paths) a gather / scatter kernel packs them into one staging buffer that moves
/// in one copy, so per-step traffic is the list, never the fields.
#include <cstdint>
#include <vector>

#include "yee/device/Device.hpp"
#include "yee/solver/Tile.hpp"

namespace yee::gradient {

/// One location in a tile's six halo-padded field arrays.
struct FieldPoint {
    int comp;         ///< 0..2 = Ex..Ez, 3..5 = Hx..Hz (P, Q in an adjoint field set)
    std::int64_t off; ///< element offset into the component's array (ArrayShape::offset)
};

/// A list of field locations and, on staged devices, its device copy and value staging buffer.
template <class T> class PointList {
public:
    std::vector<FieldPoint> pts; ///< the locations, in block order

    /// Staged devices: allocate the device copy of `pts` and the value buffer (category Staging) and
    /// upload the list. Call once, after `pts` is complete. Nothing on other devices.
    void prepare(device::Device& dev);
    /// Values of the first `count` locations in field set `s`, into out[0, count) (out grows if needed).
    void gather(device::Device& dev, typename solver::Tile<T>::FieldSet& s, std::int64_t count,
                std::vector<T>& out);
    /// Write in[q] to location q of field set `s`, for every location of the list.
    void scatter(device::Device& dev, typename solver::Tile<T>::FieldSet& s, const std::vector<T>& in);

private:
    device::Buffer<int> comp_; ///< device copies of the list (staged devices)
    device::Buffer<std::int64_t> off_;
    device::Buffer<T> val_;
};

extern template class PointList<float>;
extern template class PointList<double>;

} // namespace yee::gradient
