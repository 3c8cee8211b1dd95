#include "ui/SceneItem.hpp"

#include <QCoreApplication>

namespace yee::ui {

bool isElementKind(ItemKind k) {
    switch (k) {
    case ItemKind::Boundary:
    case ItemKind::Material:
    case ItemKind::Object:
    case ItemKind::Source:
    case ItemKind::Detector:
    case ItemKind::Design:
        return true;
    default:
        return false;
    }
}

ItemKind groupOf(ItemKind e) {
    switch (e) {
    case ItemKind::Boundary:
        return ItemKind::Boundaries;
    case ItemKind::Material:
        return ItemKind::Materials;
    case ItemKind::Object:
        return ItemKind::Objects;
    case ItemKind::Source:
        return ItemKind::Sources;
    case ItemKind::Detector:
        return ItemKind::Detectors;
    case ItemKind::Design:
        return ItemKind::Designs;
    default:
        return ItemKind::None;
    }
}

ItemKind elementOf(ItemKind g) {
    switch (g) {
    case ItemKind::Boundaries:
        return ItemKind::Boundary;
    case ItemKind::Materials:
        return ItemKind::Material;
    case ItemKind::Objects:
        return ItemKind::Object;
    case ItemKind::Sources:
        return ItemKind::Source;
    case ItemKind::Detectors:
        return ItemKind::Detector;
    case ItemKind::Designs:
        return ItemKind::Design;
    default:
        return ItemKind::None;
    }
}

int elementCount(const scene::Scene& s, ItemKind e) {
    switch (e) {
    case ItemKind::Boundary:
        return 3;
    case ItemKind::Material:
        return int(s.materials.size());
    case ItemKind::Object:
        return int(s.objects.size());
    case ItemKind::Source:
        return int(s.sources.size());
    case ItemKind::Detector:
        return int(s.detectors.size());
    case ItemKind::Design:
        return int(s.designs.size());
    default:
        return 0;
    }
}

QString fileKey(ItemKind k) {
    switch (k) {
    case ItemKind::Grid:
        return QStringLiteral("grid");
    case ItemKind::Domain:
        return QStringLiteral("domain");
    case ItemKind::Boundaries:
    case ItemKind::Boundary:
        return QStringLiteral("boundaries");
    case ItemKind::Materials:
    case ItemKind::Material:
        return QStringLiteral("materials");
    case ItemKind::Objects:
    case ItemKind::Object:
        return QStringLiteral("objects");
    case ItemKind::Sources:
    case ItemKind::Source:
        return QStringLiteral("sources");
    case ItemKind::Detectors:
    case ItemKind::Detector:
        return QStringLiteral("detectors");
    case ItemKind::Designs:
    case ItemKind::Design:
        return QStringLiteral("designs");
    case ItemKind::Objective:
        return QStringLiteral("objective");
    case ItemKind::Gradient:
        return QStringLiteral("gradient");
    case ItemKind::Run:
        return QStringLiteral("run");
    default:
        return {};
    }
}

QString itemPath(const scene::Scene& s, const ItemRef& ref) {
    static const char* axes[] = {"x", "y", "z"};
    switch (ref.kind) {
    case ItemKind::Boundary:
        return QStringLiteral("boundaries.%1").arg(QLatin1String(axes[ref.index]));
    case ItemKind::Material:
        // Materials are a JSON object keyed by name.
        return QStringLiteral("materials.%1").arg(QString::fromStdString(s.materials[ref.index].name));
    case ItemKind::Object:
    case ItemKind::Source:
    case ItemKind::Detector:
    case ItemKind::Design:
        return QStringLiteral("%1[%2]").arg(fileKey(ref.kind)).arg(ref.index);
    default:
        return fileKey(ref.kind);
    }
}

QString itemTitle(const scene::Scene& s, const ItemRef& ref) {
    auto tr = [](const char* t) { return QCoreApplication::translate("yee::ui::SceneItem", t); };
    switch (ref.kind) {
    case ItemKind::Grid:
        return tr("Grid");
    case ItemKind::Domain:
        return tr("Domain");
    case ItemKind::Boundaries:
        return tr("Boundaries");
    case ItemKind::Boundary: {
        static const char* names[] = {QT_TRANSLATE_NOOP("yee::ui::SceneItem", "x faces"),
                                      QT_TRANSLATE_NOOP("yee::ui::SceneItem", "y faces"),
                                      QT_TRANSLATE_NOOP("yee::ui::SceneItem", "z faces")};
        return tr(names[ref.index]);
    }
    case ItemKind::Materials:
        return tr("Materials");
    case ItemKind::Objects:
        return tr("Objects");
    case ItemKind::Sources:
        return tr("Sources");
    case ItemKind::Detectors:
        return tr("Detectors");
    case ItemKind::Designs:
        return tr("Design regions");
    case ItemKind::Objective:
        return tr("Objective");
    case ItemKind::Gradient:
        return tr("Gradient");
    case ItemKind::Run:
        return tr("Run");
    case ItemKind::Material:
    case ItemKind::Object:
    case ItemKind::Source:
    case ItemKind::Detector:
    case ItemKind::Design:
        return QString::fromStdString(entityName(entityAt(s, ref)));
    default:
        return {};
    }
}

SceneEntity entityAt(const scene::Scene& s, const ItemRef& ref) {
    switch (ref.kind) {
    case ItemKind::Material:
        return s.materials.at(ref.index);
    case ItemKind::Object:
        return s.objects.at(ref.index);
    case ItemKind::Source:
        return s.sources.at(ref.index);
    case ItemKind::Detector:
        return s.detectors.at(ref.index);
    case ItemKind::Design:
        return s.designs.at(ref.index);
    default:
        throw std::logic_error("entityAt: not an element reference");
    }
}

ItemKind entityKind(const SceneEntity& e) {
    static constexpr ItemKind kinds[] = {ItemKind::Material, ItemKind::Object, ItemKind::Source,
                                         ItemKind::Detector, ItemKind::Design};
    return kinds[e.index()];
}

std::string entityName(const SceneEntity& e) {
    return std::visit([](const auto& v) { return v.name; }, e);
}

} // namespace yee::ui
