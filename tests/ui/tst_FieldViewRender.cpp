#include <QComboBox>
#include <QSlider>
#include <QTabWidget>
#include <QtTest>

#include <cmath>

#include "RenderTestUtil.hpp"
#include "UiTestScenes.hpp"
#include "ui/DetectorPlot.hpp"
#include "ui/FieldSlice.hpp"
#include "ui/FieldView.hpp"
#include "ui/ResultsView.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/io/VtkHdfWriter.hpp"
#include "yee/scene/Rasterizer.hpp"
#include "yee/scene/SceneJson.hpp"

#include <QCheckBox>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorObserver.h>

using namespace yee;
using namespace yee::ui;

namespace {
/// A plane snapshot (z normal) holding a standing wave that changes sign; `phase` shifts it in time.
solver::Snapshot wave(int step, double phase) {
    solver::Snapshot s;
    s.detector = "field";
    s.component = "Ey";
    s.step = step;
    s.timeFs = step * 0.1;
    s.dims = {48, 36, 1};
    s.originUm = {-0.6, -0.45, 0.0};
    s.spacingUm = {0.025, 0.025, 0.025};
    s.data.resize(std::size_t(48 * 36));
    for (int j = 0; j < 36; ++j)
        for (int i = 0; i < 48; ++i)
            s.data[std::size_t(i + 48 * j)] = float(std::sin(0.25 * i + phase) * std::cos(0.15 * j));
    return s;
}

/// A run result with a flux time series and spectrum and two snapshot frames.
std::shared_ptr<run::RunResult> fakeRun() {
    auto r = std::make_shared<run::RunResult>();
    r->completed = true;
    r->status = "completed";
    r->steps = r->totalSteps = 20;
    r->dtFs = 0.1;
    r->gridCells = {24, 20, 16};
    solver::DetectorResult flux;
    flux.name = "out";
    flux.type = "flux";
    solver::NamedArray t{"time_fs", {20}, {}}, f{"flux", {20}, {}};
    for (int i = 0; i < 20; ++i) {
        t.data.push_back(0.1 * (i + 1));
        f.data.push_back(std::sin(0.5 * i));
    }
    flux.arrays = {t, f, solver::NamedArray{"wavelengths_um", {3}, {1.5, 1.55, 1.6}},
                   solver::NamedArray{"power", {3}, {0.2, 0.5, 0.3}}};
    r->detectors = {flux};
    r->snapshots = {wave(10, 0.0), wave(20, 1.0)};
    return r;
}
} // namespace

/// The field view draws a non-uniform coloured slice with a colour bar; the results view slices
/// snapshots from memory and from a results file (HDF5 + VTKHDF series) and plots detectors.
class tst_FieldViewRender : public QObject {
    Q_OBJECT
public:
    static void initMain() { VtkWidget::installDefaultFormat(); }

private slots:
    void sliceOfPlaneSnapshot() {
        const solver::Snapshot s = wave(0, 0.0);
        QCOMPARE(naturalNormal(s), 2);
        const FieldSlice f = sliceOf(s, 2, 0);
        QCOMPARE(f.nu, 48);
        QCOMPARE(f.nv, 36);
        QVERIFY(f.varies());
        QVERIFY(f.min < 0 && f.max > 0);
        const FieldSlice g = sliceOf(s, 0, 10); // a line through the plane
        QCOMPARE(g.nu, 36);
        QCOMPARE(g.nv, 1);
    }

