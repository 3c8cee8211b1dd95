#!/usr/bin/env bash
# ctest gpu_bundle: packs the carried GPU bundle from this build's artefacts (scripts/gpu-bundle.sh
# --reuse), checks its size and contents, and runs its runner here, twice:
#   - as on a machine without a GPU: it must say "no GPU", write its summary and logs, and exit 0;
#   - with the GPU-required mode forced (YEE_GPU_REQUIRED=1): it must fail loudly, naming the mode, the
#     CUDA versions, the failed stages, and exit 1.
# On a machine whose nvidia-smi lists a GPU the first run would be the real GPU check: the test then skips
# (exit 77), since that check belongs to the bundle's runner on the GPU machine, not to ctest.
#   check-bundle.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
SRC=$1
BUILD=$2
WORK=$BUILD/gpu-bundle-check
rm -rf "$WORK"
mkdir -p "$WORK"
fail() {
    echo "check-bundle: FAIL: $*" >&2
    exit 1
}

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]'; then
    echo "check-bundle: this machine lists a GPU: run the bundle's run.sh instead"
    exit 77
fi

bash "$SRC/scripts/gpu-bundle.sh" --build "$BUILD" --reuse --out "$WORK/bundle" | tee "$WORK/pack.log"
grep -q 'MiB' "$WORK/pack.log" || fail "no size printed"
bytes=$(du -sb "$WORK/bundle" | cut -f1)
((bytes < 60 * 1048576)) || fail "bundle is $bytes bytes (limit 60 MiB)"
for f in run.sh MANIFEST lib.tar.gz bin.tar.gz scenes/quick_box.json; do
    [[ -e $WORK/bundle/$f ]] || fail "bundle lacks $f"
done
tar -tzf "$WORK/bundle/bin.tar.gz" >"$WORK/bins.txt"
for p in tst_gpu yee-bench yee-run; do
    grep -q "^bin/$p\$" "$WORK/bins.txt" || fail "bundle lacks bin/$p"
done
# Qt Core and HDF5 travel with it; libcurl is the stub; the C library stays the machine's.
tar -tzf "$WORK/bundle/lib.tar.gz" >"$WORK/libs.txt"
for l in libQt6Core.so.6 libQt6Test.so.6 libhdf5_serial.so.103; do
    grep -q "lib/$l\$" "$WORK/libs.txt" || fail "bundle lacks $l"
done
if grep -q 'lib/libc\.so' "$WORK/libs.txt"; then fail "bundle carries the C library"; fi

# 1. No GPU: reports it cleanly, exit 0.
set +e
env -u YEE_GPU_REQUIRED OUT="$WORK/out-nogpu" "$WORK/bundle/run.sh" >"$WORK/nogpu.log" 2>&1
rc=$?
set -e
cat "$WORK/nogpu.log"
((rc == 0)) || fail "the runner exited $rc without a GPU (expected 0)"
grep -q 'RESULT: no GPU on this machine' "$WORK/nogpu.log" || fail "no 'no GPU' result line"
grep -q 'GPU-required mode (YEE_GPU_REQUIRED): 0' "$WORK/nogpu.log" || fail "GPU-required mode not reported off"
[[ -s $WORK/out-nogpu/summary.txt && -s $WORK/out-nogpu/gpu-logs.tar.gz ]] || fail "summary or logs missing"
n=$(find "$WORK/out-nogpu" -type f | wc -l)
((n <= 8)) || fail "$n files under OUT (the device tool returns at most 8)"

# 2. GPU required but none usable: fails loudly, exit 1.
set +e
env YEE_GPU_REQUIRED=1 YEE_GPU_TOTAL_S=240 OUT="$WORK/out-required" "$WORK/bundle/run.sh" >"$WORK/required.log" 2>&1
rc=$?
set -e
cat "$WORK/required.log"
((rc == 1)) || fail "the runner exited $rc with GPU-required forced and no GPU (expected 1)"
grep -q 'RESULT: FAILED' "$WORK/required.log" || fail "no failure result line"
grep -q 'GPU required (YEE_GPU_REQUIRED=1)' "$WORK/required.log" || fail "the failures do not name the mode"
grep -Eq '^cuda: .*(runtime|no CUDA)' "$WORK/required.log" || fail "the CUDA versions are not in the summary"
for s in cuda-info tst_gpu bench-forward yee-run; do
    grep -Eq "^ +$s +FAILED" "$WORK/required.log" || fail "stage $s did not fail in GPU-required mode"
done
n=$(find "$WORK/out-required" -type f | wc -l)
((n <= 8)) || fail "$n files under OUT (the device tool returns at most 8)"
echo "check-bundle: ok ($bytes bytes)"
