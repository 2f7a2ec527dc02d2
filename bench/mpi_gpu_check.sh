#!/usr/bin/env bash
# The GPU half of issue 12, for the lent GPU machine (not run in CI): nbody's CUDA backend under mpirun.
#   1. Speed: `nbody bench --backend cuda` at N = 262144 and 1M without mpirun and under `mpirun -np 1`:
#      the issue asks for the MPI run within 2% (with one process nothing is distributed: same code path).
#   2. Correctness: 20 steps at N = 65536 (float) as one process and as `mpirun -np 2` sharing the one GPU
#      (each process: its slice's positions device -> pinned host, MPI_Allgatherv, pinned -> device, then
#      its share of the pairwise grid's passes for all bodies and MPI_Reduce_scatter of the shares, or its
#      slice against all sources where the solver does not share): max position difference over the RMS
#      radius <= 1e-5.
#   3. For the record: the same bench under `mpirun -np 2` on the one GPU (two processes share it).
# Usage (Open MPI staged next to the binary with bench/stage_openmpi.sh on a Debian machine):
#   NBODY=build/app/nbody OMPI_STAGE=ompi bench/mpi_gpu_check.sh [OUTDIR]
# The nbody binary must be built with CUDA and MPI (cmake ... -DNBODY_WITH_MPI=ON, the default where
# libopenmpi-dev is installed). Exit status 0 only if both checks pass. BACKEND, SPEED_N (two sizes)
# and CHECK_N override the backend and sizes (BACKEND=openmp SPEED_N="2048 4096" CHECK_N=2048: a dry run
# of the script itself on a CPU machine).
set -uo pipefail
nbody=${NBODY:-build/app/nbody}
stage=${OMPI_STAGE:-ompi}
out=${1:-${OUT:-mpi_gpu_check}}
mkdir -p "$out"
backend=${BACKEND:-cuda}
read -r -a speed_n <<<"${SPEED_N:-262144 1048576}"
check_n=${CHECK_N:-65536}
if [[ -f "$stage/env.sh" ]]; then
    # shellcheck disable=SC1091
    source "$stage/env.sh"
fi
command -v mpirun >/dev/null || { echo "mpi_gpu_check: no mpirun (stage it: bench/stage_openmpi.sh)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Unbound, like the run without mpirun (Open MPI binds each process to one core by default).
mpirun=(mpirun -q --oversubscribe --bind-to none)
status=0
log() { echo "$@" | tee -a "$out/summary.txt"; }
: >"$out/summary.txt"
log "mpi_gpu_check: $(date -u) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
log "nbody: $nbody; mpirun: $(command -v mpirun) ($(mpirun --version 2>/dev/null | head -1))"

# --- 1. speed: without mpirun vs mpirun -np 1 (each twice, interleaved, best median kept) -----------------
bench=(bench --backend "$backend" --precision float --n "${speed_n[0]},${speed_n[1]}" --steps 5 --warmup 2 --repeats 7 --format csv
       --quiet)
for round in 1 2; do
    "$nbody" "${bench[@]}" >"$out/plain_$round.csv" || status=1
    "${mpirun[@]}" -np 1 "$nbody" "${bench[@]}" >"$out/np1_$round.csv" || status=1
done
# ms_per_step is the column after n; rows start with "cuda,".
best() { awk -F, -v n="$2" -v b="$backend" '$1 == b { for (i = 1; i <= NF; ++i) if ($i == n) { print $(i + 1); exit } }' "$1"; }
for n in "${speed_n[@]}"; do
    p=$(printf '%s\n' "$(best "$out/plain_1.csv" $n)" "$(best "$out/plain_2.csv" $n)" | sort -g | head -1)
    m=$(printf '%s\n' "$(best "$out/np1_1.csv" $n)" "$(best "$out/np1_2.csv" $n)" | sort -g | head -1)
    verdict=$(awk -v p="$p" -v m="$m" 'BEGIN { r = m / p; printf "%.4f %s", r, (r <= 1.02 ? "PASS" : "FAIL") }')
    log "speed N=$n: plain $p ms/step, mpirun -np 1 $m ms/step, ratio $verdict (bound 1.02)"
    [[ "$verdict" == *PASS ]] || status=1
done

# --- 2. correctness: one process vs mpirun -np 2 on one GPU ------------------------------------------------
run=(run --backend "$backend" --precision float --preset plummer --n "$check_n" --steps 20 --quiet)
"$nbody" "${run[@]}" --output "$out/one.csv" >"$out/one.txt" 2>&1 || status=1
"${mpirun[@]}" -np 2 "$nbody" "${run[@]}" --output "$out/np2.csv" >"$out/np2.txt" 2>&1 || status=1
diff_line=$(paste -d, <(grep -v '^#' "$out/one.csv" | tail -n +2) <(grep -v '^#' "$out/np2.csv" | tail -n +2) | awk -F, '
    { dx = $1 - $8; dy = $2 - $9; dz = $3 - $10; d2 = dx * dx + dy * dy + dz * dz
      if (d2 > m2) m2 = d2; r2 += $1 * $1 + $2 * $2 + $3 * $3; n++ }
    END { if (n == 0) { print "no bodies"; exit } ; v = sqrt(m2) / sqrt(r2 / n)
          printf "%d bodies, max |dx| / rms radius = %.3g %s", n, v, (v <= 1e-5 ? "PASS" : "FAIL") }')
log "correctness N=$check_n, 20 steps, float: one process vs mpirun -np 2 on one GPU: $diff_line (bound 1e-5)"
[[ "$diff_line" == *PASS ]] || status=1
grep -h "nbody run" "$out/one.txt" "$out/np2.txt" | tee -a "$out/summary.txt"

# --- 3. two processes sharing the GPU (informative) ---------------------------------------------------------
"${mpirun[@]}" -np 2 "$nbody" bench --backend "$backend" --precision float --n "${speed_n[0]}" --steps 5 --warmup 2 --repeats 5 \
    --format csv --quiet >"$out/np2_bench.csv" || status=1
log "mpirun -np 2 on one GPU, N=${speed_n[0]}: $(best "$out/np2_bench.csv" "${speed_n[0]}") ms/step (two processes share the GPU)"
log "mpi_gpu_check: $([[ $status == 0 ]] && echo PASS || echo FAIL)"
exit $status
