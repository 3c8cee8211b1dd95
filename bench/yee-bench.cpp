/// yee-bench: forward-solver throughput on a 3-D box with CPML on all faces (the same box as
/// ../shared/bench/meep_box.py: N^3 cells including 10-cell PML, eps = 2.25, one Ez dipole).
/// Prints Mcell-updates/s in float32 and float64, the bytes each cell update moves, a read-modify-write
/// bandwidth measured in this same run, and the resulting fraction of the memory roofline. With
/// --decomposed it also runs decomposed grids on emulated devices and prints their throughput ratio to the
/// single-domain run.
///
/// With --gpus LIST (`0`, `0,1`, `all`) the same box runs on CUDA GPUs instead (a larger grid, --gpu-n):
/// Gcell-updates/s in float32 and float64 on the first listed GPU, the same bytes-per-cell model, the
/// GPU's peak HBM bandwidth and the fraction of that roofline; then every launch shape side by side
/// ("gpu:0 float32 launch plain z_planes 1 ...", "... launch z_march block_z 16 ...": Gcell/s, the
/// fraction of the roofline of the GPU traffic model and of the 48-byte ideal, the ratio to the plain
/// launch), so one GPU run decides the default (cuda::cellBlocking()); with two or more GPUs also the box
/// cut in x over all of them (NCCL and LocalComm halos). With --gradient, value-and-grad time and per-GPU
/// peak memory on the waveguide scene on 1 GPU and on 2 GPUs. Without a GPU it says why ("nothing measured")
/// and exits 0, or 1 when YEE_GPU_REQUIRED=1 (the GPU bundle runner's mode on a machine that lists a
/// GPU). --cuda-info prints the CUDA runtime and driver versions and the visible GPUs (exit 1 when there
/// are none and YEE_GPU_REQUIRED=1).
///
/// With --shared-cores SCENE: the scene's forward run and value-and-grad, each alone and then next to a
/// competing busy job (a child process with --busy-threads threads, default 2), and the slowdowns.
/// With --scaling: thread scaling 1 -> 2 and the halo overlap on against off, alone and next to a busy job.
/// With --dispersive: the box half filled with a 2-pole Lorentz material against the same box without
/// poles (issue 13's benchmark): time ratio, cost per dispersive cell and its bytes.
/// With --wavefront: the fused H-then-E pass of CPU devices against the two-sweep step (issue 17), per
/// wall-clock and per CPU second, and thread scaling of each.
/// With --ab VAR [--threads T]: the forward path with the environment switch VAR=1 against VAR=0 (e.g.
/// YEE_MATERIAL_RUNS, YEE_HUGEPAGES), alternating, per wall-clock and per CPU second.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <csignal>
#include <ctime>
#include <thread>

#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "yee/core/Error.hpp"
#include "yee/core/Simd.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/device/Device.hpp"
#include "yee/kernels/Launch.hpp"
#include "yee/run/Run.hpp"
#include "yee/scene/Scene.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/solver/Wavefront.hpp"

using namespace yee;

namespace {

/// One line per device: peak memory and its categories (MiB).
void printPeaks(const std::vector<solver::DeviceSummary>& devices) {
    for (const auto& d : devices) {
        std::printf("    %s peak %.2f MiB:", d.name.c_str(), double(d.memory.peakTotal) / 1048576.0);
        for (int c = 0; c < device::kCategoryCount; ++c)
            if (d.memory.peak[c] > 0)
                std::printf(" %s=%.2f", device::categoryName(device::Category(c)),
                            double(d.memory.peak[c]) / 1048576.0);
        std::printf("\n");
    }
}

/// Values moved per cell update by the two sweeps (lossless, non-magnetic kernels):
/// H: read+write H (6) + read E (3); E: read+write E (6) + read H (3) + read Cb (3) = 21 values.
constexpr double kValuesPerCell = 21;
/// The same for the fused H-then-E pass of CPU devices (solver/Wavefront.hpp), where E reads the H it
/// has just updated from cache: read+write H (6) + read+write E (6) + read Cb (3) = 15 values.
constexpr double kValuesPerCellFused = 15;
double bytesPerCell(run::Precision p) {
    const double v = solver::Wavefront::enabledByEnvironment() ? kValuesPerCellFused : kValuesPerCell;
    return v * (p == run::Precision::Float32 ? 4 : 8);
}
const char* precisionName(run::Precision p) {
    return p == run::Precision::Float32 ? "float32" : "float64";
}

scene::Scene benchScene(int n, int pml, int steps) {
    scene::Scene s;
    s.name = "bench box";
    s.cellUm = 0.1;
    s.courant = 0.99;
    s.domainSize = {n * s.cellUm, n * s.cellUm, n * s.cellUm};
    for (auto& b : s.boundaries) {
        b.type = scene::BoundaryType::Pml;
        b.cells = pml;
    }
    scene::Material m;
    m.name = "medium";
    m.eps = 2.25;
    s.materials.push_back(m);
    s.background = "medium";
    scene::Source src;
    src.name = "dipole";
    src.type = scene::SourceType::PointDipole;
    src.polarization = {0, 0, 1};
    src.profile.wavelength = 1.0;
    src.profile.bandwidth = 0.5;
    s.sources.push_back(src);
    s.durationFs = (steps - 0.5) * s.dtFs();
    return s;
}

/// Read-modify-write bandwidth a += s*b (the FDTD access pattern), GB/s, best of several passes.
double rmwBandwidth(int threads) {
    const std::size_t n = std::size_t(1) << 25; // 2 x 128 MiB of float: well beyond the caches
    device::Device dev(device::DeviceKind::Cpu, 0, threads, std::int64_t(1) << 40);
    device::Buffer<float> a(dev, std::int64_t(n), device::Category::Staging);
    device::Buffer<float> b(dev, std::int64_t(n), device::Category::Staging);
    float* pa = a.data();
    const float* pb = b.data();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < n; ++i)
        pa[i] = 1.0f;
    double best = 0;
    for (int rep = 0; rep < 6; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (std::size_t i = 0; i < n; ++i)
            pa[i] += 0.5f * pb[i];
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = std::max(best, 3.0 * sizeof(float) * double(n) / s / 1e9);
    }
    return best;
}

