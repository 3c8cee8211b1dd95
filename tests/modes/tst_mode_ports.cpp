/// Mode sources and mode monitors on a straight dielectric waveguide: the launched power is in the
/// injected mode, nothing leaks backwards, and a two-port scene gives |S21| = 1, |S11| = 0.
#include <QtTest>

#include <cmath>

#include "physics/SceneBuilder.hpp"
#include "yee/core/Error.hpp"
#include "yee/run/Run.hpp"
#include "yee/scene/DetectorKinds.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;

namespace {

const solver::NamedArray& arrayOf(const run::RunResult& r, const std::string& det, const std::string& name) {
    for (const auto& d : r.detectors)
        if (d.name == det)
            if (const auto* a = d.find(name))
                return *a;
    throw std::runtime_error("missing " + det + "/" + name);
}

/// A mode monitor (through its registered kind: no enum value, no Scene field of its own).
scene::Detector monitor(const std::string& name, double x, int dir, const std::vector<double>& wls) {
    scene::Detector d =
        testing::detector(name, scene::detectorType("mode_monitor"), {x, 0, 0}, {0, 1.9, 1.5});
    d.normal = 0;
    d.direction = dir;
    d.wavelengths = wls;
    return d;
}

/// A 0.5 x 0.3 um n = 2 core along x in vacuum; cell 0.05 um; mode source at x = -1.2 travelling +x.
scene::Scene waveguide() {
    scene::Scene s = testing::boxScene(80, 56, 48, 0.05, scene::BoundaryType::Pml, scene::BoundaryType::Pml,
                                       scene::BoundaryType::Pml, 8);
    s.materials.push_back(testing::material("core", 4.0));
    scene::Object core;
    core.shape = scene::Shape::Box;
    core.center = {0, 0, 0};
    core.size = {10, 0.5, 0.3};
    core.material = "core";
    s.objects.push_back(core);
    scene::Source src = testing::planeSource("port1", scene::SourceType::Mode, {-1.2, 0, 0}, {0, 1.9, 1.5}, 0,
                                             +1, {0, 0, 1}, 1.0, 0.3);
    s.sources.push_back(src);
    s.durationFs = 90;
    const std::vector<double> wls{0.95, 1.0, 1.05};
    s.detectors.push_back(monitor("back", -1.5, -1, wls));
    s.detectors.push_back(monitor("in", -0.6, +1, wls));
    s.detectors.push_back(monitor("out", 1.2, +1, wls));
    s.detectors.push_back(testing::flux("flux_back", {-1.5, 0, 0}, {0, 1.9, 1.5}, 0, -1, wls));
    s.detectors.push_back(testing::flux("flux_out", {1.2, 0, 0}, {0, 1.9, 1.5}, 0, +1, wls));
    return s;
}

} // namespace

class TestModePorts : public QObject {
    Q_OBJECT
private slots:
    void sceneKeysRoundTrip() {
        scene::Scene s = waveguide();
        s.detectors[1].params["modes"] = 2;
        const std::string text = scene::sceneToJson(s);
        QVERIFY(text.find("\"mode_monitor\"") != std::string::npos);
        QVERIFY(text.find("\"mode_index\"") != std::string::npos);
        const scene::Scene back = scene::parseScene(text);
        QCOMPARE(scene::sceneToJson(back), text);
        QCOMPARE(scene::detectorParam<int>(back.detectors[1], "modes"), 2);
        QCOMPARE(scene::detectorParam<int>(back.detectors[0], "modes"), 1);
        // Bad input names the field.
        auto err = [](const std::string& t) {
            try {
                scene::parseScene(t);
            } catch (const InputError& e) {
                return QString(e.what());
            }
            return QString();
        };
        std::string bad = text;
        bad.replace(bad.find("\"modes\": 2"), 10, "\"modes\": 0");
        QVERIFY2(err(bad).startsWith("detectors[1].modes: must be in [1, 32]"), qPrintable(err(bad)));
        scene::Scene pml = waveguide();
        pml.detectors[2].center[0] = 1.9;
        QVERIFY2(
            err(scene::sceneToJson(pml)).startsWith("detectors[2].center_um: the mode monitor reaches into"),
            qPrintable(err(scene::sceneToJson(pml))));
        scene::Scene far = waveguide();
        far.detectors[1].wavelengths = {1.0, 2.0};
        QVERIFY2(err(scene::sceneToJson(far))
                     .startsWith("detectors[1].wavelengths_um[1]: lies outside every source"),
                 qPrintable(err(scene::sceneToJson(far))));
        scene::Scene design = waveguide();
        scene::Design g;
        g.name = "d";
        g.center = {-1.2, 0, 0};
        g.size = {0.2, 0.4, 0.2};
        g.materials = {"vacuum", "core"};
        design.designs.push_back(g);
        QVERIFY2(err(scene::sceneToJson(design))
                     .startsWith("sources[0]: the mode source plane crosses design \"d\""),
                 qPrintable(err(scene::sceneToJson(design))));
        // A plane that cuts no core, refused before the run (the monitor's modes are solved at planning).
        scene::Scene empty = waveguide();
        empty.objects.clear();
        empty.sources[0].type = scene::SourceType::UniformPlane;
        empty.sources[0].polarization = {0, 0, 1};
        run::RunOptions eo = run::RunOptions::fromScene(empty);
        eo.maxSteps = 1;
        QString ee;
        try {
            run::run(empty, eo);
        } catch (const InputError& x) {
            ee = x.what();
        }
        QVERIFY2(ee.startsWith("detectors[0]: the mode monitor's plane cuts no waveguide core"),
                 qPrintable(ee));
        scene::Scene idx = waveguide();
        idx.sources[0].mode = 31;
        run::RunOptions o = run::RunOptions::fromScene(idx);
        o.maxSteps = 1;
        QString e;
        try {
            run::run(idx, o);
        } catch (const InputError& x) {
            e = x.what();
        }
        QVERIFY2(e.startsWith("sources[0].mode_index: the cross-section guides"), qPrintable(e));
    }

