"""Inputs for spmv_power: a random CSR matrix with 4-28 sorted distinct columns per row."""

import numpy as np


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = int(params["n"])
    deg = rng.integers(4, 29, n)
    rows = np.repeat(np.arange(n, dtype=np.int64), deg)
    cols = rng.integers(0, n, rows.size)
    # Half the entries near the diagonal (banded structure), half anywhere.
    near = rng.random(rows.size) < 0.5
    cols[near] = np.clip(rows[near] + rng.integers(-64, 65, int(near.sum())), 0, n - 1)
    key = np.sort(rows * n + cols)
    key = key[np.concatenate(([True], key[1:] != key[:-1]))]  # drop repeated columns in a row
    rows, cols = key // n, key % n
    row_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=row_ptr[1:])
    nnz = int(row_ptr[-1])
    return {
        "n": n,
        "row_ptr": row_ptr.astype(np.int32),
        "col_idx": cols.astype(np.int32),
        "vals": rng.random(nnz, dtype=np.float32),
        "x0": rng.uniform(0.5, 1.5, n).astype(np.float32),
        "iters": int(params["iters"]),
        "nnz": nnz,
    }
