#pragma once
/// \file SceneAxes.hpp
/// The 3-D view's axes: vtkCubeAxesActor with 2-D (FreeType) text whose titles never cover the tick
/// labels, and that leaves out an axis seen end-on.
#include <vtkCubeAxesActor.h>

#include <array>

namespace yee::ui {

/// vtkCubeAxesActor in 2-D text mode (FreeType text: the 3-D vector text has no "µ") places each axis
/// title at the axis' middle with, in VTK 9.1, no offset at all for z (the x and y offsets are fixed
/// pixel counts that ignore the labels' size): the z title lies across the z tick labels. Before the
/// 2-D text is drawn (the overlay pass, after every rebuild of the frame), this actor moves each drawn
/// title outwards, away from the box's centre and perpendicular to its axis on screen, just past the
/// labels' boxes.
class SceneAxes : public vtkCubeAxesActor {
public:
    static SceneAxes* New();
    vtkTypeMacro(SceneAxes, vtkCubeAxesActor)

        int RenderOverlay(vtkViewport* viewport) override;
    int RenderOpaqueGeometry(vtkViewport* viewport) override;

    /// Pixels kept between a title and the nearest label.
    static constexpr double kTitleGap = 4.0;
    /// An axis shorter than this on screen (seen nearly end-on, as in a standard view along it) is not
    /// drawn: its tick labels would pile up on one spot.
    static constexpr double kMinAxisPixels = 40.0;

    /// For tests: the last frame's title and label boxes of axis `axis` (0 x, 1 y, 2 z) as drawn, in
    /// viewport pixels {xmin, xmax, ymin, ymax}; empty when that axis drew no title.
    struct Boxes {
        std::array<double, 4> title{};
        std::vector<std::array<double, 4>> labels;
        bool drawn = false;
    };
    const Boxes& boxes(int axis) const { return boxes_[std::size_t(axis)]; }

protected:
    SceneAxes() = default;
    ~SceneAxes() override = default;

private:
    SceneAxes(const SceneAxes&) = delete;
    void operator=(const SceneAxes&) = delete;

    void placeTitles(vtkViewport* viewport);
    /// Show the axes of each direction only when long enough on screen (kMinAxisPixels).
    void hideEndOnAxes(vtkViewport* viewport);
    /// Move the title of `axis` (drawn as axis number `type`) clear of its labels.
    void placeTitle(vtkViewport* viewport, vtkAxisActor* axis, int type);

    std::array<Boxes, 3> boxes_;
};

} // namespace yee::ui
