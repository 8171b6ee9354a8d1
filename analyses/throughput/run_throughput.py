"""Harness throughput before and after issue 12 item 5, and the reproducibility of the medians.

On the GPU machine, from the repository root (see README.md in this folder):

    python3 analyses/throughput/run_throughput.py --out .cache/throughput [--parts before,after,repeat]
                                                  [--tasks id,id] [--deadline-s 480]
    python3 analyses/throughput/run_throughput.py --out DIR --report-only   # anywhere, no GPU

Solutions: every task's baseline plus the harness fixture's two honest saxpy ports (15).
Parts, each into its own store under OUT:

``before``  ``RunConfig.legacy()``: inputs rewritten and outputs validated around every call,
            a child per (solution, size), sleep calibration up to 1 s.
``after``   ``RunConfig()``: resident inputs, sampled output checks, one child per solution.
``repeat``  ``RunConfig()`` twice (stores ``repeat-a``, ``repeat-b``) at medium and large: the
            same solutions in separate child processes of this one call.
``repeat-pinned``  the same with each child on one CPU, the last of the GPU's local CPUs (of
            every CPU where sysfs does not say), ``RunConfig(child_cpus=...)``; stores
            ``repeat-pinned-a``, ``-b``. The baselines' host side is one thread.
``cheats``  ``RunConfig()`` on the harness fixture's cheating solutions (tests/cheats/) at every
            size: each must still raise the flags its first line names.

Before and after run task by task, interleaved, so that drift of the machine affects both.
Every part resumes from its store, so a call that hits ``--deadline-s`` leaves the rest for
the next call. Reference answers are computed first, in parallel, and cached (set
``STRATEGYLENS_CACHE`` to a folder that survives between calls). The report (``summary.md``,
``summary.json``) is written at the end of every call from whatever the stores hold.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from strategylens.harness import RunConfig, benchmark, n_sets, solution_id  # noqa: E402
from strategylens.store import key_name, read_results, read_trials  # noqa: E402
from strategylens.tasks import build_reference, list_tasks, load_task, run_reference  # noqa: E402
from strategylens.tasks.refrun import Cores  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "harness_task" / "saxpy"
SIZES = ("small", "medium", "large")
REPEAT_SIZES = ("medium", "large")
PARTS = ("before", "after", "repeat", "repeat-pinned", "cheats")
CHEATS = ROOT / "tests" / "cheats"


def plan(task_ids: list[str], pattern: str = "baseline.cu") -> list[tuple]:
    """(task, solutions matching ``pattern``): the baselines unless told otherwise (the corpus
    has 10-20 solutions per task, too many for a before/after pair)."""
    tasks = [load_task(FIXTURE)] + list_tasks()
    if task_ids:
        tasks = [t for t in tasks if t.id in task_ids]
    work = [(t, sorted((t.path / "solutions").glob(pattern))) for t in tasks]
    return [(t, sols) for t, sols in work if sols]


def precompute(work: list[tuple], jobs: int) -> None:
    """Reference answers of every (task, size, set), in parallel, one pinned core per job."""
    for t, _ in work:
        build_reference(t)
    cores = Cores()
    items = [(t, z, k) for t, _ in work for z in SIZES for k in range(n_sets(z))]
    items.sort(key=lambda w: SIZES.index(w[1]), reverse=True)

    def one(i_item):
        i, (t, z, k) = i_item
        with cores.take() as cpu:
            run_reference(t, z, trials=3 if k == 0 else 1, seed_offset=k, cpu=cpu)

    t0 = time.monotonic()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, enumerate(items)))
    log(f"references: {len(items)} in {time.monotonic() - t0:.1f} s")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def missing(store: Path, t, sols, sizes) -> bool:
    df = read_results(store) if store.exists() else None
    have = set() if df is None or df.empty else set(zip(df["task"], df["solution"], df["size"],
                                                        strict=False))
    return any((t.id, solution_id(s), z) not in have for s in sols for z in sizes)


def one_cpu(device: int) -> int:
    """The CPU the pinned repeat runs its children on: the last of the GPU's local CPUs."""
    from strategylens.harness.device import gpu_local_cpus  # noqa: PLC0415

    allowed = os.sched_getaffinity(0)
    return max((set(gpu_local_cpus(device)) & allowed) or allowed)


