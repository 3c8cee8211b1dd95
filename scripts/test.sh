#!/usr/bin/env bash
# README's second command (and CI's): install the Debian dependencies, build the release
# configuration into build/, run the whole test suite through ctest (labels `slow` and `gpu` left
# out), then fuzz the scene parser briefly when the fuzz script is there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

./scripts/setup-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)"

tests=(ctest --test-dir build --output-on-failure --label-exclude 'slow|gpu' -j "$(nproc)")
# Studio rendering tests need an X server; give them a virtual one when there is no display.
if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null 2>&1; then
  tests=(xvfb-run -a -s "-screen 0 1280x800x24" "${tests[@]}")
fi
"${tests[@]}"

if [ -x scripts/fuzz-scene.sh ]; then
  YEE_FUZZ_SECONDS="${YEE_FUZZ_SECONDS:-30}" scripts/fuzz-scene.sh
fi