/// The scaled-down motivating case: a strip waveguide (n = 2.0 core in n = 1.44 cladding), Gaussian
/// plane source, flux objective, a trainable design region in the middle.
scene::Scene waveguideScene(double lengthUm, double durationFs) {
    scene::Scene s;
    s.name = "waveguide benchmark";
    s.cellUm = 0.05;
    s.domainSize = {lengthUm, 2.0, 2.0};
    for (auto& b : s.boundaries) {
        b.type = scene::BoundaryType::Pml;
        b.cells = 10;
    }
    scene::Material clad, core;
    clad.name = "clad";
    clad.eps = 1.44 * 1.44;
    core.name = "core";
    core.eps = 4.0;
    s.materials = {clad, core};
    s.background = "clad";
    scene::Object strip;
    strip.name = "strip";
    strip.shape = scene::Shape::Box;
    strip.size = {lengthUm + 1, 0.5, 0.22};
    strip.material = "core";
    s.objects.push_back(strip);
    scene::Source src;
    src.name = "in";
    src.type = scene::SourceType::GaussianPlane;
    src.center = {-0.5 * lengthUm + 0.8, 0, 0};
    src.size = {0, 1.0, 0.9};
    src.normal = 0;
    src.direction = +1;
    src.polarization = {0, 1, 0};
    src.waist = 0.5;
    src.profile.wavelength = 1.55;
    src.profile.bandwidth = 0.3;
    s.sources.push_back(src);
    scene::Detector out;
    out.name = "out";
    out.type = scene::DetectorType::Flux;
    out.center = {0.5 * lengthUm - 0.8, 0, 0};
    out.size = {0, 1.0, 0.9};
    out.normal = 0;
    out.direction = +1;
    out.wavelengths = {1.55};
    s.detectors.push_back(out);
    scene::Design d;
    d.name = "taper";
    d.size = {1.0, 1.0, 0.2};
    d.voxelCells = {2, 2, 1};
    d.materials = {"clad", "core"};
    s.designs.push_back(d);
    scene::ObjectiveTerm t;
    t.detector = "out";
    s.objective.terms.push_back(t);
    s.gradient.method = scene::GradientMethod::Reversible;
    scene::RecorderModule k, b;
    k.module = "LinearReconstructEveryK";
    k.k = 5;
    b.module = "DtypeConversion";
    b.dtype = "bfloat16";
    s.gradient.recorder = {k, b};
    s.durationFs = durationFs;
    return s;
}

/// Mcell-updates/s of one run; `threads` > 0 fixes the threads per device; `bytesPerCell` (if given)
/// receives the ledger's peak bytes per cell of device 0.
double runOnce(const scene::Scene& s, run::Precision p, std::array<int, 3> tiles, int steps, bool overlap,
               int threads = 0, double* bytesPerCellOut = nullptr) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = p;
    o.tiles = tiles;
    o.devices = tiles[0] * tiles[1] * tiles[2];
    o.maxSteps = steps;
    o.overlap = overlap;
    o.guardInterval = 1000000;
    if (threads > 0)
        o.threadsPerDevice = threads;
    run::RunResult r = run::run(s, o);
    if (bytesPerCellOut) {
        const auto c = r.gridCells;
        *bytesPerCellOut = double(r.devices.at(0).memory.peakTotal) / (double(c[0]) * c[1] * c[2]);
    }
    return double(r.cellUpdates) / r.seconds / 1e6;
}

/// The 1-minute load average (/proc/loadavg), or -1 where it cannot be read.
double loadAverage() {
    double l = -1;
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &l) != 1)
            l = -1;
        std::fclose(f);
    }
    return l;
}

/// CPU time of this process so far, all threads (s).
double processCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

run::RunResult runGradCase(const scene::Scene& s, int n, bool gradient) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.tiles = {n, 1, 1};
    o.devices = n;
    o.gradient = gradient;
    o.guardInterval = 1000000;
    return run::run(s, o);
}

/// The reverse sweep's phases of value-and-grad run `g`: wall time of each and its cost per step relative
/// to a forward step (`fwdStep` seconds, from a forward-only run of the same scene).
void printPhaseCosts(const run::RunResult& g, double fwdStep, const char* method) {
    for (const auto& ph : g.phases) {
        if (ph.name == "forward" || ph.step <= 0)
            continue;
        std::printf("  %s %s_s %.3f steps %lld per_step_vs_forward_step %.3f\n", method, ph.name.c_str(),
                    ph.seconds, (long long)ph.step, ph.seconds / double(ph.step) / fwdStep);
    }
}

/// The fewest forward steps (the forward run's own N included, over N) that binomial checkpointing needs
/// to reverse N steps with c stored states besides the initial one (Griewank 1992): with s = c + 1 and
/// the repetition number r (C(s + r - 1, s) < N <= C(s + r, s)), r N - C(s + r, s + 1) advances plus the
/// N steps re-run with their capture.
double revolveBoundFactor(std::int64_t N, int c) {
    auto binom = [](int n, int k) {
        double v = 1;
        for (int i = 1; i <= k; ++i)
            v = v * double(n - k + i) / double(i);
        return v;
    };
    const int s = c + 1;
    int r = 0;
    while (binom(s + r, s) < double(N))
        ++r;
    const double advances = double(r) * double(N) - binom(s + r, s + 1);
    return (advances + double(N)) / double(N);
}

/// Best-of-`reps` forward and value-and-grad wall times of `s` on one device, the two runs alternating
/// (a slow spell of a shared machine then slows both): {forward s, value-and-grad s}.
std::pair<double, double> bestGradPair(const scene::Scene& s, int reps) {
    double fwd = 1e300, vjp = 1e300;
    for (int r = 0; r < reps; ++r) {
        fwd = std::min(fwd, runGradCase(s, 1, false).seconds);
        const run::RunResult g = runGradCase(s, 1, true);
        vjp = std::min(vjp, g.forwardSeconds + g.backwardSeconds);
    }
    return {fwd, vjp};
}

