"""Inputs for knapsack: correlated weights and values."""

import numpy as np


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n, cap = int(params["n_items"]), int(params["capacity"])
    lo, hi = max(1, cap // 400), max(2, cap // 40)
    w = rng.integers(lo, hi + 1, n)
    v = np.rint(w * rng.uniform(0.8, 1.2, n) + rng.integers(0, 20, n)).astype(np.int64)
    # Scale values so that the sum of all values stays far below 2^31.
    scale = max(1, int(v.sum() // 1_000_000_000) + 1)
    return {"n_items": n, "weights": w.astype(np.int32), "values": (v // scale).astype(np.int32),
            "capacity": cap}
