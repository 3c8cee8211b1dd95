/// The Debian package: cpack builds it from this build tree, it unpacks into a scratch root with
/// `dpkg-deb -x`, and the unpacked yee-run works on an installed example scene. Desktop entry, icon and
/// AppStream metadata are where desktops look for them, and valid.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kAppId = QStringLiteral("org.yeestudio.YeeStudio");

struct Proc {
    int code = -1;
    QString out, err;
};

QString explain(const QString& what, const Proc& p) {
    return QString("%1: exit %2\n--- stdout\n%3\n--- stderr\n%4").arg(what).arg(p.code).arg(p.out, p.err);
}

Proc run(const QString& program, const QStringList& args, const QString& cwd = QString()) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
        env.remove(v);
    p.setProcessEnvironment(env);
    if (!cwd.isEmpty())
        p.setWorkingDirectory(cwd);
    p.start(program, args);
    Proc r;
    if (!p.waitForStarted(30000)) {
        r.err = "cannot start " + program;
        return r;
    }
    if (!p.waitForFinished(600000)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
    r.err = QString::fromLocal8Bit(p.readAllStandardError());
    return r;
}

} // namespace

class tst_Installer : public QObject {
    Q_OBJECT

    QTemporaryDir scratch_;
    QString deb_;
    QString root_;

private slots:
    /// cpack -G DEB on this build tree, into a scratch folder; then dpkg-deb -x into a scratch root.
    void initTestCase() {
        QVERIFY(scratch_.isValid());
        const QString config = QStringLiteral(YEE_BINARY_DIR "/CPackConfig.cmake");
        QVERIFY2(QFile::exists(config), qPrintable(config));
        const QString packages = scratch_.filePath("packages");
        const Proc cpack = run(YEE_CPACK, {"-G", "DEB", "--config", config, "-B", packages}, YEE_BINARY_DIR);
        QVERIFY2(cpack.code == 0, qPrintable(explain("cpack", cpack)));
        const QStringList debs = QDir(packages).entryList({"*.deb"}, QDir::Files);
        QVERIFY2(debs.size() == 1, qPrintable(debs.join(' ') + "\n" + cpack.out));
        deb_ = packages + "/" + debs.front();
        QVERIFY2(debs.front().startsWith("yee-studio_" YEE_VERSION "_"), qPrintable(debs.front()));
        root_ = scratch_.filePath("root");
        const Proc x = run("dpkg-deb", {"-x", deb_, root_});
        QVERIFY2(x.code == 0, qPrintable(explain("dpkg-deb -x", x)));
    }

    void controlFields() {
        const Proc f =
            run("dpkg-deb", {"-f", deb_, "Package", "Version", "Maintainer", "Depends", "Section"});
        QVERIFY2(f.code == 0, qPrintable(explain("dpkg-deb -f", f)));
        QVERIFY2(f.out.contains("Package: yee-studio\n"), qPrintable(f.out));
        QVERIFY2(f.out.contains("Version: " YEE_VERSION "\n"), qPrintable(f.out));
        QVERIFY2(f.out.contains("Maintainer: "), qPrintable(f.out));
        QVERIFY2(f.out.contains("Section: science"), qPrintable(f.out));
        // dpkg-shlibdeps found the shared libraries yee-run links.
        QVERIFY2(f.out.contains("libc6") && f.out.contains("libhdf5"), qPrintable(f.out));
    }

    void layout() {
        QStringList expected{"usr/bin/yee-run", "usr/bin/yee-bench",
                             "usr/share/yee-studio/scenes/quick_box.json",
                             "usr/share/metainfo/" + kAppId + ".metainfo.xml"};
#ifdef YEE_HAVE_STUDIO
        expected << "usr/bin/yee-studio"
                 << "usr/share/applications/" + kAppId + ".desktop"
                 << "usr/share/icons/hicolor/scalable/apps/" + kAppId + ".svg"
                 << "usr/share/icons/hicolor/128x128/apps/" + kAppId + ".png";
#endif
        for (const QString& f : expected)
            QVERIFY2(QFile::exists(root_ + "/" + f), qPrintable(f));
        // Every example scene ships.
        const QStringList scenes =
            QDir(YEE_SOURCE_DIR "/resources/scenes").entryList({"*.json"}, QDir::Files);
        QVERIFY(!scenes.isEmpty());
        for (const QString& s : scenes)
            QVERIFY2(QFile::exists(root_ + "/usr/share/yee-studio/scenes/" + s), qPrintable(s));
        // Nothing points back into the build tree.
        QDirIterator it(root_, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            QFile f(it.next());
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(!f.readAll().contains(YEE_BINARY_DIR), qPrintable(f.fileName()));
        }
    }

