#pragma once
/// The main() of a Qt Test executable run under mpirun: MPI is initialised once, every rank runs the test
/// object (ranks other than 0 with -silent, so only rank 0 prints the full log), and the process exit code
/// is the worst over all ranks, so every rank ends the same way.
#include <QtTest>

#include <mpi.h>

#include "yee/comm/MpiComm.hpp"

/// Defines main() for test class `TestClass` (use in place of QTEST_APPLESS_MAIN).
#define YEE_MPI_TEST_MAIN(TestClass)                                                                         \
    int main(int argc, char** argv) {                                                                        \
        yee::comm::MpiSession session(&argc, &argv);                                                         \
        int rc = 0;                                                                                          \
        {                                                                                                    \
            QCoreApplication app(argc, argv);                                                                \
            TestClass t;                                                                                     \
            QStringList args = app.arguments();                                                              \
            if (session.worldRank() != 0)                                                                    \
                args << QStringLiteral("-silent");                                                           \
            rc = QTest::qExec(&t, args);                                                                     \
        }                                                                                                    \
        int worst = 0;                                                                                       \
        MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);                                     \
        return worst;                                                                                        \
    }
