#!/usr/bin/env bash
# One call on the lent GPU: Nsight Compute on the fp32 tuned kernel at its automatic launch (K=8) at
# N = 262,144: one launch after the two warm-ups, stall reasons per SASS instruction (source_v0.csv), all
# metrics (raw_v0.csv), the report (prof_v0.ncu-rep). Build and stage first, here:
#   cmake --build build-gpu -j2 --target test_cuda nbody_cuda_bench
#   ../shared/device/prepare.sh build-gpu/tests/test_cuda build-gpu/bench/nbody_cuda_bench
# then: carry [".device"], command "source .device/env.sh && bench/gpu_profile.sh"
set -uo pipefail
out=${OUT:-/tmp/nbody_gpu_out}
mkdir -p "$out"
bin=${NBODY_BIN:-.device/bin}
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
log="$out/run.log"
exec > >(tee "$log") 2>&1

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
echo "== ncu: the fp32 auto launch (K=8) at N = 262144, one launch (after the 2 warm-ups)"
"$ncu" --version | tail -1
sections="--section WarpStateStats --section SchedulerStats --section SourceCounters --section ComputeWorkloadAnalysis
  --section InstructionStats --section Occupancy --section LaunchStats --section SpeedOfLight"
timeout 200 "$ncu" --clock-control none $sections -k regex:tiled_forces --launch-skip 2 --launch-count 1 \
  -f -o "$out/prof_v0" "$bin/nbody_cuda_bench" --precision float --n 262144 --repeats 1 > /tmp/ncu_v0.log 2>&1
tail -3 /tmp/ncu_v0.log
if [ -f "$out/prof_v0.ncu-rep" ]; then
  "$ncu" -i "$out/prof_v0.ncu-rep" --page details --print-details all
  "$ncu" -i "$out/prof_v0.ncu-rep" --page raw --csv > "$out/raw_v0.csv"
  "$ncu" -i "$out/prof_v0.ncu-rep" --page source --csv --print-source sass > "$out/source_v0.csv" 2>&1
fi

