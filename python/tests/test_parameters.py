"""Constructor arguments and properties: checked by the library, failing with the command line's words."""

import warnings

import pytest

import nbody
from helpers import cli_error


@pytest.mark.parametrize(
    "kwargs, flags",
    [
        (dict(dt=-1.0), ["--dt", "-1"]),
        (dict(softening=-0.5), ["--softening", "-0.5"]),
        (dict(G=0.0), ["--G", "0"]),
        (dict(damping=1.5), ["--damping", "1.5"]),
        (dict(integrator="rk4"), ["--integrator", "rk4"]),
        (dict(force="fmm"), ["--force", "fmm"]),
        (dict(preset="galaxy"), ["--preset", "galaxy"]),
        (dict(backend="metal"), ["--backend", "metal"]),
        (dict(precision="half"), ["--precision", "half"]),
        (dict(n=0), ["--n", "0"]),
        (dict(dt=1e-300), ["--dt", "1e-300"]),
    ],
)
def test_constructor_errors_match_the_cli(kwargs, flags, cli):
    with pytest.raises(ValueError) as error:
        nbody.Simulation(**kwargs)
    status, _, stderr = cli("run", "--steps", "0", *flags)
    assert status == 1
    assert str(error.value) == cli_error(stderr)


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("dt", float("nan"), "dt must be"),
        ("dt", 0.0, "dt must be"),
        ("softening", -1.0, "softening must be"),
        ("G", -1.0, "G must be"),
        ("damping", 0.0, "damping must be"),
        ("theta", 2.0, r"theta must be in \[0.01, 1\]"),
        ("eta", 0.0, r"eta must be in \[1e-06, 1\]"),
        ("integrator", "rk4", r"unknown integrator 'rk4' \(valid: leapfrog, "),
        ("force", "fmm", r"unknown force algorithm 'fmm' \(valid: direct, tree\)"),
        ("precision", "half", r"unknown precision 'half' \(valid: float, double\)"),
        ("backend", "metal", r"unknown backend 'metal' \(valid: serial, openmp"),
    ],
)
def test_setters_refuse_bad_values_and_keep_the_old(name, value, message):
    sim = nbody.Simulation(n=32, backend="serial")
    before = getattr(sim, name)
    with pytest.raises(ValueError, match=message):
        setattr(sim, name, value)
    assert getattr(sim, name) == before


def test_setters_take_good_values():
    sim = nbody.Simulation(preset="disk", n=64, backend="serial")
    assert sim.dt == 0.01 or sim.dt > 0  # the preset's
    sim.dt = 0.002
    sim.softening = 0.1
    sim.G = 2.0
    sim.damping = 0.99
    sim.integrator = "yoshida4"
    sim.force = "tree"
    sim.theta = 0.4
    sim.precision = "double"
    assert (sim.dt, sim.softening, sim.G, sim.damping) == (0.002, 0.1, 2.0, 0.99)
    assert (sim.integrator, sim.force, sim.theta, sim.precision) == ("yoshida4", "tree", 0.4, "double")
    sim.step(3)
    assert sim.t == pytest.approx(0.006)


def test_preset_parameters_are_the_cli_defaults(cli):
    sim = nbody.Simulation(preset="collision", n=256, backend="serial")
    status, out, _ = cli("run", "--preset", "collision", "--n", "256", "--steps", "0", "--backend", "serial")
    assert status == 0
    assert f"dt = {sim.dt:g}, softening = {sim.softening:g}" in out


def test_preset_is_the_same_bodies_as_the_cli(tmp_path, cli):
    out = tmp_path / "disk.h5"
    status, _, _ = cli("run", "--preset", "disk", "--n", "100", "--seed", "9", "--steps", "0",
                       "--precision", "double", "--output", str(out))
    assert status == 0
    sim = nbody.Simulation(preset="disk", n=100, seed=9, precision="double", backend="serial")
    saved = nbody.Simulation.load(str(out), backend="serial")
    assert (sim.positions == saved.positions).all() and (sim.velocities == saved.velocities).all()


def test_help_is_readable():
    text = nbody.Simulation.__doc__ + nbody.Simulation.__init__.__doc__
    for word in ("preset", "backend", "ValueError", "integrator"):
        assert word in text
    for name in ("positions", "step", "integrate", "save", "load", "render", "show", "energy", "diagnostics"):
        assert getattr(nbody.Simulation, name).__doc__, name
    for f in (nbody.backends, nbody.bench, nbody.presets, nbody.integrators, nbody.force_algorithms):
        assert f.__doc__


def test_notes_arrive_as_warnings():
    with pytest.warns(UserWarning, match=r"^nbody: note: --theta has no effect with --force direct"):
        nbody.Simulation(n=16, backend="serial", theta=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning):
            nbody.Simulation(n=16, backend="serial", theta=0.5)


def test_a_float_eta_below_the_floor_is_warned_about():
    # In float, rounding sets some bodies' steps below eta 0.01 (sim/integrate/integrators.hpp); double is fine.
    with pytest.warns(UserWarning, match=r"^nbody: warning: --eta 0.005 in float: below 0.01, "):
        nbody.Simulation(n=16, backend="serial", integrator="hermite", eta=0.005)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim = nbody.Simulation(n=16, backend="serial", integrator="hermite", eta=0.005, precision="double")
        nbody.Simulation(n=16, backend="serial", integrator="hermite", eta=0.01)
    # A change that takes a simulation below the floor: its setter warns (once, at the crossing).
    with pytest.warns(UserWarning, match=r"--eta 0.005 in float"):
        sim.precision = "float"
    other = nbody.Simulation(n=16, backend="serial", integrator="hermite")
    with pytest.warns(UserWarning, match=r"--eta 0.004 in float"):
        other.eta = 0.004
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        other.eta = 0.003  # already below: said once


def test_a_whole_number_setting_reads_back_as_an_int():
    sim = nbody.Simulation(n=16, backend="serial", integrator="hermite", neighbours=8)
    assert sim.neighbours == 8 and isinstance(sim.neighbours, int)
    assert isinstance(sim.eta, float)
