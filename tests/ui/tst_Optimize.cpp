#include <QComboBox>
#include <QLineEdit>
#include <QLineSeries>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "ui/DensityView.hpp"
#include "ui/ObjectiveEditor.hpp"
#include "ui/OptimizePanel.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/TermTable.hpp"
#include "yee/opt/History.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;
using namespace yee::ui;

namespace {
QString arCoating() {
    return QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/ar_coating_opt.json");
}
} // namespace

/// The objective editor and the Optimise panel: terms edited from the schema's keys round-trip through
/// the scene file; an optimisation started from the panel improves the objective, plots every
/// evaluation and writes a history; Pause holds the loop; Stop leaves a valid history to browse.
class tst_Optimize : public QObject {
    Q_OBJECT
private slots:
    void editorColumnsComeFromTheSchema() {
        SceneDocument doc;
        ObjectiveEditor ed(&doc);
        QCOMPARE(ed.terms()->columns(),
                 QStringList({"detector", "quantity", "reduce", "wavelength_um", "weight"}));
        OptimizePanel panel(&doc);
        QCOMPARE(panel.constraints()->columns(),
                 QStringList({"detector", "quantity", "reduce", "wavelength_um", "bound", "limit"}));
    }

    void editorAddsATermThatRoundTrips() {
        SceneDocument doc;
        QString error;
        QVERIFY2(doc.load(arCoating(), &error), qPrintable(error));
        ObjectiveEditor ed(&doc);
        TermTable* t = ed.terms();
        QCOMPARE(t->rowCount(), 1);
        doc.setCurrentItem({ItemKind::Detector, 1}); // "trans"
        QVERIFY(t->addRow());
        QCOMPARE(t->rowCount(), 2);
        QCoreApplication::processEvents();
        QCOMPARE(t->table()->rowCount(), 2);
        QCOMPARE(t->value(1, "detector").toString(), QStringLiteral("trans"));
        QCOMPARE(t->value(1, "quantity").toString(), QStringLiteral("flux"));
        // Reduced at a wavelength: the detector's first one until another is picked.
        QCOMPARE(t->setValue(1, "reduce", "at_wavelength"), QString());
        QCOMPARE(doc.scene().objective.terms[1].wavelength, 0.95);
        QCOMPARE(t->setValue(1, "wavelength_um", 1.05), QString());
        QCOMPARE(t->setValue(1, "weight", "-0.5"), QString());
        QVERIFY(ed.setGoal("maximize"));
        // Refused: a wavelength the detector does not record, a quantity a flux plane does not offer,
        // a detector that does not exist; the scene is unchanged.
        const int steps = doc.undoStack()->count();
        QVERIFY(t->setValue(1, "wavelength_um", 0.7).contains("0.7"));
        QVERIFY(t->setValue(1, "quantity", "energy").contains("does not offer"));
        QVERIFY(t->setValue(1, "detector", "nowhere").contains("objective.terms[1]"));
        QCOMPARE(doc.undoStack()->count(), steps);

        const scene::Scene back = scene::parseScene(scene::sceneToJson(doc.scene()));
        QVERIFY(back.objective.maximize);
        QCOMPARE(back.objective.terms.size(), std::size_t(2));
        const scene::ObjectiveTerm& b = back.objective.terms[1];
        QCOMPARE(b.detector, std::string("trans"));
        QCOMPARE(int(b.quantity), int(scene::Quantity::Flux));
        QCOMPARE(int(b.reduce), int(scene::Reduce::AtWavelength));
        QCOMPARE(b.wavelength, 1.05);
        QCOMPARE(b.weight, -0.5);
        QCOMPARE(back.objective.terms[0].detector, std::string("refl"));

        // One undo step per edit: undo the goal, the weight, the wavelength, the reduction, the add.
        for (int i = 0; i < 5; ++i)
            doc.undoStack()->undo();
        QCOMPARE(doc.scene().objective.terms.size(), std::size_t(1));
        QVERIFY(!doc.scene().objective.maximize);
        QVERIFY(t->removeRow(0));
        QCoreApplication::processEvents();
        QCOMPARE(t->table()->rowCount(), 0);
        QVERIFY(ed.problemText().contains("No terms"));
    }

