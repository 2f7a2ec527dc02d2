"""What the tests share: small deterministic states, the float64 reference, the CLI's error line."""

import numpy as np

import nbody


def cli_error(stderr):
    """The message of the CLI's one error line, without its "nbody: error: " prefix."""
    lines = [l for l in stderr.splitlines() if l.startswith("nbody: error: ")]
    assert len(lines) == 1, stderr
    return lines[0][len("nbody: error: "):]


def available_backends():
    """Names of the backends this machine can run."""
    return [b["name"] for b in nbody.backends() if b["available"]]


def random_bodies(n, seed=7):
    """n bodies in a unit ball with small velocities and masses 1/n, from numpy's generator."""
    rng = np.random.default_rng(seed)
    pos = rng.uniform(-1.0, 1.0, size=(n, 3))
    vel = rng.normal(0.0, 0.1, size=(n, 3))
    mass = np.full(n, 1.0 / n)
    return pos, vel, mass


def direct_accelerations(pos, mass, G, softening):
    """The float64 direct sum in numpy: a_i = G sum_j m_j (x_j - x_i) / (r^2 + eps^2)^(3/2), j != i."""
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d * d).sum(axis=2) + softening * softening
    np.fill_diagonal(r2, np.inf)
    return G * (d * (mass[None, :] / r2 ** 1.5)[:, :, None]).sum(axis=1)
