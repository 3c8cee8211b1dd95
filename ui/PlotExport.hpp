#pragma once
/// \file PlotExport.hpp
/// Writing a plot's data or picture to a file the user chose, by its extension, atomically.
#include <QImage>
#include <QString>

#include <functional>

namespace yee::ui {

/// The three forms a plot exports to; each is produced only when asked for.
struct PlotForms {
    std::function<QString()> csv;
    std::function<QString()> svg;
    std::function<QImage()> png;
};

/// Write the form of `forms` that `path`'s extension names (.csv, .svg, .png; any case) to `path`. The
/// file is written beside its target and renamed over it once complete (QSaveFile), so a failed write
/// leaves neither a truncated file nor a lost earlier one. False, with a one-line `error` naming the file,
/// for an unknown extension or a failed write.
bool exportPlot(const QString& path, const PlotForms& forms, QString* error = nullptr);

/// The file dialog's filter list for exportPlot(): data first.
QString plotExportFilter();

/// `title` as a file name: characters a file system or a shell treats specially become '_'.
QString fileNameOf(const QString& title);

} // namespace yee::ui
