// The studio's property rows are the scene schema's keys: for every item kind and every variant, the
// rows are exactly the keys the schema declares for that variant, with the schema's labels, units,
// help texts and enum choices, and values are checked against the schema's ranges.
#include <QtTest>

#include "UiTestScenes.hpp"
#include "ui/Format.hpp"
#include "ui/SceneProperties.hpp"
#include "yee/scene/Schema.hpp"

using namespace yee;
using namespace yee::ui;
using scene::KeySpec;
using scene::KeyType;
using scene::SectionId;

namespace {

/// What the schema says the rows of element `index` of section `id` are, with their key specs.
void expected(const scene::Scene& s, SectionId id, int index, const QString& prefix, QStringList& keys,
              QList<const KeySpec*>& specs) {
    const scene::SectionSpec& sec = scene::section(id);
    for (const KeySpec* k : sec.keysFor(sec.variantOf(s, index))) {
        const QString key = prefix + QString::fromLatin1(k->name);
        if (k->ui == scene::UiHint::Hidden || (k->type == KeyType::Custom && !k->get))
            continue;
        if (k->type == KeyType::Section) {
            if (k->subIndex < 0)
                expected(s, k->sub, index, key + ".", keys, specs);
        } else if (k->type == KeyType::SectionList && k->ui != scene::UiHint::ReadOnly) {
            for (int j = 0; j < scene::section(k->sub).count(s); ++j)
                expected(s, k->sub, j, QStringLiteral("%1[%2].").arg(key).arg(j), keys, specs);
        } else if (k->type == KeyType::MaterialPair) {
            keys << key + "[0]" << key + "[1]";
            specs << k << k;
        } else {
            keys << key;
            specs << k;
        }
    }
}

} // namespace

class tst_SchemaRows : public QObject {
    Q_OBJECT
private slots:
    void rowsAreTheSchemasKeys_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("variant"); // the discriminator value to set first, or empty
        auto row = [](const QString& n, ItemKind k, int i, const QString& v) {
            QTest::newRow(qPrintable(n)) << int(k) << i << v;
        };
        row("grid", ItemKind::Grid, -1, {});
        row("domain", ItemKind::Domain, -1, {});
        row("material", ItemKind::Material, 1, {});
        row("design", ItemKind::Design, 0, {});
        row("objective", ItemKind::Objective, -1, {});
        row("run", ItemKind::Run, -1, {});
        for (const auto& e : scene::boundaryTypes().entries)
            row(QString("boundary ") + e.name, ItemKind::Boundary, 0, e.name);
        for (const auto& e : scene::shapes().entries)
            row(QString("object ") + e.name, ItemKind::Object, 0, e.name);
        for (const auto& e : scene::sourceTypes().entries)
            row(QString("source ") + e.name, ItemKind::Source, 0, e.name);
        for (const auto& e : scene::profileTypes().entries)
            row(QString("profile ") + e.name, ItemKind::Source, 0, QString("profile.") + e.name);
        for (const auto& e : scene::detectorTypes().entries)
            row(QString("detector ") + e.name, ItemKind::Detector, 1, e.name);
        for (const auto& e : scene::gradientMethods().entries)
            row(QString("gradient ") + e.name, ItemKind::Gradient, -1, e.name);
        for (const auto& e : scene::storageTiers().entries)
            row(QString("storage ") + e.name, ItemKind::Gradient, -1, QString("storage.") + e.name);
    }

    void rowsAreTheSchemasKeys() {
        QFETCH(int, kind);
        QFETCH(int, index);
        QFETCH(QString, variant);
        scene::Scene s = test::smallScene();
        const ItemRef ref{ItemKind(kind), index};
        if (!variant.isEmpty()) {
            const QString key = variant.contains('.') ? variant.section('.', 0, 0) + ".type" : "type";
            const QString value = variant.contains('.') ? variant.section('.', 1) : variant;
            QString k = key;
            if (ref.kind == ItemKind::Object)
                k = "shape";
            if (ref.kind == ItemKind::Gradient)
                k = variant.startsWith("storage.") ? "storage.tier" : "method";
            QVERIFY2(propertyInfo(s, ref, k).has_value(), qPrintable(k));
            applyProperty(s, ref, k, value);
        }
        QStringList want;
        QList<const KeySpec*> specs;
        switch (ref.kind) {
        case ItemKind::Grid:
            expected(s, SectionId::Grid, -1, {}, want, specs);
            expected(s, SectionId::Time, -1, {}, want, specs);
            break;
        case ItemKind::Domain:
            expected(s, SectionId::Domain, -1, {}, want, specs);
            want << "background";
            specs << scene::section(SectionId::Scene).findAny("background");
            break;
        default: {
            const SectionId id = ref.kind == ItemKind::Boundary    ? SectionId::Boundary
                                 : ref.kind == ItemKind::Material  ? SectionId::Material
                                 : ref.kind == ItemKind::Object    ? SectionId::Object
                                 : ref.kind == ItemKind::Source    ? SectionId::Source
                                 : ref.kind == ItemKind::Detector  ? SectionId::Detector
                                 : ref.kind == ItemKind::Design    ? SectionId::Design
                                 : ref.kind == ItemKind::Objective ? SectionId::Objective
                                 : ref.kind == ItemKind::Gradient  ? SectionId::Gradient
                                                                   : SectionId::Run;
            expected(s, id, index, {}, want, specs);
        }
        }
        const QList<PropertyInfo> rows = itemProperties(s, ref);
        QStringList got;
        for (const auto& r : rows)
            got << r.key;
        QCOMPARE(got, want);
        for (int i = 0; i < rows.size(); ++i) {
            const KeySpec& k = *specs[i];
            const QString label = k.type == KeyType::MaterialPair
                                      ? QString::fromLatin1(k.itemLabels[rows[i].key.endsWith("[1]") ? 1 : 0])
                                      : QString::fromLatin1(k.label);
            QCOMPARE(rows[i].label, label);
            QCOMPARE(rows[i].unit, unitText(QString::fromLatin1(k.unit))); // "um" shown as µm
            QCOMPARE(rows[i].toolTip, QString::fromLatin1(k.help));
            if (k.type == KeyType::Enum) {
                QStringList names;
                for (const auto& n : k.choices->names())
                    names << QString::fromStdString(n);
                QCOMPARE(rows[i].choices, names);
            }
        }
    }

    void valuesAreCheckedAgainstTheSchemasRanges() {
        const scene::Scene s = test::smallScene();
        const KeySpec* every =
            scene::section(SectionId::Detector).find("every", int(scene::DetectorType::Snapshot));
        const PropertyCheck c = checkProperty(s, {ItemKind::Detector, 1}, "every", 0);
        QVERIFY(!c.ok);
        QCOMPARE(c.error,
                 QString("detectors[1].every: ") + QString::fromStdString(every->range.text(0, true)));
        const PropertyCheck beta = checkProperty(s, {ItemKind::Design, 0}, "projection.beta", 20000.0);
        QCOMPARE(beta.error, QString("designs[0].projection.beta: must be <= 10000"));
        // The studio's advised limit, stricter than the file's (eps > 0).
        const PropertyCheck eps = checkProperty(s, {ItemKind::Material, 1}, "eps", 0.5);
        QCOMPARE(
            eps.error,
            QString("materials.core.eps: must be >= 1 (non-dispersive materials are not faster than light)"));
        QVERIFY(checkProperty(s, {ItemKind::Material, 1}, "eps", 2.5).ok);
    }
};

QTEST_MAIN(tst_SchemaRows)
#include "tst_SchemaRows.moc"
