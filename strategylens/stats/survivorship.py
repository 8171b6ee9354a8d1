"""Survivorship: are the effects, fitted on passing rows only, distorted by who fails?

If the slow users of a strategy are also the ones whose solutions fail, its passing users are
its fast ones and its effect among survivors is biased upward. Two checks per strategy of the
effects model, both only possible when the data hold failed attempts:

- **pass probability**: a linear probability model of passing (every attempted row: passed,
  failed, or excluded for a cheating flag) on the same strategy indicators with the same task x
  size and author fixed effects and the same task-clustered inference as the effects.
- **bounds** in the style of Lee (2009): if the strategy changes the pass rate by d, the group
  that passes more often holds a share |d| / p of survivors that the other group lost. Trimming
  that share of its solutions from the top and from the bottom of their adjusted log speedup
  (the effects model's residual plus the strategy's own term) gives the lowest and highest
  effect that such selection could have produced; ``bound_ci_low_log``/``bound_ci_high_log``
  widen them by the effect's interval half-width (Imbens & Manski 2004 style).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from strategylens.stats.backend import build_design, fit_model, single_threaded
from strategylens.stats.data import AnalysisData, kind_of, load_structural_map
from strategylens.stats.effects import EffectsFit

SURVIVORSHIP_COLUMNS = [
    "strategy", "kind", "n_attempts", "pass_rate_with", "pass_rate_without", "pass_effect",
    "pass_low", "pass_high", "pass_p", "trim_share", "effect_log", "bound_low_log",
    "bound_high_log", "bound_ci_low_log", "bound_ci_high_log", "estimable", "note",
]
MAX_TRIM = 0.5
NO_FAILURES = ("the data hold no failed attempts: the pass metrics and the survivorship check "
               "are not available")


@single_threaded
def survivorship(data: AnalysisData, fit: EffectsFit, *, alpha: float = 0.05,
                 structural: Mapping[str, bool] | None = None, author: bool = True,
                 seed: int = 0) -> pd.DataFrame:
    """Pass-probability check and selection bounds for every strategy in the effects model.

    Returns
    -------
    DataFrame
        Columns :data:`SURVIVORSHIP_COLUMNS`, one row per regressor of `fit`; empty when the
        data hold no failed attempts (:data:`NO_FAILURES` says so).

    Examples
    --------
    >>> from strategylens.stats import fit_effects, simulate_corpus
    >>> c = simulate_corpus(n_tasks=12, seed=0, survivorship={"MEM-02": 0.6})
    >>> s = survivorship(c.data, fit_effects(c.data), structural=c.structural)
    >>> row = s.set_index("strategy").loc["MEM-02"]
    >>> bool(row.pass_effect < -0.3), float(row.trim_share)
    (True, 0.5)
    >>> bool(row.bound_ci_low_log <= 0.45 <= row.bound_ci_high_log)
    True
    """
    structural = dict(structural) if structural is not None else load_structural_map()
    if fit.model is None or (len(data.failures) == 0 and len(data.excluded) == 0):
        return pd.DataFrame(columns=SURVIVORSHIP_COLUMNS)
    rows_all = data.all_rows.reset_index(drop=True)
    names = list(fit.columns)
    regs = {n: rows_all[fit.columns[n][0]].to_numpy(dtype=float) for n in names}
    passed = rows_all["passed"].to_numpy(dtype=float)
    design = build_design(rows_all.assign(speedup=1.0), regs, author, y=passed)
    lpm = fit_model(design, inference=fit.inference or "auto", seed=seed)
    model = fit.model
    partial_base = model.resid
    table = data.table.reset_index(drop=True)
    sol_code = model.design.solution
    out = []
    for name in names:
        members = fit.columns[name]
        sid = members[0]
        has = rows_all[sid] == 1
        row = {"strategy": name, "kind": kind_of(structural, sid) if len(members) == 1
               else "bundle", "n_attempts": len(rows_all),
               "pass_rate_with": float(rows_all.loc[has, "passed"].mean()) if has.any()
               else np.nan,
               "pass_rate_without": float(rows_all.loc[~has, "passed"].mean()) if (~has).any()
               else np.nan, "estimable": False}
        p = lpm.contrast({name: 1.0}, alpha)
        row.update(pass_effect=p["estimate_log"], pass_low=p["ci_low_log"],
                   pass_high=p["ci_high_log"], pass_p=p["p_value"])
        eff = fit.combination({name: 1.0}, alpha)
        row["effect_log"] = eff.get("estimate_log")
        if not p["estimable"] or not eff.get("estimable"):
            row["note"] = ("pass model: " + p["note"]) if not p["estimable"] else \
                "the effect itself is not estimable"
            out.append(row)
            continue
        d = float(p["estimate_log"])
        users_pass_more = d > 0
        high = row["pass_rate_with"] if users_pass_more else row["pass_rate_without"]
        theta = min(abs(d) / high, MAX_TRIM) if high and high > 0 else 0.0
        beta = float(model.params[name])
        partial = partial_base + beta * model.design.x[:, model.design.names.index(name)]
        per_sol = pd.DataFrame({"sol": sol_code, "y": partial,
                                "x": table[sid].to_numpy()}).groupby("sol").mean()
        group = per_sol[per_sol["x"] == (1 if users_pass_more else 0)]["y"].sort_values()
        k = int(round(theta * len(group)))
        base = group.mean()
        if k and len(group) - k >= 2:
            drop_top, drop_bottom = group.iloc[:-k].mean() - base, group.iloc[k:].mean() - base
        else:
            drop_top = drop_bottom = 0.0
        # trimming the group that passes more: users -> shifts the effect by the users' change,
        # non-users -> by minus theirs
        shifts = (drop_top, drop_bottom) if users_pass_more else (-drop_bottom, -drop_top)
        lo, hi = beta + min(shifts), beta + max(shifts)
        half = (eff["ci_high_log"] - eff["ci_low_log"]) / 2 if np.isfinite(
            eff.get("ci_high_log", np.nan)) else np.nan
        row.update(trim_share=theta, bound_low_log=lo, bound_high_log=hi,
                   bound_ci_low_log=lo - half, bound_ci_high_log=hi + half, estimable=True)
        if not np.isfinite(p["ci_low_log"]):
            row["note"] = "pass model: " + (p["note"] or "no interval")
        elif p["ci_low_log"] > 0 or p["ci_high_log"] < 0:
            who = "its users" if d < 0 else "solutions without it"
            row["note"] = (f"pass rate differs: {who} fail {abs(d):.0%} more often; the effect "
                           "among survivors may be biased, read the bounds")
        else:
            row["note"] = "pass rate does not differ detectably"
        out.append(row)
    frame = pd.DataFrame(out)
    for c in SURVIVORSHIP_COLUMNS:
        if c not in frame.columns:
            frame[c] = np.nan
    frame["estimable"] = frame["estimable"].fillna(False).astype(bool)
    return frame[SURVIVORSHIP_COLUMNS]
