/// Atomic replacement: a writer that fails midway leaves the old target intact and no temporary.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "yee/core/Error.hpp"
#include "yee/files/AtomicFile.hpp"

using namespace yee;

namespace {

QByteArray readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

void writeRaw(const std::string& path, const char* text) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    QVERIFY(f);
    std::fputs(text, f);
    std::fclose(f);
}

} // namespace

class tst_AtomicFile : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(name); }
    /// Files in the directory other than `keep`.
    QStringList others(const QStringList& keep) const {
        QStringList l = QDir(dir_.path()).entryList(QDir::Files | QDir::Hidden);
        for (const auto& k : keep)
            l.removeAll(k);
        return l;
    }

private slots:
    void init() {
        for (const auto& f : QDir(dir_.path()).entryList(QDir::Files | QDir::Hidden))
            QFile::remove(dir_.filePath(f));
    }

    void temporaryNameIsInTheSameDirectory() {
        const std::string p = "/some/dir/out.h5";
        const std::string t = files::temporaryPathFor(p);
        QVERIFY(QString::fromStdString(t).startsWith("/some/dir/out.h5.tmp."));
        QVERIFY(t.size() > p.size() + 5);
    }

    void temporaryNamesAreFreshPerCall() {
        std::set<std::string> names;
        for (int i = 0; i < 1000; ++i)
            names.insert(files::temporaryPathFor("/d/out.h5"));
        QCOMPARE(names.size(), std::size_t(1000));
    }

    /// Two threads replacing the same file: every read sees one writer's complete content, the last
    /// one wins whole, and no temporary is left behind.
    void concurrentWritersOfOneTargetNeverMix() {
        const std::string target = path("shared.txt").toStdString();
        const std::string a(64 * 1024, 'a');
        const std::string b(48 * 1024, 'b');
        constexpr int kRounds = 200;
        std::exception_ptr failure;
        std::thread other([&] {
            try {
                for (int i = 0; i < kRounds; ++i)
                    files::writeTextAtomically(target, b);
            } catch (...) {
                failure = std::current_exception();
            }
        });
        int torn = 0;
        for (int i = 0; i < kRounds; ++i) {
            files::writeTextAtomically(target, a);
            const QByteArray got = readAll(path("shared.txt"));
            if (got != QByteArray::fromStdString(a) && got != QByteArray::fromStdString(b))
                ++torn;
        }
        other.join();
        QVERIFY2(!failure, failure ? qPrintable(QString::fromStdString(describe(failure))) : "");
        QCOMPARE(torn, 0);
        const QByteArray last = readAll(path("shared.txt"));
        QVERIFY(last == QByteArray::fromStdString(a) || last == QByteArray::fromStdString(b));
        QCOMPARE(others({"shared.txt"}), QStringList());
    }

    void textWriteCreatesAndReplaces() {
        const std::string target = path("a.txt").toStdString();
        files::writeTextAtomically(target, "first");
        QCOMPARE(readAll(path("a.txt")), QByteArray("first"));
        files::writeTextAtomically(target, std::string_view("sec\0nd", 6));
        QCOMPARE(readAll(path("a.txt")), QByteArray("sec\0nd", 6));
        QCOMPARE(others({"a.txt"}), QStringList());
    }

    void throwingWriterLeavesOldFileAndNoTemp() {
        const std::string target = path("results.h5").toStdString();
        files::writeTextAtomically(target, "old content");
        bool tempExistedMidway = false;
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                 files::writeAtomically(target, [&](const std::string& temp) {
                                     writeRaw(temp, "half of the new cont");
                                     tempExistedMidway = QFile::exists(QString::fromStdString(temp));
                                     throw std::runtime_error("disk on fire");
                                 }));
        QVERIFY(tempExistedMidway);
        QCOMPARE(readAll(path("results.h5")), QByteArray("old content"));
        QCOMPARE(others({"results.h5"}), QStringList());
    }

    void throwingWriterWithoutOldFileLeavesNothing() {
        const std::string target = path("new.h5").toStdString();
        QVERIFY_THROWS_EXCEPTION(yee::RunError, files::writeAtomically(target, [&](const std::string& temp) {
                                     writeRaw(temp, "partial");
                                     throw yee::RunError("I/O error");
                                 }));
        QCOMPARE(others({}), QStringList());
    }

    void exceptionPropagatesUnchanged() {
        try {
            files::writeAtomically(path("x").toStdString(),
                                   [](const std::string&) { throw yee::InputError("field: bad"); });
            QFAIL("no exception");
        } catch (const yee::InputError& e) {
            QCOMPARE(QString(e.what()), QString("field: bad"));
        }
    }

    void writerThatCreatesNothingFailsToCommit() {
        const std::string target = path("keep.txt").toStdString();
        files::writeTextAtomically(target, "kept");
        QVERIFY_THROWS_EXCEPTION(yee::RunError, files::writeAtomically(target, [](const std::string&) {}));
        QCOMPARE(readAll(path("keep.txt")), QByteArray("kept"));
        QCOMPARE(others({"keep.txt"}), QStringList());
    }

    void uncommittedObjectRemovesTemp() {
        const std::string target = path("rai.txt").toStdString();
        std::string temp;
        {
            files::AtomicFile f(target);
            temp = f.tempPath();
            writeRaw(temp, "never committed");
            QVERIFY(QFile::exists(QString::fromStdString(temp)));
        }
        QVERIFY(!QFile::exists(QString::fromStdString(temp)));
        QVERIFY(!QFile::exists(path("rai.txt")));
    }

    void missingDirectoryIsARunError() {
        const std::string target = path("no/such/dir/out.txt").toStdString();
        try {
            files::writeTextAtomically(target, "x");
            QFAIL("no exception");
        } catch (const yee::RunError& e) {
            QVERIFY2(QString(e.what()).contains("no/such/dir/out.txt.tmp."), e.what());
        }
        QCOMPARE(others({}), QStringList());
    }
};

QTEST_APPLESS_MAIN(tst_AtomicFile)
#include "tst_AtomicFile.moc"
