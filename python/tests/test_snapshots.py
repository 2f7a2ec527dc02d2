"""save/load: an exact restart, as `nbody run --restart` continues a snapshot."""

import numpy as np
import pytest

import nbody


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(precision="float"),
        dict(precision="double", integrator="yoshida4"),
        dict(precision="double", integrator="hermite", softening=0.01),
        dict(precision="float", force="tree", theta=0.7),
    ],
)
def test_restart_is_bit_for_bit(tmp_path, kwargs):
    path = str(tmp_path / "x.h5")
    a = nbody.Simulation(n=256, backend="openmp", seed=3, **kwargs)
    a.step(10)
    a.save(path)
    a.step(15)
    b = nbody.Simulation.load(path, backend="openmp")
    assert (b.steps_done, b.precision, b.integrator, b.force) == (10, a.precision, a.integrator, a.force)
    assert (b.dt, b.softening, b.theta, b.eta) == (a.dt, a.softening, a.theta, a.eta)
    b.step(15)
    assert b.t == a.t and b.steps_done == a.steps_done
    assert np.array_equal(a.positions, b.positions)
    assert np.array_equal(a.velocities, b.velocities)


@pytest.mark.parametrize("neighbours", [0, 8])
def test_saving_a_hermite_run_changes_nothing_and_load_goes_on_as_it(tmp_path, neighbours):
    # The file keeps hermite's levels, accelerations and jerks (and the neighbour lists): the run that saved
    # goes on as one that did not, and so does the loaded one.
    path = str(tmp_path / "h.h5")

    def make():
        return nbody.Simulation(preset="plummer", n=128, backend="serial", seed=4, precision="double",
                                integrator="hermite", dt=0.125, neighbours=neighbours)

    saved, unsaved = make(), make()
    saved.step(4)
    unsaved.step(4)
    saved.save(path)
    saved.step(4)
    unsaved.step(4)
    assert np.array_equal(saved.positions, unsaved.positions)
    loaded = nbody.Simulation.load(path, backend="serial")
    loaded.step(4)
    assert np.array_equal(loaded.positions, unsaved.positions)
    assert np.array_equal(loaded.velocities, unsaved.velocities)


def test_a_continued_run_is_the_cli_continuation(tmp_path, cli):
    path = tmp_path / "s.h5"
    out = tmp_path / "cli.h5"
    sim = nbody.Simulation(n=100, backend="serial", precision="double")
    sim.step(5)
    sim.save(str(path))
    status, _, stderr = cli("run", "--restart", str(path), "--steps", "7", "--backend", "serial",
                             "--output", str(out))
    assert status == 0, stderr
    sim.step(7)
    cli_end = nbody.Simulation.load(str(out), backend="serial")
    assert np.array_equal(sim.positions, cli_end.positions)
    assert cli_end.steps_done == 12


def test_load_refuses_what_it_cannot_continue(tmp_path):
    csv = tmp_path / "b.csv"
    nbody.Simulation(n=10, backend="serial").save(str(csv))
    with pytest.raises(ValueError, match="needs an HDF5 snapshot"):
        nbody.Simulation.load(str(csv), backend="serial")
    with pytest.raises(ValueError, match="missing.h5"):
        nbody.Simulation.load(str(tmp_path / "missing.h5"), backend="serial")
    # A CSV is an input: its bodies and parameter lines start a new run.
    again = nbody.Simulation(input=str(csv), backend="serial")
    assert again.n == 10


def test_save_refuses_an_unknown_extension(tmp_path):
    sim = nbody.Simulation(n=10, backend="serial")
    with pytest.raises(ValueError, match="unknown file type"):
        sim.save(str(tmp_path / "x.txt"))
    assert not (tmp_path / "x.txt").exists()


@pytest.mark.parametrize("name", ["y.csv", "y.h5"])
def test_an_input_file_keeps_its_integrator_and_force(tmp_path, name):
    # integrator= and force= left at None take the file's, as `nbody run --input` does (they once
    # defaulted to leapfrog and direct, silently replacing the file's).
    sim = nbody.Simulation(n=64, backend="serial", integrator="yoshida4", force="tree", theta=0.3)
    sim.save(tmp_path / name)  # a pathlib.Path as well as a str
    again = nbody.Simulation(input=tmp_path / name, backend="serial")
    assert (again.integrator, again.force, again.theta) == ("yoshida4", "tree", pytest.approx(0.3))
    assert nbody.Simulation(input=str(tmp_path / name), backend="serial", force="direct").force == "direct"
    if name.endswith(".h5"):
        assert nbody.Simulation.load(tmp_path / name, backend="serial").integrator == "yoshida4"
