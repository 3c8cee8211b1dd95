#include "yee/scene/DesignMap.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace yee::scene {

DesignMap::DesignMap(std::array<int, 3> voxels, Vec3 voxelUm, double filterRadiusUm, double beta, double eta,
                     double epsMin, double epsMax)
    : n_(voxels), beta_(beta), eta_(eta), epsMin_(epsMin), epsMax_(epsMax) {
    for (int a = 0; a < 3; ++a)
        if (n_[a] < 1 || !(voxelUm[a] > 0))
            throw std::invalid_argument("DesignMap: voxel counts and sizes must be > 0");
    size_ = std::size_t(n_[0]) * std::size_t(n_[1]) * std::size_t(n_[2]);

    // Cone filter w(d) = 1 - d / R over voxel-centre distances d < R, truncated at the region's edges
    // and renormalised there (a voxel near an edge averages only over the voxels that exist).
    std::array<int, 3> reach{0, 0, 0};
    if (filterRadiusUm > 0)
        for (int a = 0; a < 3; ++a)
            reach[a] = int(std::min(double(n_[a] - 1), std::floor(filterRadiusUm / voxelUm[a])));
    for (int dk = -reach[2]; dk <= reach[2]; ++dk)
        for (int dj = -reach[1]; dj <= reach[1]; ++dj)
            for (int di = -reach[0]; di <= reach[0]; ++di) {
                const double x = di * voxelUm[0], y = dj * voxelUm[1], z = dk * voxelUm[2];
                const double d = std::sqrt(x * x + y * y + z * z);
                const bool self = di == 0 && dj == 0 && dk == 0;
                if (self || d < filterRadiusUm)
                    stencil_.push_back({di, dj, dk, self ? 1.0 : 1.0 - d / filterRadiusUm});
            }
    norm_.assign(size_, 1.0);
    if (stencil_.size() > 1) {
        for (int k = 0; k < n_[2]; ++k)
            for (int j = 0; j < n_[1]; ++j)
                for (int i = 0; i < n_[0]; ++i) {
                    double sum = 0;
                    for (const Tap& t : stencil_) {
                        const int a = i + t.di, b = j + t.dj, c = k + t.dk;
                        if (a >= 0 && a < n_[0] && b >= 0 && b < n_[1] && c >= 0 && c < n_[2])
                            sum += t.w;
                    }
                    norm_[std::size_t(i) + std::size_t(n_[0]) * (std::size_t(j) + std::size_t(n_[1]) * k)] =
                        1.0 / sum;
                }
    }
    if (beta_ > 0)
        projDen_ = std::tanh(beta_ * eta_) + std::tanh(beta_ * (1 - eta_));
}

namespace {

DesignMap fromScene(const Scene& s, std::size_t d) {
    const Design& g = s.designs.at(d);
    const Material* m0 = s.findMaterial(g.materials[0]);
    const Material* m1 = s.findMaterial(g.materials[1]);
    if (!m0 || !m1)
        throw std::invalid_argument("DesignMap: design " + g.name + " names an unknown material");
    const Vec3 vox{g.voxelCells[0] * s.cellUm, g.voxelCells[1] * s.cellUm, g.voxelCells[2] * s.cellUm};
    return DesignMap(s.designVoxels(d), vox, s.designFilterRadius(d), g.beta, g.eta, m0->eps, m1->eps);
}

} // namespace

DesignMap::DesignMap(const Scene& s, std::size_t d) : DesignMap(fromScene(s, d)) {}

void DesignMap::check(std::size_t n, const char* what) const {
    if (n != size_)
        throw std::invalid_argument(std::string("DesignMap: ") + what + " has " + std::to_string(n) +
                                    " values, expected " + std::to_string(size_));
}

std::vector<double> DesignMap::filter(const std::vector<double>& x) const {
    check(x.size(), "latent");
    if (stencil_.size() <= 1)
        return x;
    std::vector<double> y(size_, 0.0);
    const std::size_t sx = 1, sy = std::size_t(n_[0]), sz = sy * std::size_t(n_[1]);
    for (int k = 0; k < n_[2]; ++k)
        for (int j = 0; j < n_[1]; ++j)
            for (int i = 0; i < n_[0]; ++i) {
                const std::size_t o = i * sx + j * sy + k * sz;
                double acc = 0;
                for (const Tap& t : stencil_) {
                    const int a = i + t.di, b = j + t.dj, c = k + t.dk;
                    if (a >= 0 && a < n_[0] && b >= 0 && b < n_[1] && c >= 0 && c < n_[2])
                        acc += t.w * x[a * sx + b * sy + c * sz];
                }
                y[o] = acc * norm_[o];
            }
    return y;
}

double DesignMap::project(double xf) const {
    if (beta_ <= 0)
        return xf;
    return (std::tanh(beta_ * eta_) + std::tanh(beta_ * (xf - eta_))) / projDen_;
}

double DesignMap::projectDerivative(double xf) const {
    if (beta_ <= 0)
        return 1.0;
    const double t = std::tanh(beta_ * (xf - eta_));
    return beta_ * (1 - t * t) / projDen_;
}

std::vector<double> DesignMap::forward(const std::vector<double>& latent) const {
    std::vector<double> rho = filter(latent);
    for (double& r : rho)
        r = project(r);
    return rho;
}

std::vector<double> DesignMap::backward(const std::vector<double>& latent,
                                        const std::vector<double>& dJdRho) const {
    check(dJdRho.size(), "dJ/drho");
    const std::vector<double> xf = filter(latent);
    // Through the projection: g_f = dJ/drho * rho'(xf).
    std::vector<double> gf(size_);
    for (std::size_t v = 0; v < size_; ++v)
        gf[v] = dJdRho[v] * projectDerivative(xf[v]);
    if (stencil_.size() <= 1)
        return gf;
    // Through the filter: g_x = W^T g_f with W_oj = w(o - j) * norm_o, scattered in a fixed order.
    std::vector<double> gx(size_, 0.0);
    const std::size_t sy = std::size_t(n_[0]), sz = sy * std::size_t(n_[1]);
    for (int k = 0; k < n_[2]; ++k)
        for (int j = 0; j < n_[1]; ++j)
            for (int i = 0; i < n_[0]; ++i) {
                const std::size_t o = i + j * sy + k * sz;
                const double g = gf[o] * norm_[o];
                for (const Tap& t : stencil_) {
                    const int a = i + t.di, b = j + t.dj, c = k + t.dk;
                    if (a >= 0 && a < n_[0] && b >= 0 && b < n_[1] && c >= 0 && c < n_[2])
                        gx[a + b * sy + c * sz] += t.w * g;
                }
            }
    return gx;
}

} // namespace yee::scene
