"""The energy's potential at large N: the policy of `nbody run` (sim/potential_estimate.hpp), and which
method found it. Exact up to 131072 bodies and on a GPU backend; above that on a CPU backend the tree's
(force "tree") or the exact rows of a sample of bodies."""

import pytest

import nbody
from helpers import available_backends

EXACT_MAX = 131072  # kExactPotentialMaxN


def test_small_states_stay_exact():
    sim = nbody.Simulation(n=512, backend="serial", precision="double")
    assert sim.potential_method == "exact"
    d = sim.diagnostics()
    assert d["potential_method"] == "exact"
    assert d["potential_error"] == 0
    assert sim.energy() == sim.energy(exact=True) == d["total"]
    assert "potential_method" not in sim.diagnostics(potential=False)


def test_large_states_on_the_cpu_are_estimated_and_say_how():
    sim = nbody.Simulation(n=EXACT_MAX + 1, backend="openmp", precision="float", seed=3)
    assert sim.potential_method == "sampled"
    sampled = sim.diagnostics()
    # 4096 rows of N terms, not the N^2 / 2 = 8.6e9 of the exact sum: a sample's estimate has an error
    # bar (how long it took is a benchmark's to say, not a test's: it failed under a loaded machine).
    assert sampled["potential_method"] == "sampled"
    assert 0 < sampled["potential_error"] < 0.01 * abs(sampled["potential"])

    sim.force = "tree"
    sim.theta = 0.5
    assert sim.potential_method == "tree"
    tree = sim.diagnostics()
    assert tree["potential_method"] == "tree"
    assert tree["potential_error"] == 0
    assert tree["kinetic"] == sampled["kinetic"]
    # Two estimates of one sum: a few of the sample's standard errors apart, plus the tree's own error.
    assert abs(tree["potential"] - sampled["potential"]) < 5 * sampled["potential_error"] + 1e-4 * abs(
        tree["potential"])
    assert sim.energy() == tree["total"]
    # A Plummer sphere in Henon units has E = -1/4 (softened and truncated: a little above).
    assert sim.energy() == pytest.approx(-0.25, rel=0.1)


def test_gpu_backends_sum_their_own_exactly():
    if "cuda" not in available_backends():
        pytest.skip("no usable cuda backend here")
    sim = nbody.Simulation(n=EXACT_MAX + 1, backend="cuda", precision="float", seed=3)
    assert sim.potential_method == "exact"
    d = sim.diagnostics()
    assert d["potential_method"] == "exact"
    assert d["potential_error"] == 0
