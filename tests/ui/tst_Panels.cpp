#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QListWidget>
#include <QSpinBox>
#include <QTabBar>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtTest>

#include "UiTestScenes.hpp"
#include "ui/DevicesPanel.hpp"
#include "ui/GradientPanel.hpp"
#include "ui/LayoutBarrier.hpp"
#include "ui/MemoryBars.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/TabWidget.hpp"
#include "yee/cuda/Runtime.hpp"

using namespace yee;
using namespace yee::ui;

/// The devices and gradient panels edit the scene through undoable commands and show the estimate
/// of the configuration they describe, which follows every change.
class tst_Panels : public QObject {
    Q_OBJECT
private slots:
    void tileGridSpinBoxesAreUndoable() {
        SceneDocument doc;
        doc.resetScene(test::smallScene(), {});
        DevicesPanel panel(&doc);
        auto* px = panel.findChild<QSpinBox*>("tilesX");
        QVERIFY(px);
        px->setValue(2);
        px->setValue(3);
        QCOMPARE(doc.scene().run.tiles[0], 3);
        QCOMPARE(doc.undoStack()->count(), 1); // one spin-box session, one step
        emit px->editingFinished();
        px->setValue(2);
        QCOMPARE(doc.undoStack()->count(), 2);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(doc.scene().run.tiles[0], 1);
        QCOMPARE(px->value(), 1); // the panel follows the scene
        auto* devices = panel.findChild<QSpinBox*>("emulatedDevices");
        devices->setValue(4);
        QCOMPARE(doc.scene().run.devices, std::string("cpu:4"));
    }

    /// The local GPUs with their memory, or, without any, why not in one line; a scene asking for GPUs
    /// is explained (and still estimated: it runs on one emulated device per tile here).
    void gpuListOrWhyNone() {
        SceneDocument doc;
        doc.resetScene(test::smallScene(), {});
        DevicesPanel panel(&doc);
        auto* reason = panel.findChild<QLabel*>("gpuUnavailable");
        QVERIFY(reason);
        QVERIFY(panel.gpuList());
        const int gpus = cuda::deviceCount();
        QCOMPARE(panel.gpuList()->topLevelItemCount(), gpus);
        if (gpus == 0) {
            QVERIFY(panel.gpuList()->isHidden());
            QVERIFY(!reason->isHidden());
            const QString text = panel.gpuUnavailableText();
            QCOMPARE(text, reason->text());
            QVERIFY2(text.startsWith("No GPU: ") &&
                         text.contains(QString::fromStdString(cuda::unavailableReason())) &&
                         !text.contains('\n'),
                     qPrintable(text));
        } else {
            QVERIFY(!panel.gpuList()->isHidden());
            QVERIFY(reason->isHidden());
            QVERIFY(panel.gpuUnavailableText().isEmpty());
            const auto info = cuda::devices();
            QCOMPARE(panel.gpuList()->topLevelItem(0)->text(0), QString("cuda:0"));
            QCOMPARE(panel.gpuList()->topLevelItem(0)->text(1), QString::fromStdString(info[0].name));
            QVERIFY(panel.gpuList()->topLevelItem(0)->text(2).endsWith("GiB"));
        }
        auto* emulated = panel.findChild<QSpinBox*>("emulatedDevices");
        QVERIFY(emulated->isEnabled());
        QVERIFY(panel.devicesNote().isEmpty());

        // The scene asks for every GPU.
        doc.undoStack()->push(
            new SetPropertyCommand(&doc, {ItemKind::Run, -1}, "tiles", QVariantList{2, 1, 1}));
        doc.undoStack()->push(
            new SetPropertyCommand(&doc, {ItemKind::Run, -1}, "devices", QString("cuda:all")));
        QVERIFY(!emulated->isEnabled());
        const EstimateOutcome out = Estimator::compute(doc.scene(), panel.settings());
        panel.showEstimate(out);
        if (gpus == 0) {
            QVERIFY2(panel.devicesNote().startsWith("run.devices asks for GPUs (cuda:all) but ") &&
                         panel.devicesNote().endsWith("running on 2 emulated CPU devices"),
                     qPrintable(panel.devicesNote()));
            QVERIFY2(out.problem.isEmpty(), qPrintable(out.problem));
            QCOMPARE(panel.bars()->devices().size(), 2);
        } else {
            QVERIFY2(panel.devicesNote().startsWith("Tiles run on"), qPrintable(panel.devicesNote()));
            for (int i = 0; i < gpus; ++i)
                QCOMPARE(panel.gpuList()->topLevelItem(i)->checkState(0), Qt::Checked);
            // Unchecking every GPU goes back to one emulated device per tile.
            for (int i = 0; i < gpus; ++i)
                panel.gpuList()->topLevelItem(i)->setCheckState(0, Qt::Unchecked);
            QCOMPARE(doc.scene().run.devices, std::string("cpu:2"));
            panel.gpuList()->topLevelItem(0)->setCheckState(0, Qt::Checked);
            QCOMPARE(doc.scene().run.devices, std::string(gpus == 1 ? "cuda:all" : "cuda:0"));
        }
        // Malformed lists are explained, not run.
        doc.undoStack()->push(
            new SetPropertyCommand(&doc, {ItemKind::Run, -1}, "devices", QString("cuda:0,0")));
        QVERIFY2(panel.devicesNote().contains("listed twice"), qPrintable(panel.devicesNote()));
        QVERIFY(!emulated->isEnabled());
        doc.undoStack()->push(new SetPropertyCommand(&doc, {ItemKind::Run, -1}, "devices", QString("cpu:2")));
        QVERIFY(emulated->isEnabled());
        QCOMPARE(emulated->value(), 2);
        QVERIFY(panel.devicesNote().isEmpty());
    }

