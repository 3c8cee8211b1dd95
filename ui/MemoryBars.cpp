#include "ui/MemoryBars.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QToolTip>

#include <algorithm>
#include <climits>

#include "ui/Format.hpp"
#include "ui/Palette.hpp"

namespace yee::ui {

namespace {
constexpr int kMargin = 6;
constexpr int kBarLabel = 36; ///< "now" / "peak" before the bars
constexpr int kBarHeight = 12;
constexpr int kGap = 8; ///< between devices

int textFlags(const QFontMetrics& fm, const QString& text, int width) {
    // Word wrap first; a single word wider than the space (a tile box) wraps anywhere instead.
    const QRect r = fm.boundingRect(QRect(0, 0, width, INT_MAX), Qt::TextWordWrap, text);
    return r.width() <= width ? Qt::TextWordWrap : Qt::TextWrapAnywhere;
}

QString percent(double f) {
    return QStringLiteral("%1 %").arg(100.0 * f, 0, 'f', f < 0.1 ? 2 : 1);
}
} // namespace

MemoryBars::MemoryBars(Mode mode, QWidget* parent) : QWidget(parent), mode_(mode) {
    QSizePolicy sp(QSizePolicy::Expanding, QSizePolicy::Minimum);
    sp.setHeightForWidth(true);
    setSizePolicy(sp);
}

std::array<int, 3> MemoryBars::layoutHeights() const {
    return {sizeHint().height(), minimumSizeHint().height(), heightForWidth(width())};
}

void MemoryBars::setDevices(const QVector<DeviceMemory>& devices) {
    const std::array<int, 3> before = layoutHeights();
    devices_ = devices;
    heights_.clear();
    // Relayout (of the panel, its dock and the window around it) only when the height changes: a
    // report's new numbers take the same lines.
    if (layoutHeights() != before)
        updateGeometry();
    update();
}

QStringList MemoryBars::lines(int i) const {
    const DeviceMemory& d = devices_[i];
    QStringList out;
    if (d.idle) {
        out << tr("%1: idle (no tile: more devices than tiles)").arg(d.name);
        return out;
    }
    if (d.waiting) {
        out << (d.capacity > 0 ? tr("%1: \u2014 of %2").arg(d.name, bytesText(d.capacity)) : d.name);
        if (!d.detail.isEmpty())
            out << tr("tile %1").arg(d.detail);
        out << tr("now \u2014 \u2022 peak \u2014 (no report yet)");
        return out;
    }
    out << (d.capacity > 0 ? tr("%1: %2 of %3").arg(d.name, percent(fillFraction(i)), bytesText(d.capacity))
                           : d.name);
    if (!d.detail.isEmpty())
        out << tr("tile %1").arg(d.detail);
    out << (mode_ == Mode::CurrentAndPeak
                ? tr("now %1 \u2022 peak %2")
                      .arg(bytesText(d.memory.currentTotal), bytesText(d.memory.peakTotal))
                : tr("peak %1").arg(bytesText(d.memory.peakTotal)));
    if (d.capacity > 0 && d.memory.peakTotal > d.capacity)
        out << tr("does not fit: %1 over capacity").arg(bytesText(d.memory.peakTotal - d.capacity));
    if (d.hostBytes > 0)
        out << tr("host (pinned) %1, recorder staged off the device").arg(bytesText(d.hostBytes));
    return out;
}

double MemoryBars::fillFraction(int i) const {
    const DeviceMemory& d = devices_[i];
    return d.capacity > 0 && !d.waiting ? double(d.memory.peakTotal) / double(d.capacity) : 0.0;
}

QPair<int, int> MemoryBars::barSpan(int w) const {
    const int x = kMargin + kBarLabel;
    return {x, std::max(40, w - x - kMargin)};
}

namespace {
/// The categories the legend names: those with bytes at the peak of some device.
std::array<bool, device::kCategoryCount> usedCategories(const QVector<DeviceMemory>& devices) {
    std::array<bool, device::kCategoryCount> used{};
    for (const auto& d : devices)
        for (std::size_t c = 0; c < used.size(); ++c)
            used[c] = used[c] || d.memory.peak[c] > 0;
    return used;
}
} // namespace

int MemoryBars::textHeight(const QString& text, int width, bool bold) const {
    QFont f = font();
    f.setBold(bold);
    const QFontMetrics fm(f);
    return fm.boundingRect(QRect(0, 0, width, INT_MAX), textFlags(fm, text, width), text).height();
}

int MemoryBars::blockHeight(int i, int w) const {
    const int tw = std::max(40, w - 2 * kMargin);
    int h = 0;
    const QStringList ls = lines(i);
    for (int k = 0; k < ls.size(); ++k)
        h += textHeight(ls[k], tw, k == 0) + 1;
    if (!devices_[i].idle)
        h += (mode_ == Mode::CurrentAndPeak ? 2 : 1) * (kBarHeight + 2);
    return h + kGap;
}

int MemoryBars::peakBarTop(int i, int w) const {
    int y = kMargin;
    for (int k = 0; k < i; ++k)
        y += blockHeight(k, w);
    const int tw = std::max(40, w - 2 * kMargin);
    const QStringList ls = lines(i);
    for (int k = 0; k < ls.size(); ++k)
        y += textHeight(ls[k], tw, k == 0) + 1;
    return mode_ == Mode::CurrentAndPeak ? y + kBarHeight + 2 : y;
}

int MemoryBars::legendHeight(int w) const {
    // As many rows as paintEvent draws: the categories in use only.
    const auto used = usedCategories(devices_);
    const QFontMetrics fm = fontMetrics();
    int x = kMargin, rows = 1;
    for (int c = 0; c < device::kCategoryCount; ++c) {
        if (!used[std::size_t(c)])
            continue;
        const int cw =
            14 + fm.horizontalAdvance(QString::fromLatin1(device::categoryName(device::Category(c)))) + 10;
        if (x + cw > w - kMargin && x > kMargin) {
            x = kMargin;
            ++rows;
        }
        x += cw;
    }
    return rows * (fm.height() + 2) + 4;
}

int MemoryBars::heightForWidth(int w) const {
    // Layouts ask for the same widths many times per pass; measuring wrapped text is what costs.
    const auto it = heights_.constFind(w);
    if (it != heights_.constEnd())
        return *it;
    const int h = computeHeight(w);
    heights_.insert(w, h);
    return h;
}

int MemoryBars::computeHeight(int w) const {
    if (devices_.isEmpty())
        return 2 * kMargin + 2 * fontMetrics().height();
    int h = kMargin;
    for (int i = 0; i < devices_.size(); ++i)
        h += blockHeight(i, w);
    return h + legendHeight(w) + kMargin;
}

QSize MemoryBars::sizeHint() const {
    const int w = std::max(360, width());
    return {360, heightForWidth(w)};
}

QSize MemoryBars::minimumSizeHint() const {
    return {200, heightForWidth(std::max(200, width()))};
}

void MemoryBars::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    // The height follows the width (lines wrap): the layout hears of it when it changes.
    if (heightForWidth(e->size().width()) != heightForWidth(e->oldSize().width()))
        updateGeometry();
}

