#!/usr/bin/env bash
# README's first command: install the Debian dependencies, build the release configuration, then run
# the main job: the studio on the bundled example scene where a display exists, otherwise the headless
# runner on it (results go to out/).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

./scripts/setup-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)"

scene="$root/resources/scenes/quick_box.json"
studio="$(find build -maxdepth 3 -type f -name yee-studio -perm -u+x 2>/dev/null | head -n 1)"
if [ -n "${DISPLAY:-}" ] && [ -n "$studio" ]; then
  exec "$studio" "$scene"
fi

mkdir -p out
cd out
exec "$root/build/app/yee-run" "$scene"
