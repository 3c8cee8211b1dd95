#include <QtTest>

#include <functional>

#include "UiTestScenes.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;
using namespace yee::ui;

using CommandFactory = std::function<QUndoCommand*(SceneDocument*)>;
Q_DECLARE_METATYPE(CommandFactory)

namespace {
std::string json(const SceneDocument& d) {
    return scene::sceneToJson(d.scene());
}
} // namespace

/// Every command kind: redo changes the scene, undo restores it exactly, redo again gives the same
/// scene; drags merge into one undo step; removal of referenced items is refused with a reason.
class tst_SceneCommands : public QObject {
    Q_OBJECT
private slots:
    void undoRedo_data() {
        QTest::addColumn<CommandFactory>("make");
        auto row = [](const char* name, CommandFactory f) { QTest::newRow(name) << f; };

        row("set property grid.cell_um", [](SceneDocument* d) {
            return new SetPropertyCommand(d, {ItemKind::Grid, -1}, "cell_um", 0.04);
        });
        row("set property objects[0].center_um", [](SceneDocument* d) {
            return new SetPropertyCommand(d, {ItemKind::Object, 0}, "center_um", QVariantList{0.1, 0.0, 0.0});
        });
        row("rename material (references follow)", [](SceneDocument* d) {
            return new SetPropertyCommand(d, {ItemKind::Material, 1}, "name", QString("silicon"));
        });
        row("set boundary type", [](SceneDocument* d) {
            return new SetPropertyCommand(d, {ItemKind::Boundary, 2}, "type", QString("periodic"));
        });
        row("set gradient method", [](SceneDocument* d) {
            return new SetPropertyCommand(d, {ItemKind::Gradient, -1}, "method", QString("reversible"));
        });
        row("set run tiles", [](SceneDocument* d) {
            return new SetPropertyCommand(d, {ItemKind::Run, -1}, "tiles", QVariantList{2, 1, 1});
        });
        row("add material", [](SceneDocument* d) {
            return new AddItemCommand(d, scene::Material{"metal", 1.0, 1.0, 1e6});
        });
        row("add object", [](SceneDocument* d) {
            scene::Object o;
            o.name = "pillar";
            o.shape = scene::Shape::Cylinder;
            o.radius = 0.1;
            o.height = 0.2;
            o.material = "core";
            return new AddItemCommand(d, o, 0);
        });
        row("add source", [](SceneDocument* d) {
            scene::Source s;
            s.name = "dipole";
            return new AddItemCommand(d, s);
        });
        row("add detector", [](SceneDocument* d) {
            scene::Detector det;
            det.name = "probe";
            return new AddItemCommand(d, det);
        });
        row("add design", [](SceneDocument* d) {
            scene::Design des;
            des.name = "d2";
            des.size = {0.1, 0.1, 0.1};
            des.materials = {"air", "core"};
            return new AddItemCommand(d, des);
        });
        row("remove object", [](SceneDocument* d) {
            return new RemoveItemCommand(d, {ItemKind::Object, 0});
        });
        row("remove source", [](SceneDocument* d) {
            return new RemoveItemCommand(d, {ItemKind::Source, 0});
        });
        row("remove detector", [](SceneDocument* d) {
            return new RemoveItemCommand(d, {ItemKind::Detector, 1});
        });
        row("remove design", [](SceneDocument* d) {
            return new RemoveItemCommand(d, {ItemKind::Design, 0});
        });
        row("remove unused material", [](SceneDocument* d) {
            d->undoStack()->push(new AddItemCommand(d, scene::Material{"unused", 2.0, 1.0, 0.0}));
            return new RemoveItemCommand(d, {ItemKind::Material, 2});
        });
        row("move object", [](SceneDocument* d) {
            return MoveResizeObjectCommand::move(d, 1, {0.1, -0.1, 0.05});
        });
        row("resize object", [](SceneDocument* d) {
            return new MoveResizeObjectCommand(d, 0, {0, 0, 0}, {1.0, 0.4, 0.25});
        });
        row("recorder chain", [](SceneDocument* d) {
            d->undoStack()->push(
                new SetPropertyCommand(d, {ItemKind::Gradient, -1}, "method", QString("reversible")));
            scene::RecorderModule k{"LinearReconstructEveryK", 4, 0, ""};
            scene::RecorderModule t{"DtypeConversion", 1, 0, "bfloat16"};
            return new SetRecorderChainCommand(d, {k, t});
        });
    }

