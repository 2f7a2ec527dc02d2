#!/usr/bin/env bash
# Plain Hermite (no neighbour scheme) before and after a change to the block loop, interleaved rounds in
# one call: the cheapest passing run of the user-level figure (Plummer N = 65,536, softening 1e-3, t = 1,
# eta 0.025, max dt 1/16), float and double; wall seconds of each run.
#   bench/gpu_plain_hermite_before_after.sh BEFORE AFTER [ROUNDS]
set -uo pipefail
before=$1
after=$2
rounds=${3:-3}
for r in $(seq "$rounds"); do
  for prec in float double; do
    for which in before after; do
      bin=$before
      [ "$which" = after ] && bin=$after
      t0=$(date +%s.%N)
      "$bin" run --preset plummer --n 65536 --softening 1e-3 --t-end 1 --backend cuda --quiet --precision "$prec" \
        --integrator hermite --eta 0.025 --dt 0.0625 > /dev/null 2>&1
      t1=$(date +%s.%N)
      echo "round $r $prec $which $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')"
    done
  done
done
