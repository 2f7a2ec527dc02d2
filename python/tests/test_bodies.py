"""Bodies in and out: round trips bit for bit, shapes and values checked with the CLI's words."""

import numpy as np
import pytest

import nbody
from helpers import random_bodies


def test_double_round_trip_is_bit_for_bit():
    pos, vel, mass = random_bodies(100)
    sim = nbody.Simulation(n=4, backend="serial", precision="double")
    sim.set_bodies(pos, vel, mass)
    assert np.array_equal(sim.positions, pos)
    assert np.array_equal(sim.velocities, vel)
    assert np.array_equal(sim.masses, mass)
    assert sim.positions.dtype == np.float64 and sim.positions.shape == (100, 3)
    assert sim.masses.shape == (100,)


@pytest.mark.parametrize("backend", ["serial", "openmp"])
def test_float_holds_the_float_rounding_exactly(backend):
    pos, vel, mass = random_bodies(50)
    sim = nbody.Simulation(n=4, backend=backend, precision="float")
    sim.set_bodies(pos, vel, mass)
    assert np.array_equal(sim.positions, pos.astype(np.float32).astype(np.float64))
    # What came out goes back in unchanged.
    out = sim.positions
    sim.positions = out
    assert np.array_equal(sim.positions, out)


def test_copies_not_views():
    sim = nbody.Simulation(n=16, backend="serial")
    p = sim.positions
    p[:] = 0
    assert not np.array_equal(sim.positions, p)


def test_array_likes_and_add():
    sim = nbody.Simulation(n=4, backend="serial", precision="double", softening=0.0)
    sim.set_bodies([[0, 0, 0], [1, 0, 0]], [[0, 0, 0], [0, 1, 0]], [1, 2])
    assert sim.n == 2
    sim.add([0, 2, 0], [0.5, 0, 0], 3.0)
    assert sim.n == 3
    assert np.array_equal(sim.positions[2], [0, 2, 0])
    assert np.array_equal(sim.masses, [1, 2, 3])


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda p, v, m: (p[:, :2], v, m), r"positions must have shape \(N, 3\), got \(5, 2\)"),
        (lambda p, v, m: (p, v[:4], m), r"velocities must have shape \(5, 3\), got \(4, 3\)"),
        (lambda p, v, m: (p, v, m[:, None]), r"masses must have shape \(5,\), got \(5, 1\)"),
        (lambda p, v, m: (p[:0], v[:0], m[:0]), r"no bodies"),
    ],
)
def test_bad_shapes(change, message):
    sim = nbody.Simulation(n=4, backend="serial")
    before = sim.positions
    with pytest.raises(ValueError, match=message):
        sim.set_bodies(*change(*random_bodies(5)))
    assert np.array_equal(sim.positions, before)  # a refused state changes nothing


def test_bad_values_use_the_library_words():
    """validate_state's messages: the CLI's for the bodies of an .h5 or Tipsy input."""
    pos, vel, mass = random_bodies(5)
    sim = nbody.Simulation(n=4, backend="serial")
    bad = pos.copy()
    bad[2, 0] = np.nan
    with pytest.raises(ValueError, match=r"^body 2 \(0-based\): x is not finite \(nan\)$"):
        sim.set_bodies(bad, vel, mass)
    inf = vel.copy()
    inf[4, 2] = -np.inf
    with pytest.raises(ValueError, match=r"^body 4 \(0-based\): vz is not finite \(-inf\)$"):
        sim.set_bodies(pos, inf, mass)
    neg = mass.copy()
    neg[1] = -1.0
    with pytest.raises(ValueError, match=r"^body 1 \(0-based\): mass must be > 0 \(got -1\)$"):
        sim.set_bodies(pos, vel, neg)
    with pytest.raises(ValueError, match=r"^body 4 \(0-based\): mass must be > 0 \(got 0\)$"):
        sim.add([5, 5, 5], [0, 0, 0], 0.0)
    tiny = mass.copy()
    tiny[0] = 1e-300
    with pytest.raises(ValueError, match="rounds to 0 in float precision"):
        sim.set_bodies(pos, vel, tiny)


def test_same_point_without_softening():
    sim = nbody.Simulation(n=4, backend="serial", softening=0.0)
    with pytest.raises(ValueError, match="bodies 0 and 1"):
        sim.set_bodies([[0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 0]], [1, 1])


def test_strings_are_not_numbers():
    sim = nbody.Simulation(n=4, backend="serial")
    with pytest.raises((TypeError, ValueError)):
        sim.set_bodies([["a", "b", "c"]], [[0, 0, 0]], [1])
