"""Time the effects model on large simulated corpora (SIMULATED data).

    .venv/bin/python analyses/stats-bench/bench.py [--repeat 2]

1. about 70k passing rows over 10,800 task x size cells (3,600 tasks, 8 authors, 1 solution each,
   3 sizes): `fit_effects` without the bootstrap (with 100+ tasks the inference is CR1);
   the dense dummy design of the old code needed rows x (cells + authors)^2 and did not finish;
2. about 6.9k passing rows (240 tasks, 6 authors x 2 solutions, 3 sizes) with the CLI's default
   200-draw task-resampling bootstrap (the old code: 205 s);
3. a 12-task corpus with the wild cluster bootstrap on every row (the default for few tasks).

Prints wall-clock seconds per step (best of --repeat) and the machine load; writes
results.md beside this file.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

from strategylens import stats

HERE = Path(__file__).resolve().parent


def timed(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    stats.fit_effects(stats.simulate_corpus(n_tasks=4, n_authors=3, seed=0).data)  # imports, JIT
    lines = [f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
             f"load average before {os.getloadavg()[0]:.1f}", "",
             "| case | rows | cells | tasks | inference | seconds |", "|---|---|---|---|---|---|"]
    cases = [
        ("70k rows, no bootstrap", dict(n_tasks=3600, n_authors=8, samples=1, seed=1), 0),
        ("6.9k rows, 200-draw task bootstrap", dict(n_tasks=240, n_authors=6, samples=2,
                                                    seed=2), 200),
        ("12 tasks, wild bootstrap rows", dict(n_tasks=12, seed=3), 0),
    ]
    for name, kwargs, boot in cases:
        corpus = stats.simulate_corpus(**kwargs)
        table = corpus.data.table
        cells = table.groupby(["task", "size"]).ngroups
        secs, fit = timed(lambda c=corpus, b=boot: stats.fit_effects(
            c.data, structural=c.structural, bootstrap=b, seed=0), args.repeat)
        line = (f"| {name} | {len(table)} | {cells} | {table.task.nunique()} | "
                f"{fit.inference} | {secs:.1f} |")
        print(line, flush=True)
        lines.append(line)
    lines.append(f"\nload average after: {os.getloadavg()[0]:.1f}")
    (HERE / "results.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
