#!/usr/bin/env python3
"""Reads an nbody HDF5 snapshot with h5py (an independent reader) and checks the GADGET/SWIFT layout.

Usage: check_snapshot_h5py.py FILE.h5 N PRECISION   (PRECISION: float or double)
Exits non-zero with one line naming the first problem.
"""
import sys

import h5py
import numpy as np


def main():
    path, n, precision = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    dtype = np.float32 if precision == "float" else np.float64
    with h5py.File(path, "r") as f:
        h = f["Header"].attrs
        assert list(h["NumPart_ThisFile"]) == [0, n, 0, 0, 0, 0], h["NumPart_ThisFile"]
        assert list(h["NumPart_Total"]) == [0, n, 0, 0, 0, 0], h["NumPart_Total"]
        assert list(h["NumPart_Total_HighWord"]) == [0] * 6
        assert list(h["MassTable"]) == [0.0] * 6
        assert h["NumFilesPerSnapshot"] == 1
        assert np.isfinite(h["Time"]) and h["Time"] > 0, h["Time"]
        p = f["PartType1"]
        for name, shape in (("Coordinates", (n, 3)), ("Velocities", (n, 3)), ("Masses", (n,))):
            assert p[name].shape == shape, (name, p[name].shape)
            assert p[name].dtype == dtype, (name, p[name].dtype)
            assert np.all(np.isfinite(p[name][...])), name
        assert np.all(p["Masses"][...] > 0)
        assert p["ParticleIDs"].dtype == np.uint64
        assert np.array_equal(p["ParticleIDs"][...], np.arange(n, dtype=np.uint64))
        g = f["NBody"].attrs
        for key in ("G", "Softening", "TimeStep", "Damping", "Integrator", "ForceAlgorithm", "Step", "Precision",
                    "Preset", "Seed", "ProgramVersion", "FormatVersion"):
            assert key in g, "missing /NBody attribute " + key
        as_text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
        assert as_text(g["Precision"]) == precision, g["Precision"]
        assert as_text(g["Integrator"]) == "leapfrog", g["Integrator"]
        assert g["Step"] > 0
    print("ok: h5py read", path)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        sys.exit("check_snapshot_h5py: layout check failed: " + repr(e.args))
