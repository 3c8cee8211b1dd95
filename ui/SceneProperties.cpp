#include "ui/SceneProperties.hpp"

#include <QCoreApplication>
#include <QLocale>
#include <QPointF>
#include <QRegularExpression>

#include <cmath>
#include <functional>
#include <stdexcept>

#include "yee/core/Error.hpp"
#include "yee/scene/SceneJson.hpp"

namespace yee::ui {

using scene::Scene;
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

struct Prop {
    QString key;
    const char* label;
    PropertyType type;
    QString unit;
    const char* tip;
    Getter get;
    Setter set;
    Checker check;
    Visible visible;
    QStringList choices = {};
    Choices dynamicChoices = {};
};

// ---- conversions between scene types and canonical QVariants ----

QVariant fromVec(const Vec3& v) {
    return QVariantList{v[0], v[1], v[2]};
}
Vec3 toVec(const QVariant& q) {
    const QVariantList l = q.toList();
    return {l.value(0).toDouble(), l.value(1).toDouble(), l.value(2).toDouble()};
}
QVariant fromIVec(const std::array<int, 3>& v) {
    return QVariantList{v[0], v[1], v[2]};
}
std::array<int, 3> toIVec(const QVariant& q) {
    const QVariantList l = q.toList();
    return {l.value(0).toInt(), l.value(1).toInt(), l.value(2).toInt()};
}
QVariant fromDoubles(const std::vector<double>& v) {
    QVariantList l;
    for (double d : v)
        l << d;
    return l;
}
std::vector<double> toDoubles(const QVariant& q) {
    std::vector<double> v;
    for (const QVariant& x : q.toList())
        v.push_back(x.toDouble());
    return v;
}
QVariant fromStrings(const std::vector<std::string>& v) {
    QStringList l;
    for (const auto& s : v)
        l << QString::fromStdString(s);
    return l;
}
std::vector<std::string> toStrings(const QVariant& q) {
    std::vector<std::string> v;
    for (const QString& s : q.toStringList())
        v.push_back(s.toStdString());
    return v;
}
QVariant str(const std::string& s) {
    return QString::fromStdString(s);
}
std::string stdStr(const QVariant& q) {
    return q.toString().toStdString();
}

// ---- reusable checks ----

Checker positive() {
    return
        [](const Scene&, int, const QVariant& v) { return v.toDouble() > 0 ? QString() : tr("must be > 0"); };
}
Checker nonNegative() {
    return [](const Scene&, int, const QVariant& v) {
        return v.toDouble() >= 0 ? QString() : tr("must be >= 0");
    };
}
Checker atLeast(int n) {
    return [n](const Scene&, int, const QVariant& v) {
        return v.toInt() >= n ? QString() : tr("must be >= %1").arg(n);
    };
}
Checker allPositive() {
    return [](const Scene&, int, const QVariant& v) {
        for (const QVariant& x : v.toList())
            if (!(x.toDouble() > 0))
                return tr("must be > 0 along every axis");
        return QString();
    };
}
Checker allNonNegative() {
    return [](const Scene&, int, const QVariant& v) {
        for (const QVariant& x : v.toList())
            if (x.toDouble() < 0)
                return tr("must be >= 0 along every axis");
        return QString();
    };
}
Checker allAtLeastOne() {
    return [](const Scene&, int, const QVariant& v) {
        for (const QVariant& x : v.toList())
            if (x.toInt() < 1)
                return tr("must be >= 1 along every axis");
        return QString();
    };
}
Checker none() {
    return [](const Scene&, int, const QVariant&) { return QString(); };
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

Visible always() {
    return [](const Scene&, int) { return true; };
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

const QStringList kComponents{"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
const QStringList kDirections{"+x", "-x", "+y", "-y", "+z", "-z"};
const QStringList kAxes{"x", "y", "z"};

QString directionName(int normal, int direction) {
    return QString(direction < 0 ? "-" : "+") + kAxes.value(normal, "x");
}
void parseDirection(const QString& d, int& normal, int& direction) {
    direction = d.startsWith('-') ? -1 : +1;
    normal = std::max(0, int(kAxes.indexOf(d.right(1))));
}

// ---- enumeration names (scene-file spelling) ----

template <class E> struct EnumNames {
    std::vector<std::pair<E, const char*>> items;
    QString name(E v) const {
        for (auto& [e, n] : items)
            if (e == v)
                return QString::fromLatin1(n);
        return {};
    }
    E value(const QString& n) const {
        for (auto& [e, s] : items)
            if (n == QLatin1String(s))
                return e;
        return items.front().first;
    }
    QStringList names() const {
        QStringList l;
        for (auto& [e, s] : items)
            l << QString::fromLatin1(s);
        return l;
    }
};

const EnumNames<scene::Shape> kShapes{{{scene::Shape::Box, "box"},
                                       {scene::Shape::Sphere, "sphere"},
                                       {scene::Shape::Cylinder, "cylinder"},
                                       {scene::Shape::Polygon, "polygon"}}};
const EnumNames<scene::SourceType> kSourceTypes{{{scene::SourceType::PointDipole, "point_dipole"},
                                                 {scene::SourceType::GaussianPlane, "gaussian_plane"},
                                                 {scene::SourceType::UniformPlane, "uniform_plane"}}};
const EnumNames<scene::ProfileType> kProfiles{
    {{scene::ProfileType::GaussianPulse, "gaussian_pulse"}, {scene::ProfileType::Cw, "cw"}}};
const EnumNames<scene::DetectorType> kDetectorTypes{{{scene::DetectorType::Snapshot, "snapshot"},
                                                     {scene::DetectorType::Flux, "flux"},
                                                     {scene::DetectorType::Energy, "energy"},
                                                     {scene::DetectorType::Phasor, "phasor"},
                                                     {scene::DetectorType::Probe, "probe"},
                                                     {scene::DetectorType::FluxBox, "flux_box"}}};
const EnumNames<scene::GradientMethod> kMethods{{{scene::GradientMethod::Full, "full"},
                                                 {scene::GradientMethod::Checkpointed, "checkpointed"},
                                                 {scene::GradientMethod::Reversible, "reversible"}}};
const EnumNames<scene::BoundaryType> kBoundaries{{{scene::BoundaryType::Pml, "pml"},
                                                  {scene::BoundaryType::Periodic, "periodic"},
                                                  {scene::BoundaryType::Pec, "pec"}}};
const EnumNames<scene::Quantity> kQuantities{{{scene::Quantity::Flux, "flux"},
                                              {scene::Quantity::PhasorPower, "phasor_power"},
                                              {scene::Quantity::Energy, "energy"}}};
const EnumNames<scene::Reduce> kReduces{{{scene::Reduce::TimeIntegral, "time_integral"},
                                         {scene::Reduce::AtWavelength, "at_wavelength"},
                                         {scene::Reduce::Final, "final"}}};

// ---- the property tables, one per item kind ----

std::vector<Prop> gridProps() {
    return {
        {"cell_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Cell size"), PropertyType::Double, "um",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Edge of one cubic Yee cell"),
         [](const Scene& s, int) { return QVariant(s.cellUm); },
         [](Scene& s, int, const QVariant& v) { s.cellUm = v.toDouble(); }, positive(), always()},
        {"courant", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Courant number"), PropertyType::Double, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Fraction of the 3-D Courant limit; stable in (0, 1]"),
         [](const Scene& s, int) { return QVariant(s.courant); },
         [](Scene& s, int, const QVariant& v) { s.courant = v.toDouble(); },
         [](const Scene&, int, const QVariant& v) {
             const double c = v.toDouble();
             return c > 0 && c <= 1 ? QString() : tr("must be in (0, 1]: larger time steps are unstable");
         },
         always()},
        {"duration_fs", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Duration"), PropertyType::Double, "fs",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Simulated time"),
         [](const Scene& s, int) { return QVariant(s.durationFs); },
         [](Scene& s, int, const QVariant& v) { s.durationFs = v.toDouble(); }, positive(), always()},
    };
}

std::vector<Prop> domainProps() {
    Prop background{
        "background",
        QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Background"),
        PropertyType::MaterialRef,
        "",
        QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Material filling space outside every object"),
        [](const Scene& s, int) { return str(s.background); },
        [](Scene& s, int, const QVariant& v) { s.background = stdStr(v); },
        none(),
        always()};
    background.dynamicChoices = materialNames;
    return {
        {"center_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Centre"), PropertyType::Vec3, "um", "",
         [](const Scene& s, int) { return fromVec(s.domainCenter); },
         [](Scene& s, int, const QVariant& v) { s.domainCenter = toVec(v); }, none(), always()},
        {"size_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Size"), PropertyType::Vec3, "um",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Extent of the simulated box, PML included"),
         [](const Scene& s, int) { return fromVec(s.domainSize); },
         [](Scene& s, int, const QVariant& v) { s.domainSize = toVec(v); },
         [](const Scene& s, int, const QVariant& v) {
             for (const QVariant& x : v.toList())
                 if (!(x.toDouble() >= s.cellUm))
                     return tr("must be at least one cell (%1 um) along every axis").arg(s.cellUm);
             return QString();
         },
         always()},
        background,
    };
}

