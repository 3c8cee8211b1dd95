#!/usr/bin/env bash
# Side-by-side throughput in one run (these machines are noisy: compare ratios, not absolutes):
#   STREAM read-modify-write bandwidth, Meep (Debian python3-meep) on the same N^3 PML box, yee-bench in
#   float32 and float64, and yee-bench's decomposed runs. Prints the ratios the issues ask for.
# Usage: bench/compare.sh [BUILD_DIR] [N] [STEPS] [ROUNDS, default 2]
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
rounds="${4:-2}"
shared="${YEE_SHARED_BENCH:-$root/../shared/bench}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "== load before: $(uptime)"
echo "== STREAM (2 threads)"
gcc -O3 -march=native -fopenmp "$shared/stream.c" -o "$tmp/stream"
OMP_NUM_THREADS=2 OMP_PROC_BIND=close "$tmp/stream" | tee "$tmp/stream.txt"
rmw=$(awk 'tolower($1) ~ /rmw/ {print $2}' "$tmp/stream.txt" | head -1)

# Rounds: each runs openEMS, yee-bench and Meep back to back (the order reversed every other round, so
# yee sits between its peers); every ratio is taken within one round, then the median over the rounds.
have_meep=0
/usr/bin/python3 -c 'import meep' 2>/dev/null && have_meep=1 ||
  echo "meep not importable (apt-get install python3-meep python3-matplotlib); skipping"
have_oems=0
/usr/bin/python3 -c 'import openEMS' 2>/dev/null && have_oems=1 ||
  echo "openEMS not importable (apt-get install openems python3-openems); skipping"
run_meep() {
  [ "$have_meep" = 1 ] || return 0
  echo "== round $1: Meep ${n}^3, ${steps} steps (serial, double)"
  /usr/bin/time -f "peak_rss_kib %M" -o "$tmp/rss.meep.$1" /usr/bin/python3 "$shared/meep_box.py" --n "$n" --steps "$steps" | tee "$tmp/meep.txt"
  grep -oE 'Mcell_per_s[^0-9]*[0-9]+(\.[0-9]+)?' "$tmp/meep.txt" | grep -oE '[0-9]+(\.[0-9]+)?$' | head -1 >"$tmp/meep.$1"
}
run_oems() {
  [ "$have_oems" = 1 ] || return 0
  echo "== round $1: openEMS ${n}^3, ${steps} steps (float, 2 threads)"
  (cd "$tmp" && /usr/bin/time -f "peak_rss_kib %M" -o "$tmp/rss.oems.$1" /usr/bin/python3 "$shared/openems_box.py" --n "$n" --steps "$steps" --threads 2) | tee "$tmp/oems.txt" || true
  # openEMS's closing line: "Speed: 121.3 MCells/s"
  grep -oE 'Speed: *[0-9]+(\.[0-9]+)? *MCells/s' "$tmp/oems.txt" | grep -oE '[0-9]+(\.[0-9]+)?' | tail -1 >"$tmp/oems.$1"
}
run_yee() {
  echo "== round $1: yee-bench ${n}^3, ${steps} steps"
  "$build/app/yee-bench" --n "$n" --steps "$steps" --reps 1 | tee "$tmp/yee.$1"
}
for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then run_oems "$r"; run_yee "$r"; run_meep "$r"
  else run_meep "$r"; run_yee "$r"; run_oems "$r"; fi
