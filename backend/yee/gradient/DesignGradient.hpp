#pragma once
/// \file DesignGradient.hpp
/// The design-region gradient of one tile: the owned design cells, their capture points (the E field at
/// each cell, all three components), the per-cell accumulation of dJ/deps during the reverse sweep, and
/// the assembly of every tile's cells into dJ/dlatent per design (rank 0).
#include <cstdint>
#include <vector>

#include "yee/core/Bytes.hpp"
#include "yee/gradient/PointList.hpp"
#include "yee/solver/Plan.hpp"
#include "yee/solver/Result.hpp"
#include "yee/solver/Tile.hpp"

namespace yee::gradient {

template <class T> class DesignGradient {
public:
    /// Finds the design cells `tile` owns and allocates their gradient (3 doubles per cell, category
    /// Adjoint; dry-run aware). The tile must outlive this object.
    explicit DesignGradient(solver::Tile<T>& tile);

    /// Append the design's capture points to `points`: for each owned design cell in global (k, j, i)
    /// order, Ex, Ey, Ez at the cell. They must be the first capture points (accumulate() reads them
    /// there).
    void appendPoints(std::vector<FieldPoint>& points) const;
    /// Number of capture points appendPoints() adds (3 per owned design cell).
    int pointCount() const { return int(3 * cells_.size()); }

    /// One reverse step n: dJ/deps += -P (E^{n+1} - E^n) / dt per cell and component, with `p` the adjoint
    /// P at the design's capture points and `after`, `before` the capture values E^{n+1}, E^n (whose first
    /// pointCount() entries are the design's).
    void accumulate(const std::vector<T>& p, const std::vector<T>& after, const std::vector<T>& before);

    /// Append this tile's design cells (global linear index), their design region and dJ/deps ([cell][3])
    /// to a gather blob.
    void serialize(ByteWriter& w) const;
    /// Rank 0: read one serialize() part per reader (in rank order), place the per-cell gradients in
    /// global order, sum per voxel in that order (so the result does not depend on the tile grid) and
    /// chain through each design map. Returns one array per design, named after it, shape [vz, vy, vx]
    /// (latent coordinates). With `recomputed` / `drift`, each blob's part is followed by the tile's
    /// counters (int64 recomputed steps, double drift), stored per reader.
    static std::vector<solver::NamedArray> assemble(const solver::Plan& p, std::vector<ByteReader*>& readers,
                                                    std::vector<std::int64_t>* recomputed,
                                                    std::vector<double>* drift);

private:
    solver::Tile<T>& tile_;
    std::vector<std::int64_t> cells_; ///< global linear index per owned design cell
    std::vector<int> regions_;        ///< design region per owned design cell
    std::vector<FieldPoint> points_;  ///< 3 per cell (Ex, Ey, Ez)
    device::Buffer<double> grad_;     ///< [cell][3] dJ/deps
};

extern template class DesignGradient<float>;
extern template class DesignGradient<double>;

} // namespace yee::gradient
