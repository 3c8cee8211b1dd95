#include "ui/PlotExport.hpp"

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>

namespace yee::ui {

namespace {
QString tr(const char* text) {
    return QCoreApplication::translate("PlotExport", text);
}
} // namespace

bool exportPlot(const QString& path, const PlotForms& forms, QString* error) {
    const QString ext = QFileInfo(path).suffix().toLower();
    QByteArray bytes;
    if (ext == QLatin1String("csv") && forms.csv) {
        bytes = forms.csv().toUtf8();
    } else if (ext == QLatin1String("svg") && forms.svg) {
        bytes = forms.svg().toUtf8();
    } else if (ext == QLatin1String("png") && forms.png) {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (!forms.png().save(&buffer, "PNG")) {
            if (error)
                *error = tr("%1: the image could not be encoded as PNG").arg(path);
            return false;
        }
    } else {
        if (error)
            *error = tr("%1: unknown format (use .csv, .png or .svg)").arg(path);
        return false;
    }
    QSaveFile file(path);
    if (file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size() && file.commit())
        return true;
    if (error)
        *error = tr("%1: cannot be written (%2)").arg(path, file.errorString());
    return false;
}

QString plotExportFilter() {
    return tr("Data (*.csv);;Image (*.png);;Vector image (*.svg)");
}

QString fileNameOf(const QString& title) {
    static const QRegularExpression special(QStringLiteral("[^A-Za-z0-9._-]+"));
    QString name = title.trimmed();
    name.replace(special, QStringLiteral("_"));
    return name.isEmpty() ? QStringLiteral("plot") : name;
}

} // namespace yee::ui
