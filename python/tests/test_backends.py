"""Every backend present against the serial float64 backend and a float64 numpy sum, same numpy state."""

import numpy as np
import pytest

import nbody
from helpers import available_backends, direct_accelerations, random_bodies

# Position differences after the steps, over the RMS radius: the bounds `nbody bench --compare` holds
# a backend to (float sums agree to ~1e-6; a wrong kernel is off by far more).
BOUND = {"float": 1e-4, "double": 1e-10}


def make(backend, precision, pos, vel, mass, **kw):
    sim = nbody.Simulation(preset="plummer", n=len(mass), backend=backend, precision=precision,
                           softening=0.05, dt=0.005, **kw)
    sim.set_bodies(pos, vel, mass, t=0.0)
    return sim


@pytest.mark.parametrize("precision", ["float", "double"])
@pytest.mark.parametrize("backend", available_backends())
def test_steps_match_serial_double(backend, precision):
    pos, vel, mass = random_bodies(300)
    ref = make("serial", "double", pos, vel, mass)
    sim = make(backend, precision, pos, vel, mass)
    ref.step(20)
    sim.step(20)
    assert sim.t == pytest.approx(ref.t, rel=1e-6)
    radius = np.sqrt((ref.positions ** 2).sum(axis=1).mean())
    diff = np.linalg.norm(sim.positions - ref.positions, axis=1).max() / radius
    assert diff < BOUND[precision]
    assert not np.array_equal(ref.positions, pos)  # the steps moved the bodies


@pytest.mark.parametrize("precision", ["float", "double"])
@pytest.mark.parametrize("backend", available_backends())
def test_accelerations_match_numpy_float64(backend, precision):
    pos, vel, mass = random_bodies(200, seed=3)
    sim = make(backend, precision, pos, vel, mass)
    expected = direct_accelerations(pos, mass, sim.G, sim.softening)
    got = sim.accelerations()
    assert got.shape == (200, 3) and got.dtype == np.float64
    scale = np.linalg.norm(expected, axis=1)
    err = np.linalg.norm(got - expected, axis=1) / scale
    assert err.max() < (1e-5 if precision == "float" else 1e-12)


@pytest.mark.parametrize("backend", available_backends())
def test_tree_force_is_close_to_direct(backend):
    pos, vel, mass = random_bodies(2000, seed=5)
    sim = make(backend, "double", pos, vel, mass, force="tree", theta=0.5)
    expected = direct_accelerations(pos, mass, sim.G, sim.softening)
    err = np.linalg.norm(sim.accelerations() - expected, axis=1) / np.linalg.norm(expected, axis=1)
    assert np.median(err) < 1e-3
    assert err.max() > 0  # an approximation: equal to the direct sum would mean the tree never ran


def test_backends_lists_this_build():
    rows = nbody.backends()
    names = [b["name"] for b in rows]
    assert names[:2] == ["serial", "openmp"]
    for b in rows:
        assert b["available"] or b["reason"], b  # an unavailable backend says why
    assert "cuda" in names  # listed even where unavailable, with its reason


def test_unavailable_backend_is_a_runtime_error():
    off = [b for b in nbody.backends() if not b["available"]]
    if not off:
        pytest.skip("every backend of this build is available here")
    with pytest.raises(RuntimeError) as error:
        nbody.Simulation(n=8, backend=off[0]["name"])
    assert "\n" not in str(error.value) and "available" in str(error.value)


def hermite_run_with_switch(to):
    """Positions and blocks of 2 + 2 hermite max steps on serial, with `sim.backend = to` between (None:
    no switch)."""
    sim = nbody.Simulation(preset="plummer", n=64, backend="serial", precision="double",
                           integrator="hermite", dt=0.05)
    sim.step(2)
    if to is not None:
        sim.backend = to
    sim.step(2)
    return sim.positions, sim.blocks


def test_setting_the_backend_it_already_is_keeps_a_hermite_run_unbroken():
    # A new backend of the same kind would start hermite's levels again from the bodies; the same name
    # moves nothing, so the run goes on as if it had not been set.
    (plain, blocks), (reset, blocks_reset) = hermite_run_with_switch(None), hermite_run_with_switch("serial")
    assert blocks == blocks_reset
    assert np.array_equal(plain, reset)


def test_switching_backend_keeps_a_hermite_run_unbroken():
    # The levels, accelerations and jerks move to the new backend with the bodies; serial and openmp give
    # the same bits, so the switched run is the unswitched one.
    (plain, _), (switched, _) = hermite_run_with_switch(None), hermite_run_with_switch("openmp")
    assert np.array_equal(plain, switched)
