#include "ui/FieldView.hpp"

#include <QBuffer>
#include <QFontMetricsF>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QTextStream>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "ui/PlotExport.hpp"

namespace yee::ui {

namespace {

// ---- colour maps: Moreland's diverging interpolation in Msh space ("Diverging Color Maps for Scientific
// Visualization", 2009), what vtkColorTransferFunction::SetColorSpaceToDiverging() does ----

struct Msh {
    double m, s, h;
};

double toLinear(double c) {
    return c > 0.04045 ? std::pow((c + 0.055) / 1.055, 2.4) : c / 12.92;
}
double toGamma(double c) {
    return c > 0.0031308 ? 1.055 * std::pow(c, 1 / 2.4) - 0.055 : 12.92 * c;
}

// D65 reference white.
constexpr double kXn = 0.95047, kYn = 1.0, kZn = 1.08883;

double labF(double t) {
    return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0;
}
double labFInv(double t) {
    return t > 0.206893 ? t * t * t : (t - 16.0 / 116.0) / 7.787;
}

Msh toMsh(double r, double g, double b) {
    r = toLinear(r);
    g = toLinear(g);
    b = toLinear(b);
    const double x = 0.4124 * r + 0.3576 * g + 0.1805 * b;
    const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const double z = 0.0193 * r + 0.1192 * g + 0.9505 * b;
    const double fx = labF(x / kXn), fy = labF(y / kYn), fz = labF(z / kZn);
    const double L = 116 * fy - 16, A = 500 * (fx - fy), B = 200 * (fy - fz);
    const double m = std::sqrt(L * L + A * A + B * B);
    return {m, m > 0 ? std::acos(std::clamp(L / m, -1.0, 1.0)) : 0.0, std::atan2(B, A)};
}

std::array<double, 3> fromMsh(const Msh& c) {
    const double L = c.m * std::cos(c.s), A = c.m * std::sin(c.s) * std::cos(c.h),
                 B = c.m * std::sin(c.s) * std::sin(c.h);
    const double fy = (L + 16) / 116, fx = fy + A / 500, fz = fy - B / 200;
    const double x = kXn * labFInv(fx), y = kYn * labFInv(fy), z = kZn * labFInv(fz);
    const double r = 3.2406 * x - 1.5372 * y - 0.4986 * z;
    const double g = -0.9689 * x + 1.8758 * y + 0.0415 * z;
    const double b = 0.0557 * x - 0.2040 * y + 1.0570 * z;
    return {std::clamp(toGamma(r), 0.0, 1.0), std::clamp(toGamma(g), 0.0, 1.0),
            std::clamp(toGamma(b), 0.0, 1.0)};
}

/// The hue an unsaturated colour of magnitude `munsat` takes next to saturated `c`.
double adjustHue(const Msh& c, double munsat) {
    if (c.m >= munsat)
        return c.h;
    const double spin = c.s * std::sqrt(munsat * munsat - c.m * c.m) / (c.m * std::sin(c.s));
    return c.h > -0.3 * M_PI ? c.h + spin : c.h - spin;
}

/// Moreland's interpolation between two RGB colours at t in [0, 1].
std::array<double, 3> diverging(const std::array<double, 3>& a, const std::array<double, 3>& b, double t) {
    Msh c1 = toMsh(a[0], a[1], a[2]), c2 = toMsh(b[0], b[1], b[2]);
    if (c1.s > 0.05 && c2.s > 0.05 && std::abs(c1.h - c2.h) > M_PI / 3) {
        // Two distinct saturated hues: through an unsaturated middle.
        const double mid = std::max({c1.m, c2.m, 88.0});
        if (t < 0.5) {
            c2 = {mid, 0, 0};
            t *= 2;
        } else {
            c1 = {mid, 0, 0};
            t = 2 * t - 1;
        }
    }
    if (c1.s < 0.05 && c2.s > 0.05)
        c1.h = adjustHue(c2, c1.m);
    else if (c2.s < 0.05 && c1.s > 0.05)
        c2.h = adjustHue(c1, c2.m);
    return fromMsh({(1 - t) * c1.m + t * c2.m, (1 - t) * c1.s + t * c2.s, (1 - t) * c1.h + t * c2.h});
}

/// Entries of a colour table: odd, so that the middle of the range (zero of a diverging map) has its own.
constexpr int kLutSize = 511;

/// A colour map through `stops` (equally spaced), interpolated pairwise in Msh space, as kLutSize colours.
std::vector<QRgb> colourTable(const std::vector<std::array<double, 3>>& stops) {
    std::vector<QRgb> lut(kLutSize);
    const int segments = int(stops.size()) - 1;
    for (int i = 0; i < kLutSize; ++i) {
        const double x = double(i) / (kLutSize - 1) * segments;
        const int k = std::min(segments - 1, int(x));
        const auto c = diverging(stops[std::size_t(k)], stops[std::size_t(k + 1)], x - k);
        lut[std::size_t(i)] =
            qRgb(int(std::lround(255 * c[0])), int(std::lround(255 * c[1])), int(std::lround(255 * c[2])));
    }
    return lut;
}

/// Round ticks inside [lo, hi]: the first and last tick and their count (steps of 1, 2 or 5 times a
/// power of ten, as near six ticks as they come); [lo, hi] itself with two ticks otherwise.
std::tuple<double, double, int> niceTicks(double lo, double hi) {
    const double range = hi - lo;
    if (!(range > 0))
        return {lo, hi, 2};
    const double p = std::pow(10.0, std::floor(std::log10(range / 6)));
    std::tuple<double, double, int> best{lo, hi, 2};
    int bestMiss = 1 << 30;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        const double step = m * p;
        const double first = std::ceil(lo / step - 1e-9) * step, last = std::floor(hi / step + 1e-9) * step;
        const int count = int(std::lround((last - first) / step)) + 1;
        if (count >= 2 && std::abs(count - 6) < bestMiss) {
            bestMiss = std::abs(count - 6);
            best = {first, last, count};
        }
    }
    return best;
}

/// The tick values of [lo, hi] (exact zero where a tick rounds to it).
std::vector<double> tickValues(double lo, double hi) {
    if (!(hi > lo))
        return {};
    const auto [first, last, count] = niceTicks(lo, hi);
    const double step = count > 1 ? (last - first) / (count - 1) : 0.0;
    std::vector<double> out;
    for (int k = 0; k < count; ++k) {
        double value = first + k * step;
        if (std::abs(value) < 1e-9 * std::max(std::abs(step), 1e-30))
            value = 0;
        out.push_back(value);
    }
    return out;
}

// Margins around the plot area (pixels): the title above, the axes' labels and titles left and below, the
// colour bar and its labels on the right.
constexpr double kTop = 26, kLeft = 80, kBottom = 58, kRight = 92;

} // namespace

