#!/usr/bin/env bash
# One call on the lent GPU for the direct-sum kernels (issue 13): the CUDA tests, the launch table
# (every candidate kernel shape per N and precision, kernel only), `nbody bench --backend cuda` (whole
# steps, baseline kernel timed in the same call), then compute-sanitizer memcheck and racecheck on the
# small pairwise/grid cases. Build and stage as bench/gpu_run.sh says; run with the device tool:
#   carry [".device"], command "source .device/env.sh && bench/gpu_direct_run.sh [steps]"
#   steps: any of smi,tests,table,cli,sanitize (default: all)
set -uo pipefail
out=${OUT:-/tmp/nbody_gpu_out}
mkdir -p "$out"
bin=${NBODY_BIN:-.device/bin}
steps=${1:-smi,tests,table,cli,sanitize}
has() { [[ ",$steps," == *",$1,"* ]]; }
status=0
t0=$SECONDS
stamp() { echo "   [$((SECONDS - t0)) s]"; }

if has smi; then
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu,memory.total --format=csv |
    tee "$out/smi.txt"
fi
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader,nounits -lms 500 > "$out/clocks.csv" &
smi_pid=$!
if has tests; then
  echo "== test_cuda"
  timeout "${TESTS_TIMEOUT:-90}" "$bin/test_cuda" > "$out/tests.log" 2>&1
  rc=$?
  grep -E '^\[  (PASSED|FAILED) |FAILED|tests ran' "$out/tests.log" | head -20
  [ "$rc" -eq 0 ] || { status=1; echo "test_cuda exit code $rc"; }
  stamp
fi
if has table; then
  echo "== launch table (kernel only, median of ${REPEATS:-3})"
  small=${SMALL_N:-16384,32768,65536,131072,262144}
  f32=${F32_LAUNCHES:-auto,tuned,grid:8:128,grid:8:128:1,grid:8:64,grid:4:128,grid:4:64,grid:2:128,grid:8:256,pw:8:128,pw:8:256}
  f64=${F64_LAUNCHES:-auto,tuned,grid:2:128,grid:4:128,grid:4:128:1,grid:4:64,grid:2:64,grid:4:256,pw:4:128,pw:4:128:1,pw:2:128,pw:4:64}
  timeout 100 "$bin/nbody_cuda_bench" --precision float --n "$small" --launches "$f32" --repeats "${REPEATS:-3}" 2>&1 |
    tee "$out/table.log" | grep -v '^device' | sort -k2,2n -k7,7r | awk '{print}' | cut -c1-100
  stamp
  timeout 60 "$bin/nbody_cuda_bench" --precision float --n 1048576 --launches "${F32_BIG:-auto,pw:8:128,pw:8:256}" \
    --repeats "${REPEATS:-3}" 2>&1 | tee -a "$out/table.log" | grep -v '^device' | cut -c1-100
  stamp
  timeout 60 "$bin/nbody_cuda_bench" --precision double --n "${SMALL_N64:-16384,65536,131072,262144}" --launches "$f64" \
    --repeats "${REPEATS:-3}" 2>&1 | tee -a "$out/table.log" | grep -v '^device' | cut -c1-100
  stamp
  timeout 60 "$bin/nbody_cuda_bench" --precision double --n 1048576 --launches "${F64_BIG:-auto}" \
    --repeats "${REPEATS:-3}" 2>&1 | tee -a "$out/table.log" | grep -v '^device' | cut -c1-100
  stamp
fi
if has cli; then
  echo "== nbody bench --backend cuda"
  timeout "${CLI_TIMEOUT:-120}" "$bin/nbody" bench --backend cuda --n "${CLI_N:-16384,65536,131072,262144,1048576}" \
    --precision float,double --steps 3 --repeats 3 2>&1 | tee "$out/cli_bench.log"
  stamp
fi
kill "$smi_pid" 2>/dev/null
sort -t, -k1,1n "$out/clocks.csv" | awk -F, '{c[NR]=$1; if ($2>p) p=$2} END {print "SM clock MHz min/median/max: " c[1] "/" c[int((NR+1)/2)] "/" c[NR] ", max power W: " p}'
if has sanitize; then
  filter=${SAN_FILTER:-'Sizes/CudaAccelerations.*/N31_*:Sizes/CudaAccelerations.*/N1000_*:Cuda.AccelerationsAreDeterministic'}
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool"
    timeout "${SAN_TIMEOUT:-60}" compute-sanitizer --tool "$tool" --error-exitcode 3 "$bin/test_cuda" --gtest_filter="$filter" \
      > "$out/sanitize_$tool.log" 2>&1
    rc=$?
    grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' "$out/sanitize_$tool.log" | tail -4
    echo "$tool exit code $rc"
    [ "$rc" -eq 0 ] || status=1
    stamp
  done
fi
exit $status
