/// Kernel-level tests of backend/yee/kernels/*.hpp, launched through device::launch on every device row
/// (KernelGrid.hpp: "cpu", "cpu-threads", and "cuda", which skips, saying why, where no GPU is usable and
/// fails where one is present but a launch fails). All arithmetic is float64.
///
/// 1. Value tests: each kernel on a few cells with inputs whose result follows by hand from the update
///    equations (docs/engine.md): single-cell impulses through the Yee curls, the CPML psi recursion over
///    two launches, injection, halo pack/unpack, point gather/scatter, the finiteness flag, and the
///    inverse (time-reversed) updates, whose composition with the forward ones is the identity to
///    rounding. Expected values are written with the same operation order as the equations, so with
///    contraction off (-ffp-contract=off here, -fmad=false in the CUDA units) they match bit for bit.
/// 2. Dot-product tests <A x, y> = <x, A^T y> for every forward/adjoint kernel pair the gradient uses,
///    with A^T applied exactly as gradient/GradientDriver.cpp applies it (adjoint variables
///    P = Cb Ebar, Q = -Db Hbar; psibar unscaled). Each test defines its A in a comment. dotStep checks a
///    whole step with CPML on every side against the reverse step, so the composition is covered too.
/// 3. Each dot-product test has perturbed-transpose rows ("mutant"): a test-local copy of an adjoint
///    functor with one sign or index changed, or the library adjoint applied with one coefficient, box or
///    order wrong; the identity must then fail by far more than the tolerance. Test-local functors have no
///    CUDA instantiation (libyee's cuda/CudaInstantiate.cuh holds those), so mutant rows are CPU-only.
#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/GpuRequired.hpp"
#include "kernels/KernelGrid.hpp"
#include "yee/kernels/Adjoint.hpp"
#include "yee/kernels/Cpml.hpp"
#include "yee/kernels/Halo.hpp"
#include "yee/kernels/Points.hpp"
#include "yee/kernels/Yee.hpp"

using namespace yee;
using namespace yee::testing;

namespace {

using T = double;
using Grid = KernelGrid<T>;
using Array = Grid::Array;

/// Dot-product tolerance (relative, float64).
constexpr double kTol = 1e-13;
/// A perturbed transpose must violate the identity by at least this much (1e7 x the tolerance).
constexpr double kMutantGap = 1e-6;

/// Worst relative gap measured over the unperturbed dot-product rows, and the row it came from.
double gWorstGap = 0;
std::string gWorstRow;

const char* const kDevices[] = {"cpu", "cpu-threads", "cuda"};

/// Levi-Civita symbol eps_{abc} for axes 0..2.
int leviCivita(int a, int b, int c) {
    if (a == b || b == c || a == c)
        return 0;
    return ((b - a + 3) % 3 == 1) ? 1 : -1;
}

/// f(std::integral_constant<int, A>{}) for the runtime axis a.
template <class F> void withAxis(int a, F&& f) {
    if (a == 0)
        f(std::integral_constant<int, 0>{});
    else if (a == 1)
        f(std::integral_constant<int, 1>{});
    else
        f(std::integral_constant<int, 2>{});
}
/// f(std::bool_constant<b>{}) for the runtime flag b.
template <class F> void withFlag(bool b, F&& f) {
    if (b)
        f(std::true_type{});
    else
        f(std::false_type{});
}

/// Runs `body`, turning an escaping exception (a device that cannot be opened although the GPU is
/// visible, a failed CUDA launch) into a test failure. QVERIFY / QSKIP inside `body` work as usual.
template <class F> void guarded(F&& body) {
    try {
        body();
    } catch (const std::exception& e) {
        QTest::qFail(("exception: " + std::string(e.what())).c_str(), __FILE__, __LINE__);
    }
}

/// Opens the row's device into `dev`, or skips the row with the reason.
#define OPEN_DEVICE(dev)                                                                                     \
    QFETCH(QString, device);                                                                                 \
    std::string why_;                                                                                        \
    const auto dev = openDevice(device.toStdString(), why_);                                                 \
    if (!dev)                                                                                                \
    YEE_SKIP_OR_FAIL(why_)

/// Checks one dot-product identity: within kTol unperturbed, violated by > kMutantGap for a mutant row.
#define CHECK_DOT(lhs, rhs, mutant)                                                                          \
    do {                                                                                                     \
        const double gap_ = relativeGap(lhs, rhs);                                                           \
        const std::string row_ = QTest::currentDataTag();                                                    \
        qInfo("%s: <Ax,y> = %.17Lg, <x,ATy> = %.17Lg, relative gap %.3g", row_.c_str(), (long double)(lhs),  \
              (long double)(rhs), gap_);                                                                     \
        if ((mutant).isEmpty()) {                                                                            \
            if (gap_ > gWorstGap) {                                                                          \
                gWorstGap = gap_;                                                                            \
                gWorstRow = std::string(QTest::currentTestFunction()) + "/" + row_;                          \
            }                                                                                                \
            QVERIFY2(gap_ <= kTol, ("dot-product identity violated: gap " + std::to_string(gap_)).c_str());  \
        } else {                                                                                             \
            QVERIFY2(gap_ > kMutantGap,                                                                      \
                     ("perturbed transpose not detected: gap " + std::to_string(gap_)).c_str());             \
        }                                                                                                    \
    } while (0)

/// Six halo-padded field components in the solver's order: E_x, E_y, E_z, H_x, H_y, H_z.
struct Fields {
    std::array<Array, 6> c;
    explicit Fields(const Grid& g) {
        for (auto& a : c)
            a = g.field();
    }
    void fill(const Grid& g, std::mt19937_64& rng) {
        for (auto& a : c)
            g.fillInterior(a, rng, -1, 1);
    }
    void copyFrom(const Fields& o) {
        for (int n = 0; n < 6; ++n)
            Grid::copy(c[std::size_t(n)], o.c[std::size_t(n)]);
    }
    Array& operator[](int n) { return c[std::size_t(n)]; }
    const Array& operator[](int n) const { return c[std::size_t(n)]; }
    /// Sum over the six components' interior cells of this * o.
    long double dot(const Grid& g, const Fields& o) const {
        long double s = 0;
        for (int n = 0; n < 6; ++n)
            s += g.dotInterior(c[std::size_t(n)], o.c[std::size_t(n)]);
        return s;
    }
};

/// Per-cell update coefficients of a lossy, magnetic tile (random, in physical ranges) and a scalar Db.
struct Coefficients {
    std::array<Array, 3> cb, ca, db;
    T dbScalar = 0.41;
    Coefficients(const Grid& g, std::mt19937_64& rng) {
        for (int p = 0; p < 3; ++p) {
            cb[std::size_t(p)] = g.field();
            ca[std::size_t(p)] = g.field();
            db[std::size_t(p)] = g.field();
            g.fillInterior(cb[std::size_t(p)], rng, 0.2, 0.6);
            g.fillInterior(ca[std::size_t(p)], rng, 0.5, 1.0);
            g.fillInterior(db[std::size_t(p)], rng, 0.2, 0.6);
        }
    }
    View<const T> cbv(const Grid& g, int p) const { return g.view(cb[std::size_t(p)]); }
    View<const T> cav(const Grid& g, int p) const { return g.view(ca[std::size_t(p)]); }
    /// Db views for a magnetic kernel, empty views otherwise (the kernel then uses dbScalar).
    View<const T> dbv(const Grid& g, int q, bool magnetic) const {
        return magnetic ? View<const T>(g.view(db[std::size_t(q)])) : View<const T>();
    }
    T dbAt(const Grid& g, int q, bool magnetic, int i, int j, int k) const {
        return magnetic ? g.at(db[std::size_t(q)], i, j, k) : dbScalar;
    }
};

/// The adjoint state of `bar` (Ebar, Hbar) in the variables the gradient propagates:
/// P = Cb Ebar at E locations, Q = -Db Hbar at H locations.
Fields toAdjoint(const Grid& g, const Coefficients& m, bool magnetic, const Fields& bar) {
    Fields pq(g);
    g.forInterior([&](int i, int j, int k) {
        for (int p = 0; p < 3; ++p) {
            g.at(pq[p], i, j, k) = g.at(m.cb[std::size_t(p)], i, j, k) * g.at(bar[p], i, j, k);
            g.at(pq[3 + p], i, j, k) = -m.dbAt(g, p, magnetic, i, j, k) * g.at(bar[3 + p], i, j, k);
        }
    });
    return pq;
}

/// Inverse of toAdjoint: Ebar = P / Cb, Hbar = -Q / Db.
Fields fromAdjoint(const Grid& g, const Coefficients& m, bool magnetic, const Fields& pq) {
    Fields bar(g);
    g.forInterior([&](int i, int j, int k) {
        for (int p = 0; p < 3; ++p) {
            g.at(bar[p], i, j, k) = g.at(pq[p], i, j, k) / g.at(m.cb[std::size_t(p)], i, j, k);
            g.at(bar[3 + p], i, j, k) = -g.at(pq[3 + p], i, j, k) / m.dbAt(g, p, magnetic, i, j, k);
        }
    });
    return bar;
}

/// The H update functor over f with m's Db (per cell when Magnetic, else the scalar).
template <bool Magnetic>
kernels::UpdateH<T, Magnetic> updateH(const Grid& g, Fields& f, const Coefficients& m) {
    return {g.view(f[3]), g.view(f[4]),          g.view(f[5]),          g.view(f[0]),          g.view(f[1]),
            g.view(f[2]), m.dbv(g, 0, Magnetic), m.dbv(g, 1, Magnetic), m.dbv(g, 2, Magnetic), m.dbScalar};
}
/// The E update functor over f with m's Cb, and Ca when Lossy.
template <bool Lossy> kernels::UpdateE<T, Lossy> updateE(const Grid& g, Fields& f, const Coefficients& m) {
    return {g.view(f[0]),
            g.view(f[1]),
            g.view(f[2]),
            g.view(f[3]),
            g.view(f[4]),
            g.view(f[5]),
            m.cbv(g, 0),
            m.cbv(g, 1),
            m.cbv(g, 2),
            Lossy ? m.cav(g, 0) : View<const T>(),
            Lossy ? m.cav(g, 1) : View<const T>(),
            Lossy ? m.cav(g, 2) : View<const T>()};
}

/// The slab of axis a, `thick` cells, on the low or high side of the grid, full transverse extent.
Box slabBox(const Grid& g, int a, bool high, int thick) {
    Box L = g.box();
    if (high)
        L.lo[a] = L.hi[a] - thick;
    else
        L.hi[a] = thick;
    return L;
}
/// Dense x-fastest indexing of the slab box L (psi and w arrays).
kernels::SlabIndex slabIndex(const Box& L) {
    return {L.lo[0], L.lo[1], L.lo[2], std::int64_t(L.extent(0)), std::int64_t(L.extent(0)) * L.extent(1)};
}
/// Dense x-fastest indexing of box b (halo buffers).
kernels::BoxIndex boxIndex(const Box& b) {
    return {b.lo[0], b.lo[1], b.lo[2], std::int64_t(b.extent(0)), std::int64_t(b.extent(0)) * b.extent(1)};
}

/// A CPML grading along one slab (random b in (0,1), c < 0, 1/kappa - 1 in (-1, 0]).
struct Profile {
    Array b, c, km;
    Profile(const Grid& g, int thick, std::mt19937_64& rng)
        : b(g.dense(thick)), c(g.dense(thick)), km(g.dense(thick)) {
        Grid::fillDense(b, rng, 0.3, 0.95);
        Grid::fillDense(c, rng, -0.5, -0.05);
        Grid::fillDense(km, rng, -0.6, 0.0);
    }
    kernels::PmlProfile<T> view() const { return {b.data(), c.data(), km.data()}; }
};

// ---- perturbed transposes (test-local copies of adjoint functors, one sign or index changed; CPU only) --

/// UpdateH used as the transpose of the E update's curl H, with the sign of dEy/dz in (curl E)_x flipped.
template <bool Magnetic> struct UpdateHFlippedSign {
    kernels::UpdateH<T, Magnetic> k;
    void operator()(int i, int j, int kk) const {
        const T cx = (k.ez(i, j + 1, kk) - k.ez(i, j, kk)) + (k.ey(i, j, kk + 1) - k.ey(i, j, kk));
        const T cy = (k.ex(i, j, kk + 1) - k.ex(i, j, kk)) - (k.ez(i + 1, j, kk) - k.ez(i, j, kk));
        const T cz = (k.ey(i + 1, j, kk) - k.ey(i, j, kk)) - (k.ex(i, j + 1, kk) - k.ex(i, j, kk));
        const T d0 = Magnetic ? k.dbx(i, j, kk) : k.db, d1 = Magnetic ? k.dby(i, j, kk) : k.db,
                d2 = Magnetic ? k.dbz(i, j, kk) : k.db;
        k.hx(i, j, kk) -= d0 * cx;
        k.hy(i, j, kk) -= d1 * cy;
        k.hz(i, j, kk) -= d2 * cz;
    }
};

/// A CPML transpose with one defect: the curl sign of slot 1 flipped (s = +1 instead of -1, "sign") or
/// the neighbour on the wrong side along the axis ("neighbour": w(i) - w(i-1) instead of w(i) - w(i+1)
/// for CPML-E^T, w(i+1) - w(i) instead of w(i-1) - w(i) for CPML-H^T). K is kernels::CpmlEAdjoint
/// (eField; M its per-cell Db) or kernels::CpmlHAdjoint, whose fields it reads.
template <class K, int A, bool eField, bool M = false> struct CpmlAdjointMutant {
    K k;
    bool flipSign = false, wrongNeighbour = false;
    /// w of slab cell (i, j, kk) and, when `own`, psibar' written there.
    void weights(int i, int j, int kk, bool own, T& w1, T& w2) const {
        const int ia = (A == 0 ? i : (A == 1 ? j : kk)) - k.profLo;
        const std::int64_t s = k.idx(i, j, kk);
        const T b = k.prof.b[ia], c = k.prof.c[ia], km = k.prof.kinvm1[ia];
        const T x1 = k.x1(i, j, kk), x2 = k.x2(i, j, kk);
        const T a1 = flipSign ? k.psi1[s] + x1 : k.psi1[s] - x1;
        const T a2 = k.psi2[s] + x2;
        w1 = (flipSign ? km * x1 : -km * x1) + c * a1;
        w2 = km * x2 + c * a2;
        if (own) {
            k.next1[s] = b * a1;
            k.next2[s] = b * a2;
        }
    }
    void operator()(int i, int j, int kk) const {
        constexpr int di = A == 0, dj = A == 1, dk = A == 2;
        const int ia = A == 0 ? i : (A == 1 ? j : kk);
        // the other w location: i + 1 for CPML-E^T, i - 1 for CPML-H^T (or the wrong side)
        const int step = (eField ? 1 : -1) * (wrongNeighbour ? -1 : 1);
        const auto in = [&](int a) { return a >= k.slo && a < k.shi; };
        T u1 = 0, u2 = 0, v1 = 0, v2 = 0;
        if (in(ia))
            weights(i, j, kk, true, u1, u2);
        if (in(ia + step))
            weights(i + step * di, j + step * dj, kk + step * dk, false, v1, v2);
        // E^T: Q -= Db (w(i) - w(other)); H^T: P += Cb (w(other) - w(i))
        const T a1 = eField ? u1 - v1 : v1 - u1, a2 = eField ? u2 - v2 : v2 - u2;
        if constexpr (eField) {
            k.q2(i, j, kk) -= (M ? k.db2(i, j, kk) : k.db) * a1;
            k.q1(i, j, kk) -= (M ? k.db1(i, j, kk) : k.db) * a2;
        } else {
            k.p2(i, j, kk) += k.cb2(i, j, kk) * a1;
            k.p1(i, j, kk) += k.cb1(i, j, kk) * a2;
        }
    }
};

} // namespace

