#pragma once
/// \file TabWidget.hpp
/// A QTabWidget that repaints only what changed inside its pages.
#include <QSize>
#include <QTabWidget>

namespace yee::ui {

/// QTabWidget lays itself out again and repaints its whole area (every widget of the current page) on
/// each layout request, and every size-hint change inside a page sends one up: a label given new text
/// repaints the whole Results view, and the requests climbing the widget tree one level per event-loop
/// pass make that two or three repaints per change. The tab widget's own layout depends only on its
/// size (handled on resize) and on its tab bar's size: a request that leaves the tab bar as it was only
/// passes the page's new size hints on to the parent (when they changed: else the request stops here,
/// and the window around is not laid out again either), and the page's own widgets repaint what they
/// change themselves.
class TabWidget : public QTabWidget {
    Q_OBJECT
public:
    using QTabWidget::QTabWidget;

    /// Layout requests that were passed on without relaying the tabs out and repainting (for tests).
    int quietLayoutRequests() const { return quiet_; }

protected:
    bool event(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void tabInserted(int index) override;
    void tabRemoved(int index) override;

private:
    /// What the tab widget's own layout was last made for: the tab bar's size hint and visibility.
    struct Key {
        QSize bar;
        bool barVisible = false;
        bool operator==(const Key&) const = default;
    };
    Key key() const;
    bool laidOut_ = false; ///< key_ holds the last full layout's key
    Key key_;
    /// The size hints the parent's layout was last told of.
    QSize hint_, minHint_;
    int quiet_ = 0;
};

} // namespace yee::ui
