#pragma once
/// \file HelpMenu.hpp
/// The Help menu: About (version and build options), the local documentation and the keyboard shortcuts
/// of the window's actions.
#include <QList>
#include <QPair>
#include <QString>

class QMenu;
class QWidget;

namespace yee::ui {

/// Version and build options (CUDA, NCCL, MPI, precision support), as rich text for the About box.
QString aboutText();
/// The build options alone, one "name: on/off" per entry, in a fixed order (CUDA, NCCL, MPI).
QList<QPair<QString, bool>> buildOptions();
/// Local documentation: (title, absolute path) of each file that exists here (README with the scene
/// reference, engine notes, architecture), looked up next to the installed program and in the source tree.
QList<QPair<QString, QString>> documentationFiles();
/// Every action of `window` with a shortcut: "Ctrl+S\tSave" lines sorted by text, for the shortcuts box.
QStringList shortcutLines(const QWidget* window);
/// Fill `menu` with About, Documentation and Keyboard shortcuts for `window`.
void buildHelpMenu(QMenu* menu, QWidget* window);

} // namespace yee::ui
