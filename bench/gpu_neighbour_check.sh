#!/usr/bin/env bash
# One call on the lent GPU for Hermite's neighbour scheme (--neighbours K): the Plummer sphere of N bodies,
# softening 1e-3, t 0 -> 1 on cuda, leapfrog at dt 1/2048 (the dt that first reaches |dE/E| <= 1e-6 there,
# PERFORMANCE.md) and plain Hermite's cheapest passing run (eta 0.025, max dt 1/16) as the baselines of this
# call, then Hermite with the neighbour scheme over K 16, 32, 64 and eta 0.02, 0.025, 0.03 at max dt 1/8;
# wall time, |dE/E|, full force+jerk evaluations per body and blocks of each.
#   bench/gpu_neighbour_check.sh [N] [PRECISIONS]   (NBODY: the binary; OUT: logs)
set -uo pipefail
n=${1:-65536}
precisions=${2:-"float double"}
nbody=${NBODY:-.device/bin/nbody}
out=${OUT:-/tmp/nbody_gpu_out}
mkdir -p "$out"
# One run: "wall_s |dE/E| full_per_body blocks".
run() {
  local t0 t1 s
  t0=$(date +%s.%N)
  s=$(timeout 300 "$nbody" run --preset plummer --n "$n" --softening 1e-3 --t-end 1 --backend cuda --quiet $1 2>&1)
  t1=$(date +%s.%N)
  printf '%s\n%s\n' "== $1" "$s" >> "$out/neighbour_runs.log"
  local drift blocks per
  drift=$(awk '/\|dE\/E\|/ {print $2; exit}' <<<"$s")
  blocks=$(awk '/^ *blocks/ {gsub(",", "", $2); print $2; exit}' <<<"$s")
  per=$(grep -o '([0-9.e+]* per body' <<<"$s" | head -1 | tr -d '(' | awk '{print $1}')
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') ${drift:-none} ${per:--} ${blocks:--}"
}
printf '%-7s %-48s %8s %10s %9s %8s\n' prec run wall_s '|dE/E|' full/body blocks | tee "$out/neighbour_table.txt"
for prec in $precisions; do
  configs=("--integrator leapfrog --dt 0.00048828125" "--integrator hermite --eta 0.025 --dt 0.0625")
  for k in 16 32 64; do
    for eta in 0.02 0.025 0.03; do configs+=("--integrator hermite --neighbours $k --eta $eta --dt 0.125"); done
  done
  for args in "${configs[@]}"; do
    read -r wall drift per blocks <<<"$(run "--precision $prec $args")"
    printf '%-7s %-48s %8.2f %10s %9s %8s\n' "$prec" "$args" "$wall" "$drift" "$per" "$blocks" | tee -a "$out/neighbour_table.txt"
  done
done
