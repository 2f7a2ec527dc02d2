#!/usr/bin/env bash
# One call on the lent GPU for --integrator hermite: the force+jerk kernel rates (nbody_cuda_bench --hermite,
# all bodies active at 65,536 and 256 active among 1,048,576), then the user-level figure: a Plummer sphere
# of N bodies, softening 1e-3, to t = 1 on cuda, Hermite block steps against leapfrog with the dt, found by
# halving, that reaches the same |dE/E| <= TARGET; wall time of each, per precision.
#   bench/gpu_hermite_check.sh [N] [TARGET]     (NBODY, NBODY_CUDA_BENCH: the binaries; OUT: logs)
set -uo pipefail
n=${1:-65536}
target=${2:-1e-6}
nbody=${NBODY:-.device/bin/nbody}
bench=${NBODY_CUDA_BENCH:-.device/bin/nbody_cuda_bench}
out=${OUT:-/tmp/nbody_gpu_out}
budget=${LEAPFROG_BUDGET_S:-150}  # wall seconds the leapfrog ladder may use per precision
mkdir -p "$out"
if [ -x "$bench" ]; then
  for prec in float double; do
    echo "== nbody_cuda_bench --hermite --precision $prec"
    "$bench" --hermite --precision "$prec" --repeats 7 2>&1 | tee -a "$out/hermite_kernel.txt" | tail -6
  done
fi
# One run: prints "wall_s drift blocks_line" from nbody run's summary.
run() {
  local t0 t1 s
  t0=$(date +%s.%N)
  s=$(timeout "${2:-300}" "$nbody" run --preset plummer --n "$n" --softening 1e-3 --t-end 1 --backend cuda \
        --quiet $1 2>&1)
  t1=$(date +%s.%N)
  echo "$s" >> "$out/hermite_runs.log"
  local drift
  drift=$(awk '/\|dE\/E\|/ {print $2; exit}' <<<"$s")
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') ${drift:-none}"
}
echo "== Plummer N = $n, softening 1e-3, t = 0 -> 1, cuda; target |dE/E| <= $target"
printf '%-8s %-36s %10s %12s\n' precision run wall_s '|dE/E|' | tee "$out/hermite_table.txt"
for prec in double float; do
  for args in "--integrator hermite --dt 0.03125" "--integrator hermite --dt 0.03125 --eta 0.01"; do
    read -r wall drift <<<"$(run "--precision $prec $args")"
    printf '%-8s %-36s %10.2f %12s\n' "$prec" "$args" "$wall" "$drift" | tee -a "$out/hermite_table.txt"
  done
  spent=0
  for dt in 0.00390625 0.001953125 0.0009765625 0.00048828125 0.000244140625 0.0001220703125 6.103515625e-05; do
    left=$(awk -v b="$budget" -v s="$spent" 'BEGIN {printf "%d", b - s + 1}')
    read -r wall drift <<<"$(run "--precision $prec --integrator leapfrog --dt $dt" "$left")"
    printf '%-8s %-36s %10.2f %12s\n' "$prec" "leapfrog --dt $dt" "$wall" "$drift" | tee -a "$out/hermite_table.txt"
    spent=$(awk -v s="$spent" -v w="$wall" 'BEGIN {printf "%.3f", s + w}')
    if [ "$drift" != none ] && python3 -c "import sys; sys.exit(0 if float('$drift') <= float('$target') else 1)"; then
      break
    fi
    awk -v s="$spent" -v b="$budget" 'BEGIN {exit !(s < b)}' || { echo "(leapfrog ladder stopped: ${budget} s spent)"; break; }
  done
done
