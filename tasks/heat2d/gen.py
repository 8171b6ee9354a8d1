"""Inputs for heat2d: a noisy background with a few hot rectangles."""

import numpy as np


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    rows, cols = int(params["rows"]), int(params["cols"])
    grid = rng.uniform(0.0, 0.1, (rows, cols))
    for _ in range(8):
        r0, c0 = rng.integers(0, rows), rng.integers(0, cols)
        h, w = rng.integers(1, max(2, rows // 8)), rng.integers(1, max(2, cols // 8))
        grid[r0:r0 + h, c0:c0 + w] = rng.uniform(0.5, 1.0)
    return {
        "grid_in": np.ascontiguousarray(grid, dtype=np.float32).ravel(),
        "rows": rows,
        "cols": cols,
        "steps": int(params["steps"]),
        "alpha": 0.2,
    }