FieldView::FieldView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("fieldView"));
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(160, 120);
    setToolTip(tr("Wheel or right drag: zoom; middle or shift + left drag: pan; double click: fit"));
    rebuildLut();
    clear();
}

FieldView::~FieldView() = default;

void FieldView::setRangeLocked(bool locked) {
    locked_ = locked;
}

void FieldView::setMagnitude(bool magnitude) {
    magnitude_ = magnitude;
    rebuildLut();
}

void FieldView::rebuildLut() {
    if (magnitude_)
        lut_ = colourTable({{1.0, 1.0, 1.0}, {0.957, 0.647, 0.510}, {0.706, 0.016, 0.150}});
    else
        lut_ = colourTable({{0.230, 0.299, 0.754}, {0.865, 0.865, 0.865}, {0.706, 0.016, 0.150}});
}

double FieldView::colourRange(const std::vector<float>& values) {
    // The 99.5th percentile of |value|: one hot cell (a point source) must not wash out the wave around
    // it. Values beyond the range saturate at the ends of the colour bar.
    std::vector<float> mag(values.size());
    std::transform(values.begin(), values.end(), mag.begin(), [](float v) { return std::abs(v); });
    if (mag.empty())
        return 1.0;
    const std::size_t k = std::min(mag.size() - 1, std::size_t(0.995 * double(mag.size())));
    std::nth_element(mag.begin(), mag.begin() + std::ptrdiff_t(k), mag.end());
    double r = mag[k];
    if (!(r > 0))
        r = *std::max_element(mag.begin(), mag.end());
    return r > 0 ? r : 1.0;
}

