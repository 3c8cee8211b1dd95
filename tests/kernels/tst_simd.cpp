/// Runtime SIMD (core/Platform.hpp YEE_SIMD_CLONES): the row loops of kernels/Launch.hpp run the widest
/// clone this CPU has (AVX-512, AVX2 or SSE2). The contract is that every clone gives the same bits. Here
/// the library's Yee and inverse functors (per-cell and table coefficients) run through forEachCell (the
/// cloned runRow) and through a reference loop compiled without vectorisation, on random fields whose
/// magnitudes span 1e-300..1e30 (in float, down into the subnormals), and the outputs are compared bit for
/// bit in float and double. Table coefficients also go through material runs (constant runs, short
/// stretches in place, longer stretches through the table: kernels/Launch.hpp). tst_golden checks the same on
/// whole scenes against files written by baseline builds.
#include <QtTest>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "yee/core/Simd.hpp"
#include "yee/kernels/Adjoint.hpp"
#include "yee/kernels/Coef.hpp"
#include "yee/kernels/Cpml.hpp"
#include "yee/kernels/Launch.hpp"
#include "yee/kernels/Yee.hpp"

using namespace yee;

namespace {

/// Six fields and six coefficient arrays of one halo-padded box.
template <class T> struct Cells {
    ArrayShape shape;
    std::vector<std::vector<T>> a;
    explicit Cells(int nx, int ny, int nz) : shape(ArrayShape::make(nx, ny, nz)), a(12) {
        std::mt19937_64 rng(12345);
        std::uniform_real_distribution<double> mant(-1, 1);
        // Exponents from the subnormals of T up to 1e30: every width must round these the same way.
        std::uniform_int_distribution<int> expo(sizeof(T) == 4 ? -44 : -300, 30);
        for (int f = 0; f < 12; ++f) {
            a[std::size_t(f)].resize(std::size_t(shape.size));
            for (auto& v : a[std::size_t(f)])
                v = T(mant(rng) * std::pow(10.0, f < 6 ? expo(rng) : 0)); // coefficients O(1), nonzero
        }
        for (int f = 6; f < 12; ++f)
            for (auto& v : a[std::size_t(f)])
                v = v == T(0) ? T(0.5) : v;
    }
    View<T> v(int f) { return View<T>(a[std::size_t(f)].data(), shape); }
    View<const T> c(int f) { return View<const T>(a[std::size_t(f)].data(), shape); }
};

/// The reference: every cell in order, not vectorised, whatever the build's flags.
template <class F>
__attribute__((noinline, optimize("no-tree-vectorize"))) void scalarCells(const F& f, const Box& b) {
    for (int k = b.lo[2]; k < b.hi[2]; ++k)
        for (int j = b.lo[1]; j < b.hi[1]; ++j)
            for (int i = b.lo[0]; i < b.hi[0]; ++i)
                f(i, j, k);
}

template <class T> bool sameBits(const Cells<T>& x, const Cells<T>& y) {
    for (std::size_t f = 0; f < x.a.size(); ++f) // the fields, and arrays a functor updates besides them
        if (std::memcmp(x.a[f].data(), y.a[f].data(), x.a[f].size() * sizeof(T)) != 0)
            return false;
    return true;
}

/// Build functor `make(cells)` on two identical copies, run it cloned and scalar, compare.
template <class T, class Make> bool clonedEqualsScalar(Make&& make, int nx = 37) {
    const Box b{{0, 0, 0}, {nx, 5, 4}}; // odd row length: vector body and remainder both run
    Cells<T> x(nx, 5, 4), y(nx, 5, 4);
    kernels::forEachCell(b, 1, make(x));
    scalarCells(make(y), b);
    return sameBits(x, y);
}

} // namespace