std::vector<Prop> boundaryProps() {
    auto isPml = [](const Scene& s, int i) { return s.boundaries[i].type == scene::BoundaryType::Pml; };
    Prop type{
        "type",
        QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Type"),
        PropertyType::Enum,
        "",
        QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "CPML absorbs, periodic wraps, PEC reflects"),
        [](const Scene& s, int i) { return QVariant(kBoundaries.name(s.boundaries[i].type)); },
        [](Scene& s, int i, const QVariant& v) { s.boundaries[i].type = kBoundaries.value(v.toString()); },
        none(),
        always(),
        kBoundaries.names()};
    return {
        type,
        {"cells", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "PML cells"), PropertyType::Int, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "CPML thickness, inside the domain"),
         [](const Scene& s, int i) { return QVariant(s.boundaries[i].cells); },
         [](Scene& s, int i, const QVariant& v) { s.boundaries[i].cells = v.toInt(); },
         [](const Scene& s, int i, const QVariant& v) {
             if (v.toInt() < 1)
                 return tr("must be >= 1");
             const int n = int(std::lround(s.domainSize[i] / s.cellUm));
             if (2 * v.toInt() >= n)
                 return tr("two PML slabs of %1 cells do not fit in %2 cells").arg(v.toInt()).arg(n);
             return QString();
         },
         isPml},
        {"order", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Grading order"), PropertyType::Double, "",
         "", [](const Scene& s, int i) { return QVariant(s.boundaries[i].order); },
         [](Scene& s, int i, const QVariant& v) { s.boundaries[i].order = v.toDouble(); }, nonNegative(),
         isPml},
        {"sigma_factor", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Sigma factor"), PropertyType::Double,
         "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties",
                           "sigma_max relative to the optimal 0.8 (m+1) / (eta0 dx)"),
         [](const Scene& s, int i) { return QVariant(s.boundaries[i].sigmaFactor); },
         [](Scene& s, int i, const QVariant& v) { s.boundaries[i].sigmaFactor = v.toDouble(); },
         nonNegative(), isPml},
        {"kappa_max", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Kappa max"), PropertyType::Double, "",
         "", [](const Scene& s, int i) { return QVariant(s.boundaries[i].kappaMax); },
         [](Scene& s, int i, const QVariant& v) { s.boundaries[i].kappaMax = v.toDouble(); },
         [](const Scene&, int, const QVariant& v) {
             return v.toDouble() >= 1 ? QString() : tr("must be >= 1");
         },
         isPml},
        {"alpha_max", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Alpha max"), PropertyType::Double, "",
         "", [](const Scene& s, int i) { return QVariant(s.boundaries[i].alphaMax); },
         [](Scene& s, int i, const QVariant& v) { s.boundaries[i].alphaMax = v.toDouble(); }, nonNegative(),
         isPml},
    };
}

