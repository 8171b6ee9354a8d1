"""Comparing a solution's outputs with the reference's in the task's correctness mode, and the
checksum of the reference's small-size outputs that CI compares with ``small.sha256``."""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from strategylens.tasks.task import Task

CHECKSUM_DIGITS = 4  # significant digits of float outputs in the committed small-size checksum


@dataclass
class CompareResult:
    """Outcome of comparing a solution's outputs with the reference's.

    `mismatches` counts elements (positions) that fail; `nan_count` counts NaN in the answer;
    `detail` is a short human explanation of the first failures; `per_output` holds the same
    figures per output array.
    """

    ok: bool
    mode: str
    mismatches: int = 0
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0
    nan_count: int = 0
    detail: str = ""
    atol: float = 0.0
    rtol: float = 0.0
    per_output: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("ok", "mode", "mismatches", "max_abs_err",
                                              "max_rel_err", "nan_count", "detail", "atol",
                                              "rtol", "per_output")}


def compare(task: Task, got: dict, expected: dict, tight: bool = False,
            threads: int = 1) -> CompareResult:
    """Compare `got` with `expected` over the task's compared outputs in its correctness mode.

    Parameters
    ----------
    task : Task
    got, expected : dict
        Output name -> numpy array.
    tight : bool
        Use ``correctness.tight`` tolerances (precision audit) instead of atol/rtol.
    threads : int
        Threads that compare chunks of large outputs at once (the same result as one).

    Returns
    -------
    CompareResult
        ``ok`` is True only when every compared output passes.
    """
    c = task.correctness
    atol, rtol = c.atol, c.rtol
    if tight:
        atol = float(c.tight.get("atol", atol))
        rtol = float(c.tight.get("rtol", rtol))
    res = CompareResult(ok=True, mode=c.mode, atol=atol, rtol=rtol)
    details = []
    for name in task.compared_outputs:
        if name not in got or name not in expected:
            which = "answer" if name not in got else "reference"
            res.ok = False
            res.per_output[name] = {"ok": False, "detail": f"missing in {which}"}
            details.append(f"{name}: missing in {which}")
            continue
        a = np.asarray(got[name]).ravel()
        b = np.asarray(expected[name]).ravel()
        if a.shape != b.shape:
            res.ok = False
            msg = f"{name}: {a.size} elements, reference has {b.size}"
            res.per_output[name] = {"ok": False, "detail": msg, "mismatches": max(a.size, b.size)}
            res.mismatches += max(a.size, b.size)
            details.append(msg)
            continue
        if c.mode == "label-permutation":
            out = _compare_labels(a, b, c.noise_label)
        elif c.mode == "set":
            out = _compare_elements(np.sort(a), np.sort(b), atol, rtol,
                                    exact=(atol == 0 and rtol == 0), threads=threads)
            if out["mismatches"]:
                out["detail"] = "multisets differ: " + out["detail"].replace("[", "sorted[")
        else:
            out = _compare_elements(a, b, atol, rtol, exact=(c.mode == "exact"), threads=threads)
        res.per_output[name] = out
        res.ok &= out["ok"]
        res.mismatches += out["mismatches"]
        res.nan_count += out["nan_count"]
        res.max_abs_err = max(res.max_abs_err, out["max_abs_err"])
        res.max_rel_err = max(res.max_rel_err, out["max_rel_err"])
        if out["detail"]:
            details.append(f"{name}: {out['detail']}")
    res.detail = "; ".join(details)
    return res


# Elements compared at a time: the float64 temporaries stay in cache, so a 100M-element output
# compares several times faster than in one pass (the harness validates every timed call).
_CHUNK = 1 << 20


