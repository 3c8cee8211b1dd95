#include "yee/gradient/ReversibleState.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "yee/device/Exec.hpp"
#include "yee/gradient/AdjointStepper.hpp"
#include "yee/kernels/Adjoint.hpp"
#include "yee/kernels/Launch.hpp"

namespace yee::device {
// The inverse updates reading a 1-byte index (kernels::ByteCoef) run on CPU devices only (as Tile.cpp's).
template <class T, bool L>
struct CpuOnly<kernels::InverseUpdateE<T, L, kernels::ByteCoef<T>>> : std::true_type {};
template <class T, bool M>
struct CpuOnly<kernels::InverseUpdateH<T, M, kernels::ByteCoef<T>>> : std::true_type {};
} // namespace yee::device

namespace yee::gradient {

using device::Buffer;
using device::Category;
using device::launch;
using device::launchIndex;

template <class T>
ReversibleState<T>::ReversibleState(AdjointSweep<T>& sweep, const GradientPlan& gp)
    : sweep_(sweep), tile_(sweep.tile()), gp_(gp) {
    const solver::Plan& plan = tile_.plan();
    device::Device& dev = tile_.device();
    const int N = plan.steps;
    // ---- the interface layers this tile owns ----
    const Box gI = plan.scene.interiorCells();
    const Box& tb = tile_.box();
    Box own = gI.intersect(tb);
    for (int a = 0; a < 3; ++a) {
        own.lo[a] -= tb.lo[a];
        own.hi[a] -= tb.lo[a];
    }
    interior_ = own;
    for (int a = 0; a < 3; ++a) {
        if (plan.bc[a] != tiling::AxisBoundary::Pml)
            continue;
        for (int side = 0; side < 2; ++side) {
            const int g = side == 0 ? gI.lo[a] - 1 : gI.hi[a];
            if (g < tb.lo[a] || g >= tb.hi[a])
                continue;
            Layer L;
            L.box = gI.intersect(tb);
            L.box.lo[a] = g;
            L.box.hi[a] = g + 1;
            if (L.box.empty())
                continue;
            for (int q = 0; q < 3; ++q) {
                L.box.lo[q] -= tb.lo[q];
                L.box.hi[q] -= tb.lo[q];
            }
            const int base = side == 0 ? 3 : 0; // low layers carry H, high layers E
            L.comps[0] = base + (a + 1) % 3;
            L.comps[1] = base + (a + 2) % 3;
            (side == 0 ? layersH_ : layersE_).push_back(L);
            recordLen_ += 2 * L.box.cells();
        }
    }
    for (int which = 0; which < 2; ++which)
        for (const Layer& L : which == 0 ? layersH_ : layersE_)
            for (int c : L.comps)
                layerRegions_[which].push_back({c, L.box});
    // ---- the recorder: kept steps (LinearReconstructEveryK), their store ----
    keptIndex_.assign(std::size_t(std::max(N, 1)), -1);
    for (int n = 0; n < N; ++n) {
        const bool keep = n < gp_.startAfter || (n - gp_.startAfter) % gp_.everyK == 0 || n == N - 1;
        if (keep) {
            keptIndex_[std::size_t(n)] = int(kept_.size());
            kept_.push_back(n);
        }
    }
    store_ = std::make_unique<RecordStore>(dev, recordLen_ * dtypeBytes(gp_.dtype), int(kept_.size()),
                                           gp_.tier, gp_.transferInterval, gp_.ringBuffers, gp_.diskPath);
    if (dev.staged() && recordLen_ > 0) {
        if (kernels::recordDtypeScaled(gp_.dtype))
            maxAbs_ = Buffer<std::uint64_t>(dev, std::int64_t(kept_.size()), Category::Recorder);
        if (std::int64_t(kept_.size()) < N)
            upper_ = Buffer<unsigned char>(dev, recordLen_ * dtypeBytes(gp_.dtype), Category::Staging);
    }
    // ---- drift-bounding checkpoints, evenly spaced ----
    const int C = gp_.numCheckpointsReversible;
    for (int j = 1; j <= C; ++j) {
        const int m = int(std::int64_t(j) * N / (C + 1));
        if (m > 0 && m < N)
            checkpointSteps_.push_back(m);
    }
    checkpoints_ = std::make_unique<StateSnapshots>(dev, tile_.state(), int(checkpointSteps_.size()));
    const std::size_t K = sweep.capturePoints().size();
    after_.assign(K, T(0));
    before_.assign(K, T(0));
}

template <class T> void ReversibleState<T>::afterForwardStep(int n, comm::Communicator& comm) {
    record(n);
    const auto it = std::find(checkpointSteps_.begin(), checkpointSteps_.end(), n + 1);
    if (it != checkpointSteps_.end()) {
        tile_.finishPending(comm);
        checkpoints_->save(int(it - checkpointSteps_.begin()));
    }
}

template <class T> kernels::RecordLayout<T> ReversibleState<T>::recordLayout() const {
    kernels::RecordLayout<T> L;
    for (int part = 0; part < 2; ++part)
        for (const auto& reg : layerRegions_[part]) {
            if (L.count == kernels::RecordLayout<T>::kMax)
                throw std::logic_error("reversible recorder: more than 12 layer regions");
            L.append(tile_.field(reg.comp), {reg.box.lo[0], reg.box.lo[1], reg.box.lo[2]},
                     {reg.box.extent(0), reg.box.extent(1), reg.box.extent(2)});
        }
    return L;
}

template <class T> void ReversibleState<T>::recordOnDevice(int r) {
    device::Device& dev = tile_.device();
    unsigned char* out = store_->writeAddress(r);
    if (!out)
        return; // the store has failed: nothing more is recorded
    const kernels::RecordLayout<T> L = recordLayout();
    std::uint64_t* maxAbs = maxAbs_.allocated() ? maxAbs_.data() + r : nullptr;
    if (maxAbs) {
        // One index per GPU thread of a grid that strides the record (one atomic each); the CPU's staged
        // path takes it on one thread. The maximum does not depend on the split.
        const std::int64_t threads = dev.isCuda() ? std::min<std::int64_t>(recordLen_, 32768) : 1;
        dev.zero(maxAbs, std::int64_t(sizeof(std::uint64_t)));
        launchIndex(dev, threads, 1, kernels::RecordAbsMax<T>{L, recordLen_, threads, maxAbs});
    }
    launchIndex(dev, recordLen_, tile_.threads(), kernels::RecordEncode<T>{L, gp_.dtype, maxAbs, out});
}

template <class T> void ReversibleState<T>::replayOnDevice(int n, int part) {
    device::Device& dev = tile_.device();
    const std::int64_t lenH = solver::Tile<T>::regionCells(layerRegions_[0]);
    kernels::RecordDecode<T> k{recordLayout(), gp_.dtype, part == 0 ? 0 : lenH};
    const std::int64_t count = part == 0 ? lenH : recordLen_ - lenH;
    const std::uint64_t* maxAbs = maxAbs_.allocated() ? maxAbs_.data() : nullptr;
    if (n >= 0 && keptIndex_[std::size_t(n)] >= 0) {
        const int r = keptIndex_[std::size_t(n)];
        k.a = store_->readAddress(r);
        k.maxAbsA = maxAbs ? maxAbs + r : nullptr;
    } else if (n >= 0) {
        // LinearReconstructEveryK between the kept neighbours; the upper record's bytes are copied aside
        // (on the device's stream) before the lower one is read, which may reuse the upper one's slot.
        const auto it = std::upper_bound(kept_.begin(), kept_.end(), n);
        const int n1 = *it, n0 = *(it - 1);
        const int r1 = keptIndex_[std::size_t(n1)], r0 = keptIndex_[std::size_t(n0)];
        const unsigned char* upper = store_->readAddress(r1);
        if (upper) {
            dev.copyOnDevice(upper_.data(), upper, upper_.bytes());
            k.a = store_->readAddress(r0);
            k.b = upper_.data();
            k.maxAbsA = maxAbs ? maxAbs + r0 : nullptr;
            k.maxAbsB = maxAbs ? maxAbs + r1 : nullptr;
            k.w = double(n - n0) / double(n1 - n0);
        }
        if (!k.a)
            k.b = nullptr;
    }
    launchIndex(dev, count, tile_.threads(), k);
}

template <class T> void ReversibleState<T>::record(int n) {
    if (recordLen_ == 0 || keptIndex_[std::size_t(n)] < 0)
        return;
    if (tile_.device().staged()) {
        recordOnDevice(keptIndex_[std::size_t(n)]);
        return;
    }
    std::vector<typename solver::Tile<T>::Region> all = layerRegions_[0];
    all.insert(all.end(), layerRegions_[1].begin(), layerRegions_[1].end());
    std::vector<T> vals;
    tile_.download(tile_.forward(), all, layerStage_, vals);
    const std::vector<double> tmp(vals.begin(), vals.end());
    const int r = keptIndex_[std::size_t(n)];
    std::vector<unsigned char> bytes(static_cast<std::size_t>(recordLen_ * dtypeBytes(gp_.dtype)));
    const double scale = encode(tmp.data(), recordLen_, gp_.dtype, bytes.data());
    store_->put(r, bytes.data(), scale);
}

template <class T> const std::vector<double>& ReversibleState<T>::decoded(int r, int keep) {
    for (Decoded& d : decoded_)
        if (d.record == r)
            return d.values;
    Decoded& d = decoded_[0].record == keep ? decoded_[1] : decoded_[0];
    d.values.resize(std::size_t(recordLen_));
    double scale = 1;
    const unsigned char* src = store_->get(r, scale);
    decode(src, recordLen_, gp_.dtype, scale, d.values.data());
    d.record = r;
    return d.values;
}

template <class T> void ReversibleState<T>::replay(int n, int part) {
    if (recordLen_ == 0)
        return;
    if (tile_.device().staged()) {
        replayOnDevice(n, part);
        return;
    }
    // The record holds the H layers, then the E layers; write back the part asked for.
    const std::int64_t lenH = solver::Tile<T>::regionCells(layerRegions_[0]);
    const std::size_t first = part == 0 ? 0 : std::size_t(lenH);
    const std::size_t last = part == 0 ? std::size_t(lenH) : std::size_t(recordLen_);
    vals_.resize(last - first);
    if (n < 0) {
        std::fill(vals_.begin(), vals_.end(), T(0));
    } else if (keptIndex_[std::size_t(n)] >= 0) {
        const std::vector<double>& rec = decoded(keptIndex_[std::size_t(n)], -1);
        std::transform(rec.begin() + std::ptrdiff_t(first), rec.begin() + std::ptrdiff_t(last), vals_.begin(),
                       [](double v) { return T(v); });
    } else {
        // LinearReconstructEveryK: interpolate between the kept neighbours.
        const auto it = std::upper_bound(kept_.begin(), kept_.end(), n);
        const int n1 = *it, n0 = *(it - 1);
        const int r1 = keptIndex_[std::size_t(n1)], r0 = keptIndex_[std::size_t(n0)];
        const std::vector<double>& b = decoded(r1, r0); // the reverse sweep reads downwards
        const std::vector<double>& a = decoded(r0, r1);
        const double w = double(n - n0) / double(n1 - n0);
        for (std::size_t q = first; q < last; ++q)
            vals_[q - first] = T((1 - w) * a[q] + w * b[q]);
    }
    tile_.upload(tile_.forward(), layerRegions_[part], layerStage_, vals_);
}

template <class T> void ReversibleState<T>::reconstructE(int n) {
    const solver::Plan& plan = tile_.plan();
    tile_.inject(0, (n + 0.5) * plan.dt, -1.0);
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = tile_.field(c);
    tile_.withCoefs([&](const auto& m) {
        using C = std::decay_t<decltype(m.cb[0])>;
        if (plan.lossy) {
            const kernels::InverseUpdateE<T, true, C> k{f[0],    f[1],    f[2],    f[3],    f[4],    f[5],
                                                        m.cb[0], m.cb[1], m.cb[2], m.ca[0], m.ca[1], m.ca[2]};
            launch(tile_.device(), interior_, tile_.threads(), k);
        } else {
            const kernels::InverseUpdateE<T, false, C> k{f[0],    f[1],    f[2],    f[3], f[4], f[5],
                                                         m.cb[0], m.cb[1], m.cb[2], {},   {},   {}};
            launch(tile_.device(), interior_, tile_.threads(), k);
        }
    });
}

template <class T> void ReversibleState<T>::reconstructH(int n) {
    const solver::Plan& plan = tile_.plan();
    tile_.inject(1, n * plan.dt, -1.0);
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = tile_.field(c);
    tile_.withCoefs([&](const auto& m) {
        using C = std::decay_t<decltype(m.db[0])>;
        if (plan.magnetic) {
            const kernels::InverseUpdateH<T, true, C> k{f[3], f[4],    f[5],    f[0],    f[1],
                                                        f[2], m.db[0], m.db[1], m.db[2], tile_.dbScalar()};
            launch(tile_.device(), interior_, tile_.threads(), k);
        } else {
            const kernels::InverseUpdateH<T, false, C> k{f[3], f[4], f[5], f[0], f[1],
                                                         f[2], {},   {},   {},   tile_.dbScalar()};
            launch(tile_.device(), interior_, tile_.threads(), k);
        }
    });
}

template <class T> void ReversibleState<T>::restoreCheckpoint(int j) {
    // Drift: reconstructed vs stored fields over the capture points (design and objective fields).
    sweep_.captureForward(after_);
    device::Device& dev = tile_.device();
    const unsigned char* field[6];
    for (int c = 0; c < 6; ++c) {
        field[c] = checkpoints_->find(j, tile_.forward().f[std::size_t(c)].data());
        if (!field[c])
            throw std::logic_error("reversible checkpoints: field " + std::to_string(c) +
                                   " is not registered as Dynamics tile state");
    }
    const std::vector<FieldPoint>& pts = sweep_.capturePoints();
    double num = 0, den = 0;
    for (std::size_t q = 0; q < pts.size(); ++q) {
        T v; // the checkpoint is device memory: one explicit copy per capture point
        dev.copy(&v, field[pts[q].comp] + pts[q].off * std::int64_t(sizeof(T)), std::int64_t(sizeof(T)));
        const double ref = double(v);
        num = std::max(num, std::abs(double(after_[q]) - ref));
        den = std::max(den, std::abs(ref));
    }
    if (den > 0)
        drift_ = std::max(drift_, num / den);
    checkpoints_->load(j);
}

template <class T> void ReversibleState<T>::beforeAdjointStep(int n) {
    // A full-state checkpoint of state n+1 replaces the reconstruction (bounds drift in lossy media).
    const auto it = std::find(checkpointSteps_.begin(), checkpointSteps_.end(), n + 1);
    if (it != checkpointSteps_.end())
        restoreCheckpoint(int(it - checkpointSteps_.begin()));
    sweep_.captureForward(after_);  // E^{n+1}, H^{n+1/2}
    replay(n, 0);                   // H^{n+1/2} on the low interface layers
    reconstructE(n);                // E^n in the interior
    sweep_.captureForward(before_); // E^n
}

template <class T> void ReversibleState<T>::backward(comm::Communicator& comm) {
    tile_.finishPending(comm);
    if (store_)
        store_->finishWrites();
    if (inPassAllowed())
        return backwardInPass(comm);
    for (int n = tile_.plan().steps - 1; n >= 0; --n) {
        beforeAdjointStep(n);
        sweep_.adjointStep(
            n, after_, before_, comm,
            [&] {
                replay(n - 1, 1); // E^n on the high interface layers
                reconstructH(n);  // H^{n-1/2} in the interior
            },
            nullptr);
    }
}

template <class T> bool ReversibleState<T>::inPassAllowed() const {
    if (tile_.device().staged() || !sweep_.adjointPassTakesRows())
        return false;
    const ArrayShape& sh = tile_.shape();
    for (const FieldPoint& p : sweep_.capturePoints()) {
        const std::int64_t o = p.off;
        const int k = int(o / sh.sz) - 1, j = int((o % sh.sz) / sh.sy) - 1, i = int(o % sh.sy) - 1;
        if (!interior_.contains({i, j, k}))
            return false; // its value outside the interior would depend on when layers are replayed
    }
    return true;
}

namespace {
/// The part inside `box` (tile-local) of each row of kernel k, for a fused pass's rows.
template <class K> struct BoxRows {
    K k;
    Box box;
    bool has(int j, int kk) const {
        return j >= box.lo[1] && j < box.hi[1] && kk >= box.lo[2] && kk < box.hi[2];
    }
    void operator()(int j, int kk, int i0, int i1) const {
        if (!has(j, kk))
            return;
        const int a = std::max(i0, box.lo[0]), b = std::min(i1, box.hi[0]);
        if (a < b)
            kernels::detail::runRow(k, a, b, j, kk);
    }
};
/// BoxRows of the inverse E update with the row's E sources subtracted first (RowInjections of `box`), as
/// reconstructE subtracts them all before its pass: every cell's operations in the same order.
template <class K, class T> struct InjectedRows {
    BoxRows<K> r;
    const solver::RowInjections<T>& inj;
    void operator()(int j, int kk, int i0, int i1) const {
        if (!r.has(j, kk))
            return;
        inj.applyRow(j, kk);
        r(j, kk, i0, i1);
    }
};
} // namespace

template <class T> void ReversibleState<T>::backwardInPass(comm::Communicator& comm) {
    // Reverse step n with the fields at E^n (interior) and H^{n+1/2}, and both captures taken: the adjoint
    // step's fused pass also runs the inverse H update of step n (H^{n+1/2} -> H^{n-1/2}) and, where step
    // n - 1 follows without a checkpoint, the inverse E update of step n - 1 (E^n -> E^{n-1}). The pair has
    // the forward step's shape (H reads E^n of its row and the next ones, E reads H^{n-1/2} of its row and
    // the earlier ones), which the pass's order keeps (AdjointPassRows), and the adjoint rows touch no
    // forward field: every value is the one the separate passes compute. What moves: the replays of both
    // layers of step n - 1 before the pass (the inverse H reads the E layers; the H layers are read only by
    // the inverse E, and the inverse H writes none of them), the E sources of step n - 1 subtracted row by
    // row in the pass (RowInjections; those outside the interior after it), and the captures: E^n at the
    // E points is the capture before step n, H^{n-1/2} and E^{n-1} are taken once after the pass.
    const solver::Plan& plan = tile_.plan();
    const double dt = plan.dt;
    tile_.rowInjections(0, interior_, eInj_, eInjIndex_);
    const std::vector<FieldPoint>& pts = sweep_.capturePoints();
    std::vector<T> now(pts.size());
    View<T> f[6];
    for (int c = 0; c < 6; ++c)
        f[c] = tile_.field(c);
    bool haveE = false; // the fields hold E^n and both captures of step n are taken
    for (int n = plan.steps - 1; n >= 0; --n) {
        if (!haveE)
            beforeAdjointStep(n);
        // Step n - 1 follows in the pass unless state n is a checkpoint (restored before step n - 1).
        const bool nextE =
            n > 0 && std::find(checkpointSteps_.begin(), checkpointSteps_.end(), n) == checkpointSteps_.end();
        replay(n - 1, 1);              // E^n on the high interface layers
        tile_.inject(1, n * dt, -1.0); // the H sources of step n, as reconstructH
        if (nextE) {
            replay(n - 1, 0); // H^{n-1/2} on the low interface layers
            tile_.setRowAmplitudes((n - 1 + 0.5) * dt, -1.0, eInj_, eInjIndex_);
        }
        tile_.withCoefs([&](const auto& m) {
            using C = std::decay_t<decltype(m.cb[0])>;
            const auto run = [&](const auto& invH) {
                const BoxRows<std::decay_t<decltype(invH)>> hRows{invH, interior_};
                const auto withE = [&](const auto& invE) {
                    using E = std::decay_t<decltype(invE)>;
                    const InjectedRows<E, T> eRows{{invE, interior_}, eInj_};
                    const AdjointPassRows rows{kernels::RowRef::of(hRows),
                                               nextE ? kernels::RowRef::of(eRows) : kernels::RowRef{}};
                    sweep_.adjointStep(n, after_, before_, comm, {}, &rows);
                };
                if (plan.lossy)
                    withE(kernels::InverseUpdateE<T, true, C>{f[0], f[1], f[2], f[3], f[4], f[5], m.cb[0],
                                                              m.cb[1], m.cb[2], m.ca[0], m.ca[1], m.ca[2]});
                else
                    withE(kernels::InverseUpdateE<T, false, C>{
                        f[0], f[1], f[2], f[3], f[4], f[5], m.cb[0], m.cb[1], m.cb[2], {}, {}, {}});
            };
            if (plan.magnetic)
                run(kernels::InverseUpdateH<T, true, C>{f[3], f[4], f[5], f[0], f[1], f[2], m.db[0], m.db[1],
                                                        m.db[2], tile_.dbScalar()});
            else
                run(kernels::InverseUpdateH<T, false, C>{
                    f[3], f[4], f[5], f[0], f[1], f[2], {}, {}, {}, tile_.dbScalar()});
        });
        haveE = nextE;
        if (!nextE)
            continue;
        eInj_.applyRest();          // E sources outside the interior, which no inverse update reads
        sweep_.captureForward(now); // E^{n-1}, H^{n-1/2}
        for (std::size_t q = 0; q < pts.size(); ++q)
            after_[q] = pts[q].comp < 3 ? before_[q] : now[q]; // E^n, H^{n-1/2}
        before_.swap(now);
    }
}

template class ReversibleState<float>;
template class ReversibleState<double>;

} // namespace yee::gradient
