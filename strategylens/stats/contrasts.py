"""Contrasts on top of the effects model: structural vs micro, effect by size, intensity
(dose), and AccelEval's descriptive measures beside ours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from strategylens.stats.data import (INTENSITY, AnalysisData, as_table, kind_of,
                                     load_structural_map, size_rank, strategy_columns)
from strategylens.stats.effects import (EffectsFit, fe_dummies, ols_clustered, residualize,
                                        find_bundles, fit_effects)

# --------------------------------------------------------------------------------------------
# Contrasts
# --------------------------------------------------------------------------------------------

CONTRAST_COLUMNS = ["contrast", "method", "estimate_log", "ci_low_log", "ci_high_log",
                    "multiplier", "multiplier_low", "multiplier_high", "p_value", "n_strategies",
                    "strategies"]


def structural_contrast(data: AnalysisData | pd.DataFrame, fit: EffectsFit | None = None, *,
                        structural: Mapping[str, bool] | None = None, alpha: float = 0.05,
                        **fit_kwargs) -> pd.DataFrame:
    """Structural against micro strategies.

    Two estimates. ``mean of effects`` (primary): the average coefficient of the estimable
    structural strategies minus that of the micro ones, a linear combination of the effects
    model with its cluster-robust covariance. ``count model``: log speedup on the number of
    structural and the number of micro strategies a solution uses (same fixed effects and
    errors); the per-strategy slopes and their difference.

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
    from scipy import stats as st

    table = as_table(data)
    structural = dict(structural) if structural is not None else load_structural_map()
    fit = fit or fit_effects(table, structural=structural, alpha=alpha, **fit_kwargs)
    rows = []
    groups = {"structural": [], "micro": []}
    for name, members in fit.columns.items():
        kinds = {structural.get(m) for m in members}
        if kinds == {True}:
            groups["structural"].append(name)
        elif kinds == {False}:
            groups["micro"].append(name)
    weights = {g: {n: 1.0 / len(v) for n in v} for g, v in groups.items() if v}
    for g in ("structural", "micro"):
        if g in weights:
            rows.append({"contrast": g, "method": "mean of effects",
                         **fit.combination(weights[g], alpha), "n_strategies": len(groups[g]),
                         "strategies": ";".join(groups[g])})
    if len(weights) == 2:
        w = {n: weights["structural"].get(n, 0.0) - weights["micro"].get(n, 0.0)
             for n in fit.columns}
        rows.append({"contrast": "structural - micro", "method": "mean of effects",
                     **fit.combination(w, alpha),
                     "n_strategies": len(groups["structural"]) + len(groups["micro"]),
                     "strategies": ""})
    # count model
    strategies = strategy_columns(table.columns)
    s_ids = [s for s in strategies if structural.get(s) is True]
    m_ids = [s for s in strategies if structural.get(s) is False]
    table = table.reset_index(drop=True)
    counts = np.column_stack([table[s_ids].sum(axis=1), table[m_ids].sum(axis=1)]) \
        if s_ids and m_ids else np.zeros((len(table), 0))
    fe = fe_dummies(table, fit_kwargs.get("author", True))
    xr = residualize(fe, counts.astype(float))
    if counts.shape[1] == 2 and np.linalg.matrix_rank(xr) == 2:
        yr = residualize(fe, np.log(table["speedup"].to_numpy(dtype=float))[:, None])[:, 0]
        groups_idx = pd.factorize(table["task"])[0]
        res, _ = ols_clustered(yr, xr, groups_idx, fit.cov_type)
        df = int(groups_idx.max())
        tcrit = st.t.ppf(1 - alpha / 2, max(df, 1))
        cov = np.asarray(res.cov_params())
        for label, w, n in (("structural", [1, 0], len(s_ids)), ("micro", [0, 1], len(m_ids)),
                            ("structural - micro", [1, -1], len(s_ids) + len(m_ids))):
            w = np.array(w, dtype=float)
            est = float(w @ np.asarray(res.params))
            se = float(np.sqrt(max(w @ cov @ w, 0.0)))
            p = float(2 * st.t.sf(abs(est / se), max(df, 1))) if se > 0 else float("nan")
            rows.append({"contrast": label, "method": "count model", "estimate_log": est,
                         "ci_low_log": est - tcrit * se, "ci_high_log": est + tcrit * se,
                         "p_value": p, "n_strategies": n,
                         "strategies": ";".join(s_ids if label == "structural" else m_ids
                                                if label == "micro" else [])})
    out = pd.DataFrame(rows)
    for c in CONTRAST_COLUMNS:
        if c not in out.columns:
            out[c] = np.nan
    out["multiplier"] = np.exp(out["estimate_log"])
    out["multiplier_low"] = np.exp(out["ci_low_log"])
    out["multiplier_high"] = np.exp(out["ci_high_log"])
    return out[CONTRAST_COLUMNS]


SIZE_COLUMNS = ["strategy", "size", "effect_log", "ci_low_log", "ci_high_log", "multiplier",
                "p_value", "note"]


