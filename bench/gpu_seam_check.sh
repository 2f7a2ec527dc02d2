#!/usr/bin/env bash
# Issue 21's "no speed lost" check for the fixed-step integrators after the integrator seam: `nbody bench`
# rows from a binary built before the seam (nbody_before) and from this one, interleaved round by round,
# openmp at N = 16,384 (every core of the machine) and cuda at N = 1,048,576. Prints each row; the
# medians of the rounds go in docs/PERFORMANCE.md.
#   bench/gpu_seam_check.sh [ROUNDS]     binaries: .device/bin/nbody and .device/bin/nbody_before
set -uo pipefail
rounds=${1:-3}
bin=.device/bin
for r in $(seq "$rounds"); do
  for b in nbody_before nbody; do
    "$bin/$b" bench --quiet --backend openmp --n 16384 --precision float,double --integrator leapfrog,yoshida4 \
      --steps 5 --repeats 5 --format csv | grep -v -e '^#' -e '^backend,' | sed "s/^/$r,$b,/"
    "$bin/$b" bench --quiet --backend cuda --n 1048576 --precision float --steps 3 --repeats 3 --format csv |
      grep -v -e '^#' -e '^backend,' | sed "s/^/$r,$b,/"
  done
done
