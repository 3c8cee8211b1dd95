// The scene schema drives the parser, the writer and the validator: every key of every variant is
// accepted and written back, keys the schema does not give are refused naming the field, every enum
// name parses, the defaults are the Scene model's, and the validator's per-key limits are the schema's.
#include <QtTest/QtTest>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "yee/core/Error.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/scene/Schema.hpp"

using namespace yee::scene;

namespace {

/// Message of the InputError `f` throws ("" if none).
template <class F> QString inputError(F&& f) {
    try {
        f();
    } catch (const yee::InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

/// The variant a generated element of section `id` takes (forced, else the first; gradients are
/// reversible so that their recorder applies).
int chosenVariant(SectionId id, const std::map<SectionId, int>& forced) {
    const SectionSpec& sec = section(id);
    if (auto it = forced.find(id); it != forced.end())
        return it->second;
    if (!sec.variants)
        return -1;
    if (id == SectionId::Gradient)
        return int(GradientMethod::Reversible);
    return sec.variants->entries.front().value;
}

/// A value for key `k` that is not its default and lies in its range.
QJsonValue sample(const KeySpec& k) {
    const Range& r = k.range;
    const bool lo = std::isfinite(r.lo), hi = std::isfinite(r.hi);
    const double x = lo && hi ? 0.5 * (r.lo + r.hi) : lo ? r.lo + 0.75 : hi ? r.hi - 0.75 : 0.25;
    const int n = lo ? int(r.lo) + 2 : 3;
    switch (k.type) {
    case KeyType::Number:
        return x;
    case KeyType::Integer:
        return n;
    case KeyType::Boolean:
        return false;
    case KeyType::String:
        return "s";
    case KeyType::Enum:
        return k.choices->entries.back().name;
    case KeyType::EnumList:
        return QJsonArray{"Ex", "Hz"};
    case KeyType::Vec3:
        return QJsonArray{0.5, 0.5, 0.5}; // also the centre of the polygon below (axis z)
    case KeyType::IntVec3:
        return QJsonArray{n, n, n};
    case KeyType::NumberList:
        return QJsonArray{1.5, 1.25};
    case KeyType::Points2:
        return QJsonArray{QJsonArray{0, 0}, QJsonArray{1, 0}, QJsonArray{1, 1}, QJsonArray{0, 1}};
    case KeyType::Polarization:
        return QJsonArray{0.0, 0.6, 0.8};
    case KeyType::MaterialRef:
        return "m";
    case KeyType::DetectorRef:
        return "d";
    case KeyType::MaterialPair:
        return QJsonArray{"m", "m"};
    default:
        return {};
    }
}

/// An element of section `id` holding every key of its variant.
QJsonObject element(SectionId id, const std::map<SectionId, int>& forced) {
    const SectionSpec& sec = section(id);
    const int variant = chosenVariant(id, forced);
    QJsonObject o;
    for (const KeySpec* k : sec.keysFor(variant)) {
        const QString name = QString::fromLatin1(k->name);
        if (k->discriminator)
            o[name] = sec.variants->nameOf(variant);
        else if (k->type == KeyType::Section)
            o[name] = element(k->sub, forced);
        else if (k->type == KeyType::SectionList)
            o[name] = QJsonArray{element(k->sub, forced)};
        else if (name == "format")
            o[name] = kFormatName;
        else if (name == "version")
            o[name] = kFormatVersion;
        else if (id == SectionId::Scene && name == "materials")
            o[name] = QJsonObject{{"m", element(SectionId::Material, forced)}};
        else if (name == "latent")
            o[name] = QJsonArray{0.25, 0.75};
        else if (k->type == KeyType::Custom || k->type == KeyType::MapKey)
            continue; // "params" names a sidecar file; the inline "latent" stands for it
        else if (id == SectionId::Object && name == "axis")
            o[name] = "z";
        else
            o[name] = sample(*k);
    }
    return o;
}

/// A scene whose every section is present with every key of its (chosen) variant.
QJsonObject fullScene(const std::map<SectionId, int>& forced = {}) {
    return element(SectionId::Scene, forced);
}

std::string text(const QJsonObject& o) {
    return QJsonDocument(o).toJson().toStdString();
}

/// Every object of `j` with its scene-file path (the materials map itself is a map of names).
void objectsOf(const QJsonValue& j, const QString& path, std::vector<QString>& out,
               const std::function<void(const QString&)>& each) {
    if (j.isObject()) {
        if (path != "materials")
            each(path);
        const QJsonObject o = j.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            objectsOf(it.value(), path.isEmpty() ? it.key() : path + "." + it.key(), out, each);
    } else if (j.isArray()) {
        const QJsonArray a = j.toArray();
        for (int i = 0; i < a.size(); ++i)
            objectsOf(a[i], QStringLiteral("%1[%2]").arg(path).arg(i), out, each);
    }
}

/// Mutate the object at `path` of `root` (paths as objectsOf() gives them).
QJsonObject edited(const QJsonObject& root, const QString& path, const std::function<void(QJsonObject&)>& f) {
    if (path.isEmpty()) {
        QJsonObject r = root;
        f(r);
        return r;
    }
    static const QRegularExpression step("^([A-Za-z_]+)(?:\\[(\\d+)\\])?(?:\\.(.*))?$");
    const auto m = step.match(path);
    QJsonObject r = root;
    const QString key = m.captured(1), rest = m.captured(3);
    if (m.captured(2).isEmpty()) {
        r[key] = edited(r[key].toObject(), rest, f);
    } else {
        QJsonArray a = r[key].toArray();
        const int i = m.captured(2).toInt();
        a[i] = edited(a[i].toObject(), rest, f);
        r[key] = a;
    }
    return r;
}

/// (section, element index, scene-file path) of every element of a scene, as the validator sees them.
struct Element {
    SectionId id;
    int index;
    std::string path;
};
void elementsOf(const Scene& s, SectionId id, int index, const std::string& path, std::vector<Element>& out) {
    const SectionSpec& sec = section(id);
    out.push_back({id, index, path});
    for (const KeySpec* k : sec.keysFor(sec.variantOf(s, index))) {
        const std::string p = path.empty() ? k->name : path + "." + k->name;
        if (k->type == KeyType::Section)
            elementsOf(s, k->sub, k->subIndex >= 0 ? k->subIndex : index, p, out);
        else if (k->type == KeyType::SectionList)
            for (int i = 0; i < section(k->sub).count(s); ++i)
                elementsOf(s, k->sub, i, p + "[" + std::to_string(i) + "]", out);
        else if (std::string(k->name) == "materials")
            for (std::size_t i = 0; i < s.materials.size(); ++i)
                elementsOf(s, SectionId::Material, int(i), "materials." + s.materials[i].name, out);
    }
}

} // namespace

class tst_Schema : public QObject {
    Q_OBJECT

private slots:
    void everyKeyOfEveryVariantRoundTrips_data() {
        QTest::addColumn<int>("section");
        QTest::addColumn<int>("variant");
        for (SectionId id : allSections()) {
            const SectionSpec& sec = section(id);
            if (!sec.variants)
                continue;
            for (const auto& e : sec.variants->entries)
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(sec.name, e.name)))
                    << int(id) << e.value;
        }
    }

