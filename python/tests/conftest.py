"""Fixtures: the `nbody` executable of the same build, to compare the module with."""

import os
import subprocess

import pytest


@pytest.fixture
def cli():
    """Runs the `nbody` executable of the same build; returns (exit status, stdout, stderr)."""
    exe = os.environ.get("NBODY_EXE")
    if not exe:
        pytest.skip("NBODY_EXE is not set (run the tests through ctest)")

    def run(*args):
        p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=300)
        return p.returncode, p.stdout, p.stderr

    return run
