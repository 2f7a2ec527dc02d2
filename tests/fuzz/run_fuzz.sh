#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan) for the body CSV reader and the Tipsy and HDF5
# snapshot readers and runs them (the CSV corpus starts from tests/fuzz/seeds_csv). Not part of CI:
# fuzzing takes long and needs clang's fuzzer runtime (Debian: clang,
# libclang-rt-dev).
#   tests/fuzz/run_fuzz.sh [csv|csv-params|tipsy|hdf5|hdf5-params|hdf5-plain|all] [RUNS]
#     default: all, 1000000 runs each; csv-params: the '#' parameter lines of a CSV; hdf5-params: the
#     /NBody and /Header attributes of otherwise well-formed snapshots
#     hdf5-plain: the HDF5 reader without ASan, stopping at the first crash: a crash a normal build has
#     too (inside libhdf5), for tests/fuzz/regressions_hdf5 (not part of "all")
#   FUZZ_SECONDS=N      also stop each fuzzer after N seconds (default: no limit)
#   FUZZ_DIR=dir        build and corpus directory (default: build-fuzz)
# A crash leaves crash-* files in FUZZ_DIR; re-run one with: FUZZ_DIR/fuzz_tipsy FUZZ_DIR/crash-...
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
which=${1:-all}
runs=${2:-1000000}
out=${FUZZ_DIR:-$root/build-fuzz}
mkdir -p "$out/corpus_csv" "$out/corpus_tipsy" "$out/corpus_hdf5" "$out/corpus_csv_params" "$out/corpus_hdf5_params"
cd "$root"

cxx=${CXX_FUZZ:-clang++}
common=(-std=c++20 -O1 -g -I"$root" -fno-omit-frame-pointer -fopenmp)
asan=(-fsanitize=address,undefined -fno-sanitize-recover=undefined)
# shellcheck disable=SC2206  # pkg-config output is a list of flags
hdf5_flags=($(pkg-config --cflags hdf5))
# shellcheck disable=SC2206
hdf5_libs=($(pkg-config --libs hdf5))

# All of sim/ as one library per instrumentation (the readers call into params, validation, the force
# registry...: listing files by hand broke whenever a dependency was added), rebuilt where a source is
# newer than its object. "asan": coverage + ASan + UBSan; "plain": coverage only, so that a crash is one
# that a normal build has too (what fuzz_hdf5_plain looks for inside libhdf5).
sim_library() {
    local variant=$1
    shift
    local dir="$out/obj-$variant" objs=() src o newest_header
    newest_header=$(find sim -name '*.hpp' -printf '%T@ %p\n' | sort -rn | head -1 | cut -d" " -f2)
    mkdir -p "$dir"
    for src in $(find sim -name '*.cpp' | sort); do
        [[ $src == sim/io/snapshot_hdf5_none.cpp ]] && continue
        o="$dir/$(basename "$src" .cpp).o"
        if [[ ! $o -nt $src || ! $o -nt $newest_header ]]; then
            "$cxx" "${common[@]}" "$@" -fsanitize=fuzzer-no-link "${hdf5_flags[@]}" -c "$src" -o "$o"
        fi
        objs+=("$o")
    done
    rm -f "$dir/libsim.a"
    ar qc "$dir/libsim.a" "${objs[@]}"
}

echo "run_fuzz: building in $out"
if [[ $which == hdf5-plain ]]; then
    sim_library plain
    # (linked with the ASan runtime only for its coverage callbacks: the library is not ASan-instrumented)
    "$cxx" "${common[@]}" "${asan[@]}" tests/fuzz/make_seeds.cpp "$out/obj-plain/libsim.a" "${hdf5_libs[@]}" \
        -o "$out/make_seeds"
    mkdir -p "$out/corpus_hdf5_plain"
    "$out/make_seeds" "$out/corpus_tipsy" "$out/corpus_hdf5_plain"
    "$cxx" "${common[@]}" -fsanitize=fuzzer tests/fuzz/fuzz_hdf5.cpp "$out/obj-plain/libsim.a" "${hdf5_libs[@]}" \
        -o "$out/fuzz_hdf5_plain"
