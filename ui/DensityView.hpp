#pragma once
/// \file DensityView.hpp
/// A design region's density as a grey-scale image (0: white, 1: black): the middle slice across the
/// axis with the fewest voxels, the two other axes drawn in increasing axis order (horizontal: the
/// lower axis). Shown by the Optimise panel for the evaluation selected.
#include <QImage>
#include <QWidget>

#include <array>
#include <vector>

namespace yee::ui {

/// The view. Holds a copy of the values it shows.
class DensityView : public QWidget {
    Q_OBJECT
public:
    explicit DensityView(QWidget* parent = nullptr);

    /// Show `density` (x fastest) of a grid of `voxels` (x, y, z) voxels; `title` names it. Values
    /// are clamped to [0, 1]. An empty or mismatched array clears the view.
    void setDensity(const std::vector<double>& density, std::array<int, 3> voxels, const QString& title);
    /// The slice drawn: one pixel per voxel.
    const QImage& image() const { return image_; }
    /// The axis the slice is taken across (0 = x), -1 when empty.
    int sliceAxis() const { return sliceAxis_; }
    QSize sizeHint() const override { return {220, 120}; }
    QSize minimumSizeHint() const override { return {80, 60}; }

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    QImage image_;
    QString title_;
    int sliceAxis_ = -1;
};

} // namespace yee::ui
