#!/usr/bin/env bash
# Issue 14: strong scaling of the MPI build over the GPUs of one host, in one call so the rows compare.
#   K = 1, 2 (and 4 if present): mpirun -np K nbody bench --backend cuda --precision float --n 1048576,4194304
#   correctness: 20 leapfrog steps at N = 65536 (float), K ranks against K = 1: max |dx| / rms radius <= 1e-5
#   the interconnect: nvidia-smi topo -m
# One GPU per rank (the node-local rank picks it). NVLink multicast stays off, also in the ranks'
# environment (-x). Usage, Open MPI staged next to the binary with bench/stage_openmpi.sh:
#   NBODY=.device/bin/nbody OMPI_STAGE=.device/ompi bench/multi_gpu_scaling.sh [OUTDIR]
# Dry run on a CPU machine: BACKEND=openmp GPUS=2 SPEED_N=4096,8192 CHECK_N=2048 bench/multi_gpu_scaling.sh
set -uo pipefail
nbody=${NBODY:-build/app/nbody}
stage=${OMPI_STAGE:-ompi}
out=${1:-${OUT:-multi_gpu}}
backend=${BACKEND:-cuda}
speed_n=${SPEED_N:-1048576,4194304}
check_n=${CHECK_N:-65536}
mkdir -p "$out"
[[ -f "$stage/env.sh" ]] && source "$stage/env.sh"
command -v mpirun >/dev/null || { echo "multi_gpu_scaling: no mpirun (stage it: bench/stage_openmpi.sh)" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
gpus=${GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
mpirun=(mpirun -q --bind-to none -x NCCL_NVLS_ENABLE -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x NVSHMEM_DISABLE_NVLS)
ks=(1)
((gpus >= 2)) && ks+=(2)
((gpus >= 4)) && ks+=(4)
log() { echo "$@" | tee -a "$out/summary.txt"; }
: >"$out/summary.txt"
log "multi_gpu_scaling: $(date -u), $gpus GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | xargs)"
nvidia-smi topo -m >"$out/topo.txt" 2>&1 && cat "$out/topo.txt" | tee -a "$out/summary.txt"
status=0
# ms_per_step is the column after n; rows start with the backend's name.
ms_of() { awk -F, -v n="$2" -v b="$backend" '$1 == b { for (i = 1; i <= NF; ++i) if ($i == n) { print $(i + 1); exit } }' "$1"; }
for k in "${ks[@]}"; do
    "${mpirun[@]}" -np "$k" "$nbody" bench --backend "$backend" --precision float --n "$speed_n" --steps 3 \
        --warmup 1 --repeats 3 --format csv --quiet >"$out/bench_np$k.csv" 2>"$out/bench_np$k.err" || status=1
done
log "| N | K | ms/step | speed-up vs K = 1 |"
log "|---|---|---:|---:|"
for n in ${speed_n//,/ }; do
    one=$(ms_of "$out/bench_np1.csv" "$n")
    for k in "${ks[@]}"; do
        ms=$(ms_of "$out/bench_np$k.csv" "$n")
        log "| $n | $k | $ms | $(awk -v a="$one" -v b="$ms" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }') |"
    done
done
run=(run --backend "$backend" --precision float --preset plummer --n "$check_n" --steps 20 --quiet)
"${mpirun[@]}" -np 1 "$nbody" "${run[@]}" --output "$out/np1.csv" >"$out/np1.txt" 2>&1 || status=1
for k in "${ks[@]:1}"; do
    "${mpirun[@]}" -np "$k" "$nbody" "${run[@]}" --output "$out/np$k.csv" >"$out/np$k.txt" 2>&1 || status=1
    v=$(paste -d, <(grep -v '^#' "$out/np1.csv" | tail -n +2) <(grep -v '^#' "$out/np$k.csv" | tail -n +2) | awk -F, '
        { dx = $1 - $8; dy = $2 - $9; dz = $3 - $10; d2 = dx * dx + dy * dy + dz * dz
          if (d2 > m2) m2 = d2; r2 += $1 * $1 + $2 * $2 + $3 * $3; n++ }
        END { if (n == 0) { print "no bodies FAIL"; exit }; v = sqrt(m2) / sqrt(r2 / n)
              printf "%.3g %s", v, (v <= 1e-5 ? "PASS" : "FAIL") }')
    log "correctness N=$check_n, 20 steps: K=$k vs K=1: max |dx| / rms radius = $v (bound 1e-5)"
    [[ "$v" == *PASS ]] || status=1
done
log "multi_gpu_scaling: $([[ $status == 0 ]] && echo PASS || echo FAIL)"
exit $status
