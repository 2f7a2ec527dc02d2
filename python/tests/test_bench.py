"""nbody.bench: the rows of `nbody bench --format json`."""

import json

import pytest

import nbody

ARGS = dict(backend="serial", n=[64, 128], steps=1, warmup=0, repeats=1)
FLAGS = ["--backend", "serial", "--n", "64,128", "--steps", "1", "--warmup", "0", "--repeats", "1",
         "--format", "json", "--quiet"]
TIMINGS = {"ms_per_step", "ms_min", "ms_max", "interactions_per_second", "gflops"}


def test_rows_are_the_cli_json_rows(cli):
    rows = nbody.bench(**ARGS)
    status, out, _ = cli("bench", *FLAGS)
    assert status == 0
    expected = json.loads(out)
    assert len(rows) == len(expected) == 2
    for got, want in zip(rows, expected):
        assert got.keys() == want.keys()
        for key in want.keys() - TIMINGS:
            assert got[key] == want[key], key
        assert got["ms_per_step"] > 0


def test_compare_adds_the_difference_columns():
    (row,) = nbody.bench(backend="openmp", n=64, steps=2, warmup=0, repeats=1, compare=True)
    assert 0 <= row["max_diff"] <= row["diff_bound"] == 1e-4


def test_bad_options_use_the_cli_words():
    with pytest.raises(ValueError, match=r"unknown backend 'metal' \(valid: serial, openmp"):
        nbody.bench(backend="metal", n=64)
    with pytest.raises(ValueError, match=r"--steps must be >= 1 \(got 0\)"):
        nbody.bench(backend="serial", n=64, steps=0)