    /// A scene built from scratch: no detector, no term; a flux plane, then a term.
    void sceneFromScratchGetsAnObjective() {
        SceneDocument doc;
        ObjectiveEditor ed(&doc);
        QString why;
        QVERIFY(!ed.terms()->addRow(&why));
        QVERIFY(why.startsWith("objective.terms"));
        scene::Scene s = doc.scene();
        scene::Detector d;
        d.name = "out";
        d.type = scene::DetectorType::Flux;
        d.size = {0, 0.2, 0.2};
        d.wavelengths = {1.0};
        s.detectors.push_back(d);
        doc.resetScene(s, {});
        QVERIFY(ed.terms()->addRow(&why));
        QCOMPARE(doc.scene().objective.terms.size(), std::size_t(1));
        QCOMPARE(doc.scene().objective.terms[0].detector, std::string("out"));
    }

    void settingsFollowTheOptimizer() {
        SceneDocument doc;
        QString error;
        QVERIFY(doc.load(arCoating(), &error));
        OptimizePanel panel(&doc);
        QVERIFY(!panel.settingEditor("step")->isEnabled()); // MMA has no learning rate
        QVERIFY(panel.settingEditor("xtol_rel")->isEnabled());
        QCOMPARE(panel.setSetting("optimizer", "adam"), QString());
        QCOMPARE(int(doc.scene().optimization.optimizer), int(scene::OptimizerKind::Adam));
        QVERIFY(panel.settingEditor("step")->isEnabled());
        QVERIFY(!panel.settingEditor("xtol_rel")->isEnabled());
        QCOMPARE(panel.setSetting("step", "0.1"), QString());
        QCOMPARE(doc.scene().optimization.step, 0.1);
        QCOMPARE(qobject_cast<QLineEdit*>(panel.settingEditor("step"))->text(), QStringLiteral("0.1"));
        const QString refused = panel.setSetting("iterations", 0);
        QVERIFY2(refused.startsWith("optimization.iterations: must be >= 1"), qPrintable(refused));
        QCOMPARE(panel.setSetting("beta_factor", 2), QString());
        QCOMPARE(doc.scene().optimization.betaFactor, 2.0);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(int(doc.scene().optimization.optimizer), int(scene::OptimizerKind::Mma));
        QCOMPARE(qobject_cast<QComboBox*>(panel.settingEditor("optimizer"))->currentData().toString(),
                 QStringLiteral("mma"));
        // A constraint from the panel goes into the scene's optimization section.
        QVERIFY(panel.constraints()->addRow());
        QCOMPARE(panel.constraints()->setValue(0, "limit", "0.01"), QString());
        const scene::Scene back = scene::parseScene(scene::sceneToJson(doc.scene()));
        QCOMPARE(back.optimization.constraints.size(), std::size_t(1));
        QCOMPARE(back.optimization.constraints[0].bound, 0.01);
        QVERIFY(back.optimization.constraints[0].upper);
    }

    void optimizationImprovesAndWritesHistory() {
        if (!OptRunner::available())
            QSKIP("built without the optimisation module (NLopt)");
        SceneDocument doc;
        QString error;
        QVERIFY(doc.load(arCoating(), &error));
        QTemporaryDir dir;
        const QString path = dir.filePath("ar.history.h5");
        OptimizePanel panel(&doc);
        panel.setHistoryPathProvider([path] { return path; });
        QCOMPARE(panel.setSetting("iterations", 6), QString());
        QSignalSpy done(&panel, &OptimizePanel::optimizationFinished);
        QString why;
        QVERIFY2(panel.start(&why), qPrintable(why));
        QVERIFY(!panel.start(&why)); // one at a time
        QVERIFY(done.wait(240000));
        const auto out = done.first().first().value<OptOutcome>();
        QVERIFY(out.completed);
        const auto& ev = panel.evaluations();
        QCOMPARE(int(ev.size()), 6);
        const double first = ev.front().objective;
        double best = first;
        for (const auto& e : ev)
            best = std::min(best, e.objective);
        qInfo("reflected flux: first %.6g, best %.6g of %d evaluations", first, best, int(ev.size()));
        QVERIFY(first > 0);
        QVERIFY2(best < 0.01 * first, "the reflection does not fall 100-fold in 6 evaluations");
        // The plot holds every evaluation; the density view shows the last.
        QCOMPARE(panel.objectiveSeries()->count(), 6);
        QCOMPARE(panel.termSeries().size(), std::size_t(1));
        QCOMPARE(panel.termSeries()[0]->at(5).y(), ev[5].terms[0]);
        QCOMPARE(panel.iterationSlider()->maximum(), 5);
        QCOMPARE(panel.densityView()->image().size(), QSize(20, 1));
        // The history file says the same.
        opt::HistoryHeader h;
        const auto hist = opt::readHistory(path.toStdString(), &h);
        QVERIFY(h.completed);
        QCOMPARE(int(hist.size()), 6);
        for (std::size_t i = 0; i < hist.size(); ++i)
            QCOMPARE(hist[i].objective, ev[i].objective);
    }

