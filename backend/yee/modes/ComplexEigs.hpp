#pragma once
/// \file ComplexEigs.hpp
/// Eigenpairs of a complex non-Hermitian sparse matrix nearest a shift: ARPACK's complex implicitly
/// restarted Arnoldi (arpack-ng, znaupd / zneupd) in shift-invert mode, the operator (A - sigma)^-1
/// applied through Eigen's sparse LU factorisation of A - sigma (made once, for any number of solves).
/// Built only when the build found ARPACK (YEE_HAVE_ARPACK); ComplexEigs::available() says so at run
/// time. Internal to the modes module (it shows Eigen types); ModeSolver.hpp offers arpackAvailable().
///
/// Deterministic: the Arnoldi start vector is a fixed pseudo-random sequence (not ARPACK's own generator,
/// whose seed carries over between calls), so a solve gives the same bits whatever was solved before it.
/// ARPACK keeps its reverse-communication state in static storage, so the Arnoldi runs of a process are
/// serialised by a process-wide mutex (concurrent callers wait; factorisations run concurrently).
#include <complex>
#include <memory>

#include <Eigen/Core>
#include <Eigen/SparseCore>

namespace yee::modes {

/// The converged eigenpairs of one solve.
struct ComplexEigenpairs {
    Eigen::VectorXcd values;  ///< eigenvalues of A (not of the shift-inverse), ARPACK's order
    Eigen::MatrixXcd vectors; ///< one unit-norm eigenvector per column
    int operations = 0;       ///< applications of (A - sigma)^-1
    int restarts = 0;         ///< implicit restarts ARPACK made
};

/// Shift-invert eigensolver for one matrix and shift.
class ComplexEigs {
public:
    /// True when this build has ARPACK (the constructor throws otherwise).
    static bool available();
    /// Factorises `a` - `sigma` (`a` square; it is not kept). Throws std::runtime_error when that is
    /// singular or the build has no ARPACK, std::invalid_argument when `a` is not square.
    ComplexEigs(const Eigen::SparseMatrix<std::complex<double>>& a, std::complex<double> sigma);
    ~ComplexEigs();
    ComplexEigs(const ComplexEigs&) = delete;
    ComplexEigs& operator=(const ComplexEigs&) = delete;

    /// The `nev` eigenvalues nearest the shift and their eigenvectors, from an Arnoldi basis of `ncv`
    /// vectors (nev + 2 <= ncv <= rows), to relative accuracy `tol` (of the shift-inverse's eigenvalues).
    /// Fewer than `nev` pairs come back when only those converged within `maxRestarts` restarts. Throws
    /// std::invalid_argument on inconsistent sizes, std::runtime_error when ARPACK reports an error.
    ComplexEigenpairs nearest(int nev, int ncv, double tol, int maxRestarts) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace yee::modes
