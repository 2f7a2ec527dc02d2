#!/usr/bin/env bash
# The cost of the window's classroom overlays, measured through `nbody render --bench-frames` (offscreen
# EGL, the same renderer and feed as the window): one plain run, then each feature on alone, then all.
# Prints a table of median ms per frame (step + feed + draw, and draw alone) and the extra cost of each
# feature over the plain run. Made for the lent GPU:
#   cmake --build build-gpu -j2 --target nbody && ../shared/device/prepare.sh build-gpu/app/nbody
#   device run: carry [".device"], command "source .device/env.sh && bench/window_features_gpu.sh"
# Locally (any backend, small N) to try it:
#   BACKEND=openmp N=2048 WIDTH=640 HEIGHT=360 FRAMES=10 bench/window_features_gpu.sh
# Environment: NBODY (the binary; default .device/bin/nbody if staged, else build/app/nbody), BACKEND
# (cuda), PRESET (disk), N (131072), STEPS (20), WIDTH (1920), HEIGHT (1080), FRAMES (50), TRAILS (64),
# POTENTIAL (128, the window's default grid), EXTRA (more flags for every run, e.g. "--force tree").
set -uo pipefail
nbody=${NBODY:-}
if [ -z "$nbody" ]; then
  if [ -x .device/bin/nbody ]; then nbody=.device/bin/nbody; else nbody=build/app/nbody; fi
fi
[ -x "$nbody" ] || { echo "window_features_gpu: no nbody binary at '$nbody' (set NBODY)" >&2; exit 2; }
backend=${BACKEND:-cuda}
trails=${TRAILS:-64}
potential=${POTENTIAL:-128}
out=${OUT:-/tmp}/window_features
mkdir -p "$out"
base=(render --backend "$backend" --preset "${PRESET:-disk}" --n "${N:-131072}" --steps "${STEPS:-20}"
      --width "${WIDTH:-1920}" --height "${HEIGHT:-1080}" --bench-frames "${FRAMES:-50}" --quiet)
# shellcheck disable=SC2206
extra=(${EXTRA:-})
features=("plain" "trails $trails" "vectors" "acc-vectors" "pick" "potential $potential" "all")
flags_of() {
  case "$1" in
    plain) ;;
    trails*) echo "--trails $trails" ;;
    vectors) echo "--vectors" ;;
    acc-vectors) echo "--acc-vectors" ;;
    pick) echo "--pick" ;;
    potential*) echo "--potential $potential" ;;
    all) echo "--trails $trails --vectors --acc-vectors --pick --potential $potential" ;;
  esac
}
status=0
rows=()
plain_full=""
plain_draw=""
for f in "${features[@]}"; do
  name=${f// /_}
  # shellcheck disable=SC2046
  "$nbody" "${base[@]}" "${extra[@]}" $(flags_of "$f") --out "$out/$name.png" > "$out/$name.log" 2>&1
  rc=$?
  line=$(grep -m1 '^bench: N=' "$out/$name.log")
  full=$(sed -n 's/.*full frame (step+feed+draw) median \([0-9.]*\) ms.*/\1/p' <<< "$line")
  draw=$(sed -n 's/.*draw only median \([0-9.]*\) ms.*/\1/p' <<< "$line")
  io=$(sed -n 's/.*\(interop=[a-z]*\)  device->host \([0-9]*\) B\/frame.*/\1 d2h=\2B/p' <<< "$line")
  if [ "$rc" -ne 0 ] || [ -z "$full" ]; then
    echo "window_features_gpu: '$f' failed (exit $rc): $(tail -1 "$out/$name.log")" >&2
    status=1
    rows+=("$(printf '| %-14s | %10s | %10s | %10s | %s |' "$f" failed - - "see $out/$name.log")")
    continue
  fi
  if [ "$f" = plain ]; then plain_full=$full; plain_draw=$draw; fi
  extra_ms=$(awk -v a="$full" -v b="${plain_full:-$full}" 'BEGIN { printf "%+.3f", a - b }')
  rows+=("$(printf '| %-14s | %10s | %10s | %10s | %s |' "$f" "$full" "$draw" "$extra_ms" "$io")")
done
head=$(grep -m1 '^nbody render:' "$out/plain.log" | sed 's/.*\[\(.*\)\]/\1/')
echo "nbody ${base[*]} ${extra[*]}"
echo "device: ${head:-?}; plain draw-only ${plain_draw:-?} ms"
echo
echo "| feature        | frame ms   | draw ms    | extra ms   | transfers |"
echo "|----------------|-----------:|-----------:|-----------:|-----------|"
printf '%s\n' "${rows[@]}"
echo
echo "frame: median of step(1) + feed + overlays' work + draw + glFinish; draw: drawing alone (the last"
echo "frame's buffers); extra: frame minus plain. potential and pick evaluate every frame here (the window"
echo "does it a few times a second). Logs and images in $out."
exit $status