    void estimatesFollowTheChoices() {
        SceneDocument doc;
        doc.resetScene(test::smallScene(), {});
        DevicesPanel devices(&doc);
        GradientPanel gradient(&doc);
        auto show = [&] {
            const EstimateOutcome out = Estimator::compute(doc.scene(), devices.settings());
            devices.showEstimate(out);
            gradient.showEstimate(out);
            return out;
        };
        EstimateOutcome out = show();
        QCOMPARE(devices.bars()->devices().size(), 1);
        QCOMPARE(gradient.bars()->devices().size(), 1);
        const std::int64_t checkpointed = gradient.bars()->devices()[0].memory.peakTotal;
        // Two tiles: two devices in both panels.
        doc.undoStack()->push(
            new SetPropertyCommand(&doc, {ItemKind::Run, -1}, "tiles", QVariantList{2, 1, 1}));
        doc.undoStack()->push(new SetPropertyCommand(&doc, {ItemKind::Run, -1}, "devices", QString("cpu:2")));
        show();
        QCOMPARE(devices.bars()->devices().size(), 2);
        QCOMPARE(gradient.bars()->devices().size(), 2);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        // Method "full" keeps every step: the gradient estimate grows, the forward one does not.
        const int full = gradient.methodBox()->findData("full");
        gradient.methodBox()->setCurrentIndex(full);
        emit gradient.methodBox()->activated(full);
        QCOMPARE(doc.scene().gradient.method, scene::GradientMethod::Full);
        out = show();
        QVERIFY2(out.gradientProblem.isEmpty(), qPrintable(out.gradientProblem));
        QVERIFY(gradient.bars()->devices()[0].memory.peakTotal != checkpointed);
        // More memory than a device holds is explained before running.
        devices.findChild<QDoubleSpinBox*>("deviceCapacity")->setValue(0.0001); // about 100 KiB
        out = show();
        QVERIFY2(devices.problem().contains("needs"), qPrintable(devices.problem()));
        QVERIFY2(gradient.estimateText().contains("needs"), qPrintable(gradient.estimateText()));
    }

