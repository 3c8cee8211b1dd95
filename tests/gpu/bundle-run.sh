#!/usr/bin/env bash
# Runner of the carried GPU bundle (scripts/gpu-bundle.sh copies this file into the bundle as run.sh).
# Runs on the GPU test machine (CUDA 13 driver, Python 3.12 with the pip package nvidia-nccl-cu13, no Qt /
# HDF5 / network) from the bundle folder alone:
#
#   1. unpacks the bundle's programs and libraries (bin.tar.gz, lib.tar.gz, once) and sets LD_LIBRARY_PATH
#      for the bundle's programs (only for them; the machine's own tools keep their libraries): the
#      bundle's lib/, its C++ runtime (lib/compat) only where the machine's libstdc++ is too old for the
#      programs, the pip NCCL's lib folder (found with python3; YEE_NCCL_LIB overrides), then what was already set;
#   2. GPU-required mode: when `nvidia-smi -L` lists a GPU, YEE_GPU_REQUIRED=1 (unless set otherwise):
#      then a GPU test that skips for any reason but "needs N GPUs, M visible" fails, yee-bench's "nothing
#      measured" fails, and unusable CUDA fails with the runtime and driver versions printed;
#   3. stages, each under `timeout` within an overall deadline (YEE_GPU_TOTAL_S, default 450 s): CUDA info,
#      tst_kernels, tst_gpu, tst_nccl, a YEE_CUDA_SYNC=1 pass, the forward roofline and value-and-grad
#      benchmarks, and a yee-run of an example scene on cuda:0;
#   4. the summary (every stage, test totals, every failure and every skip, benchmark figures) on stdout
#      and in $OUT/summary.txt; all logs in $OUT/gpu-logs.tar.gz, the tst_gpu and forward-benchmark logs
#      also as plain files (5 files under $OUT in all; without $OUT, ./gpu-check-out).
#
# Without a GPU (no nvidia-smi, or it lists none) and without YEE_GPU_REQUIRED=1 it runs only the no-GPU
# checks (the programs load with the bundle's libraries, tst_gpu's noGpuBehaviour, yee-run
# --list-devices), prints "no GPU" and exits 0. Exit status: 0 when every stage passed, 1 otherwise.
set -uo pipefail

B=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOTAL=${YEE_GPU_TOTAL_S:-450}
RESULTS=${OUT:-$PWD/gpu-check-out}
mkdir -p "$RESULTS"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yee-gpu-check.XXXXXX")
LOGS=$WORK/logs
mkdir -p "$LOGS"
START=$(date +%s)
DEADLINE=$((START + TOTAL))
SUMMARY=()
FAILED=0
STAGE_RC=0
say() { echo "$*" | tee -a "$LOGS/runner.log"; }

[[ -d /usr/local/nvidia/bin ]] && PATH=$PATH:/usr/local/nvidia/bin

# ---- programs and libraries ---------------------------------------------------------------------------------------
# unpack NAME: NAME.tar.gz into the bundle folder (once, and again when the archive is newer), or into the
# run's work folder when the bundle is read-only; prints the folder it went to.
unpack() {
    local name=$1
    if [[ -d $B/$name && ! $B/$name.tar.gz -nt $B/$name ]]; then
        echo "$B/$name"
    elif [[ -w $B ]]; then
        rm -rf "${B:?}/$name" && tar -C "$B" -xzf "$B/$name.tar.gz" && touch "$B/$name" && echo "$B/$name"
    else
        tar -C "$WORK" -xzf "$B/$name.tar.gz" && echo "$WORK/$name"
    fi
}
LIB=$(unpack lib)
BIN=$(unpack bin)
NCCL_LIB=${YEE_NCCL_LIB:-}
if [[ -z $NCCL_LIB ]] && command -v python3 >/dev/null 2>&1; then
    NCCL_LIB=$(python3 -c 'import os, nvidia.nccl as m; print(os.path.join(list(m.__path__)[0], "lib"))' \
        2>/dev/null || true)
fi
NCCL_NOTE="pip NCCL: not found (python3 -c 'import nvidia.nccl' failed)"
if [[ -n $NCCL_LIB && -e $NCCL_LIB/libnccl.so.2 ]]; then
    NCCL_NOTE="pip NCCL: $NCCL_LIB/libnccl.so.2"
elif [[ -n $NCCL_LIB ]]; then
    NCCL_NOTE="pip NCCL: no libnccl.so.2 in $NCCL_LIB"
fi
LDP=$LIB${NCCL_LIB:+:$NCCL_LIB}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
COMPAT_NOTE="C++ runtime: the machine's"
if LD_LIBRARY_PATH=$LDP ldd "$BIN/tst_gpu" 2>&1 | grep -Eq 'not found|version .* not found'; then
    LDP=$LIB:$LIB/compat${NCCL_LIB:+:$NCCL_LIB}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    COMPAT_NOTE="C++ runtime: the bundle's (lib/compat; the machine's is missing or too old)"
