#!/usr/bin/env bash
# One call on the lent GPU: where the GPU time of a Hermite neighbour-scheme run goes, kernel by kernel.
# Nsight Compute times every kernel of the Plummer run (N bodies, softening 1e-3, K, eta 0.02, max dt 1/8)
# to t = T_END (default: the first max step), and the durations are summed per kernel name.
#   NBODY=.device/bin/nbody bench/gpu_hermite_kernel_times.sh [N] [PRECISION] [K] [T_END]
set -uo pipefail
n=${1:-65536}
prec=${2:-float}
k=${3:-32}
t_end=${4:-0.125}
bin=${NBODY:-.device/bin/nbody}
out=${OUT:-/tmp/nbody_gpu_out}
mkdir -p "$out"
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
csv="$out/kernel_times_${prec}_k${k}.csv"
timeout 400 "$ncu" --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
  "$bin" run --preset plummer --n "$n" --softening 1e-3 --t-end "$t_end" --backend cuda --precision "$prec" \
  --integrator hermite --neighbours "$k" --eta 0.02 --dt 0.125 > "$csv" 2> "$out/kernel_times.err"
python3 - "$csv" <<'PY' | tee "$out/kernel_times_${prec}_k${k}.txt"
import csv, sys, collections, re
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
total = collections.Counter()
count = collections.Counter()
for r in csv.DictReader(rows):
    if r.get('Metric Name') != 'gpu__time_duration.sum':
        continue
    name = re.sub(r'\(.*', '', r['Kernel Name']).replace('<unnamed>::', '')
    name = re.sub(r'^void ', '', name)
    total[name] += float(r['Metric Value'].replace(',', ''))
    count[name] += 1
s = sum(total.values())
print(f"{'kernel':60} {'launches':>9} {'ms':>9} {'share':>6}")
for name, ns in total.most_common():
    print(f"{name[:60]:60} {count[name]:9d} {ns / 1e6:9.3f} {100 * ns / s:5.1f}%")
print(f"{'all':60} {sum(count.values()):9d} {s / 1e6:9.3f}")
PY
