#pragma once
/// \file Registry.hpp
/// The detector kinds, keyed by their scene type name ("flux", "energy", ...). Filled once, from the
/// explicit list in Registry.cpp (a static library would drop self-registering objects). A kind that is not
/// part of the scene format declares its scene keys through Kind::declare(); declareSceneKinds() hands
/// those declarations to the scene layer, so adding a kind is its own file plus one line in Registry.cpp.
#include <string>
#include <vector>

#include "yee/detectors/Detector.hpp"

namespace yee::detectors {

/// Register the plug-in kinds' declarations (Kind::declare()) with the scene schema. Runs before main()
/// in every program that links the registry; idempotent, so a program may also call it first thing.
void declareSceneKinds();
/// Every registered kind, in registration order.
const std::vector<const Kind*>& kinds();
/// The kind registered as `type`, or nullptr.
const Kind* find(const std::string& type);
/// The kind of scene detector type `t`. Throws InputError when no kind is registered for it.
const Kind& kindOf(scene::DetectorType t);
/// The kind that planned `dp` (by its typeName).
const Kind& kindOf(const DetectorPlan& dp);

} // namespace yee::detectors
