"""Inputs for pagerank: random in-edges with power-law-biased sources (some vertices dangling)."""

import numpy as np


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = int(params["n"])
    deg = rng.poisson(int(params["avg_degree"]), n).astype(np.int64)
    in_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=in_ptr[1:])
    m = int(in_ptr[-1])
    # Source u drawn with density ~ u^-0.5 over [0, n): low ids are popular, high ids rarely cited.
    src = np.minimum((rng.random(m) ** 2 * n).astype(np.int64), n - 1)
    perm = rng.permutation(n)  # scatter popular vertices over the id range
    src = perm[src]
    out_deg = np.bincount(src, minlength=n)
    return {
        "n": n,
        "in_ptr": in_ptr.astype(np.int32),
        "in_idx": src.astype(np.int32),
        "out_deg": out_deg.astype(np.int32),
        "damping": 0.85,
        "tol": float(params["tol"]),
        "max_iters": int(params["max_iters"]),
        "m_edges": m,
    }
