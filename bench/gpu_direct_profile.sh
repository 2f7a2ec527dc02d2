#!/usr/bin/env bash
# One call on the lent GPU: the pairwise grid kernel (fp32 K=8 block 128, one band) at N = 262,144:
# its SASS opcode mix, Nsight Compute stall reasons and pipe use for one launch (docs/CUDA_NOTES.md v10).
# Build and stage nbody_cuda_bench as gpu_run.sh says; carry [".device"], command
# "source .device/env.sh && bench/gpu_direct_profile.sh".
set -uo pipefail
out=${OUT:-/tmp/nbody_gpu_out}
mkdir -p "$out"
bin=${NBODY_BIN:-.device/bin}
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
cuobjdump -sass "$bin/nbody_cuda_bench" > /tmp/all.sass 2>&1
fn="pairwise_gridIfLi8ELb0E"
awk -v fn="$fn" '$0 ~ "Function : .*" fn {p=1; print; next} p && /Function : / {p=0} p' /tmp/all.sass \
  > "$out/sass_grid_f32_k8.txt"
echo "== SASS opcode mix, pairwise_grid fp32 K=8 (whole kernel)"
grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9.]+' "$out/sass_grid_f32_k8.txt" | awk '{print $NF}' |
  sed 's/\..*//' | sort | uniq -c | sort -rn | head -16
echo "== ncu: pairwise_grid at N = 262144, one launch"
timeout 150 "$ncu" --clock-control none --section WarpStateStats --section SchedulerStats --section SourceCounters \
  --section ComputeWorkloadAnalysis --section InstructionStats --section Occupancy --section LaunchStats \
  --section SpeedOfLight -k regex:pairwise_grid --launch-skip 2 --launch-count 1 -f -o "$out/prof_grid" \
  "$bin/nbody_cuda_bench" --precision float --n 262144 --launches auto --repeats 1 > /tmp/ncu.log 2>&1
tail -2 /tmp/ncu.log
if [ -f "$out/prof_grid.ncu-rep" ]; then
  "$ncu" -i "$out/prof_grid.ncu-rep" --page details --print-details all > "$out/details.txt" 2>&1
  grep -E "Issue Slots Busy|Issued Ipc|No Eligible|Active Warps Per Scheduler|Eligible Warps|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|Theoretical Occupancy|Duration|SM Frequency|Block Limit Registers|Compute \(SM\) Throughput" "$out/details.txt" | head -30
  "$ncu" -i "$out/prof_grid.ncu-rep" --page raw --csv > "$out/raw.csv" 2>&1
  python3 - "$out/raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h, v = rows[0], rows[2] if len(rows) > 2 else rows[1]
for name, val in zip(h, v):
    if name.startswith("smsp__average_warps_issue_stalled_") and name.endswith("_per_issue_active.ratio"):
        try:
            if float(val) >= 0.02: print(f"{name[34:-23]:28s} {val}")
        except ValueError: pass
    if name.startswith("sm__inst_executed_pipe_") and name.endswith("pct_of_peak_sustained_active"):
        print(f"{name:70s} {val}")
PY
fi