std::vector<Prop> materialProps() {
    return {
        {"name", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Name"), PropertyType::String, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Renaming updates every object using the material"),
         [](const Scene& s, int i) { return str(s.materials[i].name); },
         [](Scene& s, int i, const QVariant& v) {
             const std::string from = s.materials[i].name, to = stdStr(v);
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
         },
         uniqueName(&Scene::materials), always()},
        {"eps", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Permittivity"), PropertyType::Double, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Relative permittivity (>= 1 without dispersion)"),
         [](const Scene& s, int i) { return QVariant(s.materials[i].eps); },
         [](Scene& s, int i, const QVariant& v) { s.materials[i].eps = v.toDouble(); },
         [](const Scene&, int, const QVariant& v) {
             return v.toDouble() >= 1
                        ? QString()
                        : tr("must be >= 1 (non-dispersive materials are not faster than light)");
         },
         always()},
        {"mu", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Permeability"), PropertyType::Double, "", "",
         [](const Scene& s, int i) { return QVariant(s.materials[i].mu); },
         [](Scene& s, int i, const QVariant& v) { s.materials[i].mu = v.toDouble(); },
         [](const Scene&, int, const QVariant& v) {
             return v.toDouble() >= 1 ? QString() : tr("must be >= 1");
         },
         always()},
        {"sigma_S_per_m", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Conductivity"), PropertyType::Double,
         "S/m", "", [](const Scene& s, int i) { return QVariant(s.materials[i].sigma); },
         [](Scene& s, int i, const QVariant& v) { s.materials[i].sigma = v.toDouble(); }, nonNegative(),
         always()},
    };
}

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