def size_effects(data: AnalysisData | pd.DataFrame, fit: EffectsFit | None = None, *,
                 alpha: float = 0.05, **fit_kwargs) -> pd.DataFrame:
    """Effect of each estimable strategy at each input size, and largest minus smallest.

    The effects model with each strategy regressor split into one regressor per size
    (strategy x size interaction); sizes are ordered by median CPU time when ``cpu_ms`` is
    known, else by name (small < medium < large). The row with size
    ``"<largest> - <smallest>"`` tests whether the effect grows with size.

    Returns
    -------
    DataFrame
        Columns :data:`SIZE_COLUMNS`; empty when the data have one size.
    """
    table = as_table(data)
    table = table.reset_index(drop=True)
    fit = fit or fit_effects(table, alpha=alpha, **fit_kwargs)
    sizes = size_rank(table)
    if len(sizes) < 2 or not fit.columns:
        return pd.DataFrame(columns=SIZE_COLUMNS)
    cols, names = [], []
    for name, members in fit.columns.items():
        for s in sizes:
            cols.append(table[members[0]].to_numpy(dtype=float) * (table["size"] == s).to_numpy())
            names.append((name, s))
    x = np.column_stack(cols)
    fe = fe_dummies(table, fit_kwargs.get("author", True))
    xr = residualize(fe, x)
    keep = np.linalg.norm(xr, axis=0) > 1e-8
    if not keep.any():
        return pd.DataFrame(columns=SIZE_COLUMNS)
    yr = residualize(fe, np.log(table["speedup"].to_numpy(dtype=float))[:, None])[:, 0]
    groups = pd.factorize(table["task"])[0]
    res, _ = ols_clustered(yr, xr[:, keep], groups, fit.cov_type)
    kept = [n for n, k in zip(names, keep, strict=True) if k]
    sub = EffectsFit(pd.DataFrame(), pd.Series(np.asarray(res.params), index=kept),
                     pd.DataFrame(np.asarray(res.cov_params()), index=kept, columns=kept),
                     int(groups.max()), {}, [])
    rows = []
    for name in fit.columns:
        for s in sizes:
            if (name, s) in kept:
                e = sub.combination({(name, s): 1.0}, alpha)
                rows.append({"strategy": name, "size": s, "effect_log": e["estimate_log"],
                             "ci_low_log": e["ci_low_log"], "ci_high_log": e["ci_high_log"],
                             "p_value": e["p_value"], "note": ""})
            else:
                rows.append({"strategy": name, "size": s, "note": "no within-task variation "
                             "at this size"})
        lo, hi = sizes[0], sizes[-1]
        if (name, lo) in kept and (name, hi) in kept:
            e = sub.combination({(name, hi): 1.0, (name, lo): -1.0}, alpha)
            rows.append({"strategy": name, "size": f"{hi} - {lo}", "effect_log": e["estimate_log"],
                         "ci_low_log": e["ci_low_log"], "ci_high_log": e["ci_high_log"],
                         "p_value": e["p_value"],
                         "note": "largest over smallest: above 1 (log above 0), "
                         "the effect grows with size"})
    out = pd.DataFrame(rows)
    for c in SIZE_COLUMNS:
        if c not in out.columns:
            out[c] = np.nan
    out["multiplier"] = np.exp(out["effect_log"])
    return out[SIZE_COLUMNS]


ACCELEVAL_COLUMNS = ["strategy", "prevalence", "winner_coverage", "selectivity", "lift",
                     "naive_ratio", "lift_tasks", "acceleval_bundle"]


DOSE_COLUMNS = ["strategy", "kind", "slope_log", "se_log", "ci_low_log", "ci_high_log",
                "multiplier_per_doubling", "p_value", "q_value", "n_users", "n_levels",
                "n_tasks", "low", "high", "estimable", "note"]


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
    from statsmodels.stats.multitest import multipletests

    table = as_table(data).reset_index(drop=True)
    structural = dict(structural) if structural is not None else load_structural_map()
    fit = fit or fit_effects(table, structural=structural, alpha=alpha, **fit_kwargs)
    strategies = strategy_columns(table.columns)
    author = fit_kwargs.get("author", True)
    fe = fe_dummies(table, author)
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
            doses[sid] = (lvl - lvl[users].mean()).fillna(0.0).to_numpy()
        rows.append(row)
    if doses:
        names = list(fit.columns)
        x = np.column_stack([table[fit.columns[n][0]].to_numpy(dtype=float) for n in names]
                            + list(doses.values()))
        xr = residualize(fe, x)
        yr = residualize(fe, np.log(table["speedup"].to_numpy(dtype=float))[:, None])[:, 0]
        res, cov_used = ols_clustered(yr, xr, pd.factorize(table["task"])[0], fit.cov_type)
        regs = names + [f"{sid}{INTENSITY}" for sid in doses]
        with_doses = EffectsFit(pd.DataFrame(), pd.Series(np.asarray(res.params), index=regs),
                                pd.DataFrame(np.asarray(res.cov_params()), index=regs,
                                             columns=regs), fit.df_inference, {}, [], res,
                                cov_used)
        for sid in doses:
            est = with_doses.combination({f"{sid}{INTENSITY}": 1.0}, alpha)
            next(r for r in rows if r["strategy"] == sid).update(
                slope_log=est["estimate_log"], se_log=est["se_log"],
                ci_low_log=est["ci_low_log"], ci_high_log=est["ci_high_log"],
                p_value=est["p_value"], estimable=True,
                note="" if cov_used == fit.cov_type
                else f"{cov_used} covariance: {fit.cov_type} not identified")
    out = pd.DataFrame(rows)
    for c in DOSE_COLUMNS:
        if c not in out.columns:
            out[c] = np.nan
    out["estimable"] = out["estimable"].fillna(False).astype(bool)
    out["multiplier_per_doubling"] = np.exp(out["slope_log"])
    ok = out["p_value"].notna()
    if ok.any():
        out.loc[ok, "q_value"] = multipletests(out.loc[ok, "p_value"], method="fdr_bh")[1]
    return out[DOSE_COLUMNS]


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


