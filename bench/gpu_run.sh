#!/usr/bin/env bash
# One call on the lent GPU: device facts, the CUDA tests, compute-sanitizer (memcheck, racecheck) on a
# small filter, the kernel benchmark table (tuned vs baseline, fp32 and fp64), `nbody bench`, and the hot
# kernel's SASS. Build and stage first, here:
#   cmake --build build-gpu -j2 --target test_cuda nbody_cuda_bench nbody
#   ../shared/device/prepare.sh build-gpu/tests/test_cuda build-gpu/bench/nbody_cuda_bench build-gpu/app/nbody
# then run with the device tool: carry [".device"], command "source .device/env.sh && bench/gpu_run.sh [steps]"
#   steps: any of smi,tests,sanitize,sweep,pairwise,bench,cli,sass (default: all but pairwise)
#   SAN_FILTER / SAN_TIMEOUT override the sanitizers' gtest filter and per-tool time limit (s).
set -uo pipefail
out=${OUT:-/tmp/nbody_gpu_out}
mkdir -p "$out"
bin=${NBODY_BIN:-.device/bin}
steps=${1:-smi,tests,sweep,bench,sass,sanitize,cli}
has() { [[ ",$steps," == *",$1,"* ]]; }
status=0

if has smi; then
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu,memory.total --format=csv |
    tee "$out/smi.txt"
fi
if has tests; then
  echo "== test_cuda"
  "$bin/test_cuda" 2>&1 | tee "$out/tests.log" | grep -E '^\[  (PASSED|FAILED|SKIPPED) |FAILED|tests ran' || true
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if has sanitize; then
  # The deliberate 1 PiB allocation is left out: memcheck reports every failed CUDA call as an error.
  filter=${SAN_FILTER:-'Sizes/CudaAccelerations.*/N1000_*:Sizes/CudaAccelerations.*/N31_*:Cuda.*:Integrators/CudaVsSerial.HundredStepsMatch/leapfrog_*:-Cuda.BadLaunchAndHugeAllocationThrow'}
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool"
    timeout "${SAN_TIMEOUT:-200}" compute-sanitizer --tool "$tool" --error-exitcode 3 "$bin/test_cuda" --gtest_filter="$filter" \
      > "$out/sanitize_$tool.log" 2>&1
    rc=$?
    grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' "$out/sanitize_$tool.log" | tail -4
    echo "$tool exit code $rc"
    [ "$rc" -eq 0 ] || status=1
  done
fi
if has sweep; then
  echo "== launch-shape sweep"
  "$bin/nbody_cuda_bench" --sweep --n 16384,65536,262144 --precision both --repeats 5 2>&1 | tee "$out/sweep.log" |
    grep -E 'auto|baseline|device'
fi
if has pairwise; then
  echo "== pairwise kernel shapes vs the automatic one-sided kernel (fp32, same process)"
  timeout "${PAIRWISE_TIMEOUT:-120}" "$bin/nbody_cuda_bench" --pairwise --n "${PAIRWISE_N:-65536,262144,1048576}" \
    --repeats 3 2>&1 | tee "$out/pairwise.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if has bench; then
  echo "== benchmark table"
  # SM clock and power sampled during the run: a power-capped clock lowers the floor itself.
  nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader,nounits -lms 250 > /tmp/clocks.csv &
  smi_pid=$!
  "$bin/nbody_cuda_bench" --n 16384,65536,262144,1048576 --precision both --repeats 7 2>&1 | tee "$out/bench.log"
  kill "$smi_pid" 2>/dev/null
  sort -t, -k1,1n /tmp/clocks.csv | awk -F, '{c[NR]=$1; if ($2>p) p=$2} END {print "SM clock MHz min/median/max: " c[1] "/" c[int((NR+1)/2)] "/" c[NR] ", max power W: " p}' |
    tee -a "$out/bench.log"
fi
if has cli; then
  echo "== nbody bench --backend cuda"
  timeout 150 "$bin/nbody" bench --backend cuda --n 16384,65536,262144,1048576 --precision float,double --steps 3 \
    --repeats 3 2>&1 | tee "$out/cli_bench.log"
fi
if has sass; then
  # The fp32 K=8 unguarded tuned kernel and its inner-loop instruction mix.
  cuobjdump -sass "$bin/test_cuda" > /tmp/all.sass 2>&1
  awk '/Function : .*tiled_forcesIfLi8ELb0E/{p=1} p&&/Function : /&&!/tiled_forcesIfLi8ELb0E/{p=0} p' /tmp/all.sass \
    > /tmp/sass_f32_k8.txt
  awk '/Function : .*tiled_forcesIdLi2ELb0E/{p=1} p&&/Function : /&&!/tiled_forcesIdLi2ELb0E/{p=0} p' /tmp/all.sass \
    > /tmp/sass_f64_k2.txt
  cat /tmp/sass_f32_k8.txt /tmp/sass_f64_k2.txt > "$out/sass.txt"
  echo "== SASS opcode mix, fp32 K=8 (whole kernel)"
  grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?P[0-9T] )?[A-Z0-9.]+' /tmp/sass_f32_k8.txt | awk '{print $NF}' |
    sed 's/\..*//' | sort | uniq -c | sort -rn | head -12
  awk '/Function : .*pairwise_gridIfLi8ELb0E/{p=1} p&&/Function : /&&!/pairwise_gridIfLi8ELb0E/{p=0} p' /tmp/all.sass \
    > /tmp/sass_pw_k8.txt
  cat /tmp/sass_pw_k8.txt >> "$out/sass.txt"
  echo "== SASS opcode mix, fp32 pairwise grid K=8 (whole kernel)"
  grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?P[0-9T] )?[A-Z0-9.]+' /tmp/sass_pw_k8.txt | awk '{print $NF}' |
    sed 's/\..*//' | sort | uniq -c | sort -rn | head -14
  echo "== SASS opcode mix, fp64 K=2 (whole kernel)"
  grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?P[0-9T] )?[A-Z0-9.]+' /tmp/sass_f64_k2.txt | awk '{print $NF}' |
    sed 's/\..*//' | sort | uniq -c | sort -rn | head -12
fi
exit $status
