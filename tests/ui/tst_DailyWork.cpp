/// The studio for daily work, on the offscreen platform: memory bars that never cut a number and show
/// fill against capacity (host memory, idle devices); panels that leave the mouse wheel to scrolling; a
/// gradient method switch that keeps the recorder chain aside; time-cost estimates; every source and
/// detector kind of the schema insertable; staircase flags; human labels; Help; the cluster export
/// dialog writing the very bundle `yee-run --export` writes.
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QLabel>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QtTest>

#include "UiTestScenes.hpp"
#include "ui/DetectorPlot.hpp"
#include "ui/DevicesPanel.hpp"
#include "ui/Estimator.hpp"
#include "ui/ExportDialog.hpp"
#include "ui/Format.hpp"
#include "ui/GradientPanel.hpp"
#include "ui/HelpMenu.hpp"
#include "ui/LogPanel.hpp"
#include "ui/MainWindow.hpp"
#include "ui/MemoryBars.hpp"
#include "ui/NewItems.hpp"
#include "ui/Palette.hpp"
#include "ui/PropertyModel.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneProperties.hpp"
#include "ui/WheelGuard.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/scene/Schema.hpp"

using namespace yee;
using namespace yee::ui;

namespace {
constexpr std::int64_t GiB = 1024LL * 1024 * 1024;

DeviceMemory deviceRow(const QString& name, std::int64_t capacity, std::int64_t fields,
                       std::int64_t recorder) {
    DeviceMemory d;
    d.name = name;
    d.detail = QStringLiteral("[0,40)\u00d7[0,48)\u00d7[0,400)");
    d.capacity = capacity;
    d.memory.peak[int(device::Category::Fields)] = fields;
    d.memory.peak[int(device::Category::Recorder)] = recorder;
    d.memory.peakTotal = fields + recorder;
    return d;
}

/// Pixels of `c` (exactly) in row y between x0 and x1.
int countColour(const QImage& img, int y, int x0, int x1, const QColor& c) {
    int n = 0;
    for (int x = x0; x < x1; ++x)
        n += QColor(img.pixel(x, y)) == c;
    return n;
}

scene::Scene reversibleScene() {
    scene::Scene s = test::smallScene();
    s.gradient.method = scene::GradientMethod::Reversible;
    scene::RecorderModule m;
    m.module = "DtypeConversion";
    m.dtype = "bfloat16";
    s.gradient.recorder = {m};
    return s;
}
} // namespace

namespace {
/// `dialog` writes the very files `yee-run SCENE --export DIR cliArgs...` writes.
void sameBundleAsCli(ExportDialog& dialog, const QString& scenePath, const QStringList& cliArgs) {
    QTemporaryDir dir;
    QString error;
    QVERIFY2(dialog.exportTo(dir.filePath("studio"), &error), qPrintable(error));
    QProcess p;
    p.start(QStringLiteral(YEE_RUN_EXE), QStringList{scenePath, "--export", dir.filePath("cli")} + cliArgs);
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const QStringList files = QDir(dir.filePath("cli")).entryList(QDir::Files);
    QVERIFY(files.contains("run.sbatch") && files.contains("scene.json") && files.contains("README.md"));
    QCOMPARE(QDir(dir.filePath("studio")).entryList(QDir::Files), files);
    for (const QString& f : files) {
        QFile a(dir.filePath("cli/" + f)), b(dir.filePath("studio/" + f));
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QVERIFY2(a.readAll() == b.readAll(), qPrintable(f + " differs"));
    }
}
} // namespace

class tst_DailyWork : public QObject {
    Q_OBJECT
private slots:
    /// Every number is written out at every width: lines wrap (the widget grows), never elide.
    void memoryNumbersNeverCut() {
        MemoryBars bars(MemoryBars::Mode::CurrentAndPeak);
        DeviceMemory d = deviceRow("cpu:0", std::int64_t(11.77 * double(GiB)), 4 * GiB, 0);
        d.memory.currentTotal = 15 * 1024 * 1024;
        bars.setDevices({d});
        const QStringList lines = bars.lines(0);
        const QString all = lines.join('\n');
        QVERIFY2(all.contains(bytesText(d.capacity)), qPrintable(all));
        QVERIFY(all.contains(bytesText(d.memory.peakTotal)));
        QVERIFY(all.contains(bytesText(d.memory.currentTotal)));
        QVERIFY(all.contains(d.detail));
        QVERIFY(all.contains("34.0 %"));
        QVERIFY(!all.contains(QChar(0x2026))); // no ellipsis anywhere
        // Narrower means taller, never shorter text.
        QVERIFY(bars.heightForWidth(180) > bars.heightForWidth(800));
        for (int w : {180, 260, 400, 800}) {
            bars.resize(w, bars.heightForWidth(w));
            const QImage img = bars.grab().toImage();
            QCOMPARE(img.height(), bars.heightForWidth(w));
        }
    }

