#include "ui/WheelGuard.hpp"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QWheelEvent>
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
            // The widget does not get it: the nearest scroll area above scrolls instead.
            for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
                if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
                    const auto* we = static_cast<QWheelEvent*>(event);
                    QWheelEvent fwd(area->viewport()->mapFromGlobal(we->globalPosition()),
                                    we->globalPosition(), we->pixelDelta(), we->angleDelta(), we->buttons(),
                                    we->modifiers(), we->phase(), we->inverted());
                    QCoreApplication::sendEvent(area->viewport(), &fwd);
                    return true;
                }
            event->ignore(); // no scroll area: passed on to the parents
            return true;
        }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace yee::ui