else
    sim_library asan "${asan[@]}"
    "$cxx" "${common[@]}" "${asan[@]}" tests/fuzz/make_seeds.cpp "$out/obj-asan/libsim.a" "${hdf5_libs[@]}" \
        -o "$out/make_seeds"
    "$out/make_seeds" "$out/corpus_tipsy" "$out/corpus_hdf5"
    cp -n tests/fuzz/seeds_csv/*.csv "$out/corpus_csv/"
    cp -n tests/fuzz/seeds_csv/*.csv tests/fuzz/seeds_csv_params/*.csv "$out/corpus_csv_params/"
    for name in csv tipsy hdf5 csv_params hdf5_params; do
        "$cxx" "${common[@]}" "${asan[@]}" -fsanitize=fuzzer "${hdf5_flags[@]}" "tests/fuzz/fuzz_$name.cpp" \
            "$out/obj-asan/libsim.a" "${hdf5_libs[@]}" -o "$out/fuzz_$name"
    done
fi

limit=()
if [[ -n "${FUZZ_SECONDS:-}" ]]; then limit=(-max_total_time="$FUZZ_SECONDS"); fi
status=0
fuzz() {
    local name=$1 max_len=$2
    echo "run_fuzz: $name, $runs runs"
    (cd "$out" && "./fuzz_$name" "corpus_$name" -runs="$runs" -max_len="$max_len" -rss_limit_mb=2048 \
        -print_final_stats=1 "${limit[@]}" "${@:3}") || status=1
}
# Lines up to the reader's 1 MiB limit and beyond: long cells and the line-length error are exercised.
if [[ $which == csv || $which == all ]]; then fuzz csv 65536; fi
if [[ $which == csv-params || $which == all ]]; then fuzz csv_params 4096; fi
if [[ $which == tipsy || $which == all ]]; then fuzz tipsy 4096; fi
# Files built from the input: libhdf5 keeps its free lists (not leaks of ours), as for hdf5 below.
if [[ $which == hdf5-params || $which == all ]]; then fuzz hdf5_params 1024 -detect_leaks=0; fi
# libhdf5 keeps free lists and caches for the life of the process: not leaks of ours. Debian's libhdf5
# (1.10.8) itself reads out of bounds on some corrupt object headers, so this fuzzer runs in fork mode and
# carries on past crashes; each crash is then triaged: ours if a frame of our code is the first one
# outside the sanitizer runtime, else inside libhdf5.
# Stops at the first crash, which a normal build has too: keep it in tests/fuzz/regressions_hdf5/.
if [[ $which == hdf5-plain ]]; then fuzz hdf5_plain 16384 -detect_leaks=0; fi
if [[ $which == hdf5 || $which == all ]]; then
    fuzz hdf5 16384 -detect_leaks=0 -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1
    ours=0 theirs=0 alone=0
    for crash in "$out"/crash-* "$out"/leak-* "$out"/oom-* "$out"/timeout-*; do
        [[ -e $crash ]] || continue
        # The first frame that is libhdf5's or ours decides; none: it does not crash when run alone (fork
        # mode runs many inputs per process, and an earlier one may have corrupted libhdf5's heap).
        first=$("$out/fuzz_hdf5" -detect_leaks=0 "$crash" 2>&1 | grep -E '^ +#[0-9]+ ' |
            grep -E 'libhdf5|nbody::|/sim/|LLVMFuzzerTestOneInput' | head -1 || true)
        if [[ -z $first ]]; then
            alone=$((alone + 1))
        elif [[ $first == *libhdf5* ]]; then
            theirs=$((theirs + 1))
        else
            ours=$((ours + 1))
            echo "run_fuzz: OUR BUG? $crash: $first"
        fi
    done
    echo "run_fuzz: hdf5 crash triage: $ours in our code, $theirs inside libhdf5, $alone not reproducible alone"
    if ((ours > 0)); then status=1; fi
fi
exit $status
