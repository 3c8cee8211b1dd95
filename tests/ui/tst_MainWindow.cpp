#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QChartView>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QOpenGLWidget>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeView>
#include <QtTest>

#include <functional>

#include "RenderTestUtil.hpp"
#include "ui/DevicesPanel.hpp"
#include "ui/FieldView.hpp"
#include "ui/GradientPanel.hpp"
#include "ui/HelpMenu.hpp"
#include "ui/LogPanel.hpp"
#include "ui/MainWindow.hpp"
#include "ui/MaterialEditor.hpp"
#include "ui/MemoryBars.hpp"
#include "ui/ObjectiveEditor.hpp"
#include "ui/OptimizePanel.hpp"
#include "ui/PropertyEditor.hpp"
#include "ui/PropertyModel.hpp"
#include "ui/ResultsView.hpp"
#include "ui/RunHistory.hpp"
#include "ui/RunMonitor.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneTreeModel.hpp"
#include "ui/SceneView.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/scene/Schema.hpp"
#include "yee/telemetry/Telemetry.hpp"

#include <vtkProp.h>

using namespace yee;
using namespace yee::ui;

namespace {
QString example(const char* name) {
    return QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/%1.json").arg(QLatin1String(name));
}

/// Steps of the value-and-grad run cancelled in its reverse sweep: enough guard intervals (64 steps) that
/// Cancel, pressed at the first adjoint report (reports come every 0.25 s), lands before the sweep ends:
/// all 1259 of waveguide_bend's (640 swept back in under 0.25 s on a quiet 2-core machine).
constexpr int kReverseSteps = 1259;

QAction* actionWithShortcut(QWidget* w, const QKeySequence& key) {
    for (QAction* a : w->findChildren<QAction*>())
        if (a->shortcut() == key)
            return a;
    return nullptr;
}

/// Click `button` of the next modal message box as soon as it shows.
void answerNextMessageBox(QMessageBox::StandardButton button) {
    QTimer::singleShot(0, [button] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (box)
            box->button(button)->click();
    });
}
} // namespace

/// The main window end to end: docks, selection sync, undoable edits, rejected values, unsaved-changes
/// prompt, persisted layout, a run with live telemetry whose results are shown, and cancel. Leaves a
/// screenshot of the window after running an example in <build>/ui-artifacts.
class tst_MainWindow : public QObject {
    Q_OBJECT
public:
    static void initMain() {
        VtkWidget::installDefaultFormat();
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("YeeStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_MainWindow"));
    }

