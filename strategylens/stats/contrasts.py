"""Contrasts on top of the effects model: structural vs micro, effect by size, intensity
(dose), and AccelEval's descriptive measures beside ours.

Every contrast goes through the same fit and identification checks as the effects
(:mod:`strategylens.stats.backend`): a row that is not identified says why instead of printing
a number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from strategylens.stats.backend import build_design, fit_model
from strategylens.stats.data import (INTENSITY, AnalysisData, as_table, kind_of,
                                     load_structural_map, size_rank, strategy_columns)
from strategylens.stats.effects import (EffectsFit, collinear_screen, find_bundles,
                                        finish_table, fit_effects)

_CHECKS = ["se_log", "inference", "n_clusters", "eff_clusters", "max_leverage", "estimable"]

CONTRAST_COLUMNS = ["contrast", "method", "estimate_log", "ci_low_log", "ci_high_log",
                    "multiplier", "multiplier_low", "multiplier_high", "p_value", *_CHECKS,
                    "n_strategies", "strategies", "note"]


def _row(est: dict) -> dict:
    return {k: est.get(k) for k in ("estimate_log", "ci_low_log", "ci_high_log", "p_value",
                                    *_CHECKS, "note")}


def structural_contrast(data: AnalysisData | pd.DataFrame, fit: EffectsFit | None = None, *,
                        structural: Mapping[str, bool] | None = None, alpha: float = 0.05,
                        **fit_kwargs) -> pd.DataFrame:
    """Structural against micro strategies.

    Two estimates. ``mean of effects`` (primary): the average coefficient of the estimable
    structural strategies minus that of the micro ones, a linear combination of the effects
    model, with the model's inference and identification checks. ``count model``: log speedup
    on the number of structural and the number of micro strategies a solution uses (same fixed
    effects and inference); the per-strategy slopes and their difference.

    Returns
    -------
    DataFrame
        Columns :data:`CONTRAST_COLUMNS`, rows ``structural``, ``micro``,
        ``structural - micro`` for each method.

    Examples
    --------
    >>> from strategylens.stats import simulate_corpus
    >>> corpus = simulate_corpus(n_tasks=16, seed=1)
    >>> c = structural_contrast(corpus.data, structural=corpus.structural)
    >>> diff = c[(c.contrast == "structural - micro") & (c.method == "mean of effects")]
    >>> bool(diff.estimate_log.iloc[0] > 0)
    True
    """
    table = as_table(data).reset_index(drop=True)
    structural = dict(structural) if structural is not None else load_structural_map()
    fit = fit or fit_effects(table, structural=structural, alpha=alpha, **fit_kwargs)
    rows = []
    groups: dict[str, list[str]] = {"structural": [], "micro": []}
    for name, members in fit.columns.items():
        if not fit.combination({name: 1.0}, alpha).get("estimable"):
            continue
        kinds = {structural.get(m) for m in members}
        if kinds == {True}:
            groups["structural"].append(name)
        elif kinds == {False}:
            groups["micro"].append(name)
    weights = {g: {n: 1.0 / len(v) for n in v} for g, v in groups.items() if v}
    for g in ("structural", "micro"):
        if g in weights:
            rows.append({"contrast": g, "method": "mean of effects",
                         **_row(fit.combination(weights[g], alpha)),
                         "n_strategies": len(groups[g]), "strategies": ";".join(groups[g])})
    if len(weights) == 2:
        w = {n: weights["structural"].get(n, 0.0) - weights["micro"].get(n, 0.0)
             for n in fit.columns}
        rows.append({"contrast": "structural - micro", "method": "mean of effects",
                     **_row(fit.combination(w, alpha)),
                     "n_strategies": len(groups["structural"]) + len(groups["micro"]),
                     "strategies": ""})
    # count model
    strategies = strategy_columns(table.columns)
    s_ids = [s for s in strategies if structural.get(s) is True]
    m_ids = [s for s in strategies if structural.get(s) is False]
    if s_ids and m_ids:
        counts = {"structural": table[s_ids].sum(axis=1).to_numpy(dtype=float),
                  "micro": table[m_ids].sum(axis=1).to_numpy(dtype=float)}
        author = fit_kwargs.get("author", True)
        keep, _ = collinear_screen(_with_columns(table, counts), {k: [k] for k in counts}, author)
        if keep == ["structural", "micro"] or set(keep) == set(counts):
            model = fit_model(build_design(table, counts, author),
                              inference=fit_kwargs.get("inference", "auto"),
                              seed=fit_kwargs.get("seed", 0))
            for label, w, ids in (("structural", {"structural": 1.0}, s_ids),
                                  ("micro", {"micro": 1.0}, m_ids),
                                  ("structural - micro", {"structural": 1.0, "micro": -1.0},
                                   s_ids + m_ids)):
                rows.append({"contrast": label, "method": "count model",
                             **_row(model.contrast(w, alpha)), "n_strategies": len(ids),
                             "strategies": ";".join(ids) if label != "structural - micro"
                             else ""})
    out = pd.DataFrame(rows)
    if out.empty:
        out = pd.DataFrame(columns=CONTRAST_COLUMNS)
    out = out.rename(columns={"estimate_log": "effect_log"})
    out = finish_table(out, [c if c != "estimate_log" else "effect_log"
                             for c in CONTRAST_COLUMNS])
    return out.rename(columns={"effect_log": "estimate_log"})


SIZE_COLUMNS = ["strategy", "size", "effect_log", "se_log", "ci_low_log", "ci_high_log",
                "multiplier", "multiplier_low", "multiplier_high", "p_value", "q_value",
                "inference", "n_clusters", "eff_clusters", "max_leverage", "estimable", "note"]


class SizesNotComparable(ValueError):
    """The tasks' size labels cannot be put on one scale."""


