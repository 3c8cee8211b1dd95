#include "ui/SceneLegend.hpp"

#include <vtkObjectFactory.h>
#include <vtkTextMapper.h>
#include <vtkTextProperty.h>

namespace yee::ui {

vtkStandardNewMacro(SceneLegend);

int SceneLegend::RenderOpaqueGeometry(vtkViewport* viewport) {
    const int drawn = vtkLegendBoxActor::RenderOpaqueGeometry(viewport);
    const double* ink = GetEntryTextProperty()->GetColor();
    for (int i = 0; i < NumberOfEntries; ++i)
        if (TextMapper && TextMapper[i])
            TextMapper[i]->GetTextProperty()->SetColor(ink[0], ink[1], ink[2]);
    return drawn;
}

} // namespace yee::ui
