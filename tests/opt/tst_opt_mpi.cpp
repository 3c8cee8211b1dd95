/// The optimisation loop under MPI (one tile per rank, registered with 2 ranks): every rank calls
/// opt::optimize() with an MpiComm; rank 0 runs the optimiser, the others serve its evaluations. The
/// iterates equal, bit for bit, those of the same optimisation on one in-process device. Failures are
/// agreed over MPI_COMM_WORLD before they are reported, so every rank ends the same way.
#include "mpi/MpiTestMain.hpp"
#include <QtTest>

#include <mpi.h>

#include <cstring>

#include "yee/comm/MpiComm.hpp"
#include "yee/core/Error.hpp"
#include "yee/opt/Optimize.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;

namespace {
int worldRank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
int worldSize() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}
} // namespace

class tst_OptMpi : public QObject {
    Q_OBJECT
private slots:
    void ranksEqualOneDevice();
};

void tst_OptMpi::ranksEqualOneDevice() {
    scene::Scene s = scene::loadScene(YEE_SOURCE_DIR "/resources/scenes/ar_coating_opt.json");
    s.optimization.iterations = 4;
    const int n = worldSize();
    std::string failure;
    opt::OptResult mpi;
    try {
        comm::MpiComm c;
        run::RunOptions o = run::RunOptions::fromScene(s);
        o.tiles = {n, 1, 1};
        o.devices = 1;
        o.threadsPerDevice = 1;
        o.guardInterval = 1000;
        o.communicator = &c;
        mpi = opt::optimize(s, o, {});
    } catch (const std::exception& e) {
        failure = std::string("rank ") + std::to_string(worldRank()) + ": " + e.what();
    }
    if (worldRank() == 0 && failure.empty()) {
        run::RunOptions o = run::RunOptions::fromScene(s);
        o.threadsPerDevice = 1;
        o.guardInterval = 1000;
        const opt::OptResult one = opt::optimize(s, o, {});
        if (one.history.size() != mpi.history.size())
            failure = "evaluation counts differ";
        for (std::size_t i = 0; failure.empty() && i < one.history.size(); ++i) {
            const auto& a = one.history[i].latent[0];
            const auto& b = mpi.history[i].latent[0];
            if (a.size() != b.size() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) != 0 ||
                std::memcmp(&one.history[i].merit, &mpi.history[i].merit, sizeof(double)) != 0)
                failure = "evaluation " + std::to_string(i) + " differs between " + std::to_string(n) +
                          " ranks and one device";
        }
        if (failure.empty())
            qInfo("%d ranks: %zu evaluations equal to one device's, merit %.6g -> %.6g", n,
                  mpi.history.size(), mpi.history.front().merit, mpi.history.back().merit);
    }
    int bad = failure.empty() ? 0 : 1, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!failure.empty())
        qWarning("%s", failure.c_str());
    QVERIFY2(any == 0, "a rank failed (see its warning)");
}

YEE_MPI_TEST_MAIN(tst_OptMpi)

#include "tst_opt_mpi.moc"
