/// One scripted end-to-end journey in a real window: a scene built from scratch through the studio's
/// own actions (material, object, source, detector, design region, objective term, two emulated
/// devices), a value-and-grad run, a second run cancelled in its reverse sweep, and the first results
/// opened again from the run history, asserting at every step on what the window shows. Screenshots of
/// every step are written to <build>/ui-artifacts/journey_*.png.
#include <QAction>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTreeWidget>
#include <QtTest>

#include "RenderTestUtil.hpp"
#include "ui/DevicesPanel.hpp"
#include "ui/GradientPanel.hpp"
#include "ui/LogPanel.hpp"
#include "ui/MainWindow.hpp"
#include "ui/PropertyEditor.hpp"
#include "ui/PropertyModel.hpp"
#include "ui/ResultsView.hpp"
#include "ui/RunHistory.hpp"
#include "ui/RunMonitor.hpp"
#include "ui/SceneDocument.hpp"
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

/// Set property `key` of the current item through the property editor's model (what typing does).
void setProp(MainWindow& w, const char* key, const QVariant& value) {
    PropertyModel* m = w.propertyEditor()->model();
    QVERIFY2(m->setValue(QLatin1String(key), value), qPrintable(m->lastError()));
}
} // namespace

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
        w.setRunFolder(dir_.filePath("journey.runs"));
        SceneDocument* doc = w.document();
        QVERIFY(w.newScene());
        shot(w, "01_new_scene");

        // ---- a scene from scratch: a material, a block of it, a beam, a flux plane, a design ----
        triggerText(w, QStringLiteral("Material"));
        QCOMPARE(int(doc->scene().materials.size()), 2);
        setProp(w, "eps", 4.0);
        const std::string material = doc->scene().materials.back().name;
        triggerText(w, QStringLiteral("Box"));
        QCOMPARE(int(doc->scene().objects.size()), 1);
        setProp(w, "material", QString::fromStdString(material));
        setProp(w, "size_um", QStringLiteral("2.0, 0.4, 0.3"));
        QCOMPARE(doc->scene().objects[0].material, material);
        shot(w, "02_object");
        trigger(w, "insertSource_gaussian_plane");
        QCOMPARE(int(doc->scene().sources.size()), 1);
        trigger(w, "insertDetector_flux");
        QCOMPARE(int(doc->scene().detectors.size()), 1);
        // The objective: a term on the selected flux plane.
        doc->setCurrentItem({ItemKind::Detector, 0});
        trigger(w, "insertObjectiveTerm");
        QCOMPARE(int(doc->scene().objective.terms.size()), 1);
        QCOMPARE(doc->scene().objective.terms[0].detector, doc->scene().detectors[0].name);
        triggerText(w, QStringLiteral("Design region"));
        QCOMPARE(int(doc->scene().designs.size()), 1);
        setProp(w, "materials[0]", QStringLiteral("air"));
        setProp(w, "materials[1]", QString::fromStdString(material));
        QCOMPARE(doc->scene().designs[0].materials[1], material);
        // Two emulated devices, one tile each.
        doc->setCurrentItem({ItemKind::Run, -1});
        setProp(w, "devices", QStringLiteral("cpu:2"));
        setProp(w, "tiles", QStringLiteral("2, 1, 1"));
        QCOMPARE(doc->scene().run.tiles, (std::array<int, 3>{2, 1, 1}));
        QVERIFY(!QTest::currentTestFailed());
        doc->setCurrentItem({ItemKind::Gradient, -1});
        w.gradientPanel()->setMethod(QStringLiteral("full"));
        try {
            scene::validateScene(doc->scene());
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        // The 3-D view shows what was built.
        QVERIFY(w.sceneView()->actors().props.size() >= 5);
        // The screenshot shows the estimate of what was built (the estimator is debounced): two
        // devices, one bar each.
        QTRY_VERIFY_WITH_TIMEOUT(!w.estimator()->busy(), 30000);
        QVERIFY2(w.devicesPanel()->summaryText().contains(QStringLiteral("on 2 device(s)")),
                 qPrintable(w.devicesPanel()->summaryText()));
        shot(w, "03_scene_built");

        // ---- value and gradient on two devices ----
        w.setMaxSteps(160);
        QSignalSpy done(&w, &MainWindow::runCompleted);
        QString why;
        QVERIFY2(w.startRun(true, &why), qPrintable(why));
        QVERIFY(done.wait(300000));
        auto result = done.last().first().value<RunResultPtr>();
        QVERIFY2(result->completed, result->status.c_str());
        QCOMPARE(int(result->devices.size()), 2);
        QVERIFY(!result->gradients.empty());
        QVERIFY(w.resultsView()->results().complete);
        QVERIFY(!w.resultsView()->results().gradients.empty());
        QVERIFY(w.runMonitor()->statusText().startsWith("Completed"));
        QCOMPARE(w.runMonitor()->phaseBar("adjoint")->value(), 160);
        QCOMPARE(w.runHistory()->count(), 1);
        const QString firstRun = w.runHistory()->pathAt(0);
        shot(w, "04_value_and_grad_done");

        // ---- a second run, cancelled in its reverse sweep ----
        w.setMaxSteps(1600);
        bool clicked = false;
        auto conn = connect(w.runner(), &Runner::telemetryReceived, this, [&](const telemetry::Report& r) {
            if (!clicked && r.phase == "adjoint" && r.step < r.totalSteps) {
                clicked = true;
                QVERIFY(w.runMonitor()->statusText().startsWith("Running: adjoint phase"));
                // Click first and grab at once: a settled screenshot lasts longer than the rest of this
                // small run's reverse sweep on a fast machine, which then completes before the cancel.
                w.runMonitor()->cancelButton()->click();
                shot(w, "05_reverse_sweep", false);
            }
        });
        QVERIFY2(w.startRun(true, &why), qPrintable(why));
        QVERIFY(done.wait(300000));
        disconnect(conn);
        QVERIFY(clicked);
        result = done.last().first().value<RunResultPtr>();
        QVERIFY(!result->completed);
        QVERIFY2(QString::fromStdString(result->status).startsWith("cancelled in the adjoint phase"),
                 result->status.c_str());
        QVERIFY(w.runMonitor()->statusText().startsWith("Stopped (cancelled in the adjoint phase"));
        // The log says where it stopped once, without a forward count that reads as finished.
        const QString logText = w.log()->toPlainText();
        QVERIFY2(logText.contains("Run stopped: cancelled in the adjoint phase at step "),
                 qPrintable(logText));
        QVERIFY2(
            !logText.contains(QRegularExpression("adjoint phase at step [0-9]+ of [0-9]+.* after [0-9]+ of")),
            qPrintable(logText));
        QCOMPARE(w.runHistory()->count(), 2);
        QVERIFY(w.runHistory()->statusAt(0).startsWith("incomplete: cancelled in the adjoint phase"));
        QCOMPARE(w.runHistory()->statusAt(1), QString("complete"));
        QVERIFY(!w.resultsView()->results().complete);
        shot(w, "06_cancelled");

        // ---- the first results again, from the history ----
        auto* list = w.runHistory()->list();
        emit list->itemActivated(list->topLevelItem(1), 0);
        QCOMPARE(w.resultsView()->results().path, QFileInfo(firstRun).absoluteFilePath());
        QVERIFY(w.resultsView()->results().complete);
        QVERIFY(!w.resultsView()->results().gradients.empty());
        QVERIFY(w.resultsWarning().isEmpty()); // the same scene
        QCOMPARE(w.centralTabs()->currentWidget(), w.resultsView());
        shot(w, "07_first_results_reopened");
    }

private:
    QTemporaryDir dir_;
};

QTEST_MAIN(tst_Journey)
#include "tst_Journey.moc"
