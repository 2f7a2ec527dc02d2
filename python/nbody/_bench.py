"""nbody.bench: the benchmark of `nbody bench`, its rows as Python dicts."""

import json
import numbers

from . import _nbody


def _names(value, default):
    """A list of names from one name, a comma-separated string or a sequence (None: default)."""
    if value is None:
        return list(default)
    if isinstance(value, str):
        return value.split(",")
    return [str(v) for v in value]


def _numbers(value, default):
    """A list of ints from one int or a sequence (None: default)."""
    if value is None:
        return list(default)
    if isinstance(value, numbers.Integral):  # numpy's integers too
        return [int(value)]
    return [int(v) for v in value]


def bench(backend=None, n=(1024, 4096, 16384), precision="float", force="direct",
          integrator="leapfrog", threads=None, steps=5, warmup=2, repeats=3, seed=1,
          compare=False, error=False, theta=None):
    """Times the backends as `nbody bench --format json` does and returns its rows as dicts.

    Each argument takes what the flag of the same name takes, as a value or a list: backend
    (None: every available one), n, precision, force, integrator, threads (None: OMP_NUM_THREADS or
    every core); steps, warmup, repeats, seed, theta; compare (also the position difference from the
    serial double reference: max_diff, rms_diff, diff_bound) and error (the force error against the
    float64 direct sum). The keys are the JSON's: backend, precision, force, integrator, threads, n,
    ms_per_step (the median), ms_min, ms_max, interactions_per_second, gflops, cpu, cores, gpu, and
    more where they apply (docs/CLI.md). Rows beyond their --compare bound are returned, not raised.
    """
    text = _nbody._bench_json(
        _names(backend, []), _numbers(n, []), _names(precision, []), _names(force, []),
        _names(integrator, []), _numbers(threads, []), int(steps), int(warmup), int(repeats),
        int(seed), bool(compare), bool(error), theta)
    return json.loads(text)