/// Value-and-grad on 1, 2, 4 emulated devices: per-device peak memory, VJP / forward time (one device:
/// the best of `reps` alternating runs of each), and the checkpointed method's recompute factor.
void gradientBenchmark(double lengthUm, double durationFs, int reps) {
    scene::Scene s = waveguideScene(lengthUm, durationFs);
    const auto cells = s.gridCells();
    std::printf(
        "gradient benchmark: waveguide %dx%dx%d cells, %d steps, reversible + LinearReconstructEveryK(5) + "
        "bfloat16\n",
        cells[0], cells[1], cells[2], s.steps());
    std::printf("%-8s %-14s %-14s %-16s %-14s %-12s %-12s %-12s\n", "devices", "fwd_s", "vjp_s", "vjp/fwd",
                "peak/dev_MiB", "peak_ratio", "recorder_MiB", "vjp/fwd_cpu");
    double single = 0;
    for (int n : {1, 2, 4}) {
        // The CPU time ratio next to the wall time one: on a loaded machine wall time also counts the waits
        // for a core, CPU time only the work (the pool's waits sleep).
        const double c0 = processCpuSeconds();
        const run::RunResult f = runGradCase(s, n, false);
        const double c1 = processCpuSeconds();
        const run::RunResult g = runGradCase(s, n, true);
        const double c2 = processCpuSeconds();
        std::int64_t peak = 0, rec = 0;
        for (const auto& d : g.devices) {
            peak = std::max(peak, d.memory.peakTotal);
            rec = std::max(rec, d.memory.peak[int(device::Category::Recorder)]);
        }
        if (n == 1)
            single = double(peak);
        double fs = f.seconds, vjp = g.forwardSeconds + g.backwardSeconds;
        if (n == 1 && reps > 1) {
            const auto [bf, bv] = bestGradPair(s, reps - 1);
            fs = std::min(fs, bf);
            vjp = std::min(vjp, bv);
        }
        std::printf("%-8d %-14.3f %-14.3f %-16.3f %-14.2f %-12.3f %-12.2f %-12.3f\n", n, fs, vjp, vjp / fs,
                    double(peak) / 1048576.0, double(peak) / (single / n), double(rec) / 1048576.0,
                    (c2 - c1) / (c1 - c0));
        printPeaks(g.devices);
        if (n == 1)
            printPhaseCosts(g, fs / double(f.steps), "reversible");
    }
    if (reps > 1)
        std::printf("  1 device: fwd_s and vjp_s are the best of %d alternating runs each\n", reps);
    // Alternating in this run, each switch's default against `var`=0: the coefficient storage chosen by
    // the grid's working set (per-cell arrays where it fits the cache, as this waveguide does) against the
    // material index (YEE_CACHE_PER_CELL), the adjoint's fused pass against its two sweeps
    // (YEE_ADJOINT_WAVEFRONT). The same bits either way; the time and memory each costs.
    for (const char* var : {"YEE_CACHE_PER_CELL", "YEE_ADJOINT_WAVEFRONT"}) {
        const int r = std::max(reps, 1);
        double fa = 1e300, va = 1e300, vb = 1e300, pa = 0, pb = 0;
        for (int q = 0; q < r; ++q) {
            const auto [a, b] = bestGradPair(s, 1);
            fa = std::min(fa, a);
            va = std::min(va, b);
            setenv(var, "0", 1);
            const run::RunResult g = runGradCase(s, 1, true);
            unsetenv(var);
            vb = std::min(vb, g.forwardSeconds + g.backwardSeconds);
            pb = double(g.devices.at(0).memory.peakTotal) / 1048576.0;
        }
        pa = double(runGradCase(s, 1, true).devices.at(0).memory.peakTotal) / 1048576.0;
        std::printf(
            "ab %s (reversible, 1 device, best of %d): vjp/fwd default %.3f, %s=0 %.3f; vjp_s %.3f vs "
            "%.3f (ratio %.3f); peak %.2f vs %.2f MiB\n",
            var, r, va / fa, var, vb / fa, va, vb, vb / va, pa, pb);
    }
    // Storage tiers: backward time relative to the device tier and the recorder memory left on the device.
    {
        const run::RunResult base = runGradCase(s, 1, true);
        const double b0 = base.backwardSeconds;
        const double r0 = double(base.devices[0].memory.peak[int(device::Category::Recorder)]);
        std::printf("%-6s %-9s %-5s %-18s %-16s\n", "tier", "interval", "ring", "backward/device",
                    "recorder_MiB");
        std::printf("%-6s %-9s %-5s %-18.3f %-16.3f\n", "device", "-", "-", 1.0, r0 / 1048576.0);
        for (const char* tier : {"host", "disk"})
            for (int interval : {1, 8, 32})
                for (int ring : {3, 8}) {
                    scene::Scene t = s;
                    t.gradient.tier = tier;
                    t.gradient.transferInterval = interval;
                    t.gradient.ringBuffers = ring;
                    const run::RunResult g = runGradCase(t, 1, true);
                    std::printf(
                        "%-6s %-9d %-5d %-18.3f %-16.3f\n", tier, interval, ring, g.backwardSeconds / b0,
                        double(g.devices[0].memory.peak[int(device::Category::Recorder)]) / 1048576.0);
                }
    }
    s.gradient.method = scene::GradientMethod::Checkpointed;
    s.gradient.recorder.clear();
    for (int c : {8, 32}) {
        s.gradient.numCheckpoints = c;
        const double c0 = processCpuSeconds();
        const run::RunResult f = runGradCase(s, 1, false);
        const double c1 = processCpuSeconds();
        const run::RunResult g = runGradCase(s, 1, true);
        const double c2 = processCpuSeconds();
        const double recompute = double(g.steps + g.recomputedSteps) / double(g.steps);
        const double fwdStep = f.seconds / double(f.steps);
        double adjointStep = 0;
        for (const auto& ph : g.phases)
            if (ph.name == "adjoint" && ph.step > 0)
                adjointStep = ph.seconds / double(ph.step) / fwdStep;
        std::printf(
            "checkpointed num_checkpoints=%d: recompute_factor %.3f revolve_bound_factor %.3f vjp/fwd %.3f "
            "vjp/fwd_cpu %.3f adjoint_step_vs_forward_step %.3f peak %.2f MiB\n",
            c, recompute, revolveBoundFactor(g.steps, c), (g.forwardSeconds + g.backwardSeconds) / f.seconds,
            (c2 - c1) / (c1 - c0), adjointStep, double(g.devices[0].memory.peakTotal) / 1048576.0);
        printPhaseCosts(g, fwdStep, "checkpointed");
    }
}

// ---- dispersion
// ----------------------------------------------------------------------------------------------------

/// Issue 13's benchmark: the bench box with its low-x half filled with a 2-pole Lorentz material against
/// the same box without the poles (eps_inf alone), float32, best of `reps` alternating runs. Prints the
/// time ratio, the cost of a dispersive cell update relative to a plain one (2 ratio - 1 for a half
/// filled box), and the dispersive bytes per dispersive cell; once on the CPU path (contiguous SIMD
/// stretches) and once on the GPU data paths emulated on the CPU (the per-entry functors GPUs launch).
void dispersiveBenchmark(int n, int pml, int steps, int reps) {
    scene::Scene s = benchScene(n, pml, steps);
    scene::Material lor;
    lor.name = "lorentz2";
    lor.eps = 2.0;
    scene::Pole p1, p2;
    p1.type = p2.type = scene::PoleType::Lorentz;
    p1.deltaEps = 1.0;
    p1.omegaEv = 3.0;
    p1.gammaEv = 0.1;
    p2.deltaEps = 0.5;
    p2.omegaEv = 5.0;
    p2.gammaEv = 0.2;
    lor.poles = {p1, p2};
    s.materials.push_back(lor);
    scene::Object half;
    half.name = "half";
    half.shape = scene::Shape::Box;
    const double L = n * s.cellUm;
    half.center = {-0.5 * L, 0, 0}; // x < 0 and beyond the domain: no partial cells on its low face
    half.size = {L, 2 * L, 2 * L};
    half.material = "lorentz2";
    s.objects.push_back(half);
    scene::Scene plain = s;
    plain.materials.back().poles.clear();
    std::printf(
        "dispersive benchmark: %d^3 cells (PML %d), %d steps, low-x half 2-pole Lorentz, float32, best "
        "of %d\n",
        n, pml, steps, reps);
    for (bool staged : {false, true}) {
        double td = 1e300, tp = 1e300;
        std::int64_t bytes = 0;
        for (int r = 0; r < reps; ++r)
            for (int q = 0; q < 2; ++q) {
                const scene::Scene& sc = q == 0 ? s : plain;
                run::RunOptions o = run::RunOptions::fromScene(sc);
                o.precision = run::Precision::Float32;
                o.maxSteps = steps;
                o.guardInterval = 1000000;
                o.gpuDataPaths = staged;
                const run::RunResult res = run::run(sc, o);
                (q == 0 ? td : tp) = std::min(q == 0 ? td : tp, res.seconds);
                if (q == 0)
                    bytes = res.devices[0].memory.peak[int(device::Category::Dispersive)];
            }
        const double cells = double(n / 2) * n * n, ratio = td / tp;
        std::printf(
            "dispersive %s time_ratio %.3f dispersive_cell_cost_vs_plain %.2f dispersive_bytes_per_cell "
            "%.1f (%.3f s vs %.3f s)\n",
            staged ? "gpu_data_paths" : "cpu", ratio, 2 * ratio - 1, double(bytes) / cells, td, tp);
    }
}