fi
# Only the bundle's programs get this path (stage() passes it): the machine's own tools keep theirs.

# ---- GPU-required mode --------------------------------------------------------------------------------------------
GPU_LISTED=0
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -L >"$LOGS/nvidia-smi-L.txt" 2>&1 || true
    grep -q '^GPU [0-9]' "$LOGS/nvidia-smi-L.txt" && GPU_LISTED=1
    nvidia-smi >"$LOGS/nvidia-smi.txt" 2>&1 || true
    nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,memory.used,driver_version --format=csv \
        >"$LOGS/nvidia-smi-query.csv" 2>&1 || true
else
    echo "nvidia-smi: not found" >"$LOGS/nvidia-smi-L.txt"
fi
export YEE_GPU_REQUIRED=${YEE_GPU_REQUIRED:-$GPU_LISTED}
REQUIRED=0
[[ $YEE_GPU_REQUIRED == 1 ]] && REQUIRED=1
export QT_QPA_PLATFORM=offscreen

say "Yee Studio GPU check from $B ($(sed -n 's/^commit: //p' "$B/MANIFEST" 2>/dev/null)), deadline ${TOTAL}s"
say "GPUs listed by nvidia-smi: $GPU_LISTED; GPU-required mode (YEE_GPU_REQUIRED): $YEE_GPU_REQUIRED"
say "$NCCL_NOTE; $COMPAT_NOTE"
say "LD_LIBRARY_PATH of the bundle's programs: $LDP"

# stage NAME BUDGET_S RESERVE_S COMMAND...: COMMAND under `timeout`, at most BUDGET_S seconds and never past
# the deadline minus RESERVE_S (kept for the stages after it); output in $LOGS/NAME.log. Sets STAGE_RC.
stage() {
    local name=$1 budget=$2 reserve=$3
    shift 3
    local now left limit status t0 dt log=$LOGS/$name.log
    reserve=$((reserve * TOTAL / 450)) # reserves are written for the default deadline
    now=$(date +%s)
    left=$((DEADLINE - now - reserve))
    limit=$budget
    ((left < limit)) && limit=$left
    if ((limit < 5)); then
        SUMMARY+=("$(printf '%-15s %-28s %5s' "$name" "NOT RUN (out of time)" "-")")
        STAGE_RC=125
        FAILED=1
        return 0
    fi
    echo "==== $name (limit ${limit}s): $*"
    t0=$(date +%s)
    STAGE_RC=0
    timeout -k 10 "$limit" env LD_LIBRARY_PATH="$LDP" "$@" >"$log" 2>&1 || STAGE_RC=$?
    dt=$(($(date +%s) - t0))
    # In GPU-required mode a skip for anything but too few GPUs, and "nothing measured", fail the stage.
    if ((STAGE_RC == 0 && REQUIRED)); then
        if grep -E '^SKIP +:' -A0 "$log" | grep -Evq 'needs [0-9]+ GPUs, [0-9]+ visible'; then STAGE_RC=90; fi
        if grep -q 'nothing measured' "$log"; then STAGE_RC=91; fi
        if grep -q 'running on [0-9]* emulated CPU device' "$log"; then STAGE_RC=92; fi
    fi
    case $STAGE_RC in
        0) status=ok ;;
        90) status="FAILED (skips, GPU required)" ;;
        91) status="FAILED (nothing measured)" ;;
        92) status="FAILED (ran on the CPU)" ;;
        124 | 137) status="TIMED OUT (${limit}s)" ;;
        *) status="FAILED (exit $STAGE_RC)" ;;
    esac
    ((STAGE_RC == 0)) || FAILED=1
    SUMMARY+=("$(printf '%-15s %-28s %4ds' "$name" "$status" "$dt")")
    echo "---- $name: $status in ${dt}s"
    if ((STAGE_RC != 0)); then tail -n 15 "$log" | sed 's/^/     | /'; fi
    return 0
}

have() { [[ -x $BIN/$1 ]]; }

if ((GPU_LISTED == 0 && REQUIRED == 0)); then
    # ---- no GPU: the bundle loads and says so ------------------------------------------------------------------
    stage cuda-info 30 0 "$BIN/yee-bench" --cuda-info
    stage list-devices 30 0 "$BIN/yee-run" --list-devices
    stage no-gpu 120 0 "$BIN/tst_gpu" noGpuBehaviour
    for t in tst_nccl tst_kernels; do
        have "$t" && stage "$t-loads" 30 0 "$BIN/$t" -functions
    done
