#include "yee/modes/ModeSolver.hpp"

#include <Eigen/Sparse>
#include <Spectra/GenEigsRealShiftSolver.h>
#include <Spectra/GenEigsSolver.h>
#include <Spectra/MatOp/SparseGenRealShiftSolve.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <stdexcept>
#include <type_traits>

#include "yee/core/Error.hpp"
#include "yee/modes/ComplexEigs.hpp"

namespace yee::modes {

namespace {

using cplx = std::complex<double>;
template <class S> using SpT = Eigen::SparseMatrix<S>;
template <class S> using VecT = Eigen::Matrix<S, Eigen::Dynamic, 1>;
using Sp = SpT<double>;
using Vec = Eigen::VectorXd;

/// Forward difference on one axis of n cells: from the n - 1 interior integer points (the walls hold 0)
/// to the n half points: (F f)_i = (f_{i+1} - f_i) / s_i, s the stretch at half point i.
template <class S> SpT<S> forward1(int n, const std::vector<S>& sHalf) {
    std::vector<Eigen::Triplet<S>> t;
    for (int i = 0; i < n; ++i) {
        const S g = S(1.0) / sHalf[std::size_t(i)];
        if (i + 1 <= n - 1)
            t.emplace_back(i, i, g); // f at integer point i + 1 is interior unknown i
        if (i >= 1)
            t.emplace_back(i, i - 1, -g);
    }
    SpT<S> m(n, n - 1);
    m.setFromTriplets(t.begin(), t.end());
    return m;
}

/// Backward difference from the n half points to the n - 1 interior integer points, -F^T unstretched:
/// (B f)_r = (f_{r+1} - f_r) / s_r, s the stretch at integer point r + 1.
template <class S> SpT<S> backward1(int n, const std::vector<S>& sInt) {
    std::vector<Eigen::Triplet<S>> t;
    for (int r = 0; r < n - 1; ++r) {
        const S g = S(1.0) / sInt[std::size_t(r)];
        t.emplace_back(r, r, -g);
        t.emplace_back(r, r + 1, g);
    }
    SpT<S> m(n - 1, n);
    m.setFromTriplets(t.begin(), t.end());
    return m;
}

template <class S> SpT<S> identity(int n) {
    SpT<S> m(n, n);
    m.setIdentity();
    return m;
}

template <class S> SpT<S> kron(const SpT<S>& a, const SpT<S>& b) {
    std::vector<Eigen::Triplet<S>> t;
    t.reserve(std::size_t(a.nonZeros() * b.nonZeros()));
    for (int ka = 0; ka < a.outerSize(); ++ka)
        for (typename SpT<S>::InnerIterator ia(a, ka); ia; ++ia)
            for (int kb = 0; kb < b.outerSize(); ++kb)
                for (typename SpT<S>::InnerIterator ib(b, kb); ib; ++ib)
                    t.emplace_back(int(ia.row() * b.rows() + ib.row()), int(ia.col() * b.cols() + ib.col()),
                                   ia.value() * ib.value());
    SpT<S> m(a.rows() * b.rows(), a.cols() * b.cols());
    m.setFromTriplets(t.begin(), t.end());
    return m;
}

template <class S> SpT<S> diag(const Vec& v) {
    SpT<S> m(v.size(), v.size());
    std::vector<Eigen::Triplet<S>> t;
    for (int i = 0; i < v.size(); ++i)
        t.emplace_back(i, i, S(v[i]));
    m.setFromTriplets(t.begin(), t.end());
    return m;
}

/// The four transverse lattices: L1 (u integer interior, w half) holds H_u and E_w; L2 (u half, w
/// integer interior) holds H_w and E_u; Lz (both integer interior) holds E_a; Lh (both half) holds H_a.
struct Lattice {
    int nu = 0, nw = 0;
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

/// Materials of the window's lattices.
struct Materials {
    Vec epsU, muW, epsW, muU, epsA, muA;
};

/// The PML stretch at window position x (cells from the window's low wall) of a window of n cells whose
/// outer `pml` cells on each side absorb; 1 everywhere when pml = 0.
template <class S> S stretch(double x, int n, int pml, double W) {
    if constexpr (std::is_same_v<S, double>) {
        return 1.0;
    } else {
        const double d = std::max({double(pml) - x, x - double(n - pml), 0.0}) / double(pml);
        const double g = d * d * d;
        const double sigmaMax = 4 * std::log(1e6) / (2 * pml);
        return cplx(1 + 2 * g, -sigmaMax * g / W);
    }
}

/// The discrete operators of one window.
template <class S> struct Operators { SpT<S> Dpu_2z, Dpw_1z, Dw_z1, Du_z2, Du_1h, Dw_2h, Dpu_h1, Dpw_h2, A; };

template <class S> Operators<S> assemble(const Lattice& L, const Materials& mt, double W, int pml) {
    const int nu = L.nu, nw = L.nw;
    std::vector<S> uh(static_cast<std::size_t>(nu)), ui(static_cast<std::size_t>(nu - 1)),
        wh(static_cast<std::size_t>(nw)), wi(static_cast<std::size_t>(nw - 1));
    for (int i = 0; i < nu; ++i)
        uh[std::size_t(i)] = stretch<S>(i + 0.5, nu, pml, W);
    for (int i = 0; i + 1 < nu; ++i)
        ui[std::size_t(i)] = stretch<S>(i + 1.0, nu, pml, W);
    for (int i = 0; i < nw; ++i)
        wh[std::size_t(i)] = stretch<S>(i + 0.5, nw, pml, W);
    for (int i = 0; i + 1 < nw; ++i)
        wi[std::size_t(i)] = stretch<S>(i + 1.0, nw, pml, W);
    // Transverse differences between the lattices (u slow, w fast: kron(op_u, op_w)).
    const SpT<S> Fu = forward1<S>(nu, uh), Fw = forward1<S>(nw, wh);
    const SpT<S> Bu = backward1<S>(nu, ui), Bw = backward1<S>(nw, wi);
    Operators<S> o;
    o.Dpu_2z = kron<S>(Bu, identity<S>(nw - 1)); // L2 -> Lz
    o.Dpw_1z = kron<S>(identity<S>(nu - 1), Bw); // L1 -> Lz
    o.Dw_z1 = kron<S>(identity<S>(nu - 1), Fw);  // Lz -> L1
    o.Du_z2 = kron<S>(Fu, identity<S>(nw - 1));  // Lz -> L2
    o.Du_1h = kron<S>(Fu, identity<S>(nw));      // L1 -> Lh
    o.Dw_2h = kron<S>(identity<S>(nu), Fw);      // L2 -> Lh
    o.Dpu_h1 = kron<S>(Bu, identity<S>(nw));     // Lh -> L1
    o.Dpw_h2 = kron<S>(identity<S>(nu), Bw);     // Lh -> L2

    const SpT<S> iEpsA = diag<S>(mt.epsA.cwiseInverse()), iMuA = diag<S>(mt.muA.cwiseInverse());
    const SpT<S> A11 = SpT<S>(diag<S>(W * W * mt.epsW.cwiseProduct(mt.muU))) +
                       diag<S>(mt.epsW) * o.Dw_z1 * iEpsA * o.Dpw_1z +
                       o.Dpu_h1 * iMuA * o.Du_1h * diag<S>(mt.muU);
    const SpT<S> A12 =
        -SpT<S>(diag<S>(mt.epsW) * o.Dw_z1 * iEpsA * o.Dpu_2z) + o.Dpu_h1 * iMuA * o.Dw_2h * diag<S>(mt.muW);
    const SpT<S> A21 =
        -SpT<S>(diag<S>(mt.epsU) * o.Du_z2 * iEpsA * o.Dpw_1z) + o.Dpw_h2 * iMuA * o.Du_1h * diag<S>(mt.muU);
    const SpT<S> A22 = SpT<S>(diag<S>(W * W * mt.epsU.cwiseProduct(mt.muW))) +
                       diag<S>(mt.epsU) * o.Du_z2 * iEpsA * o.Dpu_2z +
                       o.Dpw_h2 * iMuA * o.Dw_2h * diag<S>(mt.muW);
    const int n1 = L.size1(), n2 = L.size2(), n = n1 + n2;
    std::vector<Eigen::Triplet<S>> t;
    auto put = [&t](const SpT<S>& m, int r0, int c0) {
        for (int k = 0; k < m.outerSize(); ++k)
            for (typename SpT<S>::InnerIterator it(m, k); it; ++it)
                t.emplace_back(int(it.row()) + r0, int(it.col()) + c0, it.value());
    };
    put(A11, 0, 0);
    put(A12, 0, n1);
    put(A21, n1, 0);
    put(A22, n1, n1);
    o.A = SpT<S>(n, n);
    o.A.setFromTriplets(t.begin(), t.end());
    o.A.makeCompressed();
    return o;
}

/// (A - sigma)^-1 of a complex sparse A as a real operator on [Re x; Im x] (Spectra's matrix-operation
/// interface); its eigenvalues are those of A's and of conj(A)'s shift-inverse.
class ComplexShiftInverse {
public:
    using Scalar = double;
    ComplexShiftInverse(const SpT<cplx>& a, double sigma) : n_(a.rows()) {
        SpT<cplx> m = a;
        for (Eigen::Index i = 0; i < n_; ++i)
            m.coeffRef(i, i) -= sigma;
        m.makeCompressed();
        lu_.compute(m);
        if (lu_.info() != Eigen::Success)
            throw std::runtime_error("the mode solver's PML operator is singular at the shift");
    }
    Eigen::Index rows() const { return 2 * n_; }
    Eigen::Index cols() const { return 2 * n_; }
    void perform_op(const double* x, double* y) const {
        VecT<cplx> b(n_);
        for (Eigen::Index i = 0; i < n_; ++i)
            b[i] = cplx(x[i], x[n_ + i]);
        const VecT<cplx> z = lu_.solve(b);
        for (Eigen::Index i = 0; i < n_; ++i) {
            y[i] = z[i].real();
            y[n_ + i] = z[i].imag();
        }
    }

private:
    Eigen::Index n_;
    mutable Eigen::SparseLU<SpT<cplx>> lu_;
};

/// One eigenpair of the window's operator.
template <class S> struct Pair {
    S k2;      ///< K^2
    VecT<S> h; ///< [H_u on L1; H_w on L2]
};

/// The profile of eigenpair `e` cut to the port (window cells [pml, n - pml) on each axis), in Mode's
/// layout, phase-rotated to be as real as possible and normalised to unit power over the port.
template <class S>
Mode extract(const Pair<S>& e, const Operators<S>& o, const Materials& mt, const Lattice& L, int pml, int a,
             double omega, double W) {
    const int u = (a + 1) % 3, w = (a + 2) % 3;
    const int nu = L.nu, nw = L.nw, n1 = L.size1();
    const int pu = nu - 2 * pml, pw = nw - 2 * pml; // the port's cells
    const VecT<S> h1 = e.h.head(n1), h2 = e.h.tail(L.size2());
    const S kappa = std::sqrt(e.k2), beta = S(2.0) * std::asin(kappa / S(2.0));
    const VecT<S> curl = o.Dpu_2z * h2 - o.Dpw_1z * h1;                       // on Lz
    const VecT<S> ea = curl.cwiseQuotient(mt.epsA.template cast<S>()) / S(W); // E_a = -i ea
    const VecT<S> eu = (S(W) * mt.muW.template cast<S>().cwiseProduct(h2) + o.Du_z2 * ea) / kappa;  // on L2
    const VecT<S> ew = (S(-W) * mt.muU.template cast<S>().cwiseProduct(h1) + o.Dw_z1 * ea) / kappa; // on L1
    const VecT<S> ha = (o.Du_1h * mt.muU.template cast<S>().cwiseProduct(h1) +
                        o.Dw_2h * mt.muW.template cast<S>().cwiseProduct(h2))
                           .cwiseQuotient(mt.muA.template cast<S>()) /
                       kappa; // H_a = -i ha

    Mode md;
    md.nu = pu;
    md.nw = pw;
    md.kappa = std::real(kappa);
    md.beta = std::real(beta);
    md.neff = md.beta / omega;
    md.neffImag = -std::imag(beta) / omega;
    const std::size_t cells = std::size_t(pu + 1) * std::size_t(pw + 1);
    std::array<std::vector<S>, 6> f;
    for (auto& c : f)
        c.assign(cells, S(0));
    // Window lattice position (integer or half index along u and w, in window cells) -> port index; with
    // PEC edges (pml = 0) every interior point maps, with a PML only those of the port's cells.
    auto set = [&](int comp, int iu, int iw, S val) {
        const int pu0 = iu - pml, pw0 = iw - pml;
        if (pml > 0 && (pu0 < 0 || pw0 < 0 || pu0 >= pu || pw0 >= pw))
            return;
        f[std::size_t(comp)][std::size_t(pu0) * std::size_t(pw + 1) + std::size_t(pw0)] = val;
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

    // One phase for every component: that of the largest transverse H inside the port.
    S rot = S(1);
    if constexpr (!std::is_same_v<S, double>) {
        double big = -1;
        for (const int c : {3 + u, 3 + w})
            for (const S& v : f[std::size_t(c)])
                if (std::abs(v) > big) {
                    big = std::abs(v);
                    rot = std::conj(v) / std::abs(v);
                }
    }
    double re2 = 0, im2 = 0, power = 0;
    for (std::size_t c = 0; c < 6; ++c)
        for (S& v : f[c]) {
            v *= rot;
            re2 += std::norm(std::real(v));
            im2 += std::norm(std::imag(v));
        }
    for (std::size_t i = 0; i < cells; ++i)
        power += std::real(f[std::size_t(u)][i]) * std::real(f[std::size_t(3 + w)][i]) -
                 std::real(f[std::size_t(w)][i]) * std::real(f[std::size_t(3 + u)][i]);
    md.imagFraction = re2 + im2 > 0 ? im2 / (re2 + im2) : 0;
    const double s = (power < 0 ? -1.0 : 1.0) / std::sqrt(std::fabs(power));
    for (std::size_t c = 0; c < 6; ++c) {
        md.field[c].resize(cells);
        for (std::size_t i = 0; i < cells; ++i)
            md.field[c][i] = std::real(f[c][i]) * s;
    }
    return md;
}

/// Eigenpairs (K^2, unit h) of the complex `a` nearest `sigma` from Spectra's real Arnoldi on the real
/// 2n x 2n equivalent of (a - sigma)^-1 (the route without ARPACK): `want` pairs are sought, twice as many
/// Ritz vectors, since the equivalent holds every eigenvalue twice (a's and its conjugate's). Throws
/// std::runtime_error naming `field` when Arnoldi does not converge.
std::vector<Pair<cplx>> realEquivalentPairs(const SpT<cplx>& a, double sigma, int want, int n,
                                            const std::string& field) {
    const int nev = std::min(2 * want, 2 * n - 2);
    const int ncv = std::min(2 * n, std::max(2 * nev + 1, 64));
    ComplexShiftInverse op(a, sigma);
    Spectra::GenEigsSolver<ComplexShiftInverse> eigs(op, nev, ncv);
    eigs.init();
    eigs.compute(Spectra::SortRule::LargestMagn, 4000, 1e-12, Spectra::SortRule::LargestMagn);
    if (eigs.info() != Spectra::CompInfo::Successful)
        throw std::runtime_error(field + ": the mode solver (PML edges) did not converge");
    const Eigen::VectorXcd mu = eigs.eigenvalues();
    const Eigen::MatrixXcd vecs = eigs.eigenvectors();
    // a's eigenvector from [p; q] is p + i q (zero for conj(a)'s). Keep new directions only (a conjugate
    // pair of a nearly real eigenvalue can give the same vector twice).
    std::vector<Pair<cplx>> out;
    for (int k = 0; k < mu.size(); ++k) {
        const Eigen::VectorXcd x = vecs.col(k).head(n) + cplx(0, 1) * vecs.col(k).tail(n);
        const double xn = x.norm();
        if (xn < 0.5 * vecs.col(k).norm())
            continue;
        const cplx k2 = sigma + 1.0 / mu[k];
        Eigen::VectorXcd r = x / xn;
        for (const Pair<cplx>& c : out)
            if (std::abs(c.k2 - k2) < 1e-6 * std::abs(k2))
                r -= c.h.dot(r) * c.h; // c.h has unit norm (dot conjugates its first argument)
        if (r.norm() < 1e-3)
            continue;
        out.push_back({k2, x / xn});
    }
    return out;
}

/// One solve at req.omega: solveModes() without the group index.
ModeSet solveAt(const scene::Rasterizer& raster, const ModeRequest& req, const std::string& field) {
    const auto t0 = std::chrono::steady_clock::now();
    const int a = req.normal;
    const int P = req.pml;
    if (P < 0)
        throw InputError(field + ": the port's PML thickness must not be negative");
    if (req.hi[0] - req.lo[0] < 2 || req.hi[1] - req.lo[1] < 2)
        throw InputError(field +
                         ": the port cross-section needs at least 2 cells along each transverse axis");
    if (!(req.omega > 0) || !(req.dt > 0) || req.count < 1)
        throw std::invalid_argument("solveModes: omega, dt and count must be positive");
    // The solve window: the port, grown by the PML.
    const int nu = req.hi[0] - req.lo[0] + 2 * P, nw = req.hi[1] - req.lo[1] + 2 * P;
    const Lattice L{nu, nw};
    const int u0 = req.lo[0] - P, w0 = req.lo[1] - P;

    // Materials on the lattices (global indices of each component's own Yee position).
    const int u = (a + 1) % 3, w = (a + 2) % 3;
    Materials mt;
    mt.epsU.resize(L.size2());
    mt.muW.resize(L.size2());
    mt.epsW.resize(L.size1());
    mt.muU.resize(L.size1());
    mt.epsA.resize(L.sizeZ());
    mt.muA.resize(L.sizeH());
    for (int iu = 0; iu < nu - 1; ++iu)
        for (int iw = 0; iw < nw; ++iw) {
            const int p = iu * nw + iw; // L1: u integer iu + 1, w half iw
            mt.epsW[p] = material(raster, a, req.plane, w, u0 + iu + 1, w0 + iw);
            mt.muU[p] = material(raster, a, req.plane, 3 + u, u0 + iu + 1, w0 + iw);
        }
    for (int iu = 0; iu < nu; ++iu)
        for (int iw = 0; iw < nw - 1; ++iw) {
            const int p = iu * (nw - 1) + iw; // L2: u half iu, w integer iw + 1
            mt.epsU[p] = material(raster, a, req.plane, u, u0 + iu, w0 + iw + 1);
            mt.muW[p] = material(raster, a, req.plane, 3 + w, u0 + iu, w0 + iw + 1);
        }
    for (int iu = 0; iu < nu - 1; ++iu)
        for (int iw = 0; iw < nw - 1; ++iw)
            mt.epsA[iu * (nw - 1) + iw] = material(raster, a, req.plane, a, u0 + iu + 1, w0 + iw + 1);
    for (int iu = 0; iu < nu; ++iu)
        for (int iw = 0; iw < nw; ++iw)
            mt.muA[iu * nw + iw] = material(raster, a, req.plane, 3 + a, u0 + iu, w0 + iw);

    const double W = 2 * std::sin(req.omega * req.dt / 2) / req.dt; // the grid's numerical frequency
    const int n1 = L.size1(), n2 = L.size2(), n = n1 + n2;

    // Shift: just above the largest possible K^2, or at the guess.
    double nmax2 = 0;
    for (int i = 0; i < n1; ++i)
        nmax2 = std::max(nmax2, mt.epsW[i] * mt.muU[i]);
    for (int i = 0; i < n2; ++i)
        nmax2 = std::max(nmax2, mt.epsU[i] * mt.muW[i]);
    double sigma;
    if (req.nGuess > 0) {
        const double kg = 2 * std::sin(std::min(req.nGuess * req.omega, M_PI) / 2);
        sigma = kg * kg * (1 + 1e-7);
    } else {
        sigma = W * W * nmax2 * (1 + 1e-3) + 1e-9;
    }
    // Orders candidates by n_eff (or by distance from the guess).
    auto before = [&](cplx x, cplx y) {
        if (req.nGuess > 0)
            return std::abs(x - sigma) < std::abs(y - sigma);
        return x.real() > y.real();
    };
    auto tooFew = [&](std::size_t found) {
        return InputError(field + ": the cross-section guides " + std::to_string(found) +
                          " mode(s) near the shift, fewer than the " + std::to_string(req.count) +
                          " requested");
    };

    ModeSet out;
    out.request = req;
    out.unknowns = n;
    auto uniform = [](const Vec& v, double ref) { return v.size() == 0 || (v.array() == ref).all(); };
    const double e0 = mt.epsW.size() ? mt.epsW[0] : mt.epsU[0], m0 = mt.muU.size() ? mt.muU[0] : mt.muW[0];
    out.homogeneous = uniform(mt.epsW, e0) && uniform(mt.epsU, e0) && uniform(mt.epsA, e0) &&
                      uniform(mt.muU, m0) && uniform(mt.muW, m0) && uniform(mt.muA, m0);

    if (P == 0) {
        const Operators<double> o = assemble<double>(L, mt, W, 0);
        const int nev = std::min(req.count + 2, n - 2);
        const int ncv = std::min(n, std::max(2 * nev + 1, 24));
        Spectra::SparseGenRealShiftSolve<double> op(o.A);
        Spectra::GenEigsRealShiftSolver<Spectra::SparseGenRealShiftSolve<double>> eigs(op, nev, ncv, sigma);
        eigs.init();
        eigs.compute(Spectra::SortRule::LargestMagn, 2000, 1e-12, Spectra::SortRule::LargestMagn);
        if (eigs.info() != Spectra::CompInfo::Successful)
            throw std::runtime_error(field + ": the mode solver did not converge");
        const Eigen::VectorXcd vals = eigs.eigenvalues();
        const Eigen::MatrixXcd vecs = eigs.eigenvectors();
        // Guided modes: real K^2 in (0, 4).
        std::vector<int> order;
        for (int k = 0; k < vals.size(); ++k)
            if (std::fabs(vals[k].imag()) <= 1e-9 * std::max(1.0, std::fabs(vals[k].real())) &&
                vals[k].real() > 0 && vals[k].real() < 4)
                order.push_back(k);
        std::sort(order.begin(), order.end(),
                  [&](int x, int y) { return before(cplx(vals[x].real()), cplx(vals[y].real())); });
        if (int(order.size()) < req.count)
            throw tooFew(order.size());
        for (int m = 0; m < req.count; ++m) {
            const int k = order[std::size_t(m)];
            // A real eigenvector: rotate the phase of the largest entry to zero, keep the real part.
            Eigen::VectorXcd v = vecs.col(k);
            Eigen::Index big = 0;
            v.cwiseAbs().maxCoeff(&big);
            v *= std::conj(v[big]) / std::abs(v[big]);
            out.modes.push_back(extract<double>({vals[k].real(), v.real()}, o, mt, L, 0, a, req.omega, W));
        }
    } else {
        const Operators<cplx> o = assemble<cplx>(L, mt, W, P);
        // Modes with most of their energy in the PML (and K^2 outside the grid's band) are dropped.
        auto guided = [&](const Pair<cplx>& p) {
            if (!(p.k2.real() > 0 && p.k2.real() < 4))
                return false;
            const Eigen::VectorXcd& x = p.h;
            double inPml = 0;
            for (int iu = 0; iu < nu - 1; ++iu)
                for (int iw = 0; iw < nw; ++iw) // L1: u integer iu + 1, w half iw
                    if (iu + 1 < P || iu + 1 > nu - P || iw < P || iw >= nw - P)
                        inPml += std::norm(x[iu * nw + iw]);
            for (int iu = 0; iu < nu; ++iu)
                for (int iw = 0; iw < nw - 1; ++iw) // L2: u half iu, w integer iw + 1
                    if (iu < P || iu >= nu - P || iw + 1 < P || iw + 1 > nw - P)
                        inPml += std::norm(x[n1 + iu * (nw - 1) + iw]);
            return inPml <= 0.5 * x.squaredNorm();
        };
        std::vector<Pair<cplx>> cand;
        if (ComplexEigs::available() && !req.realEquivalent) {
            // ARPACK's complex Arnoldi, for just the modes asked for: past the guided modes the
            // shift-inverse's eigenvalues crowd into the PML's dense continuum, where Arnoldi converges
            // slowly. Modes the filter drops are made up for by asking again for more (same factorisation).
            const ComplexEigs eigs(o.A, sigma);
            for (int nev = req.count;;) {
                const int ncv = std::min(n, std::max(2 * nev + 1, 20));
                const ComplexEigenpairs e = eigs.nearest(nev, ncv, 1e-12, 3000);
                if (e.values.size() < nev)
                    throw std::runtime_error(field + ": the mode solver (PML edges) did not converge");
                cand.clear();
                for (int k = 0; k < e.values.size(); ++k)
                    if (Pair<cplx> p{e.values[k], e.vectors.col(k)}; guided(p))
                        cand.push_back(std::move(p));
                if (int(cand.size()) >= req.count || nev >= req.count + 6 || nev + 3 > n)
                    break;
                nev += req.count - int(cand.size());
            }
        } else {
            for (Pair<cplx>& p : realEquivalentPairs(o.A, sigma, req.count + 1, n, field))
                if (guided(p))
                    cand.push_back(std::move(p));
        }
        std::sort(cand.begin(), cand.end(),
                  [&](const Pair<cplx>& x, const Pair<cplx>& y) { return before(x.k2, y.k2); });
        if (int(cand.size()) < req.count)
            throw tooFew(cand.size());
        for (int m = 0; m < req.count; ++m)
            out.modes.push_back(extract<cplx>(cand[std::size_t(m)], o, mt, L, P, a, req.omega, W));
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace

ModeSet solveModes(const scene::Rasterizer& raster, const ModeRequest& req, const std::string& field) {
    const auto t0 = std::chrono::steady_clock::now();
    ModeSet out = solveAt(raster, req, field);
    if (req.groupIndex) {
        // n_g = d beta / d omega by a central difference; each mode is matched to the side solve's mode of
        // nearest n_eff (the same branch: n_eff moves by ~1e-4 (n_g - n_eff) between the solves).
        constexpr double delta = 1e-4;
        std::array<std::vector<Mode>, 2> side;
        for (int s = 0; s < 2; ++s) {
            ModeRequest q = req;
            q.groupIndex = false;
            q.omega = req.omega * (s == 0 ? 1 - delta : 1 + delta);
            try {
                side[std::size_t(s)] = solveAt(raster, q, field).modes;
            } catch (const InputError&) {
                // a mode at its cut-off: no group index
            }
        }
        for (Mode& m : out.modes) {
            std::array<double, 2> beta{};
            bool ok = true;
            for (int s = 0; s < 2; ++s) {
                const Mode* best = nullptr;
                for (const Mode& c : side[std::size_t(s)])
                    if (!best || std::fabs(c.neff - m.neff) < std::fabs(best->neff - m.neff))
                        best = &c;
                ok = ok && best;
                beta[std::size_t(s)] = best ? best->beta : 0;
            }
            m.ng = ok ? (beta[1] - beta[0]) / (2 * delta * req.omega) : 0;
        }
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

bool arpackAvailable() {
    return ComplexEigs::available();
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
