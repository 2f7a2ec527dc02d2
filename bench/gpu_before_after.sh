#!/usr/bin/env bash
# One call on the lent GPU for a change that must not move the speed: the same `nbody bench` rows
# (direct fp32 at 65,536 and 1,048,576; the tree at 1,048,576) from the binary before the change and the
# one after, interleaved round by round so both see the same clocks, then the medians and their ratio.
#   NBODY_BEFORE=.device/bin/nbody_before NBODY=.device/bin/nbody bench/gpu_before_after.sh [rounds]
set -uo pipefail
before=${NBODY_BEFORE:-.device/bin/nbody_before}
after=${NBODY:-.device/bin/nbody}
rounds=${1:-3}
out=${OUT:-/tmp/nbody_gpu_out}
mkdir -p "$out"
rows() {  # binary label
  "$1" bench --backend cuda --n 65536,1048576 --steps 4 --warmup 2 --repeats 3 --format csv --quiet |
    awk -v l="$2" '/^[a-z]+,(float|double),/ {print l ",direct," $0}'
  "$1" bench --backend cuda --force tree --n 1048576 --steps 10 --warmup 3 --repeats 3 --format csv --quiet |
    awk -v l="$2" '/^[a-z]+,(float|double),/ {print l ",tree," $0}'
}
: > "$out/before_after.csv"
for r in $(seq "$rounds"); do
  rows "$before" before >> "$out/before_after.csv"
  rows "$after" after >> "$out/before_after.csv"
done
# The header of one bench CSV tells which column holds n and ms_per_step.
header=$("$after" bench --backend cuda --n 1024 --steps 1 --repeats 1 --format csv --quiet | grep '^backend,')
python3 - "$out/before_after.csv" "$header" <<'PY'
import sys, statistics, collections
cols = sys.argv[2].split(',')
n_at, ms_at = cols.index('n') + 2, cols.index('ms_per_step') + 2
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.strip().split(',')
    runs[(f[1], f[n_at], f[0])].append(float(f[ms_at]))
print(f"{'force':6} {'n':>8} {'before ms':>10} {'after ms':>10} {'after/before':>12}")
for (force, n) in sorted({(k[0], k[1]) for k in runs}, key=lambda k: (k[0], int(k[1]))):
    b, a = statistics.median(runs[(force, n, 'before')]), statistics.median(runs[(force, n, 'after')])
    print(f"{force:6} {n:>8} {b:10.3f} {a:10.3f} {a / b:12.4f}")
PY
