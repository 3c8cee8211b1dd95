#include "yee/gradient/AdjointStepper.hpp"

#include <type_traits>

#include "yee/device/Exec.hpp"
#include "yee/kernels/Adjoint.hpp"
#include "yee/kernels/Dispersion.hpp"
#include "yee/kernels/Yee.hpp"

namespace yee::gradient {

using device::Buffer;
using device::Category;
using device::launch;

template <class T> AdjointStepper<T>::AdjointStepper(solver::Tile<T>& tile) : tile_(tile) {
    device::Device& dev = tile.device();
    const ArrayShape& sh = tile.shape();
    for (int c = 0; c < 6; ++c)
        adj_.f[c] = Buffer<T>(dev, sh.size, Category::Adjoint);
    tile.buildExchanges(adj_, Category::Adjoint, 6);
    for (const auto& g : {&tile.forward().groupE, &adj_.groupE}) {
        mergedE_.sends.insert(mergedE_.sends.end(), g->sends.begin(), g->sends.end());
        mergedE_.recvs.insert(mergedE_.recvs.end(), g->recvs.begin(), g->recvs.end());
    }
    for (const auto& g : {&tile.forward().groupH, &adj_.groupH}) {
        mergedH_.sends.insert(mergedH_.sends.end(), g->sends.begin(), g->sends.end());
        mergedH_.recvs.insert(mergedH_.recvs.end(), g->recvs.begin(), g->recvs.end());
    }
    for (auto& sl : tile.slabs()) {
        SlabAdj sa;
        const std::int64_t n = sl->slab.box.cells();
        for (int q = 0; q < 2; ++q) {
            sa.psiE[q] = Buffer<T>(dev, n, Category::Adjoint);
            sa.psiH[q] = Buffer<T>(dev, n, Category::Adjoint);
            sa.w[q] = Buffer<T>(dev, n, Category::Adjoint);
        }
        slabAdj_.push_back(std::move(sa));
    }
    for (auto& l : tile.dispersion().lists()) // only where the tile holds dispersive cells
        poleAdj_.push_back({Buffer<T>(dev, l.count * l.stateSlots, Category::Adjoint),
                            Buffer<T>(dev, l.count, Category::Adjoint)});
}

template <class T> const T* AdjointStepper<T>::cbData(int c) const {
    return tile_.cb(c).p - tile_.shape().origin; // the buffer start, which pole offsets index
}

template <class T> void AdjointStepper<T>::polesAfterE() {
    auto& lists = tile_.dispersion().lists();
    const int th = tile_.threads();
    // Reverse of the forward order: the advance of every list, then every list's current.
    for (std::size_t q = 0; q < lists.size(); ++q) {
        auto& l = lists[q];
        if (l.count == 0)
            continue;
        kernels::PoleAdvanceT<T> k{adj_.f[std::size_t(l.comp)].data(),
                                   cbData(l.comp),
                                   l.offset.data(),
                                   l.weight.data(),
                                   poleAdj_[q].scratch.data(),
                                   poleAdj_[q].state.data(),
                                   l.count,
                                   T(tile_.plan().dt),
                                   l.coef};
        device::launchIndex(tile_.device(), l.count, th, k);
    }
    for (std::size_t q = 0; q < lists.size(); ++q) {
        auto& l = lists[q];
        if (l.count == 0)
            continue;
        device::launchIndex(tile_.device(), l.count, th,
                            kernels::PoleCurrentT<T>{adj_.f[std::size_t(l.comp)].data(), l.offset.data(),
                                                     poleAdj_[q].state.data(), l.count, l.coef});
    }
}

template <class T> void AdjointStepper<T>::polesBeforeE() {
    auto& lists = tile_.dispersion().lists();
    for (std::size_t q = 0; q < lists.size(); ++q) {
        auto& l = lists[q];
        if (l.count == 0)
            continue;
        device::launchIndex(tile_.device(), l.count, tile_.threads(),
                            kernels::PoleSaveET<T>{adj_.f[std::size_t(l.comp)].data(), cbData(l.comp),
                                                   l.offset.data(), poleAdj_[q].scratch.data()});
    }
}

template <class T> void AdjointStepper<T>::zero() {
    for (int c = 0; c < 6; ++c)
        tile_.device().zero(adj_.f[std::size_t(c)].data(), adj_.f[std::size_t(c)].bytes());
}

namespace {
/// f(std::integral_constant<int, A>{}) for the runtime axis a (0, 1, 2).
template <class F> void withAxis(int a, F&& f) {
    if (a == 0)
        f(std::integral_constant<int, 0>{});
    else if (a == 1)
        f(std::integral_constant<int, 1>{});
    else
        f(std::integral_constant<int, 2>{});
}
template <class T, int A>
void eAdjW(device::Device& dev, View<T>* f, typename solver::Tile<T>::Slab& sl, std::array<Buffer<T>, 2>& psi,
           std::array<Buffer<T>, 2>& w, int th) {
    const Box& L = sl.local;
    kernels::SlabIndex idx{L.lo[0], L.lo[1], L.lo[2], std::int64_t(L.extent(0)),
                           std::int64_t(L.extent(0)) * L.extent(1)};
    kernels::CpmlAdjointW<T, A> k{f[(A + 1) % 3],
                                  f[(A + 2) % 3],
                                  psi[0].data(),
                                  psi[1].data(),
                                  w[0].data(),
                                  w[1].data(),
                                  idx,
                                  {sl.profE[0].data(), sl.profE[1].data(), sl.profE[2].data()},
                                  sl.profLo};
    launch(dev, L, th, k);
}
template <class T, int A, bool M>
void eAdjQ(View<T>* f, solver::Tile<T>& tile, typename solver::Tile<T>::Slab& sl, std::array<Buffer<T>, 2>& w,
           int th) {
    const Box& L = sl.local;
    kernels::SlabIndex idx{L.lo[0], L.lo[1], L.lo[2], std::int64_t(L.extent(0)),
                           std::int64_t(L.extent(0)) * L.extent(1)};
    Box hb = L;
    if (hb.lo[A] > 0)
        hb.lo[A] -= 1; // the H location just below the slab also receives -w(lo)
    kernels::CpmlEAdjointQ<T, A, M> k{f[3 + (A + 2) % 3],
                                      f[3 + (A + 1) % 3],
                                      tile.db((A + 2) % 3),
                                      tile.db((A + 1) % 3),
                                      tile.dbScalar(),
                                      w[0].data(),
                                      w[1].data(),
                                      idx,
                                      L.lo[A],
                                      L.hi[A]};
    launch(tile.device(), hb, th, k);
}
template <class T, int A>
void hAdjW(device::Device& dev, View<T>* f, typename solver::Tile<T>::Slab& sl, std::array<Buffer<T>, 2>& psi,
           std::array<Buffer<T>, 2>& w, int th) {
    const Box& L = sl.local;
    kernels::SlabIndex idx{L.lo[0], L.lo[1], L.lo[2], std::int64_t(L.extent(0)),
                           std::int64_t(L.extent(0)) * L.extent(1)};
    kernels::CpmlAdjointW<T, A> k{f[3 + (A + 1) % 3],
                                  f[3 + (A + 2) % 3],
                                  psi[0].data(),
                                  psi[1].data(),
                                  w[0].data(),
                                  w[1].data(),
                                  idx,
                                  {sl.profH[0].data(), sl.profH[1].data(), sl.profH[2].data()},
                                  sl.profLo};
    launch(dev, L, th, k);
}
template <class T, int A>
void hAdjP(View<T>* f, solver::Tile<T>& tile, typename solver::Tile<T>::Slab& sl, std::array<Buffer<T>, 2>& w,
           int th) {
    const Box& L = sl.local;
    kernels::SlabIndex idx{L.lo[0], L.lo[1], L.lo[2], std::int64_t(L.extent(0)),
                           std::int64_t(L.extent(0)) * L.extent(1)};
    Box eb = L;
    if (eb.hi[A] < tile.box().extent(A))
        eb.hi[A] += 1; // the E location just above the slab gets w(hi-1)
    kernels::CpmlHAdjointP<T, A> k{f[(A + 2) % 3],
                                   f[(A + 1) % 3],
                                   tile.cb((A + 2) % 3),
                                   tile.cb((A + 1) % 3),
                                   w[0].data(),
                                   w[1].data(),
                                   idx,
                                   L.lo[A],
                                   L.hi[A]};
    launch(tile.device(), eb, th, k);
}
} // namespace

template <class T> void AdjointStepper<T>::cpmlEAdjoint() {
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = tile_.view(adj_, c);
    const int th = tile_.threads();
    const bool m = tile_.plan().magnetic;
    auto& slabs = tile_.slabs();
    // Reverse of the forward order (z, y, x; high before low): transposes apply in reverse.
    for (int a = 2; a >= 0; --a)
        for (int s = int(slabs.size()) - 1; s >= 0; --s) {
            auto& sl = *slabs[std::size_t(s)];
            if (sl.slab.axis != a)
                continue;
            auto& sa = slabAdj_[std::size_t(s)];
            withAxis(a, [&](auto axis) {
                constexpr int A = decltype(axis)::value;
                eAdjW<T, A>(tile_.device(), f, sl, sa.psiE, sa.w, th);
                m ? eAdjQ<T, A, true>(f, tile_, sl, sa.w, th) : eAdjQ<T, A, false>(f, tile_, sl, sa.w, th);
            });
        }
}

template <class T> void AdjointStepper<T>::cpmlHAdjoint() {
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = tile_.view(adj_, c);
    const int th = tile_.threads();
    auto& slabs = tile_.slabs();
    for (int a = 2; a >= 0; --a)
        for (int s = int(slabs.size()) - 1; s >= 0; --s) {
            auto& sl = *slabs[std::size_t(s)];
            if (sl.slab.axis != a)
                continue;
            auto& sa = slabAdj_[std::size_t(s)];
            withAxis(a, [&](auto axis) {
                constexpr int A = decltype(axis)::value;
                hAdjW<T, A>(tile_.device(), f, sl, sa.psiH, sa.w, th);
                hAdjP<T, A>(f, tile_, sl, sa.w, th);
            });
        }
}

template <class T> void AdjointStepper<T>::exchange(comm::Communicator& comm, int field, bool merged) {
    if (merged)
        tile_.pack(tile_.forward(), field);
    tile_.pack(adj_, field);
    comm::ExchangeGroup& g =
        merged ? (field == 0 ? mergedE_ : mergedH_) : (field == 0 ? adj_.groupE : adj_.groupH);
    if (solver::Tile<T>::hostStaged(comm, g))
        tile_.device().sync();
    comm.exchangeStart(g, comm::Phase::Adjoint);
    comm.exchangeFinish(g);
    if (merged)
        tile_.unpack(tile_.forward(), field);
    tile_.unpack(adj_, field);
}

template <class T>
void AdjointStepper<T>::step(comm::Communicator& comm, bool withForward, const std::function<void()>& sources,
                             const std::function<void()>& betweenHalves) {
    const Box all{{0, 0, 0}, tile_.box().extents()};
    sources(); // P = Cb dJ/dE^{n+1} complete now
    polesAfterE();
    cpmlEAdjoint();
    exchange(comm, 0, withForward); // P halos (and the forward E^n's when merged), one group
    tile_.updateH(adj_, all);       // Q -= Db curl P  (transpose of the E update's curl H)
    if (tile_.plan().lossy) {
        kernels::ScaleCa<T> k{tile_.view(adj_, 0), tile_.view(adj_, 1), tile_.view(adj_, 2),
                              tile_.ca(0),         tile_.ca(1),         tile_.ca(2)};
        launch(tile_.device(), all, tile_.threads(), k);
    }
    polesBeforeE(); // the E^n the poles read, after the Ca scaling
    cpmlHAdjoint();
    if (betweenHalves)
        betweenHalves();
    exchange(comm, 1, withForward);  // Q halos (and the forward H^{n-1/2}'s when merged), one group
    tile_.updateE(adj_, all, false); // P += Cb curl Q  (transpose of the H update's curl E)
}

template class AdjointStepper<float>;
template class AdjointStepper<double>;

} // namespace yee::gradient
