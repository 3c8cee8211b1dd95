#include <QAbstractItemModelTester>
#include <QRegularExpression>
#include <QtTest>

#include <functional>

#include "UiTestScenes.hpp"
#include "ui/SceneCommands.hpp"
#include "ui/SceneDocument.hpp"
#include "ui/SceneTreeModel.hpp"

using namespace yee;
using namespace yee::ui;

/// The scene tree model stays consistent (QAbstractItemModelTester) through resets, inserts, removes,
/// undo and redo, and maps items to indexes both ways.
class tst_SceneTreeModel : public QObject {
    Q_OBJECT
private slots:
    void init() {
        doc_ = std::make_unique<SceneDocument>();
        doc_->resetScene(test::smallScene(), {});
        model_ = std::make_unique<SceneTreeModel>(doc_.get());
        tester_ = std::make_unique<QAbstractItemModelTester>(
            model_.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    }
    void cleanup() {
        tester_.reset();
        model_.reset();
        doc_.reset();
    }

    void topLevelGroups() {
        QCOMPARE(model_->rowCount(), 11);
        const QStringList expected{"Grid",      "Domain",   "Boundaries", "Materials",
                                   "Objects",   "Sources",  "Detectors",  "Design regions",
                                   "Objective", "Gradient", "Run"};
        for (int r = 0; r < model_->rowCount(); ++r)
            QCOMPARE(model_->index(r, 0).data().toString(), expected[r]);
    }

    /// Lengths read "µm" in every summary (never "um"); the domain's size is "a × b × c µm".
    void summariesSayMicrometres() {
        int lengths = 0;
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < model_->rowCount(parent); ++r) {
                const QString text = model_->index(r, 1, parent).data().toString();
                QVERIFY2(!text.contains(QRegularExpression(QStringLiteral("\\bum\\b"))), qPrintable(text));
                lengths += text.contains(QString::fromUtf8("\u00b5m"));
                walk(model_->index(r, 0, parent));
            }
        };
        walk({});
        QVERIFY(lengths >= 3); // grid, domain, the source's wavelength
        const QString domain =
            model_->index(model_->indexOf({ItemKind::Domain, -1}).row(), 1).data().toString();
        QVERIFY2(domain.contains(QString::fromUtf8("\u00d7")) &&
                     domain.contains(QString::fromUtf8("\u00b5m (")),
                 qPrintable(domain));
    }

    void groupCounts_data() {
        QTest::addColumn<int>("group");
        QTest::addColumn<int>("count");
        QTest::newRow("boundaries") << int(ItemKind::Boundaries) << 3;
        QTest::newRow("materials") << int(ItemKind::Materials) << 2;
        QTest::newRow("objects") << int(ItemKind::Objects) << 2;
        QTest::newRow("sources") << int(ItemKind::Sources) << 1;
        QTest::newRow("detectors") << int(ItemKind::Detectors) << 2;
        QTest::newRow("designs") << int(ItemKind::Designs) << 1;
    }
    void groupCounts() {
        QFETCH(int, group);
        QFETCH(int, count);
        const QModelIndex g = model_->indexOf({ItemKind(group), -1});
        QVERIFY(g.isValid());
        QCOMPARE(model_->rowCount(g), count);
    }

    void indexRoundTrip_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("index");
        QTest::newRow("grid") << int(ItemKind::Grid) << -1;
        QTest::newRow("boundary z") << int(ItemKind::Boundary) << 2;
        QTest::newRow("material 1") << int(ItemKind::Material) << 1;
        QTest::newRow("object 0") << int(ItemKind::Object) << 0;
        QTest::newRow("detector 1") << int(ItemKind::Detector) << 1;
        QTest::newRow("run") << int(ItemKind::Run) << -1;
    }
    void indexRoundTrip() {
        QFETCH(int, kind);
        QFETCH(int, index);
        const ItemRef ref{ItemKind(kind), index};
        const QModelIndex i = model_->indexOf(ref);
        QVERIFY(i.isValid());
        QCOMPARE(model_->refOf(i), ref);
        QCOMPARE(i.data(SceneTreeModel::ItemRefRole).value<ItemRef>(), ref);
    }

    void namesAndSummaries() {
        const QModelIndex obj = model_->indexOf({ItemKind::Object, 0});
        QCOMPARE(obj.data().toString(), QString("wg"));
        QVERIFY(obj.siblingAtColumn(1).data().toString().contains("core"));
        QVERIFY(!obj.data(Qt::DecorationRole).isNull());
    }

    void insertRemoveUndoRedo() {
        QSignalSpy inserted(model_.get(), &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(model_.get(), &QAbstractItemModel::rowsRemoved);
        scene::Object o;
        o.name = "new";
        o.shape = scene::Shape::Box;
        o.size = {0.1, 0.1, 0.1};
        o.material = "core";
        doc_->undoStack()->push(new AddItemCommand(doc_.get(), o, 1));
        QCOMPARE(inserted.count(), 1);
        const QModelIndex objects = model_->indexOf({ItemKind::Objects, -1});
        QCOMPARE(model_->rowCount(objects), 3);
        QCOMPARE(model_->index(1, 0, objects).data().toString(), QString("new"));
        QCOMPARE(model_->index(2, 0, objects).data().toString(), QString("ball"));
        QCOMPARE(model_->refOf(model_->index(2, 0, objects)), (ItemRef{ItemKind::Object, 2}));

        doc_->undoStack()->push(new RemoveItemCommand(doc_.get(), {ItemKind::Object, 0}));
        QCOMPARE(removed.count(), 1);
        QCOMPARE(model_->index(0, 0, objects).data().toString(), QString("new"));

        doc_->undoStack()->undo();
        doc_->undoStack()->undo();
        QCOMPARE(model_->rowCount(objects), 2);
        QCOMPARE(model_->index(0, 0, objects).data().toString(), QString("wg"));
        doc_->undoStack()->redo();
        doc_->undoStack()->redo();
        QCOMPARE(model_->rowCount(objects), 2);
        QCOMPARE(model_->index(0, 0, objects).data().toString(), QString("new"));
    }

    void renameRefreshes() {
        QSignalSpy changed(model_.get(), &QAbstractItemModel::dataChanged);
        doc_->undoStack()->push(
            new SetPropertyCommand(doc_.get(), {ItemKind::Material, 1}, "name", QString("si")));
        QVERIFY(changed.count() > 0);
        QCOMPARE(model_->indexOf({ItemKind::Material, 1}).data().toString(), QString("si"));
        QVERIFY(model_->indexOf({ItemKind::Object, 0}).siblingAtColumn(1).data().toString().contains("si"));
    }

    void resetOnNewScene() {
        QSignalSpy reset(model_.get(), &QAbstractItemModel::modelReset);
        doc_->newScene();
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model_->rowCount(model_->indexOf({ItemKind::Objects, -1})), 0);
        QCOMPARE(model_->rowCount(model_->indexOf({ItemKind::Materials, -1})), 1);
    }

private:
    std::unique_ptr<SceneDocument> doc_;
    std::unique_ptr<SceneTreeModel> model_;
    std::unique_ptr<QAbstractItemModelTester> tester_;
};

QTEST_MAIN(tst_SceneTreeModel)
#include "tst_SceneTreeModel.moc"
