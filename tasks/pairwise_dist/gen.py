"""Inputs for pairwise_dist: points clustered around 16 random centres."""

import numpy as np


def _points(rng: np.random.Generator, count: int, centres: np.ndarray) -> np.ndarray:
    pick = rng.integers(0, len(centres), count)
    pts = centres[pick] + rng.normal(0.0, 0.05, (count, centres.shape[1]))
    return np.ascontiguousarray(pts, dtype=np.float32).ravel()


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n, m, d = int(params["n"]), int(params["m"]), int(params["d"])
    centres = rng.random((16, d))
    return {"X": _points(rng, n, centres), "n": n, "Y": _points(rng, m, centres), "m": m, "d": d}
