#!/usr/bin/env bash
# One call on the lent GPU: edge cases of the neighbour scheme on cuda against serial, both in double:
# N = 2 with no softening, an odd N, K above N (every other body listed), the figure-eight with K = 1, a
# cold collapse, and N = 4097 unsoftened in float and double (cuda only). Each row prints |dE/E| and the
# blocks and full evaluations; serial and cuda should agree to the digits shown.
#   NBODY=.device/bin/nbody bench/gpu_neighbour_edge_check.sh
b=${NBODY:-.device/bin/nbody}
row() {
  for be in serial cuda; do
    s=$($b run --backend $be --precision double --integrator hermite --eta 0.02 $1 2>&1)
    printf '%-7s %-78s %s | %s\n' "$be" "$1" "$(awk '/\|dE\/E\|/ {print $2}' <<<"$s")" "$(awk '/^ *blocks/ {print $2, $3, $4, $5, $6}' <<<"$s" | tr -d ',')"
    grep -i "error" <<<"$s" | head -2
  done
}
row "--preset plummer --n 2 --softening 0 --neighbours 8 --t-end 0.5 --dt 0.125"
row "--preset plummer --n 33 --softening 1e-3 --neighbours 8 --t-end 0.5 --dt 0.125"
row "--preset plummer --n 33 --softening 1e-3 --neighbours 64 --t-end 0.5 --dt 0.125"
row "--preset plummer --n 1000 --softening 1e-3 --neighbours 16 --t-end 0.5 --dt 0.125"
row "--preset figure-eight --softening 0 --neighbours 1 --t-end 2"
row "--preset cold-collapse --n 3001 --neighbours 32 --t-end 0.25"
for p in float double; do
  s=$($b run --backend cuda --precision $p --integrator hermite --eta 0.02 --preset plummer --n 4097 --softening 0 --neighbours 32 --t-end 0.25 --dt 0.125 2>&1)
  printf 'cuda %s n 4097 eps 0: %s | %s\n' "$p" "$(awk '/\|dE\/E\|/ {print $2}' <<<"$s")" "$(awk '/^ *blocks/ {print $2}' <<<"$s")"
done
