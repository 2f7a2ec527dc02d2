#!/usr/bin/env bash
# One call on the lent GPU: the Hermite evaluation of every body at once, one-sided (each pair twice) against
# pairwise (cuda/pairwise_jerks.cu, each pair once), then the user-level Plummer runs before and after.
#   1. kernel rows (nbody_cuda_bench --hermite) for all-active blocks of 16,384 to 131,072 bodies: `one` (the
#      planned one-sided kernel), `auto` (what the integrator now uses); a few-targets block before/after;
#   2. the user-level Plummer run (N 65,536, softening 1e-3, t = 0 -> 1, eta 0.02, max dt 1/32) with each
#      binary, interleaved round by round, leapfrog at dt 1/2048 once as the baseline; and a softer sphere
#      (softening 0.05, max dt 1/64, t = 0 -> 0.25) where most bodies sit on the top levels.
#   bench/gpu_pair_jerk_check.sh [ROUNDS]   binaries: .device/bin/{nbody,nbody_cuda_bench}[_before]
set -uo pipefail
rounds=${1:-2}
bin=.device/bin
echo "== all-active kernel rows: one (the planned one-sided kernel, before) against auto (pairwise from 32,768)"
"$bin/nbody_cuda_bench" --hermite --precision float --repeats 7 --jerk-launches one,auto \
  --hermite-cases 16384:16384,32768:32768,65536:65536,131072:131072
"$bin/nbody_cuda_bench" --hermite --precision double --repeats 5 --jerk-launches one,auto \
  --hermite-cases 65536:65536 | tail -n +2
echo "== few-targets rows (the same kernels; the clock's schedule changed): before, then after"
for b in nbody_cuda_bench_before nbody_cuda_bench; do
  "$bin/$b" --hermite --precision float --hermite-cases 65536:16,65536:819,1048576:256 --repeats 9 | tail -n +2
done

run() {  # prints "wall_s |dE/E| blocks evaluations" of one nbody run
  local t0 t1 s
  t0=$(date +%s.%N)
  s=$("$bin/$1" run --preset plummer --n 65536 --backend cuda "${@:2}" 2>&1)
  t1=$(date +%s.%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') $(awk '/\|dE\/E\|/ {print $2; exit}' <<<"$s")" \
    "$(awk '$1 == "blocks" {sub(",", "", $2); print $2, $3; exit}' <<<"$s")"
}
printf '%-6s %-8s %-34s %-50s %8s %10s %8s %12s\n' round prec binary run wall_s '|dE/E|' blocks evaluations
for r in $(seq "$rounds"); do
  for prec in float double; do
    for b in nbody_before nbody; do
      read -r w d k e <<<"$(run "$b" --precision "$prec" --softening 1e-3 --t-end 1 --integrator hermite --dt 0.03125)"
      printf '%-6s %-8s %-34s %-50s %8s %10s %8s %12s\n' "$r" "$prec" "$b" "eps 1e-3 t 1 hermite eta 0.02 max dt 1/32" "$w" "$d" "$k" "$e"
      read -r w d k e <<<"$(run "$b" --precision "$prec" --softening 0.05 --t-end 0.25 --integrator hermite --dt 0.015625)"
      printf '%-6s %-8s %-34s %-50s %8s %10s %8s %12s\n' "$r" "$prec" "$b" "eps 0.05 t 0.25 hermite eta 0.02 max dt 1/64" "$w" "$d" "$k" "$e"
    done
    if [ "$r" = 1 ]; then
      read -r w d k e <<<"$(run nbody --precision "$prec" --softening 1e-3 --t-end 1 --integrator leapfrog --dt 0.00048828125)"
      printf '%-6s %-8s %-34s %-50s %8s %10s\n' "$r" "$prec" nbody "eps 1e-3 t 1 leapfrog dt 1/2048" "$w" "$d"
    fi
  done
done
echo "== eta scan (this binary): the cheapest eta and max step that still reach |dE/E| <= 1e-6"
for prec in float double; do
  for em in "0.025 0.0625" "0.03 0.03125" "0.03 0.0625"; do
    read -r eta maxdt <<<"$em"
    read -r w d k e <<<"$(run nbody --precision "$prec" --softening 1e-3 --t-end 1 --integrator hermite --eta "$eta" --dt "$maxdt")"
    printf '%-6s %-8s %-34s %-50s %8s %10s %8s %12s\n' - "$prec" nbody "eps 1e-3 t 1 hermite eta $eta max dt $maxdt" "$w" "$d" "$k" "$e"
  done
done
