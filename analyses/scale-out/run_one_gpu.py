"""One GPU, two ways: the same solutions through a plain run and through `--cluster local-cuda`
with one worker, in one device call (issue 16), and what the two agree on.

    python3 analyses/scale-out/run_one_gpu.py --out analyses/scale-out [--tasks a,b] [--sizes ...]
    python3 analyses/scale-out/run_one_gpu.py --out analyses/scale-out --report-only   # no GPU

Stores ``<out>/plain`` and ``<out>/cluster``; both resume. The report (``compare.md``,
``compare.json``) gives, per (task, solution, size), the two medians, their ratio and whether each
median lies within half the other run's interquartile range of the other median, and for each run the cells per
device-minute (cells finished over the wall time of the run, builds and references excluded:
they are done before either run starts).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from strategylens.harness import RunConfig, benchmark  # noqa: E402
from strategylens.store import read_results  # noqa: E402
from strategylens.tasks import list_tasks  # noqa: E402

TASKS = "bfs,heat2d,inventory_dp,knapsack,mc_asian,nbody,pagerank,smith_waterman,spmv_power,sph_density"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=ROOT / "analyses" / "scale-out")
    ap.add_argument("--tasks", default=TASKS)
    ap.add_argument("--sizes", default="small,medium,large")
    ap.add_argument("--measure-s", type=float, default=1.0)
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    sizes = args.sizes.split(",")
    keep = set(args.tasks.split(","))
    loaded = [(t, [t.path / "solutions" / "baseline.cu"]) for t in list_tasks() if t.id in keep]
    cfg = RunConfig(measure_s=args.measure_s, solution_timeout_s=180)
    walls = json.loads((args.out / "walls.json").read_text()) if (args.out / "walls.json").exists() else {}
    if not args.report_only:
        from strategylens.harness.cluster import run_on_cluster  # noqa: PLC0415

        t0 = time.monotonic()
        for t, files in loaded:  # references and inputs are prepared inside each task's call
            benchmark(t, files, sizes, args.out / "plain", cfg)
        walls["plain"] = walls.get("plain", 0.0) + time.monotonic() - t0
        t0 = time.monotonic()
        run_on_cluster("local-cuda", loaded, sizes, args.out / "cluster", cfg,
                       config={"n_workers": 1, "dashboard": None}, log=print)
        walls["cluster"] = walls.get("cluster", 0.0) + time.monotonic() - t0
        (args.out / "walls.json").write_text(json.dumps(walls))
    report(args.out, walls)
    return 0


def report(out: Path, walls: dict) -> None:
    a, b = read_results(out / "plain"), read_results(out / "cluster")
    if a.empty or b.empty:
        print("nothing to compare yet")
        return
    key = ["task", "solution", "size"]
    m = a.merge(b, on=key, suffixes=("_plain", "_cluster"))
    rows = []
    for _, r in m.iterrows():
        pa, pb = r["e2e_ms_median_plain"], r["e2e_ms_median_cluster"]
        if pa is None or pb is None or pa != pa or pb != pb:
            continue
        rows.append({
            "task": r["task"], "solution": r["solution"], "size": r["size"],
            "plain_ms": round(pa, 4), "cluster_ms": round(pb, 4), "ratio": round(pb / pa, 4),
            "plain_iqr": r.get("e2e_ms_iqr_plain"), "cluster_iqr": r.get("e2e_ms_iqr_cluster"),
            "cluster_in_plain_iqr": _inside(pb, pa, r.get("e2e_ms_iqr_plain")),
            "plain_in_cluster_iqr": _inside(pa, pb, r.get("e2e_ms_iqr_cluster")),
            "gpu_plain": r.get("gpu_index_plain"), "gpu_cluster": r.get("gpu_index_cluster"),
            "correct_both": bool(r["correct_plain"]) and bool(r["correct_cluster"]),
            "flags_plain": list(r["audit_flags_plain"]), "flags_cluster": list(r["audit_flags_cluster"]),
        })
    cells = {"plain": a.groupby(["task", "solution"]).ngroups,
             "cluster": b.groupby(["task", "solution"]).ngroups}
    rate = {k: round(cells[k] / (walls[k] / 60), 2) for k in cells if walls.get(k)}
    ctx = {"gpu": a["gpu_name"].iloc[0], "driver": a["driver"].iloc[0], "nvcc": a["nvcc"].iloc[0],
           "commit": a["commit"].iloc[0], "tool_sha": a["tool_sha"].iloc[0],
           "utc": str(b["utc"].max())}
    (out / "compare.json").write_text(json.dumps({"context": ctx, "cells": cells, "walls_s": walls,
                                                  "cells_per_device_minute": rate, "rows": rows},
                                                 indent=1, default=str))
    import numpy as np  # noqa: PLC0415

    ratios = np.array([r["ratio"] for r in rows])
    both = sum(r["cluster_in_plain_iqr"] and r["plain_in_cluster_iqr"] for r in rows)
    lines = ["# One GPU: plain run vs `--cluster local-cuda` (1 worker)", "",
             f"{ctx['gpu']}, driver {ctx['driver']}, {ctx['nvcc']}, commit {ctx['commit']} "
             f"(tool {ctx['tool_sha']}), {ctx['utc']}.", "",
             f"- cells (solution x sizes): plain {cells['plain']}, cluster {cells['cluster']}; "
             f"cells per device-minute: {rate}",
             f"- median ratio cluster/plain over {len(rows)} (solution, size): "
             f"{np.median(ratios):.4f} (range {ratios.min():.4f}-{ratios.max():.4f})" if len(rows) else "",
             f"- each median inside the other run's IQR: {both} of {len(rows)}", "",
             "| task | solution | size | plain ms | cluster ms | ratio | in IQR (both ways) | correct |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['task']} | {Path(r['solution']).name} | {r['size']} | {r['plain_ms']} | "
                     f"{r['cluster_ms']} | {r['ratio']} | "
                     f"{r['cluster_in_plain_iqr'] and r['plain_in_cluster_iqr']} | {r['correct_both']} |")
    (out / "compare.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def _inside(x, center, iqr) -> bool:
    try:
        return abs(x - center) <= float(iqr) / 2 + 1e-12
    except (TypeError, ValueError):
        return False


if __name__ == "__main__":
    sys.exit(main())
