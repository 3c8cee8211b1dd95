#pragma once
/// \file DetectorSet.hpp
/// Every detector of a run, through the kind interface only: planning (planDetectors), the parts on one
/// tile and their per-step recording (DetectorSet), the output reduction and rank-0 assembly into
/// results (assemble), and the objective's value (evaluateObjective).
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "yee/core/Bytes.hpp"
#include "yee/detectors/Detector.hpp"

namespace yee::detectors {

/// Plan every scene detector (fills p.detectors in scene order). Call once after solver::makePlan().
void planDetectors(solver::Plan& p);

/// The detector parts of one tile.
template <class T> class DetectorSet {
public:
    /// Make every detector's part on `tile` (allocating through its device, dry-run aware) and register
    /// their accumulators in the tile's state registry, after the tile's own entries.
    explicit DetectorSet(solver::Tile<T>& tile);
    ~DetectorSet();
    DetectorSet(const DetectorSet&) = delete;
    DetectorSet& operator=(const DetectorSet&) = delete;

    /// Before forward step n.
    void beforeStep(int n);
    /// After forward step n.
    void record(int n);
    /// This tile's words of the one output integer all-reduce (the same length on every tile).
    std::vector<std::int64_t> sums() const;
    /// This tile's part of the one output gather.
    void write(ByteWriter& w) const;
    /// Part of detector `i` (plan order).
    const TilePart<T>& part(std::size_t i) const { return *parts_[i]; }
    /// Number of detectors.
    std::size_t size() const { return parts_.size(); }

private:
    std::vector<std::unique_ptr<TilePart<T>>> parts_;
    std::unique_ptr<FieldAccess<T>> fields_;
};

/// Rank 0: assemble every detector from the all-reduced words `sums` and every rank's gather blob
/// (`readers`, positioned at the detectors' parts), appending to `results` (plan order) and `snapshots`.
void assemble(const solver::Plan& p, int done, const std::vector<std::int64_t>& sums,
              std::vector<ByteReader*>& readers, std::vector<solver::DetectorResult>& results,
              std::vector<solver::Snapshot>& snapshots);

/// The objective (sign not applied: the weighted sum of the terms) from assembled results; nullopt when
/// the scene has none. Throws InputError for a term its detector cannot answer.
/// The unweighted value of each of `terms` (objective terms, or constrained terms) from assembled results.
/// Throws InputError for a term naming no detector.
std::vector<double> termValues(const solver::Plan& p, const std::vector<scene::ObjectiveTerm>& terms,
                               const std::vector<solver::DetectorResult>& dets);
std::optional<double> evaluateObjective(const solver::Plan& p,
                                        const std::vector<solver::DetectorResult>& dets);

extern template class DetectorSet<float>;
extern template class DetectorSet<double>;

} // namespace yee::detectors
