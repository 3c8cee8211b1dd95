#include "ui/WheelGuard.hpp"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QWheelEvent>
#include <QWidget>

namespace yee::ui {

namespace {
/// The input widgets the guard keeps the wheel from.
bool guarded(QObject* o) {
    return qobject_cast<QComboBox*>(o) != nullptr || qobject_cast<QAbstractSpinBox*>(o) != nullptr;
}
} // namespace

void WheelGuard::install(QWidget* root) {
    auto* guard = new WheelGuard(root);
    guard->root_ = root;
    for (auto* w : root->findChildren<QComboBox*>())
        w->setFocusPolicy(Qt::StrongFocus);
    for (auto* w : root->findChildren<QAbstractSpinBox*>())
        w->setFocusPolicy(Qt::StrongFocus);
    // On the application, so that widgets created later (an objective's term rows, a material's pole
    // rows) are guarded too; the guard leaves with `root`, and its filter with it.
    QCoreApplication::instance()->installEventFilter(guard);
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    const QEvent::Type t = event->type();
    if ((t != QEvent::Wheel && t != QEvent::Polish) || !guarded(watched))
        return QObject::eventFilter(watched, event);
    auto* w = static_cast<QWidget*>(watched);
    if (!root_ || !root_->isAncestorOf(w))
        return QObject::eventFilter(watched, event);
    if (t == QEvent::Polish) {
        // Before it is first shown: focus by click or tab, not by the wheel (which would hand it the
        // focus, and so the wheel, before this filter sees the event).
        w->setFocusPolicy(Qt::StrongFocus);
        return QObject::eventFilter(watched, event);
    }
    if (w->hasFocus())
        return QObject::eventFilter(watched, event);
    // The widget does not get it: the nearest scroll area above scrolls instead.
    for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
        if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
            const auto* we = static_cast<QWheelEvent*>(event);
            QWheelEvent fwd(area->viewport()->mapFromGlobal(we->globalPosition()), we->globalPosition(),
                            we->pixelDelta(), we->angleDelta(), we->buttons(), we->modifiers(), we->phase(),
                            we->inverted());
            QCoreApplication::sendEvent(area->viewport(), &fwd);
            return true;
        }
    event->ignore(); // no scroll area: passed on to the parents
    return true;
}

} // namespace yee::ui
