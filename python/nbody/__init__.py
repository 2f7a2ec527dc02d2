"""nbody: the N-body simulator's library from Python.

The same C++ library as the `nbody` command line (serial, OpenMP and CUDA backends; leapfrog,
symplectic Euler, Euler, Yoshida 4 and Hermite integrators; direct and tree forces), with numpy
arrays in and out::

    import nbody
    sim = nbody.Simulation(preset="solar", n=8, precision="double")
    sim.integrate(10.0)
    print(sim.t, sim.energy(), sim.positions[:3])

Bad values raise ValueError with the command line's one-line message; a run that cannot go on
raises RuntimeError. docs/PYTHON.md describes the module.
"""

from ._abi import load_extension as _load_extension

_nbody = _load_extension()

Simulation = _nbody.Simulation
backends = _nbody.backends
presets = _nbody.presets
integrators = _nbody.integrators
force_algorithms = _nbody.force_algorithms
__version__ = _nbody.__version__

from ._bench import bench  # noqa: E402  (needs the extension loaded above)
from ._show import show as _show  # noqa: E402

Simulation.show = _show

__all__ = [
    "Simulation",
    "backends",
    "bench",
    "force_algorithms",
    "integrators",
    "presets",
]
