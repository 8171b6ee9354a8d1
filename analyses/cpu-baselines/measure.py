"""Measure every task's C reference on this machine, single-threaded and pinned to one core.

Writes, next to this script:
  trials.csv       one row per timed call (task, size, trial, seconds): the raw data
  records.jsonl    the full record of each (task, size) run (trials, CPU, gcc, commit, UTC)
  summary.csv      median / min / max per (task, size) with bytes in/out and the target check
  provenance.json  machine, compiler, commit, start and end time, load average

Usage: python analyses/cpu-baselines/measure.py [--sizes small,medium,large] [--trials 5]
       [--large-trials 2] [--tasks id,id]
Targets: medium within 0.05-2 s, large within 2-10 s (median of the trials).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import platform
import sys
from pathlib import Path

import numpy as np

from strategylens import __version__
from strategylens import tasks as T
from strategylens.provenance import cpu_model, git_commit

HERE = Path(__file__).resolve().parent
TARGETS = {"small": (0.0, 0.05), "medium": (0.05, 2.0), "large": (2.0, 10.0)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="small,medium")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--large-trials", type=int, default=2)
    ap.add_argument("--tasks", default="")
    ap.add_argument("--out", type=Path, default=HERE)
    ap.add_argument("--append", action="store_true", help="Add to existing files.")
    args = ap.parse_args()
    sizes = [s for s in args.sizes.split(",") if s]
    chosen = [T.load_task(t) for t in args.tasks.split(",") if t] or T.list_tasks()
    cpu = max(os.sched_getaffinity(0))
    args.out.mkdir(parents=True, exist_ok=True)
    mode = "a" if args.append else "w"
    prov = {
        "started_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "hostname": platform.node(), "cpu_model": cpu_model(), "logical_cpus": os.cpu_count(),
        "pinned_cpu": cpu, "gcc": T.gcc_version(), "gcc_flags": " ".join(T.GCC_FLAGS),
        "commit": git_commit(), "python": sys.version.split()[0], "numpy": np.__version__,
        "strategylens": __version__, "load_average_at_start": os.getloadavg(),
        "sizes": sizes, "trials": args.trials, "large_trials": args.large_trials,
        "note": "shared 2-core machine; other processes may have run on the other core",
    }
    trials_f = open(args.out / "trials.csv", mode, newline="")
    records_f = open(args.out / "records.jsonl", mode)
    summary_f = open(args.out / "summary.csv", mode, newline="")
    trials_w = csv.writer(trials_f)
    fields = ["task", "domain", "size", "median_s", "min_s", "max_s", "n_trials", "bytes_in",
              "bytes_out", "target_lo_s", "target_hi_s", "in_target", "gen_s", "utc"]
    summary_w = csv.DictWriter(summary_f, fieldnames=fields)
    if mode == "w":
        trials_w.writerow(["task", "size", "trial", "seconds", "cpu", "utc"])
        summary_w.writeheader()
    failures = 0
    for size in sizes:
        for task in chosen:
            n = args.large_trials if size == "large" else args.trials
            print(f"{task.id} {size}: {n} trials ...", file=sys.stderr, flush=True)
            try:
                run = T.run_reference(task, size, trials=n, remeasure=True, cpu=cpu)
            except (T.TaskError, MemoryError) as exc:
                print(f"  error: {exc}", file=sys.stderr, flush=True)
                failures += 1
                continue
            rec = run.record
            for i, t in enumerate(rec["trials_s"]):
                trials_w.writerow([task.id, size, i, f"{t:.6f}", rec["cpu"], rec["utc"]])
            records_f.write(json.dumps(rec) + "\n")
            lo, hi = TARGETS[size]
            med = rec["median_s"]
            summary_w.writerow({
                "task": task.id, "domain": task.domain, "size": size, "median_s": f"{med:.6f}",
                "min_s": f"{rec['min_s']:.6f}", "max_s": f"{max(rec['trials_s']):.6f}",
                "n_trials": len(rec["trials_s"]), "bytes_in": rec["bytes_in"],
                "bytes_out": rec["bytes_out"], "target_lo_s": lo, "target_hi_s": hi,
                "in_target": lo <= med <= hi, "gen_s": f"{rec['gen_s']:.3f}", "utc": rec["utc"]})
            for f in (trials_f, records_f, summary_f):
                f.flush()
            print(f"  median {med:.4f} s  trials {[round(t, 4) for t in rec['trials_s']]}",
                  file=sys.stderr, flush=True)
    prov["finished_utc"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    prov["load_average_at_end"] = os.getloadavg()
    prov_path = args.out / "provenance.json"
    if args.append and prov_path.exists():
        old = json.loads(prov_path.read_text())
        runs = old.get("runs", [old])
        prov = {"runs": [*runs, prov]}
    prov_path.write_text(json.dumps(prov, indent=2) + "\n")
    for f in (trials_f, records_f, summary_f):
        f.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