// ---- shared cores
// ----------------------------------------------------------------------------------------------------

/// A competing busy job: a child process whose `threads` threads spin until the object is destroyed.
class BusyJob {
public:
    explicit BusyJob(int threads) {
        pid_ = fork();
        if (pid_ == 0) {
            std::vector<std::thread> t;
            for (int i = 1; i < threads; ++i)
                t.emplace_back(spin);
            spin();
        }
        if (pid_ < 0)
            throw RunError("--shared-cores: cannot start the competing job (fork failed)");
        std::this_thread::sleep_for(std::chrono::milliseconds(200)); // let it take its cores
    }
    ~BusyJob() {
        kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0);
    }
    BusyJob(const BusyJob&) = delete;
    BusyJob& operator=(const BusyJob&) = delete;

private:
    [[noreturn]] static void spin() {
        volatile unsigned long x = 0;
        for (;;)
            x = x + 1;
    }
    pid_t pid_ = -1;
};

/// Forward and value-and-grad wall time of `scenePath` (the scene's own gradient method) alone and next
/// to a busy job of `busyThreads` threads, in one run; prints the slowdown ratios. With a 2-thread job
/// on a 2-core host the fair share is half the cores, so about 2x is what sharing costs.
void sharedCoresBenchmark(const std::string& scenePath, int busyThreads, int reps) {
    const scene::Scene s = scene::loadScene(scenePath);
    auto timeRun = [&](bool gradient) {
        run::RunOptions o = run::RunOptions::fromScene(s);
        o.gradient = gradient;
        o.guardInterval = 1000000;
        double best = 1e300;
        for (int r = 0; r < reps; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            const run::RunResult res = run::run(s, o);
            if (!res.completed)
                throw RunError("--shared-cores: the run did not complete: " + res.status);
            best =
                std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        return best;
    };
    const char* wait = std::getenv("OMP_WAIT_POLICY");
    std::printf("shared-cores benchmark: %s, %d host threads, competing job of %d busy threads, best of %d, "
                "OMP_WAIT_POLICY=%s\n",
                scenePath.c_str(), device::hostThreads(), busyThreads, reps, wait ? wait : "(unset)");
    const double fwdAlone = timeRun(false), gradAlone = timeRun(true);
    double fwdLoaded = 0, gradLoaded = 0;
    {
        BusyJob job(busyThreads);
        fwdLoaded = timeRun(false);
        gradLoaded = timeRun(true);
    }
    std::printf("shared_cores forward alone_s %.3f loaded_s %.3f slowdown %.2f\n", fwdAlone, fwdLoaded,
                fwdLoaded / fwdAlone);
    std::printf("shared_cores value_and_grad alone_s %.3f loaded_s %.3f slowdown %.2f\n", gradAlone,
                gradLoaded, gradLoaded / gradAlone);
}

// ---- scaling
// ----------------------------------------------------------------------------------------------------

/// Best wall-clock and per-CPU-second Mcell/s of a few runs (bestRate()).
struct BestRate {
    double wall = 0, cpu = 0;
};

/// One run of the bench box `s` (n^3 cells, `steps` steps, `threads` per device, 0: all) folded into `b`:
/// wall-clock Mcell/s, and Mcell/s per CPU second of the stepping (the process' CPU time of the run less
/// that of a one-step run, which pays the same set-up).
void bestRate(const scene::Scene& s, run::Precision p, int n, int steps, int threads, BestRate& b) {
    const double updates = double(n) * n * n * (steps - 1);
    const double c0 = processCpuSeconds();
    runOnce(s, p, {1, 1, 1}, 1, true, threads);
    const double c1 = processCpuSeconds();
    b.wall = std::max(b.wall, runOnce(s, p, {1, 1, 1}, steps, true, threads));
    const double c2 = processCpuSeconds();
    b.cpu = std::max(b.cpu, updates / std::max(1e-9, (c2 - c1) - (c1 - c0)) / 1e6);
}

/// Issue 17 item 5: thread scaling 1 -> 2 threads and the halo overlap on against off (the box cut in two
/// tiles on two emulated devices, LocalComm), each measured alone and next to a competing busy job of
/// `busyThreads` threads, float32, best of `reps` alternating runs. Prints the ratios. (MPI ranks:
/// bench/scaling.sh, which runs yee-run under mpirun.)
/// The fused H-then-E pass against the two-sweep step (YEE_WAVEFRONT=1 / 0, set before each run), runs
/// alternating so that a change in the machine's load hits both: per precision the best wall-clock
/// Mcell/s of each and their ratio, and the same per CPU second of the stepping (the process' CPU time
/// of a run less that of a one-step run; on a machine whose cores other jobs share, wall-clock time
/// mostly measures the share of the cores the run got); then threads 1 -> 2 for each path, float32.
void wavefrontBenchmark(int n, int pml, int steps, int reps) {
    const scene::Scene s = benchScene(n, pml, steps);
    std::printf(
        "wavefront benchmark: %d^3 cells (PML %d), %d steps, %d host threads, best of %d alternating; "
        "load average %.2f\n",
        n, pml, steps, device::hostThreads(), reps, loadAverage());
    auto set = [](bool fused) { setenv("YEE_WAVEFRONT", fused ? "1" : "0", 1); };
    using Best = BestRate;
    auto measure = [&](run::Precision p, int threads, Best& b) { bestRate(s, p, n, steps, threads, b); };
    for (int pi = 0; pi < 2; ++pi) {
        const auto p = pi == 0 ? run::Precision::Float32 : run::Precision::Float64;
        Best fused, plain;
        for (int r = 0; r < reps; ++r) {
            set(true);
            measure(p, 0, fused);
            set(false);
            measure(p, 0, plain);
        }
        std::printf("wavefront %s fused Mcell_per_s %.1f two_sweep Mcell_per_s %.1f ratio %.3f "
                    "fused Mcell_per_cpu_s %.1f two_sweep Mcell_per_cpu_s %.1f cpu_ratio %.3f\n",
                    precisionName(p), fused.wall, plain.wall, fused.wall / plain.wall, fused.cpu, plain.cpu,
                    fused.cpu / plain.cpu);
    }
    if (device::hostThreads() >= 2)
        for (const bool f : {true, false}) {
            Best one, two;
            for (int r = 0; r < reps; ++r) {
                set(f);
                measure(run::Precision::Float32, 1, one);
                measure(run::Precision::Float32, 2, two);
            }
            std::printf("wavefront %s float32 threads_1 Mcell_per_s %.1f threads_2 Mcell_per_s %.1f "
                        "ratio_2_to_1 %.3f cpu_ratio_2_to_1 %.3f\n",
                        f ? "fused" : "two_sweep", one.wall, two.wall, two.wall / one.wall,
                        two.cpu / one.cpu);
        }
    unsetenv("YEE_WAVEFRONT");
    std::printf("load average after %.2f\n", loadAverage());
}

/// A/B of one environment switch of the forward path (e.g. YEE_MATERIAL_RUNS, YEE_HUGEPAGES): the bench box
/// with `var`=1 and `var`=0, runs alternating so that a change in the machine's load hits both, on
/// `threads` threads (0: all), per precision (float32 only with `onlyF32`) the best wall-clock and
/// per-CPU-second Mcell/s of each and their ratios (1 over 0). The switches are read when a run builds its
/// tiles (the material-run switch is re-read at the next row).
void abBenchmark(const std::string& var, int n, int pml, int steps, int reps, int threads, bool onlyF32) {
    const scene::Scene s = benchScene(n, pml, steps);
    std::printf("ab benchmark: %s=1 vs %s=0, %d^3 cells (PML %d), %d steps, %d threads, best of %d "
                "alternating; load average %.2f\n",
                var.c_str(), var.c_str(), n, pml, steps, threads > 0 ? threads : device::hostThreads(), reps,
                loadAverage());
    using Best = BestRate;
    auto measure = [&](run::Precision p, bool on, Best& b) {
        setenv(var.c_str(), on ? "1" : "0", 1);
        kernels::detail::resetRowSwitches();
        bestRate(s, p, n, steps, threads, b);
    };
    for (int pi = 0; pi < 2; ++pi) {
        const auto p = pi == 0 ? run::Precision::Float32 : run::Precision::Float64;
        if (pi == 1 && onlyF32)
            break;
        Best on, off;
        for (int r = 0; r < reps; ++r) {
            measure(p, true, on);
            measure(p, false, off);
        }
        std::printf("ab %s %s=1 Mcell_per_s %.1f %s=0 Mcell_per_s %.1f ratio %.3f %s=1 Mcell_per_cpu_s %.1f "
                    "%s=0 Mcell_per_cpu_s %.1f cpu_ratio %.3f\n",
                    precisionName(p), var.c_str(), on.wall, var.c_str(), off.wall, on.wall / off.wall,
                    var.c_str(), on.cpu, var.c_str(), off.cpu, on.cpu / off.cpu);
    }
    unsetenv(var.c_str());
    kernels::detail::resetRowSwitches();
    std::printf("load average after %.2f\n", loadAverage());
}

/// The median of `v` (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// Each ratio is taken within one pair of back-to-back runs (A then B, the order swapped every pair), so
/// a change of the machine's load between pairs hits both sides; the median over the pairs is the figure,
/// min and max show the spread. (A best-of-N per side compares runs minutes apart.)
void scalingBenchmark(int n, int pml, int steps, int reps, int busyThreads) {
    const scene::Scene s = benchScene(n, pml, steps);
    const auto f32 = run::Precision::Float32;
    std::printf(
        "scaling benchmark: %d^3 cells (PML %d), %d steps, float32, %d host threads, %d alternating pairs; "
        "loaded = next to a competing job of %d busy threads\n",
        n, pml, steps, device::hostThreads(), reps, busyThreads);
    struct Pairs {
        std::vector<double> a, b, ratio;
        void add(double x, double y) {
            a.push_back(x);
            b.push_back(y);
            ratio.push_back(x / y);
        }
        std::string str() const {
            const auto [lo, hi] = std::minmax_element(ratio.begin(), ratio.end());
            char buf[160];
            std::snprintf(buf, sizeof buf, "median %.3f min %.3f max %.3f", median(ratio), *lo, *hi);
            return buf;
        }
    };
    for (int loaded = 0; loaded < 2; ++loaded) {
        std::unique_ptr<BusyJob> job;
        if (loaded)
            job = std::make_unique<BusyJob>(busyThreads);
        Pairs threads, overlap;
        for (int r = 0; r < reps; ++r) {
            const bool swap = r % 2;
            auto pair = [&](Pairs& into, auto runA, auto runB) {
                double a = 0, b = 0;
                if (swap) {
                    b = runB();
                    a = runA();
                } else {
                    a = runA();
                    b = runB();
                }
                into.add(a, b);
            };
            pair(
                threads,
                [&] {
                    return runOnce(s, f32, {1, 1, 1}, steps, true, 2);
                },
                [&] {
                    return runOnce(s, f32, {1, 1, 1}, steps, true, 1);
                });
            pair(
                overlap,
                [&] {
                    return runOnce(s, f32, {2, 1, 1}, steps, true);
                },
                [&] {
                    return runOnce(s, f32, {2, 1, 1}, steps, false);
                });
        }
        const char* tag = loaded ? "loaded" : "alone";
        std::printf("scaling %s threads_1 Mcell_per_s %.1f threads_2 Mcell_per_s %.1f ratio_2_to_1 %.3f "
                    "(per pair: %s)\n",
                    tag, median(threads.b), median(threads.a), median(threads.ratio), threads.str().c_str());
        std::printf("scaling %s tiles_2x1x1 overlap Mcell_per_s %.1f no_overlap Mcell_per_s %.1f "
                    "overlap_to_no_overlap %.3f (per pair: %s)\n",
                    tag, median(overlap.a), median(overlap.b), median(overlap.ratio), overlap.str().c_str());
    }
}

// ---- GPUs
// ---------------------------------------------------------------------------------------------------------

#if defined(YEE_HAVE_NCCL) && YEE_HAVE_NCCL
constexpr bool kHaveNccl = true;
#else
constexpr bool kHaveNccl = false;
#endif

/// Options for a run with tile t of an Nx1x1 grid on gpus[t].
run::RunOptions gpuOptions(const scene::Scene& s, run::Precision p, const std::vector<int>& gpus, bool nccl,
                           bool gradient, int steps = -1) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.precision = p;
    o.backend = run::Backend::Cuda;
    o.gpus = gpus;
    o.devices = int(gpus.size());
    o.tiles = {int(gpus.size()), 1, 1};
    o.nccl = nccl;
    o.deviceNotice.clear();
    o.gradient = gradient;
    o.maxSteps = steps;
    o.guardInterval = 1000000;
    return o;
}