QRgb FieldView::colourOf(double value) const {
    const double lo = magnitude_ ? 0.0 : -range_;
    double t = (value - lo) / (range_ - lo);
    if (!(t >= 0))
        t = 0; // NaN too
    const int i = std::min(kLutSize - 1, int(t * (kLutSize - 1) + 0.5));
    return lut_[std::size_t(i)];
}

void FieldView::clear(const QString& message) {
    slice_ = {};
    image_ = {};
    outline_.clear();
    title_.clear();
    message_ = message.isEmpty() ? tr("No field to show.") : message;
    update();
    emit sliceShown(false);
}

void FieldView::setSlice(const FieldSlice& slice, const QString& title, const QString& quantity) {
    if (slice.empty()) {
        clear(tr("The selected data is empty."));
        return;
    }
    const bool sameFrame = !slice_.empty() && slice.normal == slice_.normal && slice.nu == slice_.nu &&
                           slice.nv == slice_.nv && slice.origin == slice_.origin && slice.du == slice_.du &&
                           slice.dv == slice_.dv;
    slice_ = slice;
    if (!sameFrame) {
        zoom_ = 1;
        pan_ = {};
    }
    title_ = title;
    quantity_ = quantity;
    message_.clear();
    // A locked scale keeps the range of the frame it was locked on, so frames can be compared.
    if (!locked_ || !(range_ > 0))
        range_ = colourRange(slice.values);
    outline_.clear();
    rebuildImage();
    update();
    emit sliceShown(true);
}

void FieldView::rebuildImage() {
    const int nu = slice_.nu, nv = slice_.nv;
    image_ = QImage(nu, nv, QImage::Format_RGB32);
    for (int iv = 0; iv < nv; ++iv) {
        auto* row = reinterpret_cast<QRgb*>(image_.scanLine(nv - 1 - iv));
        for (int iu = 0; iu < nu; ++iu)
            row[iu] = colourOf(slice_.values[std::size_t(iu + nu * iv)]);
    }
}

void FieldView::setOutline(const std::vector<float>& eps, const std::vector<double>& levels) {
    outline_.clear();
    if (!slice_.empty() && eps.size() == slice_.values.size())
        for (double level : levels)
            contour(eps, level);
    update();
}

void FieldView::setOutlineFields(const std::vector<std::vector<float>>& fields, double level) {
    outline_.clear();
    for (const auto& f : fields)
        if (!slice_.empty() && f.size() == slice_.values.size())
            contour(f, level);
    // Two materials meeting give one boundary twice (the 0.5 contours of f and 1 - f): keep it once.
    const double q =
        1e-4 * std::max(1e-12, std::min(slice_.du > 0 ? slice_.du : 1.0, slice_.dv > 0 ? slice_.dv : 1.0));
    auto key = [q](const QPointF& p) { return std::pair{std::llround(p.x() / q), std::llround(p.y() / q)}; };
    std::set<std::pair<std::pair<long long, long long>, std::pair<long long, long long>>> seen;
    std::vector<QLineF> unique;
    for (const QLineF& l : outline_) {
        auto a = key(l.p1()), b = key(l.p2());
        if (b < a)
            std::swap(a, b);
        if (seen.insert({a, b}).second)
            unique.push_back(l);
    }
    outline_ = std::move(unique);
    update();
}

