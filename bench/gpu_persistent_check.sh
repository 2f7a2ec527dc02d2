#!/usr/bin/env bash
# One call on the lent GPU for the persistent irregular blocks (cuda/irregular_blocks.cuh): the Plummer
# sphere of N bodies, softening 1e-3, t 0 -> 1 on cuda. Leapfrog at dt 1/2048 (the dt that first reaches
# |dE/E| <= 1e-6 there, PERFORMANCE.md) is the baseline of this call; Hermite with the neighbour scheme
# (K 64, eta 0.02, max dt 1/8) before (NBODY_BEFORE: graphs of a few kernels per block) and after (NBODY);
# then K, eta and the max step around it with the new binary. Each figure is the median of REPEATS runs of the run's own
# "wall time" (the summary's: no process start or CUDA context in it).
#   bench/gpu_persistent_check.sh [N] [REPEATS]   (NBODY, NBODY_BEFORE: the binaries; OUT: logs)
set -uo pipefail
n=${1:-65536}
repeats=${2:-3}
after=${NBODY:-.device/bin/nbody}
before=${NBODY_BEFORE:-.device/bin/nbody_before}
out=${OUT:-/tmp/nbody_gpu_out}
mkdir -p "$out"
# One configuration, REPEATS runs: "median_wall_s |dE/E| blocks".
measure() {
  local bin=$1 args=$2 walls=() drift blocks s
  for ((r = 0; r < repeats; ++r)); do
    s=$(timeout 300 "$bin" run --preset plummer --n "$n" --softening 1e-3 --t-end 1 --backend cuda $args 2>&1)
    printf '%s\n%s\n' "== $bin $args" "$s" >> "$out/persistent_runs.log"
    walls+=("$(awk '/^ *wall time/ {print $3; exit}' <<<"$s")")
    drift=$(awk '/\|dE\/E\|/ {print $2; exit}' <<<"$s")
    blocks=$(awk '/^ *blocks/ {gsub(",", "", $2); print $2; exit}' <<<"$s")
  done
  printf '%s\n' "${walls[@]}" | sort -g | awk -v d="${drift:-none}" -v b="${blocks:--}" \
    '{w[NR] = $1} END {printf "%s %s %s\n", w[int((NR + 1) / 2)], d, b}'
}
row() {
  local label=$1 bin=$2 args=$3
  read -r wall drift blocks <<<"$(measure "$bin" "$args")"
  printf '%-7s %-54s %8s %10s %8s\n' "$label" "$args" "$wall" "$drift" "$blocks" | tee -a "$out/persistent_table.txt"
}
printf '%-7s %-54s %8s %10s %8s\n' build run wall_s '|dE/E|' blocks | tee "$out/persistent_table.txt"
best="--integrator hermite --neighbours 64 --eta 0.02 --dt 0.125"
for prec in float double; do
  row base "$after" "--precision $prec --integrator leapfrog --dt 0.00048828125"
  row before "$before" "--precision $prec $best"
  row after "$after" "--precision $prec $best"
done
repeats=1
for prec in float double; do
  for kdt in "32 0.125" "64 0.125" "128 0.125" "64 0.25" "128 0.25" "64 0.5"; do
    read -r k dt <<<"$kdt"
    for eta in 0.02 0.025; do row after "$after" "--precision $prec --integrator hermite --neighbours $k --eta $eta --dt $dt"; done
  done
done