class tst_Kernels : public QObject {
    Q_OBJECT
private slots:
    // ---- value tests ----
    void yeeHImpulse_data();
    void yeeHImpulse();
    void yeeEImpulse_data();
    void yeeEImpulse();
    void cpmlEValues_data();
    void cpmlEValues();
    void cpmlHValues_data();
    void cpmlHValues();
    void injectValues_data();
    void injectValues();
    void haloValues_data();
    void haloValues();
    void pointsValues_data();
    void pointsValues();
    void scaleCaValues_data();
    void scaleCaValues();
    void inverseRoundTrip_data();
    void inverseRoundTrip();
    void nonFiniteFlag_data();
    void nonFiniteFlag();
    // ---- dot-product tests ----
    void dotYeeH_data();
    void dotYeeH();
    void dotYeeE_data();
    void dotYeeE();
    void dotCpmlE_data();
    void dotCpmlE();
    void dotCpmlH_data();
    void dotCpmlH();
    void dotInject_data();
    void dotInject();
    void dotHalo_data();
    void dotHalo();
    void dotPoints_data();
    void dotPoints();
    void dotStep_data();
    void dotStep();
    void cleanupTestCase();
};

// ================================================================ value tests

void tst_Kernels::yeeHImpulse_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("magnetic");
    for (const char* d : kDevices)
        for (bool m : {false, true})
            QTest::newRow(qPrintable(QString("%1/%2").arg(d, m ? "db-per-cell" : "db-scalar")))
                << QString(d) << m;
}

/// H^{n+1/2} = H^{n-1/2} - Db curl E, curl E with forward differences D_a E(r) = E(r + e_a) - E(r):
/// (curl E)_q = sum_a eps_{q a p} D_a E_p, so an impulse E_p(r) = 1 gives (curl E)_q(r - e_a) = eps_{qap}
/// and (curl E)_q(r) = -eps_{qap}: four H values change, by -+ Db, every other one keeps h0.
void tst_Kernels::yeeHImpulse() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(bool, magnetic);
        Grid g(*dev, 4, 4, 4);
        std::mt19937_64 rng(11);
        const Coefficients m(g, rng);
        const Index3 r{1, 2, 1};
        const T h0 = 0.25;
        for (int p = 0; p < 3; ++p) {
            Fields f(g);
            g.forInterior([&](int i, int j, int k) {
                for (int q = 0; q < 3; ++q)
                    g.at(f[3 + q], i, j, k) = h0;
            });
            g.at(f[p], r[0], r[1], r[2]) = 1;
            withFlag(magnetic, [&](auto mag) { g.launch(g.box(), updateH<decltype(mag)::value>(g, f, m)); });
            int changed = 0;
            for (int q = 0; q < 3; ++q)
                g.forInterior([&](int i, int j, int k) {
                    T curl = 0;
                    for (int a = 0; a < 3; ++a) {
                        const Index3 below{r[0] - (a == 0), r[1] - (a == 1), r[2] - (a == 2)};
                        if (Index3{i, j, k} == below)
                            curl += leviCivita(q, a, p);
                        if (Index3{i, j, k} == r)
                            curl -= leviCivita(q, a, p);
                    }
                    changed += curl != 0;
                    const T expect = h0 - m.dbAt(g, q, magnetic, i, j, k) * curl;
                    QCOMPARE(g.at(f[3 + q], i, j, k), expect);
                });
            QCOMPARE(changed, 4);
            for (int c = 0; c < 3; ++c) // E is read only
                g.forInterior([&](int i, int j, int k) {
                    QCOMPARE(g.at(f[c], i, j, k), T(c == p && Index3{i, j, k} == r ? 1 : 0));
                });
            if (p == 2) { // E_z impulse, by hand: dEz/dy enters H_x with +, dEz/dx enters H_y with -
                QCOMPARE(g.at(f[3], 1, 1, 1), h0 - m.dbAt(g, 0, magnetic, 1, 1, 1));
                QCOMPARE(g.at(f[3], 1, 2, 1), h0 + m.dbAt(g, 0, magnetic, 1, 2, 1));
                QCOMPARE(g.at(f[4], 0, 2, 1), h0 + m.dbAt(g, 1, magnetic, 0, 2, 1));
                QCOMPARE(g.at(f[4], 1, 2, 1), h0 - m.dbAt(g, 1, magnetic, 1, 2, 1));
            }
        }
    });
}

