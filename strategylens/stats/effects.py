"""The effects model: which strategies go with a higher speedup on the same task.

Effects (:func:`fit_effects`) are least-squares coefficients of log speedup on the strategy
indicators with task x size and author fixed effects, fitted by pyfixest with task-clustered
inference (:mod:`strategylens.stats.backend`), a task-resampling bootstrap as a check, and
Benjamini-Hochberg q-values. Strategies that nearly always appear
together are bundles (:func:`find_bundles`). docs/statistics.md gives the reasons.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from strategylens.stats.backend import (ModelFit, build_design, demean, fit_model,
                                        least_squares, single_threaded, subset)
from strategylens.stats.data import (AnalysisData, DataError, as_table, id_key, kind_of,
                                     load_structural_map, strategy_columns)

EFFECT_COLUMNS = [
    "strategy", "kind", "effect_log", "se_log", "ci_low_log", "ci_high_log", "multiplier",
    "multiplier_low", "multiplier_high", "p_value", "q_value", "inference", "n_clusters",
    "eff_clusters", "max_leverage", "boot_low_log", "boot_high_log", "boot_share", "n_tasks",
    "n_with", "n_without", "bundle", "estimable", "note",
]
BOOT_MIN_SHARE = 0.95   # share of draws that must identify a row for its bootstrap interval
BOOT_MIN_COMPLETE = 0.9  # share of draws that must identify the whole model

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

@dataclass
class EffectsFit:
    """Result of :func:`fit_effects`.

    Attributes
    ----------
    table : DataFrame
        One row per strategy (and per bundle), columns :data:`EFFECT_COLUMNS`.
    model : backend.ModelFit
        The fitted model (pyfixest) with its covariance and identification checks.
    columns : dict
        Regressor name -> strategies it stands for (identical columns share one).
    bundles : list of list of str
    """

    table: pd.DataFrame
    model: ModelFit | None
    columns: dict[str, list[str]]
    bundles: list[list[str]]
    absorbs: dict[str, list[str]] = field(default_factory=dict)

    @property
    def params(self) -> pd.Series:
        return self.model.params if self.model is not None else pd.Series(dtype=float)

    @property
    def cov(self) -> pd.DataFrame:
        return self.model.cov if self.model is not None else pd.DataFrame()

    @property
    def inference(self) -> str:
        return self.model.inference if self.model is not None else ""

    @property
    def df_inference(self) -> int:
        return self.model.df if self.model is not None else 1

    def combination(self, weights: Mapping[str, float], alpha: float = 0.05) -> dict:
        """Estimate, interval, p-value and checks of sum(weight * coefficient)."""
        if self.model is None:
            return {"estimate_log": np.nan, "estimable": False,
                    "note": "not estimable: no strategy is in the model"}
        return self.model.contrast(weights, alpha)


def _screen(table: pd.DataFrame, strategies: Sequence[str], min_with: int, min_tasks: int,
            author: bool) -> tuple[dict[str, list[str]], dict[str, str], dict[str, list[str]]]:
    """Pick estimable regressors; merge identical columns; give reasons for the rest.

    Returns the kept regressors, the reason per left-out strategy, and for each kept regressor
    the strategies it absorbs (perfectly collinear with it given the fixed effects).
    """
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
    absorbs: dict[str, list[str]] = {}
    keep, dropped = collinear_screen(table, columns, author)
    for name, partners in dropped.items():
        for sid in columns[name]:
            reasons[sid] = ("perfectly collinear with the fixed effects"
                            + (f" and {', '.join(partners)}" if partners else ""))
        for p in partners:
            absorbs.setdefault(p, []).extend(columns[name])
    return {n: columns[n] for n in keep}, reasons, absorbs


@single_threaded
def collinear_screen(table: pd.DataFrame, columns: Mapping[str, Sequence[str]],
                     author: bool = True) -> tuple[list[str], dict[str, list[str]]]:
    """Regressors that are not a linear combination of the fixed effects and the others.

    Greedy in order of prevalence, on the columns with the fixed effects absorbed (pyfixest's
    demeaning). Returns the kept names (in catalog order) and, for each dropped one, the kept
    regressors it is a combination of.
    """
    names = sorted(columns, key=lambda c: -table[columns[c][0]].sum())
    if not names:
        return [], {}
    design = build_design(table, {n: table[columns[n][0]].to_numpy() for n in names}, author)
    x = demean(design, design.x)
    accepted: list[int] = []
    dropped: dict[str, list[str]] = {}
    for j, name in enumerate(names):
        col = x[:, j]
        scale = np.linalg.norm(design.x[:, j])
        if accepted:
            basis = x[:, accepted]
            coef, *_ = np.linalg.lstsq(basis, col, rcond=None)
            resid = col - basis @ coef
        else:
            coef, resid = np.array([]), col
        if np.linalg.norm(resid) <= 1e-7 * max(scale, 1.0):
            dropped[name] = [names[accepted[i]] for i in np.flatnonzero(np.abs(coef) > 1e-6)]
        else:
            accepted.append(j)
    keep = sorted((names[j] for j in accepted), key=lambda n: id_key(columns[n][0]))
    return keep, dropped


def fit_effects(data: AnalysisData | pd.DataFrame, strategies: Sequence[str] | None = None, *,
                structural: Mapping[str, bool] | None = None, bundle_threshold: float = 0.9,
                min_with: int = 3, min_tasks: int = 2, alpha: float = 0.05,
                bootstrap: int = 0, seed: int = 0, author: bool = True,
                inference: str = "auto") -> EffectsFit:
    """Effect of each strategy on log speedup within task, size and author.

    The model is ``log(speedup) = cell(task, size) + author + sum_j beta_j * strategy_j + e``,
    fitted by pyfixest with errors clustered by task (:mod:`strategylens.stats.backend`): the
    wild cluster bootstrap-t when tasks are few, CV3 from leave-one-task-out refits otherwise,
    CR1 with very many tasks. Every row is checked for identification first; a row that is not
    identified says "not estimable: <reason>", one whose tasks cannot support an interval keeps
    its estimate and says why it has no interval.

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
        Task-resampling (pairs) bootstrap replicates as a check (0: none); adds
        ``boot_low_log``/``boot_high_log`` and ``boot_share``.
    seed : int
        Seed of both bootstraps.
    author : bool
        Include author fixed effects.
    inference : {"auto", "wild", "cr3", "cr1"}
        See :mod:`strategylens.stats.backend`; ``auto`` picks by the number of tasks.

    Returns
    -------
    EffectsFit

    Examples
    --------
    >>> from strategylens.stats import simulate_corpus
    >>> corpus = simulate_corpus(n_tasks=12, seed=3)
    >>> fit = fit_effects(corpus.data)
    >>> row = fit.table.set_index("strategy").loc["CMP-01"]
    >>> bool(row.ci_low_log < corpus.effects["CMP-01"] < row.ci_high_log), row.inference
    (True, 'wild')
    """
    table = as_table(data).reset_index(drop=True)
    strategies = list(strategies) if strategies is not None else strategy_columns(table.columns)
    structural = dict(structural) if structural is not None else load_structural_map()
    if table.empty:
        raise DataError("no correct solutions with a positive speedup to fit")
    n_groups = table["task"].nunique()
    if n_groups < 2:
        raise DataError(f"only {n_groups} task with passing solutions: within-task effects with "
                        "task-clustered errors need at least 2 tasks")
    columns, reasons, absorbs = _screen(table, strategies, min_with, min_tasks, author)
    names = list(columns)
    sol = solutions(table, strategies)
    bundles = find_bundles(table, [s for s in strategies if sol[s].sum() > 0], bundle_threshold)
    bundle_of = {s: f"B{i + 1}" for i, b in enumerate(bundles) for s in b}
    for members in columns.values():  # identical columns are bundles too
        if len(members) > 1 and not any(m in bundle_of for m in members):
            bundles.append(list(members))
            for m in members:
                bundle_of[m] = f"B{len(bundles)}"
    model = None
    if names:
        design = build_design(table, {n: table[columns[n][0]].to_numpy() for n in names}, author)
        model = fit_model(design, inference=inference, seed=seed)
        for n in model.dropped:
            for sid in columns[n]:
                reasons[sid] = "perfectly collinear with the fixed effects and other strategies"
    fit = EffectsFit(pd.DataFrame(), model, columns, bundles, absorbs)
    boot = task_bootstrap(model, bootstrap, seed) if bootstrap and model is not None else None

    rows = []
    column_of = {m: n for n, ms in columns.items() for m in ms}
    task_var = (table.groupby("task")[strategies].nunique() > 1).sum()
    for sid in strategies:
        n_with = int(sol[sid].sum())
        row = {"strategy": sid, "kind": kind_of(structural, sid), "n_tasks": int(task_var[sid]),
               "n_with": n_with, "n_without": len(sol) - n_with, "bundle": bundle_of.get(sid, ""),
               "estimable": False, "note": "not estimable: " + reasons[sid]
               if sid in reasons else ""}
        if sid in column_of and len(columns[column_of[sid]]) == 1 and sid not in reasons:
            row.update(_estimate(fit, {sid: 1.0}, alpha, boot))
            notes = [row["note"]] if row["note"] else []
            if sid in absorbs:
                notes.append(f"includes the effect of {', '.join(absorbs[sid])}, perfectly "
                             "collinear with it")
            if row["bundle"] and row["estimable"]:
                mates = [m for m in next(b for b in bundles if sid in b) if m != sid]
                notes.append(f"warning: bundle {row['bundle']} with {', '.join(mates)}; read "
                             "the bundle row")
            row["note"] = "; ".join(notes)
        rows.append(row)
    for i, members in enumerate(bundles):
        label = f"B{i + 1}"
        regs = sorted({column_of[m] for m in members if m in column_of and (
            m not in reasons or len(columns[column_of[m]]) > 1)})
        in_all = sol[members].all(axis=1)
        in_none = ~sol[members].any(axis=1)
        row = {"strategy": "+".join(members), "kind": "bundle",
               "n_tasks": int((table.assign(_b=table[members].all(axis=1))
                               .groupby("task")["_b"].nunique() > 1).sum()),
               "n_with": int(in_all.sum()), "n_without": int(in_none.sum()), "bundle": label,
               "estimable": False, "note": "not estimable: no member is in the model"}
        missing = [m for m in members if m not in column_of or column_of[m] not in regs]
        if regs and model is not None:
            row.update(_estimate(fit, {r: 1.0 for r in regs}, alpha, boot))
            if row["estimable"]:
                row["note"] = "; ".join(filter(None, ["all members together (sum of their "
                                                      "effects)", row["note"]]))
            if missing:
                row["note"] += f"; not estimable and left out: {', '.join(missing)}"
        rows.append(row)
    fit.table = finish_table(pd.DataFrame(rows), EFFECT_COLUMNS)
    return fit


def _estimate(fit: EffectsFit, weights: Mapping[str, float], alpha: float, boot) -> dict:
    est = fit.combination(weights, alpha)
    out = {k: est.get(k) for k in ("se_log", "ci_low_log", "ci_high_log", "p_value",
                                   "inference", "n_clusters", "eff_clusters", "max_leverage",
                                   "estimable", "note")}
    out["effect_log"] = est.get("estimate_log")
    if boot is not None and out["estimable"]:
        got = boot_interval(boot, fit.model, weights, alpha)
        # keep the model's note (why no interval) beside the bootstrap's
        got["note"] = "; ".join(filter(None, [out.get("note"), got.get("note")]))
        out.update(got)
    return out


def finish_table(out: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Add missing columns, multipliers and Benjamini-Hochberg q-values over rows with a p."""
    from statsmodels.stats.multitest import multipletests

    for c in columns:
        if c not in out.columns:
            out[c] = np.nan
    if "estimable" in out.columns:
        out["estimable"] = out["estimable"].fillna(False).astype(bool)
    if "effect_log" in out.columns:
        out["multiplier"] = np.exp(out["effect_log"].astype(float))
        out["multiplier_low"] = np.exp(out["ci_low_log"].astype(float))
        out["multiplier_high"] = np.exp(out["ci_high_log"].astype(float))
    if "q_value" in columns:
        ok = out["p_value"].notna()
        out["q_value"] = np.nan
        if ok.any():
            out.loc[ok, "q_value"] = multipletests(out.loc[ok, "p_value"].astype(float),
                                                   method="fdr_bh")[1]
    return out[list(columns)]


