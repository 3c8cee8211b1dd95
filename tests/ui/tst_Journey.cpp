/// One scripted end-to-end journey in a real window: a scene built from scratch through the studio's
/// own actions (material, object, source, detector, design region, objective term, two emulated
/// devices), a value-and-grad run, a second run cancelled in its reverse sweep, and the first results
/// opened again from the run history, asserting at every step on what the window shows. Screenshots of
/// every step are written to <build>/ui-artifacts/journey_*.png.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>
#include <cmath>

#include "RenderTestUtil.hpp"
#include "ui/DetectorPlot.hpp"
#include "ui/DevicesPanel.hpp"
#include "ui/FieldView.hpp"
#include "ui/GradientPanel.hpp"
#include "ui/LogPanel.hpp"
#include "ui/MainWindow.hpp"
#include "ui/PropertyEditor.hpp"
#include "ui/PropertyModel.hpp"
#include "ui/ResultsView.hpp"
#include "ui/RunHistory.hpp"
#include "ui/RunMonitor.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneTreeModel.hpp"
#include "ui/SceneView.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;
using namespace yee::ui;

namespace {
/// Save the window as journey_<name>.png, after 150 ms of event processing (pending repaints, the
/// debounced estimate) unless `settle` is false.
void shot(MainWindow& w, const char* name, bool settle = true) {
    if (settle)
        QTest::qWait(150);
    const QString path = test::artifactDir() + QStringLiteral("/journey_%1.png").arg(QLatin1String(name));
    QVERIFY2(w.grab().save(path), qPrintable(path));
}

void trigger(MainWindow& w, const char* objectName) {
    auto* a = w.findChild<QAction*>(QLatin1String(objectName));
    QVERIFY2(a, objectName);
    a->trigger();
}

void triggerText(MainWindow& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == text) {
            a->trigger();
            return;
        }
    QFAIL(qPrintable("no action " + text));
}

/// Select `ref` by clicking its row in the scene tree, as a user does.
void clickTree(MainWindow& w, const ItemRef& ref) {
    auto* tree = w.findChild<QTreeView*>(QStringLiteral("sceneTree"));
    QVERIFY(tree);
    auto* model = qobject_cast<SceneTreeModel*>(tree->model());
    QVERIFY(model);
    const QModelIndex idx = model->indexOf(ref);
    QVERIFY(idx.isValid());
    tree->scrollTo(idx);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualRect(idx).center());
    QVERIFY(w.document()->currentItem() == ref);
}

/// The property editor's value cell of `key`, scrolled into view.
QModelIndex valueCell(MainWindow& w, const char* key) {
    PropertyEditor* pe = w.propertyEditor();
    const int row = pe->model()->rowOf(QLatin1String(key));
    if (row < 0)
        return {};
    const QModelIndex idx = pe->model()->index(row, 1);
    pe->view()->scrollTo(idx);
    return idx;
}

/// Click `key`'s value cell and press F2 (the platform's edit key); return the in-place editor that
/// opened.
QWidget* openEditor(MainWindow& w, const char* key) {
    const QModelIndex idx = valueCell(w, key);
    if (!idx.isValid())
        return nullptr;
    QTableView* view = w.propertyEditor()->view();
    const QRect cell = view->visualRect(idx);
    if (!view->viewport()->rect().contains(cell.center()))
        return nullptr;
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    if (view->currentIndex() != idx)
        return nullptr;
    const auto editorOverCell = [&]() -> QWidget* {
        for (QWidget* e : view->viewport()->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            if (e->isVisible() && e->geometry().contains(cell.center()))
                return e;
        return nullptr;
    };
    // A click on a cell that was already selected opens its editor itself, after the double-click
    // interval (and refuses F2 meanwhile); otherwise F2 opens it.
    QTest::qWait(QApplication::doubleClickInterval() + 50);
    if (!editorOverCell())
        QTest::keyClick(view, Qt::Key_F2);
    return editorOverCell();
}

/// Type `text` into property `key` of the current item: click its value, F2, type, Enter. The
/// editor then shows no rejection and the cell shows the value.
void typeProp(MainWindow& w, const char* key, const QString& text) {
    auto* edit = qobject_cast<QLineEdit*>(openEditor(w, key));
    QVERIFY2(edit, key);
    edit->selectAll();
    QTest::keyClicks(edit, text);
    QCOMPARE(edit->text(), text);
    QPointer<QLineEdit> open(edit);
    QTest::keyClick(edit, Qt::Key_Return);
    // The delegate commits and closes on the next turn of the event loop.
    QTRY_VERIFY(!open || !open->isVisible());
    QVERIFY2(w.propertyEditor()->message().isEmpty(), qPrintable(w.propertyEditor()->message()));
    QVERIFY2(!valueCell(w, key).data(Qt::DisplayRole).toString().isEmpty(), key);
}

/// Open `combo`'s list and click entry `i`, as a user does (the combo then emits activated).
void pick(QComboBox* combo, int i) {
    QVERIFY2(i >= 0 && i < combo->count(), qPrintable(combo->objectName()));
    combo->showPopup();
    QAbstractItemView* list = combo->view();
    QTRY_VERIFY(list->isVisible());
    const QModelIndex item = list->model()->index(i, combo->modelColumn(), list->rootIndex());
    list->scrollTo(item);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(item).center());
    QTRY_VERIFY(!list->isVisible());
    QCOMPARE(combo->currentIndex(), i);
}