void MemoryBars::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    if (e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange) {
        heights_.clear();
        updateGeometry();
    }
}

void MemoryBars::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    const QFontMetrics fm = fontMetrics();
    if (devices_.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(kMargin, kMargin, -kMargin, -kMargin),
                   Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                   mode_ == Mode::PeakOnly ? tr("No estimate yet.") : tr("No run yet."));
        return;
    }
    const int tw = std::max(40, width() - 2 * kMargin);
    const auto [barX, barW] = barSpan(width());
    int y = kMargin;
    for (int i = 0; i < devices_.size(); ++i) {
        const DeviceMemory& d = devices_[i];
        const QStringList ls = lines(i);
        for (int k = 0; k < ls.size(); ++k) {
            QFont f = font();
            f.setBold(k == 0);
            p.setFont(f);
            const QFontMetrics lfm(f);
            const int flags = textFlags(lfm, ls[k], tw);
            const int h = lfm.boundingRect(QRect(0, 0, tw, INT_MAX), flags, ls[k]).height();
            const bool over = ls[k].startsWith(tr("does not fit"));
            p.setPen(over ? QColor(200, 30, 30)
                          : (k == 0 || !d.idle ? palette().color(QPalette::WindowText)
                                               : palette().color(QPalette::PlaceholderText)));
            p.drawText(QRect(kMargin, y, tw, h), Qt::AlignLeft | Qt::AlignTop | flags, ls[k]);
            y += h + 1;
        }
        p.setFont(font());
        if (d.idle) {
            y += kGap;
            continue;
        }
        // The bar's full width is the device's capacity (or the largest total without one).
        std::int64_t scale = d.capacity;
        if (scale <= 0)
            for (const auto& o : devices_)
                scale = std::max({scale, o.memory.peakTotal, o.memory.currentTotal, std::int64_t(1)});
        const bool over = !d.waiting && d.memory.peakTotal > scale;
        auto stacked = [&](const std::array<std::int64_t, device::kCategoryCount>& values,
                           const QString& label, bool light) {
            p.setPen(palette().color(QPalette::WindowText));
            p.drawText(QRect(kMargin, y, kBarLabel - 4, kBarHeight), Qt::AlignRight | Qt::AlignVCenter,
                       label);
            p.setPen(Qt::NoPen);
            p.setBrush(palette().color(QPalette::AlternateBase));
            p.drawRect(barX, y, barW, kBarHeight);
            std::int64_t total = 0;
            for (std::int64_t v : values)
                total += std::max<std::int64_t>(0, v);
            // Over capacity the categories share the whole bar in proportion.
            const double denom = double(std::max(total, scale));
            double x = barX;
            for (int c = 0; c < device::kCategoryCount; ++c) {
                if (values[c] <= 0)
                    continue;
                const double w = double(values[c]) / denom * barW;
                QColor col = categoryColor(device::Category(c));
                if (light)
                    col = col.lighter(135);
                p.setBrush(col);
                p.drawRect(QRectF(x, y, std::max(1.0, w), kBarHeight));
                x += w;
            }
            p.setPen(over ? QPen(QColor(200, 30, 30), 2) : QPen(palette().color(QPalette::Mid)));
            p.setBrush(Qt::NoBrush);
            p.drawRect(barX, y, barW, kBarHeight);
            y += kBarHeight + 2;
        };
        // A device that has not reported has nothing to show yet (its `memory` is the estimate).
        const std::array<std::int64_t, device::kCategoryCount> none{};
        if (mode_ == Mode::CurrentAndPeak)
            stacked(d.waiting ? none : d.memory.current, tr("now"), false);
        stacked(d.waiting ? none : d.memory.peak, tr("peak"), mode_ == Mode::CurrentAndPeak);
        y += kGap;
    }
    // Legend of the categories in use.
    const auto used = usedCategories(devices_);
    int x = kMargin;
    for (int c = 0; c < device::kCategoryCount; ++c) {
        if (!used[c])
            continue;
        const QString name = QString::fromLatin1(device::categoryName(device::Category(c)));
        const int w = 14 + fm.horizontalAdvance(name) + 10;
        if (x + w > width() - kMargin && x > kMargin) {
            x = kMargin;
            y += fm.height() + 2;
        }
        p.setPen(Qt::NoPen);
        p.setBrush(categoryColor(device::Category(c)));
        p.drawRect(x, y + (fm.height() - 10) / 2, 10, 10);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(x + 14, y, w, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, name);
        x += w;
    }
}