void tst_Kernels::yeeEImpulse_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("lossy");
    for (const char* d : kDevices)
        for (bool l : {false, true})
            QTest::newRow(qPrintable(QString("%1/%2").arg(d, l ? "with-ca" : "no-ca"))) << QString(d) << l;
}

/// E^{n+1} = Ca E^n + Cb curl H (Ca = 1 when lossless), curl H with backward differences
/// D_a H(r) = H(r) - H(r - e_a): an impulse H_q(r) = 1 gives (curl H)_p(r) = eps_{paq} and
/// (curl H)_p(r + e_a) = -eps_{paq}.
void tst_Kernels::yeeEImpulse() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(bool, lossy);
        Grid g(*dev, 4, 4, 4);
        std::mt19937_64 rng(12);
        const Coefficients m(g, rng);
        const Index3 r{1, 2, 1};
        const T e0 = -0.75;
        for (int q = 0; q < 3; ++q) {
            Fields f(g);
            g.forInterior([&](int i, int j, int k) {
                for (int p = 0; p < 3; ++p)
                    g.at(f[p], i, j, k) = e0;
            });
            g.at(f[3 + q], r[0], r[1], r[2]) = 1;
            withFlag(lossy, [&](auto l) { g.launch(g.box(), updateE<decltype(l)::value>(g, f, m)); });
            int changed = 0;
            for (int p = 0; p < 3; ++p)
                g.forInterior([&](int i, int j, int k) {
                    T curl = 0;
                    for (int a = 0; a < 3; ++a) {
                        const Index3 above{r[0] + (a == 0), r[1] + (a == 1), r[2] + (a == 2)};
                        if (Index3{i, j, k} == r)
                            curl += leviCivita(p, a, q);
                        if (Index3{i, j, k} == above)
                            curl -= leviCivita(p, a, q);
                    }
                    changed += curl != 0;
                    const T cb = g.at(m.cb[std::size_t(p)], i, j, k);
                    const T expect =
                        lossy ? g.at(m.ca[std::size_t(p)], i, j, k) * e0 + cb * curl : e0 + cb * curl;
                    QCOMPARE(g.at(f[p], i, j, k), expect);
                });
            QCOMPARE(changed, 4);
            if (q == 2 &&
                !lossy) { // H_z impulse, by hand: dHz/dy enters E_x with +, dHz/dx enters E_y with -
                QCOMPARE(g.at(f[0], 1, 2, 1), e0 + g.at(m.cb[0], 1, 2, 1));
                QCOMPARE(g.at(f[0], 1, 3, 1), e0 - g.at(m.cb[0], 1, 3, 1));
                QCOMPARE(g.at(f[1], 1, 2, 1), e0 - g.at(m.cb[1], 1, 2, 1));
                QCOMPARE(g.at(f[1], 2, 2, 1), e0 + g.at(m.cb[1], 2, 2, 1));
            }
        }
    });
}

void tst_Kernels::cpmlEValues_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<int>("axis");
    for (const char* d : kDevices)
        for (int a = 0; a < 3; ++a)
            QTest::newRow(qPrintable(QString("%1/axis%2").arg(d).arg(a))) << QString(d) << a;
}

/// CpmlE on a low slab of axis A, 2 cells thick, launched twice with H fixed (two steps of the recursion):
///   psi^{n} = b psi^{n-1} + c dH/dA,   E_{A+1} -= Cb (km dH_{A+2}/dA + psi1),
///                                       E_{A+2} += Cb (km dH_{A+1}/dA + psi2),
/// dH/dA backward. H_{A+2}(r) = 1 and H_{A+1}(r') = 2 with r[A] = r'[A] = 1: dH/dA is 1 (2) at r (r')
/// alone inside the slab (r + e_A lies outside it, r - e_A reads the zero halo side).
void tst_Kernels::cpmlEValues() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(int, axis);
        Grid g(*dev, 4, 4, 4);
        std::mt19937_64 rng(13);
        const Coefficients m(g, rng);
        const Box L = slabBox(g, axis, false, 2);
        Profile prof(g, 2, rng);
        const T pb[2] = {0.8, 0.6}, pc[2] = {-0.3, -0.2}, pk[2] = {-0.25, -0.5};
        for (int n = 0; n < 2; ++n) {
            prof.b[n] = pb[n];
            prof.c[n] = pc[n];
            prof.km[n] = pk[n];
        }
        const int p1 = (axis + 1) % 3, p2 = (axis + 2) % 3;
        Index3 r{2, 2, 2}, r2{1, 3, 2};
        r[axis] = 1;
        r2[axis] = 1;
        if (r2 == r)
            r2[(axis + 1) % 3] = 3;
        Fields f(g);
        const T e0 = 0.5, psi01 = 0.1, psi02 = -0.2;
        g.forInterior([&](int i, int j, int k) {
            for (int p = 0; p < 3; ++p)
                g.at(f[p], i, j, k) = e0;
        });
        g.at(f[3 + p2], r[0], r[1], r[2]) = 1;    // H_{A+2}: drives E_{A+1}
        g.at(f[3 + p1], r2[0], r2[1], r2[2]) = 2; // H_{A+1}: drives E_{A+2}
        Array psi1 = g.dense(L.cells()), psi2 = g.dense(L.cells());
        for (std::int64_t s = 0; s < L.cells(); ++s) {
            psi1[s] = psi01;
            psi2[s] = psi02;
        }
        const kernels::SlabIndex idx = slabIndex(L);
        withAxis(axis, [&](auto ax) {
            constexpr int A = decltype(ax)::value;
            const kernels::CpmlE<T, A> k{g.view(f[p1]),     g.view(f[p2]), g.view(f[3 + p2]),
                                         g.view(f[3 + p1]), m.cbv(g, p1),  m.cbv(g, p2),
                                         psi1.data(),       psi2.data(),   idx,
                                         prof.view(),       L.lo[A]};
            g.launch(L, k);
            // First step at r: d1 = 1, ia = 1 -> psi1 = 0.6 * 0.1 + -0.2 * 1.
            QCOMPARE(psi1[idx(r[0], r[1], r[2])], 0.6 * 0.1 + -0.2 * 1.0);
            QCOMPARE(psi2[idx(r2[0], r2[1], r2[2])], 0.6 * -0.2 + -0.2 * 2.0);
            g.launch(L, k);
        });
        for (int k = 0; k < 4; ++k)
            for (int j = 0; j < 4; ++j)
                for (int i = 0; i < 4; ++i) {
                    const Index3 c{i, j, k};
                    if (!L.contains(c)) {
                        QCOMPARE(g.at(f[p1], i, j, k), e0);
                        QCOMPARE(g.at(f[p2], i, j, k), e0);
                        continue;
                    }
                    const int ia = c[axis];
                    const T d1 = c == r ? 1.0 : 0.0, d2 = c == r2 ? 2.0 : 0.0;
                    const T b = pb[ia], cc = pc[ia], km = pk[ia];
                    const T cb1 = g.at(m.cb[std::size_t(p1)], i, j, k),
                            cb2 = g.at(m.cb[std::size_t(p2)], i, j, k);
                    T ps1 = psi01, ps2 = psi02, e1 = e0, e2 = e0;
                    for (int step = 0; step < 2; ++step) {
                        ps1 = b * ps1 + cc * d1;
                        ps2 = b * ps2 + cc * d2;
                        e1 -= cb1 * (km * d1 + ps1);
                        e2 += cb2 * (km * d2 + ps2);
                    }
                    QCOMPARE(psi1[idx(i, j, k)], ps1);
                    QCOMPARE(psi2[idx(i, j, k)], ps2);
                    QCOMPARE(g.at(f[p1], i, j, k), e1);
                    QCOMPARE(g.at(f[p2], i, j, k), e2);
                    QCOMPARE(g.at(f[axis], i, j, k), e0); // the component along A has no A-derivative term
                }
    });
}

void tst_Kernels::cpmlHValues_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<int>("axis");
    QTest::addColumn<bool>("magnetic");
    for (const char* d : kDevices)
        for (int a = 0; a < 3; ++a)
            for (bool mg : {false, true})
                QTest::newRow(
                    qPrintable(QString("%1/axis%2/%3").arg(d).arg(a).arg(mg ? "db-per-cell" : "db-scalar")))
                    << QString(d) << a << mg;
}