def _compare_elements(a: np.ndarray, b: np.ndarray, atol: float, rtol: float,
                      exact: bool, threads: int = 1) -> dict:
    """Elementwise comparison; when elements differ, ``first`` holds the first five positions
    and ``tol_ratio`` the largest error over its tolerance (atol + rtol * |reference|; None in
    exact mode or without a tolerance)."""
    is_float = a.dtype.kind == "f" or b.dtype.kind == "f"
    nan_count = mismatches = 0
    max_abs = max_rel = 0.0
    ratio: float | None = None
    first: list[int] = []
    starts = range(0, a.size, _CHUNK)

    def one(lo: int):
        bad, c_abs, c_rel, c_nan, c_ratio = _compare_chunk(a[lo:lo + _CHUNK], b[lo:lo + _CHUNK],
                                                           atol, rtol, exact, is_float)
        idx = np.flatnonzero(bad)
        return (lo + idx[:5]).tolist(), idx.size, c_abs, c_rel, c_nan, c_ratio

    if threads > 1 and len(starts) > 1:  # numpy releases the GIL inside each chunk's work
        with ThreadPoolExecutor(threads) as pool:
            parts = list(pool.map(one, starts))
    else:
        parts = map(one, starts)
    for chunk_first, count, c_abs, c_rel, c_nan, c_ratio in parts:  # in chunk order
        nan_count += c_nan
        max_abs, max_rel = max(max_abs, c_abs), max(max_rel, c_rel)
        mismatches += count
        first += chunk_first[:5 - len(first)]
        if c_ratio is not None:
            ratio = c_ratio if ratio is None else max(ratio, c_ratio)
    out = {"ok": not mismatches, "mismatches": int(mismatches), "nan_count": nan_count,
           "max_abs_err": max_abs, "max_rel_err": max_rel, "detail": ""}
    if mismatches:
        shown = ", ".join(f"[{i}] got {a[i]!r} want {b[i]!r}" for i in first[:3])
        out.update(detail=f"{mismatches} of {a.size} differ: {shown}", first=first,
                   size=int(a.size), tol_ratio=ratio)
    return out


def _tol_ratio(diff: np.ndarray, absb: np.ndarray, atol: float, rtol: float,
               where: np.ndarray | None) -> float | None:
    """Largest error over its tolerance; None without a tolerance or a compared element."""
    if atol <= 0 and rtol <= 0:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        r = diff / (atol + rtol * absb)
    if where is not None:
        return float(r.max(where=where, initial=0.0)) if where.any() else None
    return float(r.max()) if r.size else None


def _compare_chunk(a: np.ndarray, b: np.ndarray, atol: float, rtol: float, exact: bool,
                   is_float: bool) -> tuple[np.ndarray, float, float, int, float | None]:
    """Mismatch mask, max abs and rel error, NaN count and (when elements differ and there is a
    tolerance) the largest error over its tolerance, of one chunk."""
    nan_count = int(np.isnan(a).sum()) if a.dtype.kind == "f" else 0
    max_abs = max_rel = 0.0
    ratio = None
    if not is_float:
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        diff = np.abs(a64 - b64)
        bad = a.astype(np.int64) != b.astype(np.int64) if exact else \
            diff > atol + rtol * np.abs(b64)
        if a.size:
            max_abs = float(diff.max())
            nz = b != 0
            max_rel = float((diff[nz] / np.abs(b64[nz])).max()) if nz.any() else 0.0
            if not exact and bad.any():
                ratio = _tol_ratio(diff, np.abs(b64), atol, rtol, None)
        return bad, max_abs, max_rel, nan_count, ratio
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        diff = np.abs(a64 - b64)  # NaN where either is NaN or both are the same infinity
        absb = np.abs(b64)
        ok = (a64 == b64) if exact else (diff <= atol + rtol * absb)
        if ok.all() and np.isfinite(diff).all():  # the common case: all finite and close
            finite = None
        else:  # non-finite values pass only where both sides hold the same special value
            finite = np.isfinite(a64) & np.isfinite(b64)
            ok &= finite
            ok |= (np.isnan(a64) & np.isnan(b64)) | (np.isinf(b64) & (a64 == b64))
            diff[~finite] = 0.0
        if finite is None or finite.any():
            max_abs = float(diff.max())
            rel = diff / absb  # inf or NaN where the reference is 0
            nz = absb != 0 if finite is None else finite & (absb != 0)
            max_rel = float(rel.max(where=nz, initial=0.0))
        if finite is not None and not exact and not ok.all():
            ratio = _tol_ratio(diff, absb, atol, rtol, finite)
    return ~ok, max_abs, max_rel, nan_count, ratio