QString MemoryBars::toolTipAt(const QPoint& pt) const {
    int y = kMargin, row = -1;
    for (int i = 0; i < devices_.size(); ++i) {
        const int h = blockHeight(i, width());
        if (pt.y() >= y && pt.y() < y + h)
            row = i;
        y += h;
    }
    if (row < 0)
        return {};
    const auto& d = devices_[row];
    if (d.waiting)
        return tr("<b>%1</b>: no report from the run yet").arg(d.name.toHtmlEscaped());
    QStringList lines{QStringLiteral("<b>%1</b> %2").arg(d.name.toHtmlEscaped(), d.detail.toHtmlEscaped())};
    lines << QStringLiteral("<table>");
    lines << tr("<tr><th align=left>category</th><th align=right>now</th><th align=right>peak</th></tr>");
    for (int c = 0; c < device::kCategoryCount; ++c) {
        if (d.memory.peak[c] <= 0)
            continue;
        lines << QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td></tr>")
                     .arg(QString::fromLatin1(device::categoryName(device::Category(c))),
                          bytesText(d.memory.current[c]), bytesText(d.memory.peak[c]));
    }
    lines << QStringLiteral("<tr><td><b>%1</b></td><td align=right>%2</td><td align=right>%3</td></tr>")
                 .arg(tr("total"), bytesText(d.memory.currentTotal), bytesText(d.memory.peakTotal));
    lines << QStringLiteral("</table>") << tr("capacity %1").arg(bytesText(d.capacity));
    if (d.hostBytes > 0)
        lines << tr("host (pinned) %1").arg(bytesText(d.hostBytes));
    return lines.join(QString());
}

bool MemoryBars::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const QString t = toolTipAt(he->pos());
        if (t.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(he->globalPos(), t, this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace yee::ui
