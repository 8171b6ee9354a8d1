"""`strategylens stats`: strategy effects, contrasts, leaderboard and a simulated corpus."""

from __future__ import annotations

import json
import math
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from strategylens.cli.common import EXIT_USAGE, Format, FormatOption, emit, err, fail, warn

app = typer.Typer(
    help="Relate strategies to same-task speedup.\n\n"
         "Examples:\n\n"
         "  strategylens stats effects --data results.csv\n\n"
         "  strategylens stats effects --store analyses/h200 --labels tags.jsonl -f csv\n\n"
         "  strategylens stats contrasts --data results.csv --kind size\n\n"
         "  strategylens stats leaderboard --data results.csv --p 2 --k 5\n\n"
         "  strategylens stats ablations --store DIR --labels tags.jsonl --ladders labels.yaml\n\n"
         "  strategylens stats simulate --out sim.csv --seed 1",
    no_args_is_help=True,
)

DataOption = typer.Option(None, "--data", help="Analysis CSV: task, solution, size, speedup, "
                          "correct, author, one 0/1 column per strategy ID.")
StoreOption = typer.Option(None, "--store", help="Results store directory (with --labels).")
LabelsOption = typer.Option(None, "--labels", help="Tagger output: JSONL from `strategylens tag "
                            "--format jsonl`, or Parquet with one row per label.")


class Inference(str, Enum):
    auto = "auto"
    wild = "wild"
    cr3 = "cr3"
    cr1 = "cr1"


InferenceOption = typer.Option(
    Inference.auto, "--inference",
    help="auto (wild cluster bootstrap below 20 tasks, CV3 leave-one-task-out refits below "
         "100, CR1 above), or one of wild, cr3, cr1 for every row.")


def load(data: Optional[Path], store: Optional[Path], labels: Optional[Path]):
    """Load the analysis table for a command; print input problems; exit 2 on bad input."""
    from strategylens.stats import DataError, load_analysis

    try:
        analysis = load_analysis(data, store, labels)
    except DataError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    for problem in analysis.problems:
        warn(problem)
    if not analysis.strategies:
        warn(f"{analysis.source}: no strategy columns (IDs such as MEM-02): nothing to estimate")
    if analysis.table.empty:
        raise fail(f"{analysis.source}: no correct solution with a positive speedup", EXIT_USAGE)
    err.print(f"{analysis.source}: {len(analysis.table)} passing rows, {len(analysis.failures)} "
              f"failed, {len(analysis.excluded)} excluded by audit flags; "
              f"{len(analysis.strategies)} strategy columns", highlight=False)
    return analysis


def records(frame) -> list[dict]:
    """DataFrame rows as dicts with NaN turned into None and numpy scalars into Python ones."""
    out = []
    for row in frame.to_dict("records"):
        clean = {}
        for k, v in row.items():
            if hasattr(v, "item"):
                v = v.item()
            if isinstance(v, float) and math.isnan(v):
                v = None
            clean[str(k)] = v
        out.append(clean)
    return out


def rounded(rows: list[dict], digits: int = 3) -> list[dict]:
    """Round floats for the human view only; p- and q-values below 0.001 read ``<0.001``
    (never a bare 0.0)."""
    def one(key: str, v):
        if not isinstance(v, float):
            return v
        if key in ("p_value", "q_value", "p", "q") and v < 10 ** -digits:
            return f"<{10 ** -digits:.{digits}f}"
        return round(v, digits)

    return [{k: one(k, v) for k, v in r.items()} for r in rows]


def show(frame, fmt: Format, columns: list[str], title: str) -> None:
    """Emit a table; the human view joins CI bounds into one ``95% CI`` column."""
    rows = records(frame)
    if fmt == Format.human:
        for lo, hi, log in (("multiplier_low", "multiplier_high", False),
                            ("ci_low_log", "ci_high_log", True)):
            if lo in columns and hi in columns:
                at = columns.index(lo)
                columns = [c for c in columns if c not in (lo, hi)]
                columns.insert(at, "95% CI")
                for r in rows:
                    a, b = r.get(lo), r.get(hi)
                    if a is not None and b is not None:
                        a, b = (math.exp(a), math.exp(b)) if log else (a, b)
                        r["95% CI"] = f"{a:.2f}-{b:.2f}"
    emit(rounded(rows) if fmt == Format.human else rows, fmt,
         columns if fmt in (Format.human, Format.csv) else None, title=title)


_EFFECT_VIEW = ["strategy", "kind", "multiplier", "multiplier_low", "multiplier_high", "q_value",
                "inference", "n_clusters", "eff_clusters", "max_leverage", "bundle", "note"]


