"""Stepping: step counts and time, integrate to an exact end, blow-ups, Ctrl-C, the GIL, backend switches."""

import subprocess
import sys
import threading
import time
import _thread

import numpy as np
import pytest

import nbody


def test_step_advances_time_by_dt():
    sim = nbody.Simulation(n=64, backend="serial", precision="double", dt=0.01)
    sim.step()
    sim.step(9)
    assert sim.steps_done == 10
    assert sim.t == pytest.approx(0.1, abs=1e-15)
    sim.step(0)
    assert sim.steps_done == 10
    with pytest.raises(ValueError, match=r"k must be >= 0 \(got -1\)"):
        sim.step(-1)


def test_integrate_ends_exactly_on_t_end():
    sim = nbody.Simulation(n=64, backend="serial", precision="double", dt=0.03)
    sim.integrate(1.0)
    assert sim.t == 1.0
    assert sim.steps_done == 34  # ceil(1 / 0.03), the last one shortened
    with pytest.raises(ValueError, match=r"t_end 0.5 must be later than the start time t = 1"):
        sim.integrate(0.5)
    with pytest.raises(ValueError, match="t_end must be a finite number"):
        sim.integrate(float("inf"))


def test_one_call_equals_many(cli):
    a = nbody.Simulation(n=128, backend="openmp", seed=4)
    b = nbody.Simulation(n=128, backend="openmp", seed=4)
    a.step(40)
    for _ in range(40):
        b.step()
    assert np.array_equal(a.positions, b.positions)


def test_energy_and_diagnostics_match_numpy():
    sim = nbody.Simulation(preset="solar", n=8, backend="serial", precision="double")
    x, v, m = sim.positions, sim.velocities, sim.masses
    kinetic = 0.5 * (m * (v * v).sum(axis=1)).sum()
    potential = 0.0
    for i in range(len(m)):
        for j in range(i + 1, len(m)):
            r = np.sqrt(((x[i] - x[j]) ** 2).sum() + sim.softening ** 2)
            potential -= sim.G * m[i] * m[j] / r
    d = sim.diagnostics()
    assert d["kinetic"] == pytest.approx(kinetic, rel=1e-12)
    assert d["potential"] == pytest.approx(potential, rel=1e-12)
    assert sim.energy() == pytest.approx(kinetic + potential, rel=1e-12)
    assert np.allclose(d["momentum"], (m[:, None] * v).sum(axis=0), atol=1e-15)
    assert np.allclose(d["center_of_mass"], (m[:, None] * x).sum(axis=0) / m.sum(), atol=1e-15)


def test_yoshida4_conserves_energy_better_than_euler():
    drift = {}
    for integrator in ("euler", "leapfrog", "yoshida4"):
        sim = nbody.Simulation(preset="solar", n=6, backend="serial", precision="double",
                               integrator=integrator, dt=0.01)
        e0 = sim.energy()
        sim.integrate(5.0)
        drift[integrator] = abs(sim.energy() - e0) / abs(e0)
    assert drift["yoshida4"] < drift["leapfrog"] < drift["euler"]


def test_blow_up_is_a_runtime_error_naming_the_step():
    sim = nbody.Simulation(n=64, backend="serial", G=1e38)
    with pytest.raises(RuntimeError,
                       match=r"^numerical blow-up at step 1 \(t = 0.01\): body \d+ has a non-finite"):
        sim.step(5)


def test_a_stall_is_a_runtime_error_naming_the_body():
    # Two bodies 3e-7 apart at x = 1, where floats are 1.2e-7 apart: their steps cannot move them in float
    # (judged after 2^20 blocks of the first max step).
    m, d = 1e-6, 3e-7
    v = 0.5 * (2 * m / d) ** 0.5
    sim = nbody.Simulation(n=2, backend="serial", integrator="hermite", softening=0, dt=1e-3)
    sim.set_bodies([[1, 0, 0], [1 + d, 0, 0]], [[0, -v, 0], [0, v, 0]], [m, m])
    with pytest.raises(RuntimeError, match=r"^block steps stalled in max step 1 \(from t = 0\): body 0's "
                                           r"accuracy criterion .* --precision double or a --softening above 0"):
        sim.step(5)
    assert sim.steps_done == 0 and sim.t == 0
    # The stalled max step's blocks each evaluated a body: its evaluations are counted with its blocks.
    assert sim.blocks > 2**20 and sim.force_evaluations >= sim.blocks
    sim.precision = "double"
    sim.step(2)
    assert sim.steps_done == 2


@pytest.mark.parametrize("backend", ["serial", "openmp"])
def test_backend_switch_keeps_the_state(backend):
    sim = nbody.Simulation(n=200, backend=backend, seed=2)
    sim.step(7)
    pos, vel, t, steps = sim.positions, sim.velocities, sim.t, sim.steps_done
    for other in [b["name"] for b in nbody.backends() if b["available"]] + [backend]:
        sim.backend = other
        assert sim.backend == other
        assert np.array_equal(sim.positions, pos) and np.array_equal(sim.velocities, vel)
        assert (sim.t, sim.steps_done) == (t, steps)
    sim.step(3)
    assert sim.steps_done == steps + 3


def test_ctrl_c_stops_between_batches():
    sim = nbody.Simulation(n=2048, backend="serial", precision="double")
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        sim.step(1_000_000)
    assert time.monotonic() - start < 30
    timer.cancel()
    # Stopped at a step boundary, bodies intact, the simulation usable again.
    assert 0 < sim.steps_done < 1_000_000
    assert sim.t == pytest.approx(sim.steps_done * sim.dt, rel=1e-9)
    assert np.isfinite(sim.positions).all()
    sim.step(1)


