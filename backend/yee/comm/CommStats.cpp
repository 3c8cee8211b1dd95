#include "yee/comm/CommStats.hpp"

namespace yee::comm {

const char* kindName(Kind k) {
    switch (k) {
    case Kind::HaloExchange:
        return "halo_exchange";
    case Kind::AllReduce:
        return "all_reduce";
    case Kind::Gather:
        return "gather";
    case Kind::Broadcast:
        return "broadcast";
    case Kind::Barrier:
        return "barrier";
    default:
        return "?";
    }
}

const char* phaseName(Phase p) {
    switch (p) {
    case Phase::Setup:
        return "setup";
    case Phase::Forward:
        return "forward";
    case Phase::Reconstruct:
        return "reconstruct";
    case Phase::Adjoint:
        return "adjoint";
    case Phase::Output:
        return "output";
    case Phase::Planning:
        return "planning";
    default:
        return "?";
    }
}

} // namespace yee::comm