/// CpmlH on a low slab of axis A, launched twice with E fixed:
///   psi^{n} = b psi^{n-1} + c dE/dA,   H_{A+1} += Db (km dE_{A+2}/dA + psi1),
///                                       H_{A+2} -= Db (km dE_{A+1}/dA + psi2),
/// dE/dA forward. E_{A+2}(r) = 1 with r[A] = 1 gives dE/dA = +1 at r - e_A and -1 at r, both in the slab.
void tst_Kernels::cpmlHValues() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(int, axis);
        QFETCH(bool, magnetic);
        Grid g(*dev, 4, 4, 4);
        std::mt19937_64 rng(14);
        const Coefficients m(g, rng);
        const Box L = slabBox(g, axis, false, 2);
        Profile prof(g, 2, rng);
        const T pb[2] = {0.7, 0.9}, pc[2] = {-0.4, -0.1}, pk[2] = {-0.5, -0.125};
        for (int n = 0; n < 2; ++n) {
            prof.b[n] = pb[n];
            prof.c[n] = pc[n];
            prof.km[n] = pk[n];
        }
        const int q1 = (axis + 1) % 3, q2 = (axis + 2) % 3;
        Index3 r{2, 2, 2}, r2{1, 3, 2};
        r[axis] = 1;
        r2[axis] = 1;
        if (r2 == r)
            r2[(axis + 1) % 3] = 3;
        Fields f(g);
        const T h0 = -0.5, psi01 = 0.3, psi02 = 0.05;
        g.forInterior([&](int i, int j, int k) {
            for (int q = 0; q < 3; ++q)
                g.at(f[3 + q], i, j, k) = h0;
        });
        g.at(f[q2], r[0], r[1], r[2]) = 1;    // E_{A+2}: drives H_{A+1}
        g.at(f[q1], r2[0], r2[1], r2[2]) = 2; // E_{A+1}: drives H_{A+2}
        Array psi1 = g.dense(L.cells()), psi2 = g.dense(L.cells());
        for (std::int64_t s = 0; s < L.cells(); ++s) {
            psi1[s] = psi01;
            psi2[s] = psi02;
        }
        const kernels::SlabIndex idx = slabIndex(L);
        withAxis(axis, [&](auto ax) {
            constexpr int A = decltype(ax)::value;
            withFlag(magnetic, [&](auto mag) {
                constexpr bool M = decltype(mag)::value;
                const kernels::CpmlH<T, A, M> k{g.view(f[3 + q1]), g.view(f[3 + q2]),
                                                g.view(f[q2]),     g.view(f[q1]),
                                                m.dbv(g, q1, M),   m.dbv(g, q2, M),
                                                m.dbScalar,        psi1.data(),
                                                psi2.data(),       idx,
                                                prof.view(),       L.lo[A]};
                g.launch(L, k);
                g.launch(L, k);
            });
        });
        for (int k = 0; k < 4; ++k)
            for (int j = 0; j < 4; ++j)
                for (int i = 0; i < 4; ++i) {
                    const Index3 c{i, j, k};
                    if (!L.contains(c)) {
                        QCOMPARE(g.at(f[3 + q1], i, j, k), h0);
                        QCOMPARE(g.at(f[3 + q2], i, j, k), h0);
                        continue;
                    }
                    Index3 below = r, below2 = r2;
                    below[axis] -= 1;
                    below2[axis] -= 1;
                    const T d1 = c == below ? 1.0 : (c == r ? -1.0 : 0.0);
                    const T d2 = c == below2 ? 2.0 : (c == r2 ? -2.0 : 0.0);
                    const int ia = c[axis];
                    const T b = pb[ia], cc = pc[ia], km = pk[ia];
                    const T db1 = m.dbAt(g, q1, magnetic, i, j, k), db2 = m.dbAt(g, q2, magnetic, i, j, k);
                    T ps1 = psi01, ps2 = psi02, h1 = h0, h2 = h0;
                    for (int step = 0; step < 2; ++step) {
                        ps1 = b * ps1 + cc * d1;
                        ps2 = b * ps2 + cc * d2;
                        h1 += db1 * (km * d1 + ps1);
                        h2 -= db2 * (km * d2 + ps2);
                    }
                    QCOMPARE(psi1[idx(i, j, k)], ps1);
                    QCOMPARE(psi2[idx(i, j, k)], ps2);
                    QCOMPARE(g.at(f[3 + q1], i, j, k), h1);
                    QCOMPARE(g.at(f[3 + q2], i, j, k), h2);
                    QCOMPARE(g.at(f[3 + axis], i, j, k), h0);
                }
    });
}

void tst_Kernels::injectValues_data() {
    QTest::addColumn<QString>("device");
    for (const char* d : kDevices)
        QTest::newRow(d) << QString(d);
}

/// Inject: field[offset[n]] += coef[n] * amplitude at listed points, nothing else changes.
void tst_Kernels::injectValues() {
    guarded([&] {
        OPEN_DEVICE(dev);
        Grid g(*dev, 3, 3, 3);
        Array f = g.field();
        g.forInterior([&](int i, int j, int k) { g.at(f, i, j, k) = 0.125 * (i + 3 * j + 9 * k); });
        const Index3 pts[3] = {{0, 0, 0}, {2, 1, 0}, {1, 2, 2}};
        const T coefs[3] = {0.5, -1.5, 0.25};
        device::Buffer<std::int64_t> off(*dev, 3, device::Category::Sources);
        Array coef = g.dense(3);
        for (int n = 0; n < 3; ++n) {
            off[n] = g.shape().offset(pts[n][0], pts[n][1], pts[n][2]);
            coef[n] = coefs[n];
        }
        g.launchIndex(3, kernels::Inject<T>{f.data(), off.data(), coef.data(), T(2.0)});
        QCOMPARE(g.at(f, 0, 0, 0), 0.0 + 0.5 * 2.0);
        QCOMPARE(g.at(f, 2, 1, 0), 0.125 * 5 + -1.5 * 2.0);
        QCOMPARE(g.at(f, 1, 2, 2), 0.125 * 25 + 0.25 * 2.0);
        int unchanged = 0;
        g.forInterior(
            [&](int i, int j, int k) { unchanged += g.at(f, i, j, k) == 0.125 * (i + 3 * j + 9 * k); });
        QCOMPARE(unchanged, 27 - 3);
    });
}

void tst_Kernels::haloValues_data() {
    QTest::addColumn<QString>("device");
    for (const char* d : kDevices)
        QTest::newRow(d) << QString(d);
}

/// PackFace writes the box's values x fastest into a buffer; UnpackFace writes buffer entry idx(i,j,k)
/// to (i,j,k) + shift, here the high x face into the high x halo and the low y face into the low y halo.
void tst_Kernels::haloValues() {
    guarded([&] {
        OPEN_DEVICE(dev);
        Grid g(*dev, 3, 4, 2);
        Array f = g.field();
        auto label = [](int i, int j, int k) { return T(100 * (i + 1) + 10 * (j + 1) + (k + 1)); };
        g.forInterior([&](int i, int j, int k) { g.at(f, i, j, k) = label(i, j, k); });
        const Box face{{2, 0, 0}, {3, 4, 2}}; // the high x face, 1 x 4 x 2 cells
        Array buf = g.dense(face.cells());
        g.launch(face, kernels::PackFace<T>{g.view(f), buf.data(), boxIndex(face)});
        for (int k = 0; k < 2; ++k)
            for (int j = 0; j < 4; ++j)
                QCOMPARE(buf[j + 4 * k], label(2, j, k));
        Array dst = g.field();
        g.launch(face, kernels::UnpackFace<T>{g.view(dst), buf.data(), boxIndex(face), 1, 0, 0});
        for (int k = -1; k <= 2; ++k) // every cell of the padded array
            for (int j = -1; j <= 4; ++j)
                for (int i = -1; i <= 3; ++i) {
                    const bool inHalo = i == 3 && j >= 0 && j < 4 && k >= 0 && k < 2;
                    QCOMPARE(g.at(dst, i, j, k), inHalo ? label(2, j, k) : T(0));
                }
        const Box low{{0, 0, 0}, {3, 1, 2}}; // the low y face into the low y halo (j = -1)
        Array buf2 = g.dense(low.cells());
        g.launch(low, kernels::PackFace<T>{g.view(f), buf2.data(), boxIndex(low)});
        g.launch(low, kernels::UnpackFace<T>{g.view(f), buf2.data(), boxIndex(low), 0, -1, 0});
        for (int k = 0; k < 2; ++k)
            for (int i = 0; i < 3; ++i) {
                QCOMPARE(buf2[i + 3 * k], label(i, 0, k));
                QCOMPARE(g.at(f, i, -1, k), label(i, 0, k));
            }
    });
}

void tst_Kernels::pointsValues_data() {
    QTest::addColumn<QString>("device");
    for (const char* d : kDevices)
        QTest::newRow(d) << QString(d);
}

/// GatherPoints: out[n] = field[comp[n]][offset[n]]; ScatterPoints writes in[n] back to the same places.
void tst_Kernels::pointsValues() {
    guarded([&] {
        OPEN_DEVICE(dev);
        Grid g(*dev, 3, 3, 3);
        Fields f(g);
        for (int c = 0; c < 6; ++c)
            g.forInterior(
                [&](int i, int j, int k) { g.at(f[c], i, j, k) = T(1000 * c + 100 * i + 10 * j + k); });
        const int comps[5] = {0, 5, 3, 2, 4};
        const Index3 pts[5] = {
            {0, 0, 0}, {2, 2, 2}, {1, 0, 2}, {2, 1, 0}, {-1, 1, 1}}; // the last in the halo
        device::Buffer<int> comp(*dev, 5, device::Category::Staging);
        device::Buffer<std::int64_t> off(*dev, 5, device::Category::Staging);
        Array out = g.dense(5), in = g.dense(5);
        for (int n = 0; n < 5; ++n) {
            comp[n] = comps[n];
            off[n] = g.shape().offset(pts[n][0], pts[n][1], pts[n][2]);
            in[n] = T(-1 - n);
        }
        auto d = [&](int c) { return f[c].data(); };
        g.launchIndex(5, kernels::GatherPoints<T>{d(0), d(1), d(2), d(3), d(4), d(5), comp.data(), off.data(),
                                                  out.data()});
        QCOMPARE(out[0], 0.0);
        QCOMPARE(out[1], 5222.0);
        QCOMPARE(out[2], 3102.0);
        QCOMPARE(out[3], 2210.0);
        QCOMPARE(out[4], 0.0); // halo
        g.launchIndex(5, kernels::ScatterPoints<T>{d(0), d(1), d(2), d(3), d(4), d(5), comp.data(),
                                                   off.data(), in.data()});
        for (int n = 0; n < 5; ++n)
            QCOMPARE(g.at(f[comps[n]], pts[n][0], pts[n][1], pts[n][2]), T(-1 - n));
        QCOMPARE(g.at(f[1], 1, 1, 1), 1111.0); // untouched
    });
}

void tst_Kernels::scaleCaValues_data() {
    QTest::addColumn<QString>("device");
    for (const char* d : kDevices)
        QTest::newRow(d) << QString(d);
}

