#pragma once
/// \file ZMarch.hpp
/// The z-marching columns of the Yee updates (2.5-D blocking with register reuse), written once for the
/// GPU's marching launch (cuda/CudaMarch.cuh) and for the CPU check of it (forEachColumn below, which
/// tst_gpu runs on every machine). A column updates cells kb..ke-1 of (i, j) in order up z and keeps in
/// registers what the next cell up needs from this one:
///   - H update (UpdateH): Ex, Ey at k+1 are the next cell's Ex, Ey at k;
///   - E update (UpdateE): Hx, Hy at k are the next cell's Hx, Hy at k-1.
/// The arithmetic is the functor's own cell() (kernels/Yee.hpp), the very function its operator() runs, with
/// the same operands in the same operation order: only where two of the operands are loaded from moves,
/// so every cell gets the bits of every other launch. The field a column carries is only read by the
/// update (E by the H update, H by the E update), so a value loaded for one cell is the value the next one
/// would load.
#include <type_traits>

#include "yee/core/Box.hpp"
#include "yee/core/Platform.hpp"
#include "yee/kernels/Yee.hpp"

namespace yee::kernels {

/// A load of a value no thread writes during the launch: the read-only data path (__ldg) on the GPU, a
/// plain load on the host.
template <class T> YEE_HD YEE_FORCEINLINE T readOnly(const T* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}

/// Whether functor F has a z-marching column (ZMarch<F>::column(f, i, j, kb, ke)).
template <class F> struct ZMarch : std::false_type {};

template <class T, bool Magnetic, class C> struct ZMarch<UpdateH<T, Magnetic, C>> : std::true_type {
    YEE_HD YEE_FORCEINLINE static void column(const UpdateH<T, Magnetic, C>& f, int i, int j, int kb,
                                              int ke) {
        T e0 = readOnly(&f.ex(i, j, kb)), e1 = readOnly(&f.ey(i, j, kb));
        for (int k = kb; k < ke; ++k) {
            const T e2 = readOnly(&f.ez(i, j, k));
            const T exUp = readOnly(&f.ex(i, j, k + 1)), eyUp = readOnly(&f.ey(i, j, k + 1));
            f.cell(i, j, k, e0, e1, e2, ValuePair<T>{exUp, eyUp});
            e0 = exUp;
            e1 = eyUp;
        }
    }
};

template <class T, bool Lossy, class C> struct ZMarch<UpdateE<T, Lossy, C>> : std::true_type {
    YEE_HD YEE_FORCEINLINE static void column(const UpdateE<T, Lossy, C>& f, int i, int j, int kb, int ke) {
        T hxDown = readOnly(&f.hx(i, j, kb - 1)), hyDown = readOnly(&f.hy(i, j, kb - 1));
        for (int k = kb; k < ke; ++k) {
            const T h0 = readOnly(&f.hx(i, j, k)), h1 = readOnly(&f.hy(i, j, k)),
                    h2 = readOnly(&f.hz(i, j, k));
            f.cell(i, j, k, h0, h1, h2, ValuePair<T>{hxDown, hyDown});
            hxDown = h0;
            hyDown = h1;
        }
    }
};

/// The marching launch's cells on the host, one column piece after another: every (i, j) of `b`, its z
/// range cut into pieces of `planes` cells from b.lo[2] (the last one shorter), as the GPU's thread blocks
/// cut it. For checking the columns against forEachCell without a GPU; serial.
template <class F> void forEachColumn(const Box& b, int planes, const F& f) {
    static_assert(ZMarch<F>::value, "forEachColumn: functor has no z-marching column");
    if (b.empty() || planes < 1)
        return;
    for (int kb = b.lo[2]; kb < b.hi[2]; kb += planes) {
        const int ke = kb + planes < b.hi[2] ? kb + planes : b.hi[2];
        for (int j = b.lo[1]; j < b.hi[1]; ++j)
            for (int i = b.lo[0]; i < b.hi[0]; ++i)
                ZMarch<F>::column(f, i, j, kb, ke);
    }
}

} // namespace yee::kernels
