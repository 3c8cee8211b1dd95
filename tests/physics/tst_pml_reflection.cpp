/// CPML reflection at normal incidence across cell sizes (label slow): a one-sided plane source sends a
/// pulse (centre 1 um, bandwidth 0.3 um) into the +x PML; a flux plane upstream of the source sees only
/// what the PML sends back. R(lambda) = upstream power / downstream power, printed per cell size. With
/// the default CPML parameters (alpha_max in 1/um) it stays below -80 dB from 1 nm to 20 nm cells
/// (>= 45 cells per wavelength); at 50 and 100 nm (18 and 9 cells per 0.9 um) the 10-cell grading's
/// own discretisation limits it (about -70 and -51 dB), where the physical alpha must be no worse than
/// the former per-cell alpha (0.05 in normalised units), whose reflection is printed for contrast.
#include <QtTest>

#include <cmath>

#include "physics/SceneBuilder.hpp"
#include "yee/run/Run.hpp"

using namespace yee;
using namespace yee::testing;

namespace {

/// Worst reflection over the detector wavelengths, and the incident power at the centre wavelength.
double reflection(double cellUm, double alphaPerUm) {
    using scene::BoundaryType;
    const int nx = 80, pml = 10;
    scene::Scene s =
        boxScene(nx, 2, 2, cellUm, BoundaryType::Pml, BoundaryType::Periodic, BoundaryType::Periodic, pml);
    s.boundaries[0].alphaMax = alphaPerUm;
    auto x = [&](int cell) { return (cell - nx / 2) * cellUm; };
    const scene::Vec3 plane{0, 2 * cellUm, 2 * cellUm};
    s.sources.push_back(planeSource("src", scene::SourceType::UniformPlane, {x(30), 0, 0}, plane, 0, +1,
                                    {0, 1, 0}, 1.0, 0.3));
    const std::vector<double> wls{0.9, 1.0, 1.1};
    s.detectors.push_back(flux("back", {x(20), 0, 0}, plane, 0, -1, wls));
    s.detectors.push_back(flux("fwd", {x(45), 0, 0}, plane, 0, +1, wls));
    // The pulse (t0 = 5 tau, tau = 4.2 fs) has passed, been reflected and left again by 14 tau.
    s.durationFs = 60 + 4 * nx * cellUm / scene::kC_um_per_fs;
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = run::Precision::Float64;
    const run::RunResult r = run::run(s, o);
    if (!r.completed)
        throw std::runtime_error(r.status);
    const solver::NamedArray* back = nullptr;
    const solver::NamedArray* fwd = nullptr;
    for (const auto& d : r.detectors)
        (d.name == "back" ? back : fwd) = d.find("power");
    double worst = 0;
    for (std::size_t w = 0; w < wls.size(); ++w)
        worst = std::max(worst, std::abs(back->data[w]) / fwd->data[w]);
    return worst;
}

double dB(double r) {
    return 10 * std::log10(std::max(r, 1e-300));
}

} // namespace

class tst_PmlReflection : public QObject {
    Q_OBJECT
private slots:
    void belowMinus80dBAtEveryCellSize_data() {
        QTest::addColumn<double>("cellUm");
        for (double c : {0.001, 0.002, 0.004, 0.01, 0.02, 0.05, 0.1})
            QTest::newRow(qPrintable(QString("%1 nm").arg(c * 1000))) << c;
    }

    void belowMinus80dBAtEveryCellSize() {
        QFETCH(double, cellUm);
        const scene::Boundary defaults;
        const double r = reflection(cellUm, defaults.alphaMax);
        const double old = reflection(cellUm, 0.05 / cellUm); // the former per-cell alpha_max = 0.05
        qInfo("cell %6.1f nm: reflection %.3g (%.1f dB); with a per-cell alpha of 0.05: %.3g (%.1f dB)",
              cellUm * 1000, r, dB(r), old, dB(old));
        QVERIFY(r > 0); // the measurement sees the PML at all
        if (cellUm <= 0.02)
            QVERIFY2(dB(r) < -80, qPrintable(QString("%1 dB").arg(dB(r))));
        else
            QVERIFY2(r <= old * 1.01,
                     qPrintable(QString("%1 dB, per-cell alpha %2 dB").arg(dB(r)).arg(dB(old))));
        if (cellUm <= 0.004) // where the per-cell alpha failed: now at least 25 dB better
            QVERIFY2(dB(r) < dB(old) - 25, qPrintable(QString("%1 dB vs %2 dB").arg(dB(r)).arg(dB(old))));
    }
};

QTEST_GUILESS_MAIN(tst_PmlReflection)
#include "tst_pml_reflection.moc"