    /// A bar is the device's capacity: half full draws half the bar, split by category inside.
    void barsShowFractionOfCapacity() {
        MemoryBars bars(MemoryBars::Mode::PeakOnly);
        bars.setDevices(
            {deviceRow("cpu:0", 8 * GiB, 3 * GiB, 1 * GiB), deviceRow("cpu:1", 8 * GiB, 1 * GiB, 1 * GiB)});
        QCOMPARE(bars.fillFraction(0), 0.5);
        QCOMPARE(bars.fillFraction(1), 0.25);
        const int w = 500;
        bars.resize(w, bars.heightForWidth(w));
        const QImage img = bars.grab().toImage();
        const auto [x0, bw] = bars.barSpan(w);
        const QColor fields = categoryColor(device::Category::Fields);
        const QColor recorder = categoryColor(device::Category::Recorder);
        for (int i = 0; i < 2; ++i) {
            const int y = bars.peakBarTop(i, w) + 6;
            const int f = countColour(img, y, x0, x0 + bw, fields);
            const int r = countColour(img, y, x0, x0 + bw, recorder);
            const double wantF = i == 0 ? 0.375 : 0.125;
            QVERIFY2(std::abs(f - wantF * bw) <= 3, qPrintable(QString("fields %1 px of %2").arg(f).arg(bw)));
            QVERIFY2(std::abs(r - 0.125 * bw) <= 3,
                     qPrintable(QString("recorder %1 px of %2").arg(r).arg(bw)));
        }
        QVERIFY(QDir().mkpath(QStringLiteral(YEE_BINARY_DIR "/ui-artifacts")));
        QVERIFY(img.save(QStringLiteral(YEE_BINARY_DIR "/ui-artifacts/memory_bars.png")));
    }

    void overCapacityHostAndIdleAreSaid() {
        MemoryBars bars(MemoryBars::Mode::PeakOnly);
        DeviceMemory over = deviceRow("cuda:0", 2 * GiB, 5 * GiB, 2 * GiB);
        over.hostBytes = 3 * GiB;
        DeviceMemory idle;
        idle.name = "cpu:3";
        idle.idle = true;
        bars.setDevices({over, idle});
        const QString a = bars.lines(0).join('\n');
        QVERIFY2(a.contains("350.0 %"), qPrintable(a));
        QVERIFY2(a.contains("does not fit: " + bytesText(5 * GiB) + " over capacity"), qPrintable(a));
        QVERIFY(a.contains("host (pinned) " + bytesText(3 * GiB)));
        QVERIFY(bars.lines(1).join('\n').contains("idle"));
    }

