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
rows() {  # binary label: "label,force,n,ms_per_step" a row, found by name in each CSV's own header (a
  # binary may have columns the other lacks: the tree rows' theta since a4e5797)
  pick='/^backend,/ {for (i = 1; i <= NF; ++i) c[$i] = i; next}
        /^[a-z]+,(float|double),/ {print l "," f "," $c["n"] "," $c["ms_per_step"]}'
  "$1" bench --backend cuda --n 65536,1048576 --steps 4 --warmup 2 --repeats 3 --format csv --quiet |
    awk -F, -v l="$2" -v f=direct "$pick"
  "$1" bench --backend cuda --force tree --n 1048576 --steps 10 --warmup 3 --repeats 3 --format csv --quiet |
    awk -F, -v l="$2" -v f=tree "$pick"
}
: > "$out/before_after.csv"
for r in $(seq "$rounds"); do
  rows "$before" before >> "$out/before_after.csv"
  rows "$after" after >> "$out/before_after.csv"
done
python3 - "$out/before_after.csv" <<'PY'
import sys, statistics, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, force, n, ms = line.strip().split(',')
    runs[(force, n, label)].append(float(ms))
print(f"{'force':6} {'n':>8} {'before ms':>10} {'after ms':>10} {'after/before':>12}")
for (force, n) in sorted({(k[0], k[1]) for k in runs}, key=lambda k: (k[0], int(k[1]))):
    b, a = statistics.median(runs[(force, n, 'before')]), statistics.median(runs[(force, n, 'after')])
    print(f"{force:6} {n:>8} {b:10.3f} {a:10.3f} {a / b:12.4f}")
PY
