#!/usr/bin/env bash
# One call on the lent GPU: issue 21's user-level figure (Plummer N = 65,536, softening 1e-3, t 0 -> 1 on
# cuda) for the binary of a change and the one before it, every run of both interleaved round by round so
# both see the same clocks, leapfrog included (a change to `nbody run` moves it too): float and double
# leapfrog at dt 1/2048 (the dt that first reaches |dE/E| <= 1e-6 there), float Hermite K 32 at eta 0.035
# and eta-regular 0.02, double Hermite K 64 at eta 0.02 (max dt 1/8). Medians over the rounds of the run's
# summary's wall time and stepping time (double leapfrog over the first three rounds: 7.5 s a run).
#   NBODY=.device/bin/nbody NBODY_BEFORE=.device/bin/nbody_before bench/gpu_hermite_figure.sh [ROUNDS]
set -uo pipefail
after=${NBODY:-.device/bin/nbody}
before=${NBODY_BEFORE:-.device/bin/nbody_before}
rounds=${1:-5}
out=${OUT:-/tmp/nbody_gpu_out}
mkdir -p "$out"
common="--preset plummer --n 65536 --softening 1e-3 --t-end 1 --backend cuda"
hermite_float="--precision float --integrator hermite --neighbours 32 --eta 0.035 --eta-regular 0.02 --dt 0.125"
hermite_double="--precision double --integrator hermite --neighbours 64 --eta 0.02 --dt 0.125"
leapfrog_float="--precision float --integrator leapfrog --dt 0.00048828125"
leapfrog_double="--precision double --integrator leapfrog --dt 0.00048828125"
rows="$out/figure_rows.txt"
: > "$rows"
one() {  # label binary args...: label|args|wall|stepping|drift|blocks
  local label=$1 bin=$2
  shift 2
  printf '%s|%s|' "$label" "$*" >> "$rows"
  timeout 300 "$bin" run $common "$@" 2>&1 |
    awk '/wall time/ {w=$3; s=$6} /\|dE\/E\|/ {d=$2} /^ *blocks/ {b=$2} END {printf "%s|%s|%s|%s\n", w, s, d, b}' >> "$rows"
}
for ((r = 1; r <= rounds; ++r)); do
  for c in "$leapfrog_float" "$hermite_float" "$hermite_double"; do
    one after "$after" $c
    one before "$before" $c
  done
  if ((r <= 3)); then
    one after "$after" $leapfrog_double
    one before "$before" $leapfrog_double
  fi
done
python3 - "$rows" <<'PY' | tee "$out/figure_table.txt"
import sys, statistics, collections
runs = collections.defaultdict(list)
meta = {}
for line in open(sys.argv[1]):
    label, args, wall, stepping, drift, blocks = line.rstrip('\n').split('|')
    if wall:
        runs[(label, args)].append((float(wall), float(stepping.rstrip(')'))))
    meta[(label, args)] = (drift or 'none', blocks.rstrip(',') or '-')
for key in sorted(runs):
    walls = [w for w, _ in runs[key]]
    steps = [s for _, s in runs[key]]
    print(f"{key[0]:7} {key[1][:64]:64} wall {statistics.median(walls):.4f} stepping "
          f"{statistics.median(steps):.4f} (n={len(walls)}) |dE/E| {meta[key][0]} blocks {meta[key][1]}")
PY
