#include "ui/SceneProperties.hpp"

#include <QCoreApplication>
#include <QLocale>
#include <QPointF>
#include <QRegularExpression>

#include <cmath>
#include <functional>
#include <stdexcept>

#include "ui/Format.hpp"
#include "yee/core/Error.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/scene/Schema.hpp"

namespace yee::ui {

using scene::KeySpec;
using scene::KeyType;
using scene::Scene;
using scene::SchemaValue;
using scene::SectionId;
using scene::SectionSpec;
using scene::Vec3;

namespace {

const char* const kContext = "yee::ui::SceneProperties";
QString tr(const char* text) {
    return QCoreApplication::translate(kContext, text);
}

using Getter = std::function<QVariant(const Scene&, int)>;
using Setter = std::function<void(Scene&, int, const QVariant&)>;
/// Returns the reason a canonical value is not acceptable ("must be > 0"), or an empty string.
using Checker = std::function<QString(const Scene&, int, const QVariant&)>;
using Visible = std::function<bool(const Scene&, int)>;
using Choices = std::function<QStringList(const Scene&)>;

/// One row of the property editor, generated from one key of the scene schema.
struct Prop {
    QString key;   ///< relative to the item: "center_um", "profile.wavelength_um", "terms[0].weight"
    QString label; ///< schema label (translated at display time)
    PropertyType type;
    QString unit;
    QString tip;
    Getter get;
    Setter set;
    Checker check;
    Visible visible;
    QStringList choices = {};
    Choices dynamicChoices = {};
};

// ---- conversions between schema values and canonical QVariants ----

QVariant toVariant(const SchemaValue& v) {
    struct Visitor {
        QVariant operator()(std::monostate) const { return {}; }
        QVariant operator()(double d) const { return d; }
        QVariant operator()(int i) const { return i; }
        QVariant operator()(bool b) const { return b; }
        QVariant operator()(const std::string& s) const { return QString::fromStdString(s); }
        QVariant operator()(const Vec3& a) const { return QVariantList{a[0], a[1], a[2]}; }
        QVariant operator()(const std::array<int, 3>& a) const { return QVariantList{a[0], a[1], a[2]}; }
        QVariant operator()(const std::vector<double>& l) const {
            QVariantList r;
            for (double d : l)
                r << d;
            return r;
        }
        QVariant operator()(const std::vector<std::string>& l) const {
            QStringList r;
            for (const auto& s : l)
                r << QString::fromStdString(s);
            return r;
        }
        QVariant operator()(const std::vector<std::array<double, 2>>& l) const {
            QVariantList r;
            for (const auto& p : l)
                r << QPointF(p[0], p[1]);
            return r;
        }
    };
    return std::visit(Visitor{}, v);
}

SchemaValue fromVariant(KeyType t, const QVariant& q) {
    const QVariantList l = q.toList();
    switch (t) {
    case KeyType::Number:
        return q.toDouble();
    case KeyType::Integer:
        return q.toInt();
    case KeyType::Boolean:
        return q.toBool();
    case KeyType::Vec3:
    case KeyType::Polarization:
        return Vec3{l.value(0).toDouble(), l.value(1).toDouble(), l.value(2).toDouble()};
    case KeyType::IntVec3:
        return std::array<int, 3>{l.value(0).toInt(), l.value(1).toInt(), l.value(2).toInt()};
    case KeyType::NumberList: {
        std::vector<double> v;
        for (const QVariant& x : l)
            v.push_back(x.toDouble());
        return v;
    }
    case KeyType::EnumList:
    case KeyType::MaterialPair: {
        std::vector<std::string> v;
        for (const QString& s : q.toStringList())
            v.push_back(s.toStdString());
        return v;
    }
    case KeyType::Points2: {
        std::vector<std::array<double, 2>> v;
        for (const QVariant& p : l)
            v.push_back({p.toPointF().x(), p.toPointF().y()});
        return v;
    }
    default:
        return q.toString().toStdString();
    }
}

PropertyType propertyTypeOf(const KeySpec& k) {
    if (k.ui == scene::UiHint::ReadOnly)
        return PropertyType::ReadOnly;
    switch (k.type) {
    case KeyType::Number:
        return PropertyType::Double;
    case KeyType::Integer:
        return PropertyType::Int;
    case KeyType::Boolean:
        return PropertyType::Bool;
    case KeyType::Enum:
        return PropertyType::Enum;
    case KeyType::EnumList:
        return PropertyType::StringList;
    case KeyType::Vec3:
    case KeyType::Polarization:
        return PropertyType::Vec3;
    case KeyType::IntVec3:
        return PropertyType::IntVec3;
    case KeyType::NumberList:
        return PropertyType::DoubleList;
    case KeyType::Points2:
        return PropertyType::Points2;
    case KeyType::MaterialRef:
    case KeyType::MaterialPair:
        return PropertyType::MaterialRef;
    case KeyType::DetectorRef:
        return PropertyType::DetectorRef;
    default:
        return PropertyType::String;
    }
}

QStringList materialNames(const Scene& s) {
    QStringList l;
    for (const auto& m : s.materials)
        l << QString::fromStdString(m.name);
    return l;
}
QStringList detectorNames(const Scene& s) {
    QStringList l;
    for (const auto& d : s.detectors)
        l << QString::fromStdString(d.name);
    return l;
}

// ---- checks: the schema's ranges, and what only the studio asks ----

/// The studio's range of `k`: the advised one where the schema gives it, else the hard one.
QString rangeProblem(const KeySpec& k, const QVariant& v, PropertyType type) {
    const scene::Range r = k.advised ? *k.advised : k.range;
    if (!r.any())
        return {};
    const bool integer = type == PropertyType::Int || type == PropertyType::IntVec3;
    auto text = [&](double x) {
        QString t = QString::fromStdString(r.text(x, integer));
        if (r.note)
            t += QStringLiteral(" (%1)").arg(tr(r.note));
        return t;
    };
    switch (type) {
    case PropertyType::Double:
    case PropertyType::Int:
        return r.contains(v.toDouble()) ? QString() : text(v.toDouble());
    case PropertyType::Vec3:
    case PropertyType::IntVec3:
        for (const QVariant& x : v.toList())
            if (!r.contains(x.toDouble()))
                return tr("%1 along every axis").arg(text(x.toDouble()));
        return {};
    case PropertyType::DoubleList:
        for (const QVariant& x : v.toList())
            if (!r.contains(x.toDouble()))
                return tr("every %1 %2").arg(tr(k.item ? k.item : "value"), text(x.toDouble()));
        return {};
    default:
        return {};
    }
}

/// Names must be non-empty, usable as HDF5 group names, and unique within their list.
template <class List> Checker uniqueName(List Scene::*list) {
    return [list](const Scene& s, int i, const QVariant& v) {
        const QString n = v.toString();
        if (n.trimmed().isEmpty())
            return tr("must not be empty");
        if (n.contains(QLatin1Char('/')) || n == QLatin1String("."))
            return tr("must not contain '/' or be '.'");
        const auto& items = s.*list;
        for (int j = 0; j < int(items.size()); ++j)
            if (j != i && QString::fromStdString(items[j].name) == n)
                return tr("'%1' is already used by another item of this list").arg(n);
        return QString();
    };
}

/// Checks the studio adds to a key's schema range (names, a zero polarisation).
Checker extraCheck(SectionId sec, const KeySpec& k) {
    const std::string name = k.name;
    if (name == "name" && sec == SectionId::Material)
        return uniqueName(&Scene::materials);
    if (name == "name" && sec == SectionId::Object)
        return uniqueName(&Scene::objects);
    if (name == "name" && sec == SectionId::Source)
        return uniqueName(&Scene::sources);
    if (name == "name" && sec == SectionId::Detector)
        return uniqueName(&Scene::detectors);
    if (name == "name" && sec == SectionId::Design)
        return uniqueName(&Scene::designs);
    if (k.type == KeyType::Polarization)
        return [](const Scene&, int, const QVariant& v) {
            double n = 0;
            for (const QVariant& x : v.toList())
                n += x.toDouble() * x.toDouble();
            return n > 0 ? QString() : tr("must not be the zero vector");
        };
    if (k.type == KeyType::EnumList)
        return [choices = k.choices](const Scene&, int, const QVariant& v) {
            for (const QString& c : v.toStringList())
                if (!choices->find(c.toStdString()))
                    return tr("'%1' is not one of: %2")
                        .arg(c, QString::fromStdString(choices->choicesText()).remove(QLatin1Char('"')));
            return QString();
        };
    return {};
}

// ---- edits that do more than set one value ----

/// Change an object's shape keeping its place and bounding extents: a box becomes the sphere, cylinder
/// or prism that fills it, and back.
void setShape(scene::Object& o, scene::Shape shape) {
    using scene::Shape;
    if (o.shape == shape)
        return;
    Vec3 e = o.size;
    if (o.shape == Shape::Sphere)
        e = {2 * o.radius, 2 * o.radius, 2 * o.radius};
    if (o.shape == Shape::Cylinder) {
        e = {2 * o.radius, 2 * o.radius, 2 * o.radius};
        e[o.axis] = o.height;
    }
    o.shape = shape;
    const int u = o.axis == 0 ? 1 : 0, v = o.axis == 2 ? 1 : 2;
    switch (shape) {
    case Shape::Box:
        o.size = e;
        break;
    case Shape::Sphere:
        o.radius = 0.5 * std::min({e[0], e[1], e[2]});
        o.size = {2 * o.radius, 2 * o.radius, 2 * o.radius};
        break;
    case Shape::Cylinder:
        o.radius = 0.5 * std::min(e[u], e[v]);
        o.height = e[o.axis];
        o.size = e;
        break;
    case Shape::Polygon: {
        const double hu = 0.5 * e[u], hv = 0.5 * e[v], cu = o.center[u], cv = o.center[v];
        o.vertices = {{cu - hu, cv - hv}, {cu + hu, cv - hv}, {cu + hu, cv + hv}, {cu - hu, cv + hv}};
        o.height = e[o.axis];
        o.size = e;
        break;
    }
    }
}

/// Setters that keep the scene consistent: renaming a material or detector renames its references;
/// changing a shape keeps the object's extents. Empty: the schema's setter.
Setter specialSetter(SectionId sec, const KeySpec& k) {
    const std::string name = k.name;
    if (sec == SectionId::Material && name == "name")
        return [](Scene& s, int i, const QVariant& v) {
            const std::string from = s.materials[i].name, to = v.toString().toStdString();
            s.materials[i].name = to;
            if (s.background == from)
                s.background = to;
            for (auto& o : s.objects)
                if (o.material == from)
                    o.material = to;
            for (auto& d : s.designs)
                for (auto& m : d.materials)
                    if (m == from)
                        m = to;
        };
    if (sec == SectionId::Detector && name == "name")
        return [](Scene& s, int i, const QVariant& v) {
            const std::string from = s.detectors[i].name, to = v.toString().toStdString();
            s.detectors[i].name = to;
            for (auto& t : s.objective.terms)
                if (t.detector == from)
                    t.detector = to;
        };
    if (sec == SectionId::Object && name == "shape")
        return [](Scene& s, int i, const QVariant& v) {
            if (auto shape = scene::enumValue<scene::Shape>(v.toString().toStdString()))
                setShape(s.objects[i], *shape);
        };
    return {};
}

QString recorderSummary(const Scene& s) {
    QStringList parts;
    for (const auto& m : s.gradient.recorder) {
        if (m.module == "LinearReconstructEveryK")
            parts << QString("LinearReconstructEveryK(k=%1)").arg(m.k);
        else if (m.module == "DtypeConversion")
            parts << QString("DtypeConversion(%1)").arg(QString::fromStdString(m.dtype));
        else
            parts << QString::fromStdString(m.module);
    }
    return parts.isEmpty() ? tr("(none: float32 as computed)") : parts.join(QString::fromUtf8(" \u2192 "));
}

// ---- the rows of an item, generated from the schema ----

/// Append the rows of section `sid` (element `index`), keys prefixed by `prefix`: one per key (the
/// sub-sections' keys flattened, "profile.wavelength_um"; list sections expanded, "terms[0].weight").
void addRows(std::vector<Prop>& out, const Scene& s, SectionId sid, int index, const QString& prefix) {
    const SectionSpec& sec = scene::section(sid);
    const int variant = sec.variantOf(s, index);
    // The keys of the current variant in the schema's order, then every other key once (its first
    // declaration): rows of other variants are kept, invisible, so that an undo restoring them finds them.
    std::vector<const KeySpec*> keys = sec.keysFor(variant);
    for (const auto& k : sec.keys) {
        const bool listed = std::any_of(
            keys.begin(), keys.end(), [&](const KeySpec* p) { return std::string_view(p->name) == k.name; });
        if (!listed)
            keys.push_back(sec.findAny(k.name));
    }
    for (const KeySpec* kp : keys) {
        const KeySpec& k = *kp;
        if (k.ui == scene::UiHint::Hidden || (k.type == KeyType::Custom && !k.get))
            continue;
        const QString key = prefix + QString::fromLatin1(k.name);
        Visible visible = [sid, kp, index](const Scene& sc, int) {
            return kp->appliesTo(scene::section(sid).variantOf(sc, index));
        };
        if (k.type == KeyType::Section) {
            if (k.subIndex < 0 && k.appliesTo(variant))
                addRows(out, s, k.sub, index, key + QLatin1Char('.'));
            continue;
        }
        if (k.type == KeyType::SectionList) {
            if (k.ui == scene::UiHint::ReadOnly) {
                out.push_back({key,
                               QString::fromLatin1(k.label),
                               PropertyType::ReadOnly,
                               {},
                               QString::fromLatin1(k.help),
                               [](const Scene& sc, int) { return QVariant(recorderSummary(sc)); },
                               [](Scene&, int, const QVariant&) {},
                               {},
                               visible});
                continue;
            }
            const SectionSpec& sub = scene::section(k.sub);
            for (int j = 0; j < sub.count(s); ++j)
                addRows(out, s, k.sub, j, QStringLiteral("%1[%2].").arg(key).arg(j));
            continue;
        }
        const PropertyType type = propertyTypeOf(k);
        const Checker extra = extraCheck(sid, k);
        Checker check = [kp, type, extra](const Scene& sc, int i, const QVariant& v) {
            if (QString e = rangeProblem(*kp, v, type); !e.isEmpty())
                return e;
            return extra ? extra(sc, i, v) : QString();
        };
        Choices dynamic;
        if (k.type == KeyType::MaterialRef || k.type == KeyType::MaterialPair)
            dynamic = materialNames;
        if (k.type == KeyType::DetectorRef)
            dynamic = detectorNames;
        QStringList choices;
        if (k.choices && k.type == KeyType::Enum)
            for (const auto& n : k.choices->names())
                choices << QString::fromStdString(n);
        if (k.type == KeyType::MaterialPair) {
            for (int e = 0; e < 2; ++e) {
                Prop p{QStringLiteral("%1[%2]").arg(key).arg(e),
                       QString::fromLatin1(k.itemLabels[std::size_t(e)]),
                       type,
                       QString::fromLatin1(k.unit),
                       QString::fromLatin1(k.help),
                       [kp, index, e](const Scene& sc, int) {
                           return toVariant(kp->get(sc, index)).toStringList().value(e);
                       },
                       [kp, index, e](Scene& sc, int, const QVariant& v) {
                           QStringList pair = toVariant(kp->get(sc, index)).toStringList();
                           while (pair.size() < 2)
                               pair << QString();
                           pair[e] = v.toString();
                           kp->set(sc, index, fromVariant(kp->type, pair));
                       },
                       check,
                       visible};
                p.dynamicChoices = dynamic;
                out.push_back(p);
            }
            continue;
        }
        Setter set = specialSetter(sid, k);
        if (!set)
            set = [kp, index](Scene& sc, int, const QVariant& v) {
                if (kp->set)
                    kp->set(sc, index, fromVariant(kp->type, v));
            };
        Prop p{key,
               QString::fromLatin1(k.label),
               type,
               QString::fromLatin1(k.unit),
               QString::fromLatin1(k.help),
               [kp, index](const Scene& sc, int) { return toVariant(kp->get(sc, index)); },
               set,
               check,
               visible,
               choices};
        p.dynamicChoices = dynamic;
        out.push_back(p);
    }
}

/// The schema sections behind each item kind of the scene tree (index -1: the item's own index).
struct ItemSection {
    SectionId section;
    const char* onlyKey; ///< take just this key of the section (nullptr: all)
};
std::vector<ItemSection> itemSections(ItemKind k) {
    switch (k) {
    case ItemKind::Grid:
        return {{SectionId::Grid, nullptr}, {SectionId::Time, nullptr}};
    case ItemKind::Domain:
        return {{SectionId::Domain, nullptr}, {SectionId::Scene, "background"}};
    case ItemKind::Boundary:
        return {{SectionId::Boundary, nullptr}};
    case ItemKind::Material:
        return {{SectionId::Material, nullptr}};
    case ItemKind::Object:
        return {{SectionId::Object, nullptr}};
    case ItemKind::Source:
        return {{SectionId::Source, nullptr}};
    case ItemKind::Detector:
        return {{SectionId::Detector, nullptr}};
    case ItemKind::Design:
        return {{SectionId::Design, nullptr}};
    case ItemKind::Objective:
        return {{SectionId::Objective, nullptr}};
    case ItemKind::Gradient:
        return {{SectionId::Gradient, nullptr}};
    case ItemKind::Run:
        return {{SectionId::Run, nullptr}};
    default:
        return {};
    }
}

/// All properties of `ref` (visible or not).
std::vector<Prop> table(const Scene& s, const ItemRef& ref) {
    std::vector<Prop> t;
    for (const ItemSection& is : itemSections(ref.kind)) {
        std::vector<Prop> rows;
        addRows(rows, s, is.section, isElementKind(ref.kind) ? ref.index : -1, QString());
        for (auto& r : rows)
            if (!is.onlyKey || r.key == QLatin1String(is.onlyKey))
                t.push_back(std::move(r));
    }
    return t;
}

bool indexValid(const Scene& s, const ItemRef& ref) {
    return !isElementKind(ref.kind) || (ref.index >= 0 && ref.index < elementCount(s, ref.kind));
}

std::optional<Prop> findProp(const Scene& s, const ItemRef& ref, const QString& key) {
    if (!indexValid(s, ref))
        return std::nullopt;
    for (const Prop& p : table(s, ref))
        if (p.key == key)
            return p;
    return std::nullopt;
}

PropertyInfo infoOf(const Scene& s, const Prop& p) {
    PropertyInfo i;
    i.key = p.key;
    i.label = tr(p.label.toLatin1().constData());
    i.type = p.type;
    i.choices = p.dynamicChoices ? p.dynamicChoices(s) : p.choices;
    i.unit = unitText(p.unit);
    i.toolTip = p.tip.isEmpty() ? QString() : tr(p.tip.toLatin1().constData());
    return i;
}

// ---- parsing user input into canonical values ----

bool parseDouble(const QVariant& in, double& out) {
    bool ok = false;
    if (in.typeId() == QMetaType::QString) {
        const QString t = in.toString().trimmed();
        out = QLocale::c().toDouble(t, &ok);
        if (!ok)
            out = QLocale().toDouble(t, &ok);
    } else {
        out = in.toDouble(&ok);
    }
    return ok && std::isfinite(out);
}

QStringList splitList(const QString& text) {
    static const QRegularExpression sep("[,;\\s]+");
    QString t = text.trimmed();
    if (t.startsWith('[') && t.endsWith(']'))
        t = t.mid(1, t.size() - 2);
    return t.split(sep, Qt::SkipEmptyParts);
}

QString parseNumbers(const QVariant& in, QVariantList& out, bool integers) {
    QVariantList raw;
    if (in.typeId() == QMetaType::QString) {
        for (const QString& s : splitList(in.toString()))
            raw << s;
    } else {
        raw = in.toList();
    }
    out.clear();
    for (const QVariant& x : raw) {
        double d;
        if (!parseDouble(x, d))
            return tr("'%1' is not a number").arg(x.toString());
        if (integers) {
            if (d != std::floor(d))
                return tr("'%1' is not a whole number").arg(x.toString());
            out << int(d);
        } else {
            out << d;
        }
    }
    return {};
}

/// Parse `in` into the canonical type of `info`; returns the reason on failure.
QString parseValue(const PropertyInfo& info, const QVariant& in, QVariant& out) {
    switch (info.type) {
    case PropertyType::Double: {
        double d;
        if (!parseDouble(in, d))
            return tr("'%1' is not a finite number").arg(in.toString());
        out = d;
        return {};
    }
    case PropertyType::Int: {
        double d;
        if (!parseDouble(in, d) || d != std::floor(d) || std::abs(d) > 2e9)
            return tr("'%1' is not a whole number").arg(in.toString());
        out = int(d);
        return {};
    }
    case PropertyType::Bool: {
        if (in.typeId() == QMetaType::Bool) {
            out = in.toBool();
            return {};
        }
        const QString t = in.toString().trimmed().toLower();
        if (t == "true" || t == "yes" || t == "on" || t == "1")
            out = true;
        else if (t == "false" || t == "no" || t == "off" || t == "0")
            out = false;
        else
            return tr("'%1' is not yes or no").arg(in.toString());
        return {};
    }
    case PropertyType::String:
        out = in.toString();
        return {};
    case PropertyType::Enum:
    case PropertyType::MaterialRef:
    case PropertyType::DetectorRef: {
        const QString t = in.toString().trimmed();
        if (!info.choices.contains(t)) {
            if (info.choices.isEmpty())
                return tr("there is nothing to choose from yet");
            return tr("'%1' is not one of: %2").arg(t, info.choices.join(", "));
        }
        out = t;
        return {};
    }
    case PropertyType::Vec3:
    case PropertyType::IntVec3: {
        QVariantList l;
        if (QString e = parseNumbers(in, l, info.type == PropertyType::IntVec3); !e.isEmpty())
            return e;
        if (l.size() != 3)
            return tr("needs three numbers (x, y, z), got %1").arg(l.size());
        out = l;
        return {};
    }
    case PropertyType::DoubleList: {
        QVariantList l;
        if (QString e = parseNumbers(in, l, false); !e.isEmpty())
            return e;
        out = l;
        return {};
    }
    case PropertyType::StringList: {
        out = in.typeId() == QMetaType::QString ? splitList(in.toString()) : in.toStringList();
        return {};
    }
    case PropertyType::Points2: {
        QVariantList points;
        if (in.typeId() == QMetaType::QString) {
            for (const QString& pair : in.toString().split(';', Qt::SkipEmptyParts)) {
                QVariantList uv;
                if (QString e = parseNumbers(pair, uv, false); !e.isEmpty())
                    return e;
                if (uv.size() != 2)
                    return tr("each vertex needs two numbers \"u,v\"");
                points << QPointF(uv[0].toDouble(), uv[1].toDouble());
            }
        } else {
            points = in.toList();
        }
        out = points;
        return {};
    }
    case PropertyType::ReadOnly:
        return tr("is read-only here");
    }
    return tr("unsupported value");
}

} // namespace

QString shapeName(scene::Shape v) {
    return QString::fromLatin1(scene::enumName(v));
}
QString sourceTypeName(scene::SourceType v) {
    return QString::fromLatin1(scene::enumName(v));
}
QString detectorTypeName(scene::DetectorType v) {
    return QString::fromLatin1(scene::enumName(v));
}
QString gradientMethodName(scene::GradientMethod v) {
    return QString::fromLatin1(scene::enumName(v));
}
QString boundaryTypeName(scene::BoundaryType v) {
    return QString::fromLatin1(scene::enumName(v));
}

QList<PropertyInfo> itemProperties(const Scene& s, const ItemRef& ref) {
    QList<PropertyInfo> out;
    if (!indexValid(s, ref))
        return out;
    for (const Prop& p : table(s, ref))
        if (p.visible(s, ref.index))
            out << infoOf(s, p);
    return out;
}

std::optional<PropertyInfo> propertyInfo(const Scene& s, const ItemRef& ref, const QString& key) {
    auto p = findProp(s, ref, key);
    if (!p)
        return std::nullopt;
    return infoOf(s, *p);
}

QVariant propertyValue(const Scene& s, const ItemRef& ref, const QString& key) {
    auto p = findProp(s, ref, key);
    return p ? p->get(s, ref.index) : QVariant();
}

QString propertyPath(const Scene& s, const ItemRef& ref, const QString& key) {
    if (ref.kind == ItemKind::Grid && key == "duration_fs")
        return QStringLiteral("time.duration_fs");
    if (ref.kind == ItemKind::Domain && key == "background")
        return QStringLiteral("background");
    if (!indexValid(s, ref))
        return key;
    return itemPath(s, ref) + QLatin1Char('.') + key;
}

QString propertyLabel(const Scene& s, const ItemRef& ref, const QString& key) {
    const auto p = findProp(s, ref, key);
    const QString label = p && !p->label.isEmpty() ? tr(p->label.toLatin1().constData()) : key;
    return (indexValid(s, ref) ? itemTitle(s, ref) : QString()) + QStringLiteral(" \u203a ") + label;
}

QString sceneProblem(const Scene& s) {
    try {
        scene::validateScene(s);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

PropertyCheck checkProperty(const Scene& s, const ItemRef& ref, const QString& key, const QVariant& input) {
    PropertyCheck r;
    auto p = findProp(s, ref, key);
    const QString path = propertyPath(s, ref, key);
    if (!p) {
        r.error = tr("%1: no such property").arg(path);
        return r;
    }
    const PropertyInfo info = infoOf(s, *p);
    QVariant value;
    if (QString e = parseValue(info, input, value); !e.isEmpty()) {
        r.error = QStringLiteral("%1: %2").arg(path, e);
        return r;
    }
    if (QString e = p->check(s, ref.index, value); !e.isEmpty()) {
        r.error = QStringLiteral("%1: %2").arg(path, e);
        return r;
    }
    // The backend's own validation decides the rest (objects outside the domain, unstable dt, ...). A
    // scene that is already invalid (being built) is not held to it, or no edit could ever fix it.
    if (sceneProblem(s).isEmpty()) {
        Scene edited = s;
        p->set(edited, ref.index, value);
        if (QString e = sceneProblem(edited); !e.isEmpty()) {
            r.error = e;
            return r;
        }
    }
    r.ok = true;
    r.value = value;
    return r;
}

void applyProperty(Scene& s, const ItemRef& ref, const QString& key, const QVariant& value) {
    auto p = findProp(s, ref, key);
    if (!p)
        throw std::invalid_argument("applyProperty: unknown property " + key.toStdString());
    p->set(s, ref.index, value);
}

QString formatPropertyValue(const PropertyInfo& info, const QVariant& v) {
    auto num = [](double d) { return QString::number(d, 'g', 10); };
    switch (info.type) {
    case PropertyType::Double:
        return num(v.toDouble());
    case PropertyType::Int:
        return QString::number(v.toInt());
    case PropertyType::Bool:
        return v.toBool() ? tr("yes") : tr("no");
    case PropertyType::Vec3:
    case PropertyType::IntVec3:
    case PropertyType::DoubleList: {
        QStringList parts;
        for (const QVariant& x : v.toList())
            parts << num(x.toDouble());
        return parts.join(", ");
    }
    case PropertyType::StringList:
        return v.toStringList().join(", ");
    case PropertyType::Points2: {
        QStringList parts;
        for (const QVariant& x : v.toList())
            parts << num(x.toPointF().x()) + "," + num(x.toPointF().y());
        return parts.join("; ");
    }
    default:
        return v.toString();
    }
}

} // namespace yee::ui
