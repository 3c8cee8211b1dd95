#!/usr/bin/env bash
# One-shot GPU check for a machine with CUDA GPUs (no network needed).
#
# The carried bundle first: when the checkout holds a GPU bundle packed by scripts/gpu-bundle.sh (in
# .gpu-bundle/, or where YEE_GPU_BUNDLE points), this script runs that bundle's run.sh and exits with its
# status; the bundle needs nothing on the GPU machine beyond the driver and the pip NCCL (see README, "GPU
# check"). Only without a bundle does it build on the machine (which needs Qt 6, HDF5 and nlohmann-json
# there), from the repository root:
#   1. configure a Release build with CUDA into build-gpu (no UI),
#   2. build only libyee, yee-bench, tst_gpu and tst_nccl (when those test targets exist) with all cores,
#   3. show nvidia-smi,
#   4. run `ctest -L gpu`, then the same once more with YEE_CUDA_SYNC=1 (every launch waited for and checked),
#   5. run the GPU benchmark: `yee-bench --gpus all` (forward roofline) and `--gradient` (value-and-grad),
#   6. print a summary.
# Every stage runs under `timeout`, within an overall deadline (8 minutes by default), so a hang in one
# stage still leaves the others' output. Full logs go to $YEE_GPU_LOG_DIR (default: $OUT/gpu-logs when $OUT
# is set, else build-gpu/gpu-logs); stdout carries the key lines and the summary at the end.
#
# Environment overrides:
#   YEE_GPU_BUILD_DIR       build directory                        (build-gpu)
#   YEE_CUDA_ARCHITECTURES  CMAKE_CUDA_ARCHITECTURES               (90: H100 / H200)
#   YEE_BUILD_TYPE          CMAKE_BUILD_TYPE                       (Release)
#   YEE_GPU_GENERATOR       CMake generator                        (Ninja if found, else Unix Makefiles)
#   YEE_GPU_TOTAL_S         overall deadline in seconds            (480)
#   YEE_JOBS                build parallelism                      (nproc)
#   YEE_BENCH_ARGS          extra args of the forward benchmark    (--gpu-n 384 --gpu-steps 200 --reps 2)
#   YEE_BENCH_GRAD_ARGS     extra args of the gradient benchmark   (none: the bench's waveguide defaults)
#   YEE_GPU_LOG_DIR         where the logs go
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
BUNDLE=${YEE_GPU_BUNDLE:-$ROOT/.gpu-bundle}
if [[ -x $BUNDLE/run.sh ]]; then
    echo "run-on-gpu: running the carried bundle $BUNDLE (no build on this machine)"
    exec "$BUNDLE/run.sh"
fi
echo "run-on-gpu: no bundle at $BUNDLE (scripts/gpu-bundle.sh packs one): building here"
BUILD=${YEE_GPU_BUILD_DIR:-build-gpu}
ARCH=${YEE_CUDA_ARCHITECTURES:-90}
BUILD_TYPE=${YEE_BUILD_TYPE:-Release}
TOTAL=${YEE_GPU_TOTAL_S:-480}
JOBS=${YEE_JOBS:-$(nproc 2>/dev/null || echo 4)}
BENCH_ARGS=${YEE_BENCH_ARGS:---gpu-n 384 --gpu-steps 200 --reps 2}
BENCH_GRAD_ARGS=${YEE_BENCH_GRAD_ARGS:-}
if [[ -n ${YEE_GPU_LOG_DIR:-} ]]; then
    LOGDIR=$YEE_GPU_LOG_DIR
elif [[ -n ${OUT:-} ]]; then
    LOGDIR=$OUT/gpu-logs
else
    LOGDIR=$BUILD/gpu-logs
fi
mkdir -p "$LOGDIR"
for f in nvidia-smi configure build ctest-gpu ctest-gpu-sync bench-forward bench-gradient; do
    rm -f "$LOGDIR/$f.log" # the summary reads only this run's logs
done
rm -f "$LOGDIR/nvidia-smi-query.csv"
# Only binaries linked by this run are tested (a failed build must not leave stale ones to run).
rm -f "$BUILD/tests/tst_gpu" "$BUILD/tests/tst_nccl" "$BUILD/app/yee-bench"

START=$(date +%s)
DEADLINE=$((START + TOTAL))
SUMMARY=()
FAILED=0
STAGE_RC=0

# Generator: keep the one an existing build directory was configured with.
if [[ -f $BUILD/CMakeCache.txt ]]; then
    GENERATOR=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$BUILD/CMakeCache.txt")
elif [[ -n ${YEE_GPU_GENERATOR:-} ]]; then
    GENERATOR=$YEE_GPU_GENERATOR