std::string gpuList(const std::vector<int>& gpus) {
    std::string l;
    for (int g : gpus) {
        if (!l.empty())
            l += ',';
        l += std::to_string(g);
    }
    return l;
}

std::int64_t peakPerDevice(const run::RunResult& r) {
    std::int64_t m = 0;
    for (const auto& d : r.devices)
        m = std::max(m, d.memory.peakTotal);
    return m;
}

/// Best Gcell-updates/s of `reps` runs (and the per-GPU ledger peak of the last; with `materials`, the
/// ledger peak of the materials category of the first device of the last run).
double bestGcells(const scene::Scene& s, const run::RunOptions& o, int reps, std::int64_t& peak,
                  std::int64_t* materials = nullptr) {
    double best = 0;
    for (int r = 0; r < reps; ++r) {
        const run::RunResult res = run::run(s, o);
        if (!res.completed)
            throw RunError("GPU run did not complete: " + res.status);
        best = std::max(best, double(res.cellUpdates) / res.seconds / 1e9);
        peak = peakPerDevice(res);
        if (materials && !res.devices.empty())
            *materials = res.devices[0].memory.peak[int(device::Category::Materials)];
    }
    return best;
}

/// One launch shape of the GPU cell kernels (cuda/Runtime.hpp): the plain launch with `zPlanes` cells per
/// thread, or (`marching`) the z-marching Yee updates with `blockZ` cells per thread.
struct LaunchShape {
    bool marching = false;
    int zPlanes = 1;
    int blockZ = 16;
    std::string name() const {
        return marching ? "z_march block_z " + std::to_string(blockZ)
                        : "plain z_planes " + std::to_string(zPlanes);
    }
};

