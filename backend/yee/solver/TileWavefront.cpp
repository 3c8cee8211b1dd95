/// \file TileWavefront.cpp
/// Tile::step on CPU devices: the fused H-then-E pass (kernels/Wavefront.hpp) over everything that
/// needs no incoming halo, then the cut faces by separate sweeps, with the exchanges of the two-sweep
/// step in the same order.
///
/// The boxes (tile-local, from buildExchanges): H of coreH_ (every cell but those on a high face with a
/// neighbour, which need the E halo) and E of fusedE_ = coreE_ inside coreH_ (E of a cell on a low face
/// with a neighbour needs the H halo; E of a cell on a high cut face reads H of that face) go through the
/// fused pass; then H of restH_ (after the E halo), the H injections outside coreH_, the H exchange, E of
/// restHE_ (coreE_ outside coreH_) and E of restE_ (after the H halo). With overlap the fused pass runs
/// while the previous step's E halo is in flight and restHE_ while the H halo is; without it every
/// exchange completes before the next update, as in the two-sweep step. Collective calls: the same
/// exchangeStart/exchangeFinish pairs in the same order as Tile::step's two-sweep path.
///
/// What moves relative to the two-sweep step, none of which changes a value: the H injections of a row of
/// coreH_ are added right after that row's H update (RowInjections.hpp), and Dispersion::beforeE (which
/// reads E^n) runs before the H update (which writes no E).
#include <algorithm>
#include <array>

#include "yee/kernels/Wavefront.hpp"
#include "yee/solver/Tile.hpp"
#include "yee/solver/Wavefront.hpp"

