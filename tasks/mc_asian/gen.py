"""Inputs for mc_asian: option parameters; the path draws come from the task's counter RNG."""

import numpy as np


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    k = int(params["n_opts"])
    return {
        "n_opts": k,
        "S0": rng.uniform(80.0, 120.0, k).astype(np.float32),
        "K": rng.uniform(80.0, 120.0, k).astype(np.float32),
        "sigma": rng.uniform(0.1, 0.5, k).astype(np.float32),
        "r": 0.03,
        "T": 1.0,
        "n_paths": int(params["n_paths"]),
        "n_steps": int(params["n_steps"]),
        "seed": int(rng.integers(0, 2**24)),
    }