@app.command()
def effects(
    data: Optional[Path] = DataOption, store: Optional[Path] = StoreOption,
    labels: Optional[Path] = LabelsOption,
    bundle_threshold: float = typer.Option(0.9, help="Jaccard at or above which strategies "
                                           "form a bundle."),
    min_with: int = typer.Option(3, help="Fewest solutions using a strategy to estimate it."),
    min_tasks: int = typer.Option(2, help="Fewest tasks in which a strategy must vary."),
    bootstrap: int = typer.Option(200, help="Task-resampling bootstrap replicates, a check "
                                  "beside the main interval (0: none)."),
    seed: int = typer.Option(0, help="Seed of the wild and the task-resampling bootstrap."),
    alpha: float = typer.Option(0.05, help="1 - confidence level."),
    inference: Inference = InferenceOption,
    fmt: Format = FormatOption,
) -> None:
    """Effect of each strategy on log speedup within task, size and author.

    Human and CSV views show the main columns; json/jsonl carry every column (effect_log,
    ci_low_log, ci_high_log, p_value, n_clusters, boot_low_log, boot_share, ...). A row that
    the data do not identify says "not estimable: <reason>"; one whose tasks cannot support an
    interval keeps its estimate and says why it has none.

    Example: strategylens stats effects --data results.csv -f csv
    """
    from strategylens.stats import fit_effects

    analysis = load(data, store, labels)
    fit = fit_effects(analysis, bundle_threshold=bundle_threshold, min_with=min_with,
                      min_tasks=min_tasks, bootstrap=bootstrap, seed=seed, alpha=alpha,
                      inference=inference.value)
    view = _EFFECT_VIEW if fmt == Format.human else list(fit.table.columns)
    show(fit.table, fmt, view, "Strategy effects (multiplier on same-task speedup)")


class Contrast(str, Enum):
    structural = "structural"
    size = "size"
    dose = "dose"
    survivorship = "survivorship"
    acceleval = "acceleval"


@app.command()
def contrasts(
    data: Optional[Path] = DataOption, store: Optional[Path] = StoreOption,
    labels: Optional[Path] = LabelsOption,
    kind: Contrast = typer.Option(Contrast.structural, "--kind",
                                  help="structural (vs micro), size (effect by input size), "
                                       "dose (speedup per doubling of a strategy's intensity, "
                                       "e.g. outputs per thread), survivorship (pass "
                                       "probability and selection bounds per strategy), or "
                                       "acceleval (LIFT, selectivity, bundles beside ours)."),
    bundle_threshold: float = typer.Option(0.9, help="Our bundle threshold (Jaccard)."),
    acceleval_threshold: float = typer.Option(0.6, help="AccelEval's bundle threshold."),
    alpha: float = typer.Option(0.05, help="1 - confidence level."),
    inference: Inference = InferenceOption,
    fmt: Format = FormatOption,
) -> None:
    """Structural vs micro, effects by size, intensity (dose), survivorship, or AccelEval's
    measures.

    Examples: strategylens stats contrasts --data results.csv --kind acceleval

      strategylens stats contrasts --data results.csv --kind dose
    """
    from strategylens import stats

    analysis = load(data, store, labels)
    opts = {"inference": inference.value}
    fit = stats.fit_effects(analysis, bundle_threshold=bundle_threshold, alpha=alpha, **opts)
    if kind == Contrast.structural:
        table = stats.structural_contrast(analysis, fit, alpha=alpha, **opts)
        show(table, fmt, ["contrast", "method", "multiplier", "multiplier_low",
                          "multiplier_high", "p_value", "n_strategies", "note"],
             "Structural vs micro strategies")
    elif kind == Contrast.size:
        table = stats.size_effects(analysis, fit, alpha=alpha, **opts)
        if table.empty:
            warn(f"{analysis.source}: only one size; no effect by size")
        elif table["note"].astype(str).str.startswith("refused").all():
            warn(f"{analysis.source}: {table['note'].iloc[0]}")
        show(table, fmt, ["strategy", "size", "multiplier", "ci_low_log", "ci_high_log",
                          "q_value", "note"], "Strategy effect by input size (ranked within "
             "each task)")
    elif kind == Contrast.dose:
        table = stats.dose_response(analysis, fit, alpha=alpha, **opts)
        if table.empty:
            warn(f"{analysis.source}: no <ID>:intensity columns; nothing to relate")
        show(table, fmt, ["strategy", "kind", "multiplier_per_doubling", "ci_low_log",
                          "ci_high_log", "q_value", "n_users", "low", "high", "note"],
             "Speedup per doubling of a strategy's intensity, among its users")
    elif kind == Contrast.survivorship:
        from strategylens.stats.survivorship import NO_FAILURES, survivorship

        table = survivorship(analysis, fit, alpha=alpha)
        if table.empty:
            warn(f"{analysis.source}: {NO_FAILURES}")
        show(table, fmt, ["strategy", "kind", "pass_rate_with", "pass_rate_without",
                          "pass_effect", "pass_low", "pass_high", "trim_share", "effect_log",
                          "bound_ci_low_log", "bound_ci_high_log", "note"],
             "Survivorship: pass probability and selection bounds (log speedup)")
    else:
        table = stats.compare_methods(
            fit.table, stats.acceleval_measures(analysis, bundle_threshold=acceleval_threshold))
        show(table, fmt, ["strategy", "multiplier", "multiplier_low", "multiplier_high", "lift",
                          "naive_ratio", "winner_coverage", "selectivity", "bundle",
                          "acceleval_bundle", "agreement"],
             "Ours (controlled) beside AccelEval's measures (uncontrolled)")