else
    # ---- GPU (or GPU required): every stage ----------------------------------------------------------------------
    stage cuda-info 30 420 "$BIN/yee-bench" --cuda-info
    cat "$LOGS/cuda-info.log"
    have tst_kernels && stage tst_kernels 90 360 "$BIN/tst_kernels"
    stage tst_gpu 200 220 "$BIN/tst_gpu"
    have tst_nccl && stage tst_nccl 90 170 "$BIN/tst_nccl"
    # The z-marching launch (YEE_CUDA_BLOCKING) gets one row with every launch waited for and checked.
    stage sync 90 110 env YEE_CUDA_SYNC=1 "$BIN/tst_gpu" forwardMatchesCpu tilesSharingOneGpu ledgerMatchesDriver \
        "marchingLaunchBitIdentical:forward f32 block_z 5"
    # shellcheck disable=SC2086 # the argument strings are split on purpose
    stage bench-forward 80 50 "$BIN/yee-bench" --gpus all ${YEE_BENCH_ARGS:---gpu-n 384 --gpu-steps 200 --reps 2}
    # shellcheck disable=SC2086
    stage bench-gradient 60 15 "$BIN/yee-bench" --gpus all --gradient --no-forward ${YEE_BENCH_GRAD_ARGS:-}
    stage yee-run 30 0 "$BIN/yee-run" --devices cuda:0 --max-steps 200 -o "$WORK/quick_box.h5" \
        "$B/scenes/quick_box.json"
fi

# ---- summary ------------------------------------------------------------------------------------------------------
{
    echo "================================ GPU check summary ================================"
    echo "bundle: $(sed -n 's/^commit: //p' "$B/MANIFEST" 2>/dev/null); $(sed -n 's/^built: //p' "$B/MANIFEST" 2>/dev/null)"
    echo "total $(($(date +%s) - START))s of ${TOTAL}s; GPU-required mode: $YEE_GPU_REQUIRED; $NCCL_NOTE"
    sed 's/^/nvidia-smi: /' "$LOGS/nvidia-smi-L.txt"
    [[ -f $LOGS/nvidia-smi-query.csv ]] && sed 's/^/gpu: /' "$LOGS/nvidia-smi-query.csv"
    grep -sh 'yee-bench: CUDA build' "$LOGS/cuda-info.log" | sed 's/^yee-bench: /cuda: /'
    for f in "$LOGS"/*.log; do
        n=$(basename "$f" .log)
        [[ $n == runner ]] && continue
        grep -q '^Totals:' "$f" && echo "-- $n: $(grep '^Totals:' "$f" | tail -n 1)"
        nfail=$(grep -Ec '^(FAIL!|QFATAL)' "$f" || true)
        grep -E '^(FAIL!|QFATAL)' "$f" | head -n 12 | sed -e 's/^FAIL!  : */   FAIL: /' -e 's/^QFATAL : */   QFATAL: /'
        ((nfail > 12)) && echo "   ... $((nfail - 12)) more failures in $n.log"
        grep -E '^SKIP +:' "$f" | sed -e 's/^SKIP +: */   skip: /'
    done
    for n in bench-forward bench-gradient; do
        f=$LOGS/$n.log
        [[ -f $f ]] || continue
        echo "-- $n:"
        grep -E 'Gcell_per_s|t\(2\)/t\(1\)|^cuda:|^[12] +[0-9]|nothing measured|GPU required|error|skipped' "$f" |
            sed 's/^/   /' | head -n 30
    done
    echo "-- stages:"
    for line in "${SUMMARY[@]}"; do echo "   $line"; done
    nskip=$(cat "$LOGS"/*.log | grep -Ec '^SKIP +:' || true)
    echo "skips: $nskip (listed above)"
    if ((GPU_LISTED == 0 && REQUIRED == 0)); then
        if ((FAILED)); then
            echo "RESULT: no GPU on this machine, and the bundle's no-GPU checks FAILED (see above)"
        else
            echo "RESULT: no GPU on this machine: the bundle loads and reports no GPU; nothing ran on a GPU"
        fi
    elif ((FAILED)); then
        echo "RESULT: FAILED: some stages failed or did not run (see above)"
    else
        echo "RESULT: all stages passed on the GPU"
    fi
} >"$LOGS/summary.txt" 2>&1
echo
cat "$LOGS/summary.txt"
cp "$LOGS/summary.txt" "$RESULTS/summary.txt"
for n in tst_gpu bench-forward; do [[ -f $LOGS/$n.log ]] && cp "$LOGS/$n.log" "$RESULTS/$n.log"; done
tar -C "$WORK" -czf "$RESULTS/gpu-logs.tar.gz" logs
rm -rf "$WORK"
exit "$FAILED"