void FieldView::contour(const std::vector<float>& values, double level) {
    // Marching squares over the samples (a single row or column is widened to half a sample each side,
    // both sides equal); saddles are split by the cell's mean.
    const int nu = std::max(2, slice_.nu), nv = std::max(2, slice_.nv);
    const auto [u0, u1] = extent(0);
    const auto [v0, v1] = extent(1);
    const double du = (u1 - u0) / (nu - 1), dv = (v1 - v0) / (nv - 1);
    auto at = [&](int iu, int iv) {
        return double(
            values[std::size_t(std::min(iu, slice_.nu - 1) + slice_.nu * std::min(iv, slice_.nv - 1))]);
    };
    for (int iv = 0; iv + 1 < nv; ++iv)
        for (int iu = 0; iu + 1 < nu; ++iu) {
            // Corners counter-clockwise from (iu, iv).
            const double c[4] = {at(iu, iv), at(iu + 1, iv), at(iu + 1, iv + 1), at(iu, iv + 1)};
            if (!std::isfinite(c[0] + c[1] + c[2] + c[3]))
                continue;
            const QPointF p[4] = {{u0 + iu * du, v0 + iv * dv},
                                  {u0 + (iu + 1) * du, v0 + iv * dv},
                                  {u0 + (iu + 1) * du, v0 + (iv + 1) * dv},
                                  {u0 + iu * du, v0 + (iv + 1) * dv}};
            int code = 0;
            for (int k = 0; k < 4; ++k)
                code |= (c[k] > level ? 1 : 0) << k;
            if (code == 0 || code == 15)
                continue;
            // The crossing on edge k (corner k to corner k + 1).
            auto cross = [&](int k) {
                const int j = (k + 1) % 4;
                const double t = (level - c[k]) / (c[j] - c[k]);
                return p[k] + t * (p[j] - p[k]);
            };
            int edges[4], count = 0;
            for (int k = 0; k < 4; ++k)
                if (((code >> k) & 1) != ((code >> ((k + 1) % 4)) & 1))
                    edges[count++] = k;
            if (count == 2) {
                outline_.emplace_back(cross(edges[0]), cross(edges[1]));
            } else if (count == 4) {
                // A saddle: the mean decides which corners connect.
                const bool centreAbove = 0.25 * (c[0] + c[1] + c[2] + c[3]) > level;
                const bool firstAbove = (code & 1) != 0;
                if (centreAbove == firstAbove) {
                    outline_.emplace_back(cross(0), cross(1));
                    outline_.emplace_back(cross(2), cross(3));
                } else {
                    outline_.emplace_back(cross(3), cross(0));
                    outline_.emplace_back(cross(1), cross(2));
                }
            }
        }
}

std::array<double, 6> FieldView::outlineBounds() const {
    std::array<double, 6> b{0, 0, 0, 0, 0, 0};
    if (outline_.empty())
        return b;
    double ulo = 1e300, uhi = -1e300, vlo = 1e300, vhi = -1e300;
    for (const QLineF& l : outline_)
        for (const QPointF& q : {l.p1(), l.p2()}) {
            ulo = std::min(ulo, q.x());
            uhi = std::max(uhi, q.x());
            vlo = std::min(vlo, q.y());
            vhi = std::max(vhi, q.y());
        }
    const auto u = std::size_t(slice_.u), v = std::size_t(slice_.v), n = std::size_t(slice_.normal);
    b[2 * u] = ulo;
    b[2 * u + 1] = uhi;
    b[2 * v] = vlo;
    b[2 * v + 1] = vhi;
    b[2 * n] = b[2 * n + 1] = slice_.origin[n];
    return b;
}

QString FieldView::axisTitle(int which) const {
    if (slice_.empty())
        return {};
    const int axis = which == 0 ? slice_.u : slice_.v;
    return tr("%1 (\u00b5m)").arg(QChar('x' + axis));
}

std::pair<double, double> FieldView::extent(int which) const {
    const int axis = which == 0 ? slice_.u : slice_.v;
    const int n = which == 0 ? slice_.nu : slice_.nv;
    const double d0 = which == 0 ? slice_.du : slice_.dv;
    const double d = d0 > 0 ? d0 : 1.0;
    const double lo = slice_.origin[std::size_t(axis)];
    if (n > 1)
        return {lo, lo + (n - 1) * d};
    return {lo - 0.5 * d, lo + 0.5 * d};
}

std::pair<double, double> FieldView::axisRange(int which) const {
    if (slice_.empty())
        return {0, 0};
    return extent(which);
}

QRectF FieldView::plotArea() const {
    return QRectF(kLeft, kTop, std::max(10.0, width() - kLeft - kRight),
                  std::max(10.0, height() - kTop - kBottom));
}

double FieldView::pixelsPerUm() const {
    const auto [u0, u1] = extent(0);
    const auto [v0, v1] = extent(1);
    const QRectF a = plotArea();
    const double w = std::max(1e-9, u1 - u0), h = std::max(1e-9, v1 - v0);
    return zoom_ * std::min(a.width() / w, a.height() / h) / 1.04;
}

QPointF FieldView::toWidget(double u, double v) const {
    const auto [u0, u1] = extent(0);
    const auto [v0, v1] = extent(1);
    const QPointF c = QPointF(0.5 * (u0 + u1), 0.5 * (v0 + v1)) + pan_;
    const QPointF pc = plotArea().center();
    const double s = pixelsPerUm();
    return {pc.x() + (u - c.x()) * s, pc.y() - (v - c.y()) * s};
}

