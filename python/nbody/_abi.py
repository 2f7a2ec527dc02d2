"""Loads the compiled extension, or says in one line why this interpreter cannot."""

import importlib
import sys


def _build_info():
    """What CMake wrote about the interpreter it built for; None in a source tree never built."""
    try:
        from . import _build_info as built
    except ImportError:
        return None
    return built


def load_extension():
    """Imports nbody._nbody; an ImportError that names the interpreter it was built for otherwise.

    The extension is built for one interpreter (Debian's /usr/bin/python3 unless the build said
    otherwise). Another Python version finds no module with its own suffix; another interpreter of
    the same version (pyenv's, conda's) shares the user site-packages but may lack numpy. Each case
    gets one message saying which interpreter to use.
    """
    built = _build_info()
    if built is None:
        raise ImportError(
            "nbody's compiled extension is missing: build it (scripts/setup.sh) and import nbody "
            "from build/python or after `cmake --install build --component python`")
    this = "%d.%d" % sys.version_info[:2]
    if this != built.PYTHON_VERSION:
        raise ImportError(
            "nbody was built for %s (Python %s); this is %s (Python %s): run it with %s, or rebuild "
            "with -DPython3_EXECUTABLE=%s"
            % (built.PYTHON_EXECUTABLE, built.PYTHON_VERSION, sys.executable, this,
               built.PYTHON_EXECUTABLE, sys.executable))
    try:
        import numpy  # noqa: F401  (the arrays in and out)
    except ImportError:
        raise ImportError(
            "nbody needs numpy, which %s lacks: use %s (nbody was built for it, with Debian's "
            "python3-numpy), or install numpy for this interpreter"
            % (sys.executable, built.PYTHON_EXECUTABLE)) from None
    try:
        return importlib.import_module("nbody._nbody")
    except ImportError as error:
        raise ImportError(
            "nbody's compiled extension (%s) cannot be loaded by %s: %s; rebuild it "
            "(scripts/setup.sh)" % (built.EXTENSION_SUFFIX, sys.executable, error)) from None
