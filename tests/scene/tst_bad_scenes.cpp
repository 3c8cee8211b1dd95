// The bad-input corpus: every scene in tests/bad_scenes is refused with one line that names the field.
#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QSet>
#include <QTextStream>

#include "yee/core/Error.hpp"
#include "yee/scene/SceneJson.hpp"

namespace {

const QString kDir = QStringLiteral(YEE_SOURCE_DIR "/tests/bad_scenes");

/// (file, expected substring) pairs of expected.txt.
QList<QPair<QString, QString>> expectations() {
    QList<QPair<QString, QString>> out;
    QFile f(kDir + "/expected.txt");
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
        return out;
    QTextStream in(&f);
    while (!in.atEnd()) {
        const QString line = in.readLine();
        if (line.trimmed().isEmpty() || line.startsWith('#'))
            continue;
        const int tab = line.indexOf('\t');
        if (tab > 0)
            out.append({line.left(tab), line.mid(tab + 1)});
    }
    return out;
}

} // namespace

class tst_BadScenes : public QObject {
    Q_OBJECT

private slots:
    void corpusIsComplete() {
        const auto exp = expectations();
        QVERIFY(exp.size() >= 25);
        QSet<QString> listed;
        for (const auto& e : exp) {
            QVERIFY2(!listed.contains(e.first), qPrintable(e.first + " is listed twice"));
            listed.insert(e.first);
            QVERIFY2(QFile::exists(kDir + "/" + e.first), qPrintable(e.first + " is missing"));
        }
        for (const QString& f : QDir(kDir).entryList({"*.json"}, QDir::Files))
            QVERIFY2(listed.contains(f), qPrintable(f + " has no line in expected.txt"));
    }

    void baseSceneIsValid() {
        // The corpus is this scene with one defect each.
        const auto s = yee::scene::loadScene(YEE_SOURCE_DIR "/tests/scene/valid_base.json");
        QCOMPARE(s.designs.size(), std::size_t(1));
    }

    void refused_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        for (const auto& e : expectations())
            QTest::newRow(qPrintable(e.first)) << e.first << e.second;
    }

    void refused() {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        QString message;
        bool other = false;
        try {
            yee::scene::loadScene((kDir + "/" + file).toStdString());
        } catch (const yee::InputError& e) {
            message = QString::fromStdString(e.what());
        } catch (...) {
            other = true;
        }
        QVERIFY2(!other, "threw something other than InputError");
        QVERIFY2(!message.isEmpty(), "was accepted");
        QVERIFY2(message.contains(expected), qPrintable("got: " + message));
        QVERIFY2(!message.contains('\n') && !message.contains('\r'), qPrintable("not one line: " + message));
    }
};

QTEST_APPLESS_MAIN(tst_BadScenes)
#include "tst_bad_scenes.moc"
