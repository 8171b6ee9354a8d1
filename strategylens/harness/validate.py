"""Output validation of one call: its verdict against its own input set's answer, poison left
in the outputs, stale answers (another set's), the tight check of the precision audit, and for a
wrong answer where it is wrong (``mismatch``).

The verdict keys land in the call's trial record; ``strategylens.harness.audit`` reads them.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

POISON_BYTE = 0xA5  # every output byte before a call
VERDICT_KEYS = ("correct", "mismatches", "max_abs_err", "nan_count", "stale_of", "poison_left",
                "tight_ok", "compare_detail", "mismatch")


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
            "compare_detail": str(res.detail or "")[:300],
            "mismatch": None if res.ok else mismatch_json(res, got)}


def mismatch_json(res, got: dict) -> str:
    """Where a wrong answer is wrong, per output (JSON): ``wrong`` of ``of`` elements, the
    ``first`` wrong positions, ``max_abs_err`` and ``tol_ratio`` (the largest error over its
    tolerance), ``nan`` and the comparison's ``detail``."""
    out = {}
    for name, o in (res.per_output or {}).items():
        if o.get("ok", True):
            continue
        size = o.get("size", np.asarray(got[name]).size if name in got else None)
        out[name] = {"wrong": int(o.get("mismatches", 0) or 0), "of": size,
                     "first": [int(i) for i in o.get("first", [])],
                     "max_abs_err": finite_or_none(o.get("max_abs_err")),
                     "tol_ratio": finite_or_none(o.get("tol_ratio")),
                     "nan": int(o.get("nan_count", 0) or 0),
                     "detail": str(o.get("detail", ""))[:200]}
    return json.dumps(out, sort_keys=True)


def mismatch_summary(trials: list[dict], cuda_errors: list[str] | None = None) -> str | None:
    """One line on a solution's wrong answers, from its calls (warm-up calls not counted): how
    many calls were wrong and, for the first wrong call that kept its details, each output's
    share of wrong elements, the first wrong positions and the largest error against the
    tolerance; then the CUDA errors seen (a failed launch leaves its outputs unwritten). None
    when every call was right. Trials recorded before ``mismatch`` existed give what they
    kept: the count, the largest error or NaN count and the comparison's detail."""
    called = [t for t in trials if t.get("phase") != "warmup" and t.get("correct") is not None]
    wrong = [t for t in called if not t.get("correct")]
    if not wrong:
        return None
    # the first wrong call that kept its details (an identical output reuses a verdict, which
    # before the mismatch summary existed dropped the comparison's detail)
    t = next((w for w in wrong if w.get("mismatch") or w.get("compare_detail")), wrong[0])
    parts = []
    per = json.loads(t["mismatch"]) if t.get("mismatch") else None
    if per:
        for name, o in sorted(per.items()):
            share = f" ({o['wrong'] / o['of']:.1%})" if o.get("of") else ""
            line = f"{name}: {o['wrong']} of {o.get('of', '?')} elements wrong{share}"
            if o.get("first"):
                line += f", first at {', '.join(map(str, o['first']))}"
            if o.get("max_abs_err") is not None:
                line += f"; max abs error {o['max_abs_err']:.3g}"
                if o.get("tol_ratio") is not None:
                    line += f" ({o['tol_ratio']:.3g}x its tolerance)"
            if o.get("nan"):
                line += f"; {o['nan']} NaN"
            if not o.get("first") and o.get("detail"):
                line += f"; {o['detail']}"
            parts.append(line)
    else:
        line = f"{int(t.get('mismatches') or 0)} element(s) wrong"
        if t.get("nan_count"):
            line += f"; {int(t['nan_count'])} NaN"
        elif t.get("max_abs_err") is not None:
            line += f"; max abs error {t['max_abs_err']:.3g}"
        if t.get("compare_detail"):
            line += f"; {t['compare_detail']}"
        parts.append(line)
    if t.get("poison_left"):
        parts.append(f"{int(t['poison_left'])} element(s) never written")
    if t.get("stale_of") is not None:
        parts.append(f"the answer of seed offset {int(t['stale_of'])}")
    k = t.get("set")
    head = (f"{len(wrong)} of {len(called)} calls wrong; {t.get('phase')} call on set "
            f"{int(k) if k is not None else '?'}: ")
    text = head + "; ".join(parts)
    if cuda_errors:
        text += "; CUDA: " + " | ".join(cuda_errors[:3])
    return text[:1500]


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
            "tight_ok": None, "compare_detail": "", "mismatch": None}
