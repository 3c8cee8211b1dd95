#pragma once
/// \file DesignMap.hpp
/// The parameter chain of one design region:
///   latent x (voxel grid, x fastest, values in [0, 1])
///   -> optional density filter  xf = W x      (linear cone of radius R over voxel centres,
///                                              weights renormalised over voxels inside the region)
///   -> tanh projection          rho = (tanh(b e) + tanh(b (xf - e))) / (tanh(b e) + tanh(b (1 - e)))
///                                     (b = beta, e = eta; beta = 0 is the identity)
///   -> density rho in [0, 1]    -> eps = epsMin + rho (epsMax - epsMin).
/// forward() evaluates the chain, backward() is its exact vector-Jacobian product. Double precision,
/// deterministic (fixed summation order), no hidden state: thread-safe for concurrent calls.
#include <array>
#include <cstddef>
#include <vector>

#include "yee/scene/Scene.hpp"

namespace yee::scene {

/// Latent -> density map of one design region.
class DesignMap {
public:
    /// Map with `voxels` voxels per axis of `voxelUm` um edge, filter radius `filterRadiusUm` um
    /// (0 or smaller than the voxel spacing: no filtering), projection (beta, eta) and the two
    /// permittivities. Throws std::invalid_argument for non-positive voxel counts/sizes.
    DesignMap(std::array<int, 3> voxels, Vec3 voxelUm, double filterRadiusUm, double beta, double eta,
              double epsMin, double epsMax);
    /// Map of design `d` of a validated scene (voxel size = voxelCells * cellUm per axis).
    DesignMap(const Scene& s, std::size_t d);

    /// Voxel counts per axis.
    std::array<int, 3> voxels() const { return n_; }
    /// Number of latent parameters (product of voxels()).
    std::size_t size() const { return size_; }
    /// True when a filter is applied (some voxel has a neighbour within the radius).
    bool filtered() const { return stencil_.size() > 1; }

    /// Density rho (in [0, 1] for latent in [0, 1]) for every voxel. Throws std::invalid_argument
    /// when latent.size() != size().
    std::vector<double> forward(const std::vector<double>& latent) const;
    /// dJ/dlatent given dJ/drho at `latent` (exact adjoint of filter and projection). Throws
    /// std::invalid_argument on size mismatch.
    std::vector<double> backward(const std::vector<double>& latent, const std::vector<double>& dJdRho) const;

    /// Filter stage alone (xf = W x).
    std::vector<double> filter(const std::vector<double>& latent) const;
    /// Projection of one filtered value.
    double project(double xf) const;
    /// d project / d xf.
    double projectDerivative(double xf) const;

    /// Relative permittivity for density rho.
    double eps(double rho) const { return epsMin_ + rho * (epsMax_ - epsMin_); }
    /// d eps / d rho.
    double epsDerivative() const { return epsMax_ - epsMin_; }

private:
    struct Tap {
        int di, dj, dk;
        double w;
    };
    std::array<int, 3> n_{};
    std::size_t size_ = 0;
    std::vector<Tap> stencil_; ///< offsets within the filter radius (self included), unnormalised weights
    std::vector<double> norm_; ///< per voxel: 1 / (sum of weights of the in-region taps)
    double beta_ = 0, eta_ = 0.5, epsMin_ = 1, epsMax_ = 1;
    double projDen_ = 1; ///< tanh(b e) + tanh(b (1 - e))

    void check(std::size_t n, const char* what) const;
};

} // namespace yee::scene