/// Type `value` into a spin box as a user does (select all, type, Enter).
void typeSpin(QSpinBox* spin, int value) {
    QVERIFY(spin && spin->isVisible() && spin->isEnabled());
    spin->setFocus(Qt::MouseFocusReason);
    spin->selectAll();
    QTest::keyClicks(spin, QString::number(value));
    QTest::keyClick(spin, Qt::Key_Return);
    QCOMPARE(spin->value(), value);
}

/// Choose `choice` for property `key` of the current item: click its value, F2, open the combo's
/// list and click the entry. The cell then shows the choice.
void chooseProp(MainWindow& w, const char* key, const QString& choice) {
    auto* combo = qobject_cast<QComboBox*>(openEditor(w, key));
    QVERIFY2(combo, key);
    pick(combo, combo->findText(choice));
    if (QTest::currentTestFailed())
        return;
    QVERIFY2(w.propertyEditor()->message().isEmpty(), qPrintable(w.propertyEditor()->message()));
    QCOMPARE(valueCell(w, key).data(Qt::DisplayRole).toString(), choice);
}

/// Click the main tool bar's button of the action named `objectName` (it must be enabled).
void clickTool(MainWindow& w, const char* objectName) {
    auto* a = w.findChild<QAction*>(QLatin1String(objectName));
    QVERIFY2(a, objectName);
    QVERIFY2(a->isEnabled(), qPrintable(a->toolTip()));
    auto* tb = w.findChild<QToolBar*>(QStringLiteral("mainToolBar"));
    QWidget* b = tb ? tb->widgetForAction(a) : nullptr;
    QVERIFY2(b && b->isVisible(), objectName);
    QTest::mouseClick(b, Qt::LeftButton);
}

/// A double click as the window system delivers it: press, release, double-click, release.
void doubleClick(QWidget* target, QPoint pos) {
    QTest::mousePress(target, Qt::LeftButton, {}, pos);
    QTest::mouseRelease(target, Qt::LeftButton, {}, pos);
    QMouseEvent dbl(QEvent::MouseButtonDblClick, pos, target->mapToGlobal(pos), Qt::LeftButton,
                    Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &dbl);
    QTest::mouseRelease(target, Qt::LeftButton, {}, pos);
}

/// Raise the dock named `objectName` (its tab, when tabbed) as a click on its tab does.
void raiseDock(MainWindow& w, const char* objectName) {
    auto* d = w.findChild<QDockWidget*>(QLatin1String(objectName));
    QVERIFY2(d, objectName);
    d->raise();
    QTRY_VERIFY(d->widget()->isVisible());
}

/// A duration for `steps` steps of the scene's time step, rounded up to four digits.
QString durationFor(const scene::Scene& s, int steps) {
    const double fs = steps * s.dtFs();
    const double scale = std::pow(10.0, 3 - int(std::floor(std::log10(fs))));
    return QString::number(std::ceil(fs * scale) / scale, 'g', 6);
}
} // namespace