@app.command()
def leaderboard(
    data: Optional[Path] = DataOption, store: Optional[Path] = StoreOption,
    labels: Optional[Path] = LabelsOption,
    p: float = typer.Option(1.0, "--p", help="fast_p threshold: speedup above p counts."),
    k: int = typer.Option(1, "--k", help="k of pass@k."),
    best: Optional[Path] = typer.Option(None, help="CSV task,size,best: fixed per-task best "
                                        "speedup for PAR-GM (default: best in the data)."),
    fmt: Format = FormatOption,
) -> None:
    """Pass count, geometric-mean speedup, PAR-GM, fast_p and pass@k per author and size.

    pass@k is averaged over the tasks on which every author has at least k samples (the count
    is pass_at_k_tasks); in PAR-GM a failure scores the CPU reference (speedup 1) but never
    more than the slowest correct solution of its task and size.

    Example: strategylens stats leaderboard --data results.csv --p 2 --k 5
    """
    import pandas as pd

    from strategylens.stats import leaderboard as board

    analysis = load(data, store, labels)
    best_map = None
    if best is not None:
        try:
            frame = pd.read_csv(best, dtype={"task": str, "size": str})
            best_map = {(r.task, r.size): float(r.best) for r in frame.itertuples()}
        except (OSError, ValueError, AttributeError, pd.errors.ParserError) as exc:
            raise fail(f"{best}: need a CSV with columns task,size,best ({exc})") from None
    table = board(analysis, p=p, k=k, best=best_map)
    if len(analysis.failures) == 0 and len(analysis.excluded) == 0:
        warn(f"{analysis.source}: no failed attempts in the data, so pass_rate, fast_p and "
             "pass@k say nothing (every row passed)")
    show(table, fmt, list(table.columns), "Leaderboard")


LaddersOption = typer.Option(None, "--ladders", help="labels.yaml file(s) declaring ablation "
                             "variants: ablation: {family, base, changes: ID} (repeatable).")


def load_ladders(paths: Optional[list[Path]]):
    """The ablation ladders of --ladders, or exit 2 naming the file."""
    import pandas as pd

    from strategylens.stats import DataError
    from strategylens.stats.ablations import LADDER_COLUMNS, read_ladders

    if not paths:
        return pd.DataFrame(columns=LADDER_COLUMNS)
    try:
        return read_ladders(paths)
    except DataError as exc:
        raise fail(str(exc), EXIT_USAGE) from None


