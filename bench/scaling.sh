#!/usr/bin/env bash
# Issue 17 item 5 in one run, alone and next to a competing busy job, with every ratio printed:
#   yee-bench --scaling   thread scaling 1 -> 2 threads, and the halo overlap on against off on two tiles
#                         (emulated devices, LocalComm);
#   MPI                   yee-run on the yee-bench box under mpirun: 1 rank against 2 ranks (2x1x1, one
#                         core each), and the 2-rank run with the overlap on against --no-overlap.
# These machines are noisy: compare the ratios of one run, not absolutes.
# Usage: bench/scaling.sh [BUILD_DIR] [N] [STEPS] [REPS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)" # absolute: yee-run runs from a temporary folder
n="${2:-128}"
steps="${3:-200}"
reps="${4:-2}"
tmp="$(mktemp -d)"
busy=()
stop_busy() {
  for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${busy[@]}"; do wait "$p" 2>/dev/null || true; done
  busy=()
}
trap 'stop_busy; rm -rf "$tmp"' EXIT
start_busy() { # one competing job of two busy threads (processes), as yee-bench --shared-cores uses
  for _ in 1 2; do
    (while :; do :; done) &
    busy+=("$!")
  done
  sleep 0.2
}

echo "== load before: $(uptime)"
echo "== yee-bench --scaling ${n}^3, ${steps} steps"
"$build/app/yee-bench" --scaling --n "$n" --steps "$steps" --reps "$((reps < 3 ? 3 : reps))"

"$build/app/yee-bench" --n "$n" --steps "$steps" --write-scene "$tmp/box.json"
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to core)
# Mcell/s of one run of: yee-run ARGS (the summary line "... (X Mcell/s); results: ...").
rate() { (cd "$tmp" && "$@" | awk '/Mcell\/s\)/ {gsub(/[(]/, "", $6); print $6}'); }
# Ratios are taken within pairs of back-to-back runs (the order swapped every pair) and the median over
# the pairs is printed with its spread, so a change of the load between pairs hits both sides.
med() { sort -g | awk '{v[NR] = $1} END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "min %.3f max %.3f", lo, hi}'; }
pairs=$((reps < 3 ? 3 : reps))
echo "== MPI: yee-run under mpirun, ${n}^3, ${steps} steps, one core per rank, ${pairs} alternating pairs"
for load in alone loaded; do
  [ "$load" = loaded ] && start_busy
  : >"$tmp/r21" && : >"$tmp/rov" && : >"$tmp/one" && : >"$tmp/two" && : >"$tmp/plain"
  for i in $(seq "$pairs"); do
    run1() { rate "${mpi[@]}" -np 1 "$build/app/yee-run" --output one.h5 box.json; }
    run2() { rate "${mpi[@]}" -np 2 "$build/app/yee-run" --tiles 2x1x1 --output two.h5 box.json; }
    run2p() { rate "${mpi[@]}" -np 2 "$build/app/yee-run" --tiles 2x1x1 --no-overlap --output two.h5 box.json; }
    if [ $((i % 2)) -eq 1 ]; then one=$(run1); two=$(run2); plain=$(run2p)
    else plain=$(run2p); two=$(run2); one=$(run1); fi
    echo "$one" >>"$tmp/one" && echo "$two" >>"$tmp/two" && echo "$plain" >>"$tmp/plain"
    awk -v a="${one:-0}" -v b="${two:-0}" 'BEGIN { print (a > 0 ? b / a : 0) }' >>"$tmp/r21"
    awk -v b="${two:-0}" -v c="${plain:-0}" 'BEGIN { print (c > 0 ? b / c : 0) }' >>"$tmp/rov"
  done
  printf "mpi %s ranks_1 Mcell_per_s %.1f ranks_2 Mcell_per_s %.1f ratio_2_to_1 %.3f (per pair: median, %s)\n" \
    "$load" "$(med <"$tmp/one")" "$(med <"$tmp/two")" "$(med <"$tmp/r21")" "$(spread <"$tmp/r21")"
  printf "mpi %s ranks_2 overlap Mcell_per_s %.1f no_overlap Mcell_per_s %.1f overlap_to_no_overlap %.3f (per pair: median, %s)\n" \
    "$load" "$(med <"$tmp/two")" "$(med <"$tmp/plain")" "$(med <"$tmp/rov")" "$(spread <"$tmp/rov")"
  [ "$load" = loaded ] && stop_busy
done
echo "== load after: $(uptime)"
