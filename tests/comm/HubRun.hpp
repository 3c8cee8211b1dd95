#pragma once
/// \file HubRun.hpp
/// Running a communication scenario on every rank of an in-process hub and collecting the failures
/// (tests/comm and tests/gpu).
#include <QString>
#include <QStringList>

#include <chrono>
#include <exception>
#include <string>
#include <vector>

#include "yee/comm/LocalComm.hpp"

namespace yee::comm::test {

/// Every rank's failures, one per line (empty: none).
inline QString joinFailures(const std::vector<std::vector<std::string>>& fails) {
    QStringList all;
    for (const auto& f : fails)
        for (const auto& s : f)
            all << QString::fromStdString(s);
    return all.join('\n');
}

/// Runs perRank(comm) -> failures on every rank of a fresh LocalHub of `n` ranks and returns them joined.
/// A generous timeout turns a deadlock into a failure instead of a hung test. `stats` receives the ranks'
/// counts; `label` names the hub in the message when run() itself throws.
template <class F>
QString runLocalHub(int n, F&& perRank, std::vector<CommStats>* stats = nullptr,
                    const char* label = "LocalHub") {
    LocalHub hub(n);
    hub.setTimeout(std::chrono::seconds(60));
    std::vector<std::vector<std::string>> fails(static_cast<std::size_t>(n));
    try {
        hub.run([&](LocalComm& c) { fails[std::size_t(c.rank())] = perRank(c); });
    } catch (const std::exception& e) {
        fails[0].push_back(std::string(label) + " threw: " + e.what());
    }
    if (stats) {
        stats->clear();
        for (int r = 0; r < n; ++r)
            stats->push_back(hub.endpoint(r).stats());
    }
    return joinFailures(fails);
}

} // namespace yee::comm::test
