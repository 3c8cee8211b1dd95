#include "yee/detectors/DetectorSet.hpp"

#include <algorithm>

#include "yee/core/Error.hpp"
#include "yee/detectors/Registry.hpp"

namespace yee::detectors {

void planDetectors(solver::Plan& p) {
    p.detectors.clear();
    for (std::size_t di = 0; di < p.scene.detectors.size(); ++di) {
        const Kind& k = kindOf(p.scene.detectors[di].type);
        DetectorPlan dp = k.plan(p.scene.detectors[di], int(di), p);
        dp.typeName = k.type();
        p.detectors.push_back(std::move(dp));
    }
}

template <class T> DetectorSet<T>::DetectorSet(solver::Tile<T>& tile) {
    std::int64_t stage = 0;
    for (const DetectorPlan& dp : tile.plan().detectors) {
        parts_.push_back(kindOf(dp).part(dp, tile));
        stage = std::max(stage, parts_.back()->stageCells());
    }
    for (auto& pt : parts_)
        pt->registerState(tile.state());
    fields_ = std::make_unique<FieldAccess<T>>(tile, stage);
}

template <class T> DetectorSet<T>::~DetectorSet() = default;

template <class T> void DetectorSet<T>::beforeStep(int n) {
    for (auto& pt : parts_)
        pt->beforeStep(n, *fields_);
}

template <class T> void DetectorSet<T>::record(int n) {
    for (auto& pt : parts_)
        pt->record(n, *fields_);
}

template <class T> std::vector<std::int64_t> DetectorSet<T>::sums() const {
    std::vector<std::int64_t> out;
    for (const auto& pt : parts_)
        pt->sums(out);
    return out;
}

template <class T> void DetectorSet<T>::write(ByteWriter& w) const {
    for (const auto& pt : parts_)
        pt->write(w);
}

void assemble(const solver::Plan& p, int done, const std::vector<std::int64_t>& sums,
              std::vector<ByteReader*>& readers, std::vector<solver::DetectorResult>& results,
              std::vector<solver::Snapshot>& snapshots) {
    std::size_t pos = 0;
    for (const DetectorPlan& dp : p.detectors) {
        const Kind& k = kindOf(dp);
        solver::DetectorResult res;
        res.name = dp.name;
        res.type = k.type();
        Gathered g{p, done, sums.data() + pos, readers, snapshots};
        k.assemble(dp, g, res);
        pos += std::size_t(k.sumWords(dp));
        results.push_back(std::move(res));
    }
}

std::vector<double> termValues(const solver::Plan& p, const std::vector<scene::ObjectiveTerm>& terms,
                               const std::vector<solver::DetectorResult>& dets) {
    std::vector<double> v;
    for (const auto& t : terms) {
        const solver::DetectorResult* dr = nullptr;
        const DetectorPlan* dp = nullptr;
        for (std::size_t i = 0; i < dets.size(); ++i)
            if (dets[i].name == t.detector) {
                dr = &dets[i];
                dp = &p.detectors[i];
            }
        if (!dr)
            throw InputError("objective.terms: unknown detector \"" + t.detector + "\"");
        v.push_back(kindOf(*dp).objective(*dp, t, *dr, p));
    }
    return v;
}

std::optional<double> evaluateObjective(const solver::Plan& p,
                                        const std::vector<solver::DetectorResult>& dets) {
    const scene::Objective& obj = p.scene.objective;
    if (!obj.defined())
        return std::nullopt;
    const std::vector<double> v = termValues(p, obj.terms, dets);
    double total = 0;
    for (std::size_t t = 0; t < v.size(); ++t)
        total += obj.terms[t].weight * v[t];
    return total;
}

template class DetectorSet<float>;
template class DetectorSet<double>;

} // namespace yee::detectors