std::vector<Prop> objectProps() {
    using scene::Shape;
    auto shapeIs = [](std::initializer_list<Shape> shapes) {
        std::vector<Shape> v(shapes);
        return Visible([v](const Scene& s, int i) {
            return std::find(v.begin(), v.end(), s.objects[i].shape) != v.end();
        });
    };
    Prop shape{
        "shape",
        QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Shape"),
        PropertyType::Enum,
        "",
        "",
        [](const Scene& s, int i) { return QVariant(kShapes.name(s.objects[i].shape)); },
        [](Scene& s, int i, const QVariant& v) { setShape(s.objects[i], kShapes.value(v.toString())); },
        none(),
        always(),
        kShapes.names()};
    Prop axis{
        "axis",
        QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Axis"),
        PropertyType::Enum,
        "",
        QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Cylinder axis / polygon extrusion axis"),
        [](const Scene& s, int i) { return QVariant(kAxes.value(s.objects[i].axis)); },
        [](Scene& s, int i, const QVariant& v) { s.objects[i].axis = int(kAxes.indexOf(v.toString())); },
        none(),
        shapeIs({Shape::Cylinder, Shape::Polygon}),
        kAxes};
    Prop material{"material",
                  QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Material"),
                  PropertyType::MaterialRef,
                  "",
                  "",
                  [](const Scene& s, int i) { return str(s.objects[i].material); },
                  [](Scene& s, int i, const QVariant& v) { s.objects[i].material = stdStr(v); },
                  none(),
                  always()};
    material.dynamicChoices = materialNames;
    return {
        {"name", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Name"), PropertyType::String, "", "",
         [](const Scene& s, int i) { return str(s.objects[i].name); },
         [](Scene& s, int i, const QVariant& v) { s.objects[i].name = stdStr(v); },
         uniqueName(&Scene::objects), always()},
        shape,
        {"center_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Centre"), PropertyType::Vec3, "um", "",
         [](const Scene& s, int i) { return fromVec(s.objects[i].center); },
         [](Scene& s, int i, const QVariant& v) { s.objects[i].center = toVec(v); }, none(), always()},
        {"size_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Size"), PropertyType::Vec3, "um", "",
         [](const Scene& s, int i) { return fromVec(s.objects[i].size); },
         [](Scene& s, int i, const QVariant& v) { s.objects[i].size = toVec(v); }, allPositive(),
         shapeIs({Shape::Box})},
        {"radius_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Radius"), PropertyType::Double, "um", "",
         [](const Scene& s, int i) { return QVariant(s.objects[i].radius); },
         [](Scene& s, int i, const QVariant& v) { s.objects[i].radius = v.toDouble(); }, positive(),
         shapeIs({Shape::Sphere, Shape::Cylinder})},
        axis,
        {"height_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Height"), PropertyType::Double, "um", "",
         [](const Scene& s, int i) { return QVariant(s.objects[i].height); },
         [](Scene& s, int i, const QVariant& v) { s.objects[i].height = v.toDouble(); }, positive(),
         shapeIs({Shape::Cylinder, Shape::Polygon})},
        {"vertices_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Vertices"), PropertyType::Points2,
         "um",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties",
                           "Polygon corners in the plane normal to the axis: \"u,v; u,v; ...\""),
         [](const Scene& s, int i) {
             QVariantList l;
             for (auto& p : s.objects[i].vertices)
                 l << QPointF(p[0], p[1]);
             return QVariant(l);
         },
         [](Scene& s, int i, const QVariant& v) {
             s.objects[i].vertices.clear();
             for (const QVariant& p : v.toList())
                 s.objects[i].vertices.push_back({p.toPointF().x(), p.toPointF().y()});
         },
         [](const Scene&, int, const QVariant& v) {
             return v.toList().size() >= 3 ? QString() : tr("needs at least 3 vertices");
         },
         shapeIs({Shape::Polygon})},
        material,
    };
}