/// Run a helper that checks with QVERIFY and stop the test when it failed.
#define STEP(...)                                                                                            \
    do {                                                                                                     \
        __VA_ARGS__;                                                                                         \
        if (QTest::currentTestFailed())                                                                      \
            return;                                                                                          \
    } while (0)

class tst_Journey : public QObject {
    Q_OBJECT
public:
    static void initMain() {
        VtkWidget::installDefaultFormat();
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("YeeStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_Journey"));
    }

private slots:
    void initTestCase() {
        QSettings().clear();
        QVERIFY(dir_.isValid());
    }

    void buildRunCancelReopen() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Typing goes to the focused editor, as on a desktop: the window is the active one.
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.setRunFolder(dir_.filePath("journey.runs"));
        SceneDocument* doc = w.document();
        QVERIFY(w.newScene());
        STEP(shot(w, "01_new_scene"));

        // ---- a scene from scratch, through the tree, the property cells and the panels ----
        STEP(triggerText(w, QStringLiteral("Material")));
        QCOMPARE(int(doc->scene().materials.size()), 2);
        STEP(typeProp(w, "eps", QStringLiteral("4")));
        QCOMPARE(doc->scene().materials.back().eps, 4.0);
        const std::string material = doc->scene().materials.back().name;
        const QString materialName = QString::fromStdString(material);
        STEP(triggerText(w, QStringLiteral("Box")));
        QCOMPARE(int(doc->scene().objects.size()), 1);
        STEP(chooseProp(w, "material", materialName));
        STEP(typeProp(w, "size_um", QStringLiteral("2.0, 0.4, 0.3")));
        QCOMPARE(doc->scene().objects[0].material, material);
        QCOMPARE(doc->scene().objects[0].size[0], 2.0);
        QCOMPARE(doc->scene().objects[0].size[2], 0.3);
        STEP(shot(w, "02_object"));
        STEP(trigger(w, "insertSource_gaussian_plane"));
        QCOMPARE(int(doc->scene().sources.size()), 1);
        STEP(trigger(w, "insertDetector_flux"));
        QCOMPARE(int(doc->scene().detectors.size()), 1);
        const QString detectorName = QString::fromStdString(doc->scene().detectors[0].name);
        // The objective: a term on the flux plane, picked in the tree.
        STEP(clickTree(w, {ItemKind::Detector, 0}));
        STEP(trigger(w, "insertObjectiveTerm"));
        QCOMPARE(int(doc->scene().objective.terms.size()), 1);
        QCOMPARE(doc->scene().objective.terms[0].detector, doc->scene().detectors[0].name);
        STEP(triggerText(w, QStringLiteral("Design region")));
        QCOMPARE(int(doc->scene().designs.size()), 1);
        STEP(chooseProp(w, "materials[0]", QStringLiteral("air")));
        STEP(chooseProp(w, "materials[1]", materialName));
        QCOMPARE(doc->scene().designs[0].materials[1], material);
        // Two emulated devices, one tile each, in the Devices panel.
        STEP(raiseDock(w, "devicesDock"));
        STEP(typeSpin(w.devicesPanel()->findChild<QSpinBox*>(QStringLiteral("emulatedDevices")), 2));
        STEP(typeSpin(w.devicesPanel()->findChild<QSpinBox*>(QStringLiteral("tilesX")), 2));
        QCOMPARE(doc->scene().run.tiles, (std::array<int, 3>{2, 1, 1}));
        QCOMPARE(doc->scene().run.devices, std::string("cpu:2"));
        // Every step is kept (the full method), chosen in the Gradient panel's list.
        STEP(raiseDock(w, "gradientDock"));
        QComboBox* method = w.gradientPanel()->methodBox();
        pick(method, method->findData(QStringLiteral("full")) >= 0
                         ? method->findData(QStringLiteral("full"))
                         : method->findText(QStringLiteral("full")));
        QCOMPARE(doc->scene().gradient.method, scene::GradientMethod::Full);
        // A short run: the duration typed on the grid item.
        STEP(clickTree(w, {ItemKind::Grid, -1}));
        STEP(typeProp(w, "duration_fs", durationFor(doc->scene(), 160)));
        const int shortSteps = doc->scene().steps();
        QVERIFY2(shortSteps >= 160 && shortSteps < 170, qPrintable(QString::number(shortSteps)));
        QVERIFY(!QTest::currentTestFailed());
        try {
            scene::validateScene(doc->scene());
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        // The 3-D view shows what was built.
        QVERIFY(w.sceneView()->actors().props.size() >= 5);
        // The screenshot shows the estimate of what was built (the estimator is debounced): two
        // devices, one bar each.
        STEP(raiseDock(w, "devicesDock"));
        QTRY_VERIFY_WITH_TIMEOUT(!w.estimator()->busy(), 30000);
        QVERIFY2(w.devicesPanel()->summaryText().contains(QStringLiteral("on 2 device(s)")),
                 qPrintable(w.devicesPanel()->summaryText()));
        STEP(shot(w, "03_scene_built"));

        // ---- value and gradient on two devices, from the tool bar ----
        QSignalSpy done(&w, &MainWindow::runCompleted);
        STEP(clickTool(w, "gradientRunAction"));
        QVERIFY(done.wait(300000));
        auto result = done.last().first().value<RunResultPtr>();
        QVERIFY2(result->completed, result->status.c_str());
        QCOMPARE(int(result->devices.size()), 2);
        QVERIFY(!result->gradients.empty());
        // What the window shows: the monitor's status and full reverse-sweep bar, the results tab with
        // the run's header, one history entry.
        QVERIFY(w.runMonitor()->statusText().startsWith("Completed"));
        QCOMPARE(w.runMonitor()->phaseBar("adjoint")->value(), shortSteps);
        QCOMPARE(w.runMonitor()->phaseBar("adjoint")->maximum(), shortSteps);
        QCOMPARE(w.centralTabs()->currentWidget(), w.resultsView());
        QVERIFY2(w.resultsView()->headerText().contains(QStringLiteral("%1 of %1 steps").arg(shortSteps)),
                 qPrintable(w.resultsView()->headerText()));
        QCOMPARE(w.runHistory()->count(), 1);
        const QString firstRun = w.runHistory()->pathAt(0);
        STEP(shot(w, "04_value_and_grad_done"));

        // ---- a second, longer run, cancelled in its reverse sweep ----
        const double shortDuration = doc->scene().durationFs;
        STEP(clickTree(w, {ItemKind::Grid, -1}));
        STEP(typeProp(w, "duration_fs", durationFor(doc->scene(), 1600)));
        bool clicked = false;
        auto conn = connect(w.runner(), &Runner::telemetryReceived, this, [&](const telemetry::Report& r) {
            if (!clicked && r.phase == "adjoint" && r.step < r.totalSteps) {
                clicked = true;
                QVERIFY(w.runMonitor()->statusText().startsWith("Running: adjoint phase"));
                // Click first and grab at once: a settled screenshot lasts longer than the rest of this
                // small run's reverse sweep on a fast machine, which then completes before the cancel.
                QTest::mouseClick(w.runMonitor()->cancelButton(), Qt::LeftButton);
                shot(w, "05_reverse_sweep", false);
            }
        });
        STEP(clickTool(w, "gradientRunAction"));
        QVERIFY(done.wait(300000));
        disconnect(conn);
        QVERIFY(clicked);
        result = done.last().first().value<RunResultPtr>();
        QVERIFY(!result->completed);
        QVERIFY2(QString::fromStdString(result->status).startsWith("cancelled in the adjoint phase"),
                 result->status.c_str());
        QVERIFY(w.runMonitor()->statusText().startsWith("Stopped: cancelled in the adjoint phase"));
        // The log says where it stopped once, without a forward count that reads as finished.
        const QString logText = w.log()->toPlainText();
        QVERIFY2(logText.contains("Run stopped: cancelled in the adjoint phase at step "),
                 qPrintable(logText));
        QVERIFY2(
            !logText.contains(QRegularExpression("adjoint phase at step [0-9]+ of [0-9]+.* after [0-9]+ of")),
            qPrintable(logText));
        // The history lists both, newest first, and says which is incomplete.
        QCOMPARE(w.runHistory()->count(), 2);
        auto* list = w.runHistory()->list();
        // The rows' Status column says so (what the window shows), as does the history's record.
        QVERIFY2(list->topLevelItem(0)->text(2).startsWith("incomplete: cancelled in the adjoint phase"),
                 qPrintable(list->topLevelItem(0)->text(2)));
        QCOMPARE(list->topLevelItem(1)->text(2), QString("complete"));
        QVERIFY(w.runHistory()->statusAt(0).startsWith("incomplete: cancelled in the adjoint phase"));
        QCOMPARE(w.runHistory()->statusAt(1), QString("complete"));
        QVERIFY2(w.resultsView()->headerText().contains(QStringLiteral("cancelled")),
                 qPrintable(w.resultsView()->headerText()));
        STEP(shot(w, "06_cancelled"));

        // ---- the first results again: a double click on its history row ----
        STEP(raiseDock(w, "runHistoryDock"));
        QTreeWidgetItem* firstItem = list->topLevelItem(1);
        list->scrollToItem(firstItem);
        STEP(doubleClick(list->viewport(), list->visualItemRect(firstItem).center()));
        QTRY_COMPARE(w.resultsView()->results().path, QFileInfo(firstRun).absoluteFilePath());
        // The open scene has the second run's duration: the results say they come from another scene.
        QVERIFY2(w.resultsView()->notice().contains(QStringLiteral("different scene")),
                 qPrintable(w.resultsView()->notice()));
        STEP(shot(w, "07_first_results_other_scene"));
        // Ctrl+Z takes the duration back; the same results opened again are the open scene's.
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(doc->scene().durationFs, shortDuration);
        STEP(doubleClick(list->viewport(), list->visualItemRect(firstItem).center()));
        QTRY_VERIFY(w.resultsView()->notice().isEmpty());
        QVERIFY(w.resultsWarning().isEmpty());
        // What the window shows: the results tab, a header naming the file, complete with every step;
        // the detector plot with the flux plane's curve; the gradient slice drawn.
        QCOMPARE(w.centralTabs()->currentWidget(), w.resultsView());
        const QString header = w.resultsView()->headerText();
        QVERIFY2(header.contains(QFileInfo(firstRun).fileName()), qPrintable(header));
        QVERIFY2(header.contains(QStringLiteral("%1 of %1 steps").arg(shortSteps)), qPrintable(header));
        QVERIFY2(!header.contains(QStringLiteral("cancelled")), qPrintable(header));
        QTabWidget* resultTabs = w.resultsView()->tabs();
        resultTabs->tabBar()->setCurrentIndex(resultTabs->indexOf(w.resultsView()->plot()));
        QTRY_VERIFY(w.resultsView()->plot()->isVisible());
        QVERIFY(w.resultsView()->plot()->seriesCount() > 0);
        QVERIFY2(w.resultsView()->plot()->detectorBox()->currentText().contains(detectorName),
                 qPrintable(w.resultsView()->plot()->detectorBox()->currentText()));
        STEP(shot(w, "08_first_results_reopened"));
        const int gradTab = [&] {
            for (int i = 0; i < resultTabs->count(); ++i)
                if (resultTabs->tabText(i).contains(QStringLiteral("Gradient")))
                    return i;
            return -1;
        }();
        QVERIFY(gradTab >= 0);
        QTest::mouseClick(resultTabs->tabBar(), Qt::LeftButton, {},
                          resultTabs->tabBar()->tabRect(gradTab).center());
        QCOMPARE(resultTabs->currentIndex(), gradTab);
        QTRY_VERIFY(w.resultsView()->gradientView()->isVisible());
        QTest::qWait(100);
        // The slice is drawn: the view holds many distinct colours, not a blank panel.
        const QImage g = w.resultsView()->gradientView()->grab().toImage();
        QSet<QRgb> colours;
        for (int y = 0; y < g.height(); y += 3)
            for (int x = 0; x < g.width(); x += 3)
                colours.insert(g.pixel(x, y));
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
        STEP(shot(w, "09_gradient_slice"));
    }

private:
    QTemporaryDir dir_;
};

QTEST_MAIN(tst_Journey)
#include "tst_Journey.moc"
