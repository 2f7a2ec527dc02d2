"""show(): the window opens on the simulation's state and hands the state back when it closes."""

import os
import shutil
import subprocess
import sys

import pytest

SCRIPT = """
import numpy as np, nbody
sim = nbody.Simulation(preset="disk", n=256, backend="serial", precision="double", dt=0.002)
sim.step(5)
before, t0, dt = sim.positions, sim.t, sim.dt
back = sim.show(width=320, height=200, frames=40)
assert back is sim and sim.n == 256 and sim.dt == dt and sim.backend == "serial"
assert sim.t > t0, (sim.t, t0)                           # the window simulated on
assert not np.array_equal(sim.positions, before)
assert np.isfinite(sim.positions).all()
print("show ok", sim.t)
"""


def test_show_round_trip():
    xvfb = shutil.which("xvfb-run")
    if not xvfb or not os.environ.get("NBODY_EXE"):
        pytest.skip("needs xvfb-run and the nbody program of this build (run through ctest)")
    p = subprocess.run([xvfb, "-a", "-s", "-screen 0 1280x800x24", sys.executable, "-c", SCRIPT],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "show ok" in p.stdout


def test_show_without_a_display_is_a_runtime_error(monkeypatch):
    import nbody

    if not os.environ.get("NBODY_EXE"):
        pytest.skip("needs the nbody program of this build (run through ctest)")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    sim = nbody.Simulation(n=16, backend="serial")
    with pytest.raises(RuntimeError, match="display"):
        sim.show(frames=1)
    assert sim.n == 16
