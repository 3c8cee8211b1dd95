/// yee-run under mpirun on mode_waveguide.json (one tile per rank): the results of 2 and 3 ranks equal a
/// one-process run bit for bit (mode coefficients, S-parameters), the collective table shows the planning
/// broadcasts, and a bad port ends every rank with one error line and exit code 2 instead of hanging.
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include <cstring>
#include <fstream>

#include "yee/io/ResultsWriter.hpp"

using namespace yee;

namespace {

const QString kScene = QStringLiteral(YEE_SOURCE_DIR "/resources/scenes/mode_waveguide.json");

struct Result {
    int code = -1;
    QString out, err;
    bool finished = false;
};

/// Runs `program args` in `dir`; gives up (killing it) after `seconds`.
Result launch(const QString& program, const QStringList& args, const QString& dir, int seconds) {
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start(program, args);
    Result r;
    r.finished = p.waitForStarted(30000) && p.waitForFinished(seconds * 1000);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(10000);
    }
    r.code = p.exitCode();
    r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
    r.err = QString::fromLocal8Bit(p.readAllStandardError());
    return r;
}

Result yeeRun(int ranks, const QStringList& args, const QString& dir, int seconds = 600) {
    if (ranks <= 1)
        return launch(YEE_RUN_EXE, args, dir, seconds);
    return launch(
        YEE_MPIEXEC,
        QStringList{"--allow-run-as-root", "--oversubscribe", "-np", QString::number(ranks), YEE_RUN_EXE} +
            args,
        dir, seconds);
}

QString explain(const Result& r) {
    return QStringLiteral("exit %1%2\nstdout:\n%3\nstderr:\n%4")
        .arg(r.code)
        .arg(r.finished ? "" : " (did not finish: killed)")
        .arg(r.out, r.err);
}

/// The first difference between the detectors and S-parameters of two results files ("" when none).
std::string diff(const io::ResultsFile& a, const io::ResultsFile& b) {
    if (a.detectors.size() != b.detectors.size())
        return "detector count";
    for (std::size_t d = 0; d < a.detectors.size(); ++d)
        for (std::size_t q = 0; q < a.detectors[d].arrays.size(); ++q) {
            const auto& u = a.detectors[d].arrays[q];
            const auto* v = b.detectors[d].find(u.name);
            if (!v || v->data.size() != u.data.size() ||
                std::memcmp(u.data.data(), v->data.data(), u.data.size() * sizeof(double)) != 0)
                return a.detectors[d].name + "/" + u.name;
        }
    if (!a.sParameters || !b.sParameters)
        return "no S-parameters";
    if (!(a.sParameters->s == b.sParameters->s))
        return "S-parameters";
    return {};
}

} // namespace

class TestModeYeeRun : public QObject {
    Q_OBJECT
private slots:
    void matchesOneProcess() {
        QTemporaryDir dir;
        const QStringList common{"-q", "--max-steps", "150", kScene};
        const Result one = yeeRun(1, QStringList{"-o", "one.h5"} + common, dir.path());
        QVERIFY2(one.finished && one.code == 0, qPrintable(explain(one)));
        const io::ResultsFile a = io::readResults(dir.filePath("one.h5").toStdString());
        for (int n : {2, 3}) {
            const QString out = QStringLiteral("np%1.h5").arg(n);
            const Result r = yeeRun(n,
                                    QStringList{"--tiles", QStringLiteral("%1x1x1").arg(n), "-o", out,
                                                "--max-steps", "150", kScene},
                                    dir.path());
            QVERIFY2(r.finished && r.code == 0, qPrintable(explain(r)));
            const io::ResultsFile b = io::readResults(dir.filePath(out).toStdString());
            const std::string d = diff(a, b);
            QVERIFY2(d.empty(), d.c_str());
            // 7 solves (the source, two monitors at three wavelengths), two broadcasts each, on every rank.
            QCOMPARE(b.devices.size(), std::size_t(n));
            for (const auto& dev : b.devices)
                QCOMPARE(
                    dev.comm.calls[std::size_t(comm::Phase::Planning)][std::size_t(comm::Kind::Broadcast)],
                    std::int64_t(14));
            QVERIFY2(r.out.contains("planning"), qPrintable(r.out));
        }
    }

    void badPortEndsEveryRank_data() {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QString>("edit");
        QTest::addColumn<QString>("expect");
        QTest::newRow("mode index, np 2") << 2 << "\"mode_index\": 0"
                                          << "sources[0].mode_index: ";
        QTest::newRow("mode index, np 3") << 3 << "\"mode_index\": 0"
                                          << "sources[0].mode_index: ";
        QTest::newRow("monitor modes on the last rank, np 3") << 3 << "\"modes\": 1, \"port_pml_cells\": 8}"
                                                              << "detectors[1].modes: ";
    }
    void badPortEndsEveryRank() {
        QFETCH(int, ranks);
        QFETCH(QString, edit);
        QFETCH(QString, expect);
        QTemporaryDir dir;
        QFile in(kScene);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QString text = QString::fromUtf8(in.readAll());
        if (edit.startsWith("\"modes\"")) {
            // The second monitor's (port 2, on the last tile).
            const int at = text.lastIndexOf(edit);
            QVERIFY(at > 0);
            text.replace(at, edit.size(), "\"modes\": 6, \"port_pml_cells\": 8}");
        } else {
            QVERIFY(text.contains(edit));
            text.replace(edit, "\"mode_index\": 4");
        }
        QFile out(dir.filePath("bad.json"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text.toUtf8());
        out.close();
        const Result r =
            yeeRun(ranks, {"--tiles", QStringLiteral("%1x1x1").arg(ranks), "bad.json"}, dir.path(), 300);
        QVERIFY2(r.finished, qPrintable(explain(r)));
        QVERIFY2(r.code == 2, qPrintable(explain(r)));
        QCOMPARE(r.err.count("yee-run: error: "), 1);
        QVERIFY2(r.err.contains("yee-run: error: " + expect), qPrintable(explain(r)));
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY(!QFile::exists(dir.filePath("bad.results.h5")));
    }
};

QTEST_GUILESS_MAIN(TestModeYeeRun)
#include "tst_mode_yee_run.moc"