def test_ctrl_c_stops_a_long_hermite_max_step():
    # One max step of hours (a max dt of 1e4, eta 1e-4): a real SIGINT (as Jupyter's interrupt sends) stops
    # it at its next block and puts it back as it began. In a child, so that a step that does not stop
    # fails by the timeout rather than holding the tests for hours.
    code = """
import os, signal, threading, numpy as np, nbody
sim = nbody.Simulation(n=256, backend="serial", precision="double", integrator="hermite", dt=1e4, eta=1e-4)
before = sim.positions
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    sim.step(1)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted", sim.steps_done, sim.t, np.array_equal(sim.positions, before))
sim.dt = 0.01
sim.step(1)
print("then", sim.steps_done)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["interrupted 0 0.0 True", "then 1"], out.stdout


def test_the_gil_is_released_while_stepping():
    sim = nbody.Simulation(n=1024, backend="serial")
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    before = len(ticks)
    sim.step(300)
    during = len(ticks) - before
    stop.set()
    t.join()
    assert during > 5


def test_one_call_at_a_time():
    sim = nbody.Simulation(n=2048, backend="serial")
    errors = []
    t = threading.Thread(target=lambda: sim.step(300))
    t.start()
    time.sleep(0.2)
    try:
        sim.positions
    except RuntimeError as e:
        errors.append(str(e))
    t.join()
    assert errors == ["the simulation is busy in another thread (one call at a time)"]


def test_hermite_reports_its_blocks_and_evaluations(cli):
    """Issue 21: steps_done counts max steps; blocks and force_evaluations say what an adaptive run did,
    the same counts `nbody run` prints for the same run."""
    sim = nbody.Simulation(n=64, backend="serial", precision="double", integrator="hermite", eta=0.01, dt=0.01)
    assert (sim.blocks, sim.force_evaluations) == (0, 0)
    sim.step(10)
    assert sim.steps_done == 10 and sim.t == pytest.approx(0.1, abs=1e-15)
    assert sim.blocks >= 10  # at least one block per max step
    assert sim.force_evaluations >= 64 + 10 * 64 // 2  # every body at the start, then the due ones
    code, out, err = cli("run", "--n", "64", "--backend", "serial", "--precision", "double", "--integrator",
                         "hermite", "--eta", "0.01", "--dt", "0.01", "--steps", "10", "--quiet")
    assert code == 0, err
    assert f"blocks          {sim.blocks}, {sim.force_evaluations} force+jerk evaluations" in out, out
    fixed = nbody.Simulation(n=64, backend="serial")
    fixed.step(3)
    assert (fixed.blocks, fixed.force_evaluations) == (0, 0)


def test_hermite_neighbours_save_full_evaluations_and_keep_the_energy():
    """The Ahmad-Cohen scheme (neighbours=K, as --neighbours K): force_evaluations counts the full sums
    only, fewer than without the scheme, and the energy still holds."""
    def run(**kw):
        sim = nbody.Simulation(n=512, backend="openmp", precision="double", integrator="hermite", dt=0.125,
                               softening=0.01, **kw)
        e0 = sim.energy()
        sim.step(4)
        return sim, abs(sim.energy() / e0 - 1.0)

    plain, plain_drift = run()
    listed, drift = run(neighbours=32)
    assert listed.neighbours == 32 and plain.neighbours == 0
    assert listed.t == plain.t == pytest.approx(0.5, abs=1e-15)
    assert 0 < listed.force_evaluations < plain.force_evaluations
    # The irregular steps, each against the list alone, counted apart; none without the scheme.
    assert listed.neighbour_evaluations > listed.force_evaluations and plain.neighbour_evaluations == 0
    assert drift < 1e-5, (drift, plain_drift)
    # The property takes the same values as the keyword.
    plain.neighbours = 32
    assert plain.neighbours == 32
    plain.step()


def test_hermite_eta_regular_sets_the_full_sums():
    """eta_regular (as --eta-regular): the regular steps' accuracy; 0, the default, is eta's value."""
    def run(**kw):
        sim = nbody.Simulation(n=512, backend="openmp", precision="double", integrator="hermite", dt=0.125,
                               softening=0.01, neighbours=32, **kw)
        sim.step(2)
        return sim

    default, same, finer = run(), run(eta_regular=0.02), run(eta_regular=0.01)
    assert default.eta_regular == 0 and same.eta_regular == 0.02 and default.eta == 0.02
    assert same.force_evaluations == default.force_evaluations
    assert np.array_equal(same.positions, default.positions)
    assert finer.force_evaluations > default.force_evaluations
    with pytest.raises(ValueError, match=r"eta-regular must be 0 \(eta's value\) or in \[1e-06, 1\]"):
        default.eta_regular = 1e-9
    assert default.eta_regular == 0


def test_hermite_neighbours_must_be_a_whole_number():
    with pytest.raises(ValueError, match="whole number"):
        nbody.Simulation(n=16, backend="serial", integrator="hermite", neighbours=2.5)
    sim = nbody.Simulation(n=16, backend="serial", integrator="hermite")
    with pytest.raises(ValueError, match="whole number"):
        sim.neighbours = 2.5
    assert sim.neighbours == 0


def test_hermite_csv_and_tipsy_say_what_they_cannot_hold(tmp_path):
    sim = nbody.Simulation(n=16, backend="serial", integrator="hermite")
    sim.step(2)
    with pytest.warns(UserWarning, match=r"a CSV is no restart point of the hermite run"):
        sim.save(str(tmp_path / "a.csv"))
    with pytest.warns(UserWarning, match=r"Tipsy holds the bodies and the time only"):
        sim.save(str(tmp_path / "a.tipsy"))
