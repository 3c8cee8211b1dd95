/// Minimum length scale (opt/LengthScale.hpp): the geometric constraints' gradients equal central
/// finite differences; a feature narrower than the minimum length violates them and wide features do
/// not; min_length_um sets the filter radius; bad settings are refused naming the field; MMA with the
/// constraints ends on a design that meets them.
#include <QtTest>

#include <cmath>
#include <random>

#include "yee/core/Error.hpp"
#include "yee/opt/LengthScale.hpp"
#include "yee/opt/Optimize.hpp"
#include "yee/scene/DesignMap.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;

namespace {

/// A 2 um x 2 um design of 0.05 um voxels (40 x 40 x 1) with optimization keys `opt`.
std::string planarText(const std::string& opt, const std::string& designExtra = "") {
    return R"({
  "format": "yee-scene", "version": 1, "name": "length scale",
  "grid": {"cell_um": 0.05, "courant": 0.99},
  "domain": {"center_um": [0, 0, 0], "size_um": [3.0, 3.0, 0.05]},
  "time": {"duration_fs": 1},
  "boundaries": {"x": {"type": "pml", "cells": 5}, "y": {"type": "pml", "cells": 5}, "z": {"type": "periodic"}},
  "materials": {"air": {"eps": 1.0}, "si": {"eps": 12.0}},
  "sources": [{"name": "d", "type": "point_dipole", "center_um": [1.2, 1.2, 0], "polarization": "z",
               "profile": {"type": "gaussian_pulse", "wavelength_um": 1.55, "bandwidth_um": 0.3}}],
  "designs": [{"name": "dev", "center_um": [0, 0, 0], "size_um": [2.0, 2.0, 0.05], "materials": ["air", "si"])" +
           designExtra + R"(}],
  "optimization": {)" +
           opt + "}\n}";
}

scene::Scene planar(double minLength = 0.2) {
    return scene::parseScene(planarText("\"min_length_um\": " + std::to_string(minLength)));
}

/// Latent values 1 inside bars of `width` voxels every `period` voxels along x, 0 elsewhere.
std::vector<double> bars(const scene::Scene& s, int width, int period) {
    const auto n = s.designVoxels(0);
    std::vector<double> x(s.designLatentSize(0));
    for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i)
            x[std::size_t(i + n[0] * j)] = (i % period) < width ? 1.0 : 0.0;
    return x;
}

} // namespace

class tst_length_scale : public QObject {
    Q_OBJECT
private slots:
    void filterRadiusFollowsMinLength();
    void gradientsMatchFiniteDifferences();
    void narrowFeaturesViolate();
    void refusesBadSettings_data();
    void refusesBadSettings();
    void mmaMeetsTheConstraints();
};

void tst_length_scale::filterRadiusFollowsMinLength() {
    const scene::Scene s = planar(0.2);
    QCOMPARE(s.designFilterRadius(0), 0.2);
    QVERIFY(scene::DesignMap(s, 0).filtered());
    // Its own (larger) radius wins; the scene round-trips with the new keys.
    const scene::Scene t =
        scene::parseScene(planarText("\"min_length_um\": 0.2", ", \"filter_radius_um\": 0.3"));
    QCOMPARE(t.designFilterRadius(0), 0.3);
    const scene::Scene back = scene::parseScene(scene::sceneToJson(s));
    QCOMPARE(back.optimization.minLengthUm, 0.2);
    QCOMPARE(scene::sceneHash(back), scene::sceneHash(s));
}

void tst_length_scale::gradientsMatchFiniteDifferences() {
    const scene::Scene s = planar(0.2);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> x(s.designLatentSize(0));
    for (auto& v : x)
        v = u(rng);
    for (const double beta : {0.0, 8.0}) {
        const auto g = opt::lengthScaleConstraints(s, 0, x, beta);
        QVERIFY(g.solid > 0 && g.voids > 0);
        double worst = 0;
        for (const std::size_t q :
             {std::size_t(0), std::size_t(41), std::size_t(333), std::size_t(820), x.size() - 1}) {
            const double h = 1e-6;
            auto xp = x, xm = x;
            xp[q] += h;
            xm[q] -= h;
            const auto p = opt::lengthScaleConstraints(s, 0, xp, beta);
            const auto m = opt::lengthScaleConstraints(s, 0, xm, beta);
            const double fs = (p.solid - m.solid) / (2 * h), fv = (p.voids - m.voids) / (2 * h);
            const double scale = std::max({std::abs(fs), std::abs(fv), 1e-9});
            worst = std::max({worst, std::abs(fs - g.dSolid[q]) / scale, std::abs(fv - g.dVoid[q]) / scale});
        }
        qInfo("beta %g: g_s %.3e, g_v %.3e, worst relative gradient error %.2e", beta, g.solid, g.voids,
              worst);
        QVERIFY(worst < 1e-5);
    }
}

