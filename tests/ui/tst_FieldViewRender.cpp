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
#include <QFileDialog>
#include <QPushButton>
#include <QRegularExpression>
#include <QLabel>
#include <QWheelEvent>

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
        // The map: cool to warm through grey (Moreland's diverging map), saturating beyond the range.
        QCOMPARE(QColor(view.colourOf(-view.range())), QColor(59, 76, 192));
        QCOMPARE(QColor(view.colourOf(0.0)), QColor(221, 221, 221));
        QCOMPARE(QColor(view.colourOf(view.range())), QColor(180, 4, 38));
        QCOMPARE(view.colourOf(10 * view.range()), view.colourOf(view.range()));
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
        // Scrubbing time keeps the outline (same plane).
        view.timeSlider()->setValue(0);
        QVERIFY(f->outlineSegments() > 20);
    }

    /// A boundary between two materials is one line even when another material's permittivity lies
    /// between theirs: quick_box's titania bead (eps 6.25) in air (1), with glass (2.25) in the scene,
    /// is outlined by one ring (contours of the averaged permittivity at the midpoints 1.625 and 4.25
    /// drew two, a cell apart), of the bead's radius; the glass slab below the plane has no line.
    void outlineIsOneLinePerBoundary() {
        const scene::Scene s = scene::loadScene(YEE_SOURCE_DIR "/resources/scenes/quick_box.json");
        solver::Snapshot snap;
        snap.detector = "slice";
        snap.component = "Ez";
        snap.dims = {40, 40, 1};
        snap.originUm = {-0.975, -0.975, 0.05}; // through the bead's centre (0.2, 0, 0.05), r = 0.25
        snap.spacingUm = {0.05, 0.05, 0.05};
        snap.data.resize(1600);
        for (int k = 0; k < 1600; ++k)
            snap.data[std::size_t(k)] = float(std::sin(0.1 * k));
        auto r = fakeRun();
        r->snapshots = {snap};
        ResultsView view;
        view.resize(900, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setResults(ResultsData::fromRun(r, s, {}));
        FieldView* f = view.fieldView();
        QCOMPARE(f->slice().nu, 40);
        const QList<QLineF> lines(f->outlineLines().begin(), f->outlineLines().end());
        // Crossings of the line y = 0.0123 um through the bead (x in [-0.2, 0.6]).
        int crossings = 0;
        double left = 1e9, right = -1e9, rmin = 1e9, rmax = 0;
        for (const QLineF& l : lines) {
            rmin = std::min({rmin, std::hypot(l.x1() - 0.2, l.y1()), std::hypot(l.x2() - 0.2, l.y2())});
            rmax = std::max({rmax, std::hypot(l.x1() - 0.2, l.y1()), std::hypot(l.x2() - 0.2, l.y2())});
            const double y0 = l.y1() - 0.0123, y1 = l.y2() - 0.0123;
            if (y0 * y1 < 0 && l.x1() > -0.2 && l.x1() < 0.6) {
                ++crossings;
                const double x = l.x1() + (l.x2() - l.x1()) * y0 / (y0 - y1);
                left = std::min(left, x);
                right = std::max(right, x);
            }
        }
        qInfo("%d segments, %d crossings of y = 0.0123 at x = %.3f and %.3f, radius %.3f..%.3f um",
              int(lines.size()), crossings, left, right, rmin, rmax);
        QCOMPARE(crossings, 2);
        QVERIFY(std::abs(left - (0.2 - 0.25)) < 0.03 && std::abs(right - (0.2 + 0.25)) < 0.03);
        QVERIFY(rmin > 0.25 - 0.035 && rmax < 0.25 + 0.035); // only the ring: nothing of the slab
        QTest::qWait(50);
        f->grabFramebuffer().save(test::artifactDir() + "/field_view_bead_outline.png");
    }

    /// The wheel zooms about the cursor (the point under it stays put), a middle-button drag pans, the
    /// ticks follow what is shown, and a double click fits the slice again; a new frame of the same plane
    /// keeps the zoom (scrubbing time), another plane fits.
    void zoomAndPan() {
        FieldView view;
        view.resize(640, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setSlice(sliceOf(wave(0, 0.0), 2, 0), "field Ey", "Ey");
        const auto x0 = view.visibleRange(0), y0 = view.visibleRange(1);
        QVERIFY(x0.first < -0.6 && x0.second > 0.575); // fitted: the whole slice with a margin
        QCOMPARE(view.tickLabels(0), QStringList({"-0.6", "-0.4", "-0.2", "0", "0.2", "0.4"}));
        // Four wheel notches in over the plot's centre-left.
        const QPointF at(200, 180);
        auto worldAt = [&](const QPointF& p) {
            const auto x = view.visibleRange(0), y = view.visibleRange(1);
            // plot area: 80 px left, 26 px top, 92 px right, 58 px bottom (FieldView's margins)
            const double w = view.width() - 80 - 92, h = view.height() - 26 - 58;
            return QPointF(x.first + (p.x() - 80) / w * (x.second - x.first),
                           y.second - (p.y() - 26) / h * (y.second - y.first));
        };
        const QPointF before = worldAt(at);
        QWheelEvent wheel(at, view.mapToGlobal(at), QPoint(), QPoint(0, 480), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(&view, &wheel);
        QVERIFY(std::abs(view.zoom() - std::pow(1.2, 4)) < 1e-9);
        const auto x1 = view.visibleRange(0);
        QVERIFY(std::abs((x1.second - x1.first) * view.zoom() - (x0.second - x0.first)) < 1e-9);
        const QPointF after = worldAt(at);
        QVERIFY(std::abs(after.x() - before.x()) < 1e-9 && std::abs(after.y() - before.y()) < 1e-9);
        QVERIFY(view.tickLabels(0).size() >= 2);
        QVERIFY(view.tickLabels(0) != QStringList({"-0.6", "-0.4", "-0.2", "0", "0.2", "0.4"}));
        // A middle-button drag 100 px to the right moves the view 100 px worth of µm to the left.
        const double umPerPx = (x1.second - x1.first) / (view.width() - 80 - 92);
        QTest::mousePress(&view, Qt::MiddleButton, {}, QPoint(300, 200));
        QMouseEvent move(QEvent::MouseMove, QPointF(400, 200), view.mapToGlobal(QPointF(400, 200)),
                         Qt::NoButton, Qt::MiddleButton, Qt::NoModifier);
        QApplication::sendEvent(&view, &move);
        QTest::mouseRelease(&view, Qt::MiddleButton, {}, QPoint(400, 200));
        const auto x2 = view.visibleRange(0);
        QVERIFY(std::abs(x2.first - (x1.first - 100 * umPerPx)) < 1e-9);
        QTest::qWait(50);
        view.grabFramebuffer().save(test::artifactDir() + "/field_view_zoomed.png");
        // The next frame of the same plane keeps the view; a double click fits again.
        view.setSlice(sliceOf(wave(10, 1.0), 2, 0), "field Ey", "Ey");
        QCOMPARE(view.visibleRange(0), x2);
        QTest::mouseDClick(&view, Qt::LeftButton, {}, QPoint(300, 200));
        QCOMPARE(view.zoom(), 1.0);
        QCOMPARE(view.visibleRange(0), x0);
        QCOMPARE(view.visibleRange(1), y0);
        view.zoomBy(3, QPointF(300, 200));
        view.setSlice(sliceOf(wave(0, 0.0), 0, 3), "a line", "Ey"); // another plane: fitted
        QCOMPARE(view.zoom(), 1.0);
    }

    /// A slice exports as CSV (every sample's x, y, z in µm and its value, a float to the bit), as SVG (the
    /// slice's very pixels embedded, the outline's segments, the ticks drawn) and as PNG (the view drawn);
    /// an unknown extension, a folder that does not exist or an empty view give one line naming the file.
    void exportSliceFormats() {
        FieldView view;
        view.resize(640, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTemporaryDir dir;
        QString error;
        QVERIFY(!view.exportTo(dir.filePath("empty.csv"), &error));
        QVERIFY2(error.contains("empty.csv") && error.contains("no slice"), qPrintable(error));
        const FieldSlice slice = sliceOf(wave(0, 0.0), 2, 0);
        view.setSlice(slice, "field Ey", "Ey");
        // An outline: the left half of the samples (a vertical line through the slice).
        std::vector<float> half(slice.values.size());
        for (int j = 0; j < slice.nv; ++j)
            for (int i = 0; i < slice.nu; ++i)
                half[std::size_t(i + slice.nu * j)] = i < slice.nu / 2 ? 1.0f : 0.0f;
        view.setOutlineFields({half});
        QVERIFY(view.outlineSegments() > 0);

        QVERIFY2(view.exportTo(dir.filePath("slice.csv"), &error), qPrintable(error));
        QFile csv(dir.filePath("slice.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + slice.nu * slice.nv);
        QCOMPARE(lines[0], QString::fromUtf8("\"x (\u00b5m)\",\"y (\u00b5m)\",\"z (\u00b5m)\",\"Ey\""));
        for (int k = 0; k < slice.nu * slice.nv; ++k) {
            const QStringList c = lines[k + 1].split(',');
            QCOMPARE(c.size(), 4);
            const int iu = k % slice.nu, iv = k / slice.nu;
            QVERIFY(std::abs(c[0].toDouble() - (-0.6 + 0.025 * iu)) < 1e-12);
            QVERIFY(std::abs(c[1].toDouble() - (-0.45 + 0.025 * iv)) < 1e-12);
            QCOMPARE(c[2].toDouble(), 0.0);
            QCOMPARE(c[3].toFloat(), slice.values[std::size_t(k)]); // the float itself
        }

        QVERIFY2(view.exportTo(dir.filePath("slice.SVG"), &error), qPrintable(error));
        QFile svgFile(dir.filePath("slice.SVG"));
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        const QString svg = QString::fromUtf8(svgFile.readAll());
        QVERIFY(svg.startsWith("<?xml") && svg.trimmed().endsWith("</svg>"));
        QFile::remove(test::artifactDir() + "/field_view_export.svg");
        QVERIFY(QFile::copy(dir.filePath("slice.SVG"), test::artifactDir() + "/field_view_export.svg"));
        // The first embedded image is the slice, one pixel per sample with the view's colours.
        const QRegularExpression uri("href=\"data:image/png;base64,([A-Za-z0-9+/=]+)\"");
        auto m = uri.match(svg);
        QVERIFY(m.hasMatch());
        const QImage embedded = QImage::fromData(QByteArray::fromBase64(m.captured(1).toLatin1()), "PNG");
        QCOMPARE(embedded.size(), QSize(slice.nu, slice.nv));
        for (int iv = 0; iv < slice.nv; ++iv)
            for (int iu = 0; iu < slice.nu; ++iu)
                QCOMPARE(QColor(embedded.pixel(iu, slice.nv - 1 - iv)).rgb(),
                         QColor(view.colourOf(slice.values[std::size_t(iu + slice.nu * iv)])).rgb());
        // The outline as one path of as many segments as drawn; every tick label as text.
        const QRegularExpression path("<path fill=\"none\"[^>]* d=\"([^\"]*)\"");
        m = path.match(svg);
        QVERIFY(m.hasMatch());
        QCOMPARE(int(m.captured(1).count('M')), view.outlineSegments());
        for (int which = 0; which < 2; ++which) {
            QVERIFY(view.tickLabels(which).size() >= 3);
            for (const QString& t : view.tickLabels(which))
                QVERIFY2(svg.contains(">" + t + "</text>"), qPrintable(t));
        }
        QVERIFY(svg.contains(">Ey</text>") && svg.contains(">field Ey</text>"));
        QVERIFY(svg.contains(QString::fromUtf8(">x (\u00b5m)</text>")));

        QVERIFY2(view.exportTo(dir.filePath("slice.png"), &error), qPrintable(error));
        const QImage png(dir.filePath("slice.png"));
        const QImage shown = view.grabFramebuffer();
        QCOMPARE(png.size(), shown.size());
        QCOMPARE(png.convertToFormat(QImage::Format_RGB32), shown.convertToFormat(QImage::Format_RGB32));

        QVERIFY(!view.exportTo(dir.filePath("slice.xyz"), &error));
        QVERIFY2(error.contains("slice.xyz") && error.contains("unknown format"), qPrintable(error));
        QVERIFY(!QFile::exists(dir.filePath("slice.xyz")));
        QVERIFY(!view.exportTo(dir.filePath("no/such/folder/slice.csv"), &error));
        QVERIFY2(error.contains("no/such/folder/slice.csv") && error.contains("cannot be written"),
                 qPrintable(error));
        QVERIFY(!error.contains('\n'));
    }

    /// The colour bar's quantity sits above its top label with a gap and clear of the title, at a
    /// roomy and at a cramped size.
    void colourBarTitleClearOfTicks() {
        for (const QSize size : {QSize(640, 420), QSize(300, 180)}) {
            FieldView view;
            view.resize(size);
            view.setSlice(sliceOf(wave(0, 0.0), 2, 0), QString(60, QChar('T')), "Ey");
            const auto [bar, quantity] = view.colourBarRects();
            const double half = QFontMetricsF(view.font()).height() / 2;
            QVERIFY2(quantity.bottom() + 2 <= bar.top() - half,
                     qPrintable(QString("quantity ends at %1, top label starts at %2")
                                    .arg(quantity.bottom())
                                    .arg(bar.top() - half)));
            QVERIFY(quantity.top() >= 0);
            QVERIFY(bar.bottom() <= size.height());
        }
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
        // The slice's position in µm.
        bool position = false;
        for (const QLabel* l : view.findChildren<QLabel*>())
            position = position || l->text().startsWith(QString::fromUtf8("z = 0 \u00b5m (1 of 1)"));
        QVERIFY(position);
        // The controls sit above the slice: the slice gets the tab's width and most of its height
        // (beside it, a 220 px column took a third of a 1280-px window's centre).
        QTest::qWait(50);
        const QWidget* tab = view.tabs()->currentWidget();
        QVERIFY2(view.fieldView()->width() >= tab->width() - 12,
                 qPrintable(QString("%1 of %2").arg(view.fieldView()->width()).arg(tab->width())));
        QVERIFY2(view.fieldView()->height() >= tab->height() * 6 / 10,
                 qPrintable(QString("%1 of %2").arg(view.fieldView()->height()).arg(tab->height())));
        view.grab().save(test::artifactDir() + "/results_fields_tab.png");
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
        // Export… asks where, starting in the results file's folder under the slice's title, and writes.
        QPushButton* exportButton = view.fieldExportButton();
        QVERIFY(exportButton->isEnabled());
        QVERIFY(!view.gradientExportButton()->isEnabled()); // no gradients in these results
        QCOMPARE(view.exportFolder(), QFileInfo(path).absolutePath());
        QString suggested;
        const QString target = dir.filePath("exported.csv");
        QTimer::singleShot(0, [&] {
            auto* d = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            QVERIFY(d);
            suggested = d->selectedFiles().value(0);
            d->selectFile(target);
            QMetaObject::invokeMethod(d, "accept", Qt::DirectConnection);
        });
        exportButton->click();
        QVERIFY2(suggested.startsWith(dir.filePath("field")) && suggested.endsWith(".csv"), qPrintable(suggested));
        QFile written(target);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(written.readAll()).count('\n'), 1 + 48 * 36);
        QVERIFY(!view.openFile(dir.filePath("missing.h5"), &error));
        QVERIFY2(error.contains("missing.h5"), qPrintable(error));
    }
};

QTEST_MAIN(tst_FieldViewRender)
#include "tst_FieldViewRender.moc"
