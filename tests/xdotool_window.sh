#!/usr/bin/env bash
# The real window driven by real key presses (issue 23 asks for Xvfb + xdotool checks): xvfb-run starts an
# X server, xdotool types into the nbody window, and the app's own log lines tell what happened: Ctrl+S
# prints the step it saved, P the screenshot it wrote. Checks that B (reverse) makes the step count go
# down, and that P writes a PNG png_check reads. Exits 77 (CTest: skipped) without xdotool or xvfb-run.
#   tests/xdotool_window.sh NBODY FIGURE8_CSV PNG_CHECK
set -uo pipefail
nbody=$1 fig8=$2 png_check=$3
for tool in xdotool xvfb-run; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIP: $tool is not installed (scripts/setup.sh installs it)"
        exit 77
    fi
done
if [[ -z ${NBODY_XDOTOOL_INNER:-} ]]; then
    exec env NBODY_XDOTOOL_INNER=1 xvfb-run -a -s "-screen 0 1280x720x24" "$0" "$@"
fi

work=$(mktemp -d)
pid=
cleanup() {
    [[ -n $pid ]] && kill "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "xdotool_window: $*"
    echo "--- the window's output:"
    cat "$work/log"
    exit 1
}
# Waits until the log has N lines matching REGEX (the window acts on a key within a frame or two, but a
# loaded machine draws a few frames a second); false after 10 s.
has_lines() {
    local n=$1 regex=$2
    for _ in $(seq 50); do
        (($(grep -cE -- "$regex" "$work/log") >= n)) && return 0
        sleep 0.2
    done
    return 1
}
# Ctrl+S until the Nth "saved snapshot" line appears (a key press lost under load is pressed again).
save_nth() {
    local n=$1
    for _ in 1 2 3; do
        key ctrl+s
        has_lines "$n" 'saved snapshot .*step -?[0-9]+\)' && return 0
    done
    fail "Ctrl+S printed no ${n}th 'saved snapshot' line"
}
key() {
    xdotool key --clearmodifiers "$@"
    sleep 0.4
}

cd "$work" || exit 1
export NBODY_SNAPSHOT_DIR=$work/snapshots
"$nbody" --input "$fig8" --backend serial --precision double --width 960 --height 600 --no-vsync \
    >"$work/log" 2>&1 &
pid=$!
win=$(timeout 60 xdotool search --sync --onlyvisible --name '^nbody$' | head -1)
[[ -n $win ]] || fail "no window named nbody appeared"
xdotool windowfocus --sync "$win" || fail "cannot focus the window"

sleep 2       # running forward
key space     # pause
save_nth 1    # saves: step K1
key b         # reverse
key space     # run (backwards)
sleep 2
key space     # pause
save_nth 2    # saves: step K2
key x         # the grid on
key p         # a screenshot of it, into the working directory
for _ in $(seq 50); do
    compgen -G "$work/*.png" >/dev/null && break
    sleep 0.2
done
sleep 1       # let the write finish
key Escape    # quits (a short run asks nothing)
for _ in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
done

steps=($(grep -oE 'saved snapshot .*step -?[0-9]+\)' "$work/log" | sed -E 's/.*step (-?[0-9]+)\)/\1/'))
echo "xdotool_window: steps saved: ${steps[*]}"
((steps[0] > 0)) || fail "the run did not step forward before B (step ${steps[0]})"
((steps[1] < steps[0])) || fail "after B the step count did not go down (${steps[0]} -> ${steps[1]})"
shot=$(ls "$work"/*.png 2>/dev/null | head -1)
[[ -n $shot ]] || fail "P wrote no PNG"
"$png_check" "$shot" 0.001 || fail "the screenshot is not a readable, lit PNG"
echo "xdotool_window: ok"
