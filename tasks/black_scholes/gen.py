"""Inputs for black_scholes: uniform spots, strikes and expiries (ranges of the CUDA sample)."""

import numpy as np


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = int(params["n"])
    return {
        "S": rng.uniform(5.0, 30.0, n).astype(np.float32),
        "X": rng.uniform(1.0, 100.0, n).astype(np.float32),
        "T": rng.uniform(0.25, 10.0, n).astype(np.float32),
        "n": n,
        "r": 0.02,
        "v": 0.30,
    }
