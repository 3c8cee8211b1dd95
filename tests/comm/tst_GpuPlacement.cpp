/// GPU placement under MPI from device identity (comm::gatherNodeGpus, cuda::deviceIdentity), run under
/// mpirun with 2 and 4 ranks on one node and no GPU: each rank fakes the identities of the GPUs it sees
/// (YEE_FAKE_GPU_IDENTITIES, the test hook of cuda::deviceIdentity), as CUDA_VISIBLE_DEVICES or
/// `srun --gpus-per-task=1` would show them, takes its GPU round-robin as yee-run does, and the ranks decide
/// from the allgathered identities whether any two share a GPU. Every test makes exactly one collective
/// call before any check, so a failing rank never leaves the others waiting.
#include "mpi/MpiTestMain.hpp"
#include <QtTest>

#include <mpi.h>

#include <string>
#include <vector>

#include "yee/comm/MpiComm.hpp"
#include "yee/cuda/Runtime.hpp"

using yee::comm::NodeGpus;

namespace {

/// This rank's GPU as yee-run takes it (visible GPU localRank mod count) with `visible` as the hook's
/// list (comma-separated identities; empty: this rank sees no GPU), then the node-wide decision.
NodeGpus place(const std::string& visible, int count) {
    int localRank = 0;
    {
        MPI_Comm node = MPI_COMM_NULL;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &localRank);
        MPI_Comm_free(&node);
    }
    qputenv("YEE_FAKE_GPU_IDENTITIES", QByteArray::fromStdString(visible));
    const std::string mine = count > 0 ? yee::cuda::deviceIdentity(localRank % count) : std::string();
    qunsetenv("YEE_FAKE_GPU_IDENTITIES");
    return yee::comm::gatherNodeGpus(mine);
}

int worldRank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

std::string bus(int g) {
    return "pci=0000:" + std::to_string(10 + g) + ":00.0 uuid=GPU-" + std::to_string(1000 + g);
}

} // namespace

class tst_GpuPlacement : public QObject {
    Q_OBJECT
private slots:
    /// The hook itself: entry id of the list; empty past its end; without it and without a GPU, empty.
    void identityHook() {
        qputenv("YEE_FAKE_GPU_IDENTITIES", "a,b,c");
        QCOMPARE(QString::fromStdString(yee::cuda::deviceIdentity(0)), QString("a"));
        QCOMPARE(QString::fromStdString(yee::cuda::deviceIdentity(2)), QString("c"));
        QVERIFY(yee::cuda::deviceIdentity(3).empty());
        QVERIFY(yee::cuda::deviceIdentity(-1).empty());
        qunsetenv("YEE_FAKE_GPU_IDENTITIES");
        if (yee::cuda::deviceCount() == 0)
            QVERIFY(yee::cuda::deviceIdentity(0).empty());
    }

    /// srun --gpus-per-task=1: every rank sees one GPU, each a different one. Counting (ranks on the node
    /// > GPUs this rank sees) called that sharing and turned NCCL off; the identities say no sharing.
    void perRankVisibilityDistinct() {
        const NodeGpus n = place(bus(worldRank()), 1);
        QVERIFY(n.ranksOnNode > 1);
        QCOMPARE(int(n.identities.size()), n.ranksOnNode);
        QVERIFY2(!n.shared, "ranks on distinct GPUs reported as sharing");
        for (int r = 0; r < n.ranksOnNode; ++r)
            QCOMPARE(QString::fromStdString(n.identities[std::size_t(r)]), QString::fromStdString(bus(r)));
    }

    /// CUDA_VISIBLE_DEVICES=0 on every rank: each sees one GPU, the same one: sharing.
    void perRankVisibilitySameGpu() {
        const NodeGpus n = place(bus(0), 1);
        QVERIFY2(n.shared, "ranks on the same GPU not reported as sharing");
    }

    /// Every rank sees as many GPUs as there are ranks: round-robin puts each on its own.
    void allSeeEnough() {
        int size = 1;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        std::string list;
        for (int g = 0; g < size; ++g) {
            if (g > 0)
                list += ',';
            list += bus(g);
        }
        const NodeGpus n = place(list, size);
        QVERIFY(!n.shared);
    }

    /// Every rank sees two GPUs: with 2 ranks each has its own, with 4 two ranks share each GPU.
    void allSeeTwo() {
        const NodeGpus n = place(bus(0) + "," + bus(1), 2);
        QCOMPARE(n.shared, n.ranksOnNode > 2);
    }

    /// A rank on no GPU (empty identity) shares nothing; the others are on distinct GPUs.
    void rankWithoutGpu() {
        const int r = worldRank();
        const NodeGpus n = place(r == 0 ? std::string() : bus(r), r == 0 ? 0 : 1);
        QVERIFY(n.identities.front().empty()); // one node: node rank 0 is world rank 0
        QVERIFY(!n.shared);
    }
};

YEE_MPI_TEST_MAIN(tst_GpuPlacement)

#include "tst_GpuPlacement.moc"
