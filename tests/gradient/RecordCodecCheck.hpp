#pragma once
/// \file RecordCodecCheck.hpp
/// The reversible recorder's device encoder and decoder (kernels/RecordCodec.hpp, launched on a device)
/// against the host path ReversibleState takes on CPU devices (the layers read on the host, converted to
/// double, gradient::encode(); gradient::decode(), the linear interpolation, the conversion to T), for
/// one record of several interface-like layers over random fields. Used by tst_record_codec on CPU devices
/// and by tst_gpu on a GPU: the same check, so a GPU that passes it encodes the bytes the CPU does.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "yee/core/Box.hpp"
#include "yee/core/View.hpp"
#include "yee/device/Device.hpp"
#include "yee/device/Exec.hpp"
#include "yee/gradient/Codec.hpp"
#include "yee/kernels/RecordCodec.hpp"

namespace yee::testing {

/// What the record's values are: wide exponents (every exponent of the format and beyond), halves that
/// round to int8 ties, all zeros (scale 1), or some Inf and NaN among them.
enum class CodecValues { Wide, Ties, Zeros, NonFinite };

namespace codec_check {

/// Record region (component, tile-local one-cell slab) of the check, H layers first as in the recorder.
struct Region {
    int comp;
    Box box;
};

inline std::vector<Region> regions() {
    // Slabs along each axis; no cell of a component is in two of them (as the recorder's layers).
    return {{4, {{0, 0, 0}, {23, 17, 1}}},  {5, {{0, 0, 0}, {23, 17, 1}}}, {5, {{0, 0, 1}, {1, 17, 9}}},
            {3, {{2, 0, 1}, {21, 1, 8}}},   {1, {{0, 0, 8}, {23, 17, 9}}}, {0, {{0, 0, 8}, {23, 17, 9}}},
            {2, {{22, 1, 0}, {23, 16, 9}}}, {0, {{1, 16, 0}, {22, 17, 8}}}};
}

/// Values for one field array (shape.size elements) of kind v.
template <class T> std::vector<T> values(const ArrayShape& sh, CodecValues v, std::mt19937_64& rng) {
    std::normal_distribution<double> gauss(0.0, 1.0);
    std::uniform_int_distribution<int> tie(-127, 126);
    std::vector<T> f(std::size_t(sh.size));
    std::size_t q = 0;
    for (auto& x : f) {
        switch (v) {
        case CodecValues::Wide:
            x = T(gauss(rng) * std::pow(10.0, 6 * gauss(rng)));
            break;
        case CodecValues::Ties: // scale 127 (set below): q * 127 lands on or next to k + 1/2
            x = T(tie(rng) + 0.5);
            break;
        case CodecValues::Zeros:
            x = T(q % 3 == 0 ? -0.0 : 0.0);
            break;
        case CodecValues::NonFinite:
            x = q % 97 == 5 ? T(INFINITY) : q % 89 == 7 ? T(NAN) : q % 83 == 3 ? T(-INFINITY) : T(gauss(rng));
            break;
        }
        ++q;
    }
    if (v == CodecValues::Ties)
        for (std::size_t k = 0; k < f.size(); k += 101)
            f[k] = T(k % 2 ? 127 : -127);
    return f;
}

/// Bitwise equality, or both NaN when `nanAsEqual` (NaN payloads differ between CPUs and GPUs).
template <class T> bool same(T a, T b, bool nanAsEqual) {
    if (nanAsEqual && a != a && b != b)
        return true;
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

} // namespace codec_check

/// Encodes one record on `dev` (RecordAbsMax, RecordEncode), decodes it back (RecordDecode, plain and
/// interpolated with a second record), and compares with the host path. Empty when everything agrees
/// bit for bit (with NonFinite values, NaN bytes only as NaN: the encoded NaN payloads may differ on a
/// GPU); else what differs.
template <class T> std::string recordCodecDiff(device::Device& dev, gradient::Dtype dtype, CodecValues kind) {
    using namespace codec_check;
    const ArrayShape sh = ArrayShape::make(23, 17, 9);
    std::mt19937_64 rng(20261202 + int(dtype) * 7 + int(kind));
    std::vector<device::Buffer<T>> f;
    std::vector<std::vector<T>> host[2]; // the fields of record a and of record b
    for (int c = 0; c < 6; ++c)
        f.emplace_back(dev, sh.size, device::Category::Fields);
    for (auto& h : host)
        for (int c = 0; c < 6; ++c)
            h.push_back(values<T>(sh, kind, rng));
    const std::vector<Region> rs = regions();
    kernels::RecordLayout<T> L;
    std::int64_t len = 0;
    for (const Region& r : rs)
        len = L.append(View<T>(f[std::size_t(r.comp)].data(), sh), {r.box.lo[0], r.box.lo[1], r.box.lo[2]},
                       {r.box.extent(0), r.box.extent(1), r.box.extent(2)});
    const int bytes = gradient::dtypeBytes(dtype);
    const bool nonFinite = kind == CodecValues::NonFinite;
    device::Buffer<unsigned char> rec(dev, 2 * len * bytes, device::Category::Recorder);
    device::Buffer<std::uint64_t> maxAbs(dev, 2, device::Category::Recorder);
    std::string diff;
    std::vector<double> hostScale(2);
    std::vector<std::vector<unsigned char>> hostBytes(2);
    std::vector<std::vector<double>> hostDecoded(2);
    for (int which = 0; which < 2; ++which) {
        for (int c = 0; c < 6; ++c)
            dev.copy(f[std::size_t(c)].data(), host[which][std::size_t(c)].data(), f[std::size_t(c)].bytes());
        // The device path, as ReversibleState::recordOnDevice launches it.
        unsigned char* out = rec.data() + which * len * bytes;
        std::uint64_t* word = kernels::recordDtypeScaled(dtype) ? maxAbs.data() + which : nullptr;
        if (word) {
            const std::int64_t threads = dev.isCuda() ? std::min<std::int64_t>(len, 32768) : 3;
            dev.zero(word, 8);
            device::launchIndex(dev, threads, dev.threads(), kernels::RecordAbsMax<T>{L, len, threads, word});
        }
        device::launchIndex(dev, len, dev.threads(), kernels::RecordEncode<T>{L, dtype, word, out});
        std::vector<unsigned char> got(std::size_t(len * bytes));
        dev.copy(got.data(), out, len * bytes);
        // The host path: the layers in record order, as double, through gradient::encode().
        std::vector<double> x;
        for (const Region& r : rs)
            for (int k = r.box.lo[2]; k < r.box.hi[2]; ++k)
                for (int j = r.box.lo[1]; j < r.box.hi[1]; ++j)
                    for (int i = r.box.lo[0]; i < r.box.hi[0]; ++i)
                        x.push_back(
                            double(host[which][std::size_t(r.comp)][std::size_t(sh.offset(i, j, k))]));
        hostBytes[std::size_t(which)].resize(got.size());
        hostScale[std::size_t(which)] =
            gradient::encode(x.data(), len, dtype, hostBytes[std::size_t(which)].data());
        hostDecoded[std::size_t(which)].resize(std::size_t(len));
        gradient::decode(hostBytes[std::size_t(which)].data(), len, dtype, hostScale[std::size_t(which)],
                         hostDecoded[std::size_t(which)].data());
        if (word) {
            std::uint64_t bits = 0;
            dev.copy(&bits, word, 8);
            const double s = kernels::recordScale(bits);
            if (std::memcmp(&s, &hostScale[std::size_t(which)], 8) != 0)
                diff += " scale " + std::to_string(which) + " (" + std::to_string(s) + " vs host " +
                        std::to_string(hostScale[std::size_t(which)]) + ")";
        }
        std::int64_t bad = 0;
        for (std::int64_t e = 0; e < len; ++e) {
            const std::size_t at = std::size_t(e * bytes);
            if (std::memcmp(got.data() + at, hostBytes[std::size_t(which)].data() + at, std::size_t(bytes)) ==
                0)
                continue;
            // NaN payloads may differ; the value must still decode to NaN.
            double dv = 0;
            gradient::decode(got.data() + at, 1, dtype, hostScale[std::size_t(which)], &dv);
            if (nonFinite && dv != dv &&
                hostDecoded[std::size_t(which)][std::size_t(e)] !=
                    hostDecoded[std::size_t(which)][std::size_t(e)])
                continue;
            ++bad;
        }
        if (bad)
            diff.append(" ")
                .append(std::to_string(bad))
                .append(" encoded values of record ")
                .append(std::to_string(which));
    }
    // Decoding back into zeroed fields: record a alone, and a interpolated towards b at w = 1/3.
    for (int interp = 0; interp < 2; ++interp) {
        for (auto& b : f)
            dev.zero(b.data(), b.bytes());
        kernels::RecordDecode<T> k{L, dtype, 0};
        const bool scaled = kernels::recordDtypeScaled(dtype);
        k.a = rec.data();
        k.maxAbsA = scaled ? maxAbs.data() : nullptr;
        if (interp) {
            k.b = rec.data() + len * bytes;
            k.maxAbsB = scaled ? maxAbs.data() + 1 : nullptr;
            k.w = double(1) / double(3);
        }
        device::launchIndex(dev, len, dev.threads(), k);
        std::int64_t bad = 0, e = 0;
        std::vector<T> back(std::size_t(sh.size));
        std::vector<std::vector<T>> fb(6, back);
        for (int c = 0; c < 6; ++c)
            dev.copy(fb[std::size_t(c)].data(), f[std::size_t(c)].data(), f[std::size_t(c)].bytes());
        for (const Region& r : rs)
            for (int kk = r.box.lo[2]; kk < r.box.hi[2]; ++kk)
                for (int j = r.box.lo[1]; j < r.box.hi[1]; ++j)
                    for (int i = r.box.lo[0]; i < r.box.hi[0]; ++i, ++e) {
                        const double a = hostDecoded[0][std::size_t(e)];
                        const double w = k.w;
                        const double v = interp ? (1 - w) * a + w * hostDecoded[1][std::size_t(e)] : a;
                        if (!same(fb[std::size_t(r.comp)][std::size_t(sh.offset(i, j, kk))], T(v), nonFinite))
                            ++bad;
                    }
        if (bad)
            diff.append(" ")
                .append(std::to_string(bad))
                .append(interp ? " interpolated" : "")
                .append(" decoded values");
    }
    if (kind == CodecValues::Wide && hostScale[0] == 1.0 && kernels::recordDtypeScaled(dtype))
        diff += " (the wide record's scale is 1: the check scaled nothing)";
    return diff;
}

} // namespace yee::testing
