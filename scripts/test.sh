#!/usr/bin/env bash
# README's second command (and CI's): install the Debian dependencies, build the release
# configuration into build/, run the whole test suite through ctest (label `slow` left
# out), then fuzz the scene parser briefly when the fuzz script is there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

./scripts/setup-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)"

# Studio rendering tests bring their own virtual X server (xvfb-run), see tests/ui/ui.cmake.
ctest --test-dir build --output-on-failure --label-exclude 'slow' -j "$(nproc)"

if [ -x scripts/fuzz-scene.sh ]; then
  scripts/fuzz-scene.sh "${YEE_FUZZ_SECONDS:-20}"
fi
