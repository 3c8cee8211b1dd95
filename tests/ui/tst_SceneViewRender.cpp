#include <QtTest>

#include <vtkRenderer.h>

#include "RenderTestUtil.hpp"
#include "UiTestScenes.hpp"
#include "ui/Palette.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneView.hpp"

using namespace yee;
using namespace yee::ui;

/// The 3-D scene view draws the scene's objects in their material colours, picking an object selects
/// it, and keyboard nudges move the selected object as undoable commands. Runs under xvfb (GLX).
class tst_SceneViewRender : public QObject {
    Q_OBJECT
public:
    static void initMain() { VtkWidget::installDefaultFormat(); }

private slots:
    void init() {
        doc_ = std::make_unique<SceneDocument>();
        doc_->resetScene(test::smallScene(), {});
        view_ = std::make_unique<SceneView>(doc_.get());
        view_->resize(640, 480);
        view_->show();
        QVERIFY(QTest::qWaitForWindowExposed(view_.get()));
    }
    void cleanup() {
        view_.reset();
        doc_.reset();
    }

    void showsObjectsInMaterialColour() {
        const QImage img = view_->grabFramebuffer();
        img.save(test::artifactDir() + "/scene_view.png");
        QCOMPARE(img.size(), view_->size() * view_->devicePixelRatio());
        const QColor core = materialColor(doc_->scene(), "core");
        const int pixels = test::countHue(img, core, 8, 0.45);
        qInfo("%d pixels of the core material's hue (%d) out of %lld", pixels, core.hsvHue(),
              static_cast<long long>(img.width()) * img.height());
        QVERIFY2(pixels > img.width() * img.height() / 100, "the waveguide is not visible");
        QCOMPARE(view_->vtkIssueCount(), 0);

        // Without objects that colour (nearly) disappears: what is left is blending of other glyphs.
        while (!doc_->scene().objects.empty())
            doc_->undoStack()->push(new RemoveItemCommand(doc_.get(), {ItemKind::Object, 0}));
        QTest::qWait(50);
        const QImage empty = view_->grabFramebuffer();
        empty.save(test::artifactDir() + "/scene_view_no_objects.png");
        const int left = test::countHue(empty, core, 8, 0.45);
        qInfo("%d pixels of that hue without objects", left);
        QVERIFY2(left < pixels / 4, qPrintable(QString::number(left)));
    }

    void clickSelectsObject() {
        // A point on the waveguide's top face, away from the design region and the sheets.
        vtkRenderer* r = view_->renderer();
        r->SetWorldPoint(-0.45, 0.0, 0.1, 1.0);
        r->WorldToDisplay();
        const double* d = r->GetDisplayPoint();
        const qreal dpr = view_->devicePixelRatio();
        const QPoint pos(int(d[0] / dpr), int(view_->height() - d[1] / dpr));
        QCOMPARE(view_->itemAt(pos), (ItemRef{ItemKind::Object, 0}));
        QSignalSpy current(doc_.get(), &SceneDocument::currentItemChanged);
        QTest::mouseClick(view_.get(), Qt::LeftButton, Qt::NoModifier, pos);
        QCOMPARE(doc_->currentItem(), (ItemRef{ItemKind::Object, 0}));
        QCOMPARE(current.count(), 1);
        // Clicking empty background clears the selection.
        QTest::mouseClick(view_.get(), Qt::LeftButton, Qt::NoModifier, QPoint(3, 3));
        QVERIFY(!doc_->currentItem().valid());
    }

    void keysNudgeSelectedObject() {
        doc_->setCurrentItem({ItemKind::Object, 1});
        const double x0 = doc_->scene().objects[1].center[0];
        QTest::keyClick(view_.get(), Qt::Key_Right);
        QTest::keyClick(view_.get(), Qt::Key_Right);
        QCOMPARE(doc_->scene().objects[1].center[0], x0 + 2 * doc_->scene().cellUm);
        QCOMPARE(doc_->undoStack()->count(), 2);
        doc_->undoStack()->undo();
        doc_->undoStack()->undo();
        QCOMPARE(doc_->scene().objects[1].center[0], x0);
    }

    void shiftDragMovesInOneUndoStep() {
        doc_->setCurrentItem({ItemKind::Object, 0});
        vtkRenderer* r = view_->renderer();
        r->SetWorldPoint(-0.45, 0.0, 0.1, 1.0);
        r->WorldToDisplay();
        const double* d = r->GetDisplayPoint();
        const qreal dpr = view_->devicePixelRatio();
        const QPoint start(int(d[0] / dpr), int(view_->height() - d[1] / dpr));
        const auto c0 = doc_->scene().objects[0].center;
        QTest::mousePress(view_.get(), Qt::LeftButton, Qt::ShiftModifier, start);
        for (int i = 1; i <= 5; ++i) {
            QMouseEvent move(QEvent::MouseMove, QPointF(start + QPoint(0, -8 * i)),
                             view_->mapToGlobal(QPointF(start + QPoint(0, -8 * i))), Qt::NoButton,
                             Qt::LeftButton, Qt::ShiftModifier);
            QApplication::sendEvent(view_.get(), &move);
        }
        QTest::mouseRelease(view_.get(), Qt::LeftButton, Qt::ShiftModifier, start + QPoint(0, -40));
        QVERIFY2(doc_->scene().objects[0].center != c0, "the drag did not move the object");
        QCOMPARE(doc_->undoStack()->count(), 1);
        doc_->undoStack()->undo();
        QCOMPARE(doc_->scene().objects[0].center, c0);
    }

private:
    std::unique_ptr<SceneDocument> doc_;
    std::unique_ptr<SceneView> view_;
};

QTEST_MAIN(tst_SceneViewRender)
#include "tst_SceneViewRender.moc"
