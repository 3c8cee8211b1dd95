#include <QtTest>

#include "UiTestScenes.hpp"
#include "ui/PropertyModel.hpp"
#include "ui/SceneDocument.hpp"

using namespace yee;
using namespace yee::ui;

/// Property validation: rejected values are explained (naming the scene field) and not applied;
/// accepted values are parsed from text and applied as one undoable command.
class tst_PropertyModel : public QObject {
    Q_OBJECT
private slots:
    void rejected_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected"); // part of the explanation
        auto row = [](const char* n, ItemKind k, int i, const char* key, const char* text, const char* exp) {
            QTest::newRow(n) << int(k) << i << key << text << exp;
        };
        row("negative cell", ItemKind::Grid, -1, "cell_um", "-0.1", "Cell size: must be > 0");
        row("not a number", ItemKind::Grid, -1, "cell_um", "abc",
            "Cell size: 'abc' is not a finite number");
        row("unstable courant", ItemKind::Grid, -1, "courant", "1.2", "Courant number: must be in (0, 1]");
        row("zero duration", ItemKind::Grid, -1, "duration_fs", "0", "Duration: must be > 0");
        row("vec3 with two numbers", ItemKind::Domain, -1, "size_um", "1, 2",
            "Size: needs three numbers");
        row("domain thinner than a cell", ItemKind::Domain, -1, "size_um", "1, 1, 0.01", "domain.size_um");
        row("unknown background", ItemKind::Domain, -1, "background", "vacuum",
            "Background: 'vacuum' is not one of");
        row("pml thicker than domain", ItemKind::Boundary, 0, "cells", "20", "PML cells: PML (20 cells per side) is thicker");
        row("fractional pml", ItemKind::Boundary, 0, "cells", "2.5", "is not a whole number");
        row("eps below one", ItemKind::Material, 1, "eps", "0.5", "Permittivity: must be >= 1");
        row("negative conductivity", ItemKind::Material, 1, "sigma_S_per_m", "-1", "must be >= 0");
        row("duplicate material name", ItemKind::Material, 1, "name", "air", "already used");
        row("empty object name", ItemKind::Object, 0, "name", "  ", "Name: must not be empty");
        row("zero box size", ItemKind::Object, 0, "size_um", "0, 0.3, 0.2", "Size: must be > 0");
        row("negative radius", ItemKind::Object, 1, "radius_um", "-0.1", "Radius: must be > 0");
        row("unknown material", ItemKind::Object, 0, "material", "gold", "Material: 'gold' is not one of");
        row("unknown shape", ItemKind::Object, 0, "shape", "cone", "is not one of");
        row("zero wavelength", ItemKind::Source, 0, "profile.wavelength_um", "0", ": must be > 0");
        row("zero polarisation", ItemKind::Source, 0, "polarization", "0 0 0", "must not be the zero vector");
        row("bad component", ItemKind::Detector, 1, "components", "Ex, Qz", "'Qz' is not one of");
        row("every zero", ItemKind::Detector, 1, "every", "0", ": must be >= 1");
        row("negative wavelength", ItemKind::Detector, 0, "wavelengths_um", "1.5, -1",
            "every wavelength must be > 0");
        row("duplicate detector name", ItemKind::Detector, 1, "name", "out", "already used");
        row("eta above one", ItemKind::Design, 0, "projection.eta", "1.5", ": must be in [0, 1]");
        row("zero voxel", ItemKind::Design, 0, "voxel_cells", "0 1 1", "must be >= 1");
        row("zero checkpoints", ItemKind::Gradient, -1, "num_checkpoints", "0", "Checkpoints: must be >= 1");
        row("zero tiles", ItemKind::Run, -1, "tiles", "0, 1, 1", ": must be >= 1");
        row("bad devices", ItemKind::Run, -1, "devices", "gpu:7", "Devices: \"gpu:7\" is not a device list");
        row("object outside domain", ItemKind::Object, 1, "center_um", "5, 5, 5", "objects[1]");
    }

    void rejected() {
        QFETCH(int, kind);
        QFETCH(int, index);
        QFETCH(QString, key);
        QFETCH(QString, text);
        QFETCH(QString, expected);
        SceneDocument doc;
        doc.resetScene(test::smallScene(), {});
        doc.setCurrentItem({ItemKind(kind), index});
        PropertyModel model(&doc);
        const int row = model.rowOf(key);
        QVERIFY2(row >= 0, qPrintable("no row for " + key));
        const QVariant before = model.index(row, 1).data(Qt::EditRole);
        QSignalSpy rejectedSpy(&model, &PropertyModel::valueRejected);
        QVERIFY(!model.setData(model.index(row, 1), text));
        QCOMPARE(rejectedSpy.count(), 1);
        QVERIFY2(model.lastError().contains(expected), qPrintable(model.lastError()));
        // The message names the property by its label, not by its scene-file path.
        const QString path = model.index(row, 0).data(Qt::ToolTipRole).toString().section('\n', 0, 0);
        QVERIFY2(!model.lastError().contains(path + ": "), qPrintable(model.lastError()));
        QCOMPARE(model.index(row, 1).data(Qt::EditRole), before);
        QCOMPARE(doc.undoStack()->count(), 0);
        QVERIFY(!doc.isModified());
    }

    void accepted_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("shown");
        QTest::newRow("cell") << int(ItemKind::Grid) << -1 << "cell_um"
                              << " 0.04 "
                              << "0.04";
        QTest::newRow("vec3 spaces") << int(ItemKind::Object) << 0 << "center_um"
                                     << "0 0.05 0"
                                     << "0, 0.05, 0";
        QTest::newRow("vec3 brackets") << int(ItemKind::Object) << 0 << "size_um"
                                       << "[1.0, 0.4, 0.2]"
                                       << "1, 0.4, 0.2";
        QTest::newRow("enum") << int(ItemKind::Boundary) << 2 << "type"
                              << "periodic"
                              << "periodic";
        QTest::newRow("list") << int(ItemKind::Detector) << 0 << "wavelengths_um"
                              << "1.5; 1.55; 1.6"
                              << "1.5, 1.55, 1.6";
        QTest::newRow("bool") << int(ItemKind::Run) << -1 << "overlap"
                              << "no"
                              << "no";
        QTest::newRow("material ref") << int(ItemKind::Object) << 1 << "material"
                                      << "air"
                                      << "air";
    }

    void accepted() {
        QFETCH(int, kind);
        QFETCH(int, index);
        QFETCH(QString, key);
        QFETCH(QString, text);
        QFETCH(QString, shown);
        SceneDocument doc;
        doc.resetScene(test::smallScene(), {});
        doc.setCurrentItem({ItemKind(kind), index});
        PropertyModel model(&doc);
        const int row = model.rowOf(key);
        QVERIFY(row >= 0);
        QVERIFY2(model.setData(model.index(row, 1), text), qPrintable(model.lastError()));
        QCOMPARE(model.index(model.rowOf(key), 1).data().toString(), shown);
        QCOMPARE(doc.undoStack()->count(), 1);
        doc.undoStack()->undo();
        QVERIFY(!doc.isModified());
    }

    void rowsFollowShape() {
        SceneDocument doc;
        doc.resetScene(test::smallScene(), {});
        doc.setCurrentItem({ItemKind::Object, 0});
        PropertyModel model(&doc);
        QVERIFY(model.rowOf("size_um") >= 0);
        QCOMPARE(model.rowOf("radius_um"), -1);
        QVERIFY2(model.setValue("shape", "sphere"), qPrintable(model.lastError()));
        QCOMPARE(doc.scene().objects[0].radius, 0.1); // the sphere fills the box's smallest extent
        QCOMPARE(model.rowOf("size_um"), -1);
        QVERIFY(model.rowOf("radius_um") >= 0);
    }

    void readOnlyRowsAreNotEditable() {
        SceneDocument doc;
        scene::Scene s = test::smallScene();
        s.gradient.method = scene::GradientMethod::Reversible;
        doc.resetScene(s, {});
        doc.setCurrentItem({ItemKind::Gradient, -1});
        PropertyModel model(&doc);
        const int row = model.rowOf("recorder");
        QVERIFY(row >= 0);
        QVERIFY(!(model.flags(model.index(row, 1)) & Qt::ItemIsEditable));
        QVERIFY(!model.setData(model.index(row, 1), "x"));
    }

    /// An element's rows sit under group headers (General, Geometry, Material, Time profile, ...), each
    /// group once; headers are not editable; sections such as the grid are not grouped.
    void propertiesAreGrouped() {
        SceneDocument doc;
        doc.resetScene(test::smallScene(), {});
        doc.setCurrentItem({ItemKind::Object, 0});
        PropertyModel model(&doc);
        QVERIFY(model.isGroupRow(0));
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("General"));
        QVERIFY(!(model.flags(model.index(0, 1)) & Qt::ItemIsEditable));
        QVERIFY(!model.setData(model.index(0, 1), "x"));
        QCOMPARE(model.groupOfRow(model.rowOf("name")), QStringLiteral("General"));
        QCOMPARE(model.groupOfRow(model.rowOf("center_um")), QStringLiteral("Geometry"));
        QCOMPARE(model.groupOfRow(model.rowOf("size_um")), QStringLiteral("Geometry"));
        QCOMPARE(model.groupOfRow(model.rowOf("material")), QStringLiteral("Material"));
        QVERIFY(model.rowOf("material") > model.rowOf("size_um"));
        QStringList headers;
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.isGroupRow(r))
                headers << model.index(r, 0).data().toString();
        QCOMPARE(headers, QStringList({"General", "Geometry", "Material"}));
        // Edits through a grouped row still land on the property.
        QVERIFY2(model.setData(model.index(model.rowOf("material"), 1), "air"),
                 qPrintable(model.lastError()));
        QCOMPARE(doc.scene().objects[0].material, std::string("air"));

        doc.setCurrentItem({ItemKind::Source, 0});
        QCOMPARE(model.groupOfRow(model.rowOf("profile.wavelength_um")), QStringLiteral("Time profile"));
        QCOMPARE(model.groupOfRow(model.rowOf("center_um")), QStringLiteral("Geometry"));

        doc.setCurrentItem({ItemKind::Grid, -1});
        for (int r = 0; r < model.rowCount(); ++r)
            QVERIFY(!model.isGroupRow(r));
        QCOMPARE(model.groupOfRow(model.rowOf("cell_um")), QString());
    }
};

QTEST_MAIN(tst_PropertyModel)
#include "tst_PropertyModel.moc"
