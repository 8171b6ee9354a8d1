"""Output validation of one call: its verdict against its own input set's answer, poison left
in the outputs, stale answers (another set's), and the tight check of the precision audit.

The verdict keys land in the call's trial record; ``strategylens.harness.audit`` reads them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

POISON_BYTE = 0xA5  # every output byte before a call
VERDICT_KEYS = ("correct", "mismatches", "max_abs_err", "nan_count", "stale_of", "poison_left",
                "tight_ok")


def poisoned(arr: np.ndarray) -> np.ndarray:
    """Mask of the elements whose every byte is POISON_BYTE."""
    width = arr.dtype.itemsize
    if width in (1, 2, 4, 8):
        return arr.view(f"u{width}") == int.from_bytes(bytes([POISON_BYTE]) * width, "little")
    return (arr.view(np.uint8).reshape(arr.size, -1) == POISON_BYTE).all(axis=1)


def same_shape(a: dict, b: dict) -> bool:
    return all(k in b and np.asarray(b[k]).size == np.asarray(v).size for k, v in a.items())


def finite_or_none(x: Any) -> float | None:
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def poison_left(got: dict, expected: dict) -> int:
    """Output elements still holding the poison where the answer does not."""
    n = 0
    for k, arr in got.items():
        is_poison = poisoned(arr)
        if is_poison.any():  # unless the answer itself holds the poison pattern there
            exp = np.asarray(expected[k]).ravel().astype(arr.dtype, copy=False)
            n += int((~poisoned(exp[is_poison])).sum())
    return n


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit-identical arrays (a byte comparison: many times faster than numpy's
    ``array_equal(equal_nan=True)`` on floats)."""
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(
        a.view(np.uint8), b.view(np.uint8))


def validate(got: dict, s, sets: list, compare, previous, bitwise: bool = False) -> dict:
    """Verdict of one call's outputs ``got`` (name -> array) for input set ``s``.

    ``compare(got, expected, tight)`` is the task's comparison (None where it has no tight
    check). ``previous`` is ``(outputs, verdict)`` of the last validated call on this set: an
    identical output gets the same verdict without a second comparison (``bitwise``: identical
    bytes; else numpy's equality with NaN equal to NaN, the behaviour before issue 12). When the
    output is wrong, every other set's answer is tried (``stale_of``).
    """
    if previous is not None:
        prev_got, verdict = previous
        same = same_bytes if bitwise else (lambda a, b: np.array_equal(a, b, equal_nan=True))
        if all(same(got[k], prev_got[k]) for k in got):
            return dict(verdict)  # identical output: same verdict, no second comparison
    res = compare(got, s.expected, False)
    left = poison_left(got, s.expected)
    stale_of = None
    if not res.ok:
        for other in sets:
            if other is not s and same_shape(got, other.expected) and compare(got, other.expected, False).ok:
                stale_of = other.seed_offset
                break
    tight_ok = None
    if res.ok:
        tight = compare(got, s.expected, True)
        tight_ok = None if tight is None else bool(tight.ok)
    return {"correct": bool(res.ok), "mismatches": int(res.mismatches or 0),
            "max_abs_err": finite_or_none(res.max_abs_err), "nan_count": int(res.nan_count or 0),
            "stale_of": stale_of, "poison_left": left, "tight_ok": tight_ok,
            "compare_detail": str(res.detail or "")[:300]}


def validate_sample(outputs: dict, s, compare, rng: np.random.Generator, n: int) -> dict | None:
    """Verdict of a call from ``n`` random positions of every output (elementwise modes only):
    the positions are drawn after the call, so a solution cannot know them. Returns None when
    the sample is wrong or holds poison: the caller validates that call in full."""
    got, want = {}, {}
    for name, view in outputs.items():
        exp = np.asarray(s.expected[name]).ravel()
        idx = np.sort(rng.integers(0, view.size, min(n, view.size))) if view.size else \
            np.zeros(0, dtype=np.int64)
        got[name], want[name] = view[idx], exp[idx]
    res = compare(got, want, False)
    if not res.ok or poison_left(got, want):
        return None
    return {"correct": True, "mismatches": 0, "max_abs_err": finite_or_none(res.max_abs_err),
            "nan_count": int(res.nan_count or 0), "stale_of": None, "poison_left": 0,
            "tight_ok": None, "compare_detail": ""}