private slots:
    void initTestCase() {
        QSettings().clear();
        QVERIFY(dir_.isValid());
    }

    void docksHaveObjectNames() {
        MainWindow w;
        for (const char* name :
             {"sceneTreeDock", "propertiesDock", "devicesDock", "gradientDock", "runMonitorDock", "logDock"})
            QVERIFY2(w.findChild<QDockWidget*>(QLatin1String(name)), name);
        QVERIFY(actionWithShortcut(&w, QKeySequence::Undo));
        QVERIFY(actionWithShortcut(&w, QKeySequence::Redo));
        QVERIFY(actionWithShortcut(&w, QKeySequence::Save));
        QVERIFY(actionWithShortcut(&w, QKeySequence::Open));
    }

    /// Item 1 of the daily-work issue, in the scene tree too: no summary is cut ("2 × 2 × 2 µm (40 × 40 …"
    /// at the default dock width); the column holds the longest one and the tree scrolls sideways.
    void treeSummariesNeverCut() {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/quick_box.json")));
        QTest::qWait(200);
        QTreeView* tree = w.treeView();
        const QFontMetrics fm = tree->fontMetrics();
        int checked = 0;
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < tree->model()->rowCount(parent); ++r) {
                const QModelIndex i = tree->model()->index(r, 1, parent);
                const QString text = i.data().toString();
                if (!text.isEmpty()) {
                    ++checked;
                    QVERIFY2(fm.horizontalAdvance(text) <= tree->header()->sectionSize(1),
                             qPrintable(QString("'%1' is %2 px in a %3 px column")
                                            .arg(text)
                                            .arg(fm.horizontalAdvance(text))
                                            .arg(tree->header()->sectionSize(1))));
                }
                walk(tree->model()->index(r, 0, parent));
            }
        };
        walk({});
        QVERIFY(checked > 10);
        QVERIFY(tree->header()->sectionSize(1) > tree->viewport()->width() - tree->header()->sectionSize(0));
        QVERIFY(tree->horizontalScrollBar()->maximum() > 0); // the narrow dock scrolls
        w.grab().save(test::artifactDir() + "/main_window_tree_summaries.png");
    }

    void selectionFollowsTreeAndDocument() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("straight_waveguide")));
        const QModelIndex strip = w.treeModel()->indexOf({ItemKind::Object, 0});
        w.treeView()->setCurrentIndex(strip);
        QCOMPARE(w.document()->currentItem(), (ItemRef{ItemKind::Object, 0}));
        QCOMPARE(w.propertyEditor()->model()->item(), (ItemRef{ItemKind::Object, 0}));
        w.document()->setCurrentItem({ItemKind::Source, 0});
        QCOMPARE(w.treeView()->currentIndex(), w.treeModel()->indexOf({ItemKind::Source, 0}));
    }

    void editsAreUndoableAndRejectionsExplained() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("straight_waveguide")));
        SceneDocument* doc = w.document();
        // Insert > Box, then nudge it with the keyboard in the 3-D view; undo both.
        const int objects = int(doc->scene().objects.size());
        QAction* addBox = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text() == QLatin1String("Box"))
                addBox = a;
        QVERIFY(addBox);
        addBox->trigger();
        QCOMPARE(int(doc->scene().objects.size()), objects + 1);
        QCOMPARE(doc->currentItem(), (ItemRef{ItemKind::Object, objects}));
        QVERIFY(w.isWindowModified());
        const double x0 = doc->scene().objects.back().center[0];
        w.sceneView()->setFocus();
        QTest::keyClick(w.sceneView(), Qt::Key_Right);
        QCOMPARE(doc->scene().objects.back().center[0], x0 + doc->scene().cellUm);
        actionWithShortcut(&w, QKeySequence::Undo)->trigger();
        actionWithShortcut(&w, QKeySequence::Undo)->trigger();
        QCOMPARE(int(doc->scene().objects.size()), objects);
        actionWithShortcut(&w, QKeySequence::Redo)->trigger();
        QCOMPARE(int(doc->scene().objects.size()), objects + 1);
        // A rejected value is explained in the editor and the log, and not applied.
        doc->setCurrentItem({ItemKind::Grid, -1});
        const int steps = doc->undoStack()->count();
        QVERIFY(!w.propertyEditor()->model()->setValue("cell_um", "-1"));
        QVERIFY2(w.propertyEditor()->message().contains("Grid \u203a Cell size: must be > 0"),
                 qPrintable(w.propertyEditor()->message()));
        QVERIFY(w.log()->toPlainText().contains("Grid \u203a Cell size: must be > 0"));
        QCOMPARE(doc->undoStack()->count(), steps);
        QTest::qWait(50);
        w.propertyEditor()->grab().save(test::artifactDir() + "/properties_rejected.png");
        // Removing a material in use is refused with a reason.
        doc->setCurrentItem({ItemKind::Material, 0});
        QAction* del = actionWithShortcut(&w, QKeySequence::Delete);
        QVERIFY(del);
        del->trigger();
        QCOMPARE(int(doc->scene().materials.size()), 2);
        QVERIFY(w.log()->toPlainText().contains("Not removed"));
        // Unsaved changes: Cancel keeps the window open, Discard lets it close.
        answerNextMessageBox(QMessageBox::Cancel);
        QVERIFY(!w.maybeSave());
        answerNextMessageBox(QMessageBox::Discard);
        QVERIFY(w.maybeSave());
    }

    void impossibleTileGridIsExplainedBeforeRunning() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("straight_waveguide")));
        QSignalSpy estimated(w.estimator(), &Estimator::estimated);
        w.document()->undoStack()->push(
            new SetPropertyCommand(w.document(), {ItemKind::Run, -1}, "tiles", QVariantList{4, 2, 1}));
        QVERIFY(estimated.wait(30000));
        QVERIFY2(w.devicesPanel()->problem().contains("run.tiles"), qPrintable(w.devicesPanel()->problem()));
        QAction* run = w.findChild<QAction*>(QStringLiteral("runAction"));
        QVERIFY(!run->isEnabled());
        QVERIFY(run->toolTip().contains("run.tiles"));
        QVERIFY(!w.startRun());
        w.findChild<QDockWidget*>(QStringLiteral("devicesDock"))->raise();
        QTest::qWait(50);
        w.grab().save(test::artifactDir() + "/devices_impossible.png");
        w.document()->undoStack()->undo();
        QVERIFY(estimated.wait(30000));
        QVERIFY(w.devicesPanel()->problem().isEmpty());
        QVERIFY(run->isEnabled());
        QVERIFY(!w.devicesPanel()->bars()->devices().isEmpty());
        // Without a design region there is no gradient: explained, and only the forward run stays enabled.
        w.document()->undoStack()->push(new RemoveItemCommand(w.document(), {ItemKind::Design, 0}));
        QVERIFY(estimated.wait(30000));
        QVERIFY2(w.gradientPanel()->estimateText().contains("designs"),
                 qPrintable(w.gradientPanel()->estimateText()));
        QVERIFY(!w.findChild<QAction*>(QStringLiteral("gradientRunAction"))->isEnabled());
        QVERIFY(run->isEnabled());
        w.findChild<QDockWidget*>(QStringLiteral("gradientDock"))->raise();
        QTest::qWait(50);
        w.grab().save(test::artifactDir() + "/gradient_panel.png");
        w.document()->undoStack()->undo();
        QVERIFY(estimated.wait(30000));
        // With it back, the panel shows the per-device estimate of value and gradient, or says why not.
        QVERIFY(!w.gradientPanel()->bars()->devices().isEmpty() ||
                w.gradientPanel()->estimateText().contains("cannot run", Qt::CaseInsensitive));
    }

    void runShowsTelemetryAndResults() {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("quick_box")));
        w.setResultPath(dir_.filePath("quick_box.results.h5"));
        w.setMaxSteps(100);
        QSignalSpy telemetry(w.runner(), &Runner::telemetryReceived);
        QSignalSpy done(&w, &MainWindow::runCompleted);
        QVERIFY(w.startRun());
        QVERIFY(!w.findChild<QAction*>(QStringLiteral("runAction"))->isEnabled());
        QVERIFY(w.findChild<QAction*>(QStringLiteral("cancelAction"))->isEnabled());
        QVERIFY(done.wait(300000));
        QVERIFY(telemetry.count() >= 1);
        QVERIFY(w.runMonitor()->reportCount() >= 1);
        const auto result = done.first().first().value<RunResultPtr>();
        QCOMPARE(result->steps, 100);
        QVERIFY(!w.runMonitor()->bars()->devices().isEmpty());
        int forward = 0;
        for (int k = 0; k < w.runMonitor()->collectives()->columnCount(); ++k)
            forward += w.runMonitor()->collectives()->item(1, k)->text().toInt();
        QVERIFY(forward > 0);
        QCOMPARE(w.centralTabs()->currentWidget(), w.resultsView());
        QVERIFY(!w.resultsView()->results().snapshots.empty());
        QVERIFY(w.resultsView()->fieldView()->slice().varies());
        QTest::qWait(200);
        const QImage shot = w.grab().toImage();
        const QString path = test::artifactDir() + "/main_window_after_run.png";
        QVERIFY(shot.save(path));
        qInfo("screenshot: %s", qPrintable(path));
        // The field slice inside the window is coloured, not blank.
        const QImage field = w.resultsView()->fieldView()->grabFramebuffer();
        QVERIFY(test::distinctColours(field, field.rect()) > 20);
        // And the scene tab shows the scene.
        w.centralTabs()->setCurrentWidget(w.sceneView());
        QTest::qWait(100);
        w.grab().save(test::artifactDir() + "/main_window_scene.png");
    }

    /// Telemetry reaches the run monitor at most once a second within a phase (plus at once when a phase
    /// starts), in a run of a few seconds whose backend reports four times a second; the numbers left
    /// shown are the run's final ones, and stay so (a report held back by the throttle never lands after
    /// the end). While the run goes, the 3-D view is not re-rendered and nothing in the window composes
    /// through OpenGL (no QOpenGLWidget: each repaint would redraw the whole window).
    void telemetryThrottledAndFinalNumbersShown() {
        QFile in(example("quick_box"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QString json = QString::fromUtf8(in.readAll());
        QVERIFY(json.contains(QStringLiteral("\"duration_fs\": 19")));
        json.replace(QStringLiteral("\"duration_fs\": 19"), QStringLiteral("\"duration_fs\": 1000"));
        const QString scenePath = dir_.filePath("long_box.json");
        QFile out(scenePath);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(json.toUtf8());
        out.close();

        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(scenePath));
        w.setRunFolder(dir_.filePath("throttle.runs"));
        QVERIFY(w.findChildren<QOpenGLWidget*>().isEmpty());
        QTest::qWait(300); // the first paint of the 3-D view
        const int rendersBefore = w.sceneView()->renderCount();
        QSignalSpy raw(w.runner(), &Runner::telemetryReceived);
        QSignalSpy done(&w, &MainWindow::runCompleted);
        // Each report shown, with the time it was shown and its phase: taken when the monitor's bar moves
        // (inside showReport, after the count went up), and by a 5 ms poll for a report that leaves the bar
        // where it was.
        QElapsedTimer clock;
        std::vector<std::pair<double, QString>> shown;
        int seen = 0;
        auto record = [&] {
            if (w.runMonitor()->reportCount() != seen) {
                seen = w.runMonitor()->reportCount();
                shown.push_back({clock.nsecsElapsed() * 1e-9, w.runMonitor()->currentPhase()});
            }
        };
        connect(w.runMonitor()->progress(), &QProgressBar::valueChanged, this, record);
        QTimer poll;
        poll.setTimerType(Qt::PreciseTimer);
        poll.setInterval(5);
        connect(&poll, &QTimer::timeout, this, record);
        int rendersDuring = -1;
        connect(w.runner(), &Runner::runFinished, this,
                [&] { rendersDuring = w.sceneView()->renderCount() - rendersBefore; });
        clock.start();
        poll.start();
        QVERIFY(w.startRun());
        QVERIFY(done.wait(300000));
        poll.stop();
        const double seconds = clock.nsecsElapsed() * 1e-9;
        const auto result = done.first().first().value<RunResultPtr>();
        QVERIFY(result->completed);
        qInfo("%.2f s run: %d reports from the backend, %d shown", seconds, int(raw.count()),
              w.runMonitor()->reportCount());
        // The backend reports every 0.25 s: a run of over 1.5 s gives the throttle something to hold back
        // (1000 fs of quick_box: 400 fs took only 1.44 s on a quiet 2-core machine once the fused pass's
        // thread slabs were cut by plane cost).
        QVERIFY2(seconds > 1.5, qPrintable(QString::number(seconds)));
        QVERIFY(raw.count() >= 5);
        const int phases = int(result->phases.size());
        QCOMPARE(phases, 1);
        QVERIFY2(w.runMonitor()->reportCount() <= phases + int(seconds) + 1,
                 qPrintable(QString("%1 shown in %2 s").arg(w.runMonitor()->reportCount()).arg(seconds)));
        QVERIFY(w.runMonitor()->reportCount() < raw.count());
        QCOMPARE(int(shown.size()), w.runMonitor()->reportCount());
        for (std::size_t i = 1; i < shown.size(); ++i)
            if (shown[i].second == shown[i - 1].second)
                QVERIFY2(shown[i].first - shown[i - 1].first >= 0.99,
                         qPrintable(QString("reports %1 and %2 shown %3 s apart")
                                        .arg(i - 1)
                                        .arg(i)
                                        .arg(shown[i].first - shown[i - 1].first)));
        // The 3-D view was not drawn again while the run went.
        QCOMPARE(rendersDuring, 0);
        // The final numbers, and still the final numbers after the throttle's timer would have fired.
        auto checkFinal = [&] {
            QCOMPARE(w.runMonitor()->progress()->maximum(), result->totalSteps);
            QCOMPARE(w.runMonitor()->progress()->value(), result->steps);
            QCOMPARE(w.runMonitor()->phaseBar("forward")->value(), result->phases[0].step);
            QCOMPARE(w.runMonitor()->phaseBar("forward")->maximum(), int(result->phases[0].totalSteps));
            QVERIFY2(
                w.runMonitor()->statusText().startsWith(
                    QString("Completed %1 steps in %2 s").arg(result->steps).arg(result->seconds, 0, 'f', 1)),
                qPrintable(w.runMonitor()->statusText()));
            QCOMPARE(w.runMonitor()->timeText(), QString("%1 s / 0.0 s").arg(result->seconds, 0, 'f', 1));
        };
        checkFinal();
        const int reports = w.runMonitor()->reportCount();
        QTest::qWait(1300);
        QCOMPARE(w.runMonitor()->reportCount(), reports);
        checkFinal();
    }

    void valueAndGradientShowsGradientMap() {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("waveguide_bend")));
        w.setResultPath(dir_.filePath("bend.results.h5"));
        w.setMaxSteps(60);
        QSignalSpy done(&w, &MainWindow::runCompleted);
        QString why;
        QVERIFY2(w.startRun(true, &why), qPrintable(why));
        QVERIFY(done.wait(300000));
        const auto result = done.first().first().value<RunResultPtr>();
        QVERIFY2(result->completed, result->status.c_str());
        QVERIFY(!w.resultsView()->results().gradients.empty());
        QCOMPARE(w.resultsView()->tabs()->currentIndex(), 2);
        QVERIFY(w.resultsView()->gradientView()->slice().varies());
        QTest::qWait(200);
        QVERIFY(w.grab().save(test::artifactDir() + "/main_window_gradient.png"));
    }

    void cancelLeavesIncompleteResults() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("straight_waveguide")));
        w.setResultPath(dir_.filePath("cancelled.results.h5"));
        QSignalSpy telemetry(w.runner(), &Runner::telemetryReceived);
        QSignalSpy done(&w, &MainWindow::runCompleted);
        QVERIFY(w.startRun());
        QVERIFY(telemetry.wait(120000));
        w.findChild<QAction*>(QStringLiteral("cancelAction"))->trigger();
        QVERIFY(done.wait(120000));
        const auto result = done.first().first().value<RunResultPtr>();
        QVERIFY(!result->completed);
        QVERIFY(!w.resultsView()->results().complete);
        QVERIFY(w.resultsView()->results().status.startsWith("incomplete"));
        QVERIFY(w.findChild<QAction*>(QStringLiteral("runAction"))->isEnabled());
    }

    /// Insert offers every source and detector kind of the backend's schema; each inserts a valid item.
    void insertOffersEverySchemaKind() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("straight_waveguide")));
        SceneDocument* doc = w.document();
        for (const auto& e : scene::sourceTypes().entries) {
            auto* a = w.findChild<QAction*>(QStringLiteral("insertSource_") + QLatin1String(e.name));
            QVERIFY2(a, e.name);
            QVERIFY(a->text().contains(QLatin1String(e.label)));
            const int n = int(doc->scene().sources.size());
            a->trigger();
            QCOMPARE(int(doc->scene().sources.size()), n + 1);
            QCOMPARE(int(doc->scene().sources.back().type), e.value);
        }
        for (const auto& e : scene::detectorTypes().entries) {
            auto* a = w.findChild<QAction*>(QStringLiteral("insertDetector_") + QLatin1String(e.name));
            QVERIFY2(a, e.name);
            const int n = int(doc->scene().detectors.size());
            a->trigger();
            QCOMPARE(int(doc->scene().detectors.size()), n + 1);
            QCOMPARE(int(doc->scene().detectors.back().type), e.value);
        }
        try {
            scene::validateScene(doc->scene());
        } catch (const std::exception& ex) {
            QFAIL(ex.what());
        }
    }

    /// File > Open recent names each file by its full path: two scenes of one name in different folders
    /// stay apart, and each entry opens its own file.
    void recentFilesShowFullPaths() {
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath("a")) && QDir().mkpath(dir.filePath("b")));
        const QString a = dir.filePath("a/box.json"), b = dir.filePath("b/box.json");
        QVERIFY(QFile::copy(example("quick_box"), a) && QFile::copy(example("quick_box"), b));
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(a));
        QVERIFY(w.openScene(b));
        QMenu* recent = nullptr;
        for (QMenu* m : w.findChildren<QMenu*>())
            if (m->title().remove('&') == "Open recent")
                recent = m;
        QVERIFY(recent);
        emit recent->aboutToShow();
        QStringList texts;
        QAction* openA = nullptr;
        for (QAction* act : recent->actions()) {
            texts << act->text();
            if (act->data().toString() == a)
                openA = act;
        }
        QVERIFY2(texts.size() >= 2 && texts[0].contains(b) && texts[1].contains(a),
                 qPrintable(texts.join(" | ")));
        QVERIFY(openA);
        openA->trigger();
        QCOMPARE(w.document()->filePath(), a);
    }

    /// Duplicate, Copy/Paste, Rename (in the tree) and Hide, each with its shortcut, each undoable.
    void elementEditingActions() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("straight_waveguide")));
        SceneDocument* doc = w.document();
        QCOMPARE(w.findChild<QAction*>("duplicateAction")->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_D));
        QCOMPARE(w.findChild<QAction*>("copyAction")->shortcut(), QKeySequence(QKeySequence::Copy));
        QCOMPARE(w.findChild<QAction*>("pasteAction")->shortcut(), QKeySequence(QKeySequence::Paste));
        QCOMPARE(w.findChild<QAction*>("renameAction")->shortcut(), QKeySequence(Qt::Key_F2));
        QVERIFY(w.treeView()->actions().contains(w.findChild<QAction*>("duplicateAction")));
        const int objects = int(doc->scene().objects.size());
        const std::string first = doc->scene().objects[0].name;
        doc->setCurrentItem({ItemKind::Object, 0});
        w.findChild<QAction*>("duplicateAction")->trigger();
        QCOMPARE(int(doc->scene().objects.size()), objects + 1);
        QVERIFY(doc->scene().objects[1].name != first);
        QCOMPARE(doc->scene().objects[1].center, doc->scene().objects[0].center);
        QVERIFY(doc->undoStack()->undoText().startsWith("Duplicate"));
        doc->undoStack()->undo();
        QCOMPARE(int(doc->scene().objects.size()), objects);
        // Copy a detector, paste it: a second one with a fresh name.
        const int detectors = int(doc->scene().detectors.size());
        doc->setCurrentItem({ItemKind::Detector, 0});
        QVERIFY(w.copyCurrent());
        QVERIFY(w.paste());
        QCOMPARE(int(doc->scene().detectors.size()), detectors + 1);
        QVERIFY(doc->scene().detectors.back().name != doc->scene().detectors[0].name);
        QCOMPARE(int(doc->scene().detectors.back().type), int(doc->scene().detectors[0].type));
        // Rename in the tree: an undo step with the human label; a clash is refused.
        const QModelIndex idx = w.treeModel()->indexOf({ItemKind::Object, 0});
        QVERIFY(w.treeModel()->flags(idx) & Qt::ItemIsEditable);
        QVERIFY(w.treeModel()->setData(idx, "core_strip"));
        QCOMPARE(doc->scene().objects[0].name, std::string("core_strip"));
        QVERIFY(doc->undoStack()->undoText().contains("› Name"));
        // Hide in the view only, by its shortcut in the tree.
        QCOMPARE(w.findChild<QAction*>("hideAction")->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_H));
        doc->setCurrentItem({ItemKind::Object, 0});
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.treeView()->setFocus();
        QTest::keyClick(w.treeView(), Qt::Key_H, Qt::ControlModifier);
        QVERIFY(w.sceneView()->isItemHidden({ItemKind::Object, 0}));
        int shown = 0;
        for (const auto& p : w.sceneView()->actors().props)
            if (p.ref == ItemRef{ItemKind::Object, 0})
                shown += p.prop->GetVisibility();
        QCOMPARE(shown, 0);
        QCOMPARE(int(doc->scene().objects.size()), objects); // the scene keeps it
        w.findChild<QAction*>("hideAction")->trigger();
        QVERIFY(!w.sceneView()->isItemHidden({ItemKind::Object, 0}));
        // The save dialog of a saved scene starts at its file; of a new one, in the last folder with its
        // name.
        QCOMPARE(w.saveDialogPath(), QFileInfo(example("straight_waveguide")).absoluteFilePath());
        if (w.isWindowModified())
            answerNextMessageBox(QMessageBox::Discard);
        QVERIFY(w.newScene());
        QVERIFY(w.saveDialogPath().endsWith(QString::fromStdString(w.document()->scene().name.empty()
                                                                       ? std::string("untitled")
                                                                       : w.document()->scene().name) +
                                            ".json"));
        QVERIFY(w.saveDialogPath().startsWith(QFileInfo(example("straight_waveguide")).absolutePath()));
    }

    /// Help: About with the build options, the local documentation, the shortcuts.
    void helpMenu() {
        MainWindow w;
        QMenu* help = nullptr;
        for (QAction* a : w.menuBar()->actions())
            if (a->text().remove('&') == "Help")
                help = a->menu();
        QVERIFY(help);
        QVERIFY(w.findChild<QAction*>("aboutAction"));
        QVERIFY(w.findChild<QAction*>("shortcutsAction"));
        const QStringList keys = shortcutLines(&w);
        QVERIFY(keys.size() >= 8);
        bool save = false;
        for (const QString& l : keys)
            save |= l.endsWith("	Save");
        QVERIFY2(save, qPrintable(keys.join(" | ")));
        auto* docs = w.findChild<QMenu*>("documentationMenu");
        QVERIFY(docs && !docs->actions().isEmpty() && docs->actions()[0]->isEnabled());
    }

    /// Every studio run writes its own numbered results file in the scene's run folder, listed in the run
    /// history; a rerun never touches an earlier file.
    void runsNeverOverwriteEachOther() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("quick_box")));
        const QString folder = dir_.filePath("quick_box.runs");
        w.setRunFolder(folder);
        w.setMaxSteps(20);
        QSignalSpy done(&w, &MainWindow::runCompleted);
        QVERIFY(w.startRun());
        QVERIFY(done.wait(300000));
        const QString first = done.last().at(1).toString();
        QCOMPARE(first, RunHistory::runFile(folder, 1));
        QCOMPARE(w.runHistory()->count(), 1);
        const QDateTime firstWritten = QFileInfo(first).lastModified();
        QByteArray firstBytes;
        {
            QFile f(first);
            QVERIFY(f.open(QIODevice::ReadOnly));
            firstBytes = f.readAll();
        }
        QTest::qWait(20);
        QVERIFY(w.startRun());
        QVERIFY(done.wait(300000));
        const QString second = done.last().at(1).toString();
        QCOMPARE(second, RunHistory::runFile(folder, 2));
        QCOMPARE(w.runHistory()->count(), 2);
        QCOMPARE(w.runHistory()->pathAt(0), second);
        QCOMPARE(w.runHistory()->statusAt(1), QString("complete"));
        QCOMPARE(QFileInfo(first).lastModified(), firstWritten);
        QFile f(first);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll() == firstBytes);
        // The results shown are the latest run's, for the open scene: no warning.
        QCOMPARE(w.resultsView()->results().path, QFileInfo(second).absoluteFilePath());
        QVERIFY(w.resultsWarning().isEmpty());
        QVERIFY(w.grab().save(test::artifactDir() + "/main_window_run_history.png"));
    }

    /// Results of another scene are shown with a warning; New scene clears results from view.
    void foreignResultsWarnAndNewSceneClears() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("quick_box")));
        w.setRunFolder(dir_.filePath("foreign.runs"));
        w.setMaxSteps(10);
        QSignalSpy done(&w, &MainWindow::runCompleted);
        QVERIFY(w.startRun());
        QVERIFY(done.wait(300000));
        const QString path = done.last().at(1).toString();
        QVERIFY(w.resultsWarning().isEmpty());
        QVERIFY(w.openScene(example("straight_waveguide")));
        QVERIFY(w.resultsView()->results().empty()); // a scene switch clears old results
        QVERIFY(w.openResults(path));
        QVERIFY2(w.resultsWarning().contains("different scene"), qPrintable(w.resultsWarning()));
        QVERIFY(w.resultsView()->findChild<QLabel*>("resultsNotice")->isVisible());
        QVERIFY(w.grab().save(test::artifactDir() + "/main_window_foreign_results.png"));
        QVERIFY(w.openScene(example("quick_box")));
        QVERIFY(w.openResults(path));
        QVERIFY(w.resultsWarning().isEmpty());
        QVERIFY(!w.resultsView()->results().empty());
        QVERIFY(w.newScene());
        QVERIFY(w.resultsView()->results().empty());
        QVERIFY(w.resultsView()->headerText().startsWith("No results"));
        QVERIFY(w.resultsWarning().isEmpty());
    }

    /// Cancel pressed during the reverse sweep of a value-and-grad run stops it: the monitor follows the
    /// adjoint phase, the results are marked incomplete naming it, and the file is written.
    void cancelInReverseSweep() {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("waveguide_bend")));
        w.setRunFolder(dir_.filePath("bend.runs"));
        w.setMaxSteps(kReverseSteps);
        QSignalSpy done(&w, &MainWindow::runCompleted);
        bool clicked = false;
        QString statusAtClick;
        connect(w.runner(), &Runner::telemetryReceived, this, [&](const telemetry::Report& r) {
            // The reverse sweep: an adjoint report or, for this checkpointed sweep, a reconstruct one (the
            // throttled reports may all land in reconstruct segments).
            const bool reverse = r.phase == "adjoint" || r.phase == "reconstruct";
            if (reverse && !clicked && r.step < r.totalSteps) {
                clicked = true;
                statusAtClick = w.runMonitor()->statusText();
                w.grab().save(test::artifactDir() + "/main_window_reverse_sweep.png");
                w.runMonitor()->cancelButton()->click();
            }
        });
        QString why;
        QVERIFY2(w.startRun(true, &why), qPrintable(why));
        QVERIFY(done.wait(300000));
        QVERIFY(clicked);
        QVERIFY2(statusAtClick.startsWith("Running: adjoint phase") ||
                     statusAtClick.startsWith("Running: reconstruct phase"),
                 qPrintable(statusAtClick));
        const auto result = done.first().first().value<RunResultPtr>();
        QVERIFY(!result->completed);
        // Stopped at the next guard of the reverse sweep: an adjoint step or, for a checkpointed sweep,
        // a recomputed one.
        const QString status = QString::fromStdString(result->status);
        QVERIFY2(status.startsWith("cancelled in the adjoint phase") ||
                     status.startsWith("cancelled in the reconstruct phase"),
                 result->status.c_str());
        QVERIFY(!w.resultsView()->results().complete);
        QCOMPARE(w.resultsView()->results().status, "incomplete: " + status);
        QVERIFY(w.runMonitor()->statusText().startsWith("Stopped: " + status));
        QVERIFY(w.runMonitor()->phaseBar("adjoint")->value() < kReverseSteps);
        QCOMPARE(w.runHistory()->count(), 1);
        QCOMPARE(w.runHistory()->statusAt(0), "incomplete: " + status);
        QVERIFY(w.findChild<QAction*>(QStringLiteral("runAction"))->isEnabled());
    }

    /// The studio's run of quick_box against yee-run's on the same machine, interleaved: the time loop
    /// (RunResult::seconds against the CLI's summary) and the whole round trip (start to results shown,
    /// against the process's wall time). Prints the numbers; the time loop must not be slower by more than
    /// the machine's noise.
    void studioAsFastAsCli() {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("quick_box")));
        w.setRunFolder(dir_.filePath("speed.runs"));
        QSignalSpy done(&w, &MainWindow::runCompleted);
        std::vector<double> cliLoop, cliWall, studioLoop, studioWall;
        for (int rep = 0; rep < 3; ++rep) {
            QElapsedTimer t;
            t.start();
            QProcess p;
            p.start(QStringLiteral(YEE_RUN_EXE), {example("quick_box"), "-o", dir_.filePath("cli.h5")});
            QVERIFY(p.waitForFinished(300000));
            cliWall.push_back(t.elapsed() / 1000.0);
            const QString out = QString::fromLocal8Bit(p.readAllStandardOutput());
            const QRegularExpression re(QStringLiteral("steps in ([0-9.]+) s"));
            const auto m = re.match(out);
            QVERIFY2(m.hasMatch(), qPrintable(out));
            cliLoop.push_back(m.captured(1).toDouble());
            t.restart();
            QVERIFY(w.startRun());
            QVERIFY(done.wait(300000));
            QTest::qWait(0); // the results are shown by now (runCompleted comes after)
            studioWall.push_back(t.elapsed() / 1000.0);
            studioLoop.push_back(done.last().first().value<RunResultPtr>()->seconds);
        }
        auto best = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
        qInfo("quick_box time loop: yee-run %.3f s, studio %.3f s (best of 3; ratio %.2f)", best(cliLoop),
              best(studioLoop), best(studioLoop) / best(cliLoop));
        qInfo("quick_box round trip: yee-run process %.3f s, studio start-to-results %.3f s (best of 3)",
              best(cliWall), best(studioWall));
        // Speed targets are measured by benchmarks, not asserted by timed tests (these machines are noisy);
        // this bound only catches a studio that is an order of magnitude slower than the runner.
        QVERIFY2(
            best(studioLoop) <= 4 * best(cliLoop) + 0.5,
            qPrintable(QString("studio %1 s against yee-run %2 s").arg(best(studioLoop)).arg(best(cliLoop))));
    }

    /// At 1024x700 Cancel stays reachable and the estimates stay visible; at 1600x1000 no dock needs a
    /// scroll bar.
    void layoutsSmallAndLarge() {
        QSettings().remove(QStringLiteral("mainWindow/state"));
        MainWindow w;
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openScene(example("quick_box")));
        QTest::qWait(200);
        // The docks' minimum widths can hold the window wider than asked: say how wide it really is.
        qInfo("asked for 1024x700, the window is %dx%d", w.width(), w.height());
        QCOMPARE(w.height(), 700);
        w.findChild<QDockWidget*>("runMonitorDock")->raise();
        QTest::qWait(100);
        QVERIFY2(!w.runMonitor()->cancelButton()->visibleRegion().isEmpty(),
                 "Cancel is out of sight at 1024x700");
        w.grab().save(test::artifactDir() + "/layout_1024x700_monitor.png");
        w.findChild<QDockWidget*>("devicesDock")->raise();
        QTest::qWait(100);
        QVERIFY2(!w.devicesPanel()->bars()->visibleRegion().isEmpty(),
                 "the estimate is out of sight at 1024x700");
        w.grab().save(test::artifactDir() + "/layout_1024x700_devices.png");
        // The value-and-grad estimate too, next to the method that sets it.
        w.findChild<QDockWidget*>("gradientDock")->raise();
        QTest::qWait(100);
        auto* gradEstimate = w.gradientPanel()->findChild<QLabel*>("gradientTimeEstimate");
        QVERIFY(gradEstimate);
        QVERIFY2(!gradEstimate->visibleRegion().isEmpty(),
                 "the gradient estimate is out of sight at 1024x700");
        // Its choice boxes show whole names ("checkpointed", not "checkpointed \u2014 binomial c\u2026"); the
        // help is in the tooltips.
        for (auto* box : w.gradientPanel()->findChildren<QComboBox*>()) {
            QStyleOptionComboBox opt;
            opt.initFrom(box);
            const int field =
                box->style()
                    ->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, box)
                    .width();
            for (int i = 0; i < box->count(); ++i)
                QVERIFY2(box->fontMetrics().horizontalAdvance(box->itemText(i)) <= field,
                         qPrintable(QString("%1: \"%2\" needs %3 px, the box shows %4")
                                        .arg(box->objectName(), box->itemText(i))
                                        .arg(box->fontMetrics().horizontalAdvance(box->itemText(i)))
                                        .arg(field)));
        }
        auto* method = w.gradientPanel()->methodBox();
        method->setCurrentIndex(method->findData("checkpointed"));
        QCOMPARE(method->currentText(), QString("checkpointed"));
        QCOMPARE(method->toolTip(), QString("checkpointed \u2014 binomial checkpoints, exact"));
        // No dock's minimum width holds the window wider than asked, and every right-hand panel shows its
        // main control without a horizontal scroll bar.
        QCOMPARE(w.width(), 1024);
        const std::vector<std::pair<const char*, QWidget*>> panels = {
            {"devicesDock", w.devicesPanel()->bars()},
            {"gradientDock", w.gradientPanel()->methodBox()},
            {"objectiveDock", w.objectiveEditor()->findChild<QPushButton*>("addRow")},
            {"optimizeDock", w.optimizePanel()->findChild<QPushButton*>("optStart")},
            {"materialDock", w.materialEditor()->findChild<QPushButton*>("materialApply")},
            {"runMonitorDock", w.runMonitor()->cancelButton()}};
        for (const auto& [name, control] : panels) {
            auto* dock = w.findChild<QDockWidget*>(name);
            dock->raise();
            QTest::qWait(100);
            QVERIFY2(control && !control->visibleRegion().isEmpty(), name);
            for (auto* area : dock->findChildren<QScrollArea*>())
                if (area->parentWidget() == dock)
                    QVERIFY2(!area->horizontalScrollBar()->isVisible(),
                             qPrintable(QString("%1: the panel needs %2 px, the dock gives %3")
                                            .arg(name)
                                            .arg(area->widget()->minimumSizeHint().width())
                                            .arg(area->viewport()->width())));
            // Every spin box the panel shows displays its whole text (a value or a special text).
            for (auto* spin : dock->findChildren<QAbstractSpinBox*>()) {
                auto* edit = spin->findChild<QLineEdit*>();
                if (!spin->isVisible() || spin->visibleRegion().isEmpty() || !edit)
                    continue;
                const int need = edit->fontMetrics().horizontalAdvance(edit->text());
                QVERIFY2(need <= edit->width() - 2,
                         qPrintable(QString("%1: \"%2\" needs %3 px, the spin box shows %4")
                                        .arg(name, edit->text())
                                        .arg(need)
                                        .arg(edit->width() - 2)));
            }
            w.grab().save(test::artifactDir() + "/layout_1024x700_" + name + ".png");
        }
        // The material's plot shows whole, axis titles included (it was squashed under a page-sized gap).
        {
            w.findChild<QDockWidget*>("materialDock")->raise();
            QTest::qWait(100);
            auto* plot = w.materialEditor()->findChild<QWidget*>("materialPlot");
            QVERIFY(plot);
            // Inside the dock's scroll viewport, whole (its own visible region is its viewport child's).
            QScrollArea* area = nullptr;
            for (auto* a : w.findChild<QDockWidget*>("materialDock")->findChildren<QScrollArea*>())
                area = area ? area : a;
            QVERIFY(area);
            const QRect inViewport(plot->mapTo(area->viewport(), QPoint(0, 0)), plot->size());
            QVERIFY2(area->viewport()->rect().contains(inViewport) && plot->height() >= 180,
                     qPrintable(QString("the plot spans y %1..%2, the dock shows 0..%3")
                                    .arg(inViewport.top())
                                    .arg(inViewport.bottom())
                                    .arg(area->viewport()->height())));
            // Its axis titles are whole, and the legend lists only what is drawn (no data loaded here).
            auto* chart = qobject_cast<QChartView*>(plot)->chart();
            int markers = 0;
            for (QLegendMarker* m : chart->legend()->markers())
                markers += m->isVisible();
            QCOMPARE(markers, 2); // Re and Im of the constant permittivity
            auto* ay = chart->axes(Qt::Vertical).value(0);
            QVERIFY(ay);
            QVERIFY2(QFontMetrics(ay->titleFont()).horizontalAdvance(ay->titleText()) <=
                         chart->plotArea().height(),
                     qPrintable(ay->titleText()));
        }
        // A value-and-grad run on one device: at 1280x800 the memory bars show whole, without a scroll bar.
        {
            telemetry::Report r;
            r.phase = "adjoint";
            r.step = 10;
            r.totalSteps = 100;
            r.phases = {{"forward", 100, 100, 1.0}, {"reconstruct", 50, 100, 0.5}, {"adjoint", 10, 100, 0.1}};
            telemetry::DeviceReport d;
            d.name = "cpu:0";
            d.capacity = std::int64_t(16) << 30;
            d.memory.current[int(device::Category::Fields)] = 15 << 20;
            d.memory.peak[int(device::Category::Fields)] = 15 << 20;
            d.memory.peak[int(device::Category::Recorder)] = 40 << 20;
            d.memory.currentTotal = 15 << 20;
            d.memory.peakTotal = 55 << 20;
            r.devices = {d};
            w.runMonitor()->showReport(r);
        }
        w.resize(1280, 800);
        w.findChild<QDockWidget*>("runMonitorDock")->raise();
        QTest::qWait(200);
        auto* memScroll = w.runMonitor()->findChild<QScrollArea*>("memoryScroll");
        QVERIFY(memScroll);
        QVERIFY2(!memScroll->verticalScrollBar()->isVisible(),
                 qPrintable(QString("the memory bars need %1 px, get %2 at 1280x800")
                                .arg(w.runMonitor()->bars()->heightForWidth(memScroll->viewport()->width()))
                                .arg(memScroll->viewport()->height())));
        QVERIFY(!w.runMonitor()->cancelButton()->visibleRegion().isEmpty());
        w.grab().save(test::artifactDir() + "/layout_1280x800_monitor.png");
        w.resize(1600, 1000);
        QTest::qWait(200);
        QVERIFY(!memScroll->verticalScrollBar()->isVisible());
        // No dock needs a scroll bar at 1600x1000, in either direction.
        int scrolling = 0;
        for (QDockWidget* dock : w.findChildren<QDockWidget*>()) {
            if (dock->isHidden())
                continue;
            dock->raise();
            QTest::qWait(100);
            for (auto* area : dock->findChildren<QScrollArea*>())
                if (area->parentWidget() == dock) {
                    ++scrolling;
                    QVERIFY2(!area->verticalScrollBar()->isVisible() &&
                                 !area->horizontalScrollBar()->isVisible(),
                             qPrintable(QString("%1: the panel needs %2 px, the dock gives %3")
                                            .arg(dock->objectName())
                                            .arg(area->widget()->sizeHint().height())
                                            .arg(area->viewport()->height())));
                }
        }
        QVERIFY(scrolling >= 5); // devices, gradient, objective, optimise, materials
        // The docks' tabs show whole titles (scrolling when they do not all fit), never "De…", "G…".
        int tabs = 0;
        for (QTabBar* bar : w.findChildren<QTabBar*>()) {
            if (bar->parentWidget() != &w || !bar->isVisible())
                continue;
            QCOMPARE(bar->elideMode(), Qt::ElideNone);
            for (int i = 0; i < bar->count(); ++i, ++tabs)
                QVERIFY2(bar->tabRect(i).width() >= bar->fontMetrics().horizontalAdvance(bar->tabText(i)),
                         qPrintable(bar->tabText(i)));
        }
        QVERIFY(tabs >= 9); // seven on the right, the log and the run history
        // The default layout at this size (as at a first start here, or View > Reset layout): the seven
        // right-hand tabs fit without scroll buttons, and the scene tree shows more than it hides.
        w.resetLayout();
        QTest::qWait(200);
        for (QTabBar* bar : w.findChildren<QTabBar*>()) {
            if (bar->parentWidget() != &w || !bar->isVisible() || bar->count() < 7)
                continue;
            QVERIFY2(bar->tabRect(bar->count() - 1).right() <= bar->width(),
                     qPrintable(QString("the tabs need %1 px, the bar has %2")
                                    .arg(bar->tabRect(bar->count() - 1).right())
                                    .arg(bar->width())));
        }
        QVERIFY(w.findChild<QDockWidget*>("sceneTreeDock")->width() >= 320);
        QVERIFY(w.findChild<QDockWidget*>("sceneTreeDock")->height() >= 400);
        w.grab().save(test::artifactDir() + "/layout_1600x1000.png");
    }

    void layoutPersists() {
        {
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.findChild<QDockWidget*>(QStringLiteral("logDock"))->hide();
            w.saveLayout();
        }
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(!w.findChild<QDockWidget*>(QStringLiteral("logDock"))->isVisible());
        w.resetLayout();
        QVERIFY(w.findChild<QDockWidget*>(QStringLiteral("logDock"))->isVisible());
    }

private:
    QTemporaryDir dir_;
};

QTEST_MAIN(tst_MainWindow)
#include "tst_MainWindow.moc"