done
med() { sort -g | awk '{v[NR] = $1} END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: >"$tmp/r.f32oems" && : >"$tmp/r.f32meep" && : >"$tmp/r.f64meep" && : >"$tmp/r.roof" && : >"$tmp/r.roofstream"
echo "== per round"
for r in $(seq "$rounds"); do
  f32=$(awk '/^float32 Mcell_per_s/ {print $3}' "$tmp/yee.$r")
  f64=$(awk '/^float64 Mcell_per_s/ {print $3}' "$tmp/yee.$r")
  roof=$(awk '/^float32 Mcell_per_s/ {for (i = 1; i < NF; ++i) if ($i == "ideal_roofline_fraction") print $(i + 1)}' "$tmp/yee.$r")
  m=$(cat "$tmp/meep.$r" 2>/dev/null || true)
  o=$(cat "$tmp/oems.$r" 2>/dev/null || true)
  line="round $r: yee float32 $f32 float64 $f64 Mcell/s; ideal roofline fraction (in-run rmw) $roof"
  echo "$roof" >>"$tmp/r.roof"
  if [ -n "$o" ]; then
    line="$line; openEMS $o"
    awk -v a="$f32" -v b="$o" 'BEGIN { print a / b }' >>"$tmp/r.f32oems"
  fi
  if [ -n "$m" ]; then
    line="$line; Meep $m"
    awk -v a="$f32" -v b="$m" 'BEGIN { print a / b }' >>"$tmp/r.f32meep"
    awk -v a="$f64" -v b="$m" 'BEGIN { print a / b }' >>"$tmp/r.f64meep"
  fi
  [ -n "$rmw" ] && awk -v a="$f32" -v bw="$rmw" 'BEGIN { print a * 48 / (bw * 1000) }' >>"$tmp/r.roofstream"
  echo "$line"
done

echo "== MPI: yee-run single rank vs mpirun -np 2 (2x1x1) on the same box"
"$build/app/yee-bench" --n "$n" --steps "$steps" --write-scene "$tmp/box.json"
(cd "$tmp" && "$build/app/yee-run" --quiet --output one.h5 box.json && true)
one=$(cd "$tmp" && /usr/bin/time -f "peak_rss_kib %M" -o rss.txt "$build/app/yee-run" --output one.h5 box.json | awk '/Mcell\/s\)/ {gsub(/[(]/,"",$6); print $6}')
rss=$(awk '/peak_rss_kib/ {print $2}' "$tmp/rss.txt")
awk -v k="$rss" -v n="$n" 'BEGIN { printf "yee-run float32 peak RSS %.1f MiB = %.1f B/cell\n", k / 1024, k * 1024 / (n * n * n) }'
for peer in meep oems; do
  [ -f "$tmp/rss.$peer.1" ] && awk -v p="$peer" -v n="$n" '/peak_rss_kib/ { printf "%s peak RSS (whole process, python included) %.1f MiB = %.1f B/cell\n", p, $2 / 1024, $2 * 1024 / (n * n * n) }' "$tmp/rss.$peer.1"
done
two=$(cd "$tmp" && mpirun --allow-run-as-root --oversubscribe -np 2 "$build/app/yee-run" --tiles 2x1x1 --output two.h5 box.json | awk '/Mcell\/s\)/ {gsub(/[(]/,"",$6); print $6}')
echo "yee-run 1 rank: $one Mcell/s; mpirun -np 2: $two Mcell/s"
[ -n "$one" ] && [ -n "$two" ] && awk -v a="$two" -v b="$one" 'BEGIN { printf "mpi_2_ranks ratio_to_single %.3f\n", a / b }'

echo "== ratios (median over $rounds rounds, each ratio within one round)"
[ -s "$tmp/r.f32meep" ] && printf "float32 / meep = %.2f\nfloat64 / meep = %.2f\n" "$(med <"$tmp/r.f32meep")" "$(med <"$tmp/r.f64meep")"
[ -s "$tmp/r.f32oems" ] && printf "float32 / openEMS = %.2f\n" "$(med <"$tmp/r.f32oems")"
printf "float32 fraction of the 48 B/cell ideal roofline, yee-bench's in-run rmw = %.3f\n" "$(med <"$tmp/r.roof")"
[ -s "$tmp/r.roofstream" ] && printf "float32 fraction of the 48 B/cell ideal roofline, STREAM's rmw = %.3f\n" "$(med <"$tmp/r.roofstream")"
echo "== yee-bench: two tiles against one, threads 1 -> 2 (ratios within this run)"
"$build/app/yee-bench" --n "$n" --steps "$steps" --reps 1 --decomposed | grep -E 'ratio_to_single|ratio_2_to_1' || true
echo "== load after: $(uptime)"
