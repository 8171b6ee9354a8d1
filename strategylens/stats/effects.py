"""The effects model: which strategies go with a higher speedup on the same task.

Effects (:func:`fit_effects`) are least-squares coefficients of log speedup on the strategy
indicators with task x size and author fixed effects (absorbed by Frisch-Waugh-Lovell),
cluster-robust standard errors by task with Student t on G - 1 degrees of freedom, a task-cluster
bootstrap as a check, and Benjamini-Hochberg q-values. Strategies that nearly always appear
together are bundles (:func:`find_bundles`). docs/statistics.md gives the reasons.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from strategylens.stats.data import (AnalysisData, DataError, as_table, id_key, kind_of,
                                     load_structural_map, strategy_columns)

EFFECT_COLUMNS = [
    "strategy", "kind", "effect_log", "se_log", "ci_low_log", "ci_high_log", "multiplier",
    "multiplier_low", "multiplier_high", "p_value", "q_value", "boot_low_log", "boot_high_log",
    "n_tasks", "n_with", "n_without", "bundle", "estimable", "note",
]

# --------------------------------------------------------------------------------------------
# Co-occurrence
# --------------------------------------------------------------------------------------------

def solutions(table: pd.DataFrame, strategies: Sequence[str]) -> pd.DataFrame:
    """One row per (task, solution): author and strategy indicators."""
    cols = ["task", "solution", "author", *strategies]
    return table[cols].drop_duplicates(["task", "solution"]).reset_index(drop=True)


def jaccard_matrix(table: pd.DataFrame, strategies: Sequence[str]) -> pd.DataFrame:
    """Jaccard index |A and B| / |A or B| between strategies over solutions.

    Examples
    --------
    >>> t = pd.DataFrame({"task": ["t"] * 4, "solution": list("abcd"), "author": "x",
    ...                   "MEM-02": [1, 1, 1, 0], "PAR-04": [1, 1, 0, 0]})
    >>> jaccard_matrix(t, ["MEM-02", "PAR-04"]).round(3).values.tolist()
    [[1.0, 0.667], [0.667, 1.0]]
    """
    x = solutions(table, strategies)[list(strategies)].to_numpy(dtype=float)
    both = x.T @ x
    count = x.sum(axis=0)
    union = count[:, None] + count[None, :] - both
    with np.errstate(invalid="ignore", divide="ignore"):
        jac = np.where(union > 0, both / union, 0.0)
    return pd.DataFrame(jac, index=list(strategies), columns=list(strategies))


def find_bundles(table: pd.DataFrame, strategies: Sequence[str], threshold: float = 0.9
                 ) -> list[list[str]]:
    """Groups of strategies linked by Jaccard >= `threshold` (connected components, size >= 2).

    Examples
    --------
    >>> t = pd.DataFrame({"task": ["t"] * 4, "solution": list("abcd"), "author": "x",
    ...                   "MEM-02": [1, 1, 1, 0], "PAR-04": [1, 1, 1, 0], "CMP-04": [0, 1, 0, 1]})
    >>> find_bundles(t, ["MEM-02", "PAR-04", "CMP-04"])
    [['MEM-02', 'PAR-04']]
    """
    from scipy.sparse.csgraph import connected_components

    strategies = list(strategies)
    if len(strategies) < 2:
        return []
    jac = jaccard_matrix(table, strategies).to_numpy()
    _, comp = connected_components(jac >= threshold, directed=False)
    groups = [sorted((s for s, c in zip(strategies, comp, strict=True) if c == k), key=id_key)
              for k in np.unique(comp)]
    return sorted([g for g in groups if len(g) >= 2], key=lambda g: id_key(g[0]))


# --------------------------------------------------------------------------------------------
# Effects
# --------------------------------------------------------------------------------------------

def fe_dummies(table: pd.DataFrame, author: bool = True) -> np.ndarray:
    """Dummy matrix of task x size cells plus authors (first author dropped)."""
    cell = table["task"].astype(str) + "\x1f" + table["size"].astype(str)
    parts = [pd.get_dummies(cell, dtype=float).to_numpy()]
    if author and table["author"].nunique() > 1:
        parts.append(pd.get_dummies(table["author"].astype(str), drop_first=True,
                                    dtype=float).to_numpy())
    return np.hstack(parts)


def residualize(fe: np.ndarray, m: np.ndarray) -> np.ndarray:
    coef, *_ = np.linalg.lstsq(fe, m, rcond=None)
    return m - fe @ coef


@dataclass
class EffectsFit:
    """Result of :func:`fit_effects`.

    Attributes
    ----------
    table : DataFrame
        One row per strategy (and per bundle), columns :data:`EFFECT_COLUMNS`.
    params : Series
        Coefficients of the model's regressors (merged identical strategies share one).
    cov : DataFrame
        Their cluster-robust covariance.
    df_inference : int
        Degrees of freedom of the t reference (tasks - 1).
    columns : dict
        Regressor name -> strategies it stands for.
    bundles : list of list of str
    result : statsmodels results or None
    cov_type : str
        Covariance actually used (``cluster`` when CR3 was asked for but not identified).
    """

    table: pd.DataFrame
    params: pd.Series
    cov: pd.DataFrame
    df_inference: int
    columns: dict[str, list[str]]
    bundles: list[list[str]]
    result: object = None
    cov_type: str = "cluster-crv3"

    def combination(self, weights: Mapping[str, float], alpha: float = 0.05) -> dict:
        """Estimate, CI and p-value of sum(weight * coefficient) with the fit's covariance."""
        from scipy import stats as st

        w = np.array([weights.get(c, 0.0) for c in self.params.index])
        est = float(w @ self.params.to_numpy())
        se = float(np.sqrt(max(w @ self.cov.to_numpy() @ w, 0.0)))
        tcrit = st.t.ppf(1 - alpha / 2, self.df_inference)
        p = float(2 * st.t.sf(abs(est / se), self.df_inference)) if se > 0 else float("nan")
        return {"estimate_log": est, "se_log": se, "ci_low_log": est - tcrit * se,
                "ci_high_log": est + tcrit * se, "p_value": p}


