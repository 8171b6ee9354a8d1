"""Ablation ladders: families of variants of one solution in which one strategy changes at a time.

A task's ``labels.yaml`` declares a variant as ``ablation: {family, base, changes: ID}``: the
solution is the family's ``base`` solution with strategy ``ID`` changed (added or removed; the
tagger's labels say which). A ladder measures the effect of ID directly: same task, same size,
same author, everything else held by construction, so the step's effect is the log ratio of the
two solutions' times, with an interval from their raw timed trials (Welch, on log times).

The effects model must not see the variants: they are not independent solutions (one author,
one code base, one strategy apart), and a ladder of ten rungs would weigh ten times. Only each
family's base (the solution no entry names as a variant) stays: :func:`independent` drops the
rest, and ``stats ablations`` fits the effects model on what is left and shows both estimates
side by side.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from strategylens.stats.data import AnalysisData, DataError, id_key, kind_of, load_structural_map
from strategylens.stats.effects import EffectsFit

LADDER_COLUMNS = ["task", "solution", "family", "base", "changes"]
STEP_COLUMNS = ["family", "task", "variant", "base", "strategy", "direction", "size",
                "effect_log", "ci_low_log", "ci_high_log", "n_variant", "n_base", "note"]
ABLATION_COLUMNS = ["strategy", "kind", "ladder_effect_log", "ladder_low_log",
                    "ladder_high_log", "n_steps", "n_families", "model_effect_log",
                    "model_low_log", "model_high_log", "model_inference", "agreement", "note"]


def read_ladders(paths: Iterable[str | Path]) -> pd.DataFrame:
    """Ablation declarations from labels.yaml files (file name -> entry with ``task`` and
    ``ablation: {family, base, changes}``); entries without ``ablation``, and a family's root
    (``base: null, changes: null``), are not steps and are skipped.

    Raises
    ------
    DataError
        Naming the file and the entry, when an ``ablation`` lacks a field or is not a mapping.
    """
    import yaml

    rows = []
    for path in paths:
        path = Path(path)
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except FileNotFoundError:
            raise DataError(f"{path}: no such file") from None
        except yaml.YAMLError as exc:
            raise DataError(f"{path}: not valid YAML ({exc})") from None
        if not isinstance(doc, dict):
            raise DataError(f"{path}: expected a mapping of solution file -> labels")
        for name, entry in doc.items():
            if not isinstance(entry, dict) or "ablation" not in entry:
                continue
            abl = entry["ablation"]
            if isinstance(abl, dict) and abl.get("family") and abl.get("base") is None \
                    and abl.get("changes") is None:
                continue  # a family's root (base: null): an independent solution, no step
            missing = [k for k in ("family", "base", "changes") if not isinstance(abl, dict)
                       or not abl.get(k)]
            if missing:
                raise DataError(f"{path}: {name}: ablation needs {', '.join(missing)} "
                                "(ablation: {family: F, base: BASE.cu, changes: ID})")
            rows.append({"task": str(entry.get("task", "")), "solution": str(name),
                         "family": str(abl["family"]), "base": str(abl["base"]),
                         "changes": str(abl["changes"]).upper()})
    return pd.DataFrame(rows, columns=LADDER_COLUMNS)


def _match(names: pd.Series, key: str) -> pd.Series:
    """Solutions equal to `key` or ending with it on a path boundary."""
    s = names.astype(str).str.replace("\\", "/", regex=False)
    return (s == key) | s.str.endswith("/" + key.lstrip("./"))


def _resolve(table: pd.DataFrame, ladders: pd.DataFrame) -> pd.DataFrame:
    """The ladder with ``variant_id``/``base_id``: the table's solution names they match."""
    out = []
    sols = table[["task", "solution"]].drop_duplicates()
    for r in ladders.itertuples(index=False):
        pool = sols if not r.task else sols[sols["task"] == r.task]
        v = pool[_match(pool["solution"], r.solution)]["solution"].unique()
        b = pool[_match(pool["solution"], r.base)]["solution"].unique()
        out.append({**r._asdict(), "variant_id": v[0] if len(v) == 1 else None,
                    "base_id": b[0] if len(b) == 1 else None,
                    "task": r.task or (pool.loc[_match(pool["solution"], r.solution),
                                                "task"].iloc[0] if len(v) == 1 else "")})
    return pd.DataFrame(out)


def independent(data: AnalysisData, ladders: pd.DataFrame) -> AnalysisData:
    """`data` without the ablation variants: each family keeps only its base solution."""
    if ladders.empty:
        return data
    resolved = _resolve(pd.concat([data.table, data.failures, data.excluded]), ladders)
    drop = set(zip(resolved["task"], resolved["variant_id"], strict=True))
    keep = lambda f: f[[(t, s) not in drop for t, s in zip(f["task"], f["solution"],  # noqa: E731
                                                              strict=True)]]
    out = AnalysisData(keep(data.table).reset_index(drop=True), keep(data.failures),
                       keep(data.excluded), data.strategies, data.source, list(data.problems))
    n = len(drop & set(zip(data.table["task"], data.table["solution"], strict=True)))
    out.problems.append(f"{data.source}: {n} ablation variant(s) left out of the effects model "
                        "(each family keeps its base)")
    return out


