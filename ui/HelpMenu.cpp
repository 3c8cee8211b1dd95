#include "ui/HelpMenu.hpp"

#include <QAction>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QUrl>
#include <QWidget>

#include <algorithm>

namespace yee::ui {

namespace {
QString tr(const char* t) {
    return QCoreApplication::translate("yee::ui::HelpMenu", t);
}

bool on(int v) {
    return v != 0;
}
} // namespace

QList<QPair<QString, bool>> buildOptions() {
#ifdef YEE_HAVE_CUDA
    const bool cuda = true;
#else
    const bool cuda = false;
#endif
#ifdef YEE_HAVE_NCCL
    const bool nccl = true;
#else
    const bool nccl = false;
#endif
    return {{QStringLiteral("CUDA"), cuda},
            {QStringLiteral("NCCL"), nccl},
            {QStringLiteral("MPI"), on(YEE_BUILD_MPI)}};
}

QString aboutText() {
    QStringList opts;
    for (const auto& [name, enabled] : buildOptions())
        opts << QStringLiteral("<tr><td>%1</td><td>%2</td></tr>").arg(name, enabled ? tr("on") : tr("off"));
    return tr("<h3>Yee Studio %1</h3><p>A differentiable 3-D FDTD (Yee) solver: forward runs and exact "
              "discrete adjoint gradients on emulated CPU devices or CUDA GPUs.</p>"
              "<p>Build options:</p><table>%2</table><p>Qt %3. Lengths in \u00b5m, times in fs.</p>")
        .arg(QStringLiteral(YEE_VERSION), opts.join(QString()), QString::fromLatin1(qVersion()));
}

QList<QPair<QString, QString>> documentationFiles() {
    const QList<QPair<QString, QString>> wanted = {
        {tr("README and scene reference"), QStringLiteral("README.md")},
        {tr("Engine notes"), QStringLiteral("docs/engine.md")},
        {tr("Architecture"), QStringLiteral("docs/architecture.md")}};
    const QStringList roots = {QCoreApplication::applicationDirPath() +
                                   QStringLiteral("/../share/doc/yee-studio"),
                               QStringLiteral(YEE_DOC_DIR)};
    QList<QPair<QString, QString>> out;
    for (const auto& [title, rel] : wanted)
        for (const QString& root : roots) {
            const QFileInfo fi(QDir(root).filePath(rel));
            if (fi.exists()) {
                out.push_back({title, fi.absoluteFilePath()});
                break;
            }
        }
    return out;
}

QStringList shortcutLines(const QWidget* window) {
    QStringList lines;
    for (const QAction* a : window->findChildren<QAction*>()) {
        if (a->shortcut().isEmpty())
            continue;
        QString text = a->text();
        text.remove(QLatin1Char('&'));
        lines << a->shortcut().toString(QKeySequence::NativeText) + QLatin1Char('\t') + text;
    }
    lines.removeDuplicates();
    std::sort(lines.begin(), lines.end(), [](const QString& x, const QString& y) {
        return x.section(QLatin1Char('\t'), 1) < y.section(QLatin1Char('\t'), 1);
    });
    return lines;
}

void buildHelpMenu(QMenu* menu, QWidget* window) {
    QAction* about = menu->addAction(tr("&About Yee Studio"));
    about->setObjectName(QStringLiteral("aboutAction"));
    QObject::connect(about, &QAction::triggered, window,
                     [window] { QMessageBox::about(window, tr("About Yee Studio"), aboutText()); });
    QMenu* docs = menu->addMenu(tr("&Documentation"));
    docs->setObjectName(QStringLiteral("documentationMenu"));
    const auto files = documentationFiles();
    for (const auto& [title, path] : files) {
        QAction* a = docs->addAction(title);
        a->setToolTip(path);
        a->setData(path);
        QObject::connect(a, &QAction::triggered, window,
                         [path = path] { QDesktopServices::openUrl(QUrl::fromLocalFile(path)); });
    }
    if (files.isEmpty())
        docs->addAction(tr("(not installed)"))->setEnabled(false);
    QAction* keys = menu->addAction(tr("&Keyboard shortcuts"));
    keys->setObjectName(QStringLiteral("shortcutsAction"));
    QObject::connect(keys, &QAction::triggered, window, [window] {
        QStringList rows;
        for (const QString& l : shortcutLines(window))
            rows << QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                        .arg(l.section(QLatin1Char('\t'), 0, 0).toHtmlEscaped(),
                             l.section(QLatin1Char('\t'), 1).toHtmlEscaped());
        QMessageBox::information(window, tr("Keyboard shortcuts"),
                                 QStringLiteral("<table>%1</table>").arg(rows.join(QString())));
    });
}

} // namespace yee::ui
