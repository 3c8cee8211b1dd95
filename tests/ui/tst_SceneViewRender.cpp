#include <QtTest>

#include <vtkCamera.h>
#include <vtkRenderer.h>
#include <vtkTextProperty.h>

#include "RenderTestUtil.hpp"
#include "UiTestScenes.hpp"
#include "ui/Palette.hpp"
#include "ui/SceneAxes.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneView.hpp"
#include "yee/scene/SceneJson.hpp"

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

    /// No material colour reads as a glyph colour: every palette entry is far from the colours of
    /// sources, detectors, design regions, PML, tile cuts and the selection, and from the other entries.
    void paletteKeepsMaterialsApartFromGlyphs() {
        const QColor glyphs[] = {colors::source(), colors::detector(), colors::design(),
                                 colors::pml(),    colors::tileCut(),  colors::selection()};
        auto dist = [](const QColor& a, const QColor& b) {
            return std::hypot(a.red() - b.red(), a.green() - b.green(), a.blue() - b.blue());
        };
        for (int i = 0; i < 60; ++i) // every entry, repeats included
            for (const QColor& g : glyphs)
                QVERIFY2(dist(paletteColor(i), g) >= 90, qPrintable(QString("material colour %1").arg(i)));
        for (int i = 0; i < 20; ++i) {
            for (int j = 0; j < i; ++j) {
                QVERIFY2(dist(paletteColor(i), paletteColor(j)) >= 40,
                         qPrintable(QString("%1 vs %2").arg(i).arg(j)));
                // The first materials of a scene stand far apart: four by 150, eight by 90.
                if (i < 8)
                    QVERIFY2(dist(paletteColor(i), paletteColor(j)) >= (i < 4 ? 150 : 90),
                             qPrintable(QString("%1 vs %2").arg(i).arg(j)));
            }
        }
    }

    /// The legend names every colour on screen: its box holds each entry's colour, and goes when hidden.
    void legendShowsEveryColour() {
        const auto& legend = view_->actors().legend;
        QStringList texts;
        for (const auto& e : legend)
            texts << e.text;
        QVERIFY2(texts.contains("core (material)"), qPrintable(texts.join(", ")));
        for (const char* t : {"PML", "Design regions", "Sources", "Detectors"})
            QVERIFY2(texts.contains(t), t);
        QTest::qWait(50);
        const QImage img = view_->grabFramebuffer();
        img.save(test::artifactDir() + "/scene_view_legend.png");
        const QRect box = view_->legendRect();
        const QImage corner = img.copy(box);
        for (const auto& e : legend) {
            int exact = 0;
            for (int y = 0; y < corner.height(); ++y)
                for (int x = 0; x < corner.width(); ++x) {
                    const QColor c = corner.pixelColor(x, y);
                    exact += std::abs(c.red() - e.color.red()) <= 6 &&
                             std::abs(c.green() - e.color.green()) <= 6 &&
                             std::abs(c.blue() - e.color.blue()) <= 6;
                }
            QVERIFY2(exact >= 12, qPrintable(QString("%1: %2 swatch pixels").arg(e.text).arg(exact)));
        }
        // The texts are dark ink, not their swatch's colour (light materials were unreadable on white):
        // right of the swatch column no pixel has an entry's colour, and the text's ink is there.
        const int textLeft = int(26 * view_->devicePixelRatio());
        int ink = 0;
        for (int y = 0; y < corner.height(); ++y)
            for (int x = textLeft; x < corner.width(); ++x) {
                const QColor c = corner.pixelColor(x, y);
                ink += c.valueF() < 0.35;
                for (const auto& e : legend)
                    QVERIFY2(std::abs(c.red() - e.color.red()) + std::abs(c.green() - e.color.green()) +
                                     std::abs(c.blue() - e.color.blue()) >
                                 12,
                             qPrintable(QString("%1 coloured text at %2, %3").arg(e.text).arg(x).arg(y)));
            }
        QVERIFY2(ink > 150, qPrintable(QString::number(ink)));
        view_->setLegendVisible(false);
        QTest::qWait(50);
        const QImage none = view_->grabFramebuffer().copy(box);
        const QColor core = materialColor(doc_->scene(), "core");
        int left = 0;
        for (int y = 0; y < none.height(); ++y)
            for (int x = 0; x < none.width(); ++x) {
                const QColor c = none.pixelColor(x, y);
                left += c == core;
            }
        QCOMPARE(left, 0);
        QCOMPARE(view_->vtkIssueCount(), 0);
    }

    /// The legend keeps its size in pixels whatever the window's (VTK fits the text to the box, so a box
    /// that grew with the view drew ever larger letters): rows of 20 px, and in a large view it still holds
    /// every entry's colour and covers less than a tenth of the view.
    void legendKeepsItsSize() {
        const QRect small = view_->legendRect();
        const int n = int(view_->actors().legend.size());
        QCOMPARE(small.height(), int((20 * n + 8) * view_->devicePixelRatio()));
        view_->resize(1400, 900);
        QTest::qWait(100);
        const QRect large = view_->legendRect();
        QCOMPARE(large.size(), small.size());
        const QImage img = view_->grabFramebuffer();
        img.save(test::artifactDir() + "/scene_view_legend_large.png");
        QVERIFY(double(large.width()) * large.height() < 0.1 * img.width() * img.height());
        const QImage corner = img.copy(large);
        for (const auto& e : view_->actors().legend) {
            int exact = 0;
            for (int y = 0; y < corner.height(); ++y)
                for (int x = 0; x < corner.width(); ++x) {
                    const QColor c = corner.pixelColor(x, y);
                    exact += std::abs(c.red() - e.color.red()) <= 6 &&
                             std::abs(c.green() - e.color.green()) <= 6 &&
                             std::abs(c.blue() - e.color.blue()) <= 6;
                }
            QVERIFY2(exact >= 12, qPrintable(QString("%1: %2 swatch pixels").arg(e.text).arg(exact)));
        }
    }

    /// Each class has a visibility toggle: hiding detectors or sources removes their colour from the view.
    void layerTogglesHideTheirClass() {
        view_->setLegendVisible(false);
        // Glyphs alone over the background: objects, PML and designs hidden first (their toggles too).
        for (SceneLayer l : {SceneLayer::Objects, SceneLayer::Pml, SceneLayer::Designs})
            view_->setLayerVisible(l, false);
        for (auto [layer, colour] : {std::pair{SceneLayer::Detectors, colors::detector()},
                                     std::pair{SceneLayer::Sources, colors::source()}}) {
            QTest::qWait(50);
            const QImage shown = view_->grabFramebuffer();
            shown.save(test::artifactDir() + QStringLiteral("/scene_view_with_%1.png").arg(int(layer)));
            const int before = test::countHue(shown, colour, 8, 0.2);
            view_->setLayerVisible(layer, false);
            QTest::qWait(50);
            const QImage hidden = view_->grabFramebuffer();
            hidden.save(test::artifactDir() + QStringLiteral("/scene_view_without_%1.png").arg(int(layer)));
            const int after = test::countHue(hidden, colour, 8, 0.2);
            qInfo("%s: %d pixels shown, %d hidden", qPrintable(layerName(layer)), before, after);
            QVERIFY2(before > 200, qPrintable(layerName(layer)));
            QVERIFY2(after < before / 10, qPrintable(layerName(layer)));
            view_->setLayerVisible(layer, true);
            QVERIFY(view_->isLayerVisible(layer));
        }
    }

    /// Standard views look along each axis; the orthographic toggle switches the projection.
    void standardViewsAndOrthographic() {
        view_->viewAlong(2, +1);
        vtkCamera* cam = view_->renderer()->GetActiveCamera();
        double dop[3];
        cam->GetDirectionOfProjection(dop);
        QVERIFY(std::abs(dop[2] + 1) < 1e-9);
        view_->viewAlong(0, -1);
        cam->GetDirectionOfProjection(dop);
        QVERIFY(std::abs(dop[0] - 1) < 1e-9);
        QVERIFY(!view_->isOrthographic());
        QTest::qWait(50);
        const QImage persp = view_->grabFramebuffer();
        view_->setOrthographic(true);
        QVERIFY(view_->isOrthographic());
        QTest::qWait(50);
        const QImage ortho = view_->grabFramebuffer();
        ortho.save(test::artifactDir() + "/scene_view_ortho_minus_x.png");
        QVERIFY(persp != ortho);
    }

    /// Objects sharing a face do not fight in depth: a ring's hole (the later object, which wins in the
    /// rasteriser) covers the core's coincident top face everywhere, frame after frame; objects are
    /// clipped to the domain.
    void coincidentFacesDoNotFlicker() {
        scene::Scene s = test::smallScene();
        s.materials.push_back({"clad", 2.0, 1.0, 0.0});
        scene::Object ring;
        ring.name = "ring";
        ring.shape = scene::Shape::Cylinder;
        ring.center = {0, 0, 0};
        ring.radius = 0.35;
        ring.height = 0.2;
        ring.axis = 2;
        ring.material = "core";
        scene::Object hole = ring;
        hole.name = "hole";
        hole.radius = 0.2;
        hole.material = "clad";
        s.objects = {ring, hole};
        s.designs.clear();
        s.objective.terms.clear();
        doc_->resetScene(s, {});
        view_->setLegendVisible(false);
        for (SceneLayer l : {SceneLayer::Pml, SceneLayer::TileCuts, SceneLayer::Sources,
                             SceneLayer::Detectors, SceneLayer::Domain})
            view_->setLayerVisible(l, false);
        view_->viewAlong(2, +1);
        view_->setOrthographic(true);
        const QColor core = materialColor(doc_->scene(), "core"), clad = materialColor(doc_->scene(), "clad");
        vtkCamera* cam = view_->renderer()->GetActiveCamera();
        for (int frame = 0; frame < 4; ++frame) {
            cam->Roll(7.0); // other angles, other rounding: z-fighting would show in some
            view_->requestRender();
            QTest::qWait(50);
            const QImage img = view_->grabFramebuffer();
            if (frame == 0)
                img.save(test::artifactDir() + "/scene_view_ring_from_z.png");
            const QPoint c(img.width() / 2, img.height() / 2);
            int nearClad = 0, total = 0;
            for (int dy = -6; dy <= 6; ++dy)
                for (int dx = -6; dx <= 6; ++dx) {
                    const QColor p = img.pixelColor(c + QPoint(dx, dy));
                    const int hc = std::abs(p.hsvHue() - clad.hsvHue()),
                              hk = std::abs(p.hsvHue() - core.hsvHue());
                    nearClad += std::min(hc, 360 - hc) < std::min(hk, 360 - hk);
                    ++total;
                }
            QVERIFY2(nearClad == total, qPrintable(QString("frame %1: %2 of %3 centre pixels show the hole")
                                                       .arg(frame)
                                                       .arg(nearClad)
                                                       .arg(total)));
        }
        QCOMPARE(view_->vtkIssueCount(), 0);
    }

    /// No axis title covers a tick label (VTK 9.1 puts the z title of 2-D text right across the z labels,
    /// see SceneAxes), seen from three angles. Pixels: the frame drawn with the labels only and with the
    /// titles only, each against the frame with neither; a title pixel next to a label pixel is overlap.
    void axisTitlesClearTheirLabels() {
        view_->setLegendVisible(false);
        vtkCamera* cam = view_->renderer()->GetActiveCamera();
        auto text = [&](bool labels, bool titles) {
            for (int a = 0; a < 3; ++a) {
                view_->axes()->GetLabelTextProperty(a)->SetOpacity(labels ? 1.0 : 0.0);
                view_->axes()->GetTitleTextProperty(a)->SetOpacity(titles ? 1.0 : 0.0);
            }
            view_->axes()->Modified();
            view_->requestRender();
            QTest::qWait(50);
            return view_->grabFramebuffer();
        };
        auto mask = [](const QImage& with, const QImage& without) {
            QImage m(with.size(), QImage::Format_Grayscale8);
            m.fill(0);
            int n = 0;
            for (int y = 0; y < with.height(); ++y)
                for (int x = 0; x < with.width(); ++x) {
                    const QRgb a = with.pixel(x, y), b = without.pixel(x, y);
                    const int d = std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) +
                                  std::abs(qBlue(a) - qBlue(b));
                    if (d > 60) {
                        m.setPixel(x, y, 255);
                        ++n;
                    }
                }
            return std::pair{m, n};
        };
        const char* views[] = {"default", "azimuth", "elevation"};
        for (int v = 0; v < 3; ++v) {
            if (v == 1)
                cam->Azimuth(40);
            if (v == 2)
                cam->Elevation(-25);
            cam->OrthogonalizeViewUp();
            const QImage none = text(false, false), labels = text(true, false), titles = text(false, true);
            const QImage both = text(true, true);
            both.save(test::artifactDir() + QStringLiteral("/scene_view_axes_%1.png").arg(views[v]));
            const auto [lm, ln] = mask(labels, none);
            const auto [tm, tn] = mask(titles, none);
            int overlap = 0;
            for (int y = 1; y + 1 < tm.height(); ++y)
                for (int x = 1; x + 1 < tm.width(); ++x) {
                    if (!qGray(tm.pixel(x, y)))
                        continue;
                    bool near = false;
                    for (int dy = -1; dy <= 1 && !near; ++dy)
                        for (int dx = -1; dx <= 1 && !near; ++dx)
                            near = qGray(lm.pixel(x + dx, y + dy)) != 0;
                    overlap += near;
                }
            qInfo("%s view: %d label pixels, %d title pixels, %d title pixels on or next to a label",
                  views[v], ln, tn, overlap);
            QVERIFY2(ln > 200 && tn > 150, "the labels or the titles are not drawn");
            QVERIFY2(overlap == 0, qPrintable(QString("%1 view: a title covers labels").arg(views[v])));
            // Every direction's title was drawn and placed.
            for (int a = 0; a < 3; ++a)
                QVERIFY(view_->axes()->boxes(a).drawn);
        }
        QCOMPARE(view_->vtkIssueCount(), 0);
    }

    /// The legend covers none of the axes' labels and titles: in quick_box's default view the y labels
    /// run along the top-left edge, so the legend takes another corner (frame after frame, also after a
    /// resize), with every entry's colour still drawn inside its box.
    void legendKeepsClearOfTheAxes() {
        doc_->resetScene(scene::loadScene(YEE_SOURCE_DIR "/resources/scenes/quick_box.json"), {});
        view_->resize(640, 480);
        auto covered = [&] {
            const int H = int(view_->height() * view_->devicePixelRatio());
            const QRect legend = view_->legendRect();
            int boxes = 0;
            for (int a = 0; a < 3; ++a) {
                const SceneAxes::Boxes& b = view_->axes()->boxes(a);
                auto all = b.labels;
                all.push_back(b.title);
                for (const auto& t : all) {
                    const QRect r(QPoint(static_cast<int>(t[0]), H - static_cast<int>(t[3])),
                                  QPoint(static_cast<int>(t[1]), H - static_cast<int>(t[2])));
                    boxes += r.intersects(legend);
                }
            }
            return boxes;
        };
        for (const QSize size : {QSize(640, 480), QSize(900, 600)}) {
            view_->resize(size);
            QTest::qWait(100);
            const QImage img = view_->grabFramebuffer();
            img.save(test::artifactDir() +
                     QStringLiteral("/scene_view_legend_clear_%1.png").arg(size.width()));
            QCOMPARE(covered(), 0);
            QVERIFY(view_->axes()->boxes(1).drawn);
            const QImage box = img.copy(view_->legendRect());
            for (const auto& e : view_->actors().legend) {
                int exact = 0;
                for (int y = 0; y < box.height(); ++y)
                    for (int x = 0; x < box.width(); ++x) {
                        const QColor c = box.pixelColor(x, y);
                        exact += std::abs(c.red() - e.color.red()) <= 6 &&
                                 std::abs(c.green() - e.color.green()) <= 6 &&
                                 std::abs(c.blue() - e.color.blue()) <= 6;
                    }
                QVERIFY2(exact >= 12, qPrintable(QString("%1: %2 swatch pixels").arg(e.text).arg(exact)));
            }
        }
        // It did move: the top-left corner holds axis text in this view.
        QVERIFY(view_->legendRect().topLeft() != QPoint(6, 6) * view_->devicePixelRatio());
        QCOMPARE(view_->vtkIssueCount(), 0);
    }

    /// Every class's toggle removes exactly its pixels: with only that class shown the frame differs from
    /// the frame with nothing shown, and hiding it gives that empty frame back pixel for pixel (domain,
    /// PML, tile cuts, objects, design regions, sources, detectors). The tile cuts have their legend entry.
    void everyLayerToggleRemovesItsPixels() {
        scene::Scene s = test::smallScene();
        s.run.tiles = {2, 1, 1};
        doc_->resetScene(s, {});
        QStringList texts;
        for (const auto& e : view_->actors().legend)
            texts << e.text;
        QVERIFY2(texts.contains(layerName(SceneLayer::TileCuts)), qPrintable(texts.join(", ")));
        // The tile cuts' swatch is in the legend box.
        QTest::qWait(50);
        {
            const QImage legend = view_->grabFramebuffer().copy(view_->legendRect());
            const QColor cut = colors::tileCut();
            int exact = 0;
            for (int y = 0; y < legend.height(); ++y)
                for (int x = 0; x < legend.width(); ++x) {
                    const QColor c = legend.pixelColor(x, y);
                    exact += std::abs(c.red() - cut.red()) <= 6 && std::abs(c.green() - cut.green()) <= 6 &&
                             std::abs(c.blue() - cut.blue()) <= 6;
                }
            QVERIFY2(exact >= 12, qPrintable(QString("tile cuts: %1 swatch pixels").arg(exact)));
        }
        view_->setLegendVisible(false);
        const int layers = int(SceneLayer::Count);
        for (int l = 0; l < layers; ++l)
            view_->setLayerVisible(SceneLayer(l), false);
        QTest::qWait(50);
        const QImage nothing = view_->grabFramebuffer();
        for (int l = 0; l < layers; ++l) {
            const SceneLayer layer = SceneLayer(l);
            view_->setLayerVisible(layer, true);
            QTest::qWait(50);
            const QImage shown = view_->grabFramebuffer();
            shown.save(test::artifactDir() + QStringLiteral("/scene_view_only_layer_%1.png").arg(l));
            int differ = 0;
            for (int y = 0; y < shown.height(); ++y)
                for (int x = 0; x < shown.width(); ++x)
                    differ += shown.pixel(x, y) != nothing.pixel(x, y);
            view_->setLayerVisible(layer, false);
            QTest::qWait(50);
            const QImage hidden = view_->grabFramebuffer();
            qInfo("%s alone: %d pixels", qPrintable(layerName(layer)), differ);
            QVERIFY2(differ > 150, qPrintable(layerName(layer)));
            QVERIFY2(hidden == nothing, qPrintable(layerName(layer) + " leaves pixels behind when hidden"));
        }
        QCOMPARE(view_->vtkIssueCount(), 0);
    }

    /// The six standard views look along ±x, ±y, ±z with a right-handed screen: the ball (x = +0.2,
    /// y = +0.1) is right of centre seen from +z, -x... and left of it from the opposite sides.
    void sixStandardViews() {
        view_->setLegendVisible(false);
        for (SceneLayer l : {SceneLayer::Pml, SceneLayer::TileCuts, SceneLayer::Designs, SceneLayer::Sources,
                             SceneLayer::Detectors, SceneLayer::Domain})
            view_->setLayerVisible(l, false);
        view_->setItemHidden({ItemKind::Object, 0}, true); // the ball alone
        view_->setOrthographic(true);
        const QColor core = materialColor(doc_->scene(), "core");
        struct View {
            int axis, sign;
            int right; ///< the world axis pointing right on screen, signed (1-based)
        };
        // Right = direction of projection x view up (z up, except y up looking along z).
        for (const View v : {View{2, +1, +1}, View{2, -1, -1}, View{0, +1, +2}, View{0, -1, -2},
                             View{1, +1, -1}, View{1, -1, +1}}) {
            view_->viewAlong(v.axis, v.sign);
            double dop[3];
            view_->renderer()->GetActiveCamera()->GetDirectionOfProjection(dop);
            for (int a = 0; a < 3; ++a)
                QVERIFY(std::abs(dop[a] - (a == v.axis ? -v.sign : 0)) < 1e-9);
            QTest::qWait(50);
            const QImage img = view_->grabFramebuffer();
            img.save(test::artifactDir() + QStringLiteral("/scene_view_along_%1%2.png")
                                               .arg(v.sign > 0 ? '+' : '-')
                                               .arg(QChar('x' + v.axis)));
            const auto [c, n] = test::hueCentroid(img, core, 8, 0.45);
            QVERIFY2(n > 100, qPrintable(QString("%1 ball pixels").arg(n)));
            const double ballAlongRight = std::abs(v.right) == 1 ? 0.2 : 0.1; // x or y of the ball
            const double expectedSide = (v.right > 0 ? 1 : -1) * ballAlongRight;
            const double dx = c.x() - 0.5 * img.width();
            qInfo("view %c%c: ball centroid %.0f px from the centre", v.sign > 0 ? '+' : '-', 'x' + v.axis,
                  dx);
            QVERIFY2(dx * expectedSide > 0 && std::abs(dx) > 10,
                     qPrintable(QString("view %1 %2: ball at %3 px").arg(v.axis).arg(v.sign).arg(dx)));
            if (v.axis == 2) // y up: the ball is above the centre from both sides
                QVERIFY(c.y() < 0.5 * img.height() - 5);
            // The axis seen end-on is left out (its labels would pile up on one spot); the others stay.
            for (int a = 0; a < 3; ++a)
                QVERIFY2(view_->axes()->boxes(a).drawn == (a != v.axis),
                         qPrintable(QString("view along %1: axis %2").arg(v.axis).arg(a)));
        }
    }

    /// A plane source shows its propagation direction and its polarisation as arrows from its centre: seen
    /// from +z, the source's pixels lean towards +x for direction +x and towards -x for -x, and up (+y) or
    /// down for polarisation +y or -y.
    void sourceArrowsPointTheirWay() {
        for (const int direction : {+1, -1})
            for (const double pol : {+1.0, -1.0}) {
                scene::Scene s = test::smallScene();
                s.sources[0].direction = direction;
                s.sources[0].polarization = {0, pol, 0};
                doc_->resetScene(s, {});
                view_->setLegendVisible(false);
                for (int l = 0; l < int(SceneLayer::Count); ++l)
                    view_->setLayerVisible(SceneLayer(l), SceneLayer(l) == SceneLayer::Sources);
                view_->viewAlong(2, +1);
                view_->setOrthographic(true);
                QTest::qWait(50);
                const QImage img = view_->grabFramebuffer();
                img.save(test::artifactDir() + QStringLiteral("/scene_view_source_%1_%2.png")
                                                   .arg(direction > 0 ? "plus_x" : "minus_x")
                                                   .arg(pol > 0 ? "plus_y" : "minus_y"));
                const QPointF centre = toPixel(s.sources[0].center);
                const auto [c, n] = test::hueCentroid(img, colors::source(), 10, 0.2);
                const QPointF d = c - centre;
                qInfo("direction %+d, polarisation %+g: %d pixels, centroid (%.1f, %.1f) px from the centre",
                      direction, pol, n, d.x(), d.y());
                QVERIFY(n > 200);
                QVERIFY2(d.x() * direction > 3, qPrintable(QString::number(d.x())));
                QVERIFY2(-d.y() * pol > 3, qPrintable(QString::number(d.y()))); // screen y runs down
            }
    }

    /// Objects are clipped to the domain: a sphere and a cylinder reaching out of the +x side end at it.
    void objectsStopAtTheDomain() {
        scene::Scene s = test::smallScene();
        scene::Object ball = s.objects[1];
        ball.center = {0.6, 0.0, 0.0}; // on the +x face, half outside
        ball.radius = 0.25;
        scene::Object rod;
        rod.name = "rod";
        rod.shape = scene::Shape::Cylinder;
        rod.center = {0.3, 0.3, 0.0};
        rod.radius = 0.08;
        rod.height = 1.4; // along x from -0.4 to 1.0, the domain ends at 0.6
        rod.axis = 0;
        rod.material = "core";
        s.objects = {ball, rod};
        doc_->resetScene(s, {});
        view_->setLegendVisible(false);
        for (int l = 0; l < int(SceneLayer::Count); ++l)
            view_->setLayerVisible(SceneLayer(l), SceneLayer(l) == SceneLayer::Objects);
        view_->viewAlong(2, +1);
        view_->setOrthographic(true);
        QTest::qWait(50);
        const QImage img = view_->grabFramebuffer();
        img.save(test::artifactDir() + "/scene_view_clipped.png");
        const QColor core = materialColor(s, "core");
        const double edge = toPixel({0.6, 0, 0}).x(), inside = toPixel({0.45, 0, 0}).x();
        int beyond = 0, within = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x) {
                if (test::countHue(img.copy(x, y, 1, 1), core, 8, 0.45) == 0)
                    continue;
                beyond += x > edge + 2;
                within += x < edge && x > inside;
            }
        qInfo("core pixels beyond the +x face: %d, just inside it: %d", beyond, within);
        QVERIFY(within > 200);
        QCOMPARE(beyond, 0);
    }

    /// The ring resonator example (a core ring and a cladding hole sharing their top and bottom faces)
    /// draws the same, steady picture frame after frame: the hole's centre has one colour in every frame,
    /// clearly not the ring's.
    void ringResonatorExampleIsSteady() {
        doc_->resetScene(scene::loadScene(YEE_SOURCE_DIR "/resources/scenes/ring_resonator.json"), {});
        view_->setLegendVisible(false);
        for (int l = 0; l < int(SceneLayer::Count); ++l)
            view_->setLayerVisible(SceneLayer(l), SceneLayer(l) == SceneLayer::Objects);
        view_->viewAlong(2, +1);
        view_->setOrthographic(true);
        vtkCamera* cam = view_->renderer()->GetActiveCamera();
        QColor hole0;
        for (int frame = 0; frame < 5; ++frame) {
            cam->Roll(11.0);
            view_->requestRender();
            QTest::qWait(50);
            const QImage img = view_->grabFramebuffer();
            if (frame == 0)
                img.save(test::artifactDir() + "/scene_view_ring_resonator.png");
            const QPoint hole = toPixel({0, 0.35, 0.15}).toPoint(),
                         ring = toPixel({0, 0.35 + 1.05, 0.15}).toPoint();
            const QColor r = img.pixelColor(ring);
            if (frame == 0)
                hole0 = img.pixelColor(hole);
            for (int dy = -5; dy <= 5; ++dy)
                for (int dx = -5; dx <= 5; ++dx) {
                    const QColor h = img.pixelColor(hole + QPoint(dx, dy));
                    QVERIFY2(std::abs(h.red() - hole0.red()) + std::abs(h.green() - hole0.green()) +
                                     std::abs(h.blue() - hole0.blue()) <=
                                 6,
                             qPrintable(
                                 QString("frame %1: %2 against %3").arg(frame).arg(h.name(), hole0.name())));
                    QVERIFY2(std::abs(h.red() - r.red()) + std::abs(h.green() - r.green()) +
                                     std::abs(h.blue() - r.blue()) >
                                 60,
                             qPrintable(QString("frame %1: the hole %2 reads as the ring %3")
                                            .arg(frame)
                                            .arg(h.name(), r.name())));
                }
        }
        QCOMPARE(view_->vtkIssueCount(), 0);
    }

private:
    /// Device pixel (image coordinates, y down) of world point `w` (µm) in the current view.
    QPointF toPixel(const std::array<double, 3>& w) const {
        vtkRenderer* r = view_->renderer();
        r->SetWorldPoint(w[0], w[1], w[2], 1.0);
        r->WorldToDisplay();
        const double* d = r->GetDisplayPoint();
        return {d[0], view_->height() * view_->devicePixelRatio() - 1 - d[1]};
    }

    std::unique_ptr<SceneDocument> doc_;
    std::unique_ptr<SceneView> view_;
};

QTEST_MAIN(tst_SceneViewRender)
#include "tst_SceneViewRender.moc"