def _screen(table: pd.DataFrame, strategies: Sequence[str], fe: np.ndarray, min_with: int,
            min_tasks: int) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Pick estimable regressors; merge identical columns; give reasons for the rest."""
    sol = solutions(table, strategies)
    reasons: dict[str, str] = {}
    kept: list[str] = []
    varying = (table.groupby(["task", "size"])[list(strategies)].nunique() > 1) \
        .groupby(level=0).any().sum()
    for sid in strategies:
        n_with = int(sol[sid].sum())
        n_without = len(sol) - n_with
        n_var_tasks = int(varying[sid])
        if n_with == 0:
            reasons[sid] = "not used by any correct solution"
        elif n_without == 0:
            reasons[sid] = "used by every correct solution: no comparison"
        elif n_with < min_with:
            reasons[sid] = f"too rare: {n_with} solution(s) use it (need {min_with})"
        elif n_var_tasks == 0:
            reasons[sid] = "no within-task variation: every task's solutions all use it or all not"
        elif n_var_tasks < min_tasks:
            reasons[sid] = (f"varies within only {n_var_tasks} task(s) (need {min_tasks}); "
                            "cluster-robust inference impossible")
        else:
            kept.append(sid)
    # identical columns (over rows) are one regressor
    columns: dict[str, list[str]] = {}
    seen: dict[bytes, str] = {}
    for sid in kept:
        key = table[sid].to_numpy(dtype=np.int8).tobytes()
        if key in seen:
            columns[seen[key]].append(sid)
        else:
            seen[key] = sid
            columns[sid] = [sid]
    columns = {"+".join(v): v for v in columns.values()}
    for name, members in columns.items():
        if len(members) > 1:
            for sid in members:
                others = ", ".join(m for m in members if m != sid)
                reasons[sid] = (f"always co-occurs with {others}: only the bundle {name} "
                                "is estimable")
    # perfect collinearity with fixed effects and other strategies, greedily by prevalence
    names = sorted(columns, key=lambda c: -table[columns[c][0]].sum())
    x = residualize(fe, table[[columns[n][0] for n in names]].to_numpy(dtype=float))
    accepted: list[int] = []
    for j, name in enumerate(names):
        col = x[:, j]
        scale = np.linalg.norm(table[columns[name][0]].to_numpy(dtype=float))
        if accepted:
            basis = x[:, accepted]
            coef, *_ = np.linalg.lstsq(basis, col, rcond=None)
            resid = col - basis @ coef
        else:
            coef, resid = np.array([]), col
        if np.linalg.norm(resid) <= 1e-8 * max(scale, 1.0):
            partners = [names[accepted[i]] for i in np.flatnonzero(np.abs(coef) > 1e-6)]
            for sid in columns[name]:
                reasons[sid] = ("perfectly collinear with the fixed effects"
                                + (f" and {', '.join(partners)}" if partners else ""))
        else:
            accepted.append(j)
    keep = sorted((names[j] for j in accepted), key=lambda n: id_key(columns[n][0]))
    return {n: columns[n] for n in keep}, reasons


def ols_clustered(y: np.ndarray, x: np.ndarray, groups: np.ndarray, cov_type: str = "cluster-crv3"):
    """OLS on residualized data with cluster-robust covariance; returns (result, cov used)."""
    import statsmodels.api as sm

    kwds = {"groups": groups, "use_correction": True, "df_correction": True}
    try:
        return sm.OLS(y, x).fit(cov_type=cov_type, cov_kwds=kwds, use_t=True), cov_type
    except (ValueError, np.linalg.LinAlgError):  # CR3: a leave-one-task-out fit not identified
        if cov_type == "cluster":
            raise
        return sm.OLS(y, x).fit(cov_type="cluster", cov_kwds=kwds, use_t=True), "cluster"


def fit_effects(data: AnalysisData | pd.DataFrame, strategies: Sequence[str] | None = None, *,
                structural: Mapping[str, bool] | None = None, bundle_threshold: float = 0.9,
                min_with: int = 3, min_tasks: int = 2, alpha: float = 0.05,
                bootstrap: int = 0, seed: int = 0, author: bool = True,
                cov_type: str = "cluster-crv3") -> EffectsFit:
    """Effect of each strategy on log speedup within task, size and author.

    The model is ``log(speedup) = cell(task, size) + author + sum_j beta_j * strategy_j + e``,
    fitted by OLS after absorbing the fixed effects (Frisch-Waugh-Lovell); standard errors are
    cluster-robust by task with t(G - 1) intervals: the leave-one-task-out jackknife CR3 by
    default (``cov_type="cluster-crv3"``), CR1 with ``"cluster"``; when a leave-one-task-out
    fit is not identified, CR3 falls back to CR1 and every note says so.

    Parameters
    ----------
    data : AnalysisData or DataFrame
        The analysis table (correct rows only).
    strategies : sequence of str, optional
        Strategy columns to use; default all strategy columns.
    structural : mapping, optional
        ID -> structural flag, for the ``kind`` column (default :func:`load_structural_map`).
    bundle_threshold : float
        Jaccard index at or above which strategies form a bundle.
    min_with : int
        Fewest solutions using a strategy for it to be estimated.
    min_tasks : int
        Fewest tasks in which a strategy must vary (some solutions with, some without).
    alpha : float
        1 - confidence level.
    bootstrap : int
        Task-cluster bootstrap replicates (0: none); adds ``boot_low_log``/``boot_high_log``.
    seed : int
        Bootstrap seed.
    author : bool
        Include author fixed effects.
    cov_type : {"cluster-crv3", "cluster"}
        CR3 (default) or CR1 cluster-robust covariance.

    Returns
    -------
    EffectsFit

    Examples
    --------
    >>> from strategylens.stats import simulate_corpus
    >>> corpus = simulate_corpus(n_tasks=12, seed=3)
    >>> fit = fit_effects(corpus.data)
    >>> row = fit.table.set_index("strategy").loc["CMP-01"]
    >>> bool(row.ci_low_log < corpus.effects["CMP-01"] < row.ci_high_log)
    True
    """
    from statsmodels.stats.multitest import multipletests

    table = as_table(data)
    table = table.reset_index(drop=True)
    strategies = list(strategies) if strategies is not None else strategy_columns(table.columns)
    structural = dict(structural) if structural is not None else load_structural_map()
    if table.empty:
        raise DataError("no correct solutions with a positive speedup to fit")
    y = np.log(table["speedup"].to_numpy(dtype=float))
    fe = fe_dummies(table, author)
    columns, reasons = _screen(table, strategies, fe, min_with, min_tasks)
    groups = pd.factorize(table["task"])[0]
    n_groups = int(groups.max()) + 1
    if n_groups < 2:
        raise DataError(f"only {n_groups} task with passing solutions: within-task effects with "
                        "task-clustered errors need at least 2 tasks")
    names = list(columns)
    sol = solutions(table, strategies)
    bundles = find_bundles(table, [s for s in strategies if sol[s].sum() > 0], bundle_threshold)
    bundle_of = {s: f"B{i + 1}" for i, b in enumerate(bundles) for s in b}
    for members in columns.values():  # identical columns are bundles too
        if len(members) > 1 and not any(m in bundle_of for m in members):
            bundles.append(list(members))
            for m in members:
                bundle_of[m] = f"B{len(bundles)}"

    result = None
    if names:
        xr = residualize(fe, table[[columns[n][0] for n in names]].to_numpy(dtype=float))
        yr = residualize(fe, y[:, None])[:, 0]
        result, cov_used = ols_clustered(yr, xr, groups, cov_type)
        params = pd.Series(np.asarray(result.params), index=names)
        cov = pd.DataFrame(np.asarray(result.cov_params()), index=names, columns=names)
    else:
        params, cov, cov_used = pd.Series(dtype=float), pd.DataFrame(), cov_type
    fit = EffectsFit(pd.DataFrame(), params, cov, max(n_groups - 1, 1), columns, bundles, result,
                     cov_used)

    boot = cluster_bootstrap(table, columns, bootstrap, seed, author) if bootstrap and names \
        else None
    rows = []
    column_of = {m: n for n, ms in columns.items() for m in ms}
    task_var = (table.groupby("task")[strategies].nunique() > 1).sum()
    for sid in strategies:
        n_with = int(sol[sid].sum())
        row = {"strategy": sid, "kind": kind_of(structural, sid), "n_tasks": int(task_var[sid]),
               "n_with": n_with, "n_without": len(sol) - n_with, "bundle": bundle_of.get(sid, ""),
               "estimable": sid in column_of and len(columns[column_of[sid]]) == 1,
               "note": reasons.get(sid, "")}
        if row["estimable"]:
            if cov_used != cov_type:
                row["note"] = f"{cov_used} covariance: {cov_type} not identified"
            est = fit.combination({sid: 1.0}, alpha)
            row.update(effect_log=est["estimate_log"], se_log=est["se_log"],
                       ci_low_log=est["ci_low_log"], ci_high_log=est["ci_high_log"],
                       p_value=est["p_value"])
            if boot is not None:
                row.update(_boot_ci(boot[sid], alpha))
            if row["bundle"]:
                mates = [m for m in next(b for b in bundles if sid in b) if m != sid]
                row["note"] = row["note"] + (f"warning: bundle {row['bundle']} with "
                                             f"{', '.join(mates)}; read the bundle row")
        rows.append(row)
    for i, members in enumerate(bundles):
        label = f"B{i + 1}"
        regs = sorted({column_of[m] for m in members if m in column_of})
        in_all = sol[members].all(axis=1)
        in_none = ~sol[members].any(axis=1)
        row = {"strategy": "+".join(members), "kind": "bundle",
               "n_tasks": int((table.assign(_b=table[members].all(axis=1))
                               .groupby("task")["_b"].nunique() > 1).sum()),
               "n_with": int(in_all.sum()), "n_without": int(in_none.sum()), "bundle": label,
               "estimable": bool(regs), "note": ""}
        missing = [m for m in members if m not in column_of]
        if regs:
            est = fit.combination({r: 1.0 for r in regs}, alpha)
            row.update(effect_log=est["estimate_log"], se_log=est["se_log"],
                       ci_low_log=est["ci_low_log"], ci_high_log=est["ci_high_log"],
                       p_value=est["p_value"])
            if boot is not None:
                row.update(_boot_ci(sum(boot[r.split("+")[0]] for r in regs), alpha))
            row["note"] = "all members together (sum of their effects)"
            if missing:
                row["note"] += f"; not estimable and left out: {', '.join(missing)}"
        else:
            row["note"] = "no member is estimable"
        rows.append(row)
    out = pd.DataFrame(rows)
    for c in EFFECT_COLUMNS:
        if c not in out.columns:
            out[c] = np.nan
    out["estimable"] = out["estimable"].fillna(False).astype(bool)
    out["multiplier"] = np.exp(out["effect_log"])
    out["multiplier_low"] = np.exp(out["ci_low_log"])
    out["multiplier_high"] = np.exp(out["ci_high_log"])
    ok = out["p_value"].notna()
    out["q_value"] = np.nan
    if ok.any():
        out.loc[ok, "q_value"] = multipletests(out.loc[ok, "p_value"], method="fdr_bh")[1]
    fit.table = out[EFFECT_COLUMNS]
    return fit


def _boot_ci(draws: np.ndarray, alpha: float) -> dict:
    draws = np.asarray(draws, dtype=float)
    draws = draws[np.isfinite(draws)]
    if len(draws) < 20:
        return {"boot_low_log": np.nan, "boot_high_log": np.nan}
    lo, hi = np.quantile(draws, [alpha / 2, 1 - alpha / 2])
    return {"boot_low_log": float(lo), "boot_high_log": float(hi)}


def cluster_bootstrap(table: pd.DataFrame, columns: Mapping[str, Sequence[str]], n_boot: int,
                      seed: int = 0, author: bool = True) -> dict[str, np.ndarray]:
    """Task-cluster bootstrap of the effect coefficients.

    Tasks are drawn with replacement (a task drawn twice counts as two tasks) and the model is
    refitted by least squares. Replicates in which a regressor has no variation left are NaN.

    Returns
    -------
    dict
        First member of each regressor -> array of `n_boot` coefficient draws.
    """
    rng = np.random.default_rng(seed)
    names = list(columns)
    first = [columns[n][0] for n in names]
    x_all = table[first].to_numpy(dtype=float)
    y_all = np.log(table["speedup"].to_numpy(dtype=float))
    task_code, tasks = pd.factorize(table["task"])
    cell_code = pd.factorize(table["task"].astype(str) + "\x1f" + table["size"].astype(str))[0]
    author_code, authors = pd.factorize(table["author"])
    rows_of = [np.flatnonzero(task_code == t) for t in range(len(tasks))]
    draws = np.full((n_boot, len(names)), np.nan)
    for b in range(n_boot):
        pick = rng.choice(len(tasks), size=len(tasks), replace=True)
        idx = np.concatenate([rows_of[i] for i in pick])
        copy = np.concatenate([np.full(len(rows_of[i]), k) for k, i in enumerate(pick)])
        cells = pd.factorize(cell_code[idx] * len(tasks) + copy)[0]
        fe = [np.eye(cells.max() + 1)[cells]]
        if author and len(authors) > 1:
            fe.append(np.eye(len(authors))[author_code[idx]][:, 1:])
        fe = np.hstack(fe)
        xr = residualize(fe, x_all[idx])
        yr = residualize(fe, y_all[idx, None])[:, 0]
        ok = np.linalg.norm(xr, axis=0) > 1e-8
        if ok.any() and np.linalg.matrix_rank(xr[:, ok]) == ok.sum():
            draws[b, ok] = np.linalg.lstsq(xr[:, ok], yr, rcond=None)[0]
    return {f: draws[:, j] for j, f in enumerate(first)}


