#!/usr/bin/env bash
# Builds nbody with sanitizers and runs the tests under them.
#   scripts/sanitize.sh [asan|tsan|all]     default: asan
#     asan: AddressSanitizer + UndefinedBehaviorSanitizer (leaks included), the whole CTest suite.
#     tsan: ThreadSanitizer, the tests that run threads of our own (the window's simulation session, the
#           window under Xvfb, the command line); OpenMP's own runtime is not instrumented and is
#           suppressed (tests/sanitizers/tsan.supp).
#   NBODY_SANITIZE_DIR=dir   build directories are dir-asan, dir-tsan (default: build-asan, build-tsan)
#   NBODY_TEST_REGEX=re      run only the matching tests (ctest -R)
# Known leaks of the system's libraries (Mesa's drivers, Open MPI's components) are suppressed by name
# in tests/sanitizers/lsan.supp, never by turning leak detection off. CUDA is not built: the
# sanitizers do not see into the device, and the CUDA runtime's own allocations would need suppressing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
which=${1:-asan}
jobs=${NBODY_JOBS:-$(nproc)}
base=${NBODY_SANITIZE_DIR:-build}
supp="$root/tests/sanitizers"

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi

# configure_and_build DIR FLAGS [EXTRA_EXE_LINK_FLAGS] [TARGETS...]
configure_and_build() {
    local dir=$1 flags=$2 exe_link=${3:-}
    shift 2
    if (($#)); then shift; fi
    local targets=()
    if (($#)); then targets=(--target "$@"); fi
    local generator=()
    if [[ ! -f "$dir/CMakeCache.txt" ]]; then generator=(-G Ninja); fi
    # -O1: fast enough for the physics tests, still exact line numbers; frame pointers for the stacks.
    # No Python module: an instrumented extension loads only into a python3 started with the sanitizer's
    # runtime preloaded, which is not what the suite tests.
    cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNBODY_WITH_CUDA=OFF \
        -DNBODY_NATIVE=OFF -DNBODY_WITH_PYTHON=OFF "${launcher[@]}" \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -fno-omit-frame-pointer $flags" \
        -DCMAKE_EXE_LINKER_FLAGS="$flags $exe_link" -DCMAKE_SHARED_LINKER_FLAGS="$flags"
    cmake --build "$dir" --parallel "$jobs" "${targets[@]}"
}

run_tests() {
    local dir=$1
    shift
    local filter=()
    if [[ -n "${NBODY_TEST_REGEX:-}" ]]; then filter=(-R "$NBODY_TEST_REGEX"); fi
    ctest --test-dir "$dir" --output-on-failure --parallel "$jobs" --timeout 1500 "${filter[@]}" "$@"
}

status=0
if [[ $which == asan || $which == all ]]; then
    echo "sanitize: ASan + UBSan build in $base-asan"
    # Modules stay loaded to the end (see tests/sanitizers/keep_modules_loaded.c): Mesa's driver would
    # otherwise be unloaded with the only pointers to its memory, and reported as "<unknown module>" leaks.
    mkdir -p "$base-asan"
    keep="$(cd "$base-asan" && pwd)/keep_modules_loaded.o"
    ${CC:-cc} -c -O1 -fPIC "$supp/keep_modules_loaded.c" -o "$keep"
    configure_and_build "$base-asan" "-fsanitize=address,undefined -fno-sanitize-recover=undefined" \
        "$keep -Wl,--export-dynamic-symbol=dlclose"
    export ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:strict_string_checks=1:detect_stack_use_after_return=1"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    time run_tests "$base-asan" || status=1
fi
if [[ $which == tsan || $which == all ]]; then
    echo "sanitize: TSan build in $base-tsan"
    # Threads of our own: the window's simulation session and the window itself; the command line
    # (signal handlers, OpenMP backends driven from the CLI). Only what those tests run is built (a third
    # of the build), unless NBODY_TEST_REGEX asks for other tests.
    tsan_targets=()
    if [[ -z "${NBODY_TEST_REGEX:-}" ]]; then
        tsan_targets=(nbody png_check test_session test_cli test_snapshot_cli test_render)
    fi
    configure_and_build "$base-tsan" "-fsanitize=thread" "" "${tsan_targets[@]}"
    # history_size=7: enough history to restore both stacks of a report (else "failed to restore the
    # stack", and a suppression by library cannot match). OMP_NUM_THREADS=1: Debian's libgomp is not
    # built with TSan, so the accesses of its worker threads race with everything in TSan's eyes (see
    # tsan.supp); with one thread each parallel loop runs on the thread that reached it, and our own
    # threads (the window's simulation thread against its main thread) are what gets checked. Tests that
    # ask for threads themselves (--threads 2) still start workers: tsan.supp covers those.
    export TSAN_OPTIONS="suppressions=$supp/tsan.supp:halt_on_error=1:second_deadlock_stack=1:history_size=7"
    export OMP_NUM_THREADS=1
    NBODY_TEST_REGEX=${NBODY_TEST_REGEX:-"^SimSession\.|^window_|CliTest\."} run_tests "$base-tsan" || status=1
fi
if [[ $status -ne 0 ]]; then echo "sanitize: FAILED"; else echo "sanitize: ok"; fi
exit $status
