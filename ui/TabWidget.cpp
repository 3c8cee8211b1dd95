#include "ui/TabWidget.hpp"

#include <QEvent>
#include <QTabBar>

namespace yee::ui {

TabWidget::Key TabWidget::key() const {
    return {tabBar()->sizeHint(), tabBar()->isVisibleTo(this)};
}

bool TabWidget::event(QEvent* e) {
    if (e->type() == QEvent::LayoutRequest && isVisible() && laidOut_ && key() == key_) {
        ++quiet_;
        // The page's new size hints still reach the parent's layout, when they are new.
        const QSize hint = sizeHint(), minHint = minimumSizeHint();
        if (hint != hint_ || minHint != minHint_) {
            hint_ = hint;
            minHint_ = minHint;
            updateGeometry();
        }
        return true;
    }
    if (e->type() == QEvent::LayoutRequest) {
        hint_ = sizeHint();
        minHint_ = minimumSizeHint();
    }
    if (e->type() == QEvent::LayoutRequest && isVisible()) {
        key_ = key();
        laidOut_ = true;
    }
    return QTabWidget::event(e);
}

void TabWidget::resizeEvent(QResizeEvent* e) {
    QTabWidget::resizeEvent(e);
    key_ = key();
    laidOut_ = isVisible();
}

void TabWidget::showEvent(QShowEvent* e) {
    QTabWidget::showEvent(e);
    key_ = key();
    laidOut_ = true;
}

void TabWidget::tabInserted(int index) {
    QTabWidget::tabInserted(index);
    laidOut_ = false; // the next request lays the new tab bar out
}

void TabWidget::tabRemoved(int index) {
    QTabWidget::tabRemoved(index);
    laidOut_ = false;
}

} // namespace yee::ui