/// ScaleCa: P_p *= Ca_p cell by cell (the transpose of the E update's Ca E term).
void tst_Kernels::scaleCaValues() {
    guarded([&] {
        OPEN_DEVICE(dev);
        Grid g(*dev, 3, 2, 2);
        std::mt19937_64 rng(15);
        const Coefficients m(g, rng);
        Fields p(g);
        p.fill(g, rng);
        Fields before(g);
        before.copyFrom(p);
        g.launch(g.box(), kernels::ScaleCa<T>{g.view(p[0]), g.view(p[1]), g.view(p[2]), m.cav(g, 0),
                                              m.cav(g, 1), m.cav(g, 2)});
        for (int c = 0; c < 3; ++c)
            g.forInterior([&](int i, int j, int k) {
                QCOMPARE(g.at(p[c], i, j, k), g.at(before[c], i, j, k) * g.at(m.ca[std::size_t(c)], i, j, k));
            });
    });
}

void tst_Kernels::inverseRoundTrip_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("lossy");
    QTest::addColumn<bool>("magnetic");
    for (const char* d : kDevices)
        for (bool l : {false, true})
            for (bool mg : {false, true})
                QTest::newRow(qPrintable(
                    QString("%1/%2/%3").arg(d, l ? "with-ca" : "no-ca", mg ? "db-per-cell" : "db-scalar")))
                    << QString(d) << l << mg;
}

/// The reversible gradient runs the interior backward: InverseUpdateE undoes UpdateE, InverseUpdateH undoes
/// UpdateH (same E and H inputs), so one forward step H, E followed by the inverse step E, H returns the
/// state to rounding: |error| <= 32 eps, the fields being below 4 in magnitude during the step (a few
/// roundings of that size, amplified by at most 1/Ca <= 2 where the inverse divides by Ca).
void tst_Kernels::inverseRoundTrip() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(bool, lossy);
        QFETCH(bool, magnetic);
        Grid g(*dev, 5, 4, 3);
        std::mt19937_64 rng(16);
        const Coefficients m(g, rng);
        Fields f(g), start(g);
        f.fill(g, rng);
        start.copyFrom(f);
        auto view = [&](int c) { return g.view(f[c]); };
        withFlag(magnetic, [&](auto mag) {
            constexpr bool M = decltype(mag)::value;
            withFlag(lossy, [&](auto los) {
                constexpr bool L = decltype(los)::value;
                g.launch(g.box(), updateH<M>(g, f, m));
                g.launch(g.box(), updateE<L>(g, f, m));
                g.launch(g.box(), kernels::InverseUpdateE<T, L>{
                                      view(0), view(1), view(2), view(3), view(4), view(5), m.cbv(g, 0),
                                      m.cbv(g, 1), m.cbv(g, 2), L ? m.cav(g, 0) : View<const T>(),
                                      L ? m.cav(g, 1) : View<const T>(), L ? m.cav(g, 2) : View<const T>()});
                // E is back: the H inverse sees the E the forward H update saw.
                g.launch(g.box(), kernels::InverseUpdateH<T, M>{view(3), view(4), view(5), view(0), view(1),
                                                                view(2), m.dbv(g, 0, M), m.dbv(g, 1, M),
                                                                m.dbv(g, 2, M), m.dbScalar});
            });
        });
        double worst = 0, moved = 0;
        for (int c = 0; c < 6; ++c)
            g.forInterior([&](int i, int j, int k) {
                worst = std::max(worst, std::fabs(g.at(f[c], i, j, k) - g.at(start[c], i, j, k)));
            });
        // The step itself moved the fields by O(1): the round trip is not trivially the identity.
        Fields once(g);
        once.copyFrom(start);
        withFlag(magnetic, [&](auto mag) { g.launch(g.box(), updateH<decltype(mag)::value>(g, once, m)); });
        for (int c = 3; c < 6; ++c)
            g.forInterior([&](int i, int j, int k) {
                moved = std::max(moved, std::fabs(g.at(once[c], i, j, k) - g.at(start[c], i, j, k)));
            });
        qInfo("round-trip error %.3g (one step moves H by %.3g)", worst, moved);
        QVERIFY2(worst <= 32 * std::numeric_limits<double>::epsilon(),
                 ("inverse o forward != identity: " + std::to_string(worst)).c_str());
        QVERIFY(moved > 0.1);
    });
}

void tst_Kernels::nonFiniteFlag_data() {
    QTest::addColumn<QString>("device");
    for (const char* d : kDevices)
        QTest::newRow(d) << QString(d);
}

/// FlagNonFinite sets the flag for NaN or +-Inf in the launched cells only; huge finite values and
/// non-finite values outside the launched box (the halo) leave it at 0.
void tst_Kernels::nonFiniteFlag() {
    guarded([&] {
        OPEN_DEVICE(dev);
        Grid g(*dev, 4, 3, 2);
        Array f = g.field();
        device::Buffer<int> flag(*dev, 1, device::Category::Staging);
        auto run = [&] {
            flag[0] = 0;
            g.launch(g.box(), kernels::FlagNonFinite<T>{g.view(f), flag.data()});
            return flag[0];
        };
        g.forInterior([&](int i, int j, int k) { g.at(f, i, j, k) = (i - j) * 1e300; });
        g.at(f, 1, 1, 1) = std::numeric_limits<T>::max();
        g.at(f, -1, 0, 0) = std::numeric_limits<T>::quiet_NaN(); // halo: not launched
        g.at(f, 4, 2, 1) = std::numeric_limits<T>::infinity();   // halo
        QCOMPARE(run(), 0);
        g.at(f, 3, 2, 1) = std::numeric_limits<T>::quiet_NaN();
        QCOMPARE(run(), 1);
        g.at(f, 3, 2, 1) = 0;
        QCOMPARE(run(), 0);
        g.at(f, 0, 0, 0) = -std::numeric_limits<T>::infinity();
        QCOMPARE(run(), 1);
        g.at(f, 0, 0, 0) = 0;
        g.at(f, 2, 1, 0) = std::numeric_limits<T>::infinity();
        QCOMPARE(run(), 1);
    });
}

// ================================================================ dot-product tests

void tst_Kernels::dotYeeH_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("magnetic");
    QTest::addColumn<QString>("mutant");
    for (const char* d : kDevices)
        for (bool m : {false, true})
            QTest::newRow(qPrintable(QString("%1/%2").arg(d, m ? "db-per-cell" : "db-scalar")))
                << QString(d) << m << QString();
    for (bool m : {false, true}) {
        // the adjoint of the H update with Ca applied (UpdateE<Lossy> instead of <no Ca>)
        QTest::newRow(qPrintable(QString("cpu/%1/mutant-with-ca").arg(m ? "db-per-cell" : "db-scalar")))
            << QString("cpu") << m << QString("with-ca");
        // the adjoint converted back with a Db 1% off
        QTest::newRow(qPrintable(QString("cpu/%1/mutant-db").arg(m ? "db-per-cell" : "db-scalar")))
            << QString("cpu") << m << QString("db");
    }
}

/// A: one launch of UpdateH<Magnetic> over the tile, x = (E, H) -> (E, H - Db curl E), with Db (per cell
/// or scalar) a constant and the halos zero (not state). A^T, as the gradient applies it
/// (GradientDriver::adjointLast): y = (Ebar, Hbar) -> P = Cb Ebar, Q = -Db Hbar; UpdateE without Ca,
/// P += Cb curl Q; back Ebar = P / Cb, Hbar = -Q / Db. (Cb is any positive per-cell constant here.)
void tst_Kernels::dotYeeH() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(bool, magnetic);
        QFETCH(QString, mutant);
        Grid g(*dev, 5, 4, 3);
        std::mt19937_64 rng(21);
        Coefficients m(g, rng);
        Fields x(g), ax(g), y(g);
        x.fill(g, rng);
        y.fill(g, rng);
        ax.copyFrom(x);
        withFlag(magnetic, [&](auto mag) { g.launch(g.box(), updateH<decltype(mag)::value>(g, ax, m)); });
        Fields pq = toAdjoint(g, m, magnetic, y);
        if (mutant == "with-ca")
            g.launch(g.box(), updateE<true>(g, pq, m));
        else
            g.launch(g.box(), updateE<false>(g, pq, m));
        if (mutant == "db") {
            m.dbScalar *= 1.01;
            for (auto& a : m.db)
                g.forInterior([&](int i, int j, int k) { g.at(a, i, j, k) *= 1.01; });
        }
        const Fields aty = fromAdjoint(g, m, magnetic, pq);
        CHECK_DOT(ax.dot(g, y), x.dot(g, aty), mutant);
    });
}

void tst_Kernels::dotYeeE_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("lossy");
    QTest::addColumn<bool>("magnetic");
    QTest::addColumn<QString>("mutant");
    for (const char* d : kDevices)
        for (bool l : {false, true})
            for (bool m : {false, true})
                QTest::newRow(qPrintable(
                    QString("%1/%2/%3").arg(d, l ? "with-ca" : "no-ca", m ? "db-per-cell" : "db-scalar")))
                    << QString(d) << l << m << QString();
    for (bool m : {false, true}) {
        const QString mg = m ? "db-per-cell" : "db-scalar";
        // P *= Ca before Q -= Db curl P instead of after
        QTest::newRow(qPrintable("cpu/with-ca/" + mg + "/mutant-scale-first"))
            << QString("cpu") << true << m << QString("scale-first");
        // Ca forgotten in the transpose of a lossy update
        QTest::newRow(qPrintable("cpu/with-ca/" + mg + "/mutant-no-scale"))
            << QString("cpu") << true << m << QString("no-scale");
        // a test-local UpdateH with one curl sign flipped
        QTest::newRow(qPrintable("cpu/no-ca/" + mg + "/mutant-curl-sign"))
            << QString("cpu") << false << m << QString("curl-sign");
    }
}