    void everyKeyOfEveryVariantRoundTrips() {
        QFETCH(int, section);
        QFETCH(int, variant);
        const QJsonObject j = fullScene({{SectionId(section), variant}});
        Scene s;
        const QString err = inputError([&] { s = parseScene(text(j), ".", false); });
        QVERIFY2(err.isEmpty(), qPrintable(err));
        const std::string written = sceneToJson(s);
        QCOMPARE(sceneToJson(parseScene(written, ".", false)), written);
        // Every key given is written back, in every element (objects compared by their key sets).
        const QJsonObject back = QJsonDocument::fromJson(QByteArray::fromStdString(written)).object();
        std::vector<QString> unused;
        int checked = 0;
        objectsOf(j, QString(), unused, [&](const QString& path) {
            QJsonObject given = j, got = back;
            edited(j, path, [&](QJsonObject& o) { given = o; });
            edited(back, path, [&](QJsonObject& o) { got = o; });
            QStringList a = given.keys(), b = got.keys();
            a.sort();
            b.sort();
            QVERIFY2(a == b, qPrintable(path + ": given " + a.join(',') + ", written " + b.join(',')));
            ++checked;
        });
        QVERIFY(checked >= 15);
        // The discriminator took the variant asked for.
        const auto& sec = yee::scene::section(SectionId(section));
        bool found = false;
        std::vector<Element> els;
        elementsOf(s, SectionId::Scene, -1, "", els);
        for (const auto& e : els)
            if (e.id == SectionId(section)) {
                QCOMPARE(sec.variantOf(s, e.index), variant);
                found = true;
            }
        QVERIFY(found);
    }