def task_size_ranks(table: pd.DataFrame) -> tuple[pd.Series, list[str]]:
    """Each row's size as its rank within its task, and a label per rank.

    A task's sizes are ordered by their median ``cpu_ms`` when it is known, else by name
    (tiny < small < medium < large < huge, numbers by value). Ranks are comparable only when
    every task has the same number of sizes; a rank's label is the size name when every task
    uses the same name at that rank, else ``rank r of K``.

    Raises
    ------
    SizesNotComparable
        When tasks have different numbers of sizes.

    Examples
    --------
    >>> t = pd.DataFrame({"task": ["a", "a", "b", "b"], "size": ["n=10", "n=99", "n=7", "n=64"],
    ...                   "cpu_ms": [1.0, 9.0, 2.0, 30.0]})
    >>> ranks, labels = task_size_ranks(t)
    >>> ranks.tolist(), labels
    ([0, 1, 0, 1], ['rank 1 of 2', 'rank 2 of 2'])
    """
    orders = {task: size_rank(grp) for task, grp in table.groupby("task", sort=True)}
    counts = {task: len(o) for task, o in orders.items()}
    if len(set(counts.values())) > 1:
        shown = ", ".join(f"{t}: {n}" for t, n in list(counts.items())[:4])
        raise SizesNotComparable(f"tasks have different numbers of sizes ({shown}"
                                 f"{', ...' if len(counts) > 4 else ''}); sizes cannot be "
                                 "compared across tasks")
    k = next(iter(counts.values()))
    pos = {(t, z): i for t, o in orders.items() for i, z in enumerate(o)}
    ranks = pd.Series([pos[(t, z)] for t, z in zip(table["task"], table["size"].astype(str),
                                                    strict=True)], index=table.index)
    labels = []
    for i in range(k):
        names = {o[i] for o in orders.values()}
        labels.append(names.pop() if len(names) == 1 else f"rank {i + 1} of {k}")
    return ranks, labels