/// Sets the process-wide launch shape for the lifetime of the object, then restores the previous one.
class ScopedLaunchShape {
public:
    explicit ScopedLaunchShape(const LaunchShape& l)
        : blocking_(cuda::cellBlocking()), planes_(cuda::cellZPlanes()), blockZ_(cuda::blockZPlanes()) {
        cuda::setCellBlocking(l.marching);
        cuda::setCellZPlanes(l.zPlanes);
        cuda::setBlockZPlanes(l.blockZ);
    }
    ~ScopedLaunchShape() {
        cuda::setCellBlocking(blocking_);
        cuda::setCellZPlanes(planes_);
        cuda::setBlockZPlanes(blockZ_);
    }
    ScopedLaunchShape(const ScopedLaunchShape&) = delete;
    ScopedLaunchShape& operator=(const ScopedLaunchShape&) = delete;

private:
    bool blocking_;
    int planes_, blockZ_;
};

/// Forward throughput on the first listed GPU (and on all of them, cut in x, when there are several),
/// against the HBM roofline with the CPU benchmark's bytes-per-cell model; then the launch shapes of issue
/// 17 item 7 side by side in this same run (the plain launch and the z-marching Yee updates, float32 and
/// float64), each with its Gcell/s, the fraction of the roofline of the GPU traffic model and of the
/// 48-byte ideal.
void gpuForwardBenchmark(const std::vector<int>& gpus, int n, int steps, int pml, int reps, bool onlyF32) {
    const std::vector<cuda::DeviceInfo> info = cuda::devices();
    auto bandwidth = [&](int id) {
        for (const auto& d : info)
            if (d.id == id)
                return d.peakBandwidthGBs;
        return 0.0;
    };
    const scene::Scene s = benchScene(n, pml, steps);
    std::printf("yee-bench gpu: %d^3 cells (PML %d on all faces), %d steps, best of %d\n", n, pml, steps,
                reps);
    std::printf("gpu launch default: %s (YEE_CUDA_BLOCKING=%d, YEE_CUDA_Z_PLANES=%d, YEE_CUDA_BLOCK_Z=%d)\n",
                cuda::cellBlocking() ? "z-marching Yee updates" : "plain", cuda::cellBlocking() ? 1 : 0,
                cuda::cellZPlanes(), cuda::blockZPlanes());
    // Warm-up: context creation, module loading and first-touch costs stay out of the measurements; both
    // launch shapes run once, so each kernel's module is loaded before it is timed.
    {
        const scene::Scene w = benchScene(32, 5, 10);
        for (bool marching : {false, true}) {
            LaunchShape l;
            l.marching = marching;
            const ScopedLaunchShape scoped(l);
            for (int g : gpus)
                (void)run::run(w, gpuOptions(w, run::Precision::Float32, {g}, false, false));
        }
    }
    const std::vector<int> first{gpus[0]};
    const double bw1 = bandwidth(gpus[0]);
    // The achievable bandwidth, measured in this run like the CPU benchmark's: a 1 GiB device copy.
    const double bwCopy = cuda::measureCopyBandwidthGBs(gpus[0], std::int64_t(1) << 30);
    std::printf("gpu:%d hbm_peak_GBps %.0f measured_copy_GBps %.0f (%.2f of peak)\n", gpus[0], bw1, bwCopy,
                bw1 > 0 ? bwCopy / bw1 : 0.0);
    const auto gc = s.gridCells();
    const double cells = double(gc[0]) * gc[1] * gc[2];
    for (int pi = 0; pi < (onlyF32 ? 1 : 2); ++pi) {
        const auto prec = pi == 0 ? run::Precision::Float32 : run::Precision::Float64;
        const double bytes = bytesPerCell(prec);
        const double value = prec == run::Precision::Float32 ? 4 : 8;
        // Issue 17's target: the 48-byte ideal (each of the six components read and written once per step,
        // 96 B in float64) against the HBM peak; >= 0.5 in float32 on an H100/H200.
        const double ideal = 12.0 * value;
        // The launch shapes, the plain launch first (the line every earlier run printed). The GPU traffic
        // model of a shape: the two sweeps move E and H read+write plus one read of the other field (18
        // values) plus the coefficients as the tile stores them (the ledger's materials bytes per cell: the
        // 2-byte material index and its small tables on indexed tiles, kernels/Coef.hpp TableCoef, else
        // the per-cell arrays), each read once per step.
        std::vector<LaunchShape> shapes{LaunchShape{}, LaunchShape{true, 1, 16}};
        if (pi == 0) {
            shapes.push_back(LaunchShape{true, 1, 64});
            shapes.push_back(LaunchShape{false, 4, 16});
        }
        double plain = 0;
        for (std::size_t si = 0; si < shapes.size(); ++si) {
            const LaunchShape& l = shapes[si];
            const ScopedLaunchShape scoped(l);
            std::int64_t peak = 0, materials = 0;
            // The plain launch and the default marching shape get `reps` runs; the extra shapes one each.
            const double g = bestGcells(s, gpuOptions(s, prec, first, false, false, steps), si < 2 ? reps : 1,
                                        peak, &materials);
            const double model = 18.0 * value + double(materials) / cells;
            if (si == 0) {
                plain = g;
                const double fraction = bw1 > 0 ? g * 1e9 * bytes / (bw1 * 1e9) : 0;
                std::printf(
                    "gpu:%d %s Gcell_per_s %.2f bytes_per_cell %.0f hbm_peak_GBps %.0f "
                    "roofline_Gcell_per_s %.2f roofline_fraction %.3f of_measured_copy %.3f ideal_bytes "
                    "%.0f ideal_roofline_Gcell_per_s %.2f ideal_roofline_fraction %.3f peak_MiB %.1f\n",
                    gpus[0], precisionName(prec), g, bytes, bw1, bw1 > 0 ? bw1 / bytes : 0.0, fraction,
                    bwCopy > 0 ? g * bytes / bwCopy : 0.0, ideal, bw1 > 0 ? bw1 / ideal : 0.0,
                    bw1 > 0 ? g * ideal / bw1 : 0.0, double(peak) / 1048576.0);
            }
            std::printf(
                "gpu:%d %s launch %s Gcell_per_s %.2f model_bytes_per_cell %.1f roofline_fraction %.3f "
                "ideal_roofline_fraction %.3f ratio_to_plain %.3f\n",
                gpus[0], precisionName(prec), l.name().c_str(), g, model, bw1 > 0 ? g * model / bw1 : 0.0,
                bw1 > 0 ? g * ideal / bw1 : 0.0, plain > 0 ? g / plain : 0.0);
        }
    }
    if (gpus.size() < 2)
        return;
    double bwAll = 0;
    for (int g : gpus)
        bwAll += bandwidth(g);
    const auto prec = run::Precision::Float32;
    std::int64_t peak = 0;
    const double single = bestGcells(s, gpuOptions(s, prec, first, false, false, steps), reps, peak);
    for (bool nccl : {true, false}) {
        if (nccl && !kHaveNccl) {
            std::printf("gpus:%s nccl: this build has no NCCL\n", gpuList(gpus).c_str());
            continue;
        }
        const double g = bestGcells(s, gpuOptions(s, prec, gpus, nccl, false, steps), reps, peak);
        std::printf("gpus:%s %dx1x1 %s float32 Gcell_per_s %.2f ratio_to_single %.3f roofline_fraction %.3f "
                    "peak_per_gpu_MiB %.1f\n",
                    gpuList(gpus).c_str(), int(gpus.size()), nccl ? "nccl" : "local", g, g / single,
                    bwAll > 0 ? g * 1e9 * bytesPerCell(prec) / (bwAll * 1e9) : 0.0, double(peak) / 1048576.0);
    }
}

