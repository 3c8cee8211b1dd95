/// Mode previews and mode / S-parameter plots (issue 12, studio): the preview solves the port with the
/// run's own request (n_eff equal to the backend's solve of modeSourceRequest; a monitor on the same
/// cross-section gives the source's n_eff; normal dispersion across the monitor's wavelengths; group
/// index from the solver), |E| peaks in the core and spans the port in um; the mode dock draws it off
/// the GUI thread with axes; mode monitors plot P+ / P- per mode, normalisable into a mode
/// transmission, and S-parameters |S_ij|^2 come from the results file as yee-run writes it.
#include <QAction>
#include <QComboBox>
#include <QSignalSpy>
#include <QtTest>

#include <cmath>
#include <complex>

#include "RenderTestUtil.hpp"
#include "ui/DetectorPlot.hpp"
#include "ui/FieldView.hpp"
#include "ui/MainWindow.hpp"
#include "ui/ModePanel.hpp"
#include "ui/ModePreview.hpp"
#include "ui/ResultsData.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/VtkWidget.hpp"
#include "yee/core/Error.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/modes/ModeCache.hpp"
#include "yee/scene/Rasterizer.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/solver/ModeSource.hpp"
#include "yee/solver/Plan.hpp"

using namespace yee;
using namespace yee::ui;

namespace {
QString example(const char* name) {
    return QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/%1.json").arg(QLatin1String(name));
}
scene::Scene waveguide() {
    return scene::loadScene(example("mode_waveguide").toStdString());
}
/// Index of detector `name` in `s`.
int detectorIndex(const scene::Scene& s, const char* name) {
    for (std::size_t i = 0; i < s.detectors.size(); ++i)
        if (s.detectors[i].name == name)
            return int(i);
    return -1;
}
/// Position (um) of the largest sample of `f`.
std::array<double, 2> peak(const FieldSlice& f) {
    std::size_t best = 0;
    for (std::size_t i = 0; i < f.values.size(); ++i)
        if (f.values[i] > f.values[best])
            best = i;
    const int iu = int(best % std::size_t(f.nu)), iv = int(best / std::size_t(f.nu));
    return {f.origin[std::size_t(f.u)] + iu * f.du, f.origin[std::size_t(f.v)] + iv * f.dv};
}
} // namespace

class tst_ModePreview : public QObject {
    Q_OBJECT
public:
    static void initMain() { VtkWidget::installDefaultFormat(); }

private slots:
    /// The source's preview is the run's solve: same request, same n_eff (bit for bit), a guided mode
    /// between the cladding's and the core's index, |E| peaking in the 0.5 x 0.22 um strip, the field
    /// spanning the 1.9 x 1.5 um port in um, and a group index above n_eff (a silicon wire, n_g ~ 4).
    void sourcePreviewIsTheRunsMode() {
        const scene::Scene s = waveguide();
        const ModePreview p = solveModePreview(s, {ItemKind::Source, 0}, 0, 0, true);
        auto plan = solver::makePlan(s, solver::PlanOptions{});
        const modes::ModeRequest q = solver::modeSourceRequest(*plan, 0);
        const modes::ModeSet direct = modes::solveModes(*plan->raster, q, "test");
        QCOMPARE(p.neff, direct.modes[0].neff);
        qInfo("mode source: n_eff %.6f, n_g %.4f, %d x %d cells, %.3f s", p.neff, p.groupIndex, p.cells[0],
              p.cells[1], p.seconds);
        QVERIFY(p.neff > std::sqrt(2.085) && p.neff < std::sqrt(12.11));
        QVERIFY(p.groupIndex > p.neff + 0.5 && p.groupIndex < 6.0);
        QCOMPARE(p.field.normal, 0);
        QCOMPARE(p.field.u, 1);
        QCOMPARE(p.field.v, 2);
        QCOMPARE(p.cells[0], 38); // 1.9 um / 0.05 um
        QCOMPARE(p.cells[1], 30); // 1.5 um / 0.05 um
        QVERIFY(std::abs(p.field.origin[1] + 0.95) < 1e-9 && std::abs(p.field.origin[2] + 0.75) < 1e-9);
        QVERIFY(std::abs(p.field.origin[0] + 1.2) < 0.5 * s.cellUm);
        const auto [py, pz] = peak(p.field);
        QVERIFY2(std::abs(py) <= 0.25 + s.cellUm && std::abs(pz) <= 0.11 + s.cellUm,
                 qPrintable(QString("peak at y %1, z %2").arg(py).arg(pz)));
        // Decayed at the port's edge: the corner is below a hundredth of the peak.
        QVERIFY(p.field.values.front() < 0.01 * p.field.max);
        QVERIFY(p.title.contains("port1") && p.title.contains(QString::fromUtf8("1.55 \u00b5m")));
    }

