#!/usr/bin/env python3
"""sim.step(K) from Python against `nbody bench` on the same preset, N, backend and steps.

    PYTHONPATH=build/python python3 bench/python_step_vs_cli.py [NBODY_EXE] [N] [STEPS] [RUNS]

Alternates the two (so a change in the machine's load hits both alike): `nbody bench --backend openmp
--n N --steps STEPS --warmup 2 --repeats 1`, then a Simulation of the same plummer bodies stepping 2
untimed steps and STEPS timed ones in one sim.step(STEPS). Prints each run's ms/step and the medians'
ratio. OMP_NUM_THREADS applies to both. docs/PERFORMANCE.md has the numbers.
"""

import json
import statistics
import subprocess
import sys
import time

import nbody


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else "build/app/nbody"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    cli_ms, py_ms = [], []
    for r in range(runs):
        out = subprocess.run([exe, "bench", "--backend", "openmp", "--n", str(n), "--steps", str(steps),
                              "--warmup", "2", "--repeats", "1", "--format", "json", "--quiet"],
                             check=True, capture_output=True, text=True).stdout
        cli_ms.append(json.loads(out)[0]["ms_per_step"])
        sim = nbody.Simulation(preset="plummer", n=n, backend="openmp", seed=1)
        sim.step(2)
        start = time.perf_counter()
        sim.step(steps)
        py_ms.append((time.perf_counter() - start) * 1e3 / steps)
        print(f"run {r + 1}: nbody bench {cli_ms[-1]:8.2f} ms/step   sim.step({steps}) {py_ms[-1]:8.2f} ms/step",
              flush=True)
    c, p = statistics.median(cli_ms), statistics.median(py_ms)
    print(f"median: nbody bench {c:.2f} ms/step, sim.step {p:.2f} ms/step, python/cli = {p / c:.3f}")


if __name__ == "__main__":
    main()