QPointF FieldView::toWorld(const QPointF& p) const {
    const auto [u0, u1] = extent(0);
    const auto [v0, v1] = extent(1);
    const QPointF c = QPointF(0.5 * (u0 + u1), 0.5 * (v0 + v1)) + pan_;
    const QPointF pc = plotArea().center();
    const double s = pixelsPerUm();
    return {c.x() + (p.x() - pc.x()) / s, c.y() - (p.y() - pc.y()) / s};
}

std::pair<double, double> FieldView::visibleRange(int which) const {
    if (slice_.empty())
        return {0, 0};
    const QRectF a = plotArea();
    const QPointF lo = toWorld(a.bottomLeft()), hi = toWorld(a.topRight());
    return which == 0 ? std::pair{lo.x(), hi.x()} : std::pair{lo.y(), hi.y()};
}

QStringList FieldView::tickLabels(int which) const {
    QStringList out;
    if (slice_.empty())
        return out;
    const auto [e0, e1] = extent(which);
    const auto [s0, s1] = visibleRange(which);
    for (double t : tickValues(std::max(e0, s0), std::min(e1, s1)))
        out << QString::number(t, 'g', 4);
    return out;
}

void FieldView::zoomBy(double factor, const QPointF& at) {
    if (slice_.empty() || !(factor > 0))
        return;
    const QPointF fixed = toWorld(at);
    zoom_ = std::clamp(zoom_ * factor, 0.25, 500.0);
    // Keep the world point under `at` where it is.
    pan_ += fixed - toWorld(at);
    update();
}

void FieldView::panBy(const QPointF& pixels) {
    if (slice_.empty())
        return;
    const double s = pixelsPerUm();
    pan_ -= QPointF(pixels.x() / s, -pixels.y() / s);
    update();
}

void FieldView::resetView() {
    zoom_ = 1;
    pan_ = {};
    update();
}

QImage FieldView::grabFramebuffer() {
    return grab().toImage();
}

FieldView::Frame FieldView::frame() const {
    Frame fr;
    if (slice_.empty())
        return fr;
    const QFontMetricsF fm(font());
    fr.area = plotArea();
    // The title on the left of the top row, clear of the colour bar's column.
    fr.titleRect = QRectF(10, 4, std::max(10.0, width() - kRight - 20), kTop - 6);
    // The slice: one image pixel per sample, its centre on the sample (a single sample fills its cell).
    const auto [u0, u1] = extent(0);
    const auto [v0, v1] = extent(1);
    fr.target = QRectF(toWidget(u0, v1), toWidget(u1, v0));
    fr.source = QRectF(slice_.nu > 1 ? 0.5 : 0.0, slice_.nv > 1 ? 0.5 : 0.0,
                       slice_.nu > 1 ? slice_.nu - 1 : 1, slice_.nv > 1 ? slice_.nv - 1 : 1);
    fr.shown = fr.target.intersected(fr.area);
    // Axes along the slice's lower and left edges (kept inside the plot area when zoomed in).
    fr.axisY = std::min(fr.target.bottom(), fr.area.bottom());
    fr.axisX = std::max(fr.target.left(), fr.area.left());
    for (int which = 0; which < 2; ++which) {
        const auto [e0, e1] = extent(which);
        const auto [s0, s1] = visibleRange(which);
        for (double t : tickValues(std::max(e0, s0), std::min(e1, s1)))
            fr.ticks[which].push_back(
                {which == 0 ? toWidget(t, 0).x() : toWidget(0, t).y(), QString::number(t, 'g', 4)});
    }
    // The colour bar on the right, five labels beside it; its quantity above the top label with a gap.
    const double top = std::max(fr.area.top() + 0.08 * fr.area.height(), 1.5 * fm.height() + 6);
    const double bottom = fr.area.top() + 0.92 * fr.area.height();
    fr.bar = QRectF(width() - kRight + 8, top, 18, std::max(10.0, bottom - top));
    fr.quantityRect = QRectF(width() - kRight, fr.bar.top() - 1.5 * fm.height() - 3, kRight - 4, fm.height());
    fr.barLow = magnitude_ ? 0.0 : -range_;
    for (int k = 0; k < 5; ++k)
        fr.barTicks.push_back({fr.bar.bottom() - fr.bar.height() * k / 4.0,
                               QString::asprintf("%#.3g", fr.barLow + (range_ - fr.barLow) * k / 4.0)});
    return fr;
}