class tst_Simd : public QObject {
    Q_OBJECT
private slots:
    void level() {
        const std::string s = simdLevel();
        qInfo("CPU loops: %s", s.c_str());
        QVERIFY(!s.empty());
    }
    void yeeFunctors_data() {
        QTest::addColumn<bool>("dbl");
        QTest::newRow("float") << false;
        QTest::newRow("double") << true;
    }
    void yeeFunctors() {
        QFETCH(bool, dbl);
        if (dbl)
            run<double>();
        else
            run<float>();
    }

private:
    template <class T> void run() {
        QVERIFY(clonedEqualsScalar<T>([](Cells<T>& c) {
            return kernels::UpdateH<T, true>{c.v(3), c.v(4), c.v(5), c.c(0), c.c(1),
                                             c.c(2), c.c(6), c.c(7), c.c(8), T(0)};
        }));
        QVERIFY(clonedEqualsScalar<T>([](Cells<T>& c) {
            return kernels::UpdateH<T, false>{c.v(3), c.v(4), c.v(5), c.c(0), c.c(1),
                                              c.c(2), {},     {},     {},     T(0.37)};
        }));
        QVERIFY(clonedEqualsScalar<T>([](Cells<T>& c) {
            return kernels::UpdateE<T, true>{c.v(0), c.v(1), c.v(2), c.c(3), c.c(4),  c.c(5),
                                             c.c(6), c.c(7), c.c(8), c.c(9), c.c(10), c.c(11)};
        }));
        QVERIFY(clonedEqualsScalar<T>([](Cells<T>& c) {
            return kernels::UpdateE<T, false>{c.v(0), c.v(1), c.v(2), c.c(3), c.c(4), c.c(5),
                                              c.c(6), c.c(7), c.c(8), {},     {},     {}};
        }));
        // Coefficients from a material index and table (kernels/Coef.hpp): gathers on the wide clones.
        std::vector<kernels::MaterialIndex> idx;
        std::vector<T> tab;
        QVERIFY(clonedEqualsScalar<T>([&](Cells<T>& c) {
            idx.assign(std::size_t(c.shape.size), 0);
            for (std::size_t n = 0; n < idx.size(); ++n)
                idx[n] = kernels::MaterialIndex((n * 7919) % 301);
            tab.assign(c.a[6].begin(), c.a[6].begin() + 301 * 3);
            auto at = [&](int comp) {
                return kernels::TableCoef<T>{idx.data() + c.shape.origin, tab.data() + 301 * comp, c.shape.sy,
                                             c.shape.sz};
            };
            return kernels::UpdateE<T, true, kernels::TableCoef<T>>{
                c.v(0), c.v(1), c.v(2), c.c(3), c.c(4), c.c(5), at(0), at(1), at(2), at(2), at(0), at(1)};
        }));
        // Material runs (kernels/Launch.hpp): an index of runs 1..40 cells long, crossing rows anywhere,
        // so that rows of one material, constant runs, short stretches run in place and longer stretches
        // through the table all occur; rows of 151 cells.
        using TC = kernels::TableCoef<T>;
        static_assert(kernels::MaterialRuns<kernels::UpdateE<T, true, TC>>::enabled);
        static_assert(kernels::MaterialRuns<kernels::UpdateH<T, true, TC>>::enabled);
        static_assert(!kernels::MaterialRuns<kernels::UpdateH<T, false, TC>>::enabled);
        static_assert(kernels::MaterialRuns<kernels::CpmlE<T, 0, TC>>::enabled);
        auto runs = [&](Cells<T>& c) {
            idx.assign(std::size_t(c.shape.size), 0);
            std::uint32_t state = 7;
            for (std::size_t n = 0; n < idx.size();) {
                state = state * 1103515245u + 12345u;
                const std::size_t len = 1 + (state >> 16) % 40;
                for (std::size_t q = 0; q < len && n < idx.size(); ++q)
                    idx[n++] = kernels::MaterialIndex((state >> 8) % 301);
            }
            tab.assign(c.a[6].begin(), c.a[6].begin() + 301 * 3);
        };
        auto atRuns = [&](Cells<T>& c, int comp) {
            return TC{idx.data() + c.shape.origin, tab.data() + 301 * comp, c.shape.sy, c.shape.sz};
        };
        for (const bool uniform : {false, true}) {
            auto index = [&](Cells<T>& c) {
                runs(c);
                if (uniform) // one material everywhere: every row is one constant run
                    std::fill(idx.begin(), idx.end(), kernels::MaterialIndex(17));
            };
            QVERIFY(clonedEqualsScalar<T>(
                [&](Cells<T>& c) {
                    index(c);
                    return kernels::UpdateE<T, true, TC>{
                        c.v(0),       c.v(1),       c.v(2),       c.c(3),       c.c(4),       c.c(5),
                        atRuns(c, 0), atRuns(c, 1), atRuns(c, 2), atRuns(c, 2), atRuns(c, 0), atRuns(c, 1)};
                },
                151));
            QVERIFY(clonedEqualsScalar<T>(
                [&](Cells<T>& c) {
                    index(c);
                    return kernels::UpdateH<T, true, TC>{c.v(3),       c.v(4), c.v(5),       c.c(0),
                                                         c.c(1),       c.c(2), atRuns(c, 1), atRuns(c, 2),
                                                         atRuns(c, 0), T(0)};
                },
                151));
            // The CPML E correction along x: Cb from the index, psi in arrays 9 and 10, the grading in 11.
            QVERIFY(clonedEqualsScalar<T>(
                [&](Cells<T>& c) {
                    index(c);
                    const int nx = c.shape.nx;
                    T* prof = c.a[11].data();
                    return kernels::CpmlE<T, 0, TC>{c.v(1),
                                                    c.v(2),
                                                    c.c(5),
                                                    c.c(4),
                                                    atRuns(c, 1),
                                                    atRuns(c, 2),
                                                    c.a[9].data(),
                                                    c.a[10].data(),
                                                    kernels::SlabIndex{0, 0, 0, nx, std::int64_t(nx) * 5},
                                                    {prof, prof + nx, prof + 2 * nx},
                                                    0};
                },
                151));
        }
        // The inverse E update divides by Ca: division must round the same at every width too.
        QVERIFY(clonedEqualsScalar<T>([](Cells<T>& c) {
            return kernels::InverseUpdateE<T, true>{c.v(0), c.v(1), c.v(2), c.c(3), c.c(4),  c.c(5),
                                                    c.c(6), c.c(7), c.c(8), c.c(9), c.c(10), c.c(11)};
        }));
    }
};

QTEST_GUILESS_MAIN(tst_Simd)
#include "tst_simd.moc"
