/// Scene checks that look beyond one key: resolution where the light is (the shortest source
/// wavelength in the highest-index material, with the Yee phase-velocity error from the numerical
/// dispersion relation) and the scene file size limit.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <numbers>

#include "yee/core/Error.hpp"
#include "yee/scene/MaterialModel.hpp"
#include "yee/scene/Resolution.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/tiling/TileGrid.hpp"

using namespace yee;

namespace {

scene::Scene base() {
    return scene::loadScene(YEE_SOURCE_DIR "/tests/scene/valid_base.json");
}

} // namespace

class tst_SceneLimits : public QObject {
    Q_OBJECT

private slots:
    void shortestWavelengthIsTheUpperHalfMaximumEdge() {
        scene::Profile p;
        p.type = scene::ProfileType::GaussianPulse;
        p.wavelength = 1.0;
        p.bandwidth = 0.5; // f0 = 1, df = 0.5: edge at f = 1.25
        QCOMPARE(scene::shortestWavelengthUm(p), 0.8);
        p.type = scene::ProfileType::Cw;
        QCOMPARE(scene::shortestWavelengthUm(p), 1.0);
    }

    /// Against the dispersion relation solved independently (bisection on
    /// sin(w dt / 2) / (v dt) = sin(k~ dx / 2) / dx), and its known limits.
    void phaseVelocityErrorFromTheDispersionRelation() {
        for (double n : {4.0, 10.0, 20.0, 40.0})
            for (double S : {0.2, 0.5, 0.57}) {
                const double k = 2 * std::numbers::pi / n; // dx = 1
                const double lhs = std::sin(S * k / 2) / S;
                double lo = 0, hi = std::numbers::pi;
                for (int i = 0; i < 200; ++i) {
                    const double mid = 0.5 * (lo + hi);
                    (std::sin(mid / 2) < lhs ? lo : hi) = mid;
                }
                const double want = k / lo - 1;
                QVERIFY(std::abs(scene::yeePhaseVelocityError(n, S) - want) < 1e-12);
                QVERIFY(scene::yeePhaseVelocityError(n, S) < 0); // the grid is slow
            }
        // Second order: the error falls 4x per doubling of the resolution.
        const double e10 = scene::yeePhaseVelocityError(10, 0.5), e20 = scene::yeePhaseVelocityError(20, 0.5);
        QVERIFY(std::abs(e10 / e20 - 4) < 0.1);
        // Magic time step in 1-D (S = 1) is exact.
        QVERIFY(std::abs(scene::yeePhaseVelocityError(10, 1.0)) < 1e-14);
        // Below 2 cells there is no propagating wave.
        QVERIFY(std::isnan(scene::yeePhaseVelocityError(1.9, 0.5)));
    }

    void resolutionOfDispersiveMaterials() {
        // Library silicon is lossless Sellmeier poles on eps_inf = 1: judged by eps_inf it would look
        // like vacuum. It must be judged by Re n(lambda) across the source's band.
        scene::Scene s = base();
        s.cellUm = 0.05;
        for (auto& m : s.materials)
            if (m.name == s.objects.front().material) {
                m = scene::Material{};
                m.name = s.objects.front().material;
                m.library = "Si";
            }
        s.sources.front().profile.type = scene::ProfileType::Cw;
        s.sources.front().profile.wavelength = 1.55;
        const scene::Material& si = *s.findMaterial(s.objects.front().material);
        const auto model = scene::materialModel(si);
        QVERIFY(model.epsInf < 2);
        const double n = std::sqrt(scene::permittivity(model, scene::omegaOfWavelength(1.55))).real();
        QVERIFY(n > 3.4 && n < 3.55);
        scene::Resolution r = scene::worstResolution(s);
        QCOMPARE(r.material, si.name);
        QVERIFY2(std::abs(r.index - n) < 1e-9, qPrintable(QString::number(r.index)));
        QVERIFY(std::abs(r.cellsPerWavelength - 1.55 / n / 0.05) < 1e-9);
        // A pulse: the worst lambda / n(lambda) of the band (normal dispersion: the short edge).
        s.sources.front().profile.type = scene::ProfileType::GaussianPulse;
        s.sources.front().profile.bandwidth = 0.4;
        r = scene::worstResolution(s);
        const double lo = scene::shortestWavelengthUm(s.sources.front().profile);
        const double nLo = std::sqrt(scene::permittivity(model, scene::omegaOfWavelength(lo))).real();
        QVERIFY(std::abs(r.cellsPerWavelength - lo / nLo / 0.05) < 1e-9);
        // Refused below 2 cells per wavelength inside it, naming the cell size.
        s.cellUm = lo / nLo / 1.5;
        QVERIFY_THROWS_EXCEPTION(InputError, scene::checkResolution(s));
    }

