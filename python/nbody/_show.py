"""Simulation.show: the interactive window on the current state, the state back when it closes."""

import os
import shutil
import subprocess
import tempfile

from . import _nbody

def _executable():
    """The `nbody` program whose window to open: $NBODY_EXE, the build's own, or `nbody` on PATH."""
    candidates = [os.environ.get("NBODY_EXE")]
    try:
        from . import _build_info
        candidates.append(getattr(_build_info, "NBODY_EXECUTABLE", None))
    except ImportError:
        pass
    candidates.append(shutil.which("nbody"))
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    raise RuntimeError("show() needs the nbody program: set NBODY_EXE to it, or put it on PATH")


def show(sim, width=1280, height=720, frames=0):
    """Opens the nbody window on this simulation's bodies and parameters; when it closes, its bodies,
    time and parameters come back into this simulation (the panel's edits included).

    The window runs as its own process (the `nbody` program of the same build), so it needs a
    display and does not block other kernels; this call waits until the window is closed.
    frames > 0 closes it after that many frames. RuntimeError if the window fails (no display).
    """
    with tempfile.TemporaryDirectory(prefix="nbody-show-") as tmp:
        start, end = os.path.join(tmp, "start.h5"), os.path.join(tmp, "end.h5")
        sim.save(start)
        cmd = [_executable(), "--input", start, "--backend", sim.backend, "--precision", sim.precision,
               "--width", str(width), "--height", str(height), "--save-on-exit", end]
        if frames > 0:
            cmd += ["--frames", str(frames)]
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0 or not os.path.exists(end):
            lines = p.stderr.strip().splitlines()
            raise RuntimeError(lines[-1] if lines else "the nbody window exited with status %d" % p.returncode)
        back = _nbody.Simulation.load(end, backend="serial")
        sim._take_parameters(back)  # the backend and precision stay this simulation's
        sim.set_bodies(back.positions, back.velocities, back.masses, t=back.t)
    return sim
