#include "ui/WheelGuard.hpp"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QWidget>

namespace yee::ui {

void WheelGuard::install(QWidget* root) {
    auto* guard = new WheelGuard(root);
    auto watch = [guard](QWidget* w) {
        w->setFocusPolicy(Qt::StrongFocus);
        w->installEventFilter(guard);
    };
    for (auto* w : root->findChildren<QComboBox*>())
        watch(w);
    for (auto* w : root->findChildren<QAbstractSpinBox*>())
        watch(w);
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Wheel) {
        auto* w = qobject_cast<QWidget*>(watched);
        if (w && !w->hasFocus()) {
            event->ignore(); // not consumed: the scroll area above scrolls
            return true;
        }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace yee::ui