std::vector<Prop> sourceProps() {
    using scene::SourceType;
    auto isPlane = [](const Scene& s, int i) { return s.sources[i].type != SourceType::PointDipole; };
    auto isPulse = [](const Scene& s, int i) {
        return s.sources[i].profile.type == scene::ProfileType::GaussianPulse;
    };
    return {
        {"name", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Name"), PropertyType::String, "", "",
         [](const Scene& s, int i) { return str(s.sources[i].name); },
         [](Scene& s, int i, const QVariant& v) { s.sources[i].name = stdStr(v); },
         uniqueName(&Scene::sources), always()},
        {"type", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Type"), PropertyType::Enum, "", "",
         [](const Scene& s, int i) { return QVariant(kSourceTypes.name(s.sources[i].type)); },
         [](Scene& s, int i, const QVariant& v) { s.sources[i].type = kSourceTypes.value(v.toString()); },
         none(), always(), kSourceTypes.names()},
        {"center_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Centre"), PropertyType::Vec3, "um", "",
         [](const Scene& s, int i) { return fromVec(s.sources[i].center); },
         [](Scene& s, int i, const QVariant& v) { s.sources[i].center = toVec(v); }, none(), always()},
        {"size_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Size"), PropertyType::Vec3, "um",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Plane extent; the zero extent is the plane normal"),
         [](const Scene& s, int i) { return fromVec(s.sources[i].size); },
         [](Scene& s, int i, const QVariant& v) { s.sources[i].size = toVec(v); }, allNonNegative(), isPlane},
        {"direction", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Direction"), PropertyType::Enum, "", "",
         [](const Scene& s, int i) {
             return QVariant(directionName(s.sources[i].normal, s.sources[i].direction));
         },
         [](Scene& s, int i, const QVariant& v) {
             parseDirection(v.toString(), s.sources[i].normal, s.sources[i].direction);
         },
         none(), isPlane, kDirections},
        {"polarization", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Polarisation"), PropertyType::Vec3,
         "", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Direction of the driving current"),
         [](const Scene& s, int i) { return fromVec(s.sources[i].polarization); },
         [](Scene& s, int i, const QVariant& v) { s.sources[i].polarization = toVec(v); },
         [](const Scene&, int, const QVariant& v) {
             double n = 0;
             for (const QVariant& x : v.toList())
                 n += x.toDouble() * x.toDouble();
             return n > 0 ? QString() : tr("must not be the zero vector");
         },
         always()},
        {"waist_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Waist"), PropertyType::Double, "um",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "1/e field radius of the Gaussian beam"),
         [](const Scene& s, int i) { return QVariant(s.sources[i].waist); },
         [](Scene& s, int i, const QVariant& v) { s.sources[i].waist = v.toDouble(); }, positive(),
         [](const Scene& s, int i) { return s.sources[i].type == SourceType::GaussianPlane; }},
        {"profile.type", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Time profile"), PropertyType::Enum,
         "", "", [](const Scene& s, int i) { return QVariant(kProfiles.name(s.sources[i].profile.type)); },
         [](Scene& s, int i, const QVariant& v) {
             s.sources[i].profile.type = kProfiles.value(v.toString());
         },
         none(), always(), kProfiles.names()},
        {"profile.wavelength_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Wavelength"),
         PropertyType::Double, "um", "",
         [](const Scene& s, int i) { return QVariant(s.sources[i].profile.wavelength); },
         [](Scene& s, int i, const QVariant& v) { s.sources[i].profile.wavelength = v.toDouble(); },
         positive(), always()},
        {"profile.bandwidth_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Bandwidth"),
         PropertyType::Double, "um",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "FWHM bandwidth in wavelength"),
         [](const Scene& s, int i) { return QVariant(s.sources[i].profile.bandwidth); },
         [](Scene& s, int i, const QVariant& v) { s.sources[i].profile.bandwidth = v.toDouble(); },
         [](const Scene& s, int i, const QVariant& v) {
             if (!(v.toDouble() > 0))
                 return tr("must be > 0");
             if (v.toDouble() >= 2 * s.sources[i].profile.wavelength)
                 return tr("must be below twice the wavelength");
             return QString();
         },
         isPulse},
        {"profile.ramp_fs", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Ramp"), PropertyType::Double, "fs",
         "", [](const Scene& s, int i) { return QVariant(s.sources[i].profile.ramp); },
         [](Scene& s, int i, const QVariant& v) { s.sources[i].profile.ramp = v.toDouble(); }, nonNegative(),
         [](const Scene& s, int i) { return s.sources[i].profile.type == scene::ProfileType::Cw; }},
        {"profile.amplitude", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Amplitude"),
         PropertyType::Double, "", "",
         [](const Scene& s, int i) { return QVariant(s.sources[i].profile.amplitude); },
         [](Scene& s, int i, const QVariant& v) { s.sources[i].profile.amplitude = v.toDouble(); }, none(),
         always()},
    };
}

std::vector<Prop> detectorProps() {
    using scene::DetectorType;
    auto typeIs = [](std::initializer_list<DetectorType> types) {
        std::vector<DetectorType> v(types);
        return Visible([v](const Scene& s, int i) {
            return std::find(v.begin(), v.end(), s.detectors[i].type) != v.end();
        });
    };
    return {
        {"name", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Name"), PropertyType::String, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Renaming updates the objective terms using it"),
         [](const Scene& s, int i) { return str(s.detectors[i].name); },
         [](Scene& s, int i, const QVariant& v) {
             const std::string from = s.detectors[i].name, to = stdStr(v);
             s.detectors[i].name = to;
             for (auto& t : s.objective.terms)
                 if (t.detector == from)
                     t.detector = to;
         },
         uniqueName(&Scene::detectors), always()},
        {"type", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Type"), PropertyType::Enum, "", "",
         [](const Scene& s, int i) { return QVariant(kDetectorTypes.name(s.detectors[i].type)); },
         [](Scene& s, int i, const QVariant& v) { s.detectors[i].type = kDetectorTypes.value(v.toString()); },
         none(), always(), kDetectorTypes.names()},
        {"center_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Centre"), PropertyType::Vec3, "um", "",
         [](const Scene& s, int i) { return fromVec(s.detectors[i].center); },
         [](Scene& s, int i, const QVariant& v) { s.detectors[i].center = toVec(v); }, none(), always()},
        {"size_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Size"), PropertyType::Vec3, "um", "",
         [](const Scene& s, int i) { return fromVec(s.detectors[i].size); },
         [](Scene& s, int i, const QVariant& v) { s.detectors[i].size = toVec(v); }, allNonNegative(),
         typeIs({DetectorType::Snapshot, DetectorType::Flux, DetectorType::Energy, DetectorType::Phasor,
                 DetectorType::FluxBox})},
        {"direction", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Direction"), PropertyType::Enum, "", "",
         [](const Scene& s, int i) {
             return QVariant(directionName(s.detectors[i].normal, s.detectors[i].direction));
         },
         [](Scene& s, int i, const QVariant& v) {
             parseDirection(v.toString(), s.detectors[i].normal, s.detectors[i].direction);
         },
         none(), typeIs({DetectorType::Flux}), kDirections},
        {"wavelengths_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Wavelengths"),
         PropertyType::DoubleList, "um",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Wavelengths of the phasors (DFT)"),
         [](const Scene& s, int i) { return fromDoubles(s.detectors[i].wavelengths); },
         [](Scene& s, int i, const QVariant& v) { s.detectors[i].wavelengths = toDoubles(v); },
         [](const Scene&, int, const QVariant& v) {
             for (const QVariant& x : v.toList())
                 if (!(x.toDouble() > 0))
                     return tr("every wavelength must be > 0");
             return QString();
         },
         typeIs({DetectorType::Flux, DetectorType::Phasor, DetectorType::FluxBox})},
        {"components", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Components"), PropertyType::StringList,
         "", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Any of Ex Ey Ez Hx Hy Hz"),
         [](const Scene& s, int i) { return fromStrings(s.detectors[i].components); },
         [](Scene& s, int i, const QVariant& v) { s.detectors[i].components = toStrings(v); },
         [](const Scene&, int, const QVariant& v) {
             for (const QString& c : v.toStringList())
                 if (!kComponents.contains(c))
                     return tr("'%1' is not one of Ex, Ey, Ez, Hx, Hy, Hz").arg(c);
             return QString();
         },
         typeIs({DetectorType::Snapshot, DetectorType::Phasor, DetectorType::Probe})},
        {"every", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Every"), PropertyType::Int, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Record every n-th step"),
         [](const Scene& s, int i) { return QVariant(s.detectors[i].every); },
         [](Scene& s, int i, const QVariant& v) { s.detectors[i].every = v.toInt(); }, atLeast(1), always()},
        {"downsample", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Downsample"), PropertyType::Int, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Keep every n-th cell of a snapshot"),
         [](const Scene& s, int i) { return QVariant(s.detectors[i].downsample); },
         [](Scene& s, int i, const QVariant& v) { s.detectors[i].downsample = v.toInt(); }, atLeast(1),
         typeIs({DetectorType::Snapshot})},
    };
}

