#pragma once
/// \file Wavefront.hpp
/// The switch and the counters of the fused H-then-E pass of CPU devices (Tile::stepFused,
/// kernels/Wavefront.hpp). The pass is on by default on every non-staged device; `YEE_WAVEFRONT=0` in
/// the environment, read when a tile is built, turns it off (the two-sweep step: A/B benches and the
/// bit-identity test). Staged devices (GPUs, CPU devices emulating their data paths) always take the
/// two-sweep step; the adjoint step's fused pass follows the same switch, and YEE_ADJOINT_WAVEFRONT=0
/// turns off that one alone. `YEE_WAVEFRONT_SLAB_PLANES=N` sets the fewest planes per thread slab,
/// `YEE_WAVEFRONT_BLOCK_ROWS=N` the rows per column block (benches).
#include <cstdint>

namespace yee::solver {

/// Process-wide counts of cell updates (an H and an E update of one cell count two) since the last
/// reset, summed over tiles and threads.
struct WavefrontCounts {
    std::int64_t fused = 0;    ///< updates in the fused pass
    std::int64_t swept = 0;    ///< updates of fused-path steps left to separate sweeps: the cells next to
                               ///< a tile cut, which wait for a halo (restH/restE faces)
    std::int64_t twoSweep = 0; ///< updates of steps taken by the two-sweep path on CPU devices
    /// The adjoint step's (gradient::AdjointStepper, CPU devices; a Q and a P update of one cell count
    /// two): updates in its fused pass, and in its two sweeps.
    std::int64_t adjointFused = 0;
    std::int64_t adjointTwoSweep = 0;
    /// Adjoint steps whose fused pass also ran forward rows (the reversible strategy's inverse updates,
    /// gradient::AdjointPassRows).
    std::int64_t adjointWithRows = 0;
};

class Wavefront {
public:
    /// Whether the fused pass is allowed by the environment (YEE_WAVEFRONT unset, or not "0").
    static bool enabledByEnvironment();
    /// Whether the adjoint's fused pass (gradient::AdjointStepper) is allowed: enabledByEnvironment()
    /// and YEE_ADJOINT_WAVEFRONT unset or not "0" (A/B benches of the reverse sweep alone).
    static bool adjointEnabledByEnvironment();
    /// The fewest planes per thread slab of the fused pass (kernels::wavefrontSlabs): 8, or
    /// YEE_WAVEFRONT_SLAB_PLANES when it is a positive integer (tests force thin slabs with it).
    static int slabPlanes();
    /// Rows per column block of the fused pass (kernels::wavefrontRows) for rows of `rowBytes` bytes of
    /// one array: about 1 MiB of the ~12 arrays a row update touches per block-plane, at least 8 rows; or
    /// YEE_WAVEFRONT_BLOCK_ROWS when it is an integer (0: whole planes).
    static int blockRows(std::int64_t rowBytes);
    /// The counts so far.
    static WavefrontCounts counts();
    /// Zero the counts.
    static void resetCounts();
    /// Add to the counts (Tile::step, once per step and tile).
    static void count(std::int64_t fused, std::int64_t swept, std::int64_t twoSweep);
    /// Add to the adjoint's counts (AdjointStepper::step, once per step and tile).
    static void countAdjoint(std::int64_t fused, std::int64_t twoSweep, std::int64_t withRows = 0);
};

} // namespace yee::solver
