#include "ui/NewItems.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

#include "yee/scene/Schema.hpp"

namespace yee::ui {

namespace {
QString tr(const char* t) {
    return QCoreApplication::translate("yee::ui::NewItems", t);
}

bool nameUsed(const scene::Scene& s, ItemKind k, const std::string& n) {
    for (int i = 0; i < elementCount(s, k); ++i)
        if (entityName(entityAt(s, {k, i})) == n)
            return true;
    return false;
}

/// The material new objects get: the densest one that is not the background, else the background.
std::string objectMaterial(const scene::Scene& s) {
    const scene::Material* best = nullptr;
    for (const auto& m : s.materials)
        if (m.name != s.background && (!best || m.eps > best->eps))
            best = &m;
    return best ? best->name : s.background;
}

double minExtent(const scene::Scene& s) {
    return std::min({s.domainSize[0], s.domainSize[1], s.domainSize[2]});
}
/// Round to whole cells so new items sit on the grid.
double cells(const scene::Scene& s, double um) {
    return std::max(1.0, std::round(um / s.cellUm)) * s.cellUm;
}
} // namespace

std::string uniqueName(const scene::Scene& s, ItemKind element, const std::string& stem) {
    for (int i = 1;; ++i) {
        std::string n = stem + std::to_string(i);
        if (!nameUsed(s, element, n))
            return n;
    }
}

SceneEntity makeNewItem(const scene::Scene& s, NewItemKind kind) {
    const scene::Vec3 c = s.domainCenter;
    const double q = cells(s, 0.25 * minExtent(s));
    switch (kind) {
    case NewItemKind::Box:
    case NewItemKind::Sphere:
    case NewItemKind::Cylinder:
    case NewItemKind::Prism: {
        scene::Object o;
        o.center = c;
        o.material = objectMaterial(s);
        o.size = {q, q, q};
        if (kind == NewItemKind::Box) {
            o.shape = scene::Shape::Box;
            o.name = uniqueName(s, ItemKind::Object, "box");
        } else if (kind == NewItemKind::Sphere) {
            o.shape = scene::Shape::Sphere;
            o.radius = 0.5 * q;
            o.name = uniqueName(s, ItemKind::Object, "sphere");
        } else if (kind == NewItemKind::Cylinder) {
            o.shape = scene::Shape::Cylinder;
            o.radius = 0.5 * q;
            o.height = q;
            o.axis = 2;
            o.name = uniqueName(s, ItemKind::Object, "cylinder");
        } else {
            o.shape = scene::Shape::Polygon;
            o.axis = 2;
            o.height = q;
            const double h = 0.5 * q;
            o.vertices = {{c[0] - h, c[1] - h}, {c[0] + h, c[1] - h}, {c[0], c[1] + h}};
            o.name = uniqueName(s, ItemKind::Object, "prism");
        }
        return o;
    }
    case NewItemKind::Material: {
        scene::Material m;
        m.name = uniqueName(s, ItemKind::Material, "material");
        m.eps = 2.25;
        return m;
    }
    case NewItemKind::PointDipole: {
        scene::Source src;
        src.name = uniqueName(s, ItemKind::Source, "dipole");
        src.type = scene::SourceType::PointDipole;
        src.center = c;
        src.polarization = {0, 0, 1};
        return src;
    }
    case NewItemKind::PlaneSource: {
        scene::Source src;
        src.name = uniqueName(s, ItemKind::Source, "plane");
        src.type = scene::SourceType::GaussianPlane;
        src.center = c;
        src.center[0] = s.domainLo()[0] + s.domainSize[0] * 0.25;
        src.size = {0, cells(s, 0.5 * s.domainSize[1]), cells(s, 0.5 * s.domainSize[2])};
        src.normal = 0;
        src.direction = +1;
        src.polarization = {0, 1, 0};
        src.waist = 0.25 * std::min(s.domainSize[1], s.domainSize[2]);
        return src;
    }
    case NewItemKind::FluxDetector:
    case NewItemKind::SnapshotDetector:
    case NewItemKind::ProbeDetector: {
        scene::Detector d;
        d.center = c;
        if (kind == NewItemKind::FluxDetector) {
            d.name = uniqueName(s, ItemKind::Detector, "flux");
            d.type = scene::DetectorType::Flux;
            d.center[0] = s.domainLo()[0] + s.domainSize[0] * 0.75;
            d.size = {0, cells(s, 0.5 * s.domainSize[1]), cells(s, 0.5 * s.domainSize[2])};
            d.normal = 0;
            d.direction = +1;
            d.wavelengths = {1.55};
        } else if (kind == NewItemKind::SnapshotDetector) {
            d.name = uniqueName(s, ItemKind::Detector, "snapshot");
            d.type = scene::DetectorType::Snapshot;
            d.size = {s.domainSize[0], s.domainSize[1], 0};
            d.components = {"Ez"};
            d.every = 20;
        } else {
            d.name = uniqueName(s, ItemKind::Detector, "probe");
            d.type = scene::DetectorType::Probe;
            d.components = {"Ez"};
        }
        return d;
    }
    case NewItemKind::DesignRegion: {
        scene::Design d;
        d.name = uniqueName(s, ItemKind::Design, "design");
        d.center = c;
        d.size = {q, q, q};
        d.voxelCells = {2, 2, 2};
        d.materials = {s.background, objectMaterial(s)};
        d.beta = 8;
        return d;
    }
    }
    return scene::Material{};
}

namespace {
bool hasKey(scene::SectionId sec, int variant, const char* key) {
    return scene::section(sec).find(key, variant) != nullptr;
}

/// A plane across x at `fraction` of the domain, half the domain wide in y and z.
void placePlane(const scene::Scene& s, double fraction, scene::Vec3& center, scene::Vec3& size, int& normal) {
    center = s.domainCenter;
    center[0] = s.domainLo()[0] + s.domainSize[0] * fraction;
    size = {0, cells(s, 0.5 * s.domainSize[1]), cells(s, 0.5 * s.domainSize[2])};
    normal = 0;
}

/// The wavelength new detectors record at: the first source's, else 1.55 um.
double detectorWavelength(const scene::Scene& s) {
    for (const auto& src : s.sources)
        if (src.profile.wavelength > 0)
            return src.profile.wavelength;
    return 1.55;
}
} // namespace

SceneEntity makeNewSource(const scene::Scene& s, scene::SourceType type) {
    const int v = int(type);
    const scene::SectionId sec = scene::SectionId::Source;
    scene::Source src;
    src.type = type;
    src.name = uniqueName(s, ItemKind::Source, scene::enumName(type));
    src.center = s.domainCenter;
    if (hasKey(sec, v, "size_um")) {
        placePlane(s, 0.25, src.center, src.size, src.normal);
        src.direction = +1;
        src.polarization = {0, 1, 0};
    } else {
        src.polarization = {0, 0, 1};
    }
    if (hasKey(sec, v, "waist_um"))
        src.waist = 0.25 * std::min(s.domainSize[1], s.domainSize[2]);
    return src;
}

SceneEntity makeNewDetector(const scene::Scene& s, scene::DetectorType type) {
    const int v = int(type);
    const scene::SectionId sec = scene::SectionId::Detector;
    scene::Detector d;
    d.type = type;
    d.name = uniqueName(s, ItemKind::Detector, scene::enumName(type));
    d.center = s.domainCenter;
    const scene::KeySpec* size = scene::section(sec).find("size_um", v);
    if (hasKey(sec, v, "direction")) {
        placePlane(s, 0.75, d.center, d.size, d.normal);
        d.direction = +1;
    } else if (size && size->range.lo >= 0 && size->range.loOpen) {
        const double q = cells(s, 0.25 * minExtent(s));
        d.size = {q, q, q}; // a closed box
    } else if (size) {
        d.size = {s.domainSize[0], s.domainSize[1], 0}; // the xy slice through the centre
    }
    if (hasKey(sec, v, "wavelengths_um"))
        d.wavelengths = {detectorWavelength(s)};
    if (hasKey(sec, v, "components"))
        d.components = {"Ez"};
    if (hasKey(sec, v, "every"))
        d.every = 20;
    return d;
}

QString newItemText(NewItemKind kind) {
    switch (kind) {
    case NewItemKind::Box:
        return tr("Box");
    case NewItemKind::Sphere:
        return tr("Sphere");
    case NewItemKind::Cylinder:
        return tr("Cylinder");
    case NewItemKind::Prism:
        return tr("Extruded polygon");
    case NewItemKind::Material:
        return tr("Material");
    case NewItemKind::PointDipole:
        return tr("Point dipole source");
    case NewItemKind::PlaneSource:
        return tr("Gaussian plane source");
    case NewItemKind::FluxDetector:
        return tr("Flux detector");
    case NewItemKind::SnapshotDetector:
        return tr("Field snapshot detector");
    case NewItemKind::ProbeDetector:
        return tr("Point probe");
    case NewItemKind::DesignRegion:
        return tr("Design region");
    }
    return {};
}

} // namespace yee::ui
