#!/usr/bin/env bash
# Side-by-side throughput in one run (these machines are noisy: compare ratios, not absolutes):
#   STREAM read-modify-write bandwidth, Meep (Debian python3-meep) on the same N^3 PML box, yee-bench in
#   float32 and float64, and yee-bench's decomposed runs. Prints the ratios the issues ask for.
# Usage: bench/compare.sh [BUILD_DIR] [N] [STEPS]
#   Needs: apt-get install python3-meep python3-matplotlib (and openems python3-openems for openEMS); the
#   reference scripts in ../shared/bench. Peers that are not installed are skipped.
# Related one-run ratio benchmarks (not run here):
#   yee-bench --shared-cores resources/scenes/waveguide_bend.json   (slowdown next to a busy 2-thread job)
#   yee-bench --dispersive --n 96                                    (issue 13: cost of a dispersive cell)
#   yee-bench --gradient --no-forward                                (value-and-grad / forward, phase costs)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)" # absolute: the MPI part runs in a temporary folder
n="${2:-200}"
steps="${3:-200}"
shared="${YEE_SHARED_BENCH:-$root/../shared/bench}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "== STREAM (2 threads)"
gcc -O3 -march=native -fopenmp "$shared/stream.c" -o "$tmp/stream"
OMP_NUM_THREADS=2 OMP_PROC_BIND=close "$tmp/stream" | tee "$tmp/stream.txt"
rmw=$(awk 'tolower($1) ~ /rmw/ {print $2}' "$tmp/stream.txt" | head -1)

echo "== Meep ${n}^3, ${steps} steps (serial, double)"
meep=""
if /usr/bin/python3 -c 'import meep' 2>/dev/null; then
  /usr/bin/python3 "$shared/meep_box.py" --n "$n" --steps "$steps" | tee "$tmp/meep.txt"
  meep=$(grep -oE 'Mcell_per_s[^0-9]*[0-9]+(\.[0-9]+)?' "$tmp/meep.txt" | grep -oE '[0-9]+(\.[0-9]+)?$' | head -1)
else
  echo "meep not importable (apt-get install python3-meep python3-matplotlib); skipping"
fi

echo "== openEMS ${n}^3, ${steps} steps (float, 2 threads)"
oems=""
if /usr/bin/python3 -c 'import openEMS' 2>/dev/null; then
  (cd "$tmp" && /usr/bin/python3 "$shared/openems_box.py" --n "$n" --steps "$steps" --threads 2) | tee "$tmp/oems.txt" || true
  # openEMS's closing line: "Speed: 121.3 MCells/s"
  oems=$(grep -oE 'Speed: *[0-9]+(\.[0-9]+)? *MCells/s' "$tmp/oems.txt" | grep -oE '[0-9]+(\.[0-9]+)?' | tail -1)
else
  echo "openEMS not importable (apt-get install openems python3-openems); skipping"
fi

echo "== yee-bench ${n}^3, ${steps} steps"
"$build/app/yee-bench" --n "$n" --steps "$steps" --reps 2 --decomposed | tee "$tmp/yee.txt"
f32=$(awk '/^float32 Mcell_per_s/ {print $3}' "$tmp/yee.txt")
f64=$(awk '/^float64 Mcell_per_s/ {print $3}' "$tmp/yee.txt")

echo "== MPI: yee-run single rank vs mpirun -np 2 (2x1x1) on the same box"
"$build/app/yee-bench" --n "$n" --steps "$steps" --write-scene "$tmp/box.json"
(cd "$tmp" && "$build/app/yee-run" --quiet --output one.h5 box.json && true)
one=$(cd "$tmp" && /usr/bin/time -f "peak_rss_kib %M" -o rss.txt "$build/app/yee-run" --output one.h5 box.json | awk '/Mcell\/s\)/ {gsub(/[(]/,"",$6); print $6}')
rss=$(awk '/peak_rss_kib/ {print $2}' "$tmp/rss.txt")
awk -v k="$rss" -v n="$n" 'BEGIN { printf "yee-run float32 peak RSS %.1f MiB = %.1f B/cell\n", k / 1024, k * 1024 / (n * n * n) }'
two=$(cd "$tmp" && mpirun --allow-run-as-root --oversubscribe -np 2 "$build/app/yee-run" --tiles 2x1x1 --output two.h5 box.json | awk '/Mcell\/s\)/ {gsub(/[(]/,"",$6); print $6}')
echo "yee-run 1 rank: $one Mcell/s; mpirun -np 2: $two Mcell/s"
[ -n "$one" ] && [ -n "$two" ] && awk -v a="$two" -v b="$one" 'BEGIN { printf "mpi_2_ranks ratio_to_single %.3f\n", a / b }'

echo "== ratios"
if [ -n "$meep" ]; then
  awk -v a="$f32" -v b="$f64" -v m="$meep" 'BEGIN { printf "float32 / meep = %.2f\nfloat64 / meep = %.2f\n", a / m, b / m }'
fi
if [ -n "$oems" ]; then
  awk -v a="$f32" -v m="$oems" 'BEGIN { printf "float32 / openEMS = %.2f\n", a / m }'
fi
if [ -n "$rmw" ]; then
  awk -v a="$f32" -v bw="$rmw" 'BEGIN { printf "float32 fraction of STREAM-rmw roofline (84 B/cell moved) = %.3f\n", a * 84 / (bw * 1000) }'
  awk -v a="$f32" -v bw="$rmw" 'BEGIN { printf "float32 fraction of STREAM-rmw roofline (48 B/cell ideal) = %.3f\n", a * 48 / (bw * 1000) }'
fi
grep -E 'ratio_to_single|roofline_fraction|ratio_2_to_1' "$tmp/yee.txt" || true
