#!/usr/bin/env bash
# The 10-second 1080p video of the 1M-body galaxy collision on the lent GPU (issue 24): `nbody render`
# steps the collision preset's 1200 demo steps on cuda with the tree, writes a frame every 4 steps (301
# frames at 30 fps = 10 s) flown along docs/examples/collision_flight.json, encodes H.264 through ffmpeg,
# then prints what ffprobe says of the file (where ffprobe exists) and takes 3 stills from it.
#   NBODY=.device/bin/nbody bench/gpu_flight_video.sh [OUT_DIR]
# Environment (the defaults are the GPU run; a local check: N=4096 BACKEND=openmp):
#   NBODY (nbody on PATH), N (1048576), BACKEND (cuda), FORCE (tree), WIDTH x HEIGHT (1920 x 1080),
#   CAMERA_PATH (docs/examples/collision_flight.json beside this script), EXTRA (more render flags).
# Needs ffmpeg on PATH. Writes OUT_DIR/collision_flight.mp4, OUT_DIR/still_{2,5,9}s.png and
# OUT_DIR/render.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nbody=${NBODY:-nbody}
n=${N:-1048576}
backend=${BACKEND:-cuda}
force=${FORCE:-tree}
width=${WIDTH:-1920}
height=${HEIGHT:-1080}
path=${CAMERA_PATH:-$here/../docs/examples/collision_flight.json}
out=${1:-${OUT:-/tmp/nbody_flight}}
if ! command -v "$nbody" >/dev/null 2>&1; then
  echo "gpu_flight_video: no nbody at '$nbody' (set NBODY=path/to/nbody)" >&2
  exit 2
fi
if ! command -v ffmpeg >/dev/null 2>&1; then
  echo "gpu_flight_video: ffmpeg is not on PATH (apt-get install ffmpeg)" >&2
  exit 2
fi
if [ ! -f "$path" ]; then
  echo "gpu_flight_video: no camera path at $path (set CAMERA_PATH)" >&2
  exit 2
fi
mkdir -p "$out"
video=$out/collision_flight.mp4
echo "gpu_flight_video: $n bodies, --backend $backend --force $force, ${width}x${height}, path $path"
start=$(date +%s)
# shellcheck disable=SC2086  # EXTRA is a list of flags
"$nbody" render --preset collision --n "$n" --backend "$backend" --force "$force" --steps 1200 \
  --every 4 --fps 30 --camera-path "$path" --width "$width" --height "$height" \
  --video "$video" ${EXTRA:-} 2>&1 | tee "$out/render.log"
echo "gpu_flight_video: rendered in $(( $(date +%s) - start )) s -> $video"
if command -v ffprobe >/dev/null 2>&1; then
  ffprobe -v error -count_frames -select_streams v:0 \
    -show_entries stream=codec_name,pix_fmt,width,height,r_frame_rate,duration,nb_read_frames \
    -of default=nw=1 "$video"
else
  echo "gpu_flight_video: no ffprobe: $(stat -c %s "$video") bytes"
fi
# Stills: the approach, the first passage with its tails, and the spread debris.
for t in 2 5 9; do
  ffmpeg -nostdin -v error -y -ss "$t" -i "$video" -frames:v 1 "$out/still_${t}s.png"
  echo "gpu_flight_video: still at ${t} s -> $out/still_${t}s.png"
done