/// Value-and-grad on the waveguide scene on 1 GPU and (with two or more listed) on 2 GPUs: time, per-GPU
/// peak memory and their ratios.
void gpuGradientBenchmark(const std::vector<int>& gpus, double lengthUm, double durationFs) {
    const scene::Scene s = waveguideScene(lengthUm, durationFs);
    const auto cells = s.gridCells();
    std::printf(
        "gpu gradient benchmark: waveguide %dx%dx%d cells, %d steps, reversible + LinearReconstructEveryK(5) "
        "+ bfloat16, float32, halos over %s\n",
        cells[0], cells[1], cells[2], s.steps(), kHaveNccl ? "NCCL" : "LocalComm");
    {
        const scene::Scene w = benchScene(32, 5, 10); // warm-up
        for (int g : gpus)
            (void)run::run(w, gpuOptions(w, run::Precision::Float32, {g}, false, false));
    }
    std::printf("%-8s %-10s %-10s %-10s %-10s %-14s %-14s\n", "gpus", "fwd_s", "vjp_s", "vjp/fwd", "drift",
                "peak/gpu_MiB", "recorder_MiB");
    double t1 = 0, m1 = 0;
    for (int n : {1, 2}) {
        if (int(gpus.size()) < n) {
            std::printf("%-8d skipped: only %d GPU%s listed\n", n, int(gpus.size()),
                        gpus.size() == 1 ? "" : "s");
            continue;
        }
        const std::vector<int> use(gpus.begin(), gpus.begin() + n);
        const run::RunResult f = run::run(s, gpuOptions(s, run::Precision::Float32, use, kHaveNccl, false));
        const run::RunResult g = run::run(s, gpuOptions(s, run::Precision::Float32, use, kHaveNccl, true));
        if (!f.completed || !g.completed)
            throw RunError("GPU run did not complete: " + f.status + " / " + g.status);
        std::int64_t rec = 0;
        for (const auto& d : g.devices)
            rec = std::max(rec, d.memory.peak[int(device::Category::Recorder)]);
        const double vjp = g.forwardSeconds + g.backwardSeconds;
        const double peak = double(peakPerDevice(g));
        std::printf("%-8d %-10.3f %-10.3f %-10.3f %-10.2e %-14.2f %-14.2f\n", n, f.seconds, vjp,
                    vjp / f.seconds, g.reconstructionDrift, peak / 1048576.0, double(rec) / 1048576.0);
        printPeaks(g.devices);
        if (n == 1) {
            t1 = vjp;
            m1 = peak;
        } else {
            std::printf("gpu_gradient t(2)/t(1) %.3f mem(2)/mem(1) %.3f\n", vjp / t1, peak / m1);
        }
    }
}

/// True when YEE_GPU_REQUIRED=1: a GPU request that measures nothing is then a failure.
bool gpuRequired() {
    const char* v = std::getenv("YEE_GPU_REQUIRED");
    return v && std::strcmp(v, "1") == 0;
}

