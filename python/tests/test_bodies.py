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


def test_assigning_a_column_keeps_the_radii():
    # The radius rides with the velocity: assigning positions once reset every radius to 0, and a
    # collision run then never merged again.
    sim = nbody.Simulation(preset="accretion", n=256, backend="serial")
    radii = sim.radii
    assert radii.shape == (256,) and radii.min() > 0
    for name in ["positions", "velocities", "masses"]:
        setattr(sim, name, getattr(sim, name))
        assert np.array_equal(sim.radii, radii), name
    sim.set_bodies(sim.positions, sim.velocities, sim.masses, radii=2 * radii)
    assert np.array_equal(sim.radii, 2 * radii)
    sim.radii = radii
    assert np.array_equal(sim.radii, radii)
    with pytest.raises(ValueError, match=r"^positions must have shape \(256, 3\), got \(255, 3\)$"):
        sim.positions = np.zeros((255, 3))
    with pytest.raises(ValueError, match=r"^radii must have shape \(256,\), got \(3,\)$"):
        sim.radii = [1, 2, 3]


def test_collisions_from_python():
    sim = nbody.Simulation(preset="plummer", n=64, backend="serial", collisions="merge", density=1e3)
    assert sim.collisions == "merge" and "collisions=merge" in repr(sim)
    assert sim.radii.min() > 0  # points get the density's radius
    sim.add([5, 5, 5], radius=0.5)
    assert sim.radii[-1] == 0.5
    sim.add([6, 6, 6])
    assert sim.radii[-1] > 0
    # Two bodies falling onto each other merge; the energy they take keeps energy() + it constant.
    pair = nbody.Simulation(n=2, backend="serial", precision="double", softening=0.01, collisions="merge",
                            dt=1e-4)
    pair.set_bodies([[-1, 0, 0], [1, 0, 0]], [[0.5, 0, 0], [-0.5, 0, 0]], [1, 1], radii=[0.1, 0.1])
    e0 = pair.energy()
    pair.integrate(1.5)
    assert (pair.n, pair.merges, pair.bounces) == (1, 1, 0)
    assert pair.collision_energy_lost == pytest.approx(e0, rel=1e-4)  # the merged body rests: energy() 0
    assert abs(pair.energy() + pair.collision_energy_lost - e0) < 1e-4 * abs(e0)
    with pytest.raises(ValueError, match="unknown collision mode 'stick'"):
        sim.collisions = "stick"


def test_time_must_be_finite_and_the_clock_able_to_add_dt():
    sim = nbody.Simulation(n=8, backend="serial", precision="double", dt=1e-8)
    for t in [float("nan"), float("inf")]:
        with pytest.raises(ValueError, match=r"^t must be a finite number"):
            sim.set_bodies(sim.positions, sim.velocities, sim.masses, t=t)
    sim.set_bodies(sim.positions, sim.velocities, sim.masses, t=1e9)
    # Once integrate() planned for ever here, and step() left t standing while the bodies moved.
    for call in [lambda: sim.step(5), lambda: sim.integrate(1e9 + 1)]:
        with pytest.raises(ValueError, match=r"^--dt 1e-08 is too small for the clock at t = 1e\+09"):
            call()
    assert sim.steps_done == 0
