"""Coverage of the effects model's 95% intervals on simulated corpora with planted effects.

    .venv/bin/python analyses/stats-coverage/families.py [--reps N] [--family NAME ...]

For each corpus family (below), fits `fit_effects` to corpora with known effects and reports,
pooled over the planted strategies: how many rows were not estimable, how many kept an estimate
but no interval (too few tasks), the coverage of the intervals given, the smallest standard
error and interval width printed, and the mean absolute error of the estimates. Writes
results.csv and results.md beside this file (SIMULATED data; no GPU measured anything here).
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from strategylens import stats
from strategylens.stats.survivorship import survivorship

HERE = Path(__file__).resolve().parent

# name -> (description, simulate_corpus keyword arguments, default corpora)
FAMILIES = {
    "ordinary-12": ("12 tasks, 6 authors x 2 samples, 3 sizes (simulate_corpus defaults)",
                    {"n_tasks": 12}, 60),
    "ordinary-36": ("36 tasks, otherwise the defaults", {"n_tasks": 36}, 20),
    "small-unbalanced": ("10 tasks, each author attempts 10-100% of them",
                         {"n_tasks": 10, "attempt": (0.1, 1.0)}, 100),
    "small-unbalanced-1": ("10 tasks, 1 sample per author, authors attempt 10-100%",
                           {"n_tasks": 10, "samples": 1, "attempt": (0.1, 1.0)}, 100),
    "few-tasks-6": ("6 tasks, 4 authors x 2 samples", {"n_tasks": 6, "n_authors": 4}, 60),
    "few-tasks-3": ("3 tasks, 4 authors x 2 samples (a one-run public corpus)",
                    {"n_tasks": 3, "n_authors": 4}, 60),
    "bundled": ("12 tasks, MEM-02/PAR-04 apart in 2% of solutions",
                {"n_tasks": 12, "bundle_break": 0.02}, 60),
    "survivorship": ("12 tasks, slow users of MEM-02 fail with probability 0.6",
                     {"n_tasks": 12, "survivorship": {"MEM-02": 0.6}}, 60),
}


def score(family: str, reps: int, seed0: int = 1000, inference: str = "auto") -> tuple[dict, pd.DataFrame]:
    _, kwargs, _ = FAMILIES[family]
    rows = []
    t0 = time.time()
    for rep in range(reps):
        corpus = stats.simulate_corpus(seed=seed0 + rep, **kwargs)
        try:
            fit = stats.fit_effects(corpus.data, structural=corpus.structural,
                                   inference=inference)
        except stats.DataError as exc:
            rows.append({"corpus": rep, "strategy": "", "status": f"refused: {exc}"})
            continue
        table = fit.table.set_index("strategy")
        for sid in kwargs.get("survivorship", {}):
            surv = survivorship(corpus.data, fit, structural=corpus.structural).set_index(
                "strategy")
            if sid in surv.index and surv.loc[sid, "estimable"]:
                lo, hi = surv.loc[sid, ["bound_ci_low_log", "bound_ci_high_log"]]
                rows.append({"corpus": rep, "strategy": f"bounds:{sid}",
                             "true": corpus.effects[sid], "low": lo, "high": hi,
                             "status": "bounds", "covered": bool(lo <= corpus.effects[sid]
                                                                 <= hi) if np.isfinite(lo)
                             else np.nan, "bundle_row": False})
        truth = dict(corpus.effects)
        for b in corpus.bundles:
            truth["+".join(b)] = sum(corpus.effects[m] for m in b)
        for sid, true in truth.items():
            if sid not in table.index:
                continue
            r = table.loc[sid]
            has_ci = bool(r.estimable) and np.isfinite(r.ci_low_log) and np.isfinite(r.ci_high_log)
            status = ("interval" if has_ci else "no interval" if r.estimable else "not estimable")
            rows.append({
                "corpus": rep, "strategy": sid, "true": true, "status": status,
                "estimate": r.effect_log, "se": r.se_log, "low": r.ci_low_log,
                "high": r.ci_high_log, "covered": bool(r.ci_low_log <= true <= r.ci_high_log)
                if has_ci else np.nan, "inference": r.inference, "note": r.note,
                "bundle_row": "+" in sid,
            })
    df = pd.DataFrame(rows)
    single = df[~df["bundle_row"].fillna(False).astype(bool)] if len(df) else df
    single = single[single["status"] != "bounds"] if len(single) else single
    ci = single[single["status"] == "interval"]
    summary = {
        "family": family, "corpora": reps, "rows": len(single),
        "not_estimable": int((single["status"] == "not estimable").sum()),
        "no_interval": int((single["status"] == "no interval").sum()),
        "intervals": len(ci),
        "coverage": float(ci["covered"].mean()) if len(ci) else math.nan,
        "min_se": float(ci["se"].min()) if len(ci) else math.nan,
        "min_width": float((ci["high"] - ci["low"]).min()) if len(ci) else math.nan,
        "mae": float((ci["estimate"] - ci["true"]).abs().mean()) if len(ci) else math.nan,
        "bias": float((ci["estimate"] - ci["true"]).mean()) if len(ci) else math.nan,
        "seconds_per_corpus": (time.time() - t0) / max(reps, 1),
    }
    bundle = df[df["bundle_row"].fillna(False).astype(bool) & (df["status"] == "interval")] \
        if len(df) else df
    summary["bundle_coverage"] = float(bundle["covered"].mean()) if len(bundle) else math.nan
    bounds = df[df["status"] == "bounds"] if len(df) else df
    summary["bounds_coverage"] = float(bounds["covered"].mean()) if len(bounds) else math.nan
    for sid in kwargs.get("survivorship", {}):
        own = ci[ci["strategy"] == sid]
        summary["selected_coverage"] = float(own["covered"].mean()) if len(own) else math.nan
        summary["selected_bias"] = float((own["estimate"] - own["true"]).mean()) if len(own) \
            else math.nan
    return summary, df


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=None, help="corpora per family")
    ap.add_argument("--family", nargs="*", default=list(FAMILIES))
    ap.add_argument("--out", default=str(HERE / "results"))
    ap.add_argument("--inference", default="auto", help="auto, wild, cr3 or cr1")
    args = ap.parse_args()
    summaries, details = [], []
    for fam in args.family:
        s, d = score(fam, args.reps or FAMILIES[fam][2], inference=args.inference)
        summaries.append(s)
        details.append(d.assign(family=fam))
        print(pd.DataFrame([s]).round(4).to_string(index=False), flush=True)
    out = pd.DataFrame(summaries)
    Path(args.out + ".csv").write_text(out.to_csv(index=False))
    pd.concat(details).to_csv(args.out + "-rows.csv.gz", index=False)
    lines = ["| family | what | corpora | rows | not estimable | no interval | intervals | "
             "coverage | min SE | min width | mean abs error | bias | bundle-row coverage | "
             "survivorship: selected strategy's coverage, bias, bounds' coverage |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in summaries:
        lines.append(f"| {r['family']} | {FAMILIES[r['family']][0]} | {r['corpora']} | {r['rows']} "
                     f"| {r['not_estimable']} | {r['no_interval']} | {r['intervals']} | "
                     f"{r['coverage']:.3f} | {r['min_se']:.3g} | {r['min_width']:.3g} | "
                     f"{r['mae']:.3f} | {r['bias']:+.3f} | {r['bundle_coverage']:.3f} | "
                     + (f"{r['selected_coverage']:.3f}, {r['selected_bias']:+.3f}, "
                        f"{r['bounds_coverage']:.3f} |" if "selected_coverage" in r else " |"))
    Path(args.out + ".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