    /// The unpacked yee-run runs from the scratch root on an installed example scene.
    void installedYeeRunWorks() {
        const QString yeeRun = root_ + "/usr/bin/yee-run";
        const QString scene = root_ + "/usr/share/yee-studio/scenes/quick_box.json";
        const Proc v = run(yeeRun, {"--version"});
        QVERIFY2(v.code == 0, qPrintable(explain("yee-run --version", v)));
        QCOMPARE(v.out.trimmed(), QString("yee-run " YEE_VERSION));
        QTemporaryDir work;
        const Proc c = run(yeeRun, {"--check", scene}, work.path());
        QVERIFY2(c.code == 0, qPrintable(explain("yee-run --check", c)));
        QVERIFY2(c.out.contains("Memory estimate") && c.out.contains(": ok"), qPrintable(c.out));
        const Proc r = run(yeeRun, {"-q", "--max-steps", "5", "-o", "r.h5", scene}, work.path());
        QVERIFY2(r.code == 0, qPrintable(explain("yee-run", r)));
        QVERIFY(QFile::exists(work.filePath("r.h5")));
    }

    /// The Python module lands in Debian's python3 dist-packages, with its stubs, and imports and runs
    /// from the unpacked tree.
    void installedPythonModuleWorks() {
#ifndef YEE_PYTHON
        QSKIP("built without the Python module");
#else
        const QString pkg = root_ + "/usr/lib/python3/dist-packages";
        for (const QString& f : {"yee/__init__.py", "yee/__init__.pyi", "yee/py.typed", "yee/gds.py"})
            QVERIFY2(QFile::exists(pkg + "/" + f), qPrintable(f));
        const QString scene = root_ + "/usr/share/yee-studio/scenes/quick_box.json";
        const QString script = "import sys; sys.path.insert(0, '" + pkg +
                               "'); import yee; "
                               "assert yee.__file__.startswith('" +
                               pkg +
                               "'); "
                               "r = yee.run(yee.Scene.load('" +
                               scene +
                               "'), max_steps=5); "
                               "print(r.status, r.steps)";
        const Proc p = run(YEE_PYTHON, {"-c", script});
        QVERIFY2(p.code == 0, qPrintable(explain("python3 -c 'import yee'", p)));
        QCOMPARE(p.out.trimmed(), QString("completed 5"));
#endif
    }

    /// AppStream metadata (and the desktop entry, with the studio) pass the freedesktop validators.
    void desktopMetadataValid() {
        const QString metainfo = root_ + "/usr/share/metainfo/" + kAppId + ".metainfo.xml";
        QFile m(metainfo);
        QVERIFY(m.open(QIODevice::ReadOnly));
        const QString xml = QString::fromUtf8(m.readAll());
        QVERIFY2(xml.contains("<id>" + kAppId + "</id>") &&
                     xml.contains("<release version=\"" YEE_VERSION "\""),
                 qPrintable(xml));
        QVERIFY2(xml.contains("<binary>yee-run</binary>"), qPrintable(xml));
#ifdef YEE_HAVE_STUDIO
        QVERIFY2(xml.contains("type=\"desktop-application\"") &&
                     xml.contains(kAppId + ".desktop</launchable>"),
                 qPrintable(xml));
#else
        QVERIFY2(xml.contains("type=\"console-application\""), qPrintable(xml));
#endif
        bool validated = false;
        const QString appstreamcli = QStandardPaths::findExecutable("appstreamcli");
        if (!appstreamcli.isEmpty()) {
            const Proc a = run(appstreamcli, {"validate", "--no-net", metainfo});
            QVERIFY2(a.code == 0, qPrintable(explain("appstreamcli validate", a)));
            validated = true;
        }
        const QString desktopValidate = QStandardPaths::findExecutable("desktop-file-validate");
        const QString desktop = root_ + "/usr/share/applications/" + kAppId + ".desktop";
        if (!desktopValidate.isEmpty() && QFile::exists(desktop)) {
            const Proc d = run(desktopValidate, {desktop});
            QVERIFY2(d.code == 0 && d.out.trimmed().isEmpty(),
                     qPrintable(explain("desktop-file-validate", d)));
        }
        if (!validated)
            QSKIP("appstreamcli not installed (Debian package appstream): metadata checked by content only");
    }
};

QTEST_GUILESS_MAIN(tst_Installer)
#include "tst_installer.moc"
