"""The regression report: HTML (jinja2) and a Markdown twin, with matplotlib figures.

Every number shown comes from the tables of :mod:`strategylens.stats` that ``strategylens
stats`` prints; the report also writes those tables as CSV under ``tables/`` beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, UTC
from pathlib import Path
from collections.abc import Mapping

import numpy as np
import pandas as pd

from strategylens import stats

_KIND_COLOR = {"S": "#1f77b4", "m": "#ff7f0e", "bundle": "#2ca02c", "": "#7f7f7f"}


@dataclass
class ReportTables:
    """Every table the report shows, computed once.

    Attributes are DataFrames from :mod:`strategylens.stats` (``effects``: fit_effects,
    ``structural``: structural_contrast, ``sizes``: size_effects, ``doses``: dose_response,
    ``survivorship``: survivorship.survivorship, ``time``: time_breakdown, ``compare``:
    compare_methods, ``leaderboard``, ``jaccard``, ``task_matrix``, ``excluded``,
    ``failures``), plus ``fit`` and the summary counts.
    """

    effects: pd.DataFrame
    structural: pd.DataFrame
    sizes: pd.DataFrame
    doses: pd.DataFrame
    survivorship: pd.DataFrame
    ablations: pd.DataFrame
    time: pd.DataFrame
    compare: pd.DataFrame
    leaderboard: pd.DataFrame
    jaccard: pd.DataFrame
    task_matrix: pd.DataFrame
    excluded: pd.DataFrame
    failures: pd.DataFrame
    fit: stats.EffectsFit
    summary: dict = field(default_factory=dict)


def compute_tables(data: stats.AnalysisData, *, structural: Mapping[str, bool] | None = None,
                   bootstrap: int = 200, seed: int = 0, p: float = 1.0, k: int = 1,
                   bundle_threshold: float = 0.9, acceleval_threshold: float = 0.6,
                   alpha: float = 0.05, inference: str = "auto",
                   ladders: pd.DataFrame | None = None,
                   trials: pd.DataFrame | None = None) -> ReportTables:
    """Run every analysis the report needs, with the same functions the CLI uses.

    With `ladders` (:func:`strategylens.stats.ablations.read_ladders`), the ablation variants
    are left out of every model (each family keeps its base) and the ladders' own effects are
    shown beside the model's.
    """
    from strategylens.stats import backend
    from strategylens.stats.ablations import (ABLATION_COLUMNS, ablation_summary, independent,
                                              step_effects)
    from strategylens.stats.survivorship import NO_FAILURES, survivorship

    steps = None
    if ladders is not None and len(ladders):
        steps = step_effects(data.table, ladders, trials, alpha=alpha)
        data = independent(data, ladders)

    structural = dict(structural) if structural is not None else stats.load_structural_map()
    table = data.table
    fit = stats.fit_effects(data, structural=structural, bundle_threshold=bundle_threshold,
                            bootstrap=bootstrap, seed=seed, alpha=alpha, inference=inference)
    opts = {"inference": inference, "seed": seed}
    used = [s for s in data.strategies if table[s].sum() > 0]
    matrix = table.groupby("task")[used].mean() if used else pd.DataFrame()
    excluded = data.excluded[[c for c in ("task", "solution", "size", "author", "speedup",
                                          "cheating_flags") if c in data.excluded.columns]]
    rows = data.all_rows
    rows = rows.assign(excluded=rows["cheating_flags"].fillna("").astype(str) != ""
                       if "cheating_flags" in rows.columns else False)
    failures = (rows.groupby("author").agg(n=("passed", "size"), passed=("passed", "sum"),
                                           excluded=("excluded", "sum")).reset_index()
                .assign(failed=lambda f: f.n - f.passed - f.excluded))
    summary = {
        "source": data.source, "rows_passed": len(table), "rows_failed": len(data.failures),
        "rows_excluded": len(data.excluded), "tasks": table["task"].nunique(),
        "solutions": len(table.drop_duplicates(["task", "solution"])),
        "authors": table["author"].nunique(), "sizes": stats.size_rank(table),
        "strategies": len(data.strategies), "strategies_used": len(used),
        "has_cpu_ms": "cpu_ms" in table.columns and bool(table["cpu_ms"].notna().any()),
        "inference": backend.INFERENCE_LABELS.get(fit.inference, "none (no strategy estimable)"),
        "few_tasks": backend.FEW_TASKS, "many_tasks": backend.MANY_TASKS,
        "min_tasks": backend.MIN_TASKS, "min_effective": backend.MIN_EFFECTIVE,
        "max_leverage": backend.MAX_LEVERAGE,
        "no_failures": NO_FAILURES if len(data.failures) + len(data.excluded) == 0 else "",
        "df": fit.df_inference, "bootstrap": bootstrap, "alpha": alpha,
        "bundle_threshold": bundle_threshold, "acceleval_threshold": acceleval_threshold,
        "p": p, "k": k, "problems": list(data.problems),
    }
    summary["limits"] = data_limits(table, fit.table, summary)
    return ReportTables(
        effects=fit.table,
        structural=stats.structural_contrast(data, fit, structural=structural, alpha=alpha,
                                             **opts),
        sizes=stats.size_effects(data, fit, alpha=alpha, **opts),
        doses=stats.dose_response(data, fit, structural=structural, alpha=alpha, **opts),
        survivorship=survivorship(data, fit, alpha=alpha, structural=structural, seed=seed),
        ablations=ablation_summary(steps, fit, alpha=alpha, structural=structural)
        if steps is not None else pd.DataFrame(columns=ABLATION_COLUMNS),
        time=time_breakdown(table),
        compare=stats.compare_methods(
            fit.table, stats.acceleval_measures(data, bundle_threshold=acceleval_threshold)),
        leaderboard=stats.leaderboard(data, p=p, k=k),
        jaccard=stats.jaccard_matrix(table, used), task_matrix=matrix, excluded=excluded,
        failures=failures, fit=fit, summary=summary)


def data_limits(table: pd.DataFrame, effects: pd.DataFrame, s: dict) -> list[str]:
    """What the data cannot support, in words, for the top of the report: each section that
    will be empty and why."""
    limits = []
    per_task = (table.drop_duplicates(["task", "solution"]).groupby("task").size()
                if len(table) else pd.Series(dtype=int))
    estimable = int(effects["estimable"].sum()) if "estimable" in effects else 0
    if len(per_task) and per_task.max() <= 1:
        limits.append("each task has one solution (one port per task): a strategy's effect is "
                      "measured between solutions of the same task, so no effect, contrast or "
                      "size trend can be estimated; the figures of those sections are empty")
    elif not estimable:
        multi = int((per_task > 1).sum())
        limits.append(f"only {multi} of {len(per_task)} tasks have more than one passing "
                      f"solution, and an effect needs a strategy that varies within at least "
                      f"{s['min_tasks']} tasks: no strategy is estimable, so the forest plot, "
                      "the structural contrast and the size table are empty; the effects "
                      "table lists each strategy's reason")
    if len(s["sizes"]) <= 1:
        limits.append(f"one size ({', '.join(s['sizes']) or 'none'}): no effect by size")
    if s["no_failures"]:
        limits.append("no failed attempt: pass rates, fast_p and pass@k say nothing here")
    if not s["has_cpu_ms"]:
        limits.append("no CPU times (cpu_ms): no speedup-vs-CPU figure")
    return limits


def strategy_names(extra_dirs=()) -> dict[str, str]:
    """Catalog ID -> name; empty when the catalog cannot be read (the report keeps IDs)."""
    try:
        from strategylens.catalog import load_catalog

        return {e.id: e.name for e in load_catalog(extra_dirs, check_examples=False).entries}
    except Exception:  # names are a courtesy: never let them stop the report
        return {}


def named(frame: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """``frame`` with a ``name`` column beside ``strategy`` (bundles: the members' names)."""
    if "strategy" not in frame.columns or "name" in frame.columns:
        return frame
    def one(sid) -> str:
        parts = str(sid).split("+")
        return " + ".join(names.get(p, "") for p in parts) if all(p in names for p in parts) \
            else ""
    out = frame.copy()
    out.insert(list(out.columns).index("strategy") + 1, "name", out["strategy"].map(one))
    return out


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------

TIME_COLUMNS = ["task", "size", "solutions", "e2e_ms", "kernel_ms", "copy_ms", "other_ms",
                "kernel_share", "copy_share", "other_share", "floor_ratio", "speedup"]


def time_breakdown(table: pd.DataFrame) -> pd.DataFrame:
    """Where the end-to-end time goes, per task and size, from the harness's CUPTI profile.

    Per passing row: ``kernel_ms`` (summed kernel time), ``copy_ms`` (host-to-device,
    device-to-host and memsets), ``other_ms`` = end-to-end minus both, floored at 0
    (allocation, frees, launch and API overhead, host work; busy times that overlap in streams
    can exceed the call). Shares are of the end-to-end median. Each column is the median over
    the task and size's solutions; ``floor_ratio`` is end-to-end over the pinned transfer
    floor. Empty when the table has no profile columns (a CSV without them, CUPTI missing).

    Examples
    --------
    >>> t = pd.DataFrame({"task": ["a", "a"], "size": ["s", "s"], "solution": ["x", "y"],
    ...                   "e2e_ms_median": [10.0, 20.0], "kernel_ms": [2.0, 4.0],
    ...                   "h2d_ms": [5.0, 10.0], "d2h_ms": [1.0, 2.0]})
    >>> time_breakdown(t)[["e2e_ms", "kernel_share", "copy_share", "other_share"]].values.tolist()
    [[15.0, 0.2, 0.6, 0.2]]
    """
    need = {"e2e_ms_median", "kernel_ms", "h2d_ms", "d2h_ms"}
    if not need <= set(table.columns):
        return pd.DataFrame(columns=TIME_COLUMNS)
    t = table[table["kernel_ms"].notna() & table["e2e_ms_median"].notna()].copy()
    if t.empty:
        return pd.DataFrame(columns=TIME_COLUMNS)
    memset = t["memset_ms"].fillna(0.0) if "memset_ms" in t.columns else 0.0
    t["e2e_ms"] = t["e2e_ms_median"]
    t["copy_ms"] = t["h2d_ms"].fillna(0.0) + t["d2h_ms"].fillna(0.0) + memset
    t["other_ms"] = (t["e2e_ms"] - t["kernel_ms"] - t["copy_ms"]).clip(lower=0.0)
    for part in ("kernel", "copy", "other"):
        t[f"{part}_share"] = t[f"{part}_ms"] / t["e2e_ms"]
    for col in ("floor_ratio", "speedup"):
        if col not in t.columns:
            t[col] = np.nan
    cols = ["e2e_ms", "kernel_ms", "copy_ms", "other_ms", "kernel_share", "copy_share",
            "other_share", "floor_ratio", "speedup"]
    out = t.groupby(["task", "size"], sort=False)[cols].median().reset_index()
    n = t.groupby(["task", "size"], sort=False)["solution"].nunique() \
        if "solution" in t.columns else t.groupby(["task", "size"], sort=False).size()
    out.insert(2, "solutions", out.set_index(["task", "size"]).index.map(n).astype(int))
    order = {z: i for i, z in enumerate(stats.size_rank(t))}
    out = out.sort_values(["task", "size"], key=lambda c: c.map(order) if c.name == "size"
                          else c).reset_index(drop=True)
    return out[TIME_COLUMNS]


def time_plot(breakdown: pd.DataFrame, path: Path) -> Path:
    """Stacked shares of kernel, copy and other time per task at its largest size."""
    plt = _plt()
    last = breakdown.groupby("task", sort=True).tail(1).sort_values("copy_share")
    fig, ax = plt.subplots(figsize=(7.5, 0.34 * len(last) + 1.3))
    y = np.arange(len(last))
    left = np.zeros(len(last))
    for part, color in (("kernel", "#1f77b4"), ("copy", "#ff7f0e"), ("other", "#7f7f7f")):
        share = last[f"{part}_share"].to_numpy(dtype=float)
        ax.barh(y, share, left=left, color=color, label=part)
        left += share
    for i, r in enumerate(last.itertuples()):
        ax.text(min(left[i], 1.0) + 0.01, i, f"{r.e2e_ms:.3g} ms ({r.size})", va="center",
                fontsize=7)
    ax.set_yticks(y)
    ax.set_yticklabels(last["task"], fontsize=8)
    ax.set_xlim(0, 1.35)
    ax.set_xlabel("share of the end-to-end call (median over solutions, largest size)")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path




def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _log_axis(axis) -> None:
    """Log scale with plain tick labels (0.8, 1, 1.5, 2 ...) instead of powers of ten."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    lo, hi = axis.get_view_interval()
    if hi / lo > 20:  # wide range: 1-3-10 per decade
        nice = np.array([m * 10.0 ** e for e in range(-4, 8) for m in (1, 3)])
    else:
        nice = np.array([0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4, 5, 7,
                         10, 15, 20])
    ticks = nice[(nice >= lo) & (nice <= hi)]
    if len(ticks) > 9:
        ticks = ticks[:: math.ceil(len(ticks) / 9)]
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def forest_plot(effects: pd.DataFrame, path: Path) -> Path:
    """Multiplier with its CI (thick) and bootstrap CI (thin) per estimable strategy/bundle."""
    plt = _plt()
    est = effects[effects["estimable"]].sort_values("effect_log")
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(est) + 1.4))
    y = np.arange(len(est))
    for i, r in enumerate(est.itertuples()):
        color = _KIND_COLOR.get(r.kind, "#7f7f7f")
        if not (pd.isna(r.boot_low_log) or pd.isna(r.boot_high_log)):
            ax.plot([math.exp(r.boot_low_log), math.exp(r.boot_high_log)], [i - 0.22] * 2,
                    color=color, lw=1, alpha=0.6)
        ax.plot([r.multiplier_low, r.multiplier_high], [i, i], color=color, lw=2.5)
        ax.plot(r.multiplier, i, "o", color=color, ms=5)
    ax.axvline(1.0, color="k", lw=0.8, ls="--")
    ax.set_xscale("log")
    _log_axis(ax.xaxis)
    ax.set_yticks(y)
    labels = [f"{s} ({k})" if k else s for s, k in zip(est.strategy, est.kind, strict=True)]
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlabel("multiplier on same-task speedup (95% CI; thin: task bootstrap)")
    handles = [plt.Line2D([], [], color=c, lw=2.5, label=lab) for lab, c in
               (("structural", _KIND_COLOR["S"]), ("micro", _KIND_COLOR["m"]),
                ("bundle", _KIND_COLOR["bundle"]))]
    ax.legend(handles=handles, loc="lower right", fontsize=8)
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def structural_plot(effects: pd.DataFrame, contrast: pd.DataFrame, path: Path) -> Path:
    """Per-strategy multipliers by group, with the group means and their CIs."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    rows = contrast[contrast["method"] == "mean of effects"].set_index("contrast")
    rng = np.random.default_rng(0)
    for x, (kind, label) in enumerate((("S", "structural"), ("m", "micro"))):
        pts = effects[(effects["kind"] == kind) & effects["estimable"]]
        ax.scatter(x + rng.uniform(-0.12, 0.12, len(pts)), pts["multiplier"], s=18,
                   color=_KIND_COLOR[kind], alpha=0.6, label=f"{label} strategies")
        if label in rows.index:
            r = rows.loc[label]
            ax.errorbar(x + 0.3, r.multiplier, yerr=[[r.multiplier - r.multiplier_low],
                                                      [r.multiplier_high - r.multiplier]],
                        fmt="s", color="k", capsize=5, ms=6)
    if "structural - micro" in rows.index:
        r = rows.loc["structural - micro"]
        ax.set_title(f"structural / micro: x{r.multiplier:.2f} "
                     f"[{r.multiplier_low:.2f}, {r.multiplier_high:.2f}]", fontsize=10)
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.set_yscale("log")
    _log_axis(ax.yaxis)
    ax.set_xticks([0.1, 1.1])
    ax.set_xticklabels(["structural", "micro"])
    ax.set_xlim(-0.5, 1.6)
    ax.set_ylabel("multiplier (black: group mean, 95% CI)")
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def heatmap(matrix: pd.DataFrame, path: Path, *, label: str, annotate: bool = True,
            cmap: str = "viridis") -> Path:
    """A labelled heatmap of values in [0, 1]."""
    plt = _plt()
    n_r, n_c = matrix.shape
    fig, ax = plt.subplots(figsize=(min(2 + 0.45 * n_c, 16), min(1.6 + 0.32 * n_r, 16)))
    im = ax.imshow(matrix.to_numpy(dtype=float), vmin=0, vmax=1, cmap=cmap, aspect="auto")
    ax.set_xticks(range(n_c))
    ax.set_xticklabels(matrix.columns, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(n_r))
    ax.set_yticklabels(matrix.index, fontsize=8)
    if annotate and n_r * n_c <= 400:
        for i in range(n_r):
            for j in range(n_c):
                v = matrix.iat[i, j]
                r, g, b, _ = im.cmap(im.norm(v))
                ax.text(j, i, f"{v:.2f}".lstrip("0") if v < 1 else "1", ha="center",
                        va="center", fontsize=6,
                        color="k" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "w")
    fig.colorbar(im, ax=ax, label=label, shrink=0.8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def speedup_cpu_plot(table: pd.DataFrame, sizes: list[str], path: Path) -> Path:
    """Speedup against CPU reference time, one colour per size (log-log)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    colors = plt.get_cmap("viridis")(np.linspace(0.1, 0.9, len(sizes)))
    for size, color in zip(sizes, colors, strict=True):
        part = table[(table["size"] == size) & table["cpu_ms"].notna()]
        ax.scatter(part["cpu_ms"], part["speedup"], s=10, alpha=0.5, color=color, label=size)
        if len(part):
            ax.scatter([part["cpu_ms"].median()], [np.exp(np.log(part["speedup"]).mean())],
                       marker="D", s=60, color=color, edgecolor="k")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    _log_axis(ax.xaxis)
    _log_axis(ax.yaxis)
    ax.set_xlabel("CPU reference time (ms)")
    ax.set_ylabel("speedup (diamond: geometric mean per size)")
    ax.legend(title="size", fontsize=8)
    ax.grid(which="both", alpha=0.2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------

def fmt_num(value, digits: int = 3) -> str:
    """Numbers for people: 3 significant digits, p-values below 0.001 as ``<0.001``.

    Examples
    --------
    >>> fmt_num(1.23456), fmt_num(0.0004, digits=-1), fmt_num(None), fmt_num(12345.6)
    ('1.23', '<0.001', '', '12346')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if not isinstance(value, (float, np.floating)):
        return str(value)
    if digits == -1:  # p or q value
        return "<0.001" if value < 0.001 else f"{value:.3f}"
    if abs(value) >= 1000:
        return f"{value:.0f}"
    return f"{value:.{digits}g}" if abs(value) >= 1 else f"{value:.{digits - 1}f}"


@dataclass
class Cell:
    """A formatted table cell; `num` right-aligns it in HTML."""

    text: str
    num: bool

    def __str__(self) -> str:
        return self.text


def _rows(frame: pd.DataFrame, columns: list[str], pcols=("p_value", "q_value")) -> list[list]:
    out = []
    for rec in frame[columns].to_dict("records"):
        out.append([Cell(fmt_num(rec[c], -1 if c in pcols else 3),
                         isinstance(rec[c], (int, float, np.number)) and not isinstance(
                             rec[c], (bool, np.bool_))) for c in columns])
    return out


def _table(frame: pd.DataFrame, columns: list[str], headers: list[str] | None = None) -> dict:
    return {"headers": headers or columns, "rows": _rows(frame, columns)}


def render(tables: ReportTables, data: stats.AnalysisData, out_dir: str | Path, *,
           title: str = "strategylens report", banner: str | None = None) -> dict[str, Path]:
    """Write figures, CSV tables, ``report.html`` and ``report.md`` into `out_dir`."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    from strategylens import __version__

    out = Path(out_dir)
    figdir, tabdir = out / "figures", out / "tables"
    figdir.mkdir(parents=True, exist_ok=True)
    tabdir.mkdir(parents=True, exist_ok=True)
    s = tables.summary
    figures = {"forest": forest_plot(tables.effects, figdir / "forest.png"),
               "structural": structural_plot(tables.effects, tables.structural,
                                             figdir / "structural.png")}
    if len(tables.jaccard):
        figures["cooccurrence"] = heatmap(tables.jaccard, figdir / "cooccurrence.png",
                                          label="Jaccard index over solutions")
    if s["has_cpu_ms"]:
        figures["speedup_cpu"] = speedup_cpu_plot(data.table, s["sizes"],
                                                  figdir / "speedup_cpu.png")
    if len(tables.time):
        figures["time"] = time_plot(tables.time, figdir / "time.png")
    if len(tables.task_matrix):
        figures["task_matrix"] = heatmap(tables.task_matrix, figdir / "task_matrix.png",
                                         label="share of the task's passing rows using it",
                                         cmap="Blues")
    for name in ("effects", "structural", "sizes", "doses", "survivorship", "ablations", "time",
                 "compare", "leaderboard", "excluded"):
        getattr(tables, name).to_csv(tabdir / f"{name}.csv", index=False)
    tables.jaccard.to_csv(tabdir / "jaccard.csv")
    tables.task_matrix.to_csv(tabdir / "task_matrix.csv")

    names = strategy_names()
    eff = named(tables.effects, names)
    est = eff[eff["estimable"]].sort_values("effect_log", ascending=False).assign(
        boot_low=lambda f: np.exp(f["boot_low_log"]),
        boot_high=lambda f: np.exp(f["boot_high_log"]))
    notest = eff[~eff["estimable"]]
    sizes_t = tables.sizes
    refused = sizes_t[sizes_t["note"].astype(str).str.startswith("refused")]
    s["size_refused"] = str(refused["note"].iloc[0]) if len(refused) else ""
    size_main = sizes_t[~sizes_t["size"].str.contains(" - ", regex=False)
                        & (sizes_t["size"] != "")]
    size_labels = list(dict.fromkeys(size_main["size"]))
    size_pivot = (size_main.pivot(index="strategy", columns="size", values="multiplier")
                  .reindex(columns=size_labels) if len(size_main) else pd.DataFrame())
    trend = tables.sizes[tables.sizes["size"].str.contains(" - ", regex=False)]
    if len(size_pivot):
        trend_i = trend.set_index("strategy")
        size_pivot = size_pivot.reset_index()
        size_pivot["trend"] = size_pivot["strategy"].map(trend_i["multiplier"])
        size_pivot["trend_low"] = size_pivot["strategy"].map(np.exp(trend_i["ci_low_log"]))
        size_pivot["trend_high"] = size_pivot["strategy"].map(np.exp(trend_i["ci_high_log"]))
        size_pivot["p_value"] = size_pivot["strategy"].map(trend_i["p_value"])
    bundles = [{"label": f"B{i + 1}", "members": b,
                "jaccard": fmt_num(float(tables.jaccard.loc[b, b].to_numpy()[
                    ~np.eye(len(b), dtype=bool)].min())) if set(b) <= set(tables.jaccard.index)
                else ""} for i, b in enumerate(tables.fit.bundles)]
    ctx = {
        "title": title, "banner": banner, "s": s, "version": __version__,
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "figures": {k: f"figures/{v.name}" for k, v in figures.items()},
        "effects": _table(est, ["strategy", "name", "kind", "multiplier", "multiplier_low",
                                "multiplier_high", "boot_low", "boot_high", "boot_share",
                                "p_value", "q_value", "inference", "n_clusters", "eff_clusters",
                                "max_leverage", "n_tasks", "n_with", "n_without", "bundle",
                                "note"],
                          ["strategy", "name", "kind", "multiplier", "CI low", "CI high", "boot low",
                           "boot high", "boot share", "p", "q", "inference", "tasks (G)",
                           "effective G*", "top task leverage", "tasks varying", "with",
                           "without", "bundle", "note"]),
        "not_estimable": _table(notest, ["strategy", "name", "kind", "n_with", "n_without",
                                         "bundle", "note"],
                                ["strategy", "name", "kind", "with", "without", "bundle",
                                 "reason"]),
        "bundles": bundles,
        "structural": _table(tables.structural, ["contrast", "method", "multiplier",
                                                 "multiplier_low", "multiplier_high", "p_value",
                                                 "n_strategies", "note"],
                             ["contrast", "method", "multiplier", "CI low", "CI high", "p",
                              "strategies", "note"]),
        "sizes": _table(size_pivot, ["strategy", *size_labels, "trend", "trend_low",
                                     "trend_high", "p_value"],
                        ["strategy", *[f"multiplier at {z}" for z in size_labels],
                         f"{size_labels[-1]} / {size_labels[0]}" if size_labels else "trend",
                         "CI low", "CI high", "p"]) if len(size_pivot) else None,
        "doses": _table(named(tables.doses, names).assign(
            low_x=lambda f: np.exp(f["ci_low_log"]), high_x=lambda f: np.exp(f["ci_high_log"])),
            ["strategy", "name", "kind", "multiplier_per_doubling", "low_x", "high_x", "q_value",
             "n_users", "low", "high", "note"],
            ["strategy", "name", "kind", "multiplier per doubling", "CI low", "CI high", "q", "users",
             "lowest intensity", "highest", "note"]) if len(tables.doses) else None,
        "survivorship": _table(named(tables.survivorship, names).assign(
            bound_low=lambda f: np.exp(f["bound_ci_low_log"].astype(float)),
            bound_high=lambda f: np.exp(f["bound_ci_high_log"].astype(float)),
            multiplier=lambda f: np.exp(f["effect_log"].astype(float))),
            ["strategy", "name", "kind", "pass_rate_with", "pass_rate_without", "pass_effect",
             "pass_low", "pass_high", "trim_share", "multiplier", "bound_low", "bound_high",
             "note"],
            ["strategy", "name", "kind", "pass rate with", "without", "pass effect (adjusted)",
             "CI low", "CI high", "trimmed share", "multiplier", "bound low", "bound high",
             "note"]) if len(tables.survivorship) else None,
        "ablations": _table(named(tables.ablations, names).assign(
            ladder=lambda f: np.exp(f["ladder_effect_log"].astype(float)),
            ladder_low=lambda f: np.exp(f["ladder_low_log"].astype(float)),
            ladder_high=lambda f: np.exp(f["ladder_high_log"].astype(float)),
            model=lambda f: np.exp(f["model_effect_log"].astype(float)),
            model_low=lambda f: np.exp(f["model_low_log"].astype(float)),
            model_high=lambda f: np.exp(f["model_high_log"].astype(float))),
            ["strategy", "name", "kind", "ladder", "ladder_low", "ladder_high", "n_steps", "model",
             "model_low", "model_high", "agreement", "note"],
            ["strategy", "name", "kind", "ladder multiplier", "CI low", "CI high", "steps",
             "model multiplier", "CI low", "CI high", "agreement", "note"])
        if len(tables.ablations) else None,
        "time": _table(tables.time, ["task", "size", "solutions", "e2e_ms", "kernel_share",
                                     "copy_share", "other_share", "floor_ratio", "speedup"],
                       ["task", "size", "solutions", "end to end (ms)", "kernels",
                        "copies", "other", "x transfer floor", "speedup"])
        if len(tables.time) else None,
        "compare": _table(tables.compare, ["strategy", "multiplier", "multiplier_low",
                                           "multiplier_high", "lift", "naive_ratio",
                                           "winner_coverage", "selectivity", "bundle",
                                           "acceleval_bundle", "agreement"],
                          ["strategy", "ours", "CI low", "CI high", "LIFT", "naive",
                           "winner coverage", "selectivity", "our bundle",
                           f"AccelEval bundle (J >= {s['acceleval_threshold']})", "agreement"]),
        "leaderboard": _table(tables.leaderboard, ["author", "size", "n", "passed",
                                                   "gm_speedup", "par_gm", "fast_p",
                                                   "pass_at_k", "pass_at_k_tasks", "n_tasks"],
                              ["author", "size", "N", "passed", "GM speedup (passed)",
                               "PAR-GM", f"fast_{fmt_num(s['p'])}", f"pass@{s['k']}",
                               "pass@k tasks (common)", "tasks"]),
        "excluded": _table(tables.excluded, list(tables.excluded.columns)),
        "failures": _table(tables.failures, ["author", "n", "passed", "failed", "excluded"],
                           ["author", "rows", "passed", "failed (not compiled or wrong)",
                            "excluded (cheating flag)"]),
    }
    env = Environment(loader=PackageLoader("strategylens", "templates"),
                      autoescape=select_autoescape(["html", "j2"], default=False),
                      trim_blocks=True, lstrip_blocks=True)
    html = env.get_template("report.html.j2").render(**ctx)
    md_env = Environment(loader=PackageLoader("strategylens", "templates"), autoescape=False,
                         trim_blocks=True, lstrip_blocks=True)
    md_env.filters["cell"] = lambda v: str(v).replace("|", "\\|").replace("\n", " ")
    md = md_env.get_template("report.md.j2").render(**ctx)
    (out / "report.html").write_text(html, encoding="utf-8")
    (out / "report.md").write_text(md, encoding="utf-8")
    return {"html": out / "report.html", "markdown": out / "report.md", **figures}


def build_report(data: stats.AnalysisData, out_dir: str | Path, *, title: str = "strategylens "
                 "report", banner: str | None = None, **kwargs) -> dict[str, Path]:
    """Compute every table and write the report into `out_dir`.

    Parameters
    ----------
    data : AnalysisData
    out_dir : path
        Receives ``report.html``, ``report.md``, ``figures/*.png`` and ``tables/*.csv``.
    title, banner : str
        Page title and an optional highlighted line (e.g. "simulated data").
    **kwargs
        Passed to :func:`compute_tables` (bootstrap, seed, p, k, thresholds, structural).

    Returns
    -------
    dict
        Name -> written path.
    """
    tables = compute_tables(data, **kwargs)
    return render(tables, data, out_dir, title=title, banner=banner)
