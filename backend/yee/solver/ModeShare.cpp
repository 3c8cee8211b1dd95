#include "yee/solver/ModeShare.hpp"

#include <array>
#include <cstring>
#include <exception>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "yee/core/Error.hpp"
#include "yee/modes/ModeSetBytes.hpp"

namespace yee::solver {

namespace {

/// The cells a port's profiles touch (see modeOwner()).
Box portReach(const modes::ModeRequest& q) {
    const int a = q.normal, u = (a + 1) % 3, w = (a + 2) % 3;
    Box b;
    b.lo[a] = q.plane - 1;
    b.hi[a] = q.plane + 1;
    b.lo[u] = q.lo[0];
    b.hi[u] = q.hi[0] + 1;
    b.lo[w] = q.lo[1];
    b.hi[w] = q.hi[1] + 1;
    return b;
}

int ownerOf(const std::vector<Box>& tiles, const modes::ModeRequest& q) {
    const Box reach = portReach(q);
    for (std::size_t t = 0; t < tiles.size(); ++t)
        if (!tiles[t].intersect(reach).empty())
            return int(t);
    return 0;
}

enum Status : std::int64_t { kSolved = 0, kInputError = 1, kFailed = 2 };

} // namespace

int modeOwner(const tiling::TileGrid& tiles, const modes::ModeRequest& q) {
    std::vector<Box> boxes;
    for (int t = 0; t < tiles.count(); ++t)
        boxes.push_back(tiles.tile(t).box);
    return ownerOf(boxes, q);
}

void shareModeSolves(modes::ModeCache& cache, comm::Communicator& comm, const tiling::TileGrid& tiles) {
    std::vector<Box> boxes;
    for (int t = 0; t < tiles.count(); ++t)
        boxes.push_back(tiles.tile(t).box);
    comm::Communicator* cm = &comm;
    cache.setResolver([cm, boxes](const modes::ModeRequest& req,
                                  const std::function<modes::ModeSet()>& solveHere,
                                  modes::ShareTraffic& traffic) -> modes::ModeSet {
        const int owner = ownerOf(boxes, req);
        const bool mine = cm->rank() == owner;
        const comm::CommStats before = cm->stats();
        std::array<std::int64_t, 2> head{kSolved, 0};
        std::vector<char> payload;
        std::exception_ptr error;
        modes::ModeSet set;
        if (mine) {
            try {
                set = solveHere();
                payload = modes::encodeModeSet(set);
            } catch (const std::exception& e) {
                error = std::current_exception();
                head[0] = dynamic_cast<const InputError*>(&e) ? kInputError : kFailed;
                const std::string msg = e.what();
                payload.assign(msg.begin(), msg.end());
            } catch (...) {
                error = std::current_exception();
                head[0] = kFailed;
                const std::string msg = "unknown exception";
                payload.assign(msg.begin(), msg.end());
            }
            head[1] = std::int64_t(payload.size());
        }
        cm->broadcast(std::span<char>(reinterpret_cast<char*>(head.data()), sizeof head), owner,
                      comm::Phase::Planning);
        if (!mine)
            payload.resize(std::size_t(head[1]));
        cm->broadcast(std::span<char>(payload), owner, comm::Phase::Planning);
        const comm::CommStats& after = cm->stats();
        constexpr comm::Phase P = comm::Phase::Planning;
        constexpr comm::Kind B = comm::Kind::Broadcast;
        traffic.broadcasts += after.callsOf(P, B) - before.callsOf(P, B);
        traffic.bytes += after.bytesOf(P, B) - before.bytesOf(P, B);
        if (error)
            std::rethrow_exception(error);
        if (head[0] == kInputError)
            throw InputError(std::string(payload.begin(), payload.end()));
        if (head[0] != kSolved)
            throw std::runtime_error(std::string(payload.begin(), payload.end()));
        return mine ? set : modes::decodeModeSet(payload, req);
    });
}

} // namespace yee::solver
