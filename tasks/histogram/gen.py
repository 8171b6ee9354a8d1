"""Inputs for histogram: 40% uniform keys, 60% in narrow windows around four hot bins."""

import numpy as np

CHUNK = 1 << 24  # generate in chunks so the large size needs little memory beyond the keys


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n, bins = int(params["n"]), int(params["num_bins"])
    centres = rng.integers(0, bins, 4).astype(np.int32)
    width = max(1, bins // 256)
    keys = np.empty(n, dtype=np.int32)
    for lo in range(0, n, CHUNK):
        part = keys[lo:lo + CHUNK]
        part[:] = rng.integers(0, bins, part.size, dtype=np.int32)
        hot = np.flatnonzero(rng.integers(0, 10, part.size, dtype=np.int8) < 6)
        around = centres[rng.integers(0, 4, hot.size, dtype=np.int32)]
        around += rng.integers(-width, width + 1, hot.size, dtype=np.int32)
        part[hot] = np.clip(around, 0, bins - 1)
    return {"keys": keys, "n": n, "num_bins": bins}
