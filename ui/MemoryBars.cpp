#include "ui/MemoryBars.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

#include "ui/Format.hpp"
#include "ui/Palette.hpp"

namespace yee::ui {

namespace {
constexpr int kMargin = 6;
constexpr int kLabelWidth = 70;
} // namespace

MemoryBars::MemoryBars(Mode mode, QWidget* parent) : QWidget(parent), mode_(mode) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Minimum);
}

void MemoryBars::setDevices(const QVector<DeviceMemory>& devices) {
    devices_ = devices;
    updateGeometry();
    update();
}

int MemoryBars::rowHeight() const {
    const int fh = fontMetrics().height();
    return fh + (mode_ == Mode::CurrentAndPeak ? 2 * 12 + 2 : 14) + 6 + 8;
}

int MemoryBars::legendHeight() const {
    return 2 * (fontMetrics().height() + 2) + 4;
}

QSize MemoryBars::sizeHint() const {
    return {360, kMargin * 2 + std::max<int>(1, int(devices_.size())) * rowHeight() + legendHeight()};
}
QSize MemoryBars::minimumSizeHint() const {
    return {220, sizeHint().height()};
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
    std::int64_t scale = 1;
    for (const auto& d : devices_)
        scale = std::max({scale, d.memory.peakTotal, d.memory.currentTotal});
    const int barX = kMargin + kLabelWidth;
    const int barW = std::max(40, width() - barX - kMargin);
    int y = kMargin;
    for (const auto& d : devices_) {
        // Header: name, detail, numbers.
        p.setPen(palette().color(QPalette::WindowText));
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.drawText(QRect(kMargin, y, kLabelWidth, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, d.name);
        p.setFont(font());
        QString numbers = mode_ == Mode::CurrentAndPeak
                              ? tr("now %1 \u2022 peak %2 of %3")
                                    .arg(bytesText(d.memory.currentTotal), bytesText(d.memory.peakTotal),
                                         bytesText(d.capacity))
                              : tr("peak %1 of %2").arg(bytesText(d.memory.peakTotal), bytesText(d.capacity));
        if (!d.detail.isEmpty())
            numbers = d.detail + QStringLiteral("   ") + numbers;
        p.drawText(QRect(barX, y, barW, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(numbers, Qt::ElideMiddle, barW));
        y += fm.height() + 2;

        auto stacked = [&](const std::array<std::int64_t, device::kCategoryCount>& values, int h,
                           bool light) {
            p.setPen(Qt::NoPen);
            p.setBrush(palette().color(QPalette::AlternateBase));
            p.drawRect(barX, y, barW, h);
            double x = barX;
            for (int c = 0; c < device::kCategoryCount; ++c) {
                if (values[c] <= 0)
                    continue;
                const double w = double(values[c]) / double(scale) * barW;
                QColor col = categoryColor(device::Category(c));
                if (light)
                    col = col.lighter(135);
                p.setBrush(col);
                p.drawRect(QRectF(x, y, std::max(1.0, w), h));
                x += w;
            }
            p.setPen(palette().color(QPalette::Mid));
            p.setBrush(Qt::NoBrush);
            p.drawRect(barX, y, barW, h);
        };
        if (mode_ == Mode::CurrentAndPeak) {
            p.setPen(palette().color(QPalette::WindowText));
            p.drawText(QRect(kMargin, y, kLabelWidth - 4, 12), Qt::AlignRight | Qt::AlignVCenter, tr("now"));
            stacked(d.memory.current, 11, false);
            y += 13;
            p.setPen(palette().color(QPalette::WindowText));
            p.drawText(QRect(kMargin, y, kLabelWidth - 4, 12), Qt::AlignRight | Qt::AlignVCenter, tr("peak"));
            stacked(d.memory.peak, 11, true);
            y += 13;
        } else {
            stacked(d.memory.peak, 13, false);
            y += 14;
        }
        // Capacity gauge: peak / capacity, green below 70 %, orange below 100 %, red above.
        const double frac = d.capacity > 0 ? double(d.memory.peakTotal) / double(d.capacity) : 0.0;
        const QColor gauge = frac > 1.0   ? QColor(200, 30, 30)
                             : frac > 0.7 ? QColor(230, 140, 0)
                                          : QColor(60, 160, 80);
        p.setPen(Qt::NoPen);
        p.setBrush(palette().color(QPalette::Midlight));
        p.drawRect(barX, y + 1, barW, 4);
        p.setBrush(gauge);
        p.drawRect(QRectF(barX, y + 1, std::max(1.0, std::min(1.0, frac) * barW), 4));
        y += 6 + 8;
    }
    // Legend of the categories in use.
    std::array<bool, device::kCategoryCount> used{};
    for (const auto& d : devices_)
        for (int c = 0; c < device::kCategoryCount; ++c)
            used[c] = used[c] || d.memory.peak[c] > 0;
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
    const int row = (pt.y() - kMargin) / rowHeight();
    if (row < 0 || row >= devices_.size())
        return {};
    const auto& d = devices_[row];
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