def run(args) -> None:
    out = Path(args.out)
    work = plan([x for x in args.tasks.split(",") if x], args.solutions)
    parts = [p for p in args.parts.split(",") if p]
    t_start = time.monotonic()
    precompute(work, args.jobs)
    base = {"measure_s": args.measure_s, "solution_timeout_s": 180, "device": args.device}
    configs = {"before": RunConfig.legacy(**base), "after": RunConfig(**base),
               "pinned": RunConfig(child_cpus=str(one_cpu(args.device)), **base)}

    def go(names: tuple[str, ...], t, sols, sizes, cfg) -> None:
        """Run the parts ``names`` for task t back to back (all of them in this call or none)."""
        todo = [n for n in names if missing(out / n, t, sols, sizes)]
        if not todo:
            return
        if time.monotonic() - t_start > args.deadline_s:
            log(f"deadline: {', '.join(todo)} {t.id} left for the next call")
            return
        if len(names) > 1 and len(todo) < len(names):  # a pair is run again whole, in one call
            prefix = key_name(t.id, "x", "y").split("__")[0] + "__"
            for name in names:
                for f in (out / name).glob(f"*/{prefix}*"):
                    f.unlink()
        for name in names:
            t0 = time.monotonic()
            store = out / name
            benchmark(t, sols, list(sizes), store, cfg)
            log(f"{name} {t.id}: {time.monotonic() - t0:.1f} s")

    for t, sols in work:  # before and after interleaved, task by task
        for name in ("before", "after"):
            if name in parts:
                go((name,), t, sols, SIZES, configs[name])
    for part, cfg in (("repeat", configs["after"]), ("repeat-pinned", configs["pinned"])):
        if part in parts:
            for t, sols in work:
                go((f"{part}-a", f"{part}-b"), t, sols, REPEAT_SIZES, cfg)
    if "cheats" in parts:
        go(("cheats",), load_task(FIXTURE), sorted(CHEATS.glob("*.cu")), SIZES, configs["after"])
    log(f"total: {time.monotonic() - t_start:.1f} s")


# ------------------------------------------------------------------ the report

def _rows(store: Path):
    return read_results(store) if (store / "results").is_dir() else None


def _phase_medians(store: Path) -> dict:
    phases: dict[str, list[float]] = {}
    for f in sorted((store / "traces").glob("*.json")):
        for k, v in (json.loads(f.read_text()).get("phase_s") or {}).items():
            phases.setdefault(k, []).append(v)
    return {k: round(float(np.median(v)), 3) for k, v in sorted(phases.items())}


def _per_solution(df) -> dict:
    """(task, solution) -> total device seconds over the sizes it has."""
    full = df.groupby(["task", "solution"]).filter(lambda g: set(g["size"]) == set(SIZES))
    return {f"{t}|{s}": round(float(g["device_s"].sum()), 3)
            for (t, s), g in full.groupby(["task", "solution"])}