    void pauseHoldsAndStopLeavesAValidHistory() {
        if (!OptRunner::available())
            QSKIP("built without the optimisation module (NLopt)");
        SceneDocument doc;
        QString error;
        QVERIFY(doc.load(arCoating(), &error));
        QTemporaryDir dir;
        const QString path = dir.filePath("stopped.history.h5");
        OptimizePanel panel(&doc);
        panel.setHistoryPathProvider([path] { return path; });
        QSignalSpy evaluated(panel.runner(), &OptRunner::evaluated);
        QSignalSpy done(&panel, &OptimizePanel::optimizationFinished);
        QSignalSpy held(panel.runner(), &OptRunner::held);
        connect(panel.runner(), &OptRunner::evaluated, &panel, [&panel](int index) {
            if (index == 0)
                panel.setPaused(true);
        });
        QVERIFY(panel.start());
        // Pause takes effect after the evaluation in progress when it is pressed (the first or the
        // second); then nothing runs until it is released.
        QVERIFY(held.wait(120000));
        const int heldAt = held.first().first().toInt();
        QVERIFY(heldAt == 0 || heldAt == 1);
        QTest::qWait(1500);
        QCOMPARE(evaluated.count(), heldAt + 1);
        QVERIFY(panel.runner()->isPaused());
        panel.setPaused(false);
        QVERIFY(evaluated.wait(120000));
        panel.stop();
        QVERIFY(done.wait(120000));
        const auto out = done.first().first().value<OptOutcome>();
        QVERIFY(!out.completed);
        QVERIFY(out.status.startsWith("cancelled"));
        const int n = int(panel.evaluations().size());
        QVERIFY(n >= 2 && n < 20);
        opt::HistoryHeader h;
        const auto hist = opt::readHistory(path.toStdString(), &h);
        QVERIFY(!h.completed);
        QCOMPARE(int(hist.size()), n);
        QCOMPARE(out.evaluations, n);

        // Browse it: a fresh panel opens the history and shows any evaluation.
        OptimizePanel browser(&doc);
        QVERIFY2(browser.openHistory(path, &error), qPrintable(error));
        QCOMPARE(int(browser.evaluations().size()), n);
        QCOMPARE(browser.objectiveSeries()->count(), n);
        QCOMPARE(browser.termSeries().size(), std::size_t(1));
        QCOMPARE(browser.termSeries()[0]->name(), QStringLiteral("refl: flux at 1 \u00b5m"));
        browser.iterationSlider()->setValue(0);
        QVERIFY(browser.summaryText().startsWith("Evaluation 0 "));
        QVERIFY(browser.summaryText().contains(QString::number(hist[0].objective, 'g', 8)));
        QCOMPARE(browser.densityView()->image().size(), QSize(20, 1));
        // Latent 0.5 everywhere at the start: a uniform grey.
        QCOMPARE(qGray(browser.densityView()->image().pixel(0, 0)),
                 qGray(browser.densityView()->image().pixel(19, 0)));
        QVERIFY(!browser.openHistory(dir.filePath("missing.h5"), &error));
        QVERIFY(error.contains("missing.h5"));
    }
};

QTEST_MAIN(tst_Optimize)
#include "tst_Optimize.moc"
