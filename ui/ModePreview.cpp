#include "ui/ModePreview.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "yee/detectors/Flux.hpp"
#include "yee/modes/ModeCache.hpp"
#include "yee/modes/PortRequest.hpp"
#include "yee/scene/DetectorKinds.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/solver/ModeSource.hpp"

namespace yee::ui {

namespace {
QString tr(const char* t) {
    return QCoreApplication::translate("yee::ui::ModePreview", t);
}

bool isModeMonitor(const scene::Detector& d) {
    const scene::DetectorKindSpec* k = scene::detectorKind(d.type);
    return k && k->name == "mode_monitor";
}

/// |E| of `m` on the cross-section of `q`, placed in um on the plan's grid.
FieldSlice magnitude(const modes::Mode& m, const modes::ModeRequest& q, const solver::Geometry& g) {
    const int a = q.normal, ax[2] = {(a + 1) % 3, (a + 2) % 3};
    // FieldSlice wants its in-plane axes in increasing order; the mode's (u, w) may be (z, x).
    const bool swap = ax[0] > ax[1];
    FieldSlice f;
    f.normal = a;
    f.u = swap ? ax[1] : ax[0];
    f.v = swap ? ax[0] : ax[1];
    const int n[2] = {m.nu + 1, m.nw + 1};
    f.nu = swap ? n[1] : n[0];
    f.nv = swap ? n[0] : n[1];
    f.du = f.dv = g.cellUm;
    f.origin[std::size_t(a)] = g.loUm[std::size_t(a)] + q.plane * g.cellUm;
    f.origin[std::size_t(ax[0])] = g.loUm[std::size_t(ax[0])] + q.lo[0] * g.cellUm;
    f.origin[std::size_t(ax[1])] = g.loUm[std::size_t(ax[1])] + q.lo[1] * g.cellUm;
    f.values.resize(std::size_t(f.nu) * std::size_t(f.nv));
    for (int iu = 0; iu <= m.nu; ++iu)
        for (int iw = 0; iw <= m.nw; ++iw) {
            const double eu = m.at(ax[0], iu, iw), ew = m.at(ax[1], iu, iw), ea = m.at(a, iu, iw);
            const int su = swap ? iw : iu, sv = swap ? iu : iw;
            f.values[std::size_t(su) + std::size_t(f.nu) * std::size_t(sv)] =
                float(std::sqrt(eu * eu + ew * ew + ea * ea));
        }
    const auto [lo, hi] = std::minmax_element(f.values.begin(), f.values.end());
    f.min = *lo;
    f.max = *hi;
    return f;
}
} // namespace

bool hasModes(const scene::Scene& s, const ItemRef& ref) {
    if (ref.kind == ItemKind::Source && ref.index >= 0 && ref.index < int(s.sources.size()))
        return s.sources[std::size_t(ref.index)].type == scene::SourceType::Mode;
    if (ref.kind == ItemKind::Detector && ref.index >= 0 && ref.index < int(s.detectors.size()))
        return isModeMonitor(s.detectors[std::size_t(ref.index)]);
    return false;
}

std::vector<double> previewWavelengths(const scene::Scene& s, const ItemRef& ref) {
    if (!hasModes(s, ref))
        return {};
    if (ref.kind == ItemKind::Source)
        return {s.sources[std::size_t(ref.index)].profile.wavelength};
    return s.detectors[std::size_t(ref.index)].wavelengths;
}

int previewModeCount(const scene::Scene& s, const ItemRef& ref) {
    if (!hasModes(s, ref))
        return 0;
    if (ref.kind == ItemKind::Source)
        return s.sources[std::size_t(ref.index)].mode + 1;
    return scene::detectorParam<int>(s.detectors[std::size_t(ref.index)], "modes");
}

ModePreview solveModePreview(const scene::Scene& s, const ItemRef& ref, int mode, std::size_t wavelength,
                             bool groupIndex) {
    if (!hasModes(s, ref))
        throw std::invalid_argument("solveModePreview: not a mode source or mode monitor");
    const std::vector<double> wls = previewWavelengths(s, ref);
    if (wavelength >= wls.size() || mode < 0 || mode >= previewModeCount(s, ref))
        throw std::invalid_argument("solveModePreview: mode or wavelength index out of range");
    scene::validateScene(s);
    // The plan a run makes: geometry, time step, the rasteriser, and the mode sources solved (cached).
    const std::shared_ptr<solver::Plan> plan = solver::makePlan(s, solver::PlanOptions{});
    modes::ModeRequest q;
    std::string field;
    ModePreview out;
    if (ref.kind == ItemKind::Source) {
        const scene::Source& src = s.sources[std::size_t(ref.index)];
        q = solver::modeSourceRequest(*plan, std::size_t(ref.index));
        field = "sources[" + std::to_string(ref.index) + "].mode_index";
        mode = src.mode;
        out.title = tr("%1 (mode source): mode %2 at %3 \u00b5m")
                        .arg(QString::fromStdString(src.name))
                        .arg(mode)
                        .arg(src.profile.wavelength, 0, 'g', 6);
    } else {
        const scene::Detector& d = s.detectors[std::size_t(ref.index)];
        const solver::DetectorPlan dp = detectors::planFluxPlane(d, ref.index, *plan);
        q = modes::monitorRequest(plan->scene, std::size_t(ref.index), dp.normal, dp.box, dp.omegas,
                                  wavelength, plan->dt, previewModeCount(s, ref));
        field = "detectors[" + std::to_string(ref.index) + "].modes";
        out.title = tr("%1 (mode monitor): mode %2 at %3 \u00b5m")
                        .arg(QString::fromStdString(d.name))
                        .arg(mode)
                        .arg(wls[wavelength], 0, 'g', 6);
    }
    q.groupIndex = groupIndex; // the solver's n_g (Mode::ng): two more solves at omega (1 -+ 1e-4)
    const std::shared_ptr<const modes::ModeSet> set = plan->modeCache->get(*plan->raster, q, field);
    const modes::Mode& m = set->modes.at(std::size_t(mode));
    out.mode = mode;
    out.wavelengthUm = 2 * std::numbers::pi * s.cellUm / q.omega;
    out.neff = m.neff;
    out.neffImag = m.neffImag;
    out.imagFraction = m.imagFraction;
    out.seconds = set->seconds;
    for (const modes::Mode& k : set->modes)
        out.neffs.push_back(k.neff);
    out.field = magnitude(m, q, plan->geom);
    out.cells = {out.field.nu - 1, out.field.nv - 1};
    out.groupIndex = m.ng;
    return out;
}

} // namespace yee::ui