def step_effects(table: pd.DataFrame, ladders: pd.DataFrame, trials: pd.DataFrame | None = None,
                 *, alpha: float = 0.05, time_column: str = "inside_ms") -> pd.DataFrame:
    """One row per ladder step and size: the effect of adding the changed strategy.

    ``effect_log`` is log(time of the solution without the strategy / time with it), so it is
    on the scale of the effects model's log speedup. With raw trials (the store's timed
    calls), the interval is Welch's on log trial times; without, the effect comes from the
    table's speedups and has no interval.
    """
    from scipy import stats as st

    resolved = _resolve(table, ladders)
    rows = []
    timed = None
    if trials is not None and len(trials):
        timed = trials[trials.get("phase", "timed") == "timed"] if "phase" in trials else trials
    for r in resolved.itertuples(index=False):
        base = {"family": r.family, "task": r.task, "variant": r.solution, "base": r.base,
                "strategy": r.changes}
        if r.variant_id is None or r.base_id is None:
            rows.append({**base, "note": "variant or base not among the passing solutions"})
            continue
        var = table[(table["task"] == r.task) & (table["solution"] == r.variant_id)]
        bas = table[(table["task"] == r.task) & (table["solution"] == r.base_id)]
        direction = 0
        if r.changes in table.columns:
            uses_v, uses_b = int(var[r.changes].max()), int(bas[r.changes].max())
            direction = uses_v - uses_b
        note = "" if direction else (f"the labels do not show {r.changes} changing; read as "
                                     "added")
        sign = direction or 1
        for size in sorted(set(var["size"]) & set(bas["size"])):
            sv = float(var.loc[var["size"] == size, "speedup"].iloc[0])
            sb = float(bas.loc[bas["size"] == size, "speedup"].iloc[0])
            row = {**base, "direction": sign, "size": size,
                   "effect_log": sign * (math.log(sv) - math.log(sb)), "note": note}
            if timed is not None:
                tv = timed[(timed["task"] == r.task) & (timed["solution"] == r.variant_id)
                           & (timed["size"] == size)][time_column].astype(float)
                tb = timed[(timed["task"] == r.task) & (timed["solution"] == r.base_id)
                           & (timed["size"] == size)][time_column].astype(float)
                tv, tb = np.log(tv[tv > 0]), np.log(tb[tb > 0])
                row.update(n_variant=len(tv), n_base=len(tb))
                if len(tv) >= 2 and len(tb) >= 2:
                    va, vb = tv.var(ddof=1) / len(tv), tb.var(ddof=1) / len(tb)
                    est = sign * (tb.mean() - tv.mean())
                    se = math.sqrt(va + vb)
                    df = (va + vb) ** 2 / (va ** 2 / (len(tv) - 1) + vb ** 2 / (len(tb) - 1)) \
                        if se > 0 else 1
                    tcrit = st.t.ppf(1 - alpha / 2, df)
                    row.update(effect_log=est, ci_low_log=est - tcrit * se,
                               ci_high_log=est + tcrit * se)
                else:
                    row["note"] = "; ".join(filter(None, [note, "fewer than 2 timed trials"]))
            rows.append(row)
    out = pd.DataFrame(rows)
    for c in STEP_COLUMNS:
        if c not in out.columns:
            out[c] = np.nan
    return out[STEP_COLUMNS]


def ablation_summary(steps: pd.DataFrame, fit: EffectsFit, *, alpha: float = 0.05,
                     structural: Mapping[str, bool] | None = None) -> pd.DataFrame:
    """Per strategy: the ladders' measured effect beside the effects model's estimate.

    A step's effect is averaged over its sizes; with several steps the ladder effect is their
    mean with a t interval from their spread, with one step its trial interval (the widest of
    its sizes, since sizes of one pair of solutions are not independent).
    """
    from scipy import stats as st

    structural = dict(structural) if structural is not None else load_structural_map()
    table = fit.table.set_index("strategy")
    rows = []
    ok = steps.dropna(subset=["effect_log"])
    for sid in sorted(ok["strategy"].unique(), key=id_key):
        own = ok[ok["strategy"] == sid]
        per_step = own.groupby(["family", "variant"])["effect_log"].mean()
        row = {"strategy": sid, "kind": kind_of(structural, sid),
               "ladder_effect_log": float(per_step.mean()), "n_steps": int(len(per_step)),
               "n_families": int(own["family"].nunique()), "note": ""}
        if len(per_step) >= 2:
            half = st.t.ppf(1 - alpha / 2, len(per_step) - 1) * per_step.std(ddof=1) / \
                math.sqrt(len(per_step))
            row.update(ladder_low_log=row["ladder_effect_log"] - half,
                       ladder_high_log=row["ladder_effect_log"] + half)
        elif own["ci_low_log"].notna().all():
            half = float(((own["ci_high_log"] - own["ci_low_log"]) / 2).max())
            row.update(ladder_low_log=row["ladder_effect_log"] - half,
                       ladder_high_log=row["ladder_effect_log"] + half)
        else:
            row["note"] = "no raw trials: the ladder effect has no interval"
        if sid in table.index and table.loc[sid, "estimable"]:
            m = table.loc[sid]
            row.update(model_effect_log=m.effect_log, model_low_log=m.ci_low_log,
                       model_high_log=m.ci_high_log, model_inference=m.inference)
            if np.isfinite(m.ci_low_log) and "ladder_low_log" in row:
                overlap = (row["ladder_low_log"] <= m.ci_high_log
                           and m.ci_low_log <= row["ladder_high_log"])
                row["agreement"] = "intervals overlap" if overlap else "intervals disjoint"
            else:
                row["agreement"] = "no interval to compare"
        else:
            why = table.loc[sid, "note"] if sid in table.index else "not in the data"
            row["agreement"] = f"model: {why}" if why else "model: not estimable"
        rows.append(row)
    out = pd.DataFrame(rows)
    for c in ABLATION_COLUMNS:
        if c not in out.columns:
            out[c] = np.nan
    return out[ABLATION_COLUMNS]