def size_effects(data: AnalysisData | pd.DataFrame, fit: EffectsFit | None = None, *,
                 alpha: float = 0.05, min_with: int = 3, min_tasks: int = 2,
                 **fit_kwargs) -> pd.DataFrame:
    """Effect of each estimable strategy at each input size, and largest minus smallest.

    Sizes are ranked within each task (:func:`task_size_ranks`), so a task's own labels are
    never compared with another task's. The model is the effects model with each strategy
    regressor split into one per size rank (strategy x size interaction); the interaction
    columns are screened like main effects (too rare, no within-task variation, collinear) and
    go through the same identification checks. The row ``"<largest> - <smallest>"`` tests
    whether the effect grows with size. q-values are Benjamini-Hochberg over the table.

    Returns
    -------
    DataFrame
        Columns :data:`SIZE_COLUMNS`; empty when the data have one size. When the tasks' sizes
        cannot be compared, one row per strategy says so.
    """
    table = as_table(data).reset_index(drop=True)
    fit = fit or fit_effects(table, alpha=alpha, **fit_kwargs)
    author = fit_kwargs.get("author", True)
    try:
        ranks, labels = task_size_ranks(table)
    except SizesNotComparable as exc:
        return finish_table(pd.DataFrame([{"strategy": n, "size": "", "estimable": False,
                                           "note": f"refused: {exc}"} for n in fit.columns]),
                            SIZE_COLUMNS)
    if len(labels) < 2 or not fit.columns:
        return pd.DataFrame(columns=SIZE_COLUMNS)
    cols, reasons = {}, {}
    for name, members in fit.columns.items():
        x = table[members[0]].to_numpy(dtype=float)
        for r, label in enumerate(labels):
            at = (ranks == r).to_numpy()
            col = x * at
            sub = table[at].assign(_x=x[at])
            n_with = int(sub.loc[sub["_x"] == 1].drop_duplicates(["task", "solution"]).shape[0])
            n_var = int((sub.groupby("task")["_x"].nunique() > 1).sum())
            if n_with < min_with:
                reasons[(name, label)] = (f"too rare at this size: {n_with} solution(s) use it "
                                          f"(need {min_with})")
            elif n_var < min_tasks:
                reasons[(name, label)] = (f"varies within {n_var} task(s) at this size (need "
                                          f"{min_tasks})")
            else:
                cols[f"{name}@{label}"] = col
    keep, dropped = collinear_screen(_with_columns(table, cols), {c: [c] for c in cols}, author)
    for c, partners in dropped.items():
        name, label = c.rsplit("@", 1)
        reasons[(name, label)] = ("perfectly collinear with the fixed effects"
                                  + (f" and {', '.join(partners)}" if partners else ""))
    model = (fit_model(build_design(table, {c: cols[c] for c in keep}, author),
                       inference=fit_kwargs.get("inference", "auto"),
                       seed=fit_kwargs.get("seed", 0)) if keep else None)
    rows = []
    for name in fit.columns:
        for label in labels:
            key = f"{name}@{label}"
            row = {"strategy": name, "size": label}
            if key in keep:
                row.update(_row(model.contrast({key: 1.0}, alpha)))
            else:
                row.update(estimable=False, note="not estimable: " + reasons[(name, label)])
            rows.append(row)
        lo, hi = f"{name}@{labels[0]}", f"{name}@{labels[-1]}"
        if lo in keep and hi in keep:
            est = _row(model.contrast({hi: 1.0, lo: -1.0}, alpha))
            if est["estimable"]:
                est["note"] = "; ".join(filter(None, [
                    "largest over smallest: above 1 (log above 0), the effect grows with size",
                    est["note"]]))
            rows.append({"strategy": name, "size": f"{labels[-1]} - {labels[0]}", **est})
    out = pd.DataFrame(rows).rename(columns={"estimate_log": "effect_log"})
    return finish_table(out, SIZE_COLUMNS)


ACCELEVAL_COLUMNS = ["strategy", "prevalence", "winner_coverage", "selectivity", "lift",
                     "naive_ratio", "lift_tasks", "acceleval_bundle"]


DOSE_COLUMNS = ["strategy", "kind", "slope_log", "se_log", "ci_low_log", "ci_high_log",
                "multiplier_per_doubling", "p_value", "q_value", "inference", "n_clusters",
                "eff_clusters", "max_leverage", "n_users", "n_levels", "n_tasks", "low", "high",
                "estimable", "note"]