/// A: one launch of UpdateE<Lossy> over the tile, x = (E, H) -> (Ca E + Cb curl H, H), Ca = 1 when
/// lossless, Ca and Cb per-cell constants, halos zero. A^T, as GradientDriver::adjointSecondHalf applies it:
/// y = (Ebar, Hbar) -> P = Cb Ebar, Q = -Db Hbar; UpdateH, Q -= Db curl P; then ScaleCa, P *= Ca;
/// back Ebar = P / Cb, Hbar = -Q / Db (Db per cell or scalar, any positive constant).
void tst_Kernels::dotYeeE() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(bool, lossy);
        QFETCH(bool, magnetic);
        QFETCH(QString, mutant);
        Grid g(*dev, 5, 4, 3);
        std::mt19937_64 rng(22);
        const Coefficients m(g, rng);
        Fields x(g), ax(g), y(g);
        x.fill(g, rng);
        y.fill(g, rng);
        ax.copyFrom(x);
        withFlag(lossy, [&](auto l) { g.launch(g.box(), updateE<decltype(l)::value>(g, ax, m)); });
        Fields pq = toAdjoint(g, m, magnetic, y);
        const kernels::ScaleCa<T> scale{g.view(pq[0]), g.view(pq[1]), g.view(pq[2]),
                                        m.cav(g, 0),   m.cav(g, 1),   m.cav(g, 2)};
        if (mutant == "scale-first")
            g.launch(g.box(), scale);
        withFlag(magnetic, [&](auto mag) {
            constexpr bool M = decltype(mag)::value;
            if (mutant == "curl-sign")
                g.launchCpu(g.box(), UpdateHFlippedSign<M>{updateH<M>(g, pq, m)});
            else
                g.launch(g.box(), updateH<M>(g, pq, m));
        });
        if (lossy && mutant.isEmpty())
            g.launch(g.box(), scale);
        const Fields aty = fromAdjoint(g, m, magnetic, pq);
        CHECK_DOT(ax.dot(g, y), x.dot(g, aty), mutant);
    });
}

namespace {
/// Rows of the CPML dot-product tests: every device, axis, side and Db kind, plus CPU-only mutants.
void cpmlRows(bool eSide) {
    QTest::addColumn<QString>("device");
    QTest::addColumn<int>("axis");
    QTest::addColumn<bool>("high");
    QTest::addColumn<bool>("magnetic");
    QTest::addColumn<QString>("mutant");
    auto tag = [](const char* d, int a, bool high, bool m) {
        return QString("%1/axis%2/%3/%4")
            .arg(d)
            .arg(a)
            .arg(high ? "high" : "low", m ? "db-per-cell" : "db-scalar");
    };
    for (const char* d : kDevices)
        for (int a = 0; a < 3; ++a)
            for (bool high : {false, true})
                for (bool m : {false, true})
                    QTest::newRow(qPrintable(tag(d, a, high, m)))
                        << QString(d) << a << high << m << QString();
    for (int a = 0; a < 3; ++a) {
        // w with the slot-1 curl sign flipped; the neighbouring w taken on the wrong side
        QTest::newRow(qPrintable(tag("cpu", a, false, true) + "/mutant-sign"))
            << QString("cpu") << a << false << true << QString("sign");
        QTest::newRow(qPrintable(tag("cpu", a, true, false) + "/mutant-neighbour"))
            << QString("cpu") << a << true << false << QString("neighbour");
        // the transpose not extended to the field location just outside the slab (below it for CPML-E^T,
        // on a high slab; above it for CPML-H^T, on a low slab)
        QTest::newRow(qPrintable(tag("cpu", a, eSide, false) + "/mutant-no-extension"))
            << QString("cpu") << a << eSide << false << QString("no-extension");
    }
}
} // namespace

void tst_Kernels::dotCpmlE_data() {
    cpmlRows(true);
}

/// A: one launch of CpmlE<A> over a slab L of axis A (2 cells thick, on the low or high side of a 6x5x4
/// tile), x = (E, H, psi1, psi2) -> (E', H, psi1', psi2') with
///   psi1' = b psi1 + c D H_{A+2},  E_{A+1}' = E_{A+1} - Cb (km D H_{A+2} + psi1'),
///   psi2' = b psi2 + c D H_{A+1},  E_{A+2}' = E_{A+2} + Cb (km D H_{A+1} + psi2'),
/// D the backward difference along A (reading the zero halo below a low slab), b, c, km the slab's
/// profile and Cb per-cell constants. A^T, as AdjointStepper applies it:
/// y = (Ebar, Hbar, psibar) -> P = Cb Ebar, Q = -Db Hbar; CpmlEAdjoint over L extended one cell below when
/// L.lo[A] > 0 (Q -= Db D^T w, w from P and psibar; psibar' into a second buffer); back to Ebar, Hbar.
void tst_Kernels::dotCpmlE() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(int, axis);
        QFETCH(bool, high);
        QFETCH(bool, magnetic);
        QFETCH(QString, mutant);
        Grid g(*dev, 6, 5, 4);
        std::mt19937_64 rng(23 + axis);
        const Coefficients m(g, rng);
        const Box L = slabBox(g, axis, high, 2);
        const Profile prof(g, 2, rng);
        const kernels::SlabIndex idx = slabIndex(L);
        const std::int64_t ns = L.cells();
        Fields x(g), ax(g), y(g);
        x.fill(g, rng);
        y.fill(g, rng);
        ax.copyFrom(x);
        std::array<Array, 2> xpsi{g.dense(ns), g.dense(ns)}, axpsi{g.dense(ns), g.dense(ns)},
            ypsi{g.dense(ns), g.dense(ns)}, atypsi{g.dense(ns), g.dense(ns)};
        for (int s = 0; s < 2; ++s) {
            Grid::fillDense(xpsi[std::size_t(s)], rng, -1, 1);
            Grid::fillDense(ypsi[std::size_t(s)], rng, -1, 1);
            Grid::copy(axpsi[std::size_t(s)], xpsi[std::size_t(s)]);
        }
        const int p1 = (axis + 1) % 3, p2 = (axis + 2) % 3;
        Fields pq = toAdjoint(g, m, magnetic, y);
        withAxis(axis, [&](auto ax_) {
            constexpr int A = decltype(ax_)::value;
            g.launch(L, kernels::CpmlE<T, A>{g.view(ax[p1]), g.view(ax[p2]), g.view(ax[3 + p2]),
                                             g.view(ax[3 + p1]), m.cbv(g, p1), m.cbv(g, p2), axpsi[0].data(),
                                             axpsi[1].data(), idx, prof.view(), L.lo[A]});
            Box hb = L;
            if (hb.lo[A] > 0 && mutant != "no-extension")
                hb.lo[A] -= 1; // the H location just below the slab also receives -w(lo)
            withFlag(magnetic, [&](auto mag) {
                constexpr bool M = decltype(mag)::value;
                const kernels::CpmlEAdjoint<T, A, M> k{g.view(pq[3 + p2]),
                                                       g.view(pq[3 + p1]),
                                                       m.dbv(g, p2, M),
                                                       m.dbv(g, p1, M),
                                                       m.dbScalar,
                                                       g.view(pq[p1]),
                                                       g.view(pq[p2]),
                                                       ypsi[0].data(),
                                                       ypsi[1].data(),
                                                       atypsi[0].data(),
                                                       atypsi[1].data(),
                                                       idx,
                                                       prof.view(),
                                                       L.lo[A],
                                                       L.lo[A],
                                                       L.hi[A]};
                if (mutant == "sign" || mutant == "neighbour")
                    g.launchCpu(hb, CpmlAdjointMutant<decltype(k), A, true, M>{k, mutant == "sign",
                                                                               mutant == "neighbour"});
                else
                    g.launch(hb, k);
            });
        });
        const Fields aty = fromAdjoint(g, m, magnetic, pq);
        const long double lhs =
            ax.dot(g, y) + Grid::dotAll(axpsi[0], ypsi[0]) + Grid::dotAll(axpsi[1], ypsi[1]);
        const long double rhs =
            x.dot(g, aty) + Grid::dotAll(xpsi[0], atypsi[0]) + Grid::dotAll(xpsi[1], atypsi[1]);
        CHECK_DOT(lhs, rhs, mutant);
    });
}

void tst_Kernels::dotCpmlH_data() {
    cpmlRows(false);
}