elif command -v ninja >/dev/null 2>&1; then
    GENERATOR=Ninja
else
    GENERATOR="Unix Makefiles"
fi
KEEP_GOING=(-k)
[[ $GENERATOR == Ninja ]] && KEEP_GOING=(-k 0)

# stage NAME BUDGET_S RESERVE_S LOG COMMAND...
# Runs COMMAND under `timeout` for at most BUDGET_S seconds, and never past the deadline minus RESERVE_S
# (time kept for the stages after it). Output goes to LOG. Sets STAGE_RC; always returns 0.
stage() {
    local name=$1 budget=$2 reserve=$3 log=$4
    shift 4
    local now left limit status t0 dt
    now=$(date +%s)
    left=$((DEADLINE - now - reserve))
    limit=$budget
    ((left < limit)) && limit=$left
    if ((limit < 5)); then
        SUMMARY+=("$(printf '%-16s %-30s %5s' "$name" "SKIPPED (out of time)" "-")")
        STAGE_RC=125
        FAILED=1
        return 0
    fi
    echo "==== $name (limit ${limit}s): $*"
    t0=$(date +%s)
    STAGE_RC=0
    timeout -k 10 "$limit" "$@" >"$log" 2>&1 || STAGE_RC=$?
    dt=$(($(date +%s) - t0))
    case $STAGE_RC in
        0) status=ok ;;
        124 | 137) status="TIMED OUT (${limit}s)" ;;
        *) status="FAILED (exit $STAGE_RC)" ;;
    esac
    ((STAGE_RC == 0)) || FAILED=1
    SUMMARY+=("$(printf '%-16s %-30s %4ds' "$name" "$status" "$dt")")
    echo "---- $name: $status in ${dt}s (log: $log)"
    return 0
}

skip_stage() {
    SUMMARY+=("$(printf '%-16s %-30s %5s' "$1" "SKIPPED ($2)" "-")")
    FAILED=1
}

tail_on_failure() { # LOG LINES
    if ((STAGE_RC != 0)) && [[ -f $1 ]]; then
        echo "     last $2 lines of $1:"
        tail -n "$2" "$1" | sed 's/^/     | /' || true
    fi
}

show() { # LOG: print a stage's whole log (if the stage ran)
    if [[ -f $1 ]]; then cat "$1"; fi
}

TARGET_LIST=""
has_target() { # (no `cmake | grep -q`: with pipefail, grep quitting early fails the pipeline)
    [[ -n $TARGET_LIST ]] || TARGET_LIST=$(cmake --build "$BUILD" --target help 2>/dev/null || true)
    grep -Eq "(^|\.\.\. )$1(:| |\$)" <<<"$TARGET_LIST"
}

# Key lines of a Qt Test run under `ctest -V` (each line carries a "N: " prefix).
test_digest() {
    grep -sE '(FAIL!|XPASS|QFATAL|Totals:|QINFO  : tst_Gpu::[a-zA-Z]+\(|[0-9]+% tests passed|\*\*\*|Not Run|Timeout|Exception)' "$1" |
        grep -v 'initTestCase' | sed 's/^[0-9]*: //' | head -n "${2:-80}" || true
}

echo "Yee Studio GPU check in $ROOT: build $BUILD ($GENERATOR, $BUILD_TYPE, CUDA arch $ARCH, $JOBS jobs), deadline ${TOTAL}s, logs in $LOGDIR"
if COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); then
    git -C "$ROOT" diff --quiet HEAD 2>/dev/null || COMMIT="$COMMIT (+ local changes)"
    echo "commit: $COMMIT"
fi

# ---- GPUs -----------------------------------------------------------------------------------------------------------
if command -v nvidia-smi >/dev/null 2>&1; then
    stage nvidia-smi 20 420 "$LOGDIR/nvidia-smi.log" nvidia-smi
    show "$LOGDIR/nvidia-smi.log"
    nvidia-smi --query-gpu=index,name,memory.total,memory.used,clocks.max.memory,driver_version --format=csv \
        >"$LOGDIR/nvidia-smi-query.csv" 2>&1 || true
else
    echo "nvidia-smi: not found"
    SUMMARY+=("$(printf '%-16s %-30s %5s' nvidia-smi "not found" "-")")
fi

# ---- configure and build --------------------------------------------------------------------------------------------
stage configure 90 330 "$LOGDIR/configure.log" \
    cmake -S . -B "$BUILD" -G "$GENERATOR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DYEE_BUILD_UI=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCH"
