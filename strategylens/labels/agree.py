"""Agreement between raters: Cohen's kappa per strategy with a bootstrap interval, precision and
recall of one rater against another, the places they disagree, and Fleiss' kappa for three or
more raters.

Units are (file, catalog ID) decisions over the files every rater labelled. An ID a rater left
undecided for a file (a gold file's ``unsure``) drops that file from that ID's comparison.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

from strategylens.labels.records import LabelSet, match_path

BOOTSTRAP = 2000


def common_files(raters: list[LabelSet]) -> list[tuple[str, list[str]]]:
    """Files every rater labelled (and reported ok), as (name in the first rater, the matching
    key in each rater)."""
    out = []
    for path, fl in raters[0].files.items():
        if not fl.ok:
            continue
        keys = [path]
        for other in raters[1:]:
            k = path if path in other.files else match_path(path, other.files)
            if k is None or not other.files[k].ok:
                break
            keys.append(k)
        else:
            out.append((path, keys))
    return out


def decisions(raters: list[LabelSet], ids: list[str] | None = None) -> pd.DataFrame:
    """One row per (file, ID) decided by every rater: ``path, id`` and one 0/1 column per
    rater (named by its rater string; duplicates get a suffix)."""
    files = common_files(raters)
    names = _names(raters)
    if ids is None:
        ids = sorted({sid for r in raters for fl in r.files.values() for sid in fl.labels})
    rows = []
    for path, keys in files:
        fls = [r.files[k] for r, k in zip(raters, keys, strict=True)]
        skip = set().union(*(fl.unsure for fl in fls))
        for sid in ids:
            if sid in skip:
                continue
            rows.append({"path": path, "id": sid,
                         **{n: int(sid in fl.labels) for n, fl in zip(names, fls, strict=True)}})
    return pd.DataFrame(rows, columns=["path", "id", *names])


def _names(raters: list[LabelSet]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for r in raters:
        n = r.rater
        if n in seen:
            seen[n] += 1
            n = f"{n}#{seen[r.rater]}"
        else:
            seen[n] = 1
        out.append(n)
    return out


def _kappa(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) == 0:
        return float("nan")
    if (a == b).all():
        return 1.0
    with np.errstate(all="ignore"):
        return float(cohen_kappa_score(a, b))


def kappa_interval(a: np.ndarray, b: np.ndarray, groups: np.ndarray, seed: int = 0,
                   draws: int = BOOTSTRAP) -> tuple[float, float]:
    """95% percentile interval of Cohen's kappa, resampling files (``groups``) with
    replacement, so decisions of one file move together."""
    uniq, inv = np.unique(groups, return_inverse=True)
    if len(uniq) < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    by_file = [np.flatnonzero(inv == g) for g in range(len(uniq))]
    vals = []
    for _ in range(draws):
        pick = rng.integers(0, len(uniq), len(uniq))
        idx = np.concatenate([by_file[g] for g in pick])
        k = _kappa(a[idx], b[idx])
        if k == k:
            vals.append(k)
    if not vals:
        return float("nan"), float("nan")
    lo, hi = np.percentile(vals, [2.5, 97.5])
    return float(lo), float(hi)


def pairwise(a: LabelSet, b: LabelSet, ids: list[str] | None = None, seed: int = 0) -> pd.DataFrame:
    """Per ID and over all IDs: files compared, counts (both, only A, only B), Cohen's kappa
    with a file-bootstrap 95% interval, and B's precision and recall taking A as the reference.

    Examples
    --------
    >>> from strategylens.labels.records import FileLabels, Label, LabelSet
    >>> A = LabelSet("a", {f: FileLabels(f, {"MEM-01": Label("MEM-01")}) for f in "xyz"})
    >>> B = LabelSet("b", {f: FileLabels(f, {"MEM-01": Label("MEM-01")} if f != "z" else {})
    ...                    for f in "xyz"})
    >>> row = pairwise(A, B).iloc[0]
    >>> (row["id"], row["both"], row["only_a"], row["recall"])
    ('MEM-01', 1, 1, 0.5)
    """
    d = decisions([a, b], ids)
    na, nb = d.columns[2], d.columns[3]
    rows = []
    for sid, g in [*d.groupby("id", sort=True), ("all", d)]:
        x, y = g[na].to_numpy(), g[nb].to_numpy()
        xb, yb = x.astype(bool), y.astype(bool)
        both, oa, ob = int((xb & yb).sum()), int((xb & ~yb).sum()), int((~xb & yb).sum())
        lo, hi = kappa_interval(x, y, g["path"].to_numpy(), seed)
        rows.append({"id": sid, "files": int(g["path"].nunique()), "both": both, "only_a": oa,
                     "only_b": ob, "kappa": _kappa(x, y), "kappa_lo": lo, "kappa_hi": hi,
                     "precision": both / (both + ob) if both + ob else float("nan"),
                     "recall": both / (both + oa) if both + oa else float("nan")})
    return pd.DataFrame(rows)


def disagreements(a: LabelSet, b: LabelSet, ids: list[str] | None = None) -> list[dict]:
    """Each (file, ID) one rater gives and the other does not, with the giving rater's lines."""
    d = decisions([a, b], ids)
    na, nb = d.columns[2], d.columns[3]
    out = []
    for _, r in d[d[na] != d[nb]].iterrows():
        giver = a if r[na] else b
        fl = giver.lookup(r["path"])
        lab = fl.labels.get(r["id"]) if fl else None
        out.append({"path": r["path"], "id": r["id"], "only": giver.rater,
                    "lines": list(lab.lines) if lab else []})
    return out


def fleiss(raters: list[LabelSet], ids: list[str] | None = None) -> pd.DataFrame:
    """Fleiss' kappa per ID and over all IDs for three or more raters (statsmodels)."""
    d = decisions(raters, ids)
    names = list(d.columns[2:])
    rows = []
    for sid, g in [*d.groupby("id", sort=True), ("all", d)]:
        yes = g[names].sum(axis=1).to_numpy()
        table = np.column_stack([len(names) - yes, yes])
        if len(table) == 0:
            k = float("nan")
        elif (table.max(axis=1) == len(names)).all() and len(np.unique(yes)) == 1:
            k = 1.0  # every unit decided the same way by everyone: no disagreement to measure
        else:
            with np.errstate(all="ignore"):
                k = float(fleiss_kappa(table, method="fleiss"))
        rows.append({"id": sid, "files": int(g["path"].nunique()), "raters": len(names),
                     "units": len(g), "fleiss_kappa": k})
    return pd.DataFrame(rows)