@app.command()
def ablations(
    data: Optional[Path] = DataOption, store: Optional[Path] = StoreOption,
    labels: Optional[Path] = LabelsOption,
    ladders: Optional[list[Path]] = LaddersOption,
    steps: bool = typer.Option(False, "--steps", help="Show every ladder step and size "
                               "instead of the per-strategy summary."),
    alpha: float = typer.Option(0.05, help="1 - confidence level."),
    inference: Inference = InferenceOption,
    fmt: Format = FormatOption,
) -> None:
    """Per strategy: the ablation ladders' measured effect beside the effects model's estimate.

    Each ladder step is a variant that changes one strategy of its family's base solution; its
    effect is the log time ratio, with an interval from the raw timed trials when --store is
    given. The effects model is fitted on independent solutions only: the variants are left
    out, each family keeps its base.

    Example: strategylens stats ablations --store analyses/h200 --labels tags.jsonl
    --ladders tasks/heat2d/labels.yaml
    """
    from strategylens import stats
    from strategylens.stats.ablations import ablation_summary, independent, step_effects

    ladder = load_ladders(ladders)
    if ladder.empty:
        raise fail("no ablation entries: give --ladders labels.yaml with entries "
                   "`ablation: {family, base, changes: ID}`", EXIT_USAGE)
    analysis = load(data, store, labels)
    trials = None
    if store is not None:
        from strategylens.store import read_trials

        trials = read_trials(store)
    step = step_effects(analysis.table, ladder, trials, alpha=alpha)
    if trials is None:
        warn("no --store: ladder steps come from the speedups, without trial intervals")
    if steps:
        show(step, fmt, ["family", "task", "variant", "strategy", "size", "effect_log",
                         "ci_low_log", "ci_high_log", "note"], "Ablation ladder steps")
        return
    base = independent(analysis, ladder)
    warn(base.problems[-1])
    fit = stats.fit_effects(base, alpha=alpha, inference=inference.value)
    show(ablation_summary(step, fit, alpha=alpha), fmt,
         ["strategy", "kind", "ladder_effect_log", "ladder_low_log", "ladder_high_log",
          "n_steps", "model_effect_log", "model_low_log", "model_high_log", "agreement",
          "note"], "Ablation ladders beside the effects model (log speedup)")


@app.command()
def simulate(
    out: Path = typer.Option(..., "--out", help="CSV to write (the --data format)."),
    tasks: int = typer.Option(24, help="Number of tasks."),
    authors: int = typer.Option(6, help="Number of authors (models)."),
    samples: int = typer.Option(2, help="Solutions per author and task."),
    size_growth: float = typer.Option(0.0, help="Relative growth of effects per size step."),
    dose: Optional[list[str]] = typer.Option(None, "--dose", metavar="ID=SLOPE",
                                             help="Give ID an intensity column whose doubling "
                                                  "adds SLOPE to log speedup (repeatable)."),
    seed: int = typer.Option(0, help="Random seed."),
    fmt: Format = FormatOption,
) -> None:
    """Write a simulated corpus with planted, confounded effects; print the planted truth.

    Example: strategylens stats simulate --out sim.csv --seed 1

    then: strategylens stats effects --data sim.csv
    """
    from strategylens.stats import simulate_corpus

    doses = {}
    for item in dose or []:
        sid, _, value = item.partition("=")
        try:
            doses[sid.strip()] = float(value)
        except ValueError:
            raise fail(f"--dose {item!r}: expected ID=SLOPE, e.g. PAR-02=0.15", EXIT_USAGE) from None
    from strategylens.cli.common import check_output, writing

    check_output(out)
    corpus = simulate_corpus(n_tasks=tasks, n_authors=authors, samples=samples, seed=seed,
                             size_growth=size_growth, doses=doses or None)
    truth_path = out.with_suffix(".truth.json")
    with writing(out):
        corpus.frame.to_csv(out, index=False)
        truth_path.write_text(json.dumps({"effects_log": corpus.effects, "structural":
                                          corpus.structural, "bundles": corpus.bundles,
                                          "author_skill_log": corpus.skill, "seed": seed,
                                          "dose_log_per_doubling": doses},
                                         indent=2) + "\n")
    err.print(f"wrote {out} and {truth_path}", highlight=False)
    bundle_of = {s: "+".join(b) for b in corpus.bundles for s in b}
    rows = [{"strategy": s, "effect_log": e, "multiplier": math.exp(e),
             "structural": corpus.structural[s], "bundle": bundle_of.get(s, "")}
            for s, e in corpus.effects.items()]
    emit(rounded(rows) if fmt == Format.human else rows, fmt, title="Planted effects")


@app.command()
def table(
    data: Optional[Path] = DataOption, store: Optional[Path] = StoreOption,
    labels: Optional[Path] = LabelsOption, fmt: Format = FormatOption,
) -> None:
    """The tidy analysis table (one row per task, solution, size) with each row's status.

    Example: strategylens stats table --store analyses/h200 --labels tags.jsonl -f csv > table.csv
    """
    analysis = load(data, store, labels)
    frame = analysis.all_rows
    frame["status"] = "passed"
    frame.loc[~frame["passed"], "status"] = "failed"
    frame.loc[frame["cheating_flags"].fillna("") != "", "status"] = "excluded"
    frame = frame.drop(columns=["passed"])
    cols = ["task", "solution", "size", "author", "speedup", "status", "cheating_flags",
            *analysis.strategies]
    show(frame, fmt, [c for c in cols if c in frame.columns] if fmt == Format.human
         else list(frame.columns), "Analysis table")
