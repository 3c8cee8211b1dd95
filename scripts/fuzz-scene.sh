#!/usr/bin/env bash
# Fuzz the scene parser and validator with libFuzzer + AddressSanitizer + UBSan.
#
#   scripts/fuzz-scene.sh [SECONDS]     (default 20)
#
# Builds tests/fuzz/fuzz_scene.cpp with clang++ directly (no CMake) into build-fuzz/, seeds a working
# corpus with resources/scenes and tests/bad_scenes, and runs for SECONDS. Exits non-zero when the
# fuzzer finds a crash, a leak, undefined behaviour or a failed round trip; the reproducer is left
# in build-fuzz/ (crash-*, leak-*, timeout-*).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-20}
out="$root/build-fuzz"
cxx=${CXX_FUZZ:-clang++}

command -v "$cxx" >/dev/null || { echo "fuzz-scene: $cxx not found (install clang)" >&2; exit 2; }
hdf5_flags=$(pkg-config --cflags --libs hdf5-serial 2>/dev/null || echo "-I/usr/include/hdf5/serial -lhdf5_serial")
# Eigen (header-only): the scene module's pole fit (scene/PoleFit.cpp).
eigen_flags=$(pkg-config --cflags eigen3 2>/dev/null || echo "-I/usr/include/eigen3")

mkdir -p "$out/corpus"
# The scene module and what it may include (backend/layers.cmake: core, files).
sources=(
  "$root/tests/fuzz/fuzz_scene.cpp"
  "$root"/backend/yee/scene/*.cpp
  "$root"/backend/yee/files/*.cpp
  "$root"/backend/yee/core/*.cpp
)
newest=$(ls -t "${sources[@]}" "$root"/backend/yee/scene/*.hpp "$root"/backend/yee/files/*.hpp "$root"/backend/yee/core/*.hpp | head -1)
if [[ ! -x "$out/fuzz_scene" || "$newest" -nt "$out/fuzz_scene" ]]; then
  echo "fuzz-scene: building $out/fuzz_scene"
  # shellcheck disable=SC2086
  "$cxx" -std=c++20 -g -O1 -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$root/backend" $eigen_flags "${sources[@]}" $hdf5_flags -o "$out/fuzz_scene"
fi

cp -f "$root"/resources/scenes/*.json "$root"/tests/bad_scenes/*.json "$out/corpus/"

echo "fuzz-scene: running for ${seconds}s"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
"$out/fuzz_scene" "$out/corpus" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -artifact_prefix="$out/" -print_final_stats=1
