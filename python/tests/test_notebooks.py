"""The examples/ notebooks run top to bottom (nbclient), so what they teach stays true."""

import json
import os
import sys

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

import nbody  # noqa: E402

EXAMPLES = os.path.join(os.environ.get("NBODY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                        "examples")


@pytest.fixture
def kernel_of_this_interpreter(tmp_path, monkeypatch):
    """A "python3" kernel that is this interpreter, whatever other kernels the machine has installed."""
    spec = tmp_path / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "python3 (the interpreter nbody was built for)",
        "language": "python",
    }))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend, whose figures are outputs
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")


def run_notebook(name, cwd):
    nb = nbformat.read(os.path.join(EXAMPLES, name), as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def outputs_of(nb, kind):
    return [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs
            if o.get("output_type") == kind or kind in o.get("data", {})]


def test_solar_system_notebook(kernel_of_this_interpreter, tmp_path):
    nb = run_notebook("solar_system_integrators.ipynb", tmp_path)
    assert outputs_of(nb, "image/png")  # the drift plot was drawn


def test_galaxy_collision_notebook(kernel_of_this_interpreter, tmp_path):
    try:
        nbody.Simulation(n=16, backend="serial").render(8, 8)
    except RuntimeError as e:
        pytest.skip(f"no offscreen rendering here: {e}")
    nb = run_notebook("galaxy_collision.ipynb", tmp_path)
    assert len(outputs_of(nb, "image/png")) >= 2  # the frames and the Simulation's own image