def dose_response(data: AnalysisData | pd.DataFrame, fit: EffectsFit | None = None, *,
                  structural: Mapping[str, bool] | None = None, alpha: float = 0.05,
                  min_users: int = 6, min_tasks: int = 2, **fit_kwargs) -> pd.DataFrame:
    """How the speedup of a strategy's users changes with its intensity (``<ID>:intensity``).

    Intensity is the amount of a strategy a solution uses: outputs per thread (PAR-02), tile
    bytes (MEM-02), unroll factor (CMP-04), streams (HST-03). For every strategy with an
    intensity column the model of :func:`fit_effects` gets one more regressor, the centred
    ``log2(intensity)`` of its users (0 for solutions without the strategy, and for users whose
    intensity is unknown), so its coefficient is the change in log speedup per doubling of the
    intensity among users, with task x size and author fixed effects, every estimable strategy
    indicator, and the same task-clustered errors. The strategy's own indicator then stands
    for its effect at the users' mean log2 intensity.

    Returns
    -------
    DataFrame
        Columns :data:`DOSE_COLUMNS`, one row per strategy with an intensity column; ``low`` and
        ``high`` are the smallest and largest intensity among users.

    Examples
    --------
    >>> from strategylens.stats import simulate_corpus
    >>> corpus = simulate_corpus(n_tasks=16, seed=2, doses={"PAR-02": 0.15})
    >>> row = dose_response(corpus.data, structural=corpus.structural).set_index("strategy")
    >>> bool(row.loc["PAR-02", "ci_low_log"] < 0.15 < row.loc["PAR-02", "ci_high_log"])
    True
    """
    table = as_table(data).reset_index(drop=True)
    structural = dict(structural) if structural is not None else load_structural_map()
    fit = fit or fit_effects(table, structural=structural, alpha=alpha, **fit_kwargs)
    strategies = strategy_columns(table.columns)
    author = fit_kwargs.get("author", True)
    rows, doses = [], {}
    for sid in strategies:
        col = f"{sid}{INTENSITY}"
        if col not in table.columns:
            continue
        inten = pd.to_numeric(table[col], errors="coerce")
        users = (table[sid] == 1) & (inten > 0)
        lvl = np.log2(inten.where(users))
        sol = table[users].drop_duplicates(["task", "solution"])
        row = {"strategy": sid, "kind": kind_of(structural, sid),
               "n_users": int(len(sol)), "n_levels": int(inten[users].nunique()),
               "n_tasks": int((table[users].groupby("task")[col].nunique() > 1).sum()),
               "low": float(inten[users].min()) if users.any() else np.nan,
               "high": float(inten[users].max()) if users.any() else np.nan,
               "estimable": False, "note": ""}
        if not any(sid in members for members in fit.columns.values()):
            row["note"] = "the strategy itself is not estimable (see stats effects)"
        elif row["n_users"] < min_users:
            row["note"] = f"{row['n_users']} solution(s) with a known intensity (need {min_users})"
        elif row["n_levels"] < 2:
            row["note"] = "every user has the same intensity"
        elif row["n_tasks"] < min_tasks:
            row["note"] = (f"intensity varies among users in {row['n_tasks']} task(s) "
                           f"(need {min_tasks})")
        else:
            doses[f"{sid}{INTENSITY}"] = (lvl - lvl[users].mean()).fillna(0.0).to_numpy()
        rows.append(row)
    if doses:
        regs = {n: table[fit.columns[n][0]].to_numpy(dtype=float) for n in fit.columns}
        model = fit_model(build_design(table, {**regs, **doses}, author),
                          inference=fit_kwargs.get("inference", fit.inference or "auto"),
                          seed=fit_kwargs.get("seed", 0))
        for name in doses:
            est = _row(model.contrast({name: 1.0}, alpha))
            est["slope_log"] = est.pop("estimate_log")
            next(r for r in rows if f"{r['strategy']}{INTENSITY}" == name).update(est)
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=DOSE_COLUMNS)
    out = finish_table(out, DOSE_COLUMNS)
    out["multiplier_per_doubling"] = np.exp(out["slope_log"].astype(float))
    return out