    void recorderChainIsEditableInOrder() {
        SceneDocument doc;
        scene::Scene s = test::smallScene();
        s.gradient.method = scene::GradientMethod::Reversible;
        doc.resetScene(s, {});
        GradientPanel panel(&doc);
        panel.addModule("LinearReconstructEveryK");
        panel.addModule("DtypeConversion");
        QCOMPARE(int(doc.scene().gradient.recorder.size()), 2);
        QCOMPARE(doc.scene().gradient.recorder[0].module, std::string("LinearReconstructEveryK"));
        QCOMPARE(doc.scene().gradient.recorder[1].dtype, std::string("bfloat16"));
        QCOMPARE(panel.recorderList()->count(), 2);
        panel.recorderList()->setCurrentRow(1);
        panel.moveSelectedModule(-1);
        QCOMPARE(doc.scene().gradient.recorder[0].module, std::string("DtypeConversion"));
        QCOMPARE(panel.recorderList()->currentRow(), 0);
        panel.removeSelectedModule();
        QCOMPARE(int(doc.scene().gradient.recorder.size()), 1);
        QCOMPARE(doc.undoStack()->count(), 4);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(doc.scene().gradient.recorder[0].module, std::string("LinearReconstructEveryK"));
        QCOMPARE(panel.recorderList()->item(0)->text(), QString("1. LinearReconstructEveryK(k=4)"));
    }

    /// A page's size-hint change (a label given a longer text) repaints that label, not the whole tab
    /// widget (QTabWidget repaints every widget of the current page on each layout request); the page's
    /// new minimum size still reaches the layout around the tab widget, and a tab bar change lays the
    /// tabs out again.
    void tabWidgetRepaintsWhatChanged() {
        struct Witness : QWidget {
            int paints = 0;
            void paintEvent(QPaintEvent*) override { ++paints; }
        };
        auto run = [](QTabWidget* tabs, QWidget& top) {
            auto* page = new QWidget;
            auto* l = new QVBoxLayout(page);
            auto* label = new QLabel("short", page);
            label->setWordWrap(true);
            l->addWidget(label);
            auto* witness = new Witness;
            witness->setMinimumSize(200, 150);
            l->addWidget(witness);
            tabs->addTab(page, "Fields");
            tabs->addTab(new QWidget, "Detectors");
            auto* tl = new QVBoxLayout(&top);
            tl->addWidget(tabs);
            top.resize(420, 320);
            top.show();
            if (!QTest::qWaitForWindowExposed(&top))
                return -1;
            QTest::qWait(50);
            witness->paints = 0;
            label->setText("a much longer text than before, on two lines when the page is narrow enough");
            for (int k = 0; k < 5; ++k)
                QApplication::processEvents();
            return witness->paints;
        };
        QWidget plainTop;
        const int plain = run(new QTabWidget, plainTop);
        QWidget top;
        auto* tabs = new TabWidget;
        const int ours = run(tabs, top);
        qInfo("the unchanged widget beside the label repainted %d time(s) in a QTabWidget, %d in ours", plain,
              ours);
        QCOMPARE(ours, 0);
        QVERIFY(tabs->quietLayoutRequests() > 0);
        // A new minimum size inside the page still reaches the window's layout.
        tabs->widget(0)->findChild<Witness*>()->setMinimumWidth(600);
        for (int k = 0; k < 5; ++k)
            QApplication::processEvents();
        QVERIFY(top.minimumSizeHint().width() >= 600);
        // A longer tab title lays the tab bar out again.
        tabs->setTabText(1, "Detectors and S-parameters");
        for (int k = 0; k < 5; ++k)
            QApplication::processEvents();
        QVERIFY(tabs->tabBar()->width() >= tabs->tabBar()->sizeHint().width());
    }