def report(out: Path) -> dict:
    res: dict = {"parts": {}}
    for name in ("before", "after"):
        df = _rows(out / name)
        if df is None or df.empty:
            continue
        per = _per_solution(df)
        base = {k: v for k, v in per.items() if k.endswith("solutions/baseline.cu")
                and not k.startswith("saxpy|")}
        trials = read_trials(out / name)
        res["parts"][name] = {
            "rows": len(df), "solutions_with_3_sizes": len(per),
            "median_device_s_3_sizes": float(np.median(list(per.values()))) if per else None,
            "median_device_s_3_sizes_13_baselines": float(np.median(list(base.values())))
            if base else None,
            "per_solution_device_s": per,
            "median_device_s_by_size": {z: float(df[df["size"] == z]["device_s"].median())
                                        for z in SIZES if (df["size"] == z).any()},
            "median_phase_s": _phase_medians(out / name),
            "stop_rules": df["stop_rule"].value_counts().to_dict(),
            "median_timed_calls": {z: float(df[df["size"] == z]["n_trials"].median())
                                   for z in SIZES if (df["size"] == z).any()},
            "flagged_or_wrong": [f"{r.task} {r.solution} {r.size}: {r.status} "
                                 f"{';'.join(r.audit_flags) or '-'}"
                                 for r in df.itertuples() if r.audit_flags or not r.correct],
            "calls": int(len(trials)) if trials is not None else None,
        }
    b, a = _rows(out / "before"), _rows(out / "after")
    if b is not None and a is not None and not b.empty and not a.empty:
        m = b.merge(a, on=["task", "solution", "size"], suffixes=("_before", "_after"))
        ratio = (m["e2e_ms_median_after"] / m["e2e_ms_median_before"]).dropna()
        res["after_over_before_e2e"] = {
            "pairs": int(len(ratio)), "median": float(ratio.median()) if len(ratio) else None,
            "min": float(ratio.min()) if len(ratio) else None,
            "max": float(ratio.max()) if len(ratio) else None}
    for part in ("repeat", "repeat-pinned"):
        pair = repeat_summary(_rows(out / f"{part}-a"), _rows(out / f"{part}-b"))
        if pair:
            res[part] = pair
    ch = _rows(out / "cheats")
    if ch is not None and not ch.empty:
        res["cheats"] = {f"{Path(r.solution).stem} {r.size}": {
            "expected": sorted(expected_flags(ROOT / r.solution)), "raised": list(r.audit_flags),
            "missed": sorted(expected_flags(ROOT / r.solution) - set(r.audit_flags))}
            for r in ch.itertuples()}
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(res, indent=1, sort_keys=True))
    (out / "summary.md").write_text(markdown(res))
    return res


def repeat_summary(ra, rb) -> dict | None:
    """The two children's medians of each (solution, size) compared: pairs within 2 %, the
    deviations, and each pair's ratios."""
    if ra is None or rb is None or ra.empty or rb.empty:
        return None
    m = ra.merge(rb, on=["task", "solution", "size"], suffixes=("_a", "_b"))
    m = m[m["size"].isin(REPEAT_SIZES)]
    m = m.assign(ratio=m["e2e_ms_median_b"] / m["e2e_ms_median_a"]).dropna(subset=["ratio"])
    dev = (m["ratio"] - 1).abs()
    return {
        "pairs": int(len(m)), "solutions": int(m[["task", "solution"]].drop_duplicates().shape[0]),
        "within_2pct": int((dev <= 0.02).sum()),
        "median_abs_dev": float(dev.median()) if len(m) else None,
        "max_abs_dev": float(dev.max()) if len(m) else None,
        "by_size": {z: {"pairs": int((m["size"] == z).sum()),
                        "within_2pct": int((dev[m["size"] == z] <= 0.02).sum()),
                        "median_abs_dev": float(dev[m["size"] == z].median())
                        if (m["size"] == z).any() else None} for z in REPEAT_SIZES},
        "ratios": {f"{r.task}|{r.solution}|{r.size}": round(float(r.ratio), 4)
                   for r in m.itertuples()},
        "components": repeat_components(m)}


COMPONENTS = {"kernel": "kernel_ms", "h2d": "h2d_ms", "d2h": "d2h_ms",
              "host_cpu": "host_cpu_ms_median"}