    /// The wheel over an unfocused combo or spin box scrolls the panel and changes nothing.
    void wheelScrollsInsteadOfEditing() {
        QScrollArea area;
        auto* inner = new QWidget;
        auto* l = new QVBoxLayout(inner);
        auto* combo = new QComboBox;
        combo->addItems({"a", "b", "c"});
        auto* spin = new QSpinBox;
        spin->setValue(5);
        l->addWidget(combo);
        l->addWidget(spin);
        l->addStretch(1);
        inner->setMinimumHeight(2000);
        area.setWidgetResizable(true);
        area.setWidget(inner);
        area.resize(200, 200);
        WheelGuard::install(inner);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        area.setFocus();
        auto wheel = [](QWidget* w, int delta) {
            const QPointF pos(w->width() / 2.0, w->height() / 2.0);
            QWheelEvent e(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
            QApplication::sendEvent(w, &e);
        };
        QTRY_VERIFY(area.verticalScrollBar()->maximum() > 0);
        const int scroll0 = area.verticalScrollBar()->value();
        wheel(combo, -120);
        wheel(spin, -120);
        QCOMPARE(combo->currentIndex(), 0);
        QCOMPARE(spin->value(), 5);
        QVERIFY2(area.verticalScrollBar()->value() > scroll0, "the panel did not scroll");
        // A combo added after the guard was installed (an objective's term row) is guarded too.
        auto* later = new QComboBox;
        later->addItems({"x", "y", "z"});
        l->insertWidget(0, later);
        QTRY_VERIFY(later->isVisible());
        QCOMPARE(later->focusPolicy(), Qt::StrongFocus);
        const int scroll1 = area.verticalScrollBar()->value();
        wheel(later, 120);
        wheel(later, -120);
        wheel(later, -120);
        QCOMPARE(later->currentIndex(), 0);
        QVERIFY(area.verticalScrollBar()->value() != scroll1);
        // Once focused (clicked or tabbed into), the wheel edits as usual.
        spin->setFocus();
        QTRY_VERIFY(spin->hasFocus());
        wheel(spin, 120);
        QCOMPARE(spin->value(), 6);
        // Outside the guarded panel the wheel is the widget's.
        QComboBox outside;
        outside.addItems({"p", "q"});
        outside.show();
        QVERIFY(QTest::qWaitForWindowExposed(&outside));
        wheel(&outside, -120);
        QCOMPARE(outside.currentIndex(), 1);
    }

    /// Reversible with a recorder chain -> checkpointed is not refused: the chain is kept aside (one undo
    /// step) and comes back with reversible.
    void methodSwitchKeepsChainAside() {
        SceneDocument doc;
        doc.resetScene(reversibleScene(), {});
        GradientPanel panel(&doc);
        panel.setMethod("checkpointed");
        QCOMPARE(int(doc.scene().gradient.method), int(scene::GradientMethod::Checkpointed));
        QVERIFY(doc.scene().gradient.recorder.empty());
        QCOMPARE(int(panel.keptChain().size()), 1);
        QCOMPARE(doc.undoStack()->count(), 1);
        QVERIFY(panel.recorderList()->item(0)->text().contains("DtypeConversion(bfloat16)"));
        panel.setMethod("reversible");
        QCOMPARE(int(doc.scene().gradient.method), int(scene::GradientMethod::Reversible));
        QCOMPARE(int(doc.scene().gradient.recorder.size()), 1);
        QCOMPARE(doc.scene().gradient.recorder[0].dtype, std::string("bfloat16"));
        // Undo twice: back to the start, chain and method together.
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(int(doc.scene().gradient.method), int(scene::GradientMethod::Reversible));
        QCOMPARE(int(doc.scene().gradient.recorder.size()), 1);
    }

    /// Time cost of value-and-grad against a forward run, from the steps of each phase; shown with the
    /// memory estimate, and the panels say which run each estimate is for.
    void timeCostAndWhichRun() {
        QCOMPARE(GradientPanel::costFactor(scene::GradientMethod::Full, 100, 0), 2.0);
        QCOMPARE(GradientPanel::costFactor(scene::GradientMethod::Checkpointed, 100, 250), 4.5);
        QCOMPARE(GradientPanel::costFactor(scene::GradientMethod::Reversible, 100, 0), 3.0);
        SceneDocument doc;
        scene::Scene s = test::smallScene();
        s.gradient.method = scene::GradientMethod::Checkpointed;
        s.gradient.numCheckpoints = 2;
        doc.resetScene(s, {});
        GradientPanel grad(&doc);
        DevicesPanel dev(&doc);
        const EstimateOutcome out = Estimator::compute(doc.scene(), dev.settings());
        QVERIFY2(out.gradientEstimate, qPrintable(out.gradientProblem));
        QVERIFY(out.gradientEstimate->recomputeSteps > out.gradientEstimate->steps);
        grad.showEstimate(out);
        dev.showEstimate(out);
        const double f = GradientPanel::costFactor(s.gradient.method, out.gradientEstimate->steps,
                                                   out.gradientEstimate->recomputeSteps);
        QVERIFY2(grad.timeText().contains(QString::number(f, 'f', 2) + " \u00d7 a forward run"),
                 qPrintable(grad.timeText()));
        QVERIFY(
            grad.timeText().contains(QString::number(out.gradientEstimate->recomputeSteps) + " recomputed"));
        QVERIFY(grad.findChild<QGroupBox*>("gradientEstimateBox")->title().startsWith("Value-and-grad"));
        QVERIFY(dev.findChild<QGroupBox*>("devicesEstimateBox")->title().startsWith("Forward-run"));
    }

    /// Each storage and drift setting explains itself next to it, shown while it applies: drift
    /// checkpoints for the reversible method, transfer interval and ring buffers for the host tier, set
    /// through the panel's own combos; the reversible method's time cost names its reverse sweep.
    void explanationsFollowTheChoices() {
        SceneDocument doc;
        scene::Scene s = test::smallScene();
        s.gradient.method = scene::GradientMethod::Checkpointed;
        doc.resetScene(s, {});
        GradientPanel grad(&doc);
        grad.resize(420, 1200);
        grad.show();
        QVERIFY(QTest::qWaitForWindowExposed(&grad));
        auto* method = grad.findChild<QComboBox*>("gradientMethod");
        auto* tier = grad.findChild<QComboBox*>("storageTier");
        auto* drift = grad.findChild<QLabel*>("explainDrift");
        auto* transfer = grad.findChild<QLabel*>("explainTransfer");
        auto* ring = grad.findChild<QLabel*>("explainRing");
        QVERIFY(method && tier && drift && transfer && ring);
        QVERIFY(!drift->isVisible());
        // As the user picks: the panel applies a choice on activated().
        auto choose = [](QComboBox* box, const char* value) {
            box->setCurrentIndex(box->findData(QString::fromLatin1(value)));
            emit box->activated(box->currentIndex());
        };
        choose(method, "reversible");
        QCOMPARE(doc.scene().gradient.method, scene::GradientMethod::Reversible);
        QVERIFY(drift->isVisible());
        QVERIFY(drift->text().contains("drift checkpoint") && drift->text().contains("lossy"));
        choose(tier, "device");
        QVERIFY(!transfer->isVisible() && !ring->isVisible());
        choose(tier, "host");
        QCOMPARE(doc.scene().gradient.tier, std::string("host"));
        QVERIFY(transfer->isVisible() && ring->isVisible());
        QVERIFY(transfer->text().contains("copied to host memory"));
        QVERIFY(ring->text().contains("staging ring"));
        // Wrapped, and given the height their text needs at the panel's width.
        for (QLabel* l : {drift, transfer, ring}) {
            QVERIFY(l->wordWrap());
            QVERIFY2(l->height() >= l->heightForWidth(l->width()),
                     qPrintable(QString("%1: %2 px for %3")
                                    .arg(l->objectName())
                                    .arg(l->height())
                                    .arg(l->heightForWidth(l->width()))));
        }
        // The reversible time cost: forward plus a reverse sweep of about two forward steps per step.
        DevicesPanel dev(&doc);
        const EstimateOutcome out = Estimator::compute(doc.scene(), dev.settings());
        QVERIFY2(out.gradientEstimate, qPrintable(out.gradientProblem));
        grad.showEstimate(out);
        QVERIFY2(grad.timeText().contains(QString::number(3.0, 'f', 2) + " \u00d7 a forward run") &&
                     grad.timeText().contains("reverse sweep"),
                 qPrintable(grad.timeText()));
    }

    /// The host tier's staged bytes appear as host memory: what the device tier would hold, less the ring.
    void hostTierShowsHostMemory() {
        scene::Scene s = test::smallScene();
        s.gradient.method = scene::GradientMethod::Reversible;
        s.durationFs = 20;
        s.gradient.tier = "host";
        s.gradient.transferInterval = 4;
        s.gradient.ringBuffers = 3;
        const EstimateOutcome out = Estimator::compute(s, RunSettings{});
        QVERIFY2(out.gradientEstimate, qPrintable(out.gradientProblem));
        QCOMPARE(out.gradientHostBytes.size(), out.gradientEstimate->devices.size());
        QVERIFY(out.gradientHostBytes[0] > 0);
        SceneDocument doc;
        doc.resetScene(s, {});
        GradientPanel grad(&doc);
        grad.showEstimate(out);
        QCOMPARE(grad.bars()->devices()[0].hostBytes, out.gradientHostBytes[0]);
        QVERIFY(grad.bars()->lines(0).join('\n').contains("host (pinned)"));
    }

    /// Idle devices (more devices than tiles) are listed as idle.
    void idleDevicesListed() {
        SceneDocument doc;
        scene::Scene s = test::smallScene();
        s.run.devices = "cpu:3";
        doc.resetScene(s, {});
        DevicesPanel dev(&doc);
        dev.showEstimate(Estimator::compute(doc.scene(), dev.settings()));
        QCOMPARE(dev.bars()->devices().size(), 3);
        QVERIFY(!dev.bars()->devices()[0].idle);
        QVERIFY(dev.bars()->devices()[1].idle && dev.bars()->devices()[2].idle);
        QCOMPARE(dev.bars()->devices()[2].name, QString("cpu:2"));
    }

    /// Every source and detector type of the backend's schema can be inserted, and each new one leaves a
    /// valid scene (the list is the schema's, so a new kind appears without a studio change).
    void everySchemaKindInsertable() {
        int kinds = 0;
        for (const auto& e : scene::sourceTypes().entries) {
            scene::Scene s = test::smallScene();
            SceneEntity item = makeNewSource(s, scene::SourceType(e.value));
            QCOMPARE(int(std::get<scene::Source>(item).type), e.value);
            s.sources.push_back(std::get<scene::Source>(item));
            try {
                scene::validateScene(s);
            } catch (const std::exception& ex) {
                QFAIL(qPrintable(QString("%1: %2").arg(e.name, ex.what())));
            }
            ++kinds;
        }
        for (const auto& e : scene::detectorTypes().entries) {
            scene::Scene s = test::smallScene();
            SceneEntity item = makeNewDetector(s, scene::DetectorType(e.value));
            const auto& d = std::get<scene::Detector>(item);
            QCOMPARE(int(d.type), e.value);
            QVERIFY(QString::fromStdString(d.name).startsWith(e.name));
            s.detectors.push_back(d);
            try {
                scene::validateScene(s);
            } catch (const std::exception& ex) {
                QFAIL(qPrintable(QString("%1: %2").arg(e.name, ex.what())));
            }
            ++kinds;
        }
        QVERIFY(kinds >= 9); // point dipole, Gaussian, plane wave; six detector kinds at least
    }

    /// A size that is not a whole number of cells is flagged; undo texts and messages use human labels.
    void staircaseFlagAndHumanLabels() {
        SceneDocument doc;
        doc.resetScene(test::smallScene(), {});
        doc.setCurrentItem({ItemKind::Object, 0});
        PropertyModel model(&doc);
        QVERIFY(model.staircaseNote("size_um").isEmpty()); // 1.2 x 0.3 x 0.2 at 0.05 um
        QVERIFY(model.setValue("size_um", "1.2, 0.33, 0.2"));
        const QString note = model.staircaseNote("size_um");
        QVERIFY2(note.contains("y: 0.33 \u00b5m is 6.60 cells"), qPrintable(note));
        const int row = model.rowOf("size_um");
        QVERIFY(!model.index(row, 1).data(Qt::DecorationRole).isNull());
        QVERIFY(model.index(row, 1).data(Qt::ToolTipRole).toString().startsWith("Not a whole number"));
        QCOMPARE(doc.undoStack()->text(doc.undoStack()->count() - 1), QString("Set wg \u203a Size"));
        QVERIFY(!model.setValue("size_um", "-1, 1, 1"));
        // The human name and the rule, without the scene-file path (that is in the row's tool tip); the
        // label carries the unit as µm.
        QVERIFY2(model.lastError().startsWith("wg \u203a Size: "), qPrintable(model.lastError()));
        QVERIFY2(!model.lastError().contains("size_um") && !model.lastError().contains("objects["),
                 qPrintable(model.lastError()));
        QCOMPARE(model.index(row, 0).data(Qt::DisplayRole).toString(), QString("Size (\u00b5m)"));
        QVERIFY(model.index(row, 1).data(Qt::ToolTipRole).toString().contains("objects[0].size_um"));
    }

    void helpSaysVersionAndBuildOptions() {
        const QString about = aboutText();
        QVERIFY(about.contains(QStringLiteral(YEE_VERSION)));
        for (const char* opt : {"CUDA", "NCCL", "MPI"})
            QVERIFY2(about.contains(opt), opt);
        const auto opts = buildOptions();
        QCOMPARE(opts.size(), 3);
#ifdef YEE_HAVE_CUDA
        QVERIFY(opts[0].second);
#else
        QVERIFY(!opts[0].second);
#endif
        const auto docs = documentationFiles();
        QVERIFY(!docs.isEmpty());
        QVERIFY(docs[0].second.endsWith("README.md"));
        QVERIFY(QFile::exists(docs[0].second));
    }

    /// Plots carry units on both axes; spectra normalise against a reference detector or a reference
    /// results file (T = P / P_ref, exactly); the plotted data exports as CSV, the plot as PNG and SVG.
    /// Detector plots have round ticks (1, 2 or 5 times a power of ten, labels of a few digits); a dragged
    /// rectangle zooms to it, the arrow keys pan by a tenth of the view, a right click zooms out again.
    void plotTicksZoomAndPan() {
        solver::DetectorResult d;
        d.name = "out";
        d.type = "flux";
        solver::NamedArray t{"time_fs", {50}, {}}, f{"flux", {50}, {}};
        for (int i = 0; i < 50; ++i) {
            t.data.push_back(123.4 * i / 49.0);
            f.data.push_back(0.37 * std::sin(0.3 * i));
        }
        d.arrays = {t, f};
        DetectorPlot plot;
        plot.resize(700, 450);
        plot.setDetectors({d});
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        auto* view = plot.findChild<QChartView*>();
        QVERIFY(view);
        auto* ax = qobject_cast<QValueAxis*>(view->chart()->axes(Qt::Horizontal).value(0));
        auto* ay = qobject_cast<QValueAxis*>(view->chart()->axes(Qt::Vertical).value(0));
        QVERIFY(ax && ay);
        for (QValueAxis* a : {ax, ay}) {
            QVERIFY2(a->tickCount() >= 3 && a->tickCount() <= 11,
                     qPrintable(QString::number(a->tickCount())));
            const double step = (a->max() - a->min()) / (a->tickCount() - 1);
            const double decade = std::pow(10.0, std::floor(std::log10(step)));
            const double m = step / decade;
            QVERIFY2(std::abs(m - 1) < 1e-9 || std::abs(m - 2) < 1e-9 || std::abs(m - 2.5) < 1e-9 ||
                         std::abs(m - 5) < 1e-9 || std::abs(m - 10) < 1e-9,
                     qPrintable(QString("tick step %1").arg(step)));
            QVERIFY(std::abs(a->min() / step - std::round(a->min() / step)) < 1e-6);
            for (int k = 0; k < a->tickCount(); ++k) {
                const QString label =
                    QString::asprintf(a->labelFormat().toLatin1().constData(), a->min() + k * step);
                QVERIFY2(label.size() <= 6, qPrintable(label));
            }
        }
        QVERIFY(ax->min() <= 0 && ax->max() >= 123.4);
        const double x0 = ax->min(), x1 = ax->max();
        // Zoom: drag over the second quarter of the plot area, its whole height.
        const QRectF area = view->chart()->plotArea();
        const QPoint from(int(area.left() + 0.25 * area.width()), int(area.top() + 2)),
            to(int(area.left() + 0.5 * area.width()), int(area.bottom() - 2));
        QTest::mousePress(view->viewport(), Qt::LeftButton, {}, from);
        for (int i = 1; i <= 4; ++i) {
            const QPointF at = from + (to - from) * (i / 4.0);
            QMouseEvent move(QEvent::MouseMove, at, view->viewport()->mapToGlobal(at), Qt::NoButton,
                             Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(view->viewport(), &move);
        }
        QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, to);
        const double span = ax->max() - ax->min();
        qInfo("x range %.3g..%.3g, zoomed to %.3g..%.3g", x0, x1, ax->min(), ax->max());
        QVERIFY2(std::abs(span - 0.25 * (x1 - x0)) < 0.05 * (x1 - x0), qPrintable(QString::number(span)));
        QVERIFY(std::abs(ax->min() - (x0 + 0.25 * (x1 - x0))) < 0.05 * (x1 - x0));
        // Pan right by a tenth of the view; the span stays.
        const double before = ax->min();
        QTest::keyClick(view, Qt::Key_Right);
        QVERIFY2(std::abs(ax->min() - (before + 0.1 * span)) < 0.01 * span,
                 qPrintable(QString::number(ax->min())));
        QVERIFY(std::abs((ax->max() - ax->min()) - span) < 1e-6 * span);
        // A right click zooms out.
        QTest::mouseClick(view->viewport(), Qt::RightButton, {}, area.center().toPoint());
        QVERIFY2(ax->max() - ax->min() > 1.5 * span, qPrintable(QString::number(ax->max() - ax->min())));
    }

    void plotsUnitsNormalisationExport() {
        auto det = [](const char* name, std::vector<double> power) {
            solver::DetectorResult d;
            d.name = name;
            d.type = "flux";
            d.arrays.push_back({"time_fs", {3}, {0.0, 1.0, 2.0}});
            d.arrays.push_back({"flux", {3}, {0.0, 0.5, 0.25}});
            d.arrays.push_back({"wavelengths_um", {3}, {1.5, 1.55, 1.6}});
            d.arrays.push_back({"power", {3}, std::move(power)});
            return d;
        };
        DetectorPlot plot;
        plot.resize(700, 450);
        plot.setDetectors({det("out", {1.0, 3.0, 2.0}), det("in", {2.0, 4.0, 8.0})});
        QCOMPARE(plot.xTitle(), QString("time (fs)"));
        QCOMPARE(plot.yTitle(), QString("flux (power, source units)"));
        plot.viewBox()->setCurrentIndex(1);
        QCOMPARE(plot.xTitle(), QString("wavelength (µm)"));
        QVERIFY(plot.yTitle().startsWith("spectral power"));
        // T(lambda) against the "in" detector.
        plot.referenceBox()->setCurrentIndex(plot.referenceBox()->findData("in"));
        QCOMPARE(plot.seriesCount(), 1);
        QCOMPARE(plot.yTitle(), QString("transmission T(λ) (1)"));
        const QList<QPointF> t = plot.seriesPoints(0);
        QCOMPARE(t.size(), 3);
        QCOMPARE(t[0].y(), 0.5);
        QCOMPARE(t[1].y(), 0.75);
        QCOMPARE(t[2].y(), 0.25);
        // Against a reference results file.
        QTemporaryDir dir;
        run::RunResult ref;
        ref.completed = true;
        ref.detectors = {det("out", {4.0, 6.0, 4.0})};
        const QString refPath = dir.filePath("reference.h5");
        io::writeResults(refPath.toStdString(), test::smallScene(), "{}", ref);
        QString error;
        QVERIFY2(plot.loadReferenceFile(refPath, &error), qPrintable(error));
        plot.referenceBox()->setCurrentIndex(plot.referenceBox()->findData("file: out"));
        const QList<QPointF> tf = plot.seriesPoints(0);
        QCOMPARE(tf[0].y(), 0.25);
        QCOMPARE(tf[1].y(), 0.5);
        QCOMPARE(tf[2].y(), 0.5);
        // CSV: the numbers as plotted.
        const QStringList rows = plot.csv().trimmed().split('\n');
        QCOMPARE(rows.size(), 4);
        QVERIFY(rows[0].startsWith("\"wavelength (µm)\""));
        QCOMPARE(rows[2], QString("1.55,0.5"));
        QVERIFY(plot.exportTo(dir.filePath("t.csv")));
        QVERIFY(plot.exportTo(dir.filePath("t.png")));
        QVERIFY(plot.exportTo(dir.filePath("t.svg")));
        QVERIFY(!plot.exportTo(dir.filePath("t.xyz")));
        QImage png(dir.filePath("t.png"));
        QVERIFY(!png.isNull() && png.width() > 100);
        QFile svg(dir.filePath("t.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(svg.readAll());
        QVERIFY(text.contains("<polyline") && text.contains("transmission T(λ)") &&
                text.contains("wavelength (µm)"));
    }

    /// File > Export cluster bundle opens the dialog over the scene, starting in the scene's folder; its
    /// Write button asks for the folder and writes the bundle, and the log says so.
    void exportBundleActionWritesBundle() {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTemporaryDir dir;
        const QString scenePath = dir.filePath("box.json");
        QVERIFY(QFile::copy(QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/quick_box.json"), scenePath));
        QVERIFY(w.openScene(scenePath));
        QAction* act = w.findChild<QAction*>("exportBundleAction");
        QVERIFY(act);
        QString proposed, script;
        bool sawDialog = false;
        QTimer::singleShot(0, [&] {
            auto* d = qobject_cast<ExportDialog*>(QApplication::activeModalWidget());
            QVERIFY(d);
            sawDialog = true;
            bundle::BundleOptions o = d->options();
            o.tiles = {2, 1, 1};
            d->setOptions(o);
            script = d->script();
            // The folder dialog, opened by Write bundle…
            QTimer::singleShot(0, [&] {
                auto* f = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
                QVERIFY(f);
                proposed = f->selectedFiles().value(0);
                f->selectFile(dir.filePath("out-bundle"));
                QMetaObject::invokeMethod(f, "accept", Qt::DirectConnection);
            });
            d->findChild<QPushButton*>("writeBundle")->click();
        });
        act->trigger();
        QVERIFY(sawDialog);
        QVERIFY2(script.contains("#SBATCH --ntasks=2"), qPrintable(script));
        QVERIFY2(proposed.startsWith(QFileInfo(scenePath).absolutePath() + "/") &&
                     proposed.endsWith("-bundle"),
                 qPrintable(proposed));
        for (const char* f : {"run.sbatch", "scene.json", "README.md"})
            QVERIFY2(QFile::exists(dir.filePath(QString("out-bundle/") + f)), f);
        QVERIFY2(w.log()->toPlainText().contains("Cluster bundle written (2 rank(s) on 1 node(s))"),
                 qPrintable(w.log()->toPlainText()));
    }

    /// The export dialog shows the script before writing and writes exactly the bundle of
    /// `yee-run --export` with the same options.
    void clusterExportMatchesCli() {
        const QString scenePath = QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/quick_box.json");
        const scene::Scene s = scene::loadScene(scenePath.toStdString());
        ExportDialog dialog(s);
        bundle::BundleOptions o;
        o.tiles = {2, 1, 1};
        o.nodes = 1;
        o.timeLimit = "00:30:00";
        dialog.setOptions(o);
        QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
        QVERIFY(dialog.script().contains("#SBATCH --ntasks=2"));
        QVERIFY(dialog.script().contains("#SBATCH --time=00:30:00"));
        QVERIFY(dialog.script().contains("partition"));
        // The file dialog proposes "<name>-bundle" in the scene's folder (the main window sets it).
        QCOMPARE(dialog.suggestedPath(), QString::fromStdString(s.name) + "-bundle");
        dialog.setStartFolder(QFileInfo(scenePath).absolutePath());
        QCOMPARE(dialog.suggestedPath(),
                 QFileInfo(scenePath).absolutePath() + "/" + QString::fromStdString(s.name) + "-bundle");
        QLabel* gpus = dialog.findChild<QLabel*>("gpusPerTask");
        QVERIFY(gpus);
        QCOMPARE(gpus->text(), QString("0 (CPU ranks)"));
        sameBundleAsCli(dialog, scenePath, {"--tiles", "2x1x1", "--nodes", "1", "--time", "00:30:00"});
        // Value and gradient on one GPU per rank: the same as yee-run --export --grad --devices cuda.
        {
            const QString bend = QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/waveguide_bend.json");
            ExportDialog g(scene::loadScene(bend.toStdString()));
            bundle::BundleOptions go = o;
            go.gradient = true;
            go.devices = bundle::Devices::Cuda;
            g.setOptions(go);
            QVERIFY2(g.problem().isEmpty(), qPrintable(g.problem()));
            QCOMPARE(g.findChild<QLabel*>("gpusPerTask")->text(), QString("1 (one GPU per rank)"));
            QVERIFY(g.script().contains("#SBATCH --gpus-per-task=1"));
            QVERIFY(g.script().contains("--grad"));
            sameBundleAsCli(
                g, bend,
                {"--tiles", "2x1x1", "--nodes", "1", "--time", "00:30:00", "--grad", "--devices", "cuda"});
        }
        // A bad layout is explained before anything is written.
        o.tasksPerNode = 3;
        dialog.setOptions(o);
        QVERIFY2(dialog.problem().contains("tasks_per_node"), qPrintable(dialog.problem()));
        QVERIFY(dialog.script().isEmpty());
    }
};

QTEST_MAIN(tst_DailyWork)
#include "tst_DailyWork.moc"
