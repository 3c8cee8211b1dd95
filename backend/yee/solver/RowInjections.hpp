#pragma once
/// \file RowInjections.hpp
/// The H-side injections of a tile (sources' magnetic parts, TF/SF and mode-source corrections) sorted
/// by row, for the fused H-then-E pass of CPU devices (Tile::stepFused): the pass adds a row's
/// injections right after that row's H update, before any E update reads those H cells. Entries whose
/// cell lies outside the fused pass' H box are added after that box's remaining H updates (applyRest).
///
/// Bits: every entry is the kernels::Inject operation the two-sweep step launches, field[offset] +=
/// coef * amplitude, with the same amplitude; a cell held by several injections (or listed twice) gets
/// its additions in the two-sweep order (injection by injection, entry by entry), each after the cell's
/// complete H update, so its value is the two-sweep one.
#include <cstdint>
#include <vector>

#include "yee/core/Box.hpp"
#include "yee/kernels/Yee.hpp"

namespace yee::solver {

template <class T> class RowInjections {
public:
    /// Empty: no injection, applyRow and applyRest do nothing.
    RowInjections() = default;

    /// Start a table for the rows (j, k) and the x range of `fused` (tile-local cells): entries inside
    /// it go to their row, the rest to the "rest" list. Drops any earlier table.
    void reset(const Box& fused) {
        fused_ = fused;
        sources_.clear();
        rest_.clear();
        pending_.clear();
        rowStart_.clear();
        rowEntries_.clear();
    }

    /// Add one injection: `field` (the component's buffer), `offset` and `coef` (its entries' buffer
    /// offsets and coefficients, device memory a CPU device's host can read, valid from fill() on) and
    /// the tile-local cell of each entry, in entry order. Returns its index for setAmplitude(). The
    /// pointers are not owned and must outlive the table.
    int add(T* field, const std::int64_t* offset, const T* coef, const std::vector<Index3>& cells) {
        const int q = int(sources_.size());
        sources_.push_back({field, offset, coef, T(0)});
        for (std::size_t n = 0; n < cells.size(); ++n) {
            const Index3& c = cells[n];
            if (fused_.contains(c))
                pending_.push_back({rowOf(c[1], c[2]), q, std::int64_t(n)});
            else
                rest_.push_back({0, q, std::int64_t(n)});
        }
        return q;
    }

    /// After the last add(): sort the entries by row, keeping their order within a row.
    void finish() {
        const std::int64_t rows = std::int64_t(fused_.extent(1)) * fused_.extent(2);
        rowStart_.assign(pending_.empty() ? 0 : std::size_t(rows + 1), 0);
        if (pending_.empty())
            return;
        for (const Entry& e : pending_)
            ++rowStart_[std::size_t(e.row + 1)];
        for (std::size_t r = 0; r < std::size_t(rows); ++r)
            rowStart_[r + 1] += rowStart_[r];
        rowEntries_.resize(pending_.size());
        std::vector<std::int64_t> next(rowStart_.begin(), rowStart_.end() - 1);
        for (const Entry& e : pending_)
            rowEntries_[std::size_t(next[std::size_t(e.row)]++)] = e;
        pending_.clear();
        pending_.shrink_to_fit();
    }

    /// The amplitude of injection q for the coming step (the value Tile::inject gives its launch).
    void setAmplitude(int q, T amp) { sources_[std::size_t(q)].amp = amp; }

    /// Whether any entry lies in a row of the fused box.
    bool anyRows() const { return !rowEntries_.empty(); }

    /// Add the entries of row (j, k) of the fused box (call right after that row's H update).
    void applyRow(int j, int k) const {
        if (rowEntries_.empty())
            return;
        const std::int64_t r = rowOf(j, k);
        for (std::int64_t e = rowStart_[std::size_t(r)]; e < rowStart_[std::size_t(r + 1)]; ++e)
            apply(rowEntries_[std::size_t(e)]);
    }

    /// Add the entries outside the fused box, in order (call after their cells' H updates).
    void applyRest() const {
        for (const Entry& e : rest_)
            apply(e);
    }

private:
    struct Source {
        T* field;
        const std::int64_t* offset;
        const T* coef;
        T amp;
    };
    struct Entry {
        std::int64_t row;
        int q;
        std::int64_t n;
    };

    std::int64_t rowOf(int j, int k) const {
        return std::int64_t(j - fused_.lo[1]) + std::int64_t(fused_.extent(1)) * (k - fused_.lo[2]);
    }
    void apply(const Entry& e) const {
        const Source& s = sources_[std::size_t(e.q)];
        kernels::Inject<T>{s.field, s.offset, s.coef, s.amp}(e.n);
    }

    Box fused_;
    std::vector<Source> sources_;
    std::vector<Entry> rest_, pending_, rowEntries_;
    std::vector<std::int64_t> rowStart_;
};

} // namespace yee::solver
