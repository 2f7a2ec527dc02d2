#!/usr/bin/env bash
# Runs a command and passes only if it exits with the expected status AND its output (stdout and stderr)
# matches an extended regex. CTest's PASS_REGULAR_EXPRESSION alone ignores the exit status, so a crash
# after the expected line printed would pass.
#   tests/expect_output.sh STATUS REGEX COMMAND [ARGS...]      STATUS: a number, or "nonzero"
set -uo pipefail
want=$1 regex=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [[ $want == nonzero ]]; then
    if ((status == 0)); then echo "expect_output: exit status 0, expected non-zero"; exit 1; fi
elif ((status != want)); then
    echo "expect_output: exit status $status, expected $want"
    exit 1
fi
# -z: the whole output is one record, so a regex may span lines (".*" crosses newlines).
if ! grep -Ezq -- "$regex" <<<"$output"; then echo "expect_output: the output does not match /$regex/"; exit 1; fi
echo "expect_output: ok (status $status)"
