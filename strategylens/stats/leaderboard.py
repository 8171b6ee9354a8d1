"""The leaderboard: pass count, geometric-mean speedup, PAR-GM, fast_p and pass@k per author."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from strategylens.stats.data import AnalysisData, size_rank

LEADERBOARD_COLUMNS = ["author", "size", "n", "passed", "pass_rate", "gm_speedup", "par_gm",
                       "fast_p", "p", "pass_at_k", "k", "pass_at_k_tasks", "n_tasks"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): 1 - C(n-c, k) / C(n, k).

    Examples
    --------
    >>> round(pass_at_k(10, 3, 1), 6), round(pass_at_k(10, 3, 5), 4), pass_at_k(4, 0, 2)
    (0.3, 0.9167, 0.0)
    >>> pass_at_k(3, 3, 2), pass_at_k(2, 1, 3)
    (1.0, nan)
    """
    if k > n:
        return float("nan")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def leaderboard(data: AnalysisData | pd.DataFrame, *, by: str = "author", p: float = 1.0,
                k: int = 1, best: Mapping[tuple[str, str], float] | None = None) -> pd.DataFrame:
    """Per author and size: pass count, geometric-mean speedup, PAR-GM, fast_p and pass@k.

    Every solution row is an attempt (N = ``n``); a row passes when it is correct, has a
    positive speedup and no cheating flag.

    - ``gm_speedup``: geometric mean speedup over passed rows only (it rewards failing on hard
      tasks; read it with ``pass_rate``).
    - ``par_gm``: geometric mean over all N of score / best(task, size). A passing row scores
      its speedup. A failure scores the CPU reference's speedup 1 (the fallback a user runs),
      but never more than the slowest passing speedup of that task and size, so a failure never
      ranks above a correct solution that is slower than the CPU. ``best`` is a fixed
      per-(task, size) best speedup; by default the best passing speedup in the data.
    - ``fast_p``: share of all N that passed with speedup > p.
    - ``pass_at_k``: unbiased pass@k (n samples, c correct per task), averaged over the tasks
      on which every author of the size group has at least k samples (``pass_at_k_tasks``), so
      all authors are compared on the same tasks.

    Parameters
    ----------
    data : AnalysisData or DataFrame
        With a DataFrame, a ``passed`` column (or ``correct``) marks passing rows.

    Examples
    --------
    >>> rows = pd.DataFrame({"task": ["a", "a", "b", "b"], "solution": list("wxyz"),
    ...     "size": "m", "author": ["u", "v", "u", "v"], "speedup": [4.0, 2.0, 9.0, None],
    ...     "passed": [True, True, True, False]})
    >>> lb = leaderboard(rows, p=3.0).set_index("author")
    >>> [round(float(v), 6) for v in lb.loc["u", ["passed", "gm_speedup", "par_gm", "fast_p"]]]
    [2.0, 6.0, 1.0, 1.0]
    >>> round(float(lb.loc["v", "par_gm"]), 4), float(lb.loc["v", "fast_p"])
    (0.2357, 0.0)
    """
    rows = data.all_rows if isinstance(data, AnalysisData) else data.copy()
    if "passed" not in rows.columns:
        rows["passed"] = rows.get("correct", True)
    if "size" not in rows.columns:
        rows["size"] = "all"
    if by not in rows.columns:
        rows[by] = "unknown"
    rows["speedup"] = pd.to_numeric(rows["speedup"], errors="coerce")
    rows["passed"] = rows["passed"].astype(bool) & (rows["speedup"] > 0)
    good = rows[rows["passed"]].groupby(["task", "size"])["speedup"]
    if best is None:
        best = good.max().to_dict()
    slowest = good.min().to_dict()
    out = []
    for size, block in rows.groupby("size", sort=True):
        attempts = block.groupby(["task", by]).size().unstack(by)
        common = attempts.index[(attempts.reindex(columns=block[by].unique()) >= k)
                                .all(axis=1)]
        for who, grp in block.groupby(by, sort=True):
            passed = grp[grp["passed"]]
            key = list(zip(grp["task"], grp["size"], strict=True))
            best_v = np.array([best.get(t, np.nan) for t in key], dtype=float)
            fail = np.array([min(1.0, slowest.get(t, 1.0)) for t in key], dtype=float)
            score = np.where(grp["passed"], grp["speedup"], fail) / best_v
            per_task = grp[grp["task"].isin(common)].groupby("task")["passed"].agg(["size", "sum"])
            pk = [pass_at_k(int(n), int(c), k) for n, c in per_task.itertuples(index=False)]
            out.append({
                "author": who, "size": size, "n": len(grp), "passed": int(len(passed)),
                "pass_rate": len(passed) / len(grp),
                "gm_speedup": float(np.exp(np.log(passed["speedup"]).mean())) if len(passed)
                else np.nan,
                "par_gm": float(np.exp(np.nanmean(np.log(score)))) if np.isfinite(score).any()
                else np.nan,
                "fast_p": float(((grp["passed"]) & (grp["speedup"] > p)).mean()), "p": p,
                "pass_at_k": float(np.mean(pk)) if pk else np.nan, "k": k,
                "pass_at_k_tasks": int(len(common)), "n_tasks": int(grp["task"].nunique()),
            })
    res = pd.DataFrame(out, columns=LEADERBOARD_COLUMNS)
    order = {s: i for i, s in enumerate(size_rank(rows))}
    res = res.assign(_size=res["size"].map(order))
    return (res.sort_values(["_size", "par_gm"], ascending=[True, False])
            .drop(columns="_size").reset_index(drop=True))
