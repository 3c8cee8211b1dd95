#include "yee/solver/Plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

#include "yee/core/Error.hpp"
#include "yee/kernels/Coef.hpp"
#include "yee/modes/ModeCache.hpp"
#include "yee/scene/MaterialModel.hpp"
#include "yee/scene/Rasterizer.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/solver/ModeShare.hpp"
#include "yee/solver/ModeSource.hpp"

namespace yee::solver {

std::int64_t defaultSmallTableLimit() {
    const char* e = std::getenv("YEE_SMALL_INDEX");
    return e && e[0] == '0' && e[1] == 0 ? 0 : kernels::kSmallTableMax;
}

std::int64_t defaultPerCellCacheBytes() {
    const char* e = std::getenv("YEE_CACHE_PER_CELL");
    if (e && e[0] == '0' && e[1] == 0)
        return 0;
    long llc = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    if (llc <= 0) { // what the kernel reports for the first CPU's last level, e.g. "32768K"
        std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index3/size");
        long v = 0;
        char unit = 0;
        if (f >> v) {
            f >> unit;
            llc = unit == 'K' ? v * 1024 : (unit == 'M' ? v * 1024 * 1024 : v);
        }
    }
    return llc > 0 ? llc / 2 : 0;
}

bool perCellCacheResident(const Plan& p, std::size_t realBytes) {
    if (p.perCellCacheBytes <= 0)
        return false;
    const std::int64_t cells =
        std::int64_t(p.geom.cells[0] + 2) * (p.geom.cells[1] + 2) * std::int64_t(p.geom.cells[2] + 2);
    const std::int64_t arrays = 6 + 3 * (1 + int(p.lossy) + int(p.magnetic));
    return cells * arrays * std::int64_t(realBytes) <= p.perCellCacheBytes;
}

bool perCellCoefficientsForced() {
    const char* e = std::getenv("YEE_MATERIAL_INDEX");
    return e && e[0] == '0' && e[1] == 0;
}

namespace {
const char* kComp[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};

/// Levi-Civita symbol for axes 0..2.
int levi(int a, int b, int c) {
    if (a == b || b == c || a == c)
        return 0;
    return ((b - a + 3) % 3 == 1) ? 1 : -1;
}

/// Index range [lo, hi) of component `comp` positions inside [c - s/2, c + s/2] along `axis`;
/// a zero (or sub-cell) extent gives the single nearest index.
std::pair<int, int> rangeFor(const Geometry& g, int comp, int axis, double c, double s) {
    if (s <= g.cellUm * 0.5) {
        int i = g.nearest(comp, axis, c);
        return {i, i + 1};
    }
    const double off = Geometry::offset(comp, axis);
    // Half-open [c - s/2, c + s/2): a plane that ends on the PML interface stays out of the PML.
    int lo = int(std::ceil(g.toCells(axis, c - s / 2) - off - 1e-9));
    int hi = int(std::ceil(g.toCells(axis, c + s / 2) - off - 1e-9));
    lo = std::clamp(lo, 0, g.cells[axis]);
    hi = std::clamp(hi, lo, g.cells[axis]);
    if (hi == lo) {
        int i = g.nearest(comp, axis, c);
        return {i, i + 1};
    }
    return {lo, hi};
}
} // namespace

const char* componentName(int comp) {
    return comp >= 0 && comp < 6 ? kComp[comp] : "?";
}
int componentFromName(const std::string& n) {
    for (int c = 0; c < 6; ++c)
        if (n == kComp[c])
            return c;
    return -1;
}

int Geometry::nearest(int comp, int axis, double um) const {
    int i = int(std::lround(toCells(axis, um) - offset(comp, axis)));
    return std::clamp(i, 0, cells[axis] - 1);
}

std::shared_ptr<Plan> makePlan(const scene::Scene& s, const PlanOptions& o) {
    scene::validateScene(s); // bad scenes are refused here, before anything is allocated
    auto plan = std::make_shared<Plan>();
    Plan& p = *plan;
    p.scene = s;
    p.geom.cells = s.gridCells();
    p.geom.cellUm = s.cellUm;
    for (int a = 0; a < 3; ++a)
        p.geom.loUm[a] = s.domainCenter[a] - 0.5 * p.geom.cells[a] * s.cellUm;
    p.dt = s.dt();
    p.dtFs = s.dtFs();
    p.steps = o.maxSteps >= 0 ? std::min(o.maxSteps, s.steps()) : s.steps();
    p.perCellCoefficients = o.perCellCoefficients || perCellCoefficientsForced();

    const scene::Material* bg = s.findMaterial(s.background);
    const double bgEps = bg ? scene::materialModel(*bg).epsInf : 1.0, bgMu = bg ? bg->mu : 1.0;
    std::array<int, 3> pmlCells{0, 0, 0};
    for (int a = 0; a < 3; ++a) {
        const scene::Boundary& b = s.boundaries[a];
        switch (b.type) {
        case scene::BoundaryType::Pml:
            p.bc[a] = tiling::AxisBoundary::Pml;
            break;
        case scene::BoundaryType::Periodic:
            p.bc[a] = tiling::AxisBoundary::Periodic;
            break;
        case scene::BoundaryType::Pec:
            p.bc[a] = tiling::AxisBoundary::Pec;
            break;
        }
        if (b.type == scene::BoundaryType::Pml) {
            pmlCells[a] = b.cells;
            p.pml[a].cells = b.cells;
            p.pml[a].order = b.order;
            // Optimal sigma for polynomial grading (Taflove & Hagness): 0.8 (m+1) / (eta dx), eta of the
            // background medium, normalised units.
            p.pml[a].sigmaMax = b.sigmaFactor * 0.8 * (b.order + 1) * std::sqrt(bgEps / bgMu);
            p.pml[a].kappaMax = b.kappaMax;
            // alpha_max is physical (1/um, alpha / (eps0 c)); normalised units have dx = 1.
            p.pml[a].alphaMax = b.alphaMax * s.cellUm;
        }
    }
    for (const auto& m : s.materials) {
        const scene::MaterialModel mm = scene::materialModel(m);
        if (mm.sigma != 0 || !mm.poles.empty())
            p.lossy = true; // pole currents enter Ca and Cb (solver/Dispersion.hpp)
        if (m.mu != 1.0)
            p.magnetic = true;
    }

    p.tiles = std::make_unique<tiling::TileGrid>(p.geom.cells, o.tiles, p.bc, pmlCells);
    p.raster = std::make_shared<scene::Rasterizer>(s);
    p.modeCache = o.modeCache ? o.modeCache : std::make_shared<modes::ModeCache>();
    if (o.modeCache)
        p.modeCache->bind(scene::sceneHash(s));
    if (o.modeComm && o.modeComm->size() > 1)
        shareModeSolves(*p.modeCache, *o.modeComm, *p.tiles);

    // ---- sources ----
    for (std::size_t si = 0; si < s.sources.size(); ++si) {
        const scene::Source& src = s.sources[si];
        p.sourceTimes.emplace_back(src.profile, s.cellUm);
        if (src.type == scene::SourceType::Mode) {
            planModeSource(p, si);
            continue;
        }
        if (src.type == scene::SourceType::PointDipole) {
            double n = std::sqrt(src.polarization[0] * src.polarization[0] +
                                 src.polarization[1] * src.polarization[1] +
                                 src.polarization[2] * src.polarization[2]);
            for (int c = 0; c < 3; ++c) {
                double pc = n > 0 ? src.polarization[c] / n : 0;
                if (pc == 0)
                    continue;
                Injection inj;
                inj.source = int(si);
                inj.comp = c;
                Index3 cell{p.geom.nearest(c, 0, src.center[0]), p.geom.nearest(c, 1, src.center[1]),
                            p.geom.nearest(c, 2, src.center[2])};
                inj.cells.push_back(cell);
                inj.amp.push_back(-pc); // E -= Cb J
                p.injections.push_back(std::move(inj));
            }
            continue;
        }
        // One-sided plane source: a total-field/scattered-field plane at E index i0 along the normal a.
        // For direction d the total region is the side the wave travels into. With polarisation p and
        // q the third axis, the incident wave is E_p = A g(t - d (x - x0)/v), H_q = d eps_{pqa} E_p / eta.
        // Consistency corrections of the two updates that straddle the plane:
        //   E_p(i0)           += Cb A g(t + 1/(2v)) / eta   at t = (n+1/2) dt
        //   H_q(i0 - [d>0])   += d eps_{qap} Db A g(t)        at t = n dt
        // (the H_q sample sits half a cell upstream of the plane; its incident value leads by 1/(2v)).
        const int a = src.normal;
        int pol = (a + 1) % 3;
        if (std::abs(src.polarization[(a + 2) % 3]) > std::abs(src.polarization[pol]))
            pol = (a + 2) % 3;
        const int q = 3 - a - pol;
        const int d = src.direction >= 0 ? 1 : -1;
        const int i0 = int(std::lround(p.geom.toCells(a, src.center[a])));
        Index3 mc{};
        for (int b = 0; b < 3; ++b)
            mc[b] = p.geom.nearest(pol, b, src.center[b]);
        mc[a] = std::clamp(i0, 0, p.geom.cells[a] - 1);
        const scene::CellMaterial mat = p.raster->atE(pol, mc[0], mc[1], mc[2]);
        const double eta = std::sqrt(mat.mu / mat.eps), v = 1.0 / std::sqrt(mat.eps * mat.mu);
        const double sgn = src.polarization[pol] < 0 ? -1.0 : 1.0;
        auto [plo, phi] = rangeFor(p.geom, pol, pol, src.center[pol], src.size[pol]);
        auto [qlo, qhi] = rangeFor(p.geom, pol, q, src.center[q], src.size[q]);
        Injection ie, ih;
        ie.source = ih.source = int(si);
        ie.comp = pol;
        ie.shift = 0.5 / v;
        ih.comp = 3 + q;
        ih.shift = 0;
        const int iH = d > 0 ? i0 - 1 : i0;
        const double hs = d * levi(q, a, pol);
        for (int jq = qlo; jq < qhi; ++jq)
            for (int jp = plo; jp < phi; ++jp) {
                double A = 1;
                if (src.type == scene::SourceType::GaussianPlane) {
                    const double yp = p.geom.position(pol, pol, jp) - src.center[pol];
                    const double yq = p.geom.position(pol, q, jq) - src.center[q];
                    A = std::exp(-(yp * yp + yq * yq) / (src.waist * src.waist));
                }
                A *= sgn;
                Index3 ce{}, ch{};
                ce[a] = i0;
                ce[pol] = jp;
                ce[q] = jq;
                ch = ce;
                ch[a] = iH;
                if (i0 >= 0 && i0 < p.geom.cells[a]) {
                    ie.cells.push_back(ce);
                    ie.amp.push_back(A / eta);
                }
                if (iH >= 0 && iH < p.geom.cells[a]) {
                    ih.cells.push_back(ch);
                    ih.amp.push_back(hs * A);
                }
            }
        p.injections.push_back(std::move(ie));
        p.injections.push_back(std::move(ih));
    }

    return plan;
}

void setDesign(Plan& p, int d, std::vector<double> latent, double beta) {
    if (d < 0 || d >= int(p.scene.designs.size()))
        throw InputError("designs[" + std::to_string(d) + "]: no such design region");
    const std::string f = "designs[" + std::to_string(d) + "]";
    const std::size_t n = p.raster->designMap(d).size();
    if (latent.size() != n)
        throw InputError(f + ".latent: " + std::to_string(latent.size()) + " values, the region has " +
                         std::to_string(n) + " voxels");
    for (std::size_t i = 0; i < n; ++i)
        if (!(latent[i] >= 0 && latent[i] <= 1))
            throw InputError(f + ".latent[" + std::to_string(i) + "]: " + std::to_string(latent[i]) +
                             " is not in [0, 1]");
    if (!(beta >= 0) || !std::isfinite(beta))
        throw InputError(f + ".beta: must be a finite value >= 0");
    scene::Design& g = p.scene.designs[std::size_t(d)];
    g.latent = std::move(latent);
    g.beta = beta;
    // makePlan() made the rasteriser as a non-const object; the plan shares it read-only with its tiles,
    // which are idle between runs.
    const_cast<scene::Rasterizer&>(*p.raster).setDesign(d, p.scene);
}

} // namespace yee::solver