    void unknownKeysAreRefusedNamingTheField() {
        const QJsonObject j = fullScene();
        std::vector<QString> paths;
        objectsOf(j, QString(), paths, [&](const QString& p) { paths.push_back(p); });
        QVERIFY(paths.size() >= 15);
        for (const QString& p : paths) {
            const QJsonObject bad = edited(j, p, [](QJsonObject& o) { o["bogus_key"] = 1; });
            const QString msg = inputError([&] { parseScene(text(bad), ".", false); });
            const QString want = (p.isEmpty() ? QString() : p + ".") + "bogus_key: unknown key";
            QVERIFY2(msg == want, qPrintable(p + ": " + msg));
        }
    }

    void keysOfOtherVariantsAreRefused() {
        int checked = 0;
        for (SectionId id : allSections()) {
            const SectionSpec& sec = section(id);
            if (!sec.variants)
                continue;
            for (const auto& e : sec.variants->entries) {
                const QJsonObject j = fullScene({{id, e.value}});
                Scene s = parseScene(text(j), ".", false);
                std::vector<Element> els;
                elementsOf(s, SectionId::Scene, -1, "", els);
                for (const KeySpec& k : sec.keys) {
                    if (sec.find(k.name, e.value) || k.type == KeyType::Section)
                        continue;
                    for (const auto& el : els) {
                        if (el.id != id)
                            continue;
                        const QJsonObject bad = edited(j, QString::fromStdString(el.path),
                                                       [&](QJsonObject& o) { o[k.name] = sample(k); });
                        const QString msg = inputError([&] { parseScene(text(bad), ".", false); });
                        const QString want =
                            QString::fromStdString(el.path + "." + k.name + ": not used by " +
                                                   sec.discriminator()->name + " \"" + e.name + "\"");
                        QVERIFY2(msg.startsWith(want), qPrintable(msg + " / expected " + want));
                        ++checked;
                    }
                }
            }
        }
        QVERIFY(checked >= 40);
    }

    void everyEnumNameParses() {
        auto roundTrip = [](auto tag) {
            using E = decltype(tag);
            const EnumSpec& t = enumSpecOf<E>();
            QVERIFY(!t.entries.empty());
            for (std::size_t i = 0; i < t.entries.size(); ++i) {
                const auto v = enumValue<E>(t.entries[i].name);
                QVERIFY(v.has_value());
                QCOMPARE(int(*v), int(i)); // tables list every enum value, in declaration order
                QCOMPARE(std::string(enumName(*v)), std::string(t.entries[i].name));
                QVERIFY(*t.entries[i].label);
            }
            QVERIFY(!enumValue<E>("no such name").has_value());
        };
        roundTrip(BoundaryType{});
        roundTrip(Shape{});
        roundTrip(SourceType{});
        roundTrip(ProfileType{});
        roundTrip(DetectorType{});
        roundTrip(Quantity{});
        roundTrip(Reduce{});
        roundTrip(GradientMethod{});
        QCOMPARE(std::string(enumName(DetectorType::FluxBox)), std::string("flux_box"));
        // Every name of every table is accepted where the table is used, and an unknown one is refused
        // with the table's own list.
        for (SectionId id : allSections())
            for (const KeySpec& k : section(id).keys) {
                if (k.type != KeyType::Enum || !k.discriminator)
                    continue;
                for (const auto& e : k.choices->entries) {
                    const QString err = inputError([&] {
                        parseScene(text(fullScene({{id, e.value}})), ".", false);
                    });
                    QVERIFY2(err.isEmpty(), qPrintable(err));
                }
            }
        const QJsonObject j = fullScene();
        const QJsonObject bad = edited(j, "objects[0]", [](QJsonObject& o) { o["shape"] = "cone"; });
        QCOMPARE(
            inputError([&] { parseScene(text(bad), ".", false); }),
            QString("objects[0].shape: unknown value \"cone\" (expected \"box\", \"sphere\", \"cylinder\" or "
                    "\"polygon\")"));
    }

