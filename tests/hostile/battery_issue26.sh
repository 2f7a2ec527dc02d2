#!/usr/bin/env bash
# The hostile cases of issue 26, rebuilt from its text, against a built nbody: each must end (timeout),
# with the status and the one error line expected, and leave the inputs as they were. Not part of CTest
# (the same cases are tests in test_data_safety, test_partial_file, test_cli_messages, test_snapshot and
# test_mpi); this runs them as a user would, through a shell.
#   tests/hostile/battery_issue26.sh [path/to/nbody]     (default: build/app/nbody)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
nbody=$(realpath "${1:-$root/build/app/nbody}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0 fail=0

# check NAME WANT_STATUS WANT_TEXT -- command...: status and stderr (WANT_TEXT a grep -E pattern, "" = any).
check() {
    local name=$1 want=$2 text=$3
    shift 4
    timeout 60 "$@" >out.txt 2>err.txt
    local got=$?
    local lines
    lines=$(grep -c '^nbody: error' err.txt)
    if [[ $got == "$want" && ($want == 0 || $lines == 1) && (-z $text || $(grep -cE -- "$text" err.txt) -gt 0) ]]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name: status $got (want $want)"
        sed 's/^/    /' err.txt | head -5
    fi
}
same() {  # same NAME FILE CHECKSUM: the file still has its content
    if [[ $(sha1sum <"$2") == "$3" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1: $2 changed"; fi
}

"$nbody" run --n 5 --steps 0 --G 3 --dt 0.002 --output in.csv --quiet >/dev/null
sum=$(sha1sum <in.csv)
# 1. outputs that are the input
check log-is-input 1 "same file as --input" -- "$nbody" run --input in.csv --steps 2 --energy-log in.csv
check traj-is-input 1 "same file as --input" -- "$nbody" run --input in.csv --steps 2 --trajectory ./in.csv
ln in.csv hard.csv && ln -s in.csv link.csv
check output-hardlink 1 "same file as --input" -- "$nbody" run --input in.csv --steps 2 --output hard.csv
check output-symlink 1 "same file as --input" -- "$nbody" run --input in.csv --steps 2 --output link.csv
check plot-is-input 1 "same file as --input" -- "$nbody" run --input in.csv --energy-log e.csv --plot hard.csv
same input-kept in.csv "$sum"
# 2. snapshot series
check series-1 0 "" -- "$nbody" run --n 16 --steps 10 --snapshot-every 5 --snapshot-dir run1 --quiet
s0=$(sha1sum <run1/snap_000000.h5)
check series-again 1 "already holds a snapshot series" -- "$nbody" run --n 16 --seed 2 --steps 10 --snapshot-every 5 --snapshot-dir run1
same series-kept run1/snap_000000.h5 "$s0"
s10=$(sha1sum <run1/snap_000010.h5)
check series-own-input 1 "write over its own input" -- "$nbody" run --input run1/snap_000010.h5 --snapshot-every 5 --snapshot-dir run1 --overwrite
same series-input-kept run1/snap_000010.h5 "$s10"
check series-restart-continues 0 "" -- "$nbody" run --restart run1/snap_000010.h5 --steps 10 --snapshot-every 5 --snapshot-dir run1 --quiet
check series-restart-earlier 1 "beyond step 5" -- "$nbody" run --restart run1/snap_000005.h5 --steps 10 --snapshot-every 5 --snapshot-dir run1
check series-overwrite 0 "" -- "$nbody" run --n 16 --seed 3 --steps 5 --snapshot-every 5 --snapshot-dir run1 --overwrite --quiet
# 3. two runs sharing a log: the second is refused while the first runs
"$nbody" run --n 3000 --steps 200 --log-every 1 --energy-log shared.csv --quiet >/dev/null 2>&1 &
first=$!
for _ in $(seq 50); do [[ -e shared.csv.partial ]] && break; sleep 0.1; done
check shared-log 1 "another nbody run is writing it" -- "$nbody" run --n 8 --steps 2 --energy-log shared.csv
check shared-traj 1 "another nbody run is writing it" -- "$nbody" run --n 8 --steps 2 --trajectory shared.csv
wait $first
if [[ -s shared.csv ]] && tr -d '\000' <shared.csv | cmp -s - shared.csv; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL shared-log-content"; fi
# 4. planted side files
echo precious >victim.txt
ln -s victim.txt e2.csv.partial
check planted-symlink 1 "symbolic link" -- "$nbody" run --n 8 --steps 2 --energy-log e2.csv
[[ $(cat victim.txt) == precious ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL victim written"; }
mkfifo f.csv.partial
check planted-fifo 1 "is a FIFO" -- "$nbody" run --n 8 --steps 2 --trajectory f.csv
if mknod d.csv.partial c 1 3 2>/dev/null; then
    check planted-device 1 "character device" -- "$nbody" run --n 8 --steps 2 --energy-log d.csv
    [[ -c d.csv.partial ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL device removed"; }
fi
# 5. HDF5 on a full disk (a file-size limit stands in for a 64 KiB tmpfs)
check full-disk-h5 1 "cannot write 'full.h5': File too large" -- bash -c "ulimit -f 64; trap '' XFSZ; exec \"$nbody\" run --n 2000 --steps 0 --output full.h5"
check full-disk-csv 1 "File too large" -- bash -c "ulimit -f 64; trap '' XFSZ; exec \"$nbody\" run --n 20000 --steps 0 --output full.csv"
# 6. a step counter near 2^63
/usr/bin/python3 - <<'PY' && check step-2p63 1 "/NBody/Step = 9223372036854775808 is out of range" -- "$nbody" run --restart flipped.h5 --steps 3 --snapshot-every 3 --snapshot-dir s6
import h5py, shutil, subprocess
shutil.copy("run1/snap_000005.h5", "flipped.h5")
with h5py.File("flipped.h5", "r+") as f:
    f["NBody"].attrs.modify("Step", 2**63 - 1)
PY
# 9. pipes
check pipe-stdin 0 "" -- bash -c "cat in.csv | \"$nbody\" run --input /dev/stdin --steps 1 --quiet"
grep -q "dt = 0.002" out.txt && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL pipe lost the parameter lines"; }
check pipe-procsub 0 "" -- bash -c "\"$nbody\" run --input <(cat in.csv) --steps 1 --quiet"
# 8. a log with NaN rows is refused, naming them
printf 'step,t,kinetic,potential,total,rel_drift,px,py,pz\n0,0,1,-2,-1,0,0,0,0\n10,1,nan,-2,nan,nan,0,0,0\n' >nan.csv
check plot-nan-rows 1 "NaN or Inf in 1 row \\(line 3\\)" -- "$nbody" plot nan.csv -o nan.png
[[ ! -e nan.png ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL plot-nan-rows wrote a PNG"; }
# 10. wrong successes
check theta-nan 1 "theta" -- "$nbody" bench --force tree --theta nan --n 64
check progress-nan 0 "NBODY_PROGRESS_SECONDS" -- env NBODY_PROGRESS_SECONDS=nan "$nbody" run --n 8 --steps 1
check progress-neg 0 "NBODY_PROGRESS_SECONDS" -- env NBODY_PROGRESS_SECONDS=-1 "$nbody" run --n 8 --steps 1
sed 's/^# N = 5$/# N = 7/' in.csv >n7.csv
check csv-n-mismatch 1 "say N = '7' but the file holds 5" -- "$nbody" run --input n7.csv --steps 1
sed 's/^# dt = 0.002$/# dt = 0.002\n# dt = 0.003/' in.csv >dup.csv
check csv-dup-dt 1 "given twice" -- "$nbody" run --input dup.csv --steps 1
sed 's/^# step = 0$/# step = -7/' in.csv >neg.csv
check csv-neg-step 1 "step = -7" -- "$nbody" run --input neg.csv --steps 1
check render-jpg 1 "PNG" -- "$nbody" render --n 16 --steps 1 --out x.jpg
check restart-tree 0 "not the original run" -- "$nbody" run --restart run1/snap_000005.h5 --force tree --steps 1 --quiet
check seed-input 0 "--seed has no effect" -- "$nbody" run --input in.csv --seed 5 --steps 1 --quiet
# 11. a large state's potential: the tree or a sample, said so, with a progress line
check potential-tree 0 "nbody potential, tree" -- env NBODY_PROGRESS_SECONDS=0 "$nbody" run --n 131073 --steps 0 --force tree --backend openmp --energy-log big.csv
grep -q "(potential tree (theta" out.txt && grep -q "^# potential: tree" big.csv && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL potential-tree not said"; }
check potential-sampled 0 "" -- "$nbody" run --n 131073 --steps 0 --backend openmp --energy-log big2.csv --quiet
grep -q "(potential sampled (4096 of 131073 bodies)" out.txt && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL potential-sampled not said"; }
# 7. MPI ranks that disagree
if command -v mpirun >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    check mpi-dt-nan 1 "different arguments" -- mpirun -q --oversubscribe -np 1 "$nbody" run --n 8 --steps 2 : -np 1 "$nbody" run --n 8 --steps 2 --dt nan
    check mpi-dt-spelled-twice 0 "" -- mpirun -q --oversubscribe -np 1 "$nbody" run --n 8 --steps 2 --dt 0.01 --quiet : -np 1 "$nbody" run --quiet --n 8 --steps=2 --dt 1e-2
    check mpi-steps0-log 0 "" -- mpirun -q --oversubscribe -np 2 "$nbody" run --n 100 --steps 0 --energy-log m0.csv --quiet
    check mpi-log-every 1 "different arguments" -- mpirun -q --oversubscribe -np 1 "$nbody" run --n 8 --steps 4 --energy-log m.csv --log-every 1 : -np 1 "$nbody" run --n 8 --steps 4 --energy-log m.csv --log-every 2
fi
# 13. messages
check repeated-flag 1 "--n was given 2 times" -- "$nbody" run --n 5 --n 6
check error-sample 1 "bodies whose force error" -- "$nbody" bench --error --error-sample 0
long=$(printf 'a%.0s' $(seq 250)).csv
check long-name 0 "" -- "$nbody" run --n 8 --steps 1 --output "$long" --quiet
check escape-name 1 "\\\\x1B" -- "$nbody" run --input $'\e[31mred.csv'
printf 'x\ty\tz\tvx\tvy\tvz\tm\n0\t0\t0\t0\t0\t0\t1\n' >tabs.csv
check csv-tabs 1 "looks tab-separated: nbody reads comma-separated values" -- "$nbody" run --input tabs.csv --steps 1
/usr/bin/python3 -c 'open("u16.csv","wb").write("x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n".encode("utf-16"))'
check csv-utf16 1 "looks UTF-16 .*: save it as UTF-8" -- "$nbody" run --input u16.csv --steps 1
echo "battery_issue26: $pass passed, $fail failed"
[[ $fail == 0 ]]
