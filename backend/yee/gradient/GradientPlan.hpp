#pragma once
/// \file GradientPlan.hpp
/// The gradient configuration of a run, derived from the scene's "gradient" section and checked against
/// the plan (makeGradientPlan() in GradientDriver.hpp).
#include <string>

#include "yee/gradient/Codec.hpp"
#include "yee/scene/Scene.hpp"

namespace yee::gradient {

/// Gradient configuration derived from the scene's "gradient" section (validated).
struct GradientPlan {
    scene::GradientMethod method = scene::GradientMethod::Checkpointed;
    int numCheckpoints = 8;
    int numCheckpointsReversible = 0;
    int everyK = 1; ///< LinearReconstructEveryK k (1 = every step)
    int startAfter = 0;
    Dtype dtype = Dtype::Float64; ///< recorder storage format
    std::string tier = "device";
    int transferInterval = 1;
    int ringBuffers = 4;
    std::string diskPath;
};

} // namespace yee::gradient