    /// Bad ports, refused before anything runs, naming the field.
    void badPorts() {
        auto runErr = [](const scene::Scene& s) {
            try {
                run::RunOptions o = run::RunOptions::fromScene(s);
                o.maxSteps = 1;
                run::run(s, o);
            } catch (const InputError& e) {
                return QString(e.what());
            }
            return QString();
        };
        // A mode source plane inside the x PML.
        scene::Scene pml = waveguide();
        pml.sources[0].center[0] = -1.85;
        QVERIFY2(runErr(pml).startsWith("sources[0].center_um: the source plane"), qPrintable(runErr(pml)));
        // A monitor asking for more modes than its plane guides.
        scene::Scene many = waveguide();
        many.detectors[1].params["modes"] = 32;
        QVERIFY2(runErr(many).startsWith("detectors[1].modes: the cross-section guides"),
                 qPrintable(runErr(many)));
        // The same port named twice; ports on different wavelengths.
        scene::Scene twice = waveguide();
        twice.detectors[1].params["port"] = std::string("p1");
        twice.detectors[2].params["port"] = std::string("p1");
        QVERIFY2(
            runErr(twice).startsWith("detectors[2].port: port \"p1\" is named by detector \"in\" already"),
            qPrintable(runErr(twice)));
        scene::Scene wls = waveguide();
        wls.detectors[1].params["port"] = std::string("p1");
        wls.detectors[2].params["port"] = std::string("p2");
        wls.detectors[2].wavelengths = {1.0};
        QVERIFY2(runErr(wls).startsWith("detectors[2].wavelengths_um: every port lists the same wavelengths"),
                 qPrintable(runErr(wls)));
        // A negative port PML.
        scene::Scene neg = waveguide();
        neg.detectors[1].params["port_pml_cells"] = -1;
        QVERIFY2(runErr(neg).startsWith("detectors[1].port_pml_cells: must be in [0, 64]"),
                 qPrintable(runErr(neg)));
    }

    void straightWaveguide() {
        const scene::Scene s = waveguide();
        run::RunOptions o = run::RunOptions::fromScene(s);
        o.precision = run::Precision::Float64;
        const run::RunResult r = run::run(s, o);
        QVERIFY(r.completed);
        const auto& fo = arrayOf(r, "flux_out", "power").data;
        const auto& fb = arrayOf(r, "flux_back", "power").data;
        const auto& po = arrayOf(r, "out", "power_plus").data;
        const auto& pi = arrayOf(r, "in", "power_plus").data;
        const auto& ri = arrayOf(r, "in", "power_minus").data;
        const auto& pb = arrayOf(r, "back", "power_plus").data;
        const auto& ne = arrayOf(r, "out", "neff").data;
        for (std::size_t w = 0; w < 3; ++w) {
            const double inMode = po[w] / fo[w], leak = fb[w] / fo[w], s21 = std::sqrt(po[w] / pi[w]),
                         s11 = std::sqrt(ri[w] / pi[w]);
            qInfo("lambda %zu: n_eff %.5f, mode fraction %.6f, backward flux / forward %.2e, backward mode "
                  "%.2e, "
                  "|S21| %.6f, |S11| %.2e",
                  w, ne[w], inMode, leak, pb[w] / po[w], s21, s11);
            if (w == 1) { // the centre wavelength: the mode is exact there
                QVERIFY(inMode > 0.99);
                QVERIFY(std::fabs(leak) < 1e-3);
                QVERIFY(std::fabs(s21 - 1) < 5e-3);
                QVERIFY(s11 < 1e-2);
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestModePorts)
#include "tst_mode_ports.moc"
