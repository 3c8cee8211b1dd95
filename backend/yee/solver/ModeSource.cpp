#include "yee/solver/ModeSource.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "yee/core/Error.hpp"
#include "yee/modes/ModeCache.hpp"

namespace yee::solver {

namespace {
/// Levi-Civita symbol for axes 0..2.
int levi(int a, int b, int c) {
    if (a == b || b == c || a == c)
        return 0;
    return ((b - a + 3) % 3 == 1) ? 1 : -1;
}
} // namespace

bool onPecWalls(const Plan& p, const modes::ModeRequest& q) {
    for (int i = 0; i < 2; ++i) {
        const int b = (q.normal + 1 + i) % 3;
        if (q.pml != 0 || p.bc[std::size_t(b)] != tiling::AxisBoundary::Pec || q.lo[std::size_t(i)] != 0 ||
            q.hi[std::size_t(i)] != p.geom.cells[std::size_t(b)])
            return false;
    }
    return true;
}

modes::ModeRequest modeSourceRequest(const Plan& p, std::size_t si) {
    const scene::Source& src = p.scene.sources[si];
    const int a = src.normal, u = (a + 1) % 3, w = (a + 2) % 3;
    modes::ModeRequest q;
    q.normal = a;
    q.plane = std::clamp(int(std::lround(p.geom.toCells(a, src.center[a]))), 1, p.geom.cells[a] - 1);
    const int t[2] = {u, w};
    for (int i = 0; i < 2; ++i) {
        const int b = t[i];
        q.lo[std::size_t(i)] = std::clamp(
            int(std::lround(p.geom.toCells(b, src.center[b] - src.size[b] / 2))), 0, p.geom.cells[b]);
        q.hi[std::size_t(i)] =
            std::clamp(int(std::lround(p.geom.toCells(b, src.center[b] + src.size[b] / 2))),
                       q.lo[std::size_t(i)], p.geom.cells[b]);
    }
    q.omega = 2 * std::numbers::pi * p.scene.cellUm / src.profile.wavelength;
    q.dt = p.dt;
    q.count = src.mode + 1;
    q.nGuess = src.nGuess;
    q.pml = src.portPml;
    return q;
}

void planModeSource(Plan& p, std::size_t si) {
    const scene::Source& src = p.scene.sources[si];
    const modes::ModeRequest q = modeSourceRequest(p, si);
    const std::string field = "sources[" + std::to_string(si) + "].mode_index";
    const std::shared_ptr<const modes::ModeSet> set = p.modeCache->get(*p.raster, q, field);
    if (set->homogeneous && !onPecWalls(p, q))
        throw InputError("sources[" + std::to_string(si) +
                         "]: the port plane cuts no waveguide core (its cross-section is one material)");
    const modes::Mode& m = set->modes[std::size_t(src.mode)];
    // One-sided injection on the E plane i0 along a (total field on the side the mode travels into):
    // for each transverse pair (p, q), with E^inc = d e, H^inc = h of the mode travelling along d,
    //   E_p(i0)  += d eps_{qap} Cb H_q^inc(iH)   at t = (n + 1/2) dt, H^inc half a cell upstream
    //   H_q(iH)  += d eps_{qap} Db E_p^inc(i0)   at t = n dt,
    // iH = i0 - 1 for d > 0, i0 for d < 0. The half-cell lead of the upstream H sample is the phase
    // beta / 2, a time shift beta / (2 omega) of the profile (exact at the centre frequency; the mode is
    // solved there, so a broadband pulse launches the centre wavelength's mode at every frequency).
    const int a = q.normal, d = src.direction >= 0 ? 1 : -1;
    const int i0 = q.plane, iH = d > 0 ? i0 - 1 : i0;
    const int u = (a + 1) % 3, w = (a + 2) % 3;
    for (const int pc : {u, w}) {
        const int qc = 3 - a - pc;
        const double e = d * levi(qc, a, pc);
        Injection ie, ih;
        ie.source = ih.source = int(si);
        ie.comp = pc;
        ie.shift = m.beta / (2 * q.omega);
        ih.comp = 3 + qc;
        ih.shift = 0;
        for (int iu = 0; iu <= m.nu; ++iu)
            for (int iw = 0; iw <= m.nw; ++iw) {
                const double hq = m.at(3 + qc, iu, iw), ep = m.at(pc, iu, iw);
                if (hq == 0 && ep == 0)
                    continue;
                Index3 c{};
                c[a] = i0;
                c[u] = q.lo[0] + iu;
                c[w] = q.lo[1] + iw;
                if (hq != 0) {
                    ie.cells.push_back(c);
                    ie.amp.push_back(e * hq);
                }
                if (ep != 0) {
                    c[a] = iH;
                    ih.cells.push_back(c);
                    ih.amp.push_back(e * d * ep);
                }
            }
        p.injections.push_back(std::move(ie));
        p.injections.push_back(std::move(ih));
    }
}

} // namespace yee::solver
