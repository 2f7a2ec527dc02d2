#!/usr/bin/env bash
# One call on the lent GPU: the Hermite force+jerk launch choice before and after a change, in the same
# run. Kernel rows (nbody_cuda_bench --hermite, automatic launch) for blocks of several sizes among 65,536
# sources, then the user-level Plummer run (N 65,536, softening 1e-3, t = 0 -> 1, cuda, eta 0.02 with max
# dt 1/32, and the cheapest passing eta 0.025 with max dt 1/16) with each binary, interleaved round by round,
# and leapfrog at dt 1/2048 (the first dt reaching |dE/E| <= 1e-6 there) as the baseline.
#   bench/gpu_hermite_launch_check.sh [ROUNDS]   binaries: .device/bin/{nbody,nbody_cuda_bench}[_before]
set -uo pipefail
rounds=${1:-3}
bin=.device/bin
cases=65536:16,65536:64,65536:256,65536:819,65536:2048,65536:4096,65536:8192,65536:16384,65536:65536,1048576:256
for b in nbody_cuda_bench_before nbody_cuda_bench; do
  echo "== $b"
  "$bin/$b" --hermite --hermite-cases "$cases" --repeats 9 | tail -n +2
done
wall() {  # prints "wall_s |dE/E|" of one nbody run
  local t0 t1 s
  t0=$(date +%s.%N)
  s=$("$bin/$1" run --preset plummer --n 65536 --softening 1e-3 --t-end 1 --backend cuda --quiet "${@:2}" 2>&1)
  t1=$(date +%s.%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') $(awk '/\|dE\/E\|/ {print $2; exit}' <<<"$s")"
}
printf '%-6s %-8s %-44s %8s %10s\n' round prec run wall_s '|dE/E|'
for r in $(seq "$rounds"); do
  for prec in double float; do
    for b in nbody_before nbody; do
      read -r w d <<<"$(wall "$b" --precision "$prec" --integrator hermite --dt 0.03125)"
      printf '%-6s %-8s %-44s %8s %10s\n' "$r" "$prec" "$b hermite eta 0.02 max dt 1/32" "$w" "$d"
      read -r w d <<<"$(wall "$b" --precision "$prec" --integrator hermite --eta 0.025 --dt 0.0625)"
      printf '%-6s %-8s %-44s %8s %10s\n' "$r" "$prec" "$b hermite eta 0.025 max dt 1/16" "$w" "$d"
    done
    if [ "$r" = 1 ]; then
      read -r w d <<<"$(wall nbody --precision "$prec" --integrator leapfrog --dt 0.00048828125)"
      printf '%-6s %-8s %-44s %8s %10s\n' "$r" "$prec" "nbody leapfrog dt 1/2048" "$w" "$d"
    fi
  done
done