std::pair<QRectF, QRectF> FieldView::colourBarRects() const {
    const Frame fr = frame();
    return {fr.bar, fr.quantityRect};
}

void FieldView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    const QColor ink(26, 26, 26);
    p.setPen(ink);
    const QFont f = font();
    if (slice_.empty()) {
        p.drawText(rect().adjusted(10, 10, -10, -10), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                   message_);
        return;
    }
    const Frame fr = frame();
    const QFontMetricsF fm(f);
    QFont bold = f;
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(fr.titleRect, Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetricsF(bold).elidedText(title_, Qt::ElideRight, fr.titleRect.width()));
    p.setFont(f);

    p.save();
    p.setClipRect(fr.area);
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    p.drawImage(fr.target, image_, fr.source);
    if (!outline_.empty()) {
        p.setRenderHint(QPainter::Antialiasing);
        // One path: segments meeting at a point are stroked once there (no darker dots at the joints).
        QPainterPath path;
        for (const QLineF& l : outline_) {
            path.moveTo(toWidget(l.x1(), l.y1()));
            path.lineTo(toWidget(l.x2(), l.y2()));
        }
        p.strokePath(path, QPen(QColor(13, 13, 13), 2.0, Qt::SolidLine, Qt::FlatCap, Qt::MiterJoin));
    }
    p.restore();

    const QRectF& shown = fr.shown;
    if (shown.isValid()) {
        p.setPen(QPen(ink, 1.0));
        const double x = fr.axisX, y = fr.axisY;
        p.drawLine(QPointF(shown.left(), y), QPointF(shown.right(), y));
        p.drawLine(QPointF(x, shown.top()), QPointF(x, shown.bottom()));
        for (const auto& t : fr.ticks[0]) {
            p.drawLine(QPointF(t.at, y), QPointF(t.at, y + 4));
            p.drawText(QRectF(t.at - 40, y + 6, 80, fm.height()), Qt::AlignHCenter | Qt::AlignTop, t.text);
        }
        for (const auto& t : fr.ticks[1]) {
            p.drawLine(QPointF(x - 4, t.at), QPointF(x, t.at));
            p.drawText(QRectF(x - 76, t.at - fm.height() / 2, 70, fm.height()),
                       Qt::AlignRight | Qt::AlignVCenter, t.text);
        }
        p.drawText(QRectF(shown.left(), y + 8 + fm.height(), shown.width(), fm.height() + 2),
                   Qt::AlignHCenter | Qt::AlignTop, axisTitle(0));
        p.save();
        p.translate(x - 44 - fm.height(), shown.center().y());
        p.rotate(-90);
        p.drawText(QRectF(-shown.height() / 2, 0, shown.height(), fm.height() + 2),
                   Qt::AlignHCenter | Qt::AlignTop, axisTitle(1));
        p.restore();
    }

    // The colour bar: the map from bottom (low) to top (high).
    const QRectF& bar = fr.bar;
    for (int i = 0; i < int(bar.height()); ++i) {
        const double t = 1.0 - (i + 0.5) / bar.height();
        p.fillRect(QRectF(bar.left(), bar.top() + i, bar.width(), 1.0),
                   QColor(colourOf(fr.barLow + t * (range_ - fr.barLow))));
    }
    p.setPen(ink);
    p.drawRect(bar);
    for (const auto& t : fr.barTicks) {
        p.drawLine(QPointF(bar.right(), t.at), QPointF(bar.right() + 3, t.at));
        p.drawText(QRectF(bar.right() + 5, t.at - fm.height() / 2, kRight - 30, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, t.text);
    }
    p.drawText(fr.quantityRect, Qt::AlignLeft | Qt::AlignBottom,
               fm.elidedText(quantity_, Qt::ElideRight, fr.quantityRect.width()));
}

