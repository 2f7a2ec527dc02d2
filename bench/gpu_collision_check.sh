#!/usr/bin/env bash
# Issue 22's speed question on the lent GPU: a whole tree step at N = 1,048,576 with collisions off and on,
# at the default density (many contacts: a merge most steps) and at denser bodies (few contacts), rounds
# interleaved; then, with OUT set, a per-kernel time summary of a few steps under Nsight Compute (ncu).
#   bench/gpu_collision_check.sh [ROUNDS] [STEPS]      binaries: .device/bin/nbody (and nbody_before, when
#   staged: the same rows from it, interleaved)
set -uo pipefail
rounds=${1:-3}
steps=${2:-50}
nbody=.device/bin/nbody
run() {
  local bin=$1
  shift
  "$bin" run --backend cuda --preset plummer --n 1048576 --force tree --steps "$steps" --quiet "$@" |
    grep -E "stepping|collisions" | tr -s ' ' | tr '\n' ' '
  echo
}
bins=(.device/bin/nbody)
[[ -x .device/bin/nbody_before ]] && bins=(.device/bin/nbody_before .device/bin/nbody)
for r in $(seq "$rounds"); do
  for b in "${bins[@]}"; do
    n=$(basename "$b")
    echo "round $r $n off:            $(run "$b" --collisions off)"
    echo "round $r $n merge:          $(run "$b" --collisions merge)"
    echo "round $r $n merge rho 5e10: $(run "$b" --collisions merge --density 5e10)"
  done
done
if [[ -n "${OUT:-}" ]] && command -v ncu >/dev/null; then
  for d in 5e6 5e10; do
    ncu --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel \
      "$nbody" run --backend cuda --preset plummer --n 1048576 --force tree --steps 4 --quiet \
      --collisions merge --density "$d" > "$OUT/ncu_merge_$d.txt" 2>&1
  done
  ncu --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel \
    "$nbody" run --backend cuda --preset plummer --n 1048576 --force tree --steps 4 --quiet \
    --collisions off > "$OUT/ncu_off.txt" 2>&1
fi
