"""Inputs for nbody: a Plummer sphere (scale radius 1, cut at radius 10), masses in [0.5, 1.5]."""

import numpy as np

R_MAX = 10.0  # Plummer radii beyond this are not drawn
SOFT2 = 0.0025  # softening length 0.05, squared


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = int(params["n"])
    # Plummer enclosed-mass fraction M(r) = r^3 / (1 + r^2)^(3/2); invert a uniform draw of it.
    m_max = R_MAX**3 / (1.0 + R_MAX**2) ** 1.5
    frac = rng.uniform(1e-9, m_max, n)
    radius = 1.0 / np.sqrt(frac ** (-2.0 / 3.0) - 1.0)
    direction = rng.normal(size=(n, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    pos = np.ascontiguousarray(direction * radius[:, None], dtype=np.float32).ravel()
    mass = rng.uniform(0.5, 1.5, n).astype(np.float32)
    return {"n": n, "pos": pos, "mass": mass, "soft2": SOFT2,
            "G": float(np.float32(1.0 / n))}
