#include "yee/opt/LengthScale.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "yee/scene/DesignMap.hpp"

namespace yee::opt {

LengthScaleValues lengthScaleConstraints(const scene::Scene& s, std::size_t d,
                                         const std::vector<double>& latent, double beta) {
    scene::Scene one = s;
    one.designs.at(d).beta = beta;
    const scene::DesignMap map(one, d);
    if (latent.size() != map.size())
        throw std::invalid_argument("lengthScaleConstraints: latent size mismatch");
    // The filter alone (beta 0: the projection is the identity), for its transpose.
    scene::Scene plain = one;
    plain.designs[d].beta = 0;
    const scene::DesignMap filterOnly(plain, d);
    const std::vector<double> f = map.filter(latent);
    const auto n = map.voxels();
    const std::size_t N = f.size();
    const auto& g = s.designs[d];
    const double voxel = s.cellUm * *std::min_element(g.voxelCells.begin(), g.voxelCells.end());
    const double rv = s.designFilterRadius(d) / voxel;
    const double c = rv * rv * rv * rv;
    auto at = [&](int i, int j, int k) {
        return std::size_t(i) + std::size_t(n[0]) * (std::size_t(j) + std::size_t(n[1]) * std::size_t(k));
    };
    // Central differences (clamped at the faces) along each axis of more than one voxel.
    std::vector<std::array<double, 3>> D(N, {0, 0, 0});
    std::vector<std::array<std::array<std::size_t, 2>, 3>> nb(N);
    for (int k = 0; k < n[2]; ++k)
        for (int j = 0; j < n[1]; ++j)
            for (int i = 0; i < n[0]; ++i) {
                const std::size_t q = at(i, j, k);
                const int idx[3] = {i, j, k};
                for (int a = 0; a < 3; ++a) {
                    int lo[3] = {i, j, k}, hi[3] = {i, j, k};
                    lo[a] = std::max(idx[a] - 1, 0);
                    hi[a] = std::min(idx[a] + 1, n[std::size_t(a)] - 1);
                    const std::size_t ql = at(lo[0], lo[1], lo[2]), qh = at(hi[0], hi[1], hi[2]);
                    const double span = double(hi[a] - lo[a]);
                    nb[q][std::size_t(a)] = {ql, qh};
                    D[q][std::size_t(a)] = span > 0 ? (f[qh] - f[ql]) / span : 0.0;
                }
            }
    LengthScaleValues r;
    std::vector<double> gs(N, 0.0), gv(N, 0.0); // d g / d rhof
    for (std::size_t q = 0; q < N; ++q) {
        const double G = D[q][0] * D[q][0] + D[q][1] * D[q][1] + D[q][2] * D[q][2];
        const double E = std::exp(-c * G);
        const double rho = map.project(f[q]);
        const double dRho = map.projectDerivative(f[q]);
        const double ms = std::min(f[q] - kEtaEroded, 0.0), mv = std::min(kEtaDilated - f[q], 0.0);
        const double Ss = ms * ms, Sv = mv * mv;
        r.solid += rho * E * Ss;
        r.voids += (1 - rho) * E * Sv;
        gs[q] += dRho * E * Ss + rho * E * 2 * ms;
        gv[q] += -dRho * E * Sv + (1 - rho) * E * (-2 * mv);
        // Through E: dE = -c E dG, dG = 2 sum_a D_a dD_a, dD_a = (d f_hi - d f_lo) / span.
        const double ws = rho * Ss * E * (-c), wv = (1 - rho) * Sv * E * (-c);
        for (int a = 0; a < 3; ++a) {
            const auto [ql, qh] = nb[q][std::size_t(a)];
            if (ql == qh)
                continue;
            const int stride = a == 0 ? 1 : a == 1 ? n[0] : n[0] * n[1];
            const double sp = double((qh - ql) / std::size_t(stride));
            const double k2 = 2 * D[q][std::size_t(a)] / sp;
            gs[qh] += ws * k2;
            gs[ql] -= ws * k2;
            gv[qh] += wv * k2;
            gv[ql] -= wv * k2;
        }
    }
    r.solid /= double(N);
    r.voids /= double(N);
    for (std::size_t q = 0; q < N; ++q) {
        gs[q] /= double(N);
        gv[q] /= double(N);
    }
    r.dSolid = filterOnly.backward(latent, gs);
    r.dVoid = filterOnly.backward(latent, gv);
    return r;
}

} // namespace yee::opt
