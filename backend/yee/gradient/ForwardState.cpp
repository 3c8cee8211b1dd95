#include "yee/gradient/ForwardState.hpp"

#include <stdexcept>

#include "yee/gradient/FullState.hpp"
#include "yee/gradient/ReversibleState.hpp"
#include "yee/gradient/RevolveState.hpp"

namespace yee::gradient {

template <class T>
std::unique_ptr<ForwardState<T>> makeForwardState(const GradientPlan& gp, AdjointSweep<T>& sweep) {
    // The one place keyed by the method (no default: -Wswitch flags a method without a strategy).
    switch (gp.method) {
    case scene::GradientMethod::Full:
        return std::make_unique<FullState<T>>(sweep);
    case scene::GradientMethod::Checkpointed:
        return std::make_unique<RevolveState<T>>(sweep, gp);
    case scene::GradientMethod::Reversible:
        return std::make_unique<ReversibleState<T>>(sweep, gp);
    }
    throw std::logic_error("makeForwardState: unknown gradient method");
}

template std::unique_ptr<ForwardState<float>> makeForwardState(const GradientPlan&, AdjointSweep<float>&);
template std::unique_ptr<ForwardState<double>> makeForwardState(const GradientPlan&, AdjointSweep<double>&);

} // namespace yee::gradient