QString FieldView::csv() const {
    if (slice_.empty())
        return {};
    auto quote = [](QString t) {
        t.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        return QLatin1Char('"') + t + QLatin1Char('"');
    };
    QStringList header;
    for (int a = 0; a < 3; ++a)
        header << quote(tr("%1 (\u00b5m)").arg(QChar('x' + a)));
    header << quote(quantity_.isEmpty() ? tr("value") : quantity_);
    QString out = header.join(QLatin1Char(',')) + QLatin1Char('\n');
    out.reserve(out.size() + qsizetype(slice_.values.size()) * 48);
    std::array<double, 3> at = slice_.origin;
    for (int iv = 0; iv < slice_.nv; ++iv)
        for (int iu = 0; iu < slice_.nu; ++iu) {
            at[std::size_t(slice_.u)] = slice_.origin[std::size_t(slice_.u)] + iu * slice_.du;
            at[std::size_t(slice_.v)] = slice_.origin[std::size_t(slice_.v)] + iv * slice_.dv;
            out += QString::number(at[0], 'g', 12) + QLatin1Char(',') + QString::number(at[1], 'g', 12) +
                   QLatin1Char(',') + QString::number(at[2], 'g', 12) + QLatin1Char(',') +
                   QString::number(slice_.values[std::size_t(iu + slice_.nu * iv)], 'g', 9) +
                   QLatin1Char('\n');
        }
    return out;
}

namespace {
/// `image` as a data URI for an SVG <image> (PNG, base64).
QString pngDataUri(const QImage& image) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(bytes.toBase64());
}
} // namespace

QString FieldView::svg() const {
    QString out;
    QTextStream o(&out);
    const int w = width(), h = height();
    o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
      << "\" viewBox=\"0 0 " << w << ' ' << h << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    auto esc = [](const QString& t) { return t.toHtmlEscaped(); };
    if (slice_.empty()) {
        o << "<text x=\"10\" y=\"24\">" << esc(message_) << "</text>\n</svg>\n";
        return out;
    }
    const Frame fr = frame();
    const QFontMetricsF fm(font());
    const double asc = fm.ascent();
    o << "<text x=\"" << fr.titleRect.left() << "\" y=\"" << fr.titleRect.center().y() + asc / 2 - 1
      << "\" font-weight=\"bold\">" << esc(title_) << "</text>\n";
    // The slice: the samples that `source` selects stretched over `target`, clipped to the part of the
    // plot area it covers (as drawImage(target, image, source) draws it).
    const QRectF& a = fr.shown.isValid() ? fr.shown : fr.area;
    o << "<clipPath id=\"area\"><rect x=\"" << a.x() << "\" y=\"" << a.y() << "\" width=\"" << a.width()
      << "\" height=\"" << a.height() << "\"/></clipPath>\n<g clip-path=\"url(#area)\">\n";
    const double sx = fr.target.width() / fr.source.width(), sy = fr.target.height() / fr.source.height();
    o << "<image x=\"" << fr.target.x() - fr.source.x() * sx << "\" y=\""
      << fr.target.y() - fr.source.y() * sy << "\" width=\"" << image_.width() * sx << "\" height=\""
      << image_.height() * sy << "\" preserveAspectRatio=\"none\" href=\"" << pngDataUri(image_) << "\"/>\n";
    if (!outline_.empty()) {
        o << "<path fill=\"none\" stroke=\"#0d0d0d\" stroke-width=\"2\" d=\"";
        for (const QLineF& l : outline_) {
            const QPointF p1 = toWidget(l.x1(), l.y1()), p2 = toWidget(l.x2(), l.y2());
            o << 'M' << p1.x() << ' ' << p1.y() << 'L' << p2.x() << ' ' << p2.y();
        }
        o << "\"/>\n";
    }
    o << "</g>\n";
    auto line = [&o](double x1, double y1, double x2, double y2) {
        o << "<line x1=\"" << x1 << "\" y1=\"" << y1 << "\" x2=\"" << x2 << "\" y2=\"" << y2
          << "\" stroke=\"#1a1a1a\"/>\n";
    };
    auto text = [&o, &esc](double x, double y, const char* anchor, const QString& t) {
        o << "<text x=\"" << x << "\" y=\"" << y << "\" text-anchor=\"" << anchor << "\">" << esc(t)
          << "</text>\n";
    };
    const QRectF& shown = fr.shown;
    if (shown.isValid()) {
        const double x = fr.axisX, y = fr.axisY;
        line(shown.left(), y, shown.right(), y);
        line(x, shown.top(), x, shown.bottom());
        for (const auto& t : fr.ticks[0]) {
            line(t.at, y, t.at, y + 4);
            text(t.at, y + 6 + asc, "middle", t.text);
        }
        for (const auto& t : fr.ticks[1]) {
            line(x - 4, t.at, x, t.at);
            text(x - 6, t.at + asc / 2 - 1, "end", t.text);
        }
        text(shown.center().x(), y + 8 + fm.height() + asc, "middle", axisTitle(0));
        o << "<text transform=\"translate(" << x - 44 - fm.height() + asc << ',' << shown.center().y()
          << ") rotate(-90)\" text-anchor=\"middle\">" << esc(axisTitle(1)) << "</text>\n";
    }
    // The colour bar as an image of the map (one pixel per colour-table step, low at the bottom).
    const QRectF& bar = fr.bar;
    QImage strip(1, kLutSize, QImage::Format_RGB32);
    for (int i = 0; i < kLutSize; ++i)
        strip.setPixel(0, kLutSize - 1 - i, lut_[std::size_t(i)]);
    o << "<image x=\"" << bar.x() << "\" y=\"" << bar.y() << "\" width=\"" << bar.width() << "\" height=\""
      << bar.height() << "\" preserveAspectRatio=\"none\" href=\"" << pngDataUri(strip) << "\"/>\n"
      << "<rect x=\"" << bar.x() << "\" y=\"" << bar.y() << "\" width=\"" << bar.width() << "\" height=\""
      << bar.height() << "\" fill=\"none\" stroke=\"#1a1a1a\"/>\n";
    for (const auto& t : fr.barTicks) {
        line(bar.right(), t.at, bar.right() + 3, t.at);
        text(bar.right() + 5, t.at + asc / 2 - 1, "start", t.text);
    }
    text(fr.quantityRect.left(), fr.quantityRect.bottom() - fm.descent(), "start", quantity_);
    o << "</svg>\n";
    return out;
}