/// A: one launch of CpmlH<A, Magnetic> over a slab L of axis A, x = (E, H, psi1, psi2) -> (E, H', psi')
///   psi1' = b psi1 + c D E_{A+2},  H_{A+1}' = H_{A+1} + Db (km D E_{A+2} + psi1'),
///   psi2' = b psi2 + c D E_{A+1},  H_{A+2}' = H_{A+2} - Db (km D E_{A+1} + psi2'),
/// D the forward difference along A (reading the zero halo above a high slab), Db per cell or scalar.
/// A^T, as AdjointStepper applies it: y -> P = Cb Ebar, Q = -Db Hbar; CpmlHAdjoint over L extended one
/// cell above when L.hi[A] < n (P += Cb D^T w, w from Q and psibar; psibar' into a second buffer); back to
/// Ebar, Hbar.
void tst_Kernels::dotCpmlH() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(int, axis);
        QFETCH(bool, high);
        QFETCH(bool, magnetic);
        QFETCH(QString, mutant);
        Grid g(*dev, 6, 5, 4);
        std::mt19937_64 rng(33 + axis);
        const Coefficients m(g, rng);
        const Box L = slabBox(g, axis, high, 2);
        const Profile prof(g, 2, rng);
        const kernels::SlabIndex idx = slabIndex(L);
        const std::int64_t ns = L.cells();
        Fields x(g), ax(g), y(g);
        x.fill(g, rng);
        y.fill(g, rng);
        ax.copyFrom(x);
        std::array<Array, 2> xpsi{g.dense(ns), g.dense(ns)}, axpsi{g.dense(ns), g.dense(ns)},
            ypsi{g.dense(ns), g.dense(ns)}, atypsi{g.dense(ns), g.dense(ns)};
        for (int s = 0; s < 2; ++s) {
            Grid::fillDense(xpsi[std::size_t(s)], rng, -1, 1);
            Grid::fillDense(ypsi[std::size_t(s)], rng, -1, 1);
            Grid::copy(axpsi[std::size_t(s)], xpsi[std::size_t(s)]);
        }
        const int q1 = (axis + 1) % 3, q2 = (axis + 2) % 3;
        Fields pq = toAdjoint(g, m, magnetic, y);
        withAxis(axis, [&](auto ax_) {
            constexpr int A = decltype(ax_)::value;
            withFlag(magnetic, [&](auto mag) {
                constexpr bool M = decltype(mag)::value;
                g.launch(L, kernels::CpmlH<T, A, M>{g.view(ax[3 + q1]), g.view(ax[3 + q2]), g.view(ax[q2]),
                                                    g.view(ax[q1]), m.dbv(g, q1, M), m.dbv(g, q2, M),
                                                    m.dbScalar, axpsi[0].data(), axpsi[1].data(), idx,
                                                    prof.view(), L.lo[A]});
            });
            Box eb = L;
            if (eb.hi[A] < g.n(A) && mutant != "no-extension")
                eb.hi[A] += 1; // the E location just above the slab gets w(hi-1)
            const kernels::CpmlHAdjoint<T, A> k{g.view(pq[q2]),
                                                g.view(pq[q1]),
                                                m.cbv(g, q2),
                                                m.cbv(g, q1),
                                                g.view(pq[3 + q1]),
                                                g.view(pq[3 + q2]),
                                                ypsi[0].data(),
                                                ypsi[1].data(),
                                                atypsi[0].data(),
                                                atypsi[1].data(),
                                                idx,
                                                prof.view(),
                                                L.lo[A],
                                                L.lo[A],
                                                L.hi[A]};
            if (mutant == "sign" || mutant == "neighbour")
                g.launchCpu(
                    eb, CpmlAdjointMutant<decltype(k), A, false>{k, mutant == "sign", mutant == "neighbour"});
            else
                g.launch(eb, k);
        });
        const Fields aty = fromAdjoint(g, m, magnetic, pq);
        const long double lhs =
            ax.dot(g, y) + Grid::dotAll(axpsi[0], ypsi[0]) + Grid::dotAll(axpsi[1], ypsi[1]);
        const long double rhs =
            x.dot(g, aty) + Grid::dotAll(xpsi[0], atypsi[0]) + Grid::dotAll(xpsi[1], atypsi[1]);
        CHECK_DOT(lhs, rhs, mutant);
    });
}

void tst_Kernels::dotInject_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("mutant");
    for (const char* d : kDevices)
        QTest::newRow(d) << QString(d) << QString();
    // the transpose gathers at the neighbouring cell (offset + 1)
    QTest::newRow("cpu/mutant-offset") << QString("cpu") << QString("offset");
}

/// A: one launch of Inject over 7 distinct points of one component, x = (f, a) -> (f + a sum_n coef_n
/// e_{offset_n}, a), the amplitude a being part of x and coef constants. A^T: y = (fbar, abar) ->
/// (fbar, abar + sum_n coef_n fbar[offset_n]), the sum through GatherPoints (device) and the host.
void tst_Kernels::dotInject() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(QString, mutant);
        Grid g(*dev, 5, 4, 3);
        std::mt19937_64 rng(41);
        Array f = g.field(), af = g.field(), fbar = g.field();
        g.fillInterior(f, rng, -1, 1);
        g.fillInterior(fbar, rng, -1, 1);
        Grid::copy(af, f);
        const T a = 0.7, abar = -0.3;
        constexpr int kPts = 7;
        device::Buffer<std::int64_t> off(*dev, kPts, device::Category::Sources),
            gatherOff(*dev, kPts, device::Category::Staging);
        device::Buffer<int> comp(*dev, kPts, device::Category::Staging);
        Array coef = g.dense(kPts), got = g.dense(kPts);
        Grid::fillDense(coef, rng, -2, 2);
        std::uniform_int_distribution<int> cell(0, 59);
        std::vector<int> used;
        for (int n = 0; n < kPts; ++n) {
            int c = cell(rng);
            while (std::find(used.begin(), used.end(), c) != used.end())
                c = cell(rng);
            used.push_back(c);
            off[n] = g.shape().offset(c % 5, (c / 5) % 4, c / 20);
            gatherOff[n] = off[n] + (mutant == "offset" ? 1 : 0);
            comp[n] = 0;
        }
        g.launchIndex(kPts, kernels::Inject<T>{af.data(), off.data(), coef.data(), a});
        const T* fb = fbar.data();
        g.launchIndex(kPts, kernels::GatherPoints<T>{fb, fb, fb, fb, fb, fb, comp.data(), gatherOff.data(),
                                                     got.data()});
        long double abarT = abar;
        for (int n = 0; n < kPts; ++n)
            abarT += (long double)coef[n] * got[n];
        const long double lhs = g.dotInterior(af, fbar) + (long double)a * abar;
        const long double rhs = g.dotInterior(f, fbar) + a * abarT;
        CHECK_DOT(lhs, rhs, mutant);
    });
}

void tst_Kernels::dotHalo_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<int>("axis");
    QTest::addColumn<int>("shift");
    QTest::addColumn<QString>("mutant");
    for (const char* d : kDevices)
        for (int a = 0; a < 3; ++a)
            for (int s : {0, 1})
                QTest::newRow(qPrintable(QString("%1/axis%2/shift%3").arg(d).arg(a).arg(s)))
                    << QString(d) << a << s << QString();
    // unpack one cell further along the face than pack read
    for (int a = 0; a < 3; ++a)
        QTest::newRow(qPrintable(QString("cpu/axis%1/shift1/mutant-shift").arg(a)))
            << QString("cpu") << a << 1 << QString("shift");
}

/// B the high interior face of axis a (one cell thick), s = shift e_a (0 or 1: B + e_a is the high halo
/// face). Pack_{B+s}: f (every element, halo included) -> buf = f restricted to B + s, x fastest over B
/// (a copy, no coefficients). Its transpose is UnpackFace over B with shift s into a zeroed array, which
/// the solver's exchange uses the other way round (unpack of the neighbour's packed face): the pair is
/// consistent when <Pack f, b> = <f, Unpack b>. (The adjoint sweep does not transpose the exchange: in
/// P, Q variables it runs the forward halo plan, so pack and unpack enter the gradient only as this pair.)
void tst_Kernels::dotHalo() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(int, axis);
        QFETCH(int, shift);
        QFETCH(QString, mutant);
        Grid g(*dev, 5, 4, 3);
        std::mt19937_64 rng(51 + axis);
        Box B = g.box();
        B.lo[axis] = B.hi[axis] - 1;
        Box packed = B; // B + s
        packed.lo[axis] += shift;
        packed.hi[axis] += shift;
        Array f = g.field(), back = g.field();
        Array buf = g.dense(B.cells()), b = g.dense(B.cells());
        std::uniform_real_distribution<double> u(-1, 1);
        for (std::int64_t n = 0; n < f.size(); ++n)
            f[n] = u(rng); // halo included: pack may read it
        Grid::fillDense(b, rng, -1, 1);
        const kernels::BoxIndex bi = boxIndex(B);
        const kernels::BoxIndex packedIndex = boxIndex(packed);
        g.launch(packed, kernels::PackFace<T>{g.view(f), buf.data(), packedIndex});
        int s[3] = {0, 0, 0};
        s[axis] = shift;
        if (mutant == "shift")
            s[(axis + 1) % 3] -= 1;
        g.launch(B, kernels::UnpackFace<T>{g.view(back), b.data(), bi, s[0], s[1], s[2]});
        CHECK_DOT(Grid::dotAll(buf, b), Grid::dotAll(f, back), mutant);
    });
}

void tst_Kernels::dotPoints_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("mutant");
    for (const char* d : kDevices)
        QTest::newRow(d) << QString(d) << QString();
    // scatter with the component list rotated by one
    QTest::newRow("cpu/mutant-component") << QString("cpu") << QString("component");
}

/// G: GatherPoints over 16 distinct (component, cell) points of the six arrays (halo cells included),
/// f -> v = f at the points. Its transpose is the scatter-add of v into zeroed arrays, which for distinct
/// points is ScatterPoints into zeroed arrays: <G f, v> = <f, S v>. The gradient's adjoint sources use
/// exactly this pair (gather P, Q at the source locations, add on the host, scatter back).
void tst_Kernels::dotPoints() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(QString, mutant);
        Grid g(*dev, 4, 3, 3);
        std::mt19937_64 rng(61);
        Fields f(g), back(g);
        std::uniform_real_distribution<double> u(-1, 1);
        for (int c = 0; c < 6; ++c)
            for (std::int64_t n = 0; n < f[c].size(); ++n)
                f[c][n] = u(rng);
        constexpr int kPts = 16;
        device::Buffer<int> comp(*dev, kPts, device::Category::Staging),
            scatterComp(*dev, kPts, device::Category::Staging);
        device::Buffer<std::int64_t> off(*dev, kPts, device::Category::Staging);
        Array v = g.dense(kPts), gathered = g.dense(kPts);
        Grid::fillDense(v, rng, -1, 1);
        std::uniform_int_distribution<std::int64_t> where(0, g.shape().size - 1);
        std::uniform_int_distribution<int> which(0, 5);
        std::vector<std::pair<int, std::int64_t>> used;
        for (int n = 0; n < kPts; ++n) {
            std::pair<int, std::int64_t> p{which(rng), where(rng)};
            while (std::find(used.begin(), used.end(), p) != used.end())
                p = {which(rng), where(rng)};
            used.push_back(p);
            comp[n] = p.first;
            off[n] = p.second;
            scatterComp[n] = mutant == "component" ? (p.first + 1) % 6 : p.first;
        }
        auto cd = [&](const Fields& s, int c) { return s[c].data(); };
        g.launchIndex(kPts, kernels::GatherPoints<T>{cd(f, 0), cd(f, 1), cd(f, 2), cd(f, 3), cd(f, 4),
                                                     cd(f, 5), comp.data(), off.data(), gathered.data()});
        g.launchIndex(kPts, kernels::ScatterPoints<T>{cd(back, 0), cd(back, 1), cd(back, 2), cd(back, 3),
                                                      cd(back, 4), cd(back, 5), scatterComp.data(),
                                                      off.data(), v.data()});
        long double rhs = 0;
        for (int c = 0; c < 6; ++c)
            rhs += Grid::dotAll(f[c], back[c]);
        CHECK_DOT(Grid::dotAll(gathered, v), rhs, mutant);
    });
}

