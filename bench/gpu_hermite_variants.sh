#!/usr/bin/env bash
# One call on the lent GPU comparing builds of one change at the issue-21 user-level figure: the Plummer
# sphere of N bodies, softening 1e-3, t 0 -> 1 on cuda. Every (binary, configuration) pair runs once per
# round and the rounds interleave, so every build sees the same clocks; leapfrog at dt 1/2048 (the dt
# that first reaches |dE/E| <= 1e-6 there, PERFORMANCE.md) is the baseline of the same call. Each figure
# is the median over the rounds of the run's own "wall time" (the summary's: from the command's start,
# the CUDA context included, the process start not).
#   BINARIES="before=.device/bin/nbody_before after=.device/bin/nbody" \
#     bench/gpu_hermite_variants.sh [N] [ROUNDS] [CONFIG ...]
# A CONFIG is the run's arguments after the common ones, e.g. "--precision float --integrator hermite
# --neighbours 32 --eta 0.02 --dt 0.125"; the default is K 32 at eta 0.03 and eta-regular 0.02 (float)
# and K 64 at eta 0.018 (double), max dt 1/8, the settings inside 1e-6 on seeds 1-8 (PERFORMANCE.md,
# "Fourteenth pass" and "Eighteenth pass"), each beside leapfrog (run with the first binary only, or with
# every binary where LEAPFROG_EACH=1: for a change to `nbody run` itself, which moves leapfrog too; the
# ratios are then against the first binary's leapfrog). The table gives wall and stepping medians.
set -uo pipefail
n=${1:-65536}
rounds=${2:-3}
shift $(($# < 2 ? $# : 2))
out=${OUT:-/tmp/nbody_gpu_out}
mkdir -p "$out"
read -r -a binaries <<<"${BINARIES:-after=.device/bin/nbody}"
configs=("$@")
if ((${#configs[@]} == 0)); then
  configs=("--precision float --integrator hermite --neighbours 32 --eta 0.03 --eta-regular 0.02 --dt 0.125"
           "--precision double --integrator hermite --neighbours 64 --eta 0.018 --dt 0.125")
fi
leapfrog=("--precision float --integrator leapfrog --dt 0.00048828125"
          "--precision double --integrator leapfrog --dt 0.00048828125")
log="$out/variants_runs.log"
rows="$out/variants_rows.txt"
: > "$rows"
one() {  # label binary args
  local s
  s=$(timeout 300 "$2" run --preset plummer --n "$n" --softening 1e-3 --t-end 1 --backend cuda $3 2>&1)
  printf '%s\n%s\n' "== $1 $3" "$s" >> "$log"
  printf '%s|%s|%s|%s|%s|%s\n' "$1" "$3" "$(awk '/^ *wall time/ {print $3; exit}' <<<"$s")" \
    "$(awk '/^ *wall time/ {sub(/\)/, "", $6); print $6; exit}' <<<"$s")" \
    "$(awk '/\|dE\/E\|/ {print $2; exit}' <<<"$s")" \
    "$(awk '/^ *blocks/ {gsub(",", "", $2); print $2; exit}' <<<"$s")" >> "$rows"
}
first_bin=${binaries[0]#*=}
for ((r = 0; r < rounds; ++r)); do
  for a in "${leapfrog[@]}"; do
    one leapfrog "$first_bin" "$a"
    if [[ ${LEAPFROG_EACH:-0} == 1 ]]; then
      for b in "${binaries[@]:1}"; do one "leapfrog-${b%%=*}" "${b#*=}" "$a"; done
    fi
  done
  for c in "${configs[@]}"; do
    for b in "${binaries[@]}"; do one "${b%%=*}" "${b#*=}" "$c"; done
  done
done
python3 - "$rows" <<'PY' | tee "$out/variants_table.txt"
import sys, statistics, collections
runs = collections.defaultdict(list)
meta = {}
order = []
for line in open(sys.argv[1]):
    label, args, wall, stepping, drift, blocks = line.rstrip('\n').split('|')
    key = (label, args)
    if key not in runs:
        order.append(key)
    if wall:
        runs[key].append((float(wall), float(stepping or 'nan')))
    meta[key] = (drift or 'none', blocks or '-')
def median(key, k):
    return statistics.median(r[k] for r in runs[key]) if runs[key] else float('nan')
base = {}
for (label, args) in order:
    if label == 'leapfrog' and runs[(label, args)]:
        base[args.split()[1]] = (median((label, args), 0), median((label, args), 1))
print(f"{'build':16} {'run':64} {'wall_s':>7} {'step_s':>7} {'|dE/E|':>10} {'blocks':>7} {'vs leapfrog':>11} {'(stepping)':>10}")
for key in order:
    label, args = key
    w, s = median(key, 0), median(key, 1)
    lw, ls = base.get(args.split()[1], (float('nan'), float('nan')))
    print(f"{label:16} {args:64} {w:7.3f} {s:7.3f} {meta[key][0]:>10} {meta[key][1]:>7} {lw / w:10.2f}x {ls / s:9.2f}x")
PY