void tst_length_scale::narrowFeaturesViolate() {
    const scene::Scene s = planar(0.2); // R = 4 voxels
    const double beta = 64;
    // Bars of width w voxels with gaps of 24 - w: b = R = 4 voxels. Features of 3 voxels that survive
    // the projection violate the constraints; 4 voxels (= b) and wider meet them.
    auto at = [&](int w) { return opt::lengthScaleConstraints(s, 0, bars(s, w, 24), beta); };
    const auto wide = at(12), solid3 = at(3), solid4 = at(4), gap3 = at(21), gap4 = at(20);
    qInfo("g_s: width 12 %.2e, 4 %.2e, 3 %.2e; g_v: gap 12 %.2e, 4 %.2e, 3 %.2e", wide.solid, solid4.solid,
          solid3.solid, wide.voids, gap4.voids, gap3.voids);
    QVERIFY(wide.solid < 1e-7 && wide.voids < 1e-7);
    QVERIFY(solid4.solid < 1e-6 && gap4.voids < 1e-6);
    QVERIFY(solid3.solid > 1e-4);
    QVERIFY(gap3.voids > 1e-4);
}

void tst_length_scale::refusesBadSettings_data() {
    QTest::addColumn<QString>("opt");
    QTest::addColumn<QString>("design");
    QTest::addColumn<QString>("field");
    QTest::newRow("constraints without length") << "\"length_constraints\": true"
                                                << ""
                                                << "optimization.length_constraints";
    QTest::newRow("radius below length") << "\"min_length_um\": 0.2"
                                         << ", \"filter_radius_um\": 0.1"
                                         << "designs[0].filter_radius_um";
    QTest::newRow("length below 2 voxels") << "\"min_length_um\": 0.06"
                                           << ""
                                           << "optimization.min_length_um";
    QTest::newRow("negative length") << "\"min_length_um\": -1"
                                     << ""
                                     << "optimization.min_length_um";
    QTest::newRow("adam with constraints")
        << "\"optimizer\": \"adam\", \"min_length_um\": 0.2, \"length_constraints\": true"
        << ""
        << "optimization.length_constraints";
}

void tst_length_scale::refusesBadSettings() {
    QFETCH(QString, opt);
    QFETCH(QString, design);
    QFETCH(QString, field);
    try {
        scene::parseScene(planarText(opt.toStdString(), design.toStdString()));
        QFAIL("accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).startsWith(field), e.what());
    }
}

void tst_length_scale::mmaMeetsTheConstraints() {
    // The anti-reflection example with a minimum length of 3 voxels and the constraints on.
    QFile f(YEE_SOURCE_DIR "/resources/scenes/ar_coating_opt.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    std::string t = f.readAll().toStdString();
    const std::string key = "\"optimization\": {";
    t.replace(t.find(key), key.size(),
              key + "\"min_length_um\": 0.15, \"length_constraints\": true, \"length_tolerance\": 1e-5, "
                    "\"beta_factor\": 2, \"beta_every\": 6, \"beta_max\": 16, ");
    const std::string design = "\"materials\": [\"air\", \"core\"]";
    t.replace(t.find(design), design.size(), design + ", \"projection\": {\"beta\": 8}");
    scene::Scene s = scene::parseScene(t);
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.tiles = {1, 1, 1};
    o.devices = 1;
    o.threadsPerDevice = 1;
    opt::OptOptions oo;
    oo.maxEvaluations = 18;
    const opt::OptResult r = opt::optimize(s, o, oo);
    QVERIFY(!r.history.empty());
    // Stages: beta 8, then 16 (final: the constraints apply from here), then 16 again. The grey start
    // reflects little (an intermediate index is a fine coating); a binary design that meets the minimum
    // length reflects more, so the test asks that the constraints are met and that the last stage
    // improves the merit while keeping them.
    QCOMPARE(r.history.size(), std::size_t(18));
    const auto& best = r.history[std::size_t(r.best)];
    const auto& lastStart = r.history[12];
    QCOMPARE(best.values.size(), std::size_t(3)); // merit, solid, void
    qInfo("stage %d: merit %.4e -> %.4e; length functions %.2e %.2e -> %.2e %.2e (bound 1e-5)", best.stage,
          lastStart.merit, best.merit, lastStart.values[1], lastStart.values[2], best.values[1],
          best.values[2]);
    QCOMPARE(best.stage, 2);
    QVERIFY(best.values[1] <= 1e-5 * (1 + 1e-6));
    QVERIFY(best.values[2] <= 1e-5 * (1 + 1e-6));
    QVERIFY(best.merit < 0.9 * lastStart.merit);
    // The start violated them by three orders of magnitude.
    QVERIFY(r.history.front().values[1] > 1e-2);
}

QTEST_MAIN(tst_length_scale)
#include "tst_length_scale.moc"
