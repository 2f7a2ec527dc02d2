"""render(): an image of the bodies through the offscreen EGL path, and the notebook's PNG."""

import numpy as np
import pytest

import nbody


def render_or_skip(sim, **kw):
    try:
        return sim.render(**kw)
    except RuntimeError as e:  # no EGL device on this machine
        pytest.skip(str(e))


def test_render_returns_an_image_with_bodies():
    sim = nbody.Simulation(preset="plummer", n=2048, backend="openmp")
    img = render_or_skip(sim, width=320, height=180)
    assert img.shape == (180, 320, 3) and img.dtype == np.uint8
    lit = (img.max(axis=2) > 40).mean()
    assert 0.005 < lit < 0.9


def test_brightness_changes_the_image():
    sim = nbody.Simulation(n=4, backend="serial")
    img = render_or_skip(sim, width=64, height=64)
    assert img.any()
    dark = render_or_skip(sim, width=64, height=64, brightness=1e-9)
    assert (dark.max(axis=2) > 40).mean() < (img.max(axis=2) > 40).mean()


def test_repr_png_is_a_png():
    sim = nbody.Simulation(n=256, backend="openmp")
    try:
        png = sim._repr_png_()
    except RuntimeError as e:
        pytest.skip(str(e))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_look_uses_the_cli_words():
    sim = nbody.Simulation(n=16, backend="serial")
    with pytest.raises(ValueError, match=r"unknown --color 'pink' \(valid: speed, mass, white\)"):
        sim.render(color="pink")
    with pytest.raises(ValueError, match=r"--width/--height must be 1..16384 \(got 0x10\)"):
        sim.render(width=0, height=10)
    with pytest.raises(ValueError, match=r"--zoom must be in \(0, 1e6\]"):
        sim.render(zoom=0)
    # NaN once drew a black image (yaw) or was taken as a size: each is refused with the flag's range.
    for kwargs, message in [({"yaw": float("nan")}, "--yaw must be"), ({"size": float("nan")}, "--size must be"),
                            ({"brightness": 0}, "--brightness must be"), ({"exposure": float("inf")}, "--exposure must be")]:
        with pytest.raises(ValueError, match=message):
            sim.render(**kwargs)