std::vector<Prop> designProps() {
    auto materialSlot = [](int slot, const char* label) {
        Prop p{QString("materials[%1]").arg(slot),
               label,
               PropertyType::MaterialRef,
               "",
               "",
               [slot](const Scene& s, int i) { return str(s.designs[i].materials[slot]); },
               [slot](Scene& s, int i, const QVariant& v) { s.designs[i].materials[slot] = stdStr(v); },
               none(),
               always()};
        p.dynamicChoices = materialNames;
        return p;
    };
    return {
        {"name", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Name"), PropertyType::String, "", "",
         [](const Scene& s, int i) { return str(s.designs[i].name); },
         [](Scene& s, int i, const QVariant& v) { s.designs[i].name = stdStr(v); },
         uniqueName(&Scene::designs), always()},
        {"center_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Centre"), PropertyType::Vec3, "um", "",
         [](const Scene& s, int i) { return fromVec(s.designs[i].center); },
         [](Scene& s, int i, const QVariant& v) { s.designs[i].center = toVec(v); }, none(), always()},
        {"size_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Size"), PropertyType::Vec3, "um", "",
         [](const Scene& s, int i) { return fromVec(s.designs[i].size); },
         [](Scene& s, int i, const QVariant& v) { s.designs[i].size = toVec(v); }, allPositive(), always()},
        {"voxel_cells", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Voxel cells"), PropertyType::IntVec3,
         "", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Grid cells per latent voxel along x, y, z"),
         [](const Scene& s, int i) { return fromIVec(s.designs[i].voxelCells); },
         [](Scene& s, int i, const QVariant& v) { s.designs[i].voxelCells = toIVec(v); }, allAtLeastOne(),
         always()},
        materialSlot(0, QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Material at rho = 0")),
        materialSlot(1, QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Material at rho = 1")),
        {"filter_radius_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Filter radius"),
         PropertyType::Double, "um",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Density filter radius; 0 = no filter"),
         [](const Scene& s, int i) { return QVariant(s.designs[i].filterRadius); },
         [](Scene& s, int i, const QVariant& v) { s.designs[i].filterRadius = v.toDouble(); }, nonNegative(),
         always()},
        {"projection.beta", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Projection beta"),
         PropertyType::Double, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "tanh projection steepness; 0 = none"),
         [](const Scene& s, int i) { return QVariant(s.designs[i].beta); },
         [](Scene& s, int i, const QVariant& v) { s.designs[i].beta = v.toDouble(); }, nonNegative(),
         always()},
        {"projection.eta", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Projection eta"),
         PropertyType::Double, "", "", [](const Scene& s, int i) { return QVariant(s.designs[i].eta); },
         [](Scene& s, int i, const QVariant& v) { s.designs[i].eta = v.toDouble(); },
         [](const Scene&, int, const QVariant& v) {
             return v.toDouble() >= 0 && v.toDouble() <= 1 ? QString() : tr("must be in [0, 1]");
         },
         always()},
        {"params", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Parameters"), PropertyType::ReadOnly, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Sidecar HDF5 dataset of the latent parameters"),
         [](const Scene& s, int i) {
             return str(s.designs[i].params.empty() ? "(0.5 everywhere)" : s.designs[i].params);
         },
         [](Scene&, int, const QVariant&) {}, none(), always()},
    };
}

