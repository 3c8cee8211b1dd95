#include "yee/modes/ComplexEigs.hpp"

#include <Eigen/SparseLU>

#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef YEE_HAVE_ARPACK
#include <arpackdef.h> // a_int only: the library is opened at first use (arpackApi())
#include <dlfcn.h>
#endif

namespace yee::modes {

using cplx = std::complex<double>;

struct ComplexEigs::Impl {
    Eigen::Index n = 0;
    cplx sigma;
    Eigen::SparseLU<Eigen::SparseMatrix<cplx>> lu;
};

#ifdef YEE_HAVE_ARPACK
namespace {

// ARPACK's C entry points (arpack.h), with std::complex<double> for C's double _Complex: the same layout,
// and passed by value in the same SSE registers on x86-64.
using Naupd = void (*)(a_int* ido, const char* bmat, a_int n, const char* which, a_int nev, double tol,
                       cplx* resid, a_int ncv, cplx* v, a_int ldv, a_int* iparam, a_int* ipntr, cplx* workd,
                       cplx* workl, a_int lworkl, double* rwork, a_int* info);
using Neupd = void (*)(a_int rvec, const char* howmny, const a_int* select, cplx* d, cplx* z, a_int ldz,
                       cplx sigma, cplx* workev, const char* bmat, a_int n, const char* which, a_int nev,
                       double tol, cplx* resid, a_int ncv, cplx* v, a_int ldv, a_int* iparam, a_int* ipntr,
                       cplx* workd, cplx* workl, a_int lworkl, double* rwork, a_int* info);

/// libarpack, opened at first use (as NCCL is): a binary that never solves a PML-edged port needs neither
/// it nor the BLAS it loads. OpenBLAS's thread control is looked up in what it loaded (null for another
/// BLAS). All null when the library is not there: solves take the real-equivalent route.
struct ArpackApi {
    Naupd naupd = nullptr;
    Neupd neupd = nullptr;
    void (*setThreads)(int) = nullptr;
    int (*getThreads)() = nullptr;
};

const ArpackApi& arpackApi() {
    static const ArpackApi api = [] {
        ArpackApi a;
        void* h = dlopen("libarpack.so.2", RTLD_NOW | RTLD_LOCAL);
        if (!h)
            return a;
        a.naupd = reinterpret_cast<Naupd>(dlsym(h, "znaupd_c"));
        a.neupd = reinterpret_cast<Neupd>(dlsym(h, "zneupd_c"));
        if (!a.naupd || !a.neupd)
            return ArpackApi{};
        a.setThreads = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"));
        a.getThreads = reinterpret_cast<int (*)()>(dlsym(h, "openblas_get_num_threads"));
        return a;
    }();
    return api;
}

} // namespace
#endif

bool ComplexEigs::available() {
#ifdef YEE_HAVE_ARPACK
    return arpackApi().naupd != nullptr;
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

/// One BLAS thread while ARPACK runs, when the BLAS is OpenBLAS (looked up in what libarpack loaded; other
/// BLAS libraries are left alone): ARPACK's BLAS work, O(n ncv) per step, is small next to the sparse LU
/// solves, and OpenBLAS's spinning worker threads would take the cores from those (a third slower on a
/// loaded two-core machine). The previous thread count is restored.
class SerialBlas {
public:
    SerialBlas() {
        const ArpackApi& a = arpackApi();
        if (a.getThreads && a.setThreads) {
            saved_ = a.getThreads();
            a.setThreads(1);
        }
    }
    ~SerialBlas() {
        if (saved_ > 0)
            arpackApi().setThreads(saved_);
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
    const ArpackApi& api = arpackApi();
    std::lock_guard<std::mutex> lock(arpackMutex());
    const SerialBlas serial;
    Eigen::VectorXcd x(impl_->n);
    for (;;) {
        api.naupd(&ido, "I", n, "LM", a_int(nev), tol, resid.data(), a_int(ncv), v.data(), n, iparam, ipntr,
                  workd.data(), workl.data(), lworkl, rwork.data(), &info);
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
    api.neupd(1, "A", select.data(), d.data(), z.data(), n, impl_->sigma, workev.data(), "I", n, "LM",
              a_int(nev), tol, resid.data(), a_int(ncv), v.data(), n, iparam, ipntr, workd.data(),
              workl.data(), lworkl, rwork.data(), &info2);
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