def _compare_labels(a: np.ndarray, b: np.ndarray, noise: int | None) -> dict:
    """Equal up to a bijection of labels; `noise` (if any) must map to itself.

    The mapping keeps the most frequent (expected, got) pairs first; every position whose pair
    is not in the mapping is a mismatch.
    """
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    pairs, inverse, counts = np.unique(np.stack([b, a], axis=1), axis=0, return_inverse=True,
                                       return_counts=True)
    order = np.argsort(-counts, kind="stable")
    used_b, used_a, kept = set(), set(), np.zeros(len(pairs), dtype=bool)
    for k in order:
        eb, ga = int(pairs[k, 0]), int(pairs[k, 1])
        if noise is not None and ((eb == noise) != (ga == noise)):
            continue
        if eb in used_b or ga in used_a:
            continue
        used_b.add(eb)
        used_a.add(ga)
        kept[k] = True
    bad = ~kept[inverse.ravel()]
    idx = np.flatnonzero(bad)
    detail = ""
    if idx.size:
        shown = ", ".join(f"[{i}] got {a[i]} want {b[i]}" for i in idx[:3])
        detail = f"{idx.size} of {a.size} break the label bijection: {shown}"
    return {"ok": not idx.size, "mismatches": int(idx.size), "nan_count": 0,
            "max_abs_err": 0.0, "max_rel_err": 0.0, "detail": detail}


def output_checksum(task: Task, outputs: dict, digits: int = CHECKSUM_DIGITS) -> str:
    """SHA-256 over canonical bytes of the outputs.

    Integers: little-endian int64 bytes. Floats: each finite value as the pair (decimal
    exponent, mantissa rounded to `digits` significant digits) in int64, -0 as 0, NaN and
    +-inf as fixed codes, so that last-bit differences between compilers do not change the sum.
    """
    h = hashlib.sha256()
    for name in task.output_names:
        arr = np.asarray(outputs[name]).ravel()
        h.update(name.encode() + b"\0")
        if arr.dtype.kind == "f":
            h.update(_float_digits(arr.astype(np.float64), digits).tobytes())
        else:
            h.update(arr.astype("<i8").tobytes())
        h.update(b"\0")
    return h.hexdigest()


def committed_checksum(task: Task) -> str | None:
    """The checksum committed in ``tasks/<id>/small.sha256`` (first word), or None."""
    f = task.path / "small.sha256"
    if not f.exists():
        return None
    words = f.read_text().split()
    return words[0] if words else None


def _float_digits(x: np.ndarray, digits: int) -> np.ndarray:
    """(exponent, mantissa) int64 pairs with `digits` significant decimal digits."""
    finite = np.isfinite(x) & (x != 0)
    safe = np.where(finite, np.abs(x), 1.0)
    exp = np.floor(np.log10(safe)).astype(np.int64)
    mant = np.rint(np.where(finite, x, 0.0) / 10.0 ** exp.astype(np.float64) * 10 ** (digits - 1))
    mant = mant.astype(np.int64)
    carry = np.abs(mant) >= 10 ** digits  # 9.9995 rounds up to 10.000: renormalise
    mant = np.where(carry, mant // 10, mant)
    exp = np.where(carry, exp + 1, exp)
    code = np.zeros_like(exp)  # 0 zero, 1 finite, 2 nan, 3 +inf, 4 -inf
    code[finite] = 1
    code[np.isnan(x)] = 2
    code[np.isposinf(x)] = 3
    code[np.isneginf(x)] = 4
    exp = np.where(finite, exp, 0)
    return np.stack([code, exp, mant], axis=1).astype("<i8")
