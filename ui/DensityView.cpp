#include "ui/DensityView.hpp"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace yee::ui {

DensityView::DensityView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("densityView"));
    setMinimumSize(80, 60);
}

void DensityView::setDensity(const std::vector<double>& density, std::array<int, 3> n, const QString& title) {
    title_ = title;
    const std::size_t count =
        std::size_t(std::max(n[0], 0)) * std::size_t(std::max(n[1], 0)) * std::size_t(std::max(n[2], 0));
    if (count == 0 || density.size() != count) {
        image_ = QImage();
        sliceAxis_ = -1;
        update();
        return;
    }
    // Across the thinnest axis (the first of equals): a planar design shows its plane.
    int across = 0;
    for (int a = 1; a < 3; ++a)
        if (n[std::size_t(a)] < n[std::size_t(across)])
            across = a;
    const int u = across == 0 ? 1 : 0;
    const int v = across == 2 ? 1 : 2;
    sliceAxis_ = across;
    const int w = n[std::size_t(u)], h = n[std::size_t(v)];
    image_ = QImage(w, h, QImage::Format_RGB32);
    std::array<int, 3> idx{};
    idx[std::size_t(across)] = n[std::size_t(across)] / 2;
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i) {
            idx[std::size_t(u)] = i;
            idx[std::size_t(v)] = j;
            const std::size_t at =
                std::size_t(idx[0]) +
                std::size_t(n[0]) * (std::size_t(idx[1]) + std::size_t(n[1]) * std::size_t(idx[2]));
            const int g = int(std::lround(255.0 * (1.0 - std::clamp(density[at], 0.0, 1.0))));
            // Row 0 of the image is the top: the v axis points up.
            image_.setPixel(i, h - 1 - j, qRgb(g, g, g));
        }
    update();
}

void DensityView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    const int textH = fontMetrics().height() + 4;
    p.drawText(QRect(0, 0, width(), textH), Qt::AlignCenter,
               image_.isNull() ? tr("no design density yet") : title_);
    if (image_.isNull())
        return;
    const QRect area(2, textH, width() - 4, height() - textH - 2);
    QSize s = image_.size().scaled(area.size(), Qt::KeepAspectRatio);
    // A one-voxel-thick design would be a hairline: give it a visible height.
    s.setHeight(std::max(s.height(), std::min(area.height(), 12)));
    s.setWidth(std::max(s.width(), std::min(area.width(), 12)));
    const QRect target(area.x() + (area.width() - s.width()) / 2, area.y() + (area.height() - s.height()) / 2,
                       s.width(), s.height());
    p.drawImage(target, image_);
    p.setPen(palette().windowText().color());
    p.drawRect(target.adjusted(0, 0, -1, -1));
}

} // namespace yee::ui
