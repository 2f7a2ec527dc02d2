#!/usr/bin/env bash
# The issue-21 figure (Plummer N = 65,536, softening 1e-3, t 0 -> 1, cuda) over the neighbour scheme's two
# accuracies, --eta (irregular steps) and --eta-regular (regular steps, the full sums), one run each, leapfrog
# at dt 1/2048 first as the call's baseline. Prints one row a run: precision, K, eta, eta-regular, wall s,
# stepping s, |dE/E|, blocks, full force+jerk evaluations (PERFORMANCE.md, "Twelfth pass").
#   NBODY=.device/bin/nbody bench/gpu_eta_regular_sweep.sh [N] [PRECISION] [K ...]
# ETAS and ETAS_REGULAR (space-separated) override the grid (default 0.02 0.025 0.03 0.035 and
# 0.015 0.02 0.025).
set -uo pipefail
nbody=${NBODY:-.device/bin/nbody}
n=${1:-65536}
precision=${2:-float}
shift $(($# < 2 ? $# : 2))
ks=("$@")
((${#ks[@]})) || ks=(32)
read -r -a etas <<<"${ETAS:-0.02 0.025 0.03 0.035}"
read -r -a regular <<<"${ETAS_REGULAR:-0.015 0.02 0.025}"
row() {  # label, then the run's own flags
  local label=$1 s
  shift
  s=$(timeout 300 "$nbody" run --preset plummer --n "$n" --softening 1e-3 --t-end 1 --backend cuda \
    --precision "$precision" "$@" 2>&1)
  printf '%-6s %-34s %8s %8s %10s %7s %9s\n' "$precision" "$label" \
    "$(awk '/^ *wall time/ {print $3; exit}' <<<"$s")" \
    "$(awk '/^ *wall time/ {gsub(/\(/, ""); print $6; exit}' <<<"$s")" \
    "$(awk '/\|dE\/E\|/ {print $2; exit}' <<<"$s")" \
    "$(awk '/^ *blocks/ {gsub(",", "", $2); print $2; exit}' <<<"$s")" \
    "$(awk '/^ *blocks/ {print $3; exit}' <<<"$s")"
}
printf '%-6s %-34s %8s %8s %10s %7s %9s\n' precision run wall_s step_s '|dE/E|' blocks full_sums
row "leapfrog dt 1/2048" --integrator leapfrog --dt 0.00048828125
for k in "${ks[@]}"; do
  for e in "${etas[@]}"; do
    for r in "${regular[@]}"; do
      row "K $k eta $e eta-regular $r" --integrator hermite --dt 0.125 --neighbours "$k" --eta "$e" \
        --eta-regular "$r"
    done
  done
done