def acceleval_measures(data: AnalysisData | pd.DataFrame, strategies: Sequence[str] | None = None,
                       bundle_threshold: float = 0.6) -> pd.DataFrame:
    """AccelEval's descriptive measures, for comparison with the effects model.

    - ``prevalence``: share of correct solution rows that use the strategy.
    - ``winner_coverage``: share of task x size winners (fastest correct solution) using it.
    - ``selectivity``: winner_coverage / prevalence (> 1: over-represented among winners).
    - ``lift``: within-task LIFT, exp(mean over tasks of [mean log speedup with - without]),
      each task's difference averaged over its sizes; tasks without both groups are skipped.
    - ``naive_ratio``: exp(mean log speedup with - without), pooled over all tasks.
    - ``acceleval_bundle``: Jaccard >= `bundle_threshold` connected component.

    None of these controls for author or for co-occurring strategies.

    Examples
    --------
    >>> t = pd.DataFrame({"task": ["a", "a", "b", "b"], "solution": list("wxyz"), "size": "m",
    ...                   "author": "u", "speedup": [8.0, 2.0, 3.0, 3.0], "MEM-02": [1, 0, 1, 0]})
    >>> m = acceleval_measures(t).iloc[0]
    >>> round(float(m.lift), 6), float(m.winner_coverage), float(m.selectivity)
    (2.0, 1.0, 2.0)
    """
    table = as_table(data)
    strategies = list(strategies) if strategies is not None else strategy_columns(table.columns)
    logy = np.log(table["speedup"].astype(float))
    winners = table.loc[table.groupby(["task", "size"])["speedup"].idxmax()]
    bundles = find_bundles(table, [s for s in strategies if table[s].sum() > 0], bundle_threshold)
    bundle_of = {s: "+".join(b) for b in bundles for s in b}
    rows = []
    for sid in strategies:
        has = table[sid] == 1
        prevalence = float(has.mean())
        coverage = float((winners[sid] == 1).mean())
        means = table.assign(_y=logy, _has=has).groupby(["task", "size", "_has"])["_y"].mean()
        cell = means.unstack("_has")
        diffs = (cell[True] - cell[False]).dropna() if {True, False} <= set(cell.columns) \
            else pd.Series(dtype=float)
        per_task = diffs.groupby(level=0).mean()
        rows.append({
            "strategy": sid, "prevalence": prevalence, "winner_coverage": coverage,
            "selectivity": coverage / prevalence if prevalence > 0 else np.nan,
            "lift": float(np.exp(per_task.mean())) if len(per_task) else np.nan,
            "naive_ratio": float(np.exp(logy[has].mean() - logy[~has].mean()))
            if has.any() and (~has).any() else np.nan,
            "lift_tasks": int(len(per_task)), "acceleval_bundle": bundle_of.get(sid, ""),
        })
    return pd.DataFrame(rows, columns=ACCELEVAL_COLUMNS)


def compare_methods(effects: pd.DataFrame, acceleval: pd.DataFrame) -> pd.DataFrame:
    """Our multiplier and CI beside AccelEval's LIFT and selectivity, with where they disagree."""
    ours = effects[effects["kind"] != "bundle"][
        ["strategy", "kind", "multiplier", "multiplier_low", "multiplier_high", "q_value",
         "bundle", "estimable"]]
    if ours.empty or acceleval.empty:
        return pd.DataFrame(columns=[*ours.columns, *acceleval.columns[1:], "agreement"])
    out = ours.merge(acceleval, on="strategy", how="outer")

    def verdict(r):
        if not r["estimable"] or pd.isna(r["multiplier"]):
            return "ours not estimable"
        if pd.isna(r["lift"]):
            return "no LIFT (no task has both)"
        notes = []
        if not (r["multiplier_low"] <= r["lift"] <= r["multiplier_high"]):
            notes.append("LIFT outside our CI")
        if (r["lift"] > 1) != (r["multiplier"] > 1):
            notes.append("opposite direction")
        return "; ".join(notes) or "agree"

    out["agreement"] = out.apply(verdict, axis=1)
    return out


def _with_columns(table: pd.DataFrame, cols: dict) -> pd.DataFrame:
    """``table`` with ``cols`` added in one step (``assign`` inserts them one by one, which
    pandas warns fragments a frame of a hundred strategy-by-size columns)."""
    return pd.concat([table, pd.DataFrame(cols, index=table.index)], axis=1)