    /// New numbers in the same lines repaint the bars without asking the panel's layout for room.
    void memoryBarsRelayoutOnlyWhenTheyGrow() {
        QWidget top;
        auto* l = new QVBoxLayout(&top);
        auto* bars = new MemoryBars(MemoryBars::Mode::CurrentAndPeak);
        l->addWidget(bars);
        l->addStretch(1); // the bars take the height they ask for
        top.resize(400, 300);
        top.show();
        QVERIFY(QTest::qWaitForWindowExposed(&top));
        device::LedgerSnapshot m;
        m.current[0] = m.peak[0] = m.currentTotal = m.peakTotal = 1'000'000;
        bars->setDevices({{"cpu:0", QString(), 8'000'000'000, m}});
        QApplication::processEvents();
        struct Requests : QObject {
            int n = 0;
            bool eventFilter(QObject*, QEvent* e) override {
                n += e->type() == QEvent::LayoutRequest;
                return false;
            }
        } requests;
        top.installEventFilter(&requests);
        m.current[0] = m.peak[0] = m.currentTotal = m.peakTotal = 2'500'000;
        bars->setDevices({{"cpu:0", QString(), 8'000'000'000, m}});
        QApplication::processEvents();
        QCOMPARE(requests.n, 0);
        QVERIFY(bars->lines(0).join('\n').contains("2.4 MiB"));
        // A second device needs room.
        bars->setDevices({{"cpu:0", QString(), 8'000'000'000, m}, {"cpu:1", QString(), 8'000'000'000, m}});
        QApplication::processEvents();
        QVERIFY(requests.n > 0);
        QCOMPARE(bars->height(), bars->heightForWidth(bars->width()));
    }

    /// A barrier passes a change of its child's minimum size on to the layout around it, and stops the
    /// requests of changes that constrain nothing (a label's new text), so the window is not laid out
    /// again for them.
    void layoutBarrierStopsWhatConstrainsNothing() {
        QWidget top;
        auto* l = new QVBoxLayout(&top);
        auto* panel = new QWidget;
        auto* pl = new QVBoxLayout(panel);
        auto* label = new QLabel("Running: forward phase");
        label->setWordWrap(true);
        label->setMinimumHeight(3 * label->fontMetrics().lineSpacing()); // as the run monitor's status
        pl->addWidget(label);
        auto* bar = new QWidget; // the panel's width is set by its other widgets, as in the run monitor
        bar->setMinimumSize(240, 20);
        pl->addWidget(bar);
        auto* barrier = new LayoutBarrier(panel);
        l->addWidget(barrier);
        top.resize(400, 300);
        top.show();
        QVERIFY(QTest::qWaitForWindowExposed(&top));
        QCOMPARE(panel->geometry(), barrier->rect());
        struct Requests : QObject {
            int n = 0;
            bool eventFilter(QObject*, QEvent* e) override {
                n += e->type() == QEvent::LayoutRequest;
                return false;
            }
        } requests;
        top.installEventFilter(&requests);
        label->setText("Completed 200 steps in 0.2 s: forward sweep 0.1 s, reverse sweep 0.1 s.");
        for (int k = 0; k < 5; ++k)
            QApplication::processEvents();
        QCOMPARE(requests.n, 0);
        QVERIFY(barrier->stopped() > 0);
        QCOMPARE(barrier->sizeHint(), panel->sizeHint()); // answered live
        label->setMinimumWidth(520);
        for (int k = 0; k < 5; ++k)
            QApplication::processEvents();
        QVERIFY(requests.n > 0);
        QVERIFY(barrier->passedOn() > 0);
        QVERIFY(top.minimumSizeHint().width() >= 520);
        top.resize(600, 300);
        QApplication::processEvents();
        QCOMPARE(panel->geometry(), barrier->rect());
    }
};

QTEST_MAIN(tst_Panels)
#include "tst_Panels.moc"
