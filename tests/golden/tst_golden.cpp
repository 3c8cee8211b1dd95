/// Golden results: the example scenes through today's yee-run must give, bit for bit, the detectors,
/// objective and gradients that main produced before the round-2 refactor (tests/golden/README.md).
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

#include "yee/io/ResultsWriter.hpp"

using namespace yee;

namespace {

const QString kGolden = QStringLiteral(YEE_SOURCE_DIR "/tests/golden");

/// Bitwise equality of two float64 arrays (NaN payloads included); names the first difference.
QString compareArrays(const solver::NamedArray& want, const solver::NamedArray& got, const QString& where) {
    if (want.shape != got.shape)
        return where + ": shape differs";
    for (std::size_t i = 0; i < want.data.size(); ++i)
        if (std::memcmp(&want.data[i], &got.data[i], sizeof(double)) != 0)
            return QStringLiteral("%1[%2]: golden %3, got %4")
                .arg(where)
                .arg(i)
                .arg(want.data[i], 0, 'g', 17)
                .arg(got.data[i], 0, 'g', 17);
    return {};
}

} // namespace

class tst_golden : public QObject {
    Q_OBJECT
private slots:
    void matchesGolden_data() {
        QTest::addColumn<QString>("scene");
        QTest::addColumn<bool>("grad");
        for (const char* s :
             {"quick_box", "grating_coupler", "ring_resonator", "straight_waveguide", "waveguide_bend"})
            QTest::newRow(qPrintable(QStringLiteral("%1 forward").arg(s))) << QString(s) << false;
        for (const char* s : {"straight_waveguide", "waveguide_bend"})
            QTest::newRow(qPrintable(QStringLiteral("%1 grad").arg(s))) << QString(s) << true;
    }

    void matchesGolden() {
        QFETCH(QString, scene);
        QFETCH(bool, grad);
        const QString golden = kGolden + "/data/" + scene + (grad ? ".grad.h5" : ".fwd.h5");
        QVERIFY2(QFile::exists(golden), qPrintable(golden));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath("out.h5");
        QStringList args{"-q", "-o", out, "--snapshots-dir", dir.filePath("fields")};
        if (grad)
            args << "--grad";
        args << kGolden + "/scenes/" + scene + ".json";
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
            env.remove(v);
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(dir.path());
        p.start(YEE_RUN_EXE, args);
        QVERIFY(p.waitForFinished(300000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 0, qPrintable(QString::fromLocal8Bit(p.readAllStandardError())));

        const io::ResultsFile want = io::readResults(golden.toStdString());
        const io::ResultsFile got = io::readResults(out.toStdString());
        QVERIFY(got.complete);
        QCOMPARE(got.steps, want.steps);
        QCOMPARE(got.totalSteps, want.totalSteps);
        QCOMPARE(got.gridCells, want.gridCells);
        QCOMPARE(std::memcmp(&got.dtFs, &want.dtFs, sizeof(double)), 0);

        QCOMPARE(got.detectors.size(), want.detectors.size());
        for (const auto& wd : want.detectors) {
            const solver::DetectorResult* gd = got.detector(wd.name);
            QVERIFY2(gd, qPrintable(QString::fromStdString("missing detector " + wd.name)));
            QCOMPARE(gd->type, wd.type);
            QCOMPARE(gd->arrays.size(), wd.arrays.size());
            for (const auto& wa : wd.arrays) {
                const solver::NamedArray* ga = gd->find(wa.name);
                const QString where = QString::fromStdString("/detectors/" + wd.name + "/" + wa.name);
                QVERIFY2(ga, qPrintable("missing " + where));
                const QString diff = compareArrays(wa, *ga, where);
                QVERIFY2(diff.isEmpty(), qPrintable(diff));
            }
        }

        QCOMPARE(got.objective.has_value(), want.objective.has_value());
        if (want.objective)
            QVERIFY2(std::memcmp(&*got.objective, &*want.objective, sizeof(double)) == 0,
                     qPrintable(QStringLiteral("/objective: golden %1, got %2")
                                    .arg(*want.objective, 0, 'g', 17)
                                    .arg(*got.objective, 0, 'g', 17)));

        QCOMPARE(got.gradients.size(), want.gradients.size());
        if (grad)
            QVERIFY(!want.gradients.empty());
        for (const auto& [name, wa] : want.gradients) {
            auto it = got.gradients.find(name);
            QVERIFY2(it != got.gradients.end(),
                     qPrintable(QString::fromStdString("missing gradient " + name)));
            const QString diff = compareArrays(wa, it->second, QString::fromStdString("/gradient/" + name));
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }
    }
};

QTEST_GUILESS_MAIN(tst_golden)
#include "tst_golden.moc"
