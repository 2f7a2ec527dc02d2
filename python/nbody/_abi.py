"""Loads the compiled extension, or says in one line why this interpreter cannot."""

import importlib
import sys


def _built_for():
    """The interpreter named at build time, or a hint where the package was never built."""
    try:
        from . import _build_info
    except ImportError:
        return "the python3 the build found"
    return _build_info.PYTHON_EXECUTABLE


def load_extension():
    """Imports nbody._nbody; an ImportError that names the interpreter it was built for otherwise.

    The extension is built for one interpreter (Debian's /usr/bin/python3 unless the build said
    otherwise): another Python version finds no module with its own suffix, and another build of the
    same version may lack its numpy. Either way the message says which interpreter to use.
    """
    try:
        import numpy  # noqa: F401  (the arrays in and out; a same-version interpreter may lack it)
    except ImportError as error:
        raise ImportError(
            "nbody needs numpy, which %s lacks: use the interpreter nbody was built for (%s, with "
            "Debian's python3-numpy), or install numpy for this one" % (sys.executable, _built_for())
        ) from error
    try:
        return importlib.import_module("nbody._nbody")
    except ImportError as error:
        try:
            from . import _build_info as built
        except ImportError:  # the package's sources, not its build: nothing was compiled
            raise ImportError(
                "nbody's compiled extension is missing: build it (scripts/setup.sh) and import "
                "nbody from build/python or after `cmake --install build --component python`"
            ) from error
        this = "%d.%d" % sys.version_info[:2]
        if this == built.PYTHON_VERSION:  # the right version: the file itself is missing or broken
            raise ImportError(
                "nbody's compiled extension (%s) cannot be loaded by %s: %s; rebuild it "
                "(scripts/setup.sh)" % (built.EXTENSION_SUFFIX, sys.executable, error)
            ) from error
        raise ImportError(
            "nbody was built for %s (Python %s, %s); this is %s (Python %s): run it with %s, or "
            "rebuild with -DPython3_EXECUTABLE=%s (%s)"
            % (built.PYTHON_EXECUTABLE, built.PYTHON_VERSION, built.EXTENSION_SUFFIX,
               sys.executable, this, built.PYTHON_EXECUTABLE, sys.executable, error)
        ) from None
