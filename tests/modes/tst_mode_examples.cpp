/// The example waveguide scenes (resources/scenes) with mode ports: the straight guide transmits the
/// injected mode whole and reflects nothing, the bend's S-parameters conserve power with its radiation.
#include <QtTest>

#include <cmath>

#include "yee/core/Error.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/io/Touchstone.hpp"
#include "yee/run/Run.hpp"
#include "yee/run/SParameters.hpp"
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
        const auto& out = arrayOf(r, "port2_monitor", "power_minus").data; // port 2 points into the guide
        const auto& flux = arrayOf(r, "out", "power").data;
        const auto& ne = arrayOf(r, "port2_monitor", "neff").data;
        const std::size_t M = std::size_t(arrayOf(r, "port1_monitor", "power_plus").shape[1]);
        const std::optional<run::SParameters> sp = run::sParameters(s, r);
        QVERIFY(sp);
        QCOMPARE(sp->ports, (std::vector<std::string>{"port1", "port2"}));
        QCOMPARE(sp->excited, 0);
        for (std::size_t w = 0; w < wl.size(); ++w) {
            const double t = out[w * M] / in[w * M], rf = back[w * M] / in[w * M];
            // |S_ij|^2 are the mode power ratios.
            QVERIFY(std::fabs(std::norm(sp->at(w, 1)) - t) < 1e-12 * t);
            QVERIFY(std::fabs(std::norm(sp->at(w, 0)) - rf) < 1e-12 * t);
            qInfo("%.3f um: S21 = %.5f %+.5fi, |S11| %.2e", wl[w], sp->at(w, 1).real(), sp->at(w, 1).imag(),
                  std::abs(sp->at(w, 0)));
            qInfo("%.3f um: n_eff %.5f, |S21|^2 %.6f, |S11|^2 %.2e, mode / flux at port 2 %.6f", wl[w],
                  ne[w * M], t, rf, out[w * M] / flux[w]);
            if (std::fabs(wl[w] - 1.55) < 1e-9) {
                QVERIFY2(t >= 0.99 && t < 1.01, qPrintable(QString::number(t)));
                QVERIFY2(rf <= 1e-3, qPrintable(QString::number(rf)));
                QVERIFY(std::fabs(std::abs(sp->at(w, 1)) - 1) < 5e-3);
                QVERIFY(std::abs(sp->at(w, 0)) < 0.03);
            }
        }
        // Written into the results file and as a Touchstone file (yee-run's outputs), read back.
        QTemporaryDir dir;
        const std::string h5 = dir.filePath("wg.h5").toStdString();
        io::ResultsExtras extras;
        extras.sParameters = sp;
        io::writeResults(h5, s, scene::sceneToJson(s), r, extras);
        const io::ResultsFile back2 = io::readResults(h5);
        QVERIFY(back2.sParameters);
        QCOMPARE(back2.sParameters->ports, sp->ports);
        QCOMPARE(back2.sParameters->excited, 0);
        QCOMPARE(back2.sParameters->wavelengthsUm, sp->wavelengthsUm);
        QVERIFY(back2.sParameters->s == sp->s);
        const std::string ts = io::touchstonePath(h5, 2);
        QCOMPARE(QString::fromStdString(ts), dir.filePath("wg.s2p"));
        io::writeTouchstone(ts, *sp, s.name);
        QFile f(QString::fromStdString(ts));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY(lines.contains("# HZ S RI R 50"));
        QStringList data;
        for (const QString& l : lines)
            if (!l.startsWith('!') && !l.startsWith('#'))
                data << l;
        QCOMPARE(data.size(), 3);
        // Increasing frequency: 1.6 um first; S11 S21 S12 S22 with column 2 unmeasured (0).
        const QStringList v = data[0].split(' ', Qt::SkipEmptyParts);
        QCOMPARE(v.size(), 9);
        QVERIFY(std::fabs(v[0].toDouble() - 299792458.0 / 1.6e-6) < 1);
        QVERIFY(std::fabs(v[3].toDouble() - sp->at(2, 1).real()) < 1e-11);
        QVERIFY(std::fabs(v[4].toDouble() - sp->at(2, 1).imag()) < 1e-11);
        QCOMPARE(v[5].toDouble(), 0.0);
        QCOMPARE(v[8].toDouble(), 0.0);
    }

    /// The straight guide is dispersive (n_eff falls from 2.52 to 2.41 over 1.5..1.6 um). Monitors re-solve
    /// their modes at each wavelength by default; with solve_each_wavelength false they use the centre
    /// wavelength's mode (one n_eff), and away from the centre the mode then holds less of the flux
    /// through its plane than the re-solved one does.
    void centreWavelengthModes() {
        scene::Scene s = example("mode_waveguide");
        for (scene::Detector& d : s.detectors)
            if (d.name == "port2_monitor")
                d.params["solve_each_wavelength"] = false;
        s.detectors.push_back(s.detectors[1]);
        s.detectors.back().name = "port2_each";
        s.detectors.back().params["solve_each_wavelength"] = true;
        s.detectors.back().params["port"] = std::string();
        const run::RunResult r = run::run(s, run::RunOptions::fromScene(s));
        const auto& neC = arrayOf(r, "port2_monitor", "neff").data;
        const auto& neE = arrayOf(r, "port2_each", "neff").data;
        const auto& pC = arrayOf(r, "port2_monitor", "power_minus").data;
        const auto& pE = arrayOf(r, "port2_each", "power_minus").data;
        const auto& flux = arrayOf(r, "out", "power").data;
        for (std::size_t w = 0; w < 3; ++w) {
            qInfo("%zu: n_eff centre %.5f, re-solved %.5f; mode / flux centre %.6f, re-solved %.6f", w,
                  neC[w], neE[w], pC[w] / flux[w], pE[w] / flux[w]);
            QCOMPARE(neC[w], neC[1]);
            if (w != 1) {
                QVERIFY(std::fabs(neE[w] - neC[w]) > 0.04);
                QVERIFY(std::fabs(1 - pE[w] / flux[w]) < std::fabs(1 - pC[w] / flux[w]));
            } else {
                QCOMPARE(neE[w], neC[w]);
                QCOMPARE(pE[w], pC[w]);
            }
        }
    }

    /// mode_bend.json: a sharp silicon bend reflects and radiates. Power conservation: |S11|^2 + |S21|^2 +
    /// radiated = 1, radiated being the net flux into the device through port 1's plane (flux_port1) less
    /// the transmitted mode power, i.e. the flux through port 1's plane equals incident minus reflected
    /// mode power, within 1 %; the mode power through port 2 is at most the total flux there.
    void bendSParameters() {
        const scene::Scene s = example("mode_bend");
        const run::RunResult r = run::run(s, run::RunOptions::fromScene(s));
        QVERIFY(r.completed);
        const std::optional<run::SParameters> sp = run::sParameters(s, r);
        QVERIFY(sp);
        const auto& in = arrayOf(r, "port1_monitor", "power_plus").data;
        const auto& f1 = arrayOf(r, "flux_port1", "power").data;
        const auto& f2 = arrayOf(r, "flux_port2", "power").data;
        for (std::size_t w = 0; w < sp->wavelengthsUm.size(); ++w) {
            const double s11 = std::norm(sp->at(w, 0)), s21 = std::norm(sp->at(w, 1));
            const double rad = f1[w] / in[w] - s21;
            const double sum = s11 + s21 + rad;
            qInfo("%.3f um: |S11|^2 %.4f, |S21|^2 %.4f, radiated %.4f, sum %.5f; flux at port 2 / incident "
                  "%.4f",
                  sp->wavelengthsUm[w], s11, s21, rad, sum, f2[w] / in[w]);
            QVERIFY2(std::fabs(sum - 1) < 0.01, qPrintable(QString::number(sum)));
            QVERIFY(s21 > 0.3 && s21 < 1);
            QVERIFY(s21 <= f2[w] / in[w] * 1.001);
            QVERIFY(rad > 0);
        }
    }
};

QTEST_APPLESS_MAIN(TestModeExamples)
#include "tst_mode_examples.moc"