    void defaultsAreTheModelsDefaults() {
        Scene s;
        s.materials.emplace_back();
        s.objects.emplace_back();
        s.sources.emplace_back();
        s.detectors.emplace_back();
        s.designs.emplace_back();
        s.objective.terms.emplace_back();
        s.gradient.recorder.push_back({"LinearReconstructEveryK", 1, 0, ""});
        int compared = 0;
        for (SectionId id : allSections()) {
            const SectionSpec& sec = section(id);
            const int index = sec.count || id == SectionId::Boundary || id == SectionId::Profile ||
                                      id == SectionId::Projection
                                  ? 0
                                  : -1;
            for (const KeySpec& k : sec.keys) {
                if (!k.defaultValue || !k.get || !k.appliesTo(sec.variantOf(s, index)))
                    continue;
                // A detector's components are empty where they do not apply; the file's default is Ex, Ey,
                // Ez.
                if (id == SectionId::Detector && std::string(k.name) == "components")
                    continue;
                QCOMPARE(schemaValueText(k.get(s, index)), schemaValueText(*k.defaultValue));
                ++compared;
            }
        }
        QVERIFY(compared >= 30);
        // And parsing a scene that leaves them out gives them.
        const Scene p = parseScene(R"({"format": "yee-scene", "version": 1, "grid": {"cell_um": 0.1},
            "domain": {"size_um": [3, 3, 3]}, "detectors": [{"name": "p", "type": "probe",
            "center_um": [0, 0, 0]}]})");
        QCOMPARE(p.detectors[0].components, (std::vector<std::string>{"Ex", "Ey", "Ez"}));
        QCOMPARE(p.courant, std::get<double>(*section(SectionId::Grid).find("courant", -1)->defaultValue));
    }

    void validatorUsesTheSchemasRanges_data() {
        QTest::addColumn<QString>("file");
        const QString dir = QStringLiteral(YEE_SOURCE_DIR "/resources/scenes");
        for (const QString& f : QDir(dir).entryList({"*.json"}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(f)) << dir + "/" + f;
        QTest::newRow("valid_base") << QStringLiteral(YEE_SOURCE_DIR "/tests/scene/valid_base.json");
    }

    void validatorUsesTheSchemasRanges() {
        QFETCH(QString, file);
        const Scene base = loadScene(file.toStdString());
        std::vector<Element> els;
        elementsOf(base, SectionId::Scene, -1, "", els);
        int checked = 0;
        for (const auto& el : els) {
            const SectionSpec& sec = section(el.id);
            for (const KeySpec* k : sec.keysFor(sec.variantOf(base, el.index))) {
                if (!k->range.any() || !k->set ||
                    (k->type != KeyType::Number && k->type != KeyType::Integer && k->type != KeyType::Vec3 &&
                     k->type != KeyType::IntVec3 && k->type != KeyType::NumberList))
                    continue;
                for (const double bad : {k->range.lo - 1, k->range.hi + 1}) {
                    // A courant number above 1 is reported by the stability rule, which stays code.
                    if (!std::isfinite(bad) || (std::string(k->name) == "courant" && bad > 1))
                        continue;
                    Scene s = base;
                    SchemaValue v = k->get(s, el.index);
                    std::string path = el.path + "." + k->name;
                    if (auto* d = std::get_if<double>(&v))
                        *d = bad;
                    else if (auto* i = std::get_if<int>(&v))
                        *i = int(bad);
                    else if (auto* a = std::get_if<Vec3>(&v))
                        (*a)[0] = bad, path += "[0]";
                    else if (auto* ia = std::get_if<std::array<int, 3>>(&v))
                        (*ia)[0] = int(bad), path += "[0]";
                    else if (auto* l = std::get_if<std::vector<double>>(&v); l && !l->empty())
                        l->back() = bad, path += "[" + std::to_string(l->size() - 1) + "]";
                    else
                        continue;
                    k->set(s, el.index, v);
                    const QString msg = inputError([&] { validateScene(s); });
                    const QString want = QString::fromStdString(path + ": " + checkNumber(*k, bad));
                    QVERIFY2(msg == want, qPrintable(msg + " / expected " + want));
                    ++checked;
                }
            }
        }
        QVERIFY(checked >= 15);
    }

    void fluxBoxIsDeclared() {
        const SectionSpec& d = section(SectionId::Detector);
        QStringList keys;
        for (const KeySpec* k : d.keysFor(int(DetectorType::FluxBox)))
            keys << k->name;
        QCOMPARE(keys, (QStringList{"name", "type", "center_um", "size_um", "wavelengths_um", "every"}));
        const std::string base = R"({"format": "yee-scene", "version": 1, "grid": {"cell_um": 0.1},
            "domain": {"size_um": [3, 3, 3]}, "boundaries": {"x": {"type": "pml", "cells": 5},
            "y": {"type": "pml", "cells": 5}, "z": {"type": "pml", "cells": 5}}, "detectors": [)";
        const Scene s = parseScene(base + R"({"name": "box", "type": "flux_box", "center_um": [0, 0, 0],
            "size_um": [1, 1, 1], "wavelengths_um": [1.55]}]})");
        QVERIFY(s.detectors[0].type == DetectorType::FluxBox);
        QCOMPARE(s.detectors[0].wavelengths, std::vector<double>{1.55});
        QCOMPARE(sceneToJson(parseScene(sceneToJson(s))), sceneToJson(s));
        QVERIFY(parseScene(base + R"({"name": "b", "type": "flux_box", "center_um": [0, 0, 0],
            "size_um": [1, 1, 1]}]})")
                    .detectors[0]
                    .wavelengths.empty());
        QCOMPARE(inputError([&] {
                     parseScene(base + R"({"name": "b", "type": "flux_box", "center_um": [0, 0, 0],
                         "size_um": [1, 0, 1]}]})");
                 }),
                 QString("detectors[0].size_um[1]: must be > 0 (got 0)"));
        QCOMPARE(inputError([&] {
                     parseScene(base + R"({"name": "b", "type": "flux_box", "center_um": [0, 0, 0],
                         "size_um": [1, 1, 1], "wavelengths_um": [-1]}]})");
                 }),
                 QString("detectors[0].wavelengths_um[0]: must be > 0 (got -1)"));
        QCOMPARE(inputError([&] {
                     parseScene(base + R"({"name": "b", "type": "flux_box", "center_um": [0, 0, 0],
                         "size_um": [1, 1, 1], "direction": "+x"}]})");
                 }),
                 QString("detectors[0].direction: not used by type \"flux_box\""));
        const QString pml = inputError([&] {
            parseScene(base + R"({"name": "b", "type": "flux_box", "center_um": [0, 0, 0],
                "size_um": [2.5, 1, 1]}]})");
        });
        QVERIFY2(pml.startsWith("detectors[0].size_um: the flux box reaches into the x PML"),
                 qPrintable(pml));
    }
};

QTEST_APPLESS_MAIN(tst_Schema)
#include "tst_schema.moc"