# --------------------------------------------------------------------------------------------
# Task-resampling bootstrap (a check beside the main inference)
# --------------------------------------------------------------------------------------------

@dataclass
class TaskBootstrap:
    """Coefficient draws of a task-resampling bootstrap and which draws identified what."""

    draws: np.ndarray        # n_boot x k, NaN where a draw did not identify the regressor
    names: list[str]

    @property
    def complete(self) -> np.ndarray:
        return np.isfinite(self.draws).all(axis=1)


@single_threaded
def task_bootstrap(model: ModelFit, n_boot: int, seed: int = 0) -> TaskBootstrap:
    """Tasks drawn with replacement (a task drawn twice counts as two), refitted each time.

    Each draw absorbs its fixed effects with pyfixest's demeaning and solves least squares. A
    regressor a draw cannot identify (no variation left, or a combination of the others) is
    NaN in that draw; :func:`boot_interval` uses only draws that identified the whole model,
    so every draw it uses estimates the same regressors.
    """
    d = model.design
    rng = np.random.default_rng(seed)
    idx_cols = [d.names.index(n) for n in model.params.index]
    rows_of = [np.flatnonzero(d.task == t) for t in range(len(d.task_names))]
    n_cells = int(d.cell.max()) + 1
    draws = np.full((n_boot, len(idx_cols)), np.nan)
    for b in range(n_boot):
        pick = rng.choice(len(rows_of), size=len(rows_of), replace=True)
        idx = np.concatenate([rows_of[i] for i in pick])
        copy = np.concatenate([np.full(len(rows_of[i]), k) for k, i in enumerate(pick)])
        sub = subset(d, idx)
        sub.cell = pd.factorize(d.cell[idx] + n_cells * copy)[0]
        sub.task = copy
        both = demean(sub, np.column_stack([sub.y, sub.x[:, idx_cols]]))
        draws[b] = least_squares(both[:, 1:], both[:, 0], sub.x[:, idx_cols])[0]
    return TaskBootstrap(draws, list(model.params.index))


