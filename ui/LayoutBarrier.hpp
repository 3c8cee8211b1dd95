#pragma once
/// \file LayoutBarrier.hpp
/// A container that passes its child's size-hint changes on only when the hints do change.
#include <QSize>
#include <QSizePolicy>
#include <QWidget>

namespace yee::ui {

/// Holds one widget, filling it. Every size-hint change inside a widget climbs the widget tree one
/// layout request per level: a label of a dock given new text lays out the dock, then the main window,
/// which sets every dock's geometry again (with a geometry animation each, Fusion animating) and
/// repaints the separators, for a text that needed none of it. Here the climb stops unless what
/// constrains the holder changes: the child's minimum size hint, maximum size or size policy. Its size
/// hint (a preference: a dock keeps the size the window and the user gave it) is always answered live
/// but not announced.
class LayoutBarrier : public QWidget {
public:
    explicit LayoutBarrier(QWidget* child, QWidget* parent = nullptr);

    QWidget* child() const { return child_; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int w) const override;
    /// Layout requests of the child stopped here, and passed on (for tests).
    int stopped() const { return stopped_; }
    int passedOn() const { return passed_; }

protected:
    bool event(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    struct Hints {
        QSize minHint, maxSize;
        QSizePolicy policy;
        bool operator==(const Hints&) const = default;
    };
    Hints hints() const;

    QWidget* child_;
    Hints known_;
    int stopped_ = 0;
    int passed_ = 0;
};

} // namespace yee::ui