std::vector<Prop> objectiveProps() {
    std::vector<Prop> props{
        {"goal", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Goal"), PropertyType::Enum, "", "",
         [](const Scene& s, int) {
             return QVariant(QString(s.objective.maximize ? "maximize" : "minimize"));
         },
         [](Scene& s, int, const QVariant& v) { s.objective.maximize = v.toString() == "maximize"; }, none(),
         always(), QStringList{"maximize", "minimize"}},
    };
    return props;
}

/// Objective terms are a variable-length list: their properties are generated per term.
std::vector<Prop> objectiveTermProps(const Scene& s) {
    std::vector<Prop> props;
    for (int t = 0; t < int(s.objective.terms.size()); ++t) {
        const QString base = QString("terms[%1].").arg(t);
        Prop det{base + "detector",
                 QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Term detector"),
                 PropertyType::DetectorRef,
                 "",
                 "",
                 [t](const Scene& s, int) { return str(s.objective.terms[t].detector); },
                 [t](Scene& s, int, const QVariant& v) { s.objective.terms[t].detector = stdStr(v); },
                 none(),
                 always()};
        det.dynamicChoices = detectorNames;
        props.push_back(det);
        props.push_back(
            {base + "quantity", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Term quantity"),
             PropertyType::Enum, "", "",
             [t](const Scene& s, int) { return QVariant(kQuantities.name(s.objective.terms[t].quantity)); },
             [t](Scene& s, int, const QVariant& v) {
                 s.objective.terms[t].quantity = kQuantities.value(v.toString());
             },
             none(), always(), kQuantities.names()});
        props.push_back(
            {base + "reduce", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Term reduction"),
             PropertyType::Enum, "", "",
             [t](const Scene& s, int) { return QVariant(kReduces.name(s.objective.terms[t].reduce)); },
             [t](Scene& s, int, const QVariant& v) {
                 s.objective.terms[t].reduce = kReduces.value(v.toString());
             },
             none(), always(), kReduces.names()});
        props.push_back(
            {base + "wavelength_um", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Term wavelength"),
             PropertyType::Double, "um", "",
             [t](const Scene& s, int) { return QVariant(s.objective.terms[t].wavelength); },
             [t](Scene& s, int, const QVariant& v) { s.objective.terms[t].wavelength = v.toDouble(); },
             nonNegative(),
             [t](const Scene& s, int) {
                 return s.objective.terms[t].reduce == scene::Reduce::AtWavelength;
             }});
        props.push_back(
            {base + "weight", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Term weight"),
             PropertyType::Double, "", "",
             [t](const Scene& s, int) { return QVariant(s.objective.terms[t].weight); },
             [t](Scene& s, int, const QVariant& v) { s.objective.terms[t].weight = v.toDouble(); }, none(),
             always()});
    }
    return props;
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

std::vector<Prop> gradientProps() {
    using scene::GradientMethod;
    auto methodIs = [](GradientMethod m) {
        return Visible([m](const Scene& s, int) { return s.gradient.method == m; });
    };
    auto tierIs = [](const char* t) {
        return Visible([t](const Scene& s, int) { return s.gradient.tier == t; });
    };
    return {
        {"method", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Method"), PropertyType::Enum, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties",
                           "How the forward state is recovered in the reverse sweep"),
         [](const Scene& s, int) { return QVariant(kMethods.name(s.gradient.method)); },
         [](Scene& s, int, const QVariant& v) { s.gradient.method = kMethods.value(v.toString()); }, none(),
         always(), kMethods.names()},
        {"num_checkpoints", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Checkpoints"), PropertyType::Int,
         "", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Full-state checkpoints of the binomial schedule"),
         [](const Scene& s, int) { return QVariant(s.gradient.numCheckpoints); },
         [](Scene& s, int, const QVariant& v) { s.gradient.numCheckpoints = v.toInt(); }, atLeast(1),
         methodIs(GradientMethod::Checkpointed)},
        {"num_checkpoints_reversible", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Drift checkpoints"),
         PropertyType::Int, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties",
                           "Full-state checkpoints bounding drift in lossy media"),
         [](const Scene& s, int) { return QVariant(s.gradient.numCheckpointsReversible); },
         [](Scene& s, int, const QVariant& v) { s.gradient.numCheckpointsReversible = v.toInt(); },
         atLeast(0), methodIs(GradientMethod::Reversible)},
        {"recorder", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Recorder"), PropertyType::ReadOnly, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Edited in the gradient panel"),
         [](const Scene& s, int) { return QVariant(recorderSummary(s)); },
         [](Scene&, int, const QVariant&) {}, none(), methodIs(GradientMethod::Reversible)},
        {"storage.tier", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Storage tier"), PropertyType::Enum,
         "", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Where records and checkpoints live"),
         [](const Scene& s, int) { return str(s.gradient.tier); },
         [](Scene& s, int, const QVariant& v) { s.gradient.tier = stdStr(v); }, none(), always(),
         QStringList{"device", "host", "disk"}},
        {"storage.transfer_interval", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Transfer interval"),
         PropertyType::Int, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Steps per asynchronous copy to the host ring"),
         [](const Scene& s, int) { return QVariant(s.gradient.transferInterval); },
         [](Scene& s, int, const QVariant& v) { s.gradient.transferInterval = v.toInt(); }, atLeast(1),
         tierIs("host")},
        {"storage.ring_buffers", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Ring buffers"),
         PropertyType::Int, "", "", [](const Scene& s, int) { return QVariant(s.gradient.ringBuffers); },
         [](Scene& s, int, const QVariant& v) { s.gradient.ringBuffers = v.toInt(); }, atLeast(2),
         tierIs("host")},
        {"storage.path", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Disk path"), PropertyType::String, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Directory for the disk tier; empty = temporary"),
         [](const Scene& s, int) { return str(s.gradient.diskPath); },
         [](Scene& s, int, const QVariant& v) { s.gradient.diskPath = stdStr(v); }, none(), tierIs("disk")},
    };
}

