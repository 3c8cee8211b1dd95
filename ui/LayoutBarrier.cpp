#include "ui/LayoutBarrier.hpp"

#include <QEvent>

namespace yee::ui {

LayoutBarrier::LayoutBarrier(QWidget* child, QWidget* parent) : QWidget(parent), child_(child) {
    child_->setParent(this);
    known_ = hints();
    setSizePolicy(known_.policy);
    setMaximumSize(known_.maxSize);
}

LayoutBarrier::Hints LayoutBarrier::hints() const {
    return {child_->minimumSizeHint(), child_->maximumSize(), child_->sizePolicy()};
}

QSize LayoutBarrier::sizeHint() const {
    return child_->sizeHint();
}

QSize LayoutBarrier::minimumSizeHint() const {
    return child_->minimumSizeHint();
}

bool LayoutBarrier::hasHeightForWidth() const {
    return child_->hasHeightForWidth();
}

int LayoutBarrier::heightForWidth(int w) const {
    return child_->heightForWidth(w);
}

bool LayoutBarrier::event(QEvent* e) {
    if (e->type() == QEvent::LayoutRequest) {
        const Hints now = hints();
        if (now == known_) {
            ++stopped_;
        } else {
            ++passed_;
            known_ = now;
            setSizePolicy(now.policy);
            setMaximumSize(now.maxSize);
            updateGeometry();
        }
        if (child_->geometry() != rect())
            child_->setGeometry(rect());
        return true;
    }
    return QWidget::event(e);
}

void LayoutBarrier::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    child_->setGeometry(rect());
}

} // namespace yee::ui
