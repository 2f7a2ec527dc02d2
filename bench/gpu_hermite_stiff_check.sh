#!/usr/bin/env bash
# One call on the lent GPU: Hermite against leapfrog where close encounters matter more than in the issue's
# configuration: the Plummer sphere of 65,536 bodies at softening 1e-4 (ten times smaller), t = 0 -> 1.
# Leapfrog's dt is halved from 1/2048 until |dE/E| <= 1e-6 (or 1/32768); Hermite at its defaults and at the
# cheapest setting that passed at softening 1e-3.   bench/gpu_hermite_stiff_check.sh [float|double]
set -uo pipefail
prec=${1:-float}
bin=.device/bin
run() {  # prints "wall_s |dE/E| blocks evaluations" of one nbody run
  local t0 t1 s
  t0=$(date +%s.%N)
  s=$("$bin/nbody" run --preset plummer --n 65536 --backend cuda --softening 1e-4 --t-end 1 --precision "$prec" "$@" 2>&1)
  t1=$(date +%s.%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') $(awk '/\|dE\/E\|/ {print $2; exit}' <<<"$s")" \
    "$(awk '$1 == "blocks" {sub(",", "", $2); print $2, $3; exit}' <<<"$s")"
}
printf '%-8s %-40s %8s %10s %8s %12s\n' prec run wall_s '|dE/E|' blocks evaluations
for em in "0.02 0.03125" "0.025 0.0625"; do
  read -r eta maxdt <<<"$em"
  read -r w d k e <<<"$(run --integrator hermite --eta "$eta" --dt "$maxdt")"
  printf '%-8s %-40s %8s %10s %8s %12s\n' "$prec" "hermite eta $eta max dt $maxdt" "$w" "$d" "$k" "$e"
done
for steps in 2048 4096 8192 16384 32768; do
  read -r w d <<<"$(run --integrator leapfrog --dt "$(awk -v s="$steps" 'BEGIN {printf "%.17g", 1 / s}')")"
  printf '%-8s %-40s %8s %10s\n' "$prec" "leapfrog dt 1/$steps" "$w" "$d"
  awk -v d="$d" 'BEGIN {exit !(d + 0 <= 1e-6)}' && break
done