    void undoRedo() {
        QFETCH(CommandFactory, make);
        SceneDocument doc;
        doc.resetScene(test::smallScene(), {});
        QUndoCommand* cmd = make(&doc);
        const std::string before = json(doc);
        const int count = doc.undoStack()->count();
        QSignalSpy changed(&doc, &SceneDocument::sceneChanged);
        doc.undoStack()->push(cmd);
        QVERIFY(changed.count() >= 1);
        QCOMPARE(doc.undoStack()->count(), count + 1);
        QVERIFY(doc.isModified());
        const std::string after = json(doc);
        QVERIFY2(after != before, "the command changed nothing");
        doc.undoStack()->undo();
        QCOMPARE(json(doc), before);
        doc.undoStack()->redo();
        QCOMPARE(json(doc), after);
    }

    void renameMaterialUpdatesReferences() {
        SceneDocument doc;
        doc.resetScene(test::smallScene(), {});
        doc.undoStack()->push(new SetPropertyCommand(&doc, {ItemKind::Material, 1}, "name", QString("si")));
        QCOMPARE(doc.scene().objects[0].material, std::string("si"));
        QCOMPARE(doc.scene().designs[0].materials[1], std::string("si"));
        doc.undoStack()->undo();
        QCOMPARE(doc.scene().objects[0].material, std::string("core"));
    }

    void dragMergesIntoOneStep() {
        SceneDocument doc;
        doc.resetScene(test::smallScene(), {});
        const int key = newMergeKey();
        for (int i = 1; i <= 5; ++i)
            doc.undoStack()->push(MoveResizeObjectCommand::move(&doc, 1, {0.2 + 0.01 * i, 0.1, 0.0}, key));
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(doc.scene().objects[1].center[0], 0.25);
        // A second drag is its own step.
        doc.undoStack()->push(MoveResizeObjectCommand::move(&doc, 1, {0.3, 0.1, 0.0}, newMergeKey()));
        QCOMPARE(doc.undoStack()->count(), 2);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(doc.scene().objects[1].center[0], 0.2);
        // Unkeyed edits never merge.
        doc.undoStack()->push(new SetPropertyCommand(&doc, {ItemKind::Grid, -1}, "courant", 0.9));
        doc.undoStack()->push(new SetPropertyCommand(&doc, {ItemKind::Grid, -1}, "courant", 0.8));
        QCOMPARE(doc.undoStack()->count(), 2);
    }

    void polygonMovesItsVertices() {
        SceneDocument doc;
        scene::Scene s = test::smallScene();
        scene::Object p;
        p.name = "tri";
        p.shape = scene::Shape::Polygon;
        p.axis = 1; // plane (x, z)
        p.vertices = {{0.0, 0.0}, {0.2, 0.0}, {0.0, 0.2}};
        p.center = {0.1, 0.0, 0.1};
        p.height = 0.2;
        p.material = "core";
        s.objects.push_back(p);
        doc.resetScene(s, {});
        doc.undoStack()->push(MoveResizeObjectCommand::move(&doc, 2, {0.2, 0.05, 0.0}));
        const auto& v = doc.scene().objects[2].vertices;
        QCOMPARE(v[1][0], 0.3);  // x shifted by +0.1
        QCOMPARE(v[1][1], -0.1); // z shifted by -0.1
    }

    void removalBlockers_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("reason");
        QTest::newRow("background material") << int(ItemKind::Material) << 0 << "background";
        QTest::newRow("material used by object") << int(ItemKind::Material) << 1 << "objects[0]";
        QTest::newRow("detector used by objective") << int(ItemKind::Detector) << 0 << "objective.terms[0]";
        QTest::newRow("boundary") << int(ItemKind::Boundary) << 0 << "can be removed";
        QTest::newRow("free detector") << int(ItemKind::Detector) << 1 << "";
    }
    void removalBlockers() {
        QFETCH(int, kind);
        QFETCH(int, index);
        QFETCH(QString, reason);
        const QString why = RemoveItemCommand::blocker(test::smallScene(), {ItemKind(kind), index});
        if (reason.isEmpty())
            QVERIFY2(why.isEmpty(), qPrintable(why));
        else
            QVERIFY2(why.contains(reason), qPrintable(why));
    }

    void saveMakesClean() {
        SceneDocument doc;
        doc.resetScene(test::smallScene(), {});
        doc.undoStack()->push(new SetPropertyCommand(&doc, {ItemKind::Grid, -1}, "courant", 0.9));
        QVERIFY(doc.isModified());
        QTemporaryDir dir;
        QString error;
        QVERIFY2(doc.save(dir.filePath("s.json"), &error), qPrintable(error));
        QVERIFY(!doc.isModified());
        SceneDocument other;
        QVERIFY2(other.load(dir.filePath("s.json"), &error), qPrintable(error));
        QCOMPARE(other.scene().courant, 0.9);
        QCOMPARE(json(other), json(doc));
    }
};

QTEST_MAIN(tst_SceneCommands)
#include "tst_SceneCommands.moc"
