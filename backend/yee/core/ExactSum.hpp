#pragma once
/// \file ExactSum.hpp
/// Order-independent exact summation of doubles (a long fixed-point accumulator).
///
/// Why: a detector that spans tiles sums per-cell contributions. A floating-point sum depends on the
/// order of the additions, so a 4-tile run would differ in the last bits from the single-domain run.
/// Accumulating every term exactly (into 32-bit digits held in int64 words, covering the whole double
/// exponent range) makes the sum independent of order and of the tile count; it is rounded to a
/// double once, deterministically, at the very end.
#include <array>
#include <cstdint>
#include <span>

namespace yee {

class ExactSum {
public:
    static constexpr int kWords = 70;    ///< 32-bit digits (2240 bits) cover every finite double
    static constexpr int kOffset = 1126; ///< bit position of 2^0

    /// Add x exactly. Non-finite x marks the sum non-finite (NaN result).
    void add(double x);
    /// Add x*y exactly (error-free product via FMA).
    void addProduct(double x, double y);
    /// Add another accumulator exactly.
    void merge(const ExactSum& o);
    /// Carry-normalise to the unique canonical form (every word but the last in [0, 2^32)).
    void normalize();
    /// The sum rounded to double (deterministic function of the exact value).
    double value() const;
    void clear();
    /// Raw words (normalised first by the caller for canonical content); used to reduce across ranks.
    std::span<const std::int64_t> words() const { return w_; }
    std::span<std::int64_t> words() { return w_; }
    bool nonFinite() const { return nonFinite_ != 0; }

private:
    std::array<std::int64_t, kWords> w_{};
    std::int64_t nonFinite_ = 0;
    std::int64_t pending_ = 0;
};

} // namespace yee