    void drawsColouredSliceWithColourBar() {
        FieldView view;
        view.resize(640, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setSlice(sliceOf(wave(0, 0.0), 2, 0), "field Ey", "Ey");
        QTest::qWait(50);
        const QImage img = view.grabFramebuffer();
        img.save(test::artifactDir() + "/field_view.png");
        const int red = test::countHue(img, QColor(180, 4, 38), 12, 0.5);
        const int blue = test::countHue(img, QColor(59, 76, 192), 12, 0.4);
        qInfo("red %d, blue %d, distinct colours %d", red, blue, test::distinctColours(img, img.rect()));
        QVERIFY2(red > 2000 && blue > 2000, "the slice is not coloured on both sides of zero");
        QVERIFY(test::distinctColours(img, img.rect()) > 40);
        // The colour bar occupies the right part of the view.
        const QRect bar(int(0.86 * img.width()), int(0.15 * img.height()), int(0.06 * img.width()),
                        int(0.7 * img.height()));
        QVERIFY(test::distinctColours(img, bar) > 10);
        QCOMPARE(view.vtkIssueCount(), 0);
    }

    /// A locked colour scale keeps its range across frames: a frame at a tenth of the amplitude draws
    /// pale instead of rescaling to full colour, so frames can be compared.
    void lockedColourScaleComparesFrames() {
        FieldView view;
        view.resize(640, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        solver::Snapshot loud = wave(0, 0.0), quiet = wave(0, 0.0);
        for (float& v : quiet.data)
            v *= 0.1f;
        view.setSlice(sliceOf(loud, 2, 0), "loud", "Ey");
        const double r0 = view.range();
        view.setRangeLocked(true);
        view.setSlice(sliceOf(quiet, 2, 0), "quiet", "Ey");
        QCOMPARE(view.range(), r0);
        QTest::qWait(50);
        const QImage locked = view.grabFramebuffer();
        locked.save(test::artifactDir() + "/field_view_locked_quiet.png");
        const int redLocked = test::countHue(locked, QColor(180, 4, 38), 12, 0.5);
        view.setRangeLocked(false);
        view.setSlice(sliceOf(quiet, 2, 0), "quiet", "Ey");
        QVERIFY(std::abs(view.range() - 0.1 * r0) < 1e-3 * r0);
        QTest::qWait(50);
        const int redFree = test::countHue(view.grabFramebuffer(), QColor(180, 4, 38), 12, 0.5);
        qInfo("saturated red pixels: locked %d, rescaled %d", redLocked, redFree);
        QVERIFY(redFree > 2000);
        QVERIFY(redLocked < redFree / 10);
    }

    /// Slices carry axes in um along their edges and the structure's outline: over a z slice of the
    /// small scene's waveguide (y = +-0.15 um, the whole x range) the outline runs along both faces within
    /// a cell, draws dark pixels where the plain slice has none, and goes when unticked; the view pans and
    /// zooms but never rotates a slice.
    void outlineAndAxesOverSlice() {
        scene::Scene s = test::smallScene();
        s.objects.resize(1); // the strip alone (no sphere, no design region)
        s.designs.clear();
        s.objective.terms.clear();
        const std::vector<double> levels = outlineLevels(s);
        QCOMPARE(levels.size(), std::size_t(1));
        QCOMPARE(levels[0], 2.5); // between air (1) and core (4)
        ResultsView view;
        view.resize(900, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.outlineBox()->setChecked(false);
        view.setResults(ResultsData::fromRun(fakeRun(), s, {}));
        FieldView* f = view.fieldView();
        QCOMPARE(f->outlineSegments(), 0);
        QTest::qWait(50);
        const QImage plain = f->grabFramebuffer();
        view.outlineBox()->setChecked(true);
        QVERIFY(f->outlineSegments() > 20);
        const auto b = f->outlineBounds();
        qInfo("outline: %d segments, x %.4f..%.4f, y %.4f..%.4f um", f->outlineSegments(), b[0], b[1], b[2],
              b[3]);
        QVERIFY(std::abs(b[2] + 0.15) <= s.cellUm && std::abs(b[3] - 0.15) <= s.cellUm);
        QVERIFY(b[0] <= -0.6 + 0.03 && b[1] >= 0.575 - 1e-6); // the whole slice along x
        // Permittivity on the slice: the core's inside, air outside.
        const std::vector<float> eps = permittivityOn(s, scene::Rasterizer(s), f->slice());
        const FieldSlice& sl = f->slice();
        QCOMPARE(eps[std::size_t(24 + sl.nu * 18)], 4.0f); // (x, y) = (0, 0)
        QCOMPARE(eps[std::size_t(24 + sl.nu * 2)], 1.0f);  // y = -0.4 um
        QTest::qWait(50);
        const QImage outlined = f->grabFramebuffer();
        outlined.save(test::artifactDir() + "/field_view_outline.png");
        auto dark = [](const QImage& img) {
            int n = 0;
            for (int y = 0; y < img.height(); ++y)
                for (int x = 0; x < img.width(); ++x)
                    n += QColor(img.pixel(x, y)).valueF() < 0.2;
            return n;
        };
        qInfo("dark pixels: plain %d, outlined %d", dark(plain), dark(outlined));
        QVERIFY(dark(outlined) > dark(plain) + 300);
        // Axes in um with the slice's extent; a slice is panned and zoomed, never turned.
        QCOMPARE(f->axisTitle(0), QString::fromUtf8("x (\u00b5m)"));
        QCOMPARE(f->axisTitle(1), QString::fromUtf8("y (\u00b5m)"));
        QVERIFY(std::abs(f->axisRange(0).first + 0.6) < 1e-6 &&
                std::abs(f->axisRange(0).second - 0.575) < 1e-6);
        QVERIFY(std::abs(f->axisRange(1).first + 0.45) < 1e-6 &&
                std::abs(f->axisRange(1).second - 0.425) < 1e-6);
        QCOMPARE(f->tickLabels(0), QStringList({"-0.6", "-0.4", "-0.2", "0", "0.2", "0.4"}));
        QCOMPARE(f->tickLabels(1), QStringList({"-0.4", "-0.2", "0", "0.2", "0.4"}));
        QVERIFY(f->interactor()->GetInteractorStyle()->IsA("vtkInteractorStyleImage"));
        QCOMPARE(f->vtkIssueCount(), 0);
        // Scrubbing time keeps the outline (same plane).
        view.timeSlider()->setValue(0);
        QVERIFY(f->outlineSegments() > 20);
    }

    void resultsFromMemory() {
        ResultsView view;
        view.resize(900, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setResults(ResultsData::fromRun(fakeRun(), test::smallScene(), {}));
        QCOMPARE(view.componentBox()->currentText(), QString("Ey"));
        QCOMPARE(view.timeSlider()->maximum(), 1);
        QCOMPARE(view.planeBox()->currentIndex(), 2);
        QVERIFY(view.fieldView()->slice().varies());
        // Scrubbing time changes the slice.
        const auto before = view.fieldView()->slice().values;
        view.timeSlider()->setValue(0);
        QVERIFY(view.fieldView()->slice().values != before);
        // Detector plots: one time series, one spectrum.
        QCOMPARE(view.plot()->seriesCount(), 1);
        view.plot()->viewBox()->setCurrentIndex(1);
        QCOMPARE(view.plot()->seriesCount(), 1);
        view.tabs()->setCurrentIndex(1);
        QTest::qWait(50);
        view.grab().save(test::artifactDir() + "/results_detectors.png");
    }

    void resultsFromFile() {
        QTemporaryDir dir;
        const auto run = fakeRun();
        const scene::Scene s = test::smallScene();
        io::ResultsExtras extras;
        for (auto& [det, index] :
             io::writeSnapshotSeries(dir.filePath("snaps").toStdString(), run->snapshots))
            extras.snapshotSeries[det] =
                QDir(dir.path()).relativeFilePath(QString::fromStdString(index)).toStdString();
        const QString path = dir.filePath("r.h5");
        io::writeResults(path.toStdString(), s, scene::sceneToJson(s), *run, extras);

        ResultsView view;
        view.resize(900, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QString error;
        QVERIFY2(view.openFile(path, &error), qPrintable(error));
        QVERIFY(view.results().complete);
        QCOMPARE(int(view.results().snapshots.size()), 1);
        QCOMPARE(int(view.results().snapshots[0].frames.size()), 2);
        QCOMPARE(view.componentBox()->currentText(), QString("Ey"));
        QVERIFY(view.fieldView()->slice().varies());
        QTest::qWait(50);
        const QImage img = view.fieldView()->grabFramebuffer();
        img.save(test::artifactDir() + "/results_field_from_file.png");
        QVERIFY(test::distinctColours(img, img.rect()) > 40);
        QVERIFY(!view.openFile(dir.filePath("missing.h5"), &error));
        QVERIFY2(error.contains("missing.h5"), qPrintable(error));
    }
};

QTEST_MAIN(tst_FieldViewRender)
#include "tst_FieldViewRender.moc"