bool FieldView::exportTo(const QString& path, QString* error) {
    if (slice_.empty()) {
        if (error)
            *error = tr("%1: there is no slice to export").arg(path);
        return false;
    }
    return exportPlot(
        path, {[this] { return csv(); }, [this] { return svg(); }, [this] { return grabFramebuffer(); }},
        error);
}

void FieldView::mousePressEvent(QMouseEvent* e) {
    dragFrom_ = e->position().toPoint();
    if (e->button() == Qt::MiddleButton ||
        (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ShiftModifier)))
        drag_ = Drag::Pan;
    else if (e->button() == Qt::RightButton)
        drag_ = Drag::Zoom;
    else
        drag_ = Drag::None;
}

void FieldView::mouseMoveEvent(QMouseEvent* e) {
    const QPoint at = e->position().toPoint();
    const QPoint d = at - dragFrom_;
    if (drag_ == Drag::Pan)
        panBy(d);
    else if (drag_ == Drag::Zoom)
        zoomBy(std::pow(1.01, -d.y()), plotArea().center());
    dragFrom_ = at;
}

void FieldView::mouseReleaseEvent(QMouseEvent*) {
    drag_ = Drag::None;
}

void FieldView::mouseDoubleClickEvent(QMouseEvent*) {
    resetView();
}

void FieldView::wheelEvent(QWheelEvent* e) {
    if (slice_.empty()) {
        e->ignore();
        return;
    }
    zoomBy(std::pow(1.2, e->angleDelta().y() / 120.0), e->position());
    e->accept();
}

void FieldView::keyPressEvent(QKeyEvent* e) {
    switch (e->key()) {
    case Qt::Key_R:
        resetView();
        break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.25, plotArea().center());
        break;
    case Qt::Key_Minus:
        zoomBy(0.8, plotArea().center());
        break;
    case Qt::Key_Left:
        panBy({-20, 0});
        break;
    case Qt::Key_Right:
        panBy({20, 0});
        break;
    case Qt::Key_Up:
        panBy({0, -20});
        break;
    case Qt::Key_Down:
        panBy({0, 20});
        break;
    default:
        QWidget::keyPressEvent(e);
    }
}

} // namespace yee::ui
