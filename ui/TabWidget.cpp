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
        updateGeometry(); // the page's new minimum size still reaches the parent's layout
        return true;
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
