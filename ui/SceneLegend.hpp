#pragma once
/// \file SceneLegend.hpp
/// The 3-D view's legend: vtkLegendBoxActor with every entry's text in one dark ink.
#include <vtkLegendBoxActor.h>

namespace yee::ui {

/// vtkLegendBoxActor draws each entry's text in the entry's colour (the symbol's), so light material
/// colours (cyan, yellow) were unreadable on the legend's white box. This actor keeps the coloured
/// symbols and draws every text in the entry text property's colour: the superclass sets the text colours
/// in its geometry pass, and this one sets them back before the text is drawn (overlay pass).
class SceneLegend : public vtkLegendBoxActor {
public:
    static SceneLegend* New();
    vtkTypeMacro(SceneLegend, vtkLegendBoxActor)

        int RenderOpaqueGeometry(vtkViewport* viewport) override;

protected:
    SceneLegend() = default;
    ~SceneLegend() override = default;

private:
    SceneLegend(const SceneLegend&) = delete;
    void operator=(const SceneLegend&) = delete;
};

} // namespace yee::ui
