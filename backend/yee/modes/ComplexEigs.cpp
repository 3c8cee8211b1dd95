#include "yee/modes/ComplexEigs.hpp"

#include <Eigen/SparseLU>

#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef YEE_HAVE_ARPACK
#include <arpack.hpp>

// OpenBLAS's thread control, null when the BLAS that ARPACK runs on is another.
extern "C" {
__attribute__((weak)) void openblas_set_num_threads(int threads);
__attribute__((weak)) int openblas_get_num_threads();
}
#endif

namespace yee::modes {

using cplx = std::complex<double>;

struct ComplexEigs::Impl {
    Eigen::Index n = 0;
    cplx sigma;
    Eigen::SparseLU<Eigen::SparseMatrix<cplx>> lu;
};

bool ComplexEigs::available() {
#ifdef YEE_HAVE_ARPACK
    return true;
#else
    return false;
#endif
}

ComplexEigs::~ComplexEigs() = default;

ComplexEigs::ComplexEigs(const Eigen::SparseMatrix<cplx>& a, cplx sigma) : impl_(std::make_unique<Impl>()) {
    if (!available())
        throw std::runtime_error("this build has no ARPACK (ComplexEigs)");
    if (a.cols() != a.rows())
        throw std::invalid_argument("ComplexEigs: the matrix must be square");
    impl_->n = a.rows();
    impl_->sigma = sigma;
    Eigen::SparseMatrix<cplx> shifted = a;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        shifted.coeffRef(i, i) -= sigma;
    shifted.makeCompressed();
    impl_->lu.compute(shifted);
    if (impl_->lu.info() != Eigen::Success)
        throw std::runtime_error("the eigenproblem's operator is singular at the shift");
}

#ifdef YEE_HAVE_ARPACK

namespace {

/// ARPACK's Fortran routines keep their reverse-communication state in static storage.
std::mutex& arpackMutex() {
    static std::mutex m;
    return m;
}

/// One BLAS thread while ARPACK runs, when the BLAS is OpenBLAS (found by weak reference; other BLAS
/// libraries are left alone): ARPACK's BLAS work, O(n ncv) per step, is small next to the sparse LU
/// solves, and OpenBLAS's spinning worker threads would take the cores from those (a third slower on a
/// loaded two-core machine). The previous thread count is restored.
class SerialBlas {
public:
    SerialBlas() {
        if (openblas_get_num_threads && openblas_set_num_threads) {
            saved_ = openblas_get_num_threads();
            openblas_set_num_threads(1);
        }
    }
    ~SerialBlas() {
        if (saved_ > 0)
            openblas_set_num_threads(saved_);
    }
    SerialBlas(const SerialBlas&) = delete;
    SerialBlas& operator=(const SerialBlas&) = delete;

private:
    int saved_ = 0;
};

} // namespace

ComplexEigenpairs ComplexEigs::nearest(int nev, int ncv, double tol, int maxRestarts) const {
    const a_int n = a_int(impl_->n);
    if (nev < 1 || ncv < nev + 2 || ncv > n)
        throw std::invalid_argument("ComplexEigs::nearest: need 1 <= nev and nev + 2 <= ncv <= n");
    const std::size_t nn = static_cast<std::size_t>(n), nc = static_cast<std::size_t>(ncv),
                      ne = static_cast<std::size_t>(nev);

    // A fixed start vector (raw Mersenne-twister bits, so the same on every platform).
    std::vector<cplx> resid(nn);
    std::mt19937_64 rng(20261201);
    auto uniform = [&rng] { return double(rng() >> 11) * 0x1p-53 - 0.5; };
    for (cplx& r : resid) {
        const double re = uniform();
        r = cplx(re, uniform());
    }

    const a_int lworkl = 3 * a_int(ncv) * a_int(ncv) + 5 * a_int(ncv);
    std::vector<cplx> v(nn * nc), workd(3 * nn), workl(static_cast<std::size_t>(lworkl));
    std::vector<double> rwork(nc);
    a_int iparam[11] = {}, ipntr[14] = {};
    iparam[0] = 1;                  // exact shifts
    iparam[2] = a_int(maxRestarts); // maximum number of restarts
    iparam[6] = 3;                  // shift-invert: OP = (A - sigma)^-1
    a_int ido = 0, info = 1;        // info 1: resid holds the start vector

    ComplexEigenpairs out;
    std::lock_guard<std::mutex> lock(arpackMutex());
    const SerialBlas serial;
    Eigen::VectorXcd x(impl_->n);
    for (;;) {
        arpack::naupd(ido, arpack::bmat::identity, n, arpack::which::largest_magnitude, a_int(nev), tol,
                      resid.data(), a_int(ncv), v.data(), n, iparam, ipntr, workd.data(), workl.data(),
                      lworkl, rwork.data(), info);
        if (ido != -1 && ido != 1)
            break;
        // y = OP x, x at workd[ipntr[0] - 1], y at workd[ipntr[1] - 1] (Fortran's 1-based offsets).
        x = Eigen::Map<const Eigen::VectorXcd>(workd.data() + (ipntr[0] - 1), impl_->n);
        Eigen::Map<Eigen::VectorXcd>(workd.data() + (ipntr[1] - 1), impl_->n) = impl_->lu.solve(x);
        ++out.operations;
    }
    if (info < 0 || info > 1)
        throw std::runtime_error("ARPACK znaupd failed (info " + std::to_string(info) + ")");
    out.restarts = int(iparam[2]);
    const a_int nconv = iparam[4];
    if (nconv <= 0)
        return out;

    std::vector<a_int> select(nc, 1);
    std::vector<cplx> d(ne + 1), z(nn * ne), workev(2 * nc);
    a_int info2 = 0;
    arpack::neupd(1, arpack::howmny::ritz_vectors, select.data(), d.data(), z.data(), n, impl_->sigma,
                  workev.data(), arpack::bmat::identity, n, arpack::which::largest_magnitude, a_int(nev), tol,
                  resid.data(), a_int(ncv), v.data(), n, iparam, ipntr, workd.data(), workl.data(), lworkl,
                  rwork.data(), info2);
    if (info2 != 0)
        throw std::runtime_error("ARPACK zneupd failed (info " + std::to_string(info2) + ")");
    out.values = Eigen::Map<const Eigen::VectorXcd>(d.data(), Eigen::Index(nconv));
    out.vectors = Eigen::Map<const Eigen::MatrixXcd>(z.data(), impl_->n, Eigen::Index(nconv));
    for (Eigen::Index k = 0; k < out.vectors.cols(); ++k)
        out.vectors.col(k).normalize();
    return out;
}

#else

ComplexEigenpairs ComplexEigs::nearest(int, int, double, int) const {
    throw std::runtime_error("this build has no ARPACK (ComplexEigs)");
}

#endif

} // namespace yee::modes