/// --cuda-info: versions, the visible GPUs or why there are none. Exit code as documented in the header.
int cudaInfo() {
    std::printf("yee-bench: CUDA build %s; %s\n", cuda::built() ? "yes" : "no", cuda::versionText().c_str());
    const std::vector<cuda::DeviceInfo> list = cuda::devices();
    for (const auto& d : list)
        std::printf("cuda:%d %s sm_%d%d %d SMs %.1f GiB (%.1f GiB free) hbm_peak_GBps %.0f\n", d.id,
                    d.name.c_str(), d.major, d.minor, d.multiprocessors, double(d.totalBytes) / 1073741824.0,
                    double(d.freeBytes) / 1073741824.0, d.peakBandwidthGBs);
    if (!list.empty())
        return 0;
    std::printf("yee-bench: no usable GPU: %s\n", cuda::unavailableReason().c_str());
    if (gpuRequired()) {
        std::printf("yee-bench: GPU required (YEE_GPU_REQUIRED=1): CUDA is unusable\n");
        return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // progress shows up line by line when redirected
    int n = 128, steps = 200, pml = 10, reps = 3;
    bool decomposed = false, onlyF32 = false, gradient = false, forward = true;
    double wgLength = 6.0, wgDuration = 120.0;
    int gpuN = 384, gpuSteps = 200;
    std::string writeScene, gpus, sharedScene;
    int busyThreads = 2;
    bool dispersive = false, scaling = false, wavefront = false;
    std::string abVar;
    int abThreads = 0;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() { return i + 1 < argc ? std::atoi(argv[++i]) : 0; };
        if (a == "--n")
            n = next();
        else if (a == "--steps")
            steps = next();
        else if (a == "--pml")
            pml = next();
        else if (a == "--reps")
            reps = next();
        else if (a == "--decomposed")
            decomposed = true;
        else if (a == "--float32-only")
            onlyF32 = true;
        else if (a == "--gradient")
            gradient = true;
        else if (a == "--cuda-info")
            return cudaInfo();
        else if (a == "--write-scene" && i + 1 < argc)
            writeScene = argv[++i];
        else if (a == "--no-forward")
            forward = false;
        else if (a == "--wg-length")
            wgLength = i + 1 < argc ? std::atof(argv[++i]) : wgLength;
        else if (a == "--wg-duration")
            wgDuration = i + 1 < argc ? std::atof(argv[++i]) : wgDuration;
        else if (a == "--gpus" && i + 1 < argc)
            gpus = argv[++i];
        else if (a == "--gpu-n")
            gpuN = next();
        else if (a == "--gpu-steps")
            gpuSteps = next();
        else if (a == "--shared-cores" && i + 1 < argc)
            sharedScene = argv[++i];
        else if (a == "--dispersive")
            dispersive = true;
        else if (a == "--busy-threads")
            busyThreads = next();
        else if (a == "--scaling")
            scaling = true;
        else if (a == "--wavefront")
            wavefront = true;
        else if (a == "--ab" && i + 1 < argc)
            abVar = argv[++i];
        else if (a == "--threads")
            abThreads = next();
        else {
            std::fprintf(
                stderr,
                "usage: yee-bench [--n N] [--steps S] [--pml P] [--reps R] [--decomposed] "
                "[--float32-only] [--gradient] [--no-forward] [--wg-length UM] [--wg-duration FS] "
                "[--write-scene FILE] [--gpus all|ID[,ID...] [--gpu-n N] [--gpu-steps S]] [--cuda-info] "
                "[--shared-cores SCENE [--busy-threads N]] [--dispersive] [--scaling [--busy-threads N]] "
                "[--wavefront] [--ab VAR [--threads T]]\n");
            return 2;
        }
    }
    try {
        if (!writeScene.empty()) {
            // The benchmark box as a scene file, e.g. for `mpirun -np 2 yee-run --tiles 2x1x1 FILE`; with
            // --gradient the gradient benchmark's waveguide (e.g. for `yee-run --grad FILE`).
            scene::saveScene(gradient ? waveguideScene(wgLength, wgDuration) : benchScene(n, pml, steps),
                             writeScene);
            return 0;
        }
        if (!gpus.empty()) {
            // GPU measurements replace the CPU ones.
            run::RunOptions sel;
            run::selectDevices(gpus == "all" ? "cuda:all" : "cuda:" + gpus, "--gpus", 1, sel);
            if (sel.backend != run::Backend::Cuda || sel.gpus.empty()) {
                const std::string why = cuda::unavailableReason();
                std::printf("yee-bench: --gpus %s: nothing measured: %s [%s]\n", gpus.c_str(),
                            why.empty() ? sel.deviceNotice.c_str() : why.c_str(),
                            cuda::versionText().c_str());
                if (gpuRequired()) {
                    std::printf(
                        "yee-bench: GPU required (YEE_GPU_REQUIRED=1): nothing measured is a failure\n");
                    return 1;
                }
                return 0;
            }
            for (const auto& d : cuda::devices())
                if (std::find(sel.gpus.begin(), sel.gpus.end(), d.id) != sel.gpus.end())
                    std::printf("cuda:%d %s sm_%d%d %d SMs %.1f GiB hbm_peak_GBps %.0f\n", d.id,
                                d.name.c_str(), d.major, d.minor, d.multiprocessors,
                                double(d.totalBytes) / 1073741824.0, d.peakBandwidthGBs);
            if (forward)
                gpuForwardBenchmark(sel.gpus, gpuN, gpuSteps, pml, reps, onlyF32);
            if (gradient)
                gpuGradientBenchmark(sel.gpus, wgLength, wgDuration);
            return 0;
        }
        if (!sharedScene.empty()) {
            sharedCoresBenchmark(sharedScene, busyThreads, reps < 1 ? 1 : (reps > 2 ? 2 : reps));
            return 0;
        }
        if (dispersive) {
            dispersiveBenchmark(n, pml, steps, reps);
            return 0;
        }
        if (scaling) {
            scalingBenchmark(n, pml, steps, reps, busyThreads);
            return 0;
        }
        if (!abVar.empty()) {
            abBenchmark(abVar, n, pml, steps, reps, abThreads, onlyF32);
            return 0;
        }
        if (wavefront) {
            wavefrontBenchmark(n, pml, steps, reps);
            return 0;
        }
        if (gradient)
            gradientBenchmark(wgLength, wgDuration, reps);
        if (!forward)
            return 0;
        const int threads = device::hostThreads();
        const scene::Scene s = benchScene(n, pml, steps);
        std::printf("yee-bench: %d^3 cells (PML %d on all faces), %d steps, %d threads, CPU loops %s\n", n,
                    pml, steps, threads, simdLevel().c_str());
        const double bw = rmwBandwidth(threads);
        std::printf("rmw_bandwidth_GBps %.2f\n", bw);
        for (int pi = 0; pi < (onlyF32 ? 1 : 2); ++pi) {
            const auto prec = pi == 0 ? run::Precision::Float32 : run::Precision::Float64;
            const double bytes = bytesPerCell(prec);
            double best = 0, ledger = 0;
            for (int r = 0; r < reps; ++r)
                best = std::max(best, runOnce(s, prec, {1, 1, 1}, steps, true, 0, &ledger));
            const double roof = bw * 1e9 / bytes / 1e6;
            // The ideal: each of the six components read and written once per step (48 B in float32).
            const double ideal = 12.0 * (prec == run::Precision::Float32 ? 4 : 8);
            const double roofIdeal = bw * 1e9 / ideal / 1e6;
            std::printf(
                "%s Mcell_per_s %.1f bytes_per_cell %.0f roofline_Mcell_per_s %.1f roofline_fraction %.3f "
                "ideal_bytes %.0f ideal_roofline_Mcell_per_s %.1f ideal_roofline_fraction %.3f "
                "ledger_bytes_per_cell %.1f\n",
                precisionName(prec), best, bytes, roof, best / roof, ideal, roofIdeal, best / roofIdeal,
                ledger);
        }
        if (threads >= 2) {
            // Thread scaling, alternating runs so that a change in the machine's load hits both.
            double one = 0, two = 0;
            for (int r = 0; r < reps; ++r) {
                one = std::max(one, runOnce(s, run::Precision::Float32, {1, 1, 1}, steps, true, 1));
                two = std::max(two, runOnce(s, run::Precision::Float32, {1, 1, 1}, steps, true, 2));
            }
            std::printf("threads_1 Mcell_per_s %.1f threads_2 Mcell_per_s %.1f ratio_2_to_1 %.3f\n", one, two,
                        two / one);
        }
        if (decomposed) {
            double single = 0, two = 0, twoSerial = 0;
            for (int r = 0; r < reps; ++r) {
                single = std::max(single, runOnce(s, run::Precision::Float32, {1, 1, 1}, steps, true));
                two = std::max(two, runOnce(s, run::Precision::Float32, {2, 1, 1}, steps, true));
                twoSerial = std::max(twoSerial, runOnce(s, run::Precision::Float32, {2, 1, 1}, steps, false));
            }
            std::printf("local_1x1x1 Mcell_per_s %.1f\n", single);
            std::printf("local_2x1x1 Mcell_per_s %.1f ratio_to_single %.3f\n", two, two / single);
            std::printf("local_2x1x1_no_overlap Mcell_per_s %.1f ratio_to_single %.3f\n", twoSerial,
                        twoSerial / single);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "yee-bench: error: %s\n", e.what());
        return 2;
    }
    return 0;
}