grep -sE 'Yee Studio:|CUDA compiler identification|Qt6 Test not found|Error' "$LOGDIR/configure.log" | head -n 10 || true
tail_on_failure "$LOGDIR/configure.log" 30
CONFIGURED=$STAGE_RC

TARGETS=(yee yee-bench)
if ((CONFIGURED == 0)); then
    for t in tst_gpu tst_nccl; do
        if has_target "$t"; then TARGETS+=("$t"); else echo "target $t: not defined in this configuration"; fi
    done
    stage build 300 150 "$LOGDIR/build.log" \
        cmake --build "$BUILD" --parallel "$JOBS" --target "${TARGETS[@]}" -- "${KEEP_GOING[@]}"
    grep -sE 'error|warning: ' "$LOGDIR/build.log" | head -n 20 || true
    tail_on_failure "$LOGDIR/build.log" 30
else
    skip_stage build "not configured"
fi

TST_GPU=$BUILD/tests/tst_gpu
BENCH=$BUILD/app/yee-bench
[[ -x $BENCH ]] || BENCH=$(find "$BUILD" -name yee-bench -type f -perm -u+x 2>/dev/null | head -n 1 || true)

# ---- tests ----------------------------------------------------------------------------------------------------------
if [[ -x $TST_GPU ]]; then
    # -V streams every line into the log, so a test that hangs still leaves its output.
    stage ctest-gpu 150 100 "$LOGDIR/ctest-gpu.log" \
        ctest --test-dir "$BUILD" -L gpu -V --output-on-failure --timeout 240
    test_digest "$LOGDIR/ctest-gpu.log" 100
    stage ctest-gpu-sync 120 70 "$LOGDIR/ctest-gpu-sync.log" \
        env YEE_CUDA_SYNC=1 ctest --test-dir "$BUILD" -L gpu -V --output-on-failure --timeout 240
    test_digest "$LOGDIR/ctest-gpu-sync.log" 40
else
    echo "tst_gpu was not built ($TST_GPU missing)"
    skip_stage ctest-gpu "tst_gpu not built"
    skip_stage ctest-gpu-sync "tst_gpu not built"
fi

# ---- benchmark ------------------------------------------------------------------------------------------------------
if [[ -n $BENCH && -x $BENCH ]]; then
    # shellcheck disable=SC2086 # the argument strings are split on purpose
    stage bench-forward 120 50 "$LOGDIR/bench-forward.log" "$BENCH" --gpus all $BENCH_ARGS
    show "$LOGDIR/bench-forward.log"
    # shellcheck disable=SC2086
    stage bench-gradient 90 0 "$LOGDIR/bench-gradient.log" "$BENCH" --gpus all --gradient --no-forward $BENCH_GRAD_ARGS
    show "$LOGDIR/bench-gradient.log"
else
    echo "yee-bench was not built"
    skip_stage bench-forward "yee-bench not built"
    skip_stage bench-gradient "yee-bench not built"
fi

# ---- summary --------------------------------------------------------------------------------------------------------
echo
echo "================================ GPU check summary ================================"
echo "total $(($(date +%s) - START))s of ${TOTAL}s; logs: $LOGDIR"
if [[ -f $LOGDIR/nvidia-smi-query.csv ]]; then sed 's/^/gpu: /' "$LOGDIR/nvidia-smi-query.csv"; fi
for line in "${SUMMARY[@]}"; do echo "$line"; done
for log in ctest-gpu ctest-gpu-sync; do
    f=$LOGDIR/$log.log
    [[ -f $f ]] || continue
    echo "-- $log:"
    grep -sE 'Totals:|tests passed|tests failed' "$f" | sed -e 's/^[0-9]*: //' -e 's/^/   /' || true
    grep -sE -A1 'FAIL!|QFATAL' "$f" | sed 's/^[0-9]*: /   /' | head -n 40 || true
    grep -sE '\((Failed|Timeout|Not Run|SEGFAULT|Subprocess aborted|Exception)\)' "$f" | sed 's/^/   /' || true
done
for log in bench-forward bench-gradient; do
    f=$LOGDIR/$log.log
    [[ -f $f ]] || continue
    echo "-- $log:"
    grep -sE 'Gcell_per_s|t\(2\)/t\(1\)|^[12] +[0-9]|nothing measured|error|skipped' "$f" | sed 's/^/   /' || true
done
if grep -qs 'nothing measured' "$LOGDIR/bench-forward.log" "$LOGDIR/bench-gradient.log"; then
    echo "NOTE: no usable GPU was visible: the GPU tests skipped and nothing was measured"
fi
if ((FAILED)); then
    echo "RESULT: some stages failed or were skipped (see above)"
    exit 1
fi
echo "RESULT: all stages passed"
