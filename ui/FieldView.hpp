#pragma once
/// \file FieldView.hpp
/// A view of one FieldSlice, drawn with QPainter (no OpenGL): the slice as a colour-mapped image in
/// world coordinates (µm, the same scale on both axes) with a colour bar, axes in µm along its lower and
/// left edges, and optionally the structure's outline (material boundaries) over it. The wheel zooms
/// about the cursor (so does a right-button drag up and down), a middle-button or shift + left drag pans,
/// a double click (or the R key) fits the slice again; a slice is never turned.
#include <QImage>
#include <QLineF>
#include <QPoint>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include <array>
#include <utility>
#include <vector>

#include "ui/FieldSlice.hpp"

namespace yee::ui {

/// Shows a slice with a diverging colour map symmetric about zero (fields and gradients change sign),
/// looking along the slice normal.
class FieldView : public QWidget {
    Q_OBJECT
public:
    explicit FieldView(QWidget* parent = nullptr);
    ~FieldView() override;

    /// Show `slice` titled `title`; the colour bar is labelled `quantity`. The zoom and pan stay while
    /// the slice keeps its plane and extent (scrubbing time), and are reset otherwise.
    void setSlice(const FieldSlice& slice, const QString& title, const QString& quantity);
    /// Remove the slice and show `message` instead.
    void clear(const QString& message = {});
    const FieldSlice& slice() const { return slice_; }
    /// The title shown above the slice (empty without one).
    const QString& title() const { return title_; }
    /// Colour range in use (symmetric: [-range, range]; [0, range] for magnitudes).
    double range() const { return range_; }
    /// Keep the current colour range for every following slice (true), or fit each slice (false).
    void setRangeLocked(bool locked);
    bool rangeLocked() const { return locked_; }
    /// The colour range chosen for `values`: the 99.5th percentile of |value| (1 if all are zero).
    static double colourRange(const std::vector<float>& values);
    /// Colour by magnitude (a sequential map from 0, white to dark red: |E| of a mode) instead of the
    /// diverging map symmetric about zero. Applies from the next setSlice().
    void setMagnitude(bool magnitude);
    bool magnitude() const { return magnitude_; }
    /// The colour of `value` under the current map and range (values beyond the range saturate).
    QRgb colourOf(double value) const;

    /// Draw the structure's outline over the slice shown: the contour lines of `eps` (one value per
    /// sample of slice(), same order) at each of `levels` (midpoints between the materials' permittivities,
    /// outlineLevels()). Empty `eps` removes the outline; so does the next setSlice().
    void setOutline(const std::vector<float>& eps, const std::vector<double>& levels);
    /// Draw the contour at `level` of each of `fields` (one value per sample of slice() each; cells with a
    /// non-finite corner have none), e.g. outlineFields() at 0.5. Empty `fields` removes the outline.
    void setOutlineFields(const std::vector<std::vector<float>>& fields, double level = 0.5);
    /// The outline's segments in world coordinates along (u, v) of slice() (µm).
    const std::vector<QLineF>& outlineLines() const { return outline_; }
    /// Line segments of the outline drawn (0 without one).
    int outlineSegments() const { return int(outline_.size()); }
    /// World bounds (µm) of the outline drawn: x lo, x hi, y lo, y hi, z lo, z hi (all 0 without one).
    std::array<double, 6> outlineBounds() const;
    /// The axis titles shown ("x (µm)"), horizontal then vertical; empty without a slice.
    QString axisTitle(int which) const;
    /// The range (µm) the slice spans along the horizontal (0) or vertical (1) axis.
    std::pair<double, double> axisRange(int which) const;
    /// The range (µm) the plot area shows along the horizontal (0) or vertical (1) axis now (zoom, pan).
    std::pair<double, double> visibleRange(int which) const;
    /// The tick labels of axis `which` as drawn, in order ("-0.8", "-0.4", "0", ...): round values inside
    /// both the slice and the visible range.
    QStringList tickLabels(int which) const;
    /// Zoom by `factor` (>1 in) about widget point `at`; pan by `pixels`; fit the slice again.
    void zoomBy(double factor, const QPointF& at);
    void panBy(const QPointF& pixels);
    void resetView();
    /// Magnification against the fitted view (1 when fitted).
    double zoom() const { return zoom_; }

    /// The slice's samples as CSV: a header naming the world axes (µm) and the quantity, then one row per
    /// sample (u fastest) with its x, y, z position and value (9 significant digits: a float exactly).
    QString csv() const;
    /// The view as drawn now (zoom and pan included) as an SVG document of the widget's size: the slice as
    /// an embedded image clipped to the plot area, the outline, axes, ticks and colour bar as vectors.
    QString svg() const;
    /// Write csv(), svg() or the view as PNG to `path` by its extension (exportPlot()). False with `error`
    /// set without a slice or on failure.
    bool exportTo(const QString& path, QString* error = nullptr);
    /// The colour bar's rectangle and its quantity title's, as drawn (widget pixels; empty without a slice).
    std::pair<QRectF, QRectF> colourBarRects() const;

    /// The view as drawn now, in device pixels.
    QImage grabFramebuffer();
    QSize sizeHint() const override { return {480, 360}; }
    QSize minimumSizeHint() const override { return {160, 120}; }

signals:
    /// A slice was shown (true) or removed (false).
    void sliceShown(bool shown);

protected:
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;

private:
    /// Where everything is drawn at the widget's size, zoom and pan: shared by paintEvent() and svg().
    struct Frame {
        QRectF area;   ///< plot area
        QRectF target; ///< the slice's image, possibly beyond the area
        QRectF source; ///< the part of image_ drawn into target (sample centres on sample positions)
        QRectF shown;  ///< target within area (invalid when panned out of sight)
        QRectF titleRect;
        double axisX = 0, axisY = 0; ///< the vertical axis's x, the horizontal axis's y
        struct Tick {
            double at; ///< widget x (horizontal axis) or y (vertical axis)
            QString text;
        };
        std::vector<Tick> ticks[2];
        QRectF bar;                 ///< colour bar
        QRectF quantityRect;        ///< its title
        std::vector<Tick> barTicks; ///< y and label, from the low end up
        double barLow = 0;          ///< the value at the bar's low end
    };
    Frame frame() const;
    /// The plot area (widget pixels): the widget less the title, axes and colour bar.
    QRectF plotArea() const;
    /// Pixels per µm, and the world point (u, v) at the centre of the plot area.
    double pixelsPerUm() const;
    QPointF toWidget(double u, double v) const;
    QPointF toWorld(const QPointF& p) const;
    /// The slice's extent along u and v (sample positions; a single sample widened by half a sample).
    std::pair<double, double> extent(int which) const;
    void rebuildImage();
    /// Add the contour of `values` (per sample of slice_) at `level` to outline_ (marching squares).
    void contour(const std::vector<float>& values, double level);
    void rebuildLut();

    FieldSlice slice_;
    QString title_, quantity_, message_;
    double range_ = 1;
    bool locked_ = false;
    bool magnitude_ = false;
    std::vector<QRgb> lut_;
    QImage image_; ///< one pixel per sample, v up (row 0 is the highest v)
    /// Outline segments in world (u, v) coordinates.
    std::vector<QLineF> outline_;
    double zoom_ = 1;
    QPointF pan_; ///< world offset (µm) of the view centre from the slice's centre
    QPoint dragFrom_;
    enum class Drag { None, Pan, Zoom } drag_ = Drag::None;
};

} // namespace yee::ui