std::vector<Prop> runProps() {
    return {
        {"tiles", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Tiles"), PropertyType::IntVec3, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Tile grid px, py, pz; one device per tile"),
         [](const Scene& s, int) { return fromIVec(s.run.tiles); },
         [](Scene& s, int, const QVariant& v) { s.run.tiles = toIVec(v); }, allAtLeastOne(), always()},
        {"devices", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Devices"), PropertyType::String, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties",
                           "\"cpu:N\" emulated devices, \"cuda:0,1\" or \"cuda:all\""),
         [](const Scene& s, int) { return str(s.run.devices); },
         [](Scene& s, int, const QVariant& v) { s.run.devices = stdStr(v); },
         [](const Scene&, int, const QVariant& v) {
             static const QRegularExpression re("^(cpu:[1-9][0-9]*|cuda:(all|[0-9]+(,[0-9]+)*))$");
             return re.match(v.toString()).hasMatch()
                        ? QString()
                        : tr("must be \"cpu:N\", \"cuda:all\" or a list like \"cuda:0,1\"");
         },
         always()},
        {"precision", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Precision"), PropertyType::Enum, "", "",
         [](const Scene& s, int) { return str(s.run.precision); },
         [](Scene& s, int, const QVariant& v) { s.run.precision = stdStr(v); }, none(), always(),
         QStringList{"float32", "float64"}},
        {"overlap", QT_TRANSLATE_NOOP("yee::ui::SceneProperties", "Overlap halos"), PropertyType::Bool, "",
         QT_TRANSLATE_NOOP("yee::ui::SceneProperties",
                           "Overlap halo exchange with interior work (same bits either way)"),
         [](const Scene& s, int) { return QVariant(s.run.overlap); },
         [](Scene& s, int, const QVariant& v) { s.run.overlap = v.toBool(); }, none(), always()},
    };
}

const std::vector<Prop>& staticTable(ItemKind k) {
    static const std::vector<Prop> empty;
    static const std::vector<Prop> grid = gridProps(), domain = domainProps(), boundary = boundaryProps(),
                                   material = materialProps(), object = objectProps(), source = sourceProps(),
                                   detector = detectorProps(), design = designProps(),
                                   objective = objectiveProps(), gradient = gradientProps(), run = runProps();
    switch (k) {
    case ItemKind::Grid:
        return grid;
    case ItemKind::Domain:
        return domain;
    case ItemKind::Boundary:
        return boundary;
    case ItemKind::Material:
        return material;
    case ItemKind::Object:
        return object;
    case ItemKind::Source:
        return source;
    case ItemKind::Detector:
        return detector;
    case ItemKind::Design:
        return design;
    case ItemKind::Objective:
        return objective;
    case ItemKind::Gradient:
        return gradient;
    case ItemKind::Run:
        return run;
    default:
        return empty;
    }
}

/// All properties of `ref` (visible or not), including generated ones.
std::vector<Prop> table(const Scene& s, const ItemRef& ref) {
    std::vector<Prop> t = staticTable(ref.kind);
    if (ref.kind == ItemKind::Objective) {
        auto terms = objectiveTermProps(s);
        t.insert(t.end(), terms.begin(), terms.end());
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
    i.label = tr(p.label);
    i.type = p.type;
    i.choices = p.dynamicChoices ? p.dynamicChoices(s) : p.choices;
    i.unit = p.unit;
    i.toolTip = (p.tip && *p.tip) ? tr(p.tip) : QString();
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
    return kShapes.name(v);
}
QString sourceTypeName(scene::SourceType v) {
    return kSourceTypes.name(v);
}
QString detectorTypeName(scene::DetectorType v) {
    return kDetectorTypes.name(v);
}
QString gradientMethodName(scene::GradientMethod v) {
    return kMethods.name(v);
}
QString boundaryTypeName(scene::BoundaryType v) {
    return kBoundaries.name(v);
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