namespace yee::solver {

template <class T> std::vector<std::int64_t> Tile<T>::planeCosts(const Box& b) const {
    std::vector<std::int64_t> cost(std::size_t(std::max(0, b.extent(2))), 0);
    for (int k = b.lo[2]; k < b.hi[2]; ++k) {
        Box plane = b;
        plane.lo[2] = k;
        plane.hi[2] = k + 1;
        std::int64_t c = plane.cells();
        for (const auto& sl : slabs_)
            c += sl->local.intersect(plane).cells();
        cost[std::size_t(k - b.lo[2])] = c;
    }
    return cost;
}

template <class T> void Tile<T>::setupWavefront() {
    wavefront_ = !dev_.staged() && Wavefront::enabledByEnvironment();
    slabPlanes_ = Wavefront::slabPlanes();
    blockRows_ = Wavefront::blockRows(std::int64_t(box_.extent(0)) * std::int64_t(sizeof(T)));
    fusedE_ = Box{};
    restHE_.clear();
    hInjIndex_.clear();
    if (!wavefront_)
        return;
    fusedE_ = coreE_.intersect(coreH_);
    planeCost_ = planeCosts(coreH_);
    for (const Box& b : restH_) {
        const Box e = b.intersect(coreE_);
        if (!e.empty())
            restHE_.push_back(e);
    }
    rowInjections(1, coreH_, hInj_, hInjIndex_);
}

template <class T>
void Tile<T>::rowInjections(int fieldGroup, const Box& fused, RowInjections<T>& table,
                            std::vector<int>& index) {
    table.reset(fused);
    index.assign(injections_.size(), -1);
    for (std::size_t q = 0; q < injections_.size(); ++q) {
        const TileInjection& ti = *injections_[q];
        const int comp = ti.inj->comp;
        if ((comp < 3) != (fieldGroup == 0))
            continue;
        std::vector<Index3> local;
        local.reserve(ti.hostCells.size());
        for (const Index3& g : ti.hostCells)
            local.push_back({g[0] - box_.lo[0], g[1] - box_.lo[1], g[2] - box_.lo[2]});
        index[q] = table.add(fwd_.f[comp].data(), ti.offset.data(), ti.coef.data(), local);
    }
    table.finish();
}

template <class T>
void Tile<T>::setRowAmplitudes(double t, double sign, RowInjections<T>& table,
                               const std::vector<int>& index) const {
    const Plan& p = *plan_;
    for (std::size_t q = 0; q < std::min(index.size(), injections_.size()); ++q)
        if (index[q] >= 0) {
            const Injection& inj = *injections_[q]->inj;
            table.setAmplitude(index[q], T(sign * p.sourceTimes[inj.source](t + inj.shift)));
        }
}

template <class T> void Tile<T>::stepFused(int n, comm::Communicator& comm, bool overlap, comm::Phase phase) {
    const Plan& p = *plan_;
    const double dt = p.dt;
    const std::array<T*, 3> e{fwd_.f[0].data(), fwd_.f[1].data(), fwd_.f[2].data()};
    if (!overlap)
        finishPending(comm);
    setRowAmplitudes(n * dt, 1.0, hInj_, hInjIndex_); // the H injections at E^n time, as inject(1, n * dt)
    if (!disp_->none())
        disp_->beforeE(e, threads_); // keeps E^n where the fold does not; the H update writes no E
    // ---- the fused pass: H of coreH_ with its injections, E of fusedE_, row by row ----
    const auto withH = [&](const kernels::RowRef& h) {
        const auto withE = [&](const kernels::RowRef& eRow) {
            // H of a row (or a group of rows) with its injections right after it.
            struct HRow {
                const kernels::RowRef& h;
                const RowInjections<T>& inj;
                void operator()(int j, int k, int i0, int i1) const {
                    h(j, k, i0, i1);
                    inj.applyRow(j, k);
                }
                void rows(int j0, int j1, int k, int i0, int i1) const {
                    h.rows(j0, j1, k, i0, i1);
                    for (int j = j0; j < j1; ++j)
                        inj.applyRow(j, k);
                }
            };
            const HRow hRow{h, hInj_};
            kernels::wavefrontRows(coreH_, fusedE_, threads_, slabPlanes_, blockRows_, hRow, eRow,
                                   planeCost_.data());
        };
        const kernels::RowSink sinkE = kernels::RowSink::of(withE);
        updateEWithPml(fusedE_, &sinkE);
    };
    const kernels::RowSink sinkH = kernels::RowSink::of(withH);
    updateHWithPml(coreH_, &sinkH);
    // ---- H on the high cut faces (the E halo), the injections there; H^{n+1/2} valid on owned cells ----
    if (overlap)
        finishPending(comm);
    std::int64_t swept = 0;
    for (const Box& b : restH_) {
        updateHWithPml(b);
        swept += b.cells();
    }
    hInj_.applyRest();
    pack(fwd_, 1);
    if (hostStaged(comm, fwd_.groupH))
        dev_.sync();
    comm.exchangeStart(fwd_.groupH, phase);
    // ---- E on the high cut faces (no halo), then on the low ones (the H halo) ----
    if (overlap) {
        for (const Box& b : restHE_)
            updateEWithPml(b);
        comm.exchangeFinish(fwd_.groupH);
        unpack(fwd_, 1);
    } else {
        comm.exchangeFinish(fwd_.groupH);
        unpack(fwd_, 1);
        for (const Box& b : restHE_)
            updateEWithPml(b);
    }
    for (const Box& b : restE_)
        updateEWithPml(b);
    for (const Box& b : restHE_)
        swept += b.cells();
    for (const Box& b : restE_)
        swept += b.cells();
    inject(0, (n + 0.5) * dt); // electric currents J^{n+1/2}
    if (!disp_->none())        // pole currents, then the pole state to n + 1 (where not folded)
        disp_->afterE(e, {cb_[0].data(), cb_[1].data(), cb_[2].data()}, threads_);
    // E^{n+1} valid on owned cells; high E halo stale until the exchange completes.
    pack(fwd_, 0);
    if (hostStaged(comm, fwd_.groupE))
        dev_.sync();
    comm.exchangeStart(fwd_.groupE, phase);
    fwd_.pendingE = true;
    if (!overlap)
        finishPending(comm);
    Wavefront::count(coreH_.cells() + fusedE_.cells(), swept, 0);
}

template std::vector<std::int64_t> Tile<float>::planeCosts(const Box&) const;
template std::vector<std::int64_t> Tile<double>::planeCosts(const Box&) const;
template void Tile<float>::rowInjections(int, const Box&, RowInjections<float>&, std::vector<int>&);
template void Tile<double>::rowInjections(int, const Box&, RowInjections<double>&, std::vector<int>&);
template void Tile<float>::setRowAmplitudes(double, double, RowInjections<float>&,
                                            const std::vector<int>&) const;
template void Tile<double>::setRowAmplitudes(double, double, RowInjections<double>&,
                                             const std::vector<int>&) const;
template void Tile<float>::setupWavefront();
template void Tile<double>::setupWavefront();
template void Tile<float>::stepFused(int, comm::Communicator&, bool, comm::Phase);
template void Tile<double>::stepFused(int, comm::Communicator&, bool, comm::Phase);

} // namespace yee::solver
