#include "ui/SceneDocument.hpp"

#include <QDir>
#include <QFileInfo>

#include "ui/SceneProperties.hpp"
#include "yee/scene/SceneJson.hpp"

namespace yee::ui {

SceneDocument::SceneDocument(QObject* parent)
    : QObject(parent), scene_(defaultScene()), undo_(new QUndoStack(this)) {
    connect(undo_, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
    // First connection: every other receiver of sceneChanged() already sees the new revision.
    connect(this, &SceneDocument::sceneChanged, this, [this] { ++revision_; });
}

scene::Scene SceneDocument::defaultScene() {
    scene::Scene s;
    s.name = "untitled";
    s.cellUm = 0.05;
    s.domainSize = {2.0, 2.0, 2.0};
    s.durationFs = 50;
    s.materials.push_back({"air", 1.0, 1.0, 0.0});
    s.background = "air";
    for (auto& b : s.boundaries) {
        b.type = scene::BoundaryType::Pml;
        b.cells = 8;
    }
    return s;
}

QString SceneDocument::baseDir() const {
    return filePath_.isEmpty() ? QDir::currentPath() : QFileInfo(filePath_).absolutePath();
}

void SceneDocument::newScene() {
    resetScene(defaultScene(), {});
}

void SceneDocument::resetScene(const scene::Scene& s, const QString& path) {
    const bool wasModified = isModified();
    scene_ = s;
    undo_->clear();
    undo_->setClean();
    if (path != filePath_) {
        filePath_ = path;
        emit filePathChanged(filePath_);
    }
    current_ = {};
    emit sceneReset();
    emit sceneChanged();
    emit currentItemChanged(current_);
    if (wasModified)
        emit modifiedChanged(false);
}

bool SceneDocument::load(const QString& path, QString* error, QString* problem) {
    try {
        scene::Scene s = scene::loadScene(path.toStdString(), /*validate=*/false);
        if (problem)
            *problem = sceneProblem(s);
        resetScene(s, QFileInfo(path).absoluteFilePath());
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
}

bool SceneDocument::save(const QString& path, QString* error) {
    const QString target = path.isEmpty() ? filePath_ : QFileInfo(path).absoluteFilePath();
    if (target.isEmpty()) {
        if (error)
            *error = tr("no file name given");
        return false;
    }
    try {
        scene::saveScene(scene_, target.toStdString());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    if (target != filePath_) {
        filePath_ = target;
        emit filePathChanged(filePath_);
    }
    undo_->setClean();
    return true;
}

void SceneDocument::setCurrentItem(const ItemRef& ref) {
    if (ref == current_)
        return;
    current_ = ref;
    emit currentItemChanged(current_);
}

void SceneDocument::applyProperty(const ItemRef& ref, const QString& key, const QVariant& value) {
    ui::applyProperty(scene_, ref, key, value);
    emit itemChanged(ref, key);
    // A renamed material shows up in the objects using it; a changed object shape or type changes the
    // set of visible properties. The tree and editor refresh from itemChanged; the rest from sceneChanged.
    emit sceneChanged();
}

void SceneDocument::insertEntity(int index, const SceneEntity& entity) {
    const ItemRef ref{entityKind(entity), index};
    emit itemAboutToBeInserted(ref);
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            auto insertInto = [&](auto& list) { list.insert(list.begin() + index, v); };
            if constexpr (std::is_same_v<T, scene::Material>)
                insertInto(scene_.materials);
            else if constexpr (std::is_same_v<T, scene::Object>)
                insertInto(scene_.objects);
            else if constexpr (std::is_same_v<T, scene::Source>)
                insertInto(scene_.sources);
            else if constexpr (std::is_same_v<T, scene::Detector>)
                insertInto(scene_.detectors);
            else
                insertInto(scene_.designs);
        },
        entity);
    emit itemInserted(ref);
    emit sceneChanged();
}

SceneEntity SceneDocument::removeEntity(const ItemRef& ref) {
    SceneEntity e = entityAt(scene_, ref);
    if (current_.kind == ref.kind && current_.index >= ref.index)
        setCurrentItem({});
    emit itemAboutToBeRemoved(ref);
    auto eraseFrom = [&](auto& list) { list.erase(list.begin() + ref.index); };
    switch (ref.kind) {
    case ItemKind::Material:
        eraseFrom(scene_.materials);
        break;
    case ItemKind::Object:
        eraseFrom(scene_.objects);
        break;
    case ItemKind::Source:
        eraseFrom(scene_.sources);
        break;
    case ItemKind::Detector:
        eraseFrom(scene_.detectors);
        break;
    case ItemKind::Design:
        eraseFrom(scene_.designs);
        break;
    default:
        break;
    }
    emit itemRemoved(ref);
    emit sceneChanged();
    return e;
}

void SceneDocument::replaceObject(int index, const scene::Object& object) {
    scene_.objects.at(index) = object;
    emit itemChanged({ItemKind::Object, index}, {});
    emit sceneChanged();
}

void SceneDocument::setRecorderChain(const std::vector<scene::RecorderModule>& chain) {
    scene_.gradient.recorder = chain;
    emit itemChanged({ItemKind::Gradient, -1}, QStringLiteral("recorder"));
    emit sceneChanged();
}

void SceneDocument::setObjectiveTerms(const std::vector<scene::ObjectiveTerm>& terms) {
    scene_.objective.terms = terms;
    emit itemChanged({ItemKind::Objective, -1}, QString());
    emit sceneChanged();
}

void SceneDocument::setObjective(const scene::Objective& objective) {
    scene_.objective = objective;
    emit itemChanged({ItemKind::Objective, -1}, QString());
    emit sceneChanged();
}

void SceneDocument::replaceMaterial(int index, const scene::Material& material) {
    scene_.materials[std::size_t(index)] = material;
    emit itemChanged({ItemKind::Material, index}, QString());
    emit sceneChanged();
}

void SceneDocument::setOptimization(const scene::OptimizationConfig& optimization) {
    scene_.optimization = optimization;
    emit sceneChanged();
}

} // namespace yee::ui
