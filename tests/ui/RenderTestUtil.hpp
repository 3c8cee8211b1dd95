#pragma once
/// \file RenderTestUtil.hpp
/// Pixel helpers for the studio's rendering tests, and where they leave their images.
#include <QColor>
#include <QDir>
#include <QImage>
#include <QPointF>
#include <QString>

#include <cmath>
#include <utility>

namespace yee::ui::test {

/// Directory for images the rendering tests write (inspect them when a test fails).
inline QString artifactDir() {
    const QString dir = QStringLiteral(YEE_BINARY_DIR) + QStringLiteral("/ui-artifacts");
    QDir().mkpath(dir);
    return dir;
}

/// The mean position (pixels) of the pixels whose hue is within `hueTol` degrees of `target`'s and that
/// are clearly coloured (countHue()), and their number (0: no such pixel).
inline std::pair<QPointF, int> hueCentroid(const QImage& img, const QColor& target, int hueTol = 10,
                                           double minSat = 0.30) {
    const int h0 = target.hsvHue();
    double sx = 0, sy = 0;
    int n = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor c = img.pixelColor(x, y);
            if (c.hsvSaturationF() < minSat || c.valueF() < 0.2)
                continue;
            int d = std::abs(c.hsvHue() - h0);
            d = std::min(d, 360 - d);
            if (d <= hueTol) {
                sx += x;
                sy += y;
                ++n;
            }
        }
    return {n > 0 ? QPointF(sx / n, sy / n) : QPointF(), n};
}

/// Pixels whose hue is within `hueTol` degrees of `target`'s and that are clearly coloured.
inline int countHue(const QImage& img, const QColor& target, int hueTol = 10, double minSat = 0.30) {
    return hueCentroid(img, target, hueTol, minSat).second;
}

/// Number of distinct colours in `img` inside `rect` (quantised to 4 bits per channel).
inline int distinctColours(const QImage& img, const QRect& rect) {
    QSet<int> seen;
    for (int y = rect.top(); y <= rect.bottom(); ++y)
        for (int x = rect.left(); x <= rect.right(); ++x) {
            const QRgb p = img.pixel(x, y);
            seen.insert(((qRed(p) >> 4) << 8) | ((qGreen(p) >> 4) << 4) | (qBlue(p) >> 4));
        }
    return int(seen.size());
}

} // namespace yee::ui::test