    /// A monitor on the same cross-section as the source (the strip is uniform along x) gives the
    /// source's n_eff at the source's wavelength, and n_eff falls with wavelength (normal dispersion).
    void monitorPreviewFollowsWavelength() {
        const scene::Scene s = waveguide();
        const ItemRef mon{ItemKind::Detector, detectorIndex(s, "port1_monitor")};
        QVERIFY(hasModes(s, mon));
        QVERIFY(!hasModes(s, {ItemKind::Detector, detectorIndex(s, "out")}));
        QCOMPARE(previewWavelengths(s, mon).size(), std::size_t(3));
        const double src = solveModePreview(s, {ItemKind::Source, 0}, 0, 0, false).neff;
        double n[3];
        for (std::size_t w = 0; w < 3; ++w)
            n[w] = solveModePreview(s, mon, 0, w, false).neff;
        qInfo("port1_monitor n_eff: %.6f (1.5 um), %.6f (1.55 um), %.6f (1.6 um); source %.6f", n[0], n[1],
              n[2], src);
        QVERIFY(std::abs(n[1] - src) <= 1e-9 * src);
        QVERIFY(n[0] > n[1] + 1e-3 && n[1] > n[2] + 1e-3);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, solveModePreview(s, mon, 1, 0, false)); // modes: 1
    }

    /// A port that cuts no core is refused with the run's message, naming the field.
    void portWithoutCoreRefused() {
        scene::Scene s = waveguide();
        s.objects[0].center[2] = 0.9; // the strip leaves the ports' cross-section
        s.objects[0].size[2] = 0.1;
        s.sources[0].size = {0, 0.5, 0.5};
        s.sources[0].portPml = 0;
        try {
            solveModePreview(s, {ItemKind::Source, 0}, 0, 0, false);
            QFAIL("a port without a core was solved");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("sources[0]"), e.what());
        }
    }

    /// The mode dock: selecting the mode source solves off the GUI thread and shows |E| (dark red in the
    /// core, white at the port's edges) with axes in um, n_eff and the group index; the Insert menu
    /// offers the schema's mode source and mode monitor.
    void modeDockShowsTheMode() {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.findChild<QAction*>(QStringLiteral("insertSource_mode")));
        QVERIFY(w.findChild<QAction*>(QStringLiteral("insertDetector_mode_monitor")));
        QVERIFY(w.openScene(example("mode_waveguide")));
        ModePanel* panel = w.modePanel();
        QSignalSpy shown(panel, &ModePanel::previewShown);
        w.document()->setCurrentItem({ItemKind::Source, 0});
        QVERIFY(panel->isVisible()); // the dock was raised
        QVERIFY(panel->busy());      // solving in the background: the GUI thread goes on
        QVERIFY(shown.wait(120000));
        QVERIFY(panel->preview());
        const QString info = panel->infoText();
        QVERIFY2(info.contains(QStringLiteral("n_eff = %1").arg(panel->preview()->neff, 0, 'f', 6)),
                 qPrintable(info));
        QVERIFY2(info.contains("group index n_g = "), qPrintable(info));
        FieldView* view = panel->fieldView();
        QCOMPARE(view->axisTitle(0), QString::fromUtf8("y (\u00b5m)"));
        QCOMPARE(view->axisTitle(1), QString::fromUtf8("z (\u00b5m)"));
        QVERIFY(std::abs(view->axisRange(0).first + 0.95) < 1e-6 &&
                std::abs(view->axisRange(0).second - 0.95) < 1e-6);
        // Round ticks inside the port, 0.2 um apart: y -0.8 .. 0.8, z -0.6 .. 0.6.
        QCOMPARE(view->tickLabels(0),
                 QStringList({"-0.8", "-0.6", "-0.4", "-0.2", "0", "0.2", "0.4", "0.6", "0.8"}));
        QCOMPARE(view->tickLabels(1), QStringList({"-0.6", "-0.4", "-0.2", "0", "0.2", "0.4", "0.6"}));
        QTest::qWait(100);
        const QImage img = view->grabFramebuffer();
        img.save(test::artifactDir() + "/mode_dock.png");
        w.grab().save(test::artifactDir() + "/mode_dock_window.png");
        const int red = test::countHue(img, QColor(180, 4, 38), 12, 0.6);
        qInfo("mode view: %d saturated red pixels of %lld", red, qint64(img.width()) * img.height());
        QVERIFY(red > 30);
        // A monitor: its wavelengths to choose from, the middle one first.
        QSignalSpy again(panel, &ModePanel::previewShown);
        w.document()->setCurrentItem(
            {ItemKind::Detector, detectorIndex(w.document()->scene(), "port2_monitor")});
        QCOMPARE(panel->wavelengthBox()->count(), 3);
        QCOMPARE(panel->wavelengthBox()->currentIndex(), 1);
        QVERIFY(again.wait(120000));
        QVERIFY(panel->preview()->title.contains("port2_monitor"));
    }

    /// Mode monitors plot P+ and P- of each mode against wavelength, and normalised by another
    /// monitor's forward power they give the mode transmission; S-parameters read back from a results
    /// file as |S_ij|^2 per port, with units, exported as CSV.
    void modeAndSParameterPlots() {
        solver::DetectorResult in, out;
        in.name = "port1_monitor";
        out.name = "port2_monitor";
        in.type = out.type = "mode_monitor";
        const std::vector<double> wl{1.5, 1.55, 1.6};
        for (auto* d : {&in, &out}) {
            d->arrays.push_back(solver::NamedArray{"wavelengths_um", {3}, wl});
            d->arrays.push_back(solver::NamedArray{"neff", {3, 2}, {2.5, 1.9, 2.45, 1.85, 2.4, 1.8}});
        }
        in.arrays.push_back(solver::NamedArray{"power_plus", {3, 2}, {2.0, 0.1, 4.0, 0.2, 2.0, 0.1}});
        in.arrays.push_back(solver::NamedArray{"power_minus", {3, 2}, {1e-4, 0, 2e-4, 0, 1e-4, 0}});
        out.arrays.push_back(solver::NamedArray{"power_plus", {3, 2}, {0, 0, 0, 0, 0, 0}});
        out.arrays.push_back(solver::NamedArray{"power_minus", {3, 2}, {1.9, 0.05, 3.9, 0.1, 1.98, 0.04}});
        run::SParameters sp;
        sp.ports = {"port1", "port2"};
        sp.detectors = {"port1_monitor", "port2_monitor"};
        sp.excited = 0;
        sp.wavelengthsUm = wl;
        sp.s = {{0.01, 0.0}, {0.9, 0.3}, {0.0, 0.02}, {-0.7, 0.7}, {0.01, 0.01}, {0.99, 0.0}};

        // Through a results file, as yee-run writes it.
        QTemporaryDir dir;
        run::RunResult r;
        r.completed = true;
        r.status = "completed";
        r.detectors = {in, out};
        io::ResultsExtras extras;
        extras.sParameters = sp;
        const scene::Scene s = waveguide();
        io::writeResults(dir.filePath("r.h5").toStdString(), s, scene::sceneToJson(s), r, extras);
        const ResultsData data = ResultsData::load(dir.filePath("r.h5"));
        QVERIFY(data.sParameters);

        DetectorPlot plot;
        plot.resize(700, 450);
        plot.show();
        plot.setDetectors(data.detectors, data.sParameters);
        QCOMPARE(plot.detectorBox()->count(), 3);
        // port2_monitor: a mode monitor has spectra only, so the plot opens on them.
        plot.detectorBox()->setCurrentIndex(1);
        QCOMPARE(plot.viewBox()->currentIndex(), 1);
        QCOMPARE(plot.seriesCount(), 4); // P+ and P-, two modes each
        QCOMPARE(plot.xTitle(), QString::fromUtf8("wavelength (\u00b5m)"));
        QVERIFY2(plot.yTitle().contains("source units"), qPrintable(plot.yTitle()));
        QCOMPARE(plot.seriesName(2), QString("power_minus (mode 0)"));
        QCOMPARE(plot.seriesPoints(2)[1].y(), 3.9);
        // Mode transmission: P-_0 of port 2 over P+_0 of port 1.
        plot.referenceBox()->setCurrentIndex(plot.referenceBox()->findData("port1_monitor"));
        QCOMPARE(plot.seriesCount(), 4);
        QVERIFY(std::abs(plot.seriesPoints(2)[1].y() - 3.9 / 4.0) < 1e-12);
        QVERIFY(std::abs(plot.seriesPoints(2)[0].y() - 1.9 / 2.0) < 1e-12);
        QVERIFY2(plot.yTitle().contains("transmission"), qPrintable(plot.yTitle()));
        plot.referenceBox()->setCurrentIndex(0);
        // S-parameters.
        plot.detectorBox()->setCurrentIndex(2);
        QCOMPARE(plot.seriesCount(), 2);
        QVERIFY(plot.seriesName(1).startsWith("|S21|^2"));
        for (int w = 0; w < 3; ++w) {
            QCOMPARE(plot.seriesPoints(0)[w].y(), std::norm(sp.at(std::size_t(w), 0)));
            QCOMPARE(plot.seriesPoints(1)[w].y(), std::norm(sp.at(std::size_t(w), 1)));
        }
        QCOMPARE(plot.yTitle(), QString::fromUtf8("|S_ij|\u00b2 (power ratio, 1)"));
        QVERIFY(plot.csv().contains(QString::number(std::norm(sp.at(1, 1)), 'g', 17)));
        QString error;
        QVERIFY2(plot.exportTo(dir.filePath("s.png"), &error), qPrintable(error));
        QVERIFY2(plot.exportTo(dir.filePath("s.svg"), &error), qPrintable(error));
        QTest::qWait(100); // let the chart lay out its axes before the artifact is grabbed
        plot.grab().save(test::artifactDir() + "/s_parameters_plot.png");
    }
};

QTEST_MAIN(tst_ModePreview)
#include "tst_ModePreview.moc"
