"""How the module is installed and what another interpreter is told."""

import glob
import os
import shutil
import subprocess
import sys

import pytest

import nbody

PACKAGE = os.path.dirname(nbody.__file__)


def other_python_versions():
    """Interpreters of another Python version on this machine (pyenv's, python3.X on PATH)."""
    found = set()
    for name in ("python3.9", "python3.10", "python3.12", "python3.13"):
        path = shutil.which(name)
        if path:
            found.add(path)
    found.update(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[23]*/bin/python3")))
    mine = "%d.%d" % sys.version_info[:2]
    out = []
    for path in sorted(found):
        v = subprocess.run([path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                           capture_output=True, text=True)
        if v.returncode == 0 and v.stdout.strip() != mine:
            out.append(path)
    return out


@pytest.mark.parametrize("python", other_python_versions() or [None])
def test_another_python_version_gets_one_clear_line(python):
    if python is None:
        pytest.skip("no interpreter of another Python version here")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(PACKAGE))
    p = subprocess.run([python, "-c", "import nbody"], capture_output=True, text=True, env=env)
    assert p.returncode != 0
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: nbody was built for %s (Python %d.%d); this is %s"
                           % (sys.executable, *sys.version_info[:2], python)), p.stderr


def test_a_missing_extension_is_named(tmp_path):
    copy = tmp_path / "nbody"
    copy.mkdir()
    for f in glob.glob(os.path.join(PACKAGE, "*.py")):
        shutil.copy(f, copy)
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", "import nbody"], capture_output=True, text=True, env=env)
    assert p.returncode != 0
    assert p.stderr.strip().splitlines()[-1].startswith(
        "ImportError: nbody's compiled extension (cpython-"), p.stderr


def test_a_same_version_interpreter_without_numpy_is_told(tmp_path):
    fake = tmp_path / "numpy"  # a numpy that cannot be imported, first on the path
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('not this one')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.path.dirname(PACKAGE)]))
    p = subprocess.run([sys.executable, "-c", "import nbody"], capture_output=True, text=True, env=env)
    assert p.returncode != 0
    assert p.stderr.strip().splitlines()[-1].startswith("ImportError: nbody needs numpy, which "), p.stderr


def test_cmake_install_gives_an_importable_package(tmp_path):
    build, site = os.environ.get("NBODY_BUILD_DIR"), os.environ.get("NBODY_PYTHON_SITE")
    if not (build and site):
        pytest.skip("NBODY_BUILD_DIR / NBODY_PYTHON_SITE not set (run the tests through ctest)")
    env = dict(os.environ, DESTDIR=str(tmp_path))
    subprocess.run(["cmake", "--install", build, "--component", "python"], check=True, env=env,
                   capture_output=True)
    installed = str(tmp_path) + site
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = installed
    p = subprocess.run(
        [sys.executable, "-c", "import nbody; print(nbody.__file__); print(nbody.Simulation(n=8).n)"],
        capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    where, n = p.stdout.split()
    assert where.startswith(installed) and n == "8"
