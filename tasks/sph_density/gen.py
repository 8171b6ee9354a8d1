"""Inputs for sph_density: uniform particles at about 9.5 per unit volume, h = 1."""

import numpy as np


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = int(params["n"])
    box = float(np.float32((n / 9.5) ** (1.0 / 3.0)))
    pos = rng.uniform(0.0, box, (n, 3)).astype(np.float32)
    pos = np.minimum(pos, np.nextafter(np.float32(box), np.float32(0)))  # stay inside [0, box)
    return {"n": n, "pos": np.ascontiguousarray(pos).ravel(), "h": 1.0, "mass": 0.02,
            "box": box}
