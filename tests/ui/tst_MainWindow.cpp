#include <QAbstractButton>
#include <QDockWidget>
#include <QMessageBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeView>
#include <QtTest>

#include "RenderTestUtil.hpp"
#include "ui/DevicesPanel.hpp"
#include "ui/FieldView.hpp"
#include "ui/GradientPanel.hpp"
#include "ui/LogPanel.hpp"
#include "ui/MainWindow.hpp"
#include "ui/MemoryBars.hpp"
#include "ui/PropertyEditor.hpp"
#include "ui/PropertyModel.hpp"
#include "ui/ResultsView.hpp"
#include "ui/RunMonitor.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneTreeModel.hpp"
#include "ui/SceneView.hpp"

using namespace yee;
using namespace yee::ui;

namespace {
QString example(const char* name) {
    return QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/%1.json").arg(QLatin1String(name));
}

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
        QVERIFY2(w.propertyEditor()->message().contains("grid.cell_um"),
                 qPrintable(w.propertyEditor()->message()));
        QVERIFY(w.log()->toPlainText().contains("grid.cell_um"));
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
