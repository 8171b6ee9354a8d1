"""Inputs for smith_waterman: ACGT pairs, half of them related by point mutations and indels."""

import numpy as np

_ACGT = np.frombuffer(b"ACGT", dtype=np.int8)


def _mutate(rng: np.random.Generator, seq: np.ndarray, length: int) -> np.ndarray:
    out = seq.copy()
    flips = rng.random(out.size) < 0.1
    out[flips] = _ACGT[rng.integers(0, 4, int(flips.sum()))]
    keep = rng.random(out.size) >= 0.03  # deletions
    out = out[keep]
    if out.size < length:  # insertions at the end to reach the wanted length
        out = np.concatenate([out, _ACGT[rng.integers(0, 4, length - out.size)]])
    return out[:length]


def generate(params: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    pairs, mean = int(params["num_pairs"]), int(params["mean_len"])
    a_parts, b_parts = [], []
    for p in range(pairs):
        la = int(rng.integers(mean // 2, mean + mean // 2 + 1))
        lb = int(rng.integers(mean // 2, mean + mean // 2 + 1))
        a = _ACGT[rng.integers(0, 4, la)]
        b = _mutate(rng, a, lb) if p % 2 == 0 else _ACGT[rng.integers(0, 4, lb)]
        a_parts.append(a)
        b_parts.append(b)
    a_len = np.array([x.size for x in a_parts], dtype=np.int32)
    b_len = np.array([x.size for x in b_parts], dtype=np.int32)
    a_off = np.concatenate([[0], np.cumsum(a_len)[:-1]]).astype(np.int32)
    b_off = np.concatenate([[0], np.cumsum(b_len)[:-1]]).astype(np.int32)
    a_seqs = np.concatenate(a_parts).astype(np.int8)
    b_seqs = np.concatenate(b_parts).astype(np.int8)
    return {
        "num_pairs": pairs, "a_seqs": a_seqs, "a_off": a_off, "a_len": a_len,
        "b_seqs": b_seqs, "b_off": b_off, "b_len": b_len,
        "match": 2, "mismatch": -1, "gap": 2,
        "a_total": int(a_seqs.size), "b_total": int(b_seqs.size),
    }