namespace {
/// One CPML slab of a tile: its axis, tile-local box and the E- and H-side gradings.
struct SlabSpec {
    int axis;
    Box box;
    Profile e, h;
};

/// The evolving state of a tile with CPML slabs: six field components and, per slab, psiE1, psiE2,
/// psiH1, psiH2 (dense over the slab box).
struct StepState {
    Fields f;
    std::vector<std::array<Array, 4>> psi;
    StepState(const Grid& g, const std::vector<SlabSpec>& slabs) : f(g) {
        for (const SlabSpec& s : slabs) {
            const std::int64_t n = s.box.cells();
            psi.push_back({g.dense(n), g.dense(n), g.dense(n), g.dense(n)});
        }
    }
    void fill(const Grid& g, std::mt19937_64& rng) {
        f.fill(g, rng);
        for (auto& p : psi)
            for (auto& a : p)
                Grid::fillDense(a, rng, -1, 1);
    }
    void copyPsi(const StepState& o) {
        for (std::size_t s = 0; s < psi.size(); ++s)
            for (std::size_t n = 0; n < 4; ++n)
                Grid::copy(psi[s][n], o.psi[s][n]);
    }
    long double dot(const Grid& g, const StepState& o) const {
        long double d = f.dot(g, o.f);
        for (std::size_t s = 0; s < psi.size(); ++s)
            for (std::size_t n = 0; n < 4; ++n)
                d += Grid::dotAll(psi[s][n], o.psi[s][n]);
        return d;
    }
};
} // namespace

void tst_Kernels::dotStep_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("lossy");
    QTest::addColumn<bool>("magnetic");
    QTest::addColumn<QString>("mutant");
    for (const char* d : kDevices)
        for (bool l : {false, true})
            for (bool m : {false, true})
                QTest::newRow(qPrintable(
                    QString("%1/%2/%3").arg(d, l ? "with-ca" : "no-ca", m ? "db-per-cell" : "db-scalar")))
                    << QString(d) << l << m << QString();
    // P *= Ca applied at the end of the reverse step instead of between the two halves
    QTest::newRow("cpu/with-ca/db-per-cell/mutant-ca-last")
        << QString("cpu") << true << true << QString("ca-last");
}

/// A: one whole forward step of a 7x6x5 tile with CPML slabs (2 cells) on both sides of every axis, in the
/// solver's order (solver/Tile.cpp, staged form): UpdateH, CpmlH on every slab, UpdateE, CpmlE on every slab,
/// x = (E, H, psiE, psiH) -> (E', H', psiE', psiH'); coefficients, profiles constant, halos zero.
/// A^T: the reverse step of AdjointStepper::step without sources and exchanges: CPML-E^T on every slab
/// (z, y, x; high before low), UpdateH on (Q, P), ScaleCa, CPML-H^T on every slab, UpdateE without Ca; the
/// transposes read pq's psibar and write next's.
/// Corner cells lie in two or three slabs, so this also checks how the slab transposes compose.
void tst_Kernels::dotStep() {
    guarded([&] {
        OPEN_DEVICE(dev);
        QFETCH(bool, lossy);
        QFETCH(bool, magnetic);
        QFETCH(QString, mutant);
        Grid g(*dev, 7, 6, 5);
        std::mt19937_64 rng(71);
        const Coefficients m(g, rng);
        std::vector<SlabSpec> slabs;
        for (int a = 0; a < 3; ++a)
            for (bool high : {false, true})
                slabs.push_back({a, slabBox(g, a, high, 2), Profile(g, 2, rng), Profile(g, 2, rng)});
        StepState x(g, slabs), ax(g, slabs), y(g, slabs), pq(g, slabs);
        x.fill(g, rng);
        y.fill(g, rng);
        ax.f.copyFrom(x.f);
        ax.copyPsi(x);
        pq.f = toAdjoint(g, m, magnetic, y.f);
        pq.copyPsi(y);
        StepState next(g, slabs); // the psibar the transposes write (they read pq's)
        withFlag(magnetic, [&](auto mag) {
            constexpr bool M = decltype(mag)::value;
            // ---- forward step ----
            g.launch(g.box(), updateH<M>(g, ax.f, m));
            for (std::size_t s = 0; s < slabs.size(); ++s)
                withAxis(slabs[s].axis, [&](auto axisTag) {
                    constexpr int A = decltype(axisTag)::value;
                    constexpr int q1 = (A + 1) % 3, q2 = (A + 2) % 3;
                    const Box& L = slabs[s].box;
                    g.launch(L, kernels::CpmlH<T, A, M>{g.view(ax.f[3 + q1]), g.view(ax.f[3 + q2]),
                                                        g.view(ax.f[q2]), g.view(ax.f[q1]), m.dbv(g, q1, M),
                                                        m.dbv(g, q2, M), m.dbScalar, ax.psi[s][2].data(),
                                                        ax.psi[s][3].data(), slabIndex(L), slabs[s].h.view(),
                                                        L.lo[A]});
                });
            withFlag(lossy, [&](auto l) { g.launch(g.box(), updateE<decltype(l)::value>(g, ax.f, m)); });
            for (std::size_t s = 0; s < slabs.size(); ++s)
                withAxis(slabs[s].axis, [&](auto axisTag) {
                    constexpr int A = decltype(axisTag)::value;
                    constexpr int p1 = (A + 1) % 3, p2 = (A + 2) % 3;
                    const Box& L = slabs[s].box;
                    g.launch(L, kernels::CpmlE<T, A>{g.view(ax.f[p1]), g.view(ax.f[p2]), g.view(ax.f[3 + p2]),
                                                     g.view(ax.f[3 + p1]), m.cbv(g, p1), m.cbv(g, p2),
                                                     ax.psi[s][0].data(), ax.psi[s][1].data(), slabIndex(L),
                                                     slabs[s].e.view(), L.lo[A]});
                });
            // ---- reverse step ----
            for (int a = 2; a >= 0; --a)
                for (int s = int(slabs.size()) - 1; s >= 0; --s) {
                    if (slabs[std::size_t(s)].axis != a)
                        continue;
                    withAxis(a, [&](auto axisTag) {
                        constexpr int A = decltype(axisTag)::value;
                        constexpr int p1 = (A + 1) % 3, p2 = (A + 2) % 3;
                        const SlabSpec& sl = slabs[std::size_t(s)];
                        auto& ps = pq.psi[std::size_t(s)];
                        auto& ns = next.psi[std::size_t(s)];
                        const Box& L = sl.box;
                        Box hb = L;
                        if (hb.lo[A] > 0)
                            hb.lo[A] -= 1;
                        g.launch(hb, kernels::CpmlEAdjoint<T, A, M>{
                                         g.view(pq.f[3 + p2]), g.view(pq.f[3 + p1]), m.dbv(g, p2, M),
                                         m.dbv(g, p1, M), m.dbScalar, g.view(pq.f[p1]), g.view(pq.f[p2]),
                                         ps[0].data(), ps[1].data(), ns[0].data(), ns[1].data(), slabIndex(L),
                                         sl.e.view(), L.lo[A], L.lo[A], L.hi[A]});
                    });
                }
            g.launch(g.box(), updateH<M>(g, pq.f, m));
            const kernels::ScaleCa<T> scale{g.view(pq.f[0]), g.view(pq.f[1]), g.view(pq.f[2]),
                                            m.cav(g, 0),     m.cav(g, 1),     m.cav(g, 2)};
            if (lossy && mutant != "ca-last")
                g.launch(g.box(), scale);
            for (int a = 2; a >= 0; --a)
                for (int s = int(slabs.size()) - 1; s >= 0; --s) {
                    if (slabs[std::size_t(s)].axis != a)
                        continue;
                    withAxis(a, [&](auto axisTag) {
                        constexpr int A = decltype(axisTag)::value;
                        constexpr int q1 = (A + 1) % 3, q2 = (A + 2) % 3;
                        const SlabSpec& sl = slabs[std::size_t(s)];
                        auto& ps = pq.psi[std::size_t(s)];
                        auto& ns = next.psi[std::size_t(s)];
                        const Box& L = sl.box;
                        Box eb = L;
                        if (eb.hi[A] < g.n(A))
                            eb.hi[A] += 1;
                        g.launch(eb, kernels::CpmlHAdjoint<T, A>{
                                         g.view(pq.f[q2]), g.view(pq.f[q1]), m.cbv(g, q2), m.cbv(g, q1),
                                         g.view(pq.f[3 + q1]), g.view(pq.f[3 + q2]), ps[2].data(),
                                         ps[3].data(), ns[2].data(), ns[3].data(), slabIndex(L), sl.h.view(),
                                         L.lo[A], L.lo[A], L.hi[A]});
                    });
                }
            g.launch(g.box(), updateE<false>(g, pq.f, m));
            if (mutant == "ca-last")
                g.launch(g.box(), scale);
        });
        StepState aty(g, slabs);
        aty.f = fromAdjoint(g, m, magnetic, pq.f);
        aty.copyPsi(next);
        CHECK_DOT(ax.dot(g, y), x.dot(g, aty), mutant);
    });
}

void tst_Kernels::cleanupTestCase() {
    qInfo("worst relative dot-product gap over the unperturbed rows (float64): %.3g (%s); tolerance %.0e",
          gWorstGap, gWorstRow.c_str(), kTol);
}

QTEST_GUILESS_MAIN(tst_Kernels)
#include "tst_kernels.moc"