def boot_interval(boot: TaskBootstrap, model: ModelFit, weights: Mapping[str, float],
                  alpha: float) -> dict:
    """Percentile interval of a contrast over complete draws, with the share that identified it.

    Withheld (NaN, with a note) when fewer than :data:`BOOT_MIN_SHARE` of the draws identified
    the contrast's regressors or fewer than :data:`BOOT_MIN_COMPLETE` identified the model.
    """
    w = np.array([weights.get(n, 0.0) for n in boot.names])
    used = w != 0
    share = float(np.isfinite(boot.draws[:, used]).all(axis=1).mean()) if len(boot.draws) else 0.0
    complete = boot.complete
    out = {"boot_share": share, "boot_low_log": np.nan, "boot_high_log": np.nan}
    if share < BOOT_MIN_SHARE:
        out["note"] = (f"bootstrap interval withheld: {share:.0%} of draws identified it "
                       f"(need {BOOT_MIN_SHARE:.0%})")
    elif complete.mean() < BOOT_MIN_COMPLETE:
        out["note"] = (f"bootstrap interval withheld: {complete.mean():.0%} of draws identified "
                       f"the whole model (need {BOOT_MIN_COMPLETE:.0%})")
    else:
        vals = boot.draws[complete] @ w
        lo, hi = np.quantile(vals, [alpha / 2, 1 - alpha / 2])
        out.update(boot_low_log=float(lo), boot_high_log=float(hi))
    return out
