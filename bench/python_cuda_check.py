#!/usr/bin/env python3
"""The CUDA backend through the Python module, for the lent GPU (docs/PYTHON.md).

Run with the interpreter the module was built for, numpy present, the build's python/ folder on
PYTHONPATH:  PYTHONPATH=build/python python3 bench/python_cuda_check.py [N_LARGE]

1. N = N_LARGE (default 1,048,576) plummer bodies on cuda, direct and tree: two steps each; the positions
   read back through sim.positions must be finite and have moved.
2. N = 4096: cuda tree against the CPU tree (openmp) and cuda direct against serial double direct on the
   same numpy state after 5 steps (position differences over the RMS radius: 1e-2 for the tree, 1e-4 for
   float direct, the bounds of `nbody bench --compare`).
Prints one line per check and exits 1 if any fails.
"""

import sys
import time

import numpy as np

import nbody


def rms_radius(x):
    return float(np.sqrt((x ** 2).sum(axis=1).mean()))


def rel_diff(a, b):
    return float(np.linalg.norm(a - b, axis=1).max()) / rms_radius(b)


def main():
    n_large = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    cuda = [b for b in nbody.backends() if b["name"] == "cuda"]
    if not cuda or not cuda[0]["available"]:
        print("python_cuda_check: cuda is not available here:", cuda[0]["reason"] if cuda else "not built")
        return 1
    print("python_cuda_check:", cuda[0]["device"])
    failed = 0

    for force in ("direct", "tree"):
        sim = nbody.Simulation(n=n_large, backend="cuda", force=force)
        before = sim.positions
        start = time.perf_counter()
        sim.step(2)
        seconds = (time.perf_counter() - start) / 2
        after = sim.positions
        ok = after.shape == (n_large, 3) and np.isfinite(after).all() and not np.array_equal(after, before)
        failed += not ok
        print(f"  N = {n_large} {force:6s}: {seconds * 1e3:9.1f} ms/step (incl. the first call), "
              f"positions read back {'ok' if ok else 'FAILED'}")

    start = nbody.Simulation(n=4096, backend="serial", precision="double")
    pos, vel, mass = start.positions, start.velocities, start.masses
    cases = [("tree", "cuda", "float", "openmp", "float", 1e-2),
             ("direct", "cuda", "float", "serial", "double", 1e-4),
             ("direct", "cuda", "double", "serial", "double", 1e-10)]
    for force, backend, precision, ref_backend, ref_precision, bound in cases:
        runs = []
        for b, p in ((backend, precision), (ref_backend, ref_precision)):
            sim = nbody.Simulation(n=4096, backend=b, precision=p, force=force)
            sim.set_bodies(pos, vel, mass, t=0.0)
            sim.step(5)
            runs.append(sim.positions)
        d = rel_diff(runs[0], runs[1])
        ok = d <= bound
        failed += not ok
        print(f"  N = 4096 {force:6s} {backend} {precision:6s} vs {ref_backend} {ref_precision:6s}: "
              f"max diff {d:.3g} (bound {bound:g}) {'ok' if ok else 'FAILED'}")
    print("python_cuda_check:", "FAILED" if failed else "ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
