#include "yee/modes/ModeSolver.hpp"

#include <Eigen/Sparse>
#include <Spectra/GenEigsRealShiftSolver.h>
#include <Spectra/MatOp/SparseGenRealShiftSolve.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <stdexcept>

#include "yee/core/Error.hpp"

namespace yee::modes {

namespace {

using Sp = Eigen::SparseMatrix<double>;
using Vec = Eigen::VectorXd;
using Trip = Eigen::Triplet<double>;

/// Forward difference on one axis of n cells: from the n - 1 interior integer points (the walls hold 0)
/// to the n half points: (F f)_i = f_{i+1} - f_i.
Sp forward1(int n) {
    std::vector<Trip> t;
    for (int i = 0; i < n; ++i) {
        if (i + 1 <= n - 1)
            t.emplace_back(i, i, 1.0); // f at integer point i + 1 is interior unknown i
        if (i >= 1)
            t.emplace_back(i, i - 1, -1.0);
    }
    Sp m(n, n - 1);
    m.setFromTriplets(t.begin(), t.end());
    return m;
}

Sp identity(int n) {
    Sp m(n, n);
    m.setIdentity();
    return m;
}

Sp kron(const Sp& a, const Sp& b) {
    std::vector<Trip> t;
    t.reserve(std::size_t(a.nonZeros() * b.nonZeros()));
    for (int ka = 0; ka < a.outerSize(); ++ka)
        for (Sp::InnerIterator ia(a, ka); ia; ++ia)
            for (int kb = 0; kb < b.outerSize(); ++kb)
                for (Sp::InnerIterator ib(b, kb); ib; ++ib)
                    t.emplace_back(int(ia.row() * b.rows() + ib.row()), int(ia.col() * b.cols() + ib.col()),
                                   ia.value() * ib.value());
    Sp m(a.rows() * b.rows(), a.cols() * b.cols());
    m.setFromTriplets(t.begin(), t.end());
    return m;
}

Sp diag(const Vec& v) {
    Sp m(v.size(), v.size());
    std::vector<Trip> t;
    for (int i = 0; i < v.size(); ++i)
        t.emplace_back(i, i, v[i]);
    m.setFromTriplets(t.begin(), t.end());
    return m;
}

/// The four transverse lattices: L1 (u integer interior, w half) holds H_u and E_w; L2 (u half, w
/// integer interior) holds H_w and E_u; Lz (both integer interior) holds E_a; Lh (both half) holds H_a.
struct Lattice {
    int nu = 0, nw = 0;
    // local (iu, iw) index of the component grid for lattice position p
    int size1() const { return (nu - 1) * nw; }
    int size2() const { return nu * (nw - 1); }
    int sizeZ() const { return (nu - 1) * (nw - 1); }
    int sizeH() const { return nu * nw; }
};

/// Material of component comp (0..5) at global transverse indices (gu, gw) on plane `plane`.
double material(const scene::Rasterizer& r, int normal, int plane, int comp, int gu, int gw) {
    std::array<int, 3> g{};
    g[std::size_t(normal)] = plane;
    g[std::size_t((normal + 1) % 3)] = gu;
    g[std::size_t((normal + 2) % 3)] = gw;
    const scene::CellMaterial m = r.at(comp < 3 ? 0 : 1, comp % 3, g[0], g[1], g[2]);
    return comp < 3 ? m.eps : m.mu;
}

} // namespace

ModeSet solveModes(const scene::Rasterizer& raster, const ModeRequest& req, const std::string& field) {
    const auto t0 = std::chrono::steady_clock::now();
    const int a = req.normal, u = (a + 1) % 3, w = (a + 2) % 3;
    const int nu = req.hi[0] - req.lo[0], nw = req.hi[1] - req.lo[1];
    if (nu < 2 || nw < 2)
        throw InputError(field +
                         ": the port cross-section needs at least 2 cells along each transverse axis");
    if (!(req.omega > 0) || !(req.dt > 0) || req.count < 1)
        throw std::invalid_argument("solveModes: omega, dt and count must be positive");
    const Lattice L{nu, nw};
    const int u0 = req.lo[0], w0 = req.lo[1];

    // Materials on the lattices (global indices of each component's own Yee position).
    Vec epsU(L.size2()), muW(L.size2()), epsW(L.size1()), muU(L.size1()), epsA(L.sizeZ()), muA(L.sizeH());
    for (int iu = 0; iu < nu - 1; ++iu)
        for (int iw = 0; iw < nw; ++iw) {
            const int p = iu * nw + iw; // L1: u integer iu + 1, w half iw
            epsW[p] = material(raster, a, req.plane, w, u0 + iu + 1, w0 + iw);
            muU[p] = material(raster, a, req.plane, 3 + u, u0 + iu + 1, w0 + iw);
        }
    for (int iu = 0; iu < nu; ++iu)
        for (int iw = 0; iw < nw - 1; ++iw) {
            const int p = iu * (nw - 1) + iw; // L2: u half iu, w integer iw + 1
            epsU[p] = material(raster, a, req.plane, u, u0 + iu, w0 + iw + 1);
            muW[p] = material(raster, a, req.plane, 3 + w, u0 + iu, w0 + iw + 1);
        }
    for (int iu = 0; iu < nu - 1; ++iu)
        for (int iw = 0; iw < nw - 1; ++iw)
            epsA[iu * (nw - 1) + iw] = material(raster, a, req.plane, a, u0 + iu + 1, w0 + iw + 1);
    for (int iu = 0; iu < nu; ++iu)
        for (int iw = 0; iw < nw; ++iw)
            muA[iu * nw + iw] = material(raster, a, req.plane, 3 + a, u0 + iu, w0 + iw);

    // Transverse differences between the lattices (u slow, w fast: kron(op_u, op_w)).
    const Sp Fu = forward1(nu), Fw = forward1(nw);
    const Sp Bu = -Sp(Fu.transpose()), Bw = -Sp(Fw.transpose());
    const Sp Dpu_2z = kron(Bu, identity(nw - 1)); // L2 -> Lz
    const Sp Dpw_1z = kron(identity(nu - 1), Bw); // L1 -> Lz
    const Sp Dw_z1 = kron(identity(nu - 1), Fw);  // Lz -> L1
    const Sp Du_z2 = kron(Fu, identity(nw - 1));  // Lz -> L2
    const Sp Du_1h = kron(Fu, identity(nw));      // L1 -> Lh
    const Sp Dw_2h = kron(identity(nu), Fw);      // L2 -> Lh
    const Sp Dpu_h1 = kron(Bu, identity(nw));     // Lh -> L1
    const Sp Dpw_h2 = kron(identity(nu), Bw);     // Lh -> L2

    const double W = 2 * std::sin(req.omega * req.dt / 2) / req.dt; // the grid's numerical frequency
    const Sp iEpsA = diag(epsA.cwiseInverse()), iMuA = diag(muA.cwiseInverse());
    const Sp A11 = Sp(diag(W * W * epsW.cwiseProduct(muU))) + diag(epsW) * Dw_z1 * iEpsA * Dpw_1z +
                   Dpu_h1 * iMuA * Du_1h * diag(muU);
    const Sp A12 = -Sp(diag(epsW) * Dw_z1 * iEpsA * Dpu_2z) + Dpu_h1 * iMuA * Dw_2h * diag(muW);
    const Sp A21 = -Sp(diag(epsU) * Du_z2 * iEpsA * Dpw_1z) + Dpw_h2 * iMuA * Du_1h * diag(muU);
    const Sp A22 = Sp(diag(W * W * epsU.cwiseProduct(muW))) + diag(epsU) * Du_z2 * iEpsA * Dpu_2z +
                   Dpw_h2 * iMuA * Dw_2h * diag(muW);
    const int n1 = L.size1(), n2 = L.size2(), n = n1 + n2;
    std::vector<Trip> t;
    auto put = [&t](const Sp& m, int r0, int c0) {
        for (int k = 0; k < m.outerSize(); ++k)
            for (Sp::InnerIterator it(m, k); it; ++it)
                t.emplace_back(int(it.row()) + r0, int(it.col()) + c0, it.value());
    };
    put(A11, 0, 0);
    put(A12, 0, n1);
    put(A21, n1, 0);
    put(A22, n1, n1);
    Sp A(n, n);
    A.setFromTriplets(t.begin(), t.end());
    A.makeCompressed();

    // Shift: just above the largest possible K^2, or at the guess.
    double nmax2 = 0;
    for (int i = 0; i < n1; ++i)
        nmax2 = std::max(nmax2, epsW[i] * muU[i]);
    for (int i = 0; i < n2; ++i)
        nmax2 = std::max(nmax2, epsU[i] * muW[i]);
    double sigma;
    if (req.nGuess > 0) {
        const double kg = 2 * std::sin(std::min(req.nGuess * req.omega, M_PI) / 2);
        sigma = kg * kg * (1 + 1e-7);
    } else {
        sigma = W * W * nmax2 * (1 + 1e-3) + 1e-9;
    }

    const int nev = std::min(req.count + 2, n - 2);
    const int ncv = std::min(n, std::max(2 * nev + 1, 24));
    Spectra::SparseGenRealShiftSolve<double> op(A);
    Spectra::GenEigsRealShiftSolver<Spectra::SparseGenRealShiftSolve<double>> eigs(op, nev, ncv, sigma);
    eigs.init();
    eigs.compute(Spectra::SortRule::LargestMagn, 2000, 1e-12, Spectra::SortRule::LargestMagn);
    if (eigs.info() != Spectra::CompInfo::Successful)
        throw std::runtime_error(field + ": the mode solver did not converge");
    const Eigen::VectorXcd vals = eigs.eigenvalues();
    const Eigen::MatrixXcd vecs = eigs.eigenvectors();

    // Guided modes: real K^2 in (0, 4); ordered by n_eff (or by distance from the guess).
    std::vector<int> order;
    for (int k = 0; k < vals.size(); ++k)
        if (std::fabs(vals[k].imag()) <= 1e-9 * std::max(1.0, std::fabs(vals[k].real())) &&
            vals[k].real() > 0 && vals[k].real() < 4)
            order.push_back(k);
    std::sort(order.begin(), order.end(), [&](int x, int y) {
        if (req.nGuess > 0)
            return std::fabs(vals[x].real() - sigma) < std::fabs(vals[y].real() - sigma);
        return vals[x].real() > vals[y].real();
    });
    if (int(order.size()) < req.count)
        throw InputError(field + ": the cross-section guides " + std::to_string(order.size()) +
                         " mode(s) near the shift, fewer than the " + std::to_string(req.count) +
                         " requested");

    ModeSet out;
    out.request = req;
    out.unknowns = n;
    auto uniform = [](const Vec& v, double ref) { return v.size() == 0 || (v.array() == ref).all(); };
    const double e0 = epsW.size() ? epsW[0] : epsU[0], m0 = muU.size() ? muU[0] : muW[0];
    out.homogeneous = uniform(epsW, e0) && uniform(epsU, e0) && uniform(epsA, e0) && uniform(muU, m0) &&
                      uniform(muW, m0) && uniform(muA, m0);
    for (int m = 0; m < req.count; ++m) {
        const int k = order[std::size_t(m)];
        // A real eigenvector: rotate the phase of the largest entry to zero, keep the real part.
        Eigen::VectorXcd v = vecs.col(k);
        Eigen::Index big = 0;
        v.cwiseAbs().maxCoeff(&big);
        v *= std::conj(v[big]) / std::abs(v[big]);
        const Vec h = v.real();
        const Vec h1 = h.head(n1), h2 = h.tail(n2);

        Mode md;
        md.nu = nu;
        md.nw = nw;
        md.kappa = std::sqrt(vals[k].real());
        md.beta = 2 * std::asin(md.kappa / 2);
        md.neff = md.beta / req.omega;
        const Vec curl = Dpu_2z * h2 - Dpw_1z * h1;                         // on Lz
        const Vec ea = curl.cwiseQuotient(epsA) / W;                        // E_a = -i ea
        const Vec eu = (W * muW.cwiseProduct(h2) + Du_z2 * ea) / md.kappa;  // on L2
        const Vec ew = (-W * muU.cwiseProduct(h1) + Dw_z1 * ea) / md.kappa; // on L1
        const Vec ha = (Du_1h * muU.cwiseProduct(h1) + Dw_2h * muW.cwiseProduct(h2)).cwiseQuotient(muA) /
                       md.kappa; // H_a = -i ha
        const double power = eu.dot(h2) - ew.dot(h1);
        const double s = (power < 0 ? -1.0 : 1.0) / std::sqrt(std::fabs(power));
        const std::size_t cells = std::size_t(nu + 1) * std::size_t(nw + 1);
        for (auto& f : md.field)
            f.assign(cells, 0.0);
        auto set = [&](int comp, int iu, int iw, double val) {
            md.field[std::size_t(comp)][std::size_t(iu) * std::size_t(nw + 1) + std::size_t(iw)] = val * s;
        };
        for (int iu = 0; iu < nu - 1; ++iu)
            for (int iw = 0; iw < nw; ++iw) {
                set(3 + u, iu + 1, iw, h1[iu * nw + iw]);
                set(w, iu + 1, iw, ew[iu * nw + iw]);
            }
        for (int iu = 0; iu < nu; ++iu)
            for (int iw = 0; iw < nw - 1; ++iw) {
                set(3 + w, iu, iw + 1, h2[iu * (nw - 1) + iw]);
                set(u, iu, iw + 1, eu[iu * (nw - 1) + iw]);
            }
        for (int iu = 0; iu < nu - 1; ++iu)
            for (int iw = 0; iw < nw - 1; ++iw)
                set(a, iu + 1, iw + 1, ea[iu * (nw - 1) + iw]);
        for (int iu = 0; iu < nu; ++iu)
            for (int iw = 0; iw < nw; ++iw)
                set(3 + a, iu, iw, ha[iu * nw + iw]);
        out.modes.push_back(std::move(md));
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

double overlap(const Mode& a, const Mode& b, int normal) {
    const int u = (normal + 1) % 3, w = (normal + 2) % 3;
    double s = 0;
    for (int iu = 0; iu <= a.nu; ++iu)
        for (int iw = 0; iw <= a.nw; ++iw)
            s += a.at(u, iu, iw) * b.at(3 + w, iu, iw) - a.at(w, iu, iw) * b.at(3 + u, iu, iw);
    return s;
}

} // namespace yee::modes
