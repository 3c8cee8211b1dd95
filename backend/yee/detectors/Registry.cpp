#include "yee/detectors/Registry.hpp"

#include <memory>

#include "yee/core/Error.hpp"

namespace yee::detectors {

// The kinds, each defined in its own file (<Kind>.cpp).
std::unique_ptr<Kind> makeFluxKind();
std::unique_ptr<Kind> makeEnergyKind();
std::unique_ptr<Kind> makePhasorKind();
std::unique_ptr<Kind> makeProbeKind();
std::unique_ptr<Kind> makeSnapshotKind();
std::unique_ptr<Kind> makeFluxBoxKind();
std::unique_ptr<Kind> makeModeMonitorKind();

namespace {
struct Table {
    std::vector<std::unique_ptr<Kind>> owned;
    std::vector<const Kind*> list;
    Table() {
        // The one list of registrations: a new kind is one line here.
        for (auto make : {makeSnapshotKind, makeFluxKind, makeEnergyKind, makePhasorKind, makeProbeKind,
                          makeFluxBoxKind, makeModeMonitorKind}) {
            owned.push_back(make());
            list.push_back(owned.back().get());
        }
    }
};
const Table& table() {
    static const Table t;
    return t;
}
} // namespace

void declareSceneKinds() {
    static const bool done = [] {
        for (const Kind* k : kinds())
            if (auto spec = k->declare())
                scene::registerDetectorKind(std::move(*spec));
        return true;
    }();
    (void)done;
}

namespace {
// Before main(): the schema is complete when the first scene is read.
[[maybe_unused]] const bool kSceneKindsDeclared = (declareSceneKinds(), true);
} // namespace

const std::vector<const Kind*>& kinds() {
    return table().list;
}

const Kind* find(const std::string& type) {
    for (const Kind* k : kinds())
        if (k->type() == type)
            return k;
    return nullptr;
}

const Kind& kindOf(scene::DetectorType t) {
    for (const Kind* k : kinds())
        if (k->sceneType() == t)
            return *k;
    throw InputError("detectors: no detector kind is registered for type " + std::to_string(int(t)));
}

const Kind& kindOf(const DetectorPlan& dp) {
    if (const Kind* k = find(dp.typeName))
        return *k;
    throw InputError("detectors: no detector kind is registered as \"" + dp.typeName + "\"");
}

} // namespace yee::detectors
