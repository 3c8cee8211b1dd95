#pragma once
/// \file WheelGuard.hpp
/// Keeps the mouse wheel for scrolling: combo boxes and spin boxes inside scrolling panels change their
/// value on the wheel only once they have the keyboard focus (clicked or tabbed into), so scrolling the
/// panel past them never edits them.
#include <QObject>

class QWidget;

namespace yee::ui {

/// Event filter that passes wheel events of an unfocused input widget on to its parent (the scroll area).
class WheelGuard : public QObject {
    Q_OBJECT
public:
    explicit WheelGuard(QObject* parent = nullptr) : QObject(parent) {}

    /// Guard every QComboBox and QAbstractSpinBox below `root`, those there now and those added later,
    /// giving each strong focus (click or tab, not the wheel). The guard is owned by `root` and filters
    /// the application's events (a pointer test per event).
    static void install(QWidget* root);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* root_ = nullptr; ///< the guarded panel, the guard's parent (so it outlives no pointer here)
};

} // namespace yee::ui