    void resolutionIsJudgedInTheHighestIndexMaterial() {
        scene::Scene s = base();
        s.cellUm = 0.05;
        for (auto& m : s.materials)
            if (m.name == s.objects.front().material)
                m.eps = 12;
        s.sources.front().profile.type = scene::ProfileType::Cw;
        s.sources.front().profile.wavelength = 1.0;
        const scene::Resolution r = scene::worstResolution(s);
        QCOMPARE(r.material, s.objects.front().material);
        QVERIFY(std::abs(r.index - std::sqrt(12.0)) < 1e-12);
        QVERIFY(std::abs(r.cellsPerWavelength - 1.0 / std::sqrt(12.0) / 0.05) < 1e-9); // 5.77 cells
        QVERIFY(std::abs(r.phaseVelocityError -
                         scene::yeePhaseVelocityError(r.cellsPerWavelength, s.dt() / r.index)) < 1e-15);
        const auto w = scene::resolutionWarnings(s);
        QCOMPARE(w.size(), std::size_t(1));
        QVERIFY2(
            QString::fromStdString(w[0]).startsWith("grid.cell_um: the shortest wavelength of sources[0]"),
            w[0].c_str());
        QVERIFY2(QString::fromStdString(w[0]).contains("5.77 cells"), w[0].c_str());
        QVERIFY2(QString::fromStdString(w[0]).contains("% slow"), w[0].c_str());
        scene::checkResolution(s); // warned, not refused

        // 1.4 cells per wavelength inside eps = 12 (free space: 4.9 cells): refused, naming the cell.
        s.cellUm = 1.0 / std::sqrt(12.0) / 1.4;
        QVERIFY_THROWS_EXCEPTION(InputError, scene::checkResolution(s));
        try {
            scene::checkResolution(s);
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith("grid.cell_um: "), e.what());
            QVERIFY2(QString(e.what()).contains("1.4 cells"), e.what());
        }
        // Fine enough: no warning at all.
        s.cellUm = 1.0 / std::sqrt(12.0) / 12;
        QVERIFY(scene::resolutionWarnings(s).empty());
    }

    /// A periodic axis one cell thin is the domain's size, not the tiling: the message names the field
    /// to change.
    void thinGridNamesTheDomainSize() {
        using tiling::AxisBoundary;
        const std::array<AxisBoundary, 3> bc{AxisBoundary::Pml, AxisBoundary::Periodic,
                                             AxisBoundary::Periodic};
        try {
            tiling::TileGrid g({40, 1, 40}, {1, 1, 1}, bc, {8, 0, 0});
            QFAIL("a one-cell axis was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith("domain.size_um[1]: the grid has 1 cell along y"),
                     e.what());
        }
        // A grid thick enough but cut too thin is the tiling's.
        try {
            tiling::TileGrid g({40, 6, 40}, {1, 4, 1}, bc, {8, 0, 0});
            QFAIL("a one-cell tile was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith("run.tiles[1]"), e.what());
        }
    }

    void sceneFilesHaveASizeLimit() {
        QTemporaryDir dir;
        const std::string text = scene::sceneToJson(base());
        // Just over the limit: refused at once, before being parsed (whitespace would parse fine).
        const std::string big = (dir.path() + "/big.json").toStdString();
        {
            std::ofstream f(big, std::ios::binary);
            f << text;
            f << std::string(std::size_t(scene::kMaxSceneFileBytes) + 1 - text.size(), ' ');
        }
        try {
            scene::loadScene(big);
            QFAIL("a scene file over the limit was read");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("larger than 8 MiB"), e.what());
            QVERIFY2(QString(e.what()).contains("sidecar"), e.what());
        }
        // At the limit exactly: read.
        const std::string edge = (dir.path() + "/edge.json").toStdString();
        {
            std::ofstream f(edge, std::ios::binary);
            f << text << std::string(std::size_t(scene::kMaxSceneFileBytes) - text.size(), ' ');
        }
        QCOMPARE(scene::loadScene(edge).name, base().name);
        // A stream with no size (a pipe-like special file) is bounded too: /dev/zero never ends.
        QVERIFY_THROWS_EXCEPTION(InputError, scene::loadScene("/dev/zero"));
    }
};

QTEST_GUILESS_MAIN(tst_SceneLimits)
#include "tst_scene_limits.moc"
