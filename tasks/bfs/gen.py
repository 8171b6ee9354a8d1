"""Inputs for bfs: a random directed graph; the last n/16 vertices only link among themselves."""

import numpy as np


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = int(params["n"])
    avg = int(params["avg_degree"])
    island = max(1, n // 16)  # vertices [n - island, n) are unreachable from the main part
    main = n - island
    deg = rng.poisson(avg, n).astype(np.int64)
    row_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=row_ptr[1:])
    m = int(row_ptr[-1])
    src = np.repeat(np.arange(n, dtype=np.int64), deg)
    in_island = src >= main
    col = np.empty(m, dtype=np.int64)
    col[~in_island] = rng.integers(0, main, int((~in_island).sum()))
    col[in_island] = rng.integers(main, n, int(in_island.sum()))
    # A few edges from the island into the main part: reachable only the other way round.
    back = np.flatnonzero(in_island)[: max(1, island // 100)]
    col[back] = rng.integers(0, main, back.size)
    return {
        "n": n,
        "row_ptr": row_ptr.astype(np.int32),
        "col_idx": col.astype(np.int32),
        "source": int(rng.integers(0, main)),
        "m_edges": m,
    }
