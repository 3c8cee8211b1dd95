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
"$build/app/yee-bench" --scaling --n "$n" --steps "$steps" --reps "$reps"

"$build/app/yee-bench" --n "$n" --steps "$steps" --write-scene "$tmp/box.json"
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to core)
# Best Mcell/s of $reps runs of: yee-run ARGS (the summary line "... (X Mcell/s); results: ...").
best() {
  local b=0 v
  for _ in $(seq "$reps"); do
    v=$(cd "$tmp" && "$@" | awk '/Mcell\/s\)/ {gsub(/[(]/, "", $6); print $6}')
    b=$(awk -v a="$b" -v c="${v:-0}" 'BEGIN { print (c > a ? c : a) }')
  done
  echo "$b"
}
echo "== MPI: yee-run under mpirun, ${n}^3, ${steps} steps, one core per rank"
for load in alone loaded; do
  [ "$load" = loaded ] && start_busy
  one=$(best "${mpi[@]}" -np 1 "$build/app/yee-run" --output one.h5 box.json)
  two=$(best "${mpi[@]}" -np 2 "$build/app/yee-run" --tiles 2x1x1 --output two.h5 box.json)
  plain=$(best "${mpi[@]}" -np 2 "$build/app/yee-run" --tiles 2x1x1 --no-overlap --output two.h5 box.json)
  awk -v l="$load" -v a="$one" -v b="$two" -v c="$plain" 'BEGIN {
    printf "mpi %s ranks_1 Mcell_per_s %.1f ranks_2 Mcell_per_s %.1f ratio_2_to_1 %.3f\n", l, a, b, (a > 0 ? b / a : 0)
    printf "mpi %s ranks_2 overlap Mcell_per_s %.1f no_overlap Mcell_per_s %.1f overlap_to_no_overlap %.3f\n", l, b, c, (c > 0 ? b / c : 0)
  }'
  [ "$load" = loaded ] && stop_busy
done
echo "== load after: $(uptime)"