def repeat_components(m) -> dict:
    """Per pair, b / a of the profiled kernel, copy and host CPU times beside the end-to-end
    median: which part of the call moved between the two children."""
    out = {}
    for r in m.to_dict("records"):
        row = {"e2e": round(float(r["ratio"]), 4)}
        for name, col in COMPONENTS.items():
            a, b = r.get(f"{col}_a"), r.get(f"{col}_b")
            row[name] = (round(float(b) / float(a), 4)
                         if a is not None and b is not None and np.isfinite(a) and np.isfinite(b)
                         and a > 0 else None)
        out[f"{r['task']}|{r['solution']}|{r['size']}"] = row
    return out


def expected_flags(path: Path) -> set[str]:
    first = path.read_text().splitlines()[0] if path.is_file() else ""
    if not first.startswith("// expect-flags:"):
        return set()
    return {f.strip() for f in first.split(":", 1)[1].split(",")}


def markdown(res: dict) -> str:
    lines = ["# Harness throughput", ""]
    for name, p in res.get("parts", {}).items():
        lines += [f"## {name}", "",
                  f"- rows {p['rows']}, solutions with all three sizes {p['solutions_with_3_sizes']}",
                  f"- median device seconds per solution, three sizes: {p['median_device_s_3_sizes']}"
                  f" (13 task baselines: {p['median_device_s_3_sizes_13_baselines']})",
                  f"- median device seconds by size: {p['median_device_s_by_size']}",
                  f"- median phase seconds: {p['median_phase_s']}",
                  f"- stop rules: {p['stop_rules']}; median timed calls: {p['median_timed_calls']}",
                  f"- flagged or wrong: {p['flagged_or_wrong'] or 'none'}", ""]
        lines += ["| solution | device s (3 sizes) |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in sorted(p["per_solution_device_s"].items())]
        lines.append("")
    if "after_over_before_e2e" in res:
        lines += [f"after / before end-to-end medians: {res['after_over_before_e2e']}", ""]
    for part, title in (("repeat", "reproducibility (two children of one call)"),
                        ("repeat-pinned", "reproducibility, children on the GPU's local CPUs")):
        if part not in res:
            continue
        r = res[part]
        lines += [f"## {title}", "",
                  f"- {r['pairs']} pairs over {r['solutions']} solutions; {r['within_2pct']} within 2 %",
                  f"- median |ratio - 1| {r['median_abs_dev']}, max {r['max_abs_dev']}",
                  f"- by size: {r['by_size']}", "",
                  "b / a of the end-to-end median and of the profiled parts (kernels, copies each "
                  "way, host CPU time of the call):", "",
                  "| task, solution, size | e2e | kernels | h2d | d2h | host CPU |",
                  "|---|---|---|---|---|---|"]
        comp = r.get("components") or {k: {"e2e": v} for k, v in r["ratios"].items()}
        lines += ["| " + " | ".join([k] + [str(c.get(n, "")) for n in ("e2e", *COMPONENTS)]) + " |"
                  for k, c in sorted(comp.items())]
        lines.append("")
    if "cheats" in res:
        missed = {k: v for k, v in res["cheats"].items() if v["missed"]}
        lines += ["## cheats (after)", "", f"- {len(res['cheats'])} rows, missed: {missed or 'none'}",
                  "", "| cheat, size | expected | raised |", "|---|---|---|"]
        lines += [f"| {k} | {', '.join(v['expected'])} | {', '.join(v['raised'])} |"
                  for k, v in sorted(res["cheats"].items())]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / ".cache" / "throughput"))
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--tasks", default="")
    ap.add_argument("--solutions", default="baseline.cu",
                    help="file-name glob of the solutions each task runs")
    ap.add_argument("--jobs", type=int, default=12)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--measure-s", type=float, default=2.0)
    ap.add_argument("--deadline-s", type=float, default=1e9,
                    help="start no new (part, task) after this many seconds")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    if not args.report_only:
        run(args)
    res = report(Path(args.out))
    print(json.dumps({k: v for k, v in res.items() if k != "parts"} | {
        "parts": {k: {kk: vv for kk, vv in p.items() if kk != "per_solution_device_s"}
                  for k, p in res.get("parts", {}).items()}}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
