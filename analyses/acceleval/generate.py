"""Generate every AccelEval task's inputs at one size from an unmodified checkout and run its C
reference through task_io_cpu.c, recording what worked, how long it took, and why a task failed.

    python analyses/acceleval/generate.py CHECKOUT [--size small] [--sets 2] [--out FILE.json]
                                          [--only id,id] [--checkout-commit SHA]

Writes FILE.json (default analyses/acceleval/generate-<size>.json) and prints a markdown table.
Set 0 and set 1 (the second seed) are generated; the reference runs on set 0 (3 calls). The
checkout is only read: inputs, builds and answers go to $STRATEGYLENS_CACHE.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

from strategylens import tasks as T
from strategylens.provenance import cpu_model, git_commit
from strategylens.tasks.acceleval_gen import gen_record, input_folder, same_as_first, time_limit_s


def one(task, size: str, sets: int) -> dict:
    row = {"task": task.id, "domain": task.domain, "size": size}
    t0 = time.monotonic()
    try:
        folder = input_folder(task, size, 0)
        rec = gen_record(folder)
        row.update(gen_s=round(rec["gen_s"], 2), magic=rec["magic"],
                   input_bytes=(folder / "input.bin").stat().st_size)
        for k in range(1, sets):
            input_folder(task, size, k)
        if sets > 1:
            row["seed_varies"] = not same_as_first(task, size, 1)
    except T.TaskError as exc:
        row.update(stage="generate", error=str(exc), wall_s=round(time.monotonic() - t0, 1))
        return row
    try:
        ref = T.run_reference(task, size, trials=3)
        r = ref.record
        row.update(ref_ms_median=round(r["median_s"] * 1e3, 3), n_values=r["n_values"],
                   buffers=len(r["buffers"]), poisoned=len(r["poisoned"]),
                   values_not_in_buffers=r["values_not_in_buffers"], mutated=r["mutated"])
    except T.TaskError as exc:
        row.update(stage="reference", error=str(exc), wall_s=round(time.monotonic() - t0, 1))
        return row
    row.update(stage="ok", wall_s=round(time.monotonic() - t0, 1))
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("checkout")
    ap.add_argument("--size", default="small")
    ap.add_argument("--sets", type=int, default=2)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--only", help="comma-separated task ids")
    ap.add_argument("--checkout-commit", help="the checkout's commit when it is not a git "
                                              "work tree (an archive)")
    args = ap.parse_args()
    tasks, errors = T.scan_tasks(acceleval=args.checkout)
    if args.only:
        tasks = [t for t in tasks if t.id in args.only.split(",")]
    out = args.out or Path(__file__).with_name(f"generate-{args.size}.json")
    rows = json.loads(out.read_text())["rows"] if out.exists() and args.only else []
    rows = [r for r in rows if r["task"] not in {t.id for t in tasks}]
    for t in tasks:
        row = one(t, args.size, args.sets)
        print(json.dumps(row), file=sys.stderr, flush=True)
        rows.append(row)
    rows.sort(key=lambda r: (r["domain"], r["task"]))
    head = subprocess.run(["git", "-C", args.checkout, "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip() or args.checkout_commit
    doc = {"checkout": str(Path(args.checkout).resolve()), "checkout_commit": head,
           "size": args.size, "loaded": len(tasks) if not args.only else None,
           "load_errors": errors, "time_limit_s": time_limit_s(), "cpu_model": cpu_model(),
           "python": platform.python_version(), "commit": git_commit(short=False),
           "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": rows}
    out.write_text(json.dumps(doc, indent=1) + "\n")
    ok = [r for r in rows if r["stage"] == "ok"]
    print("| task | domain | result | gen s | ref ms | values | seed varies |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        res = "ok" if r["stage"] == "ok" else f"fails ({r['stage']}): {r['error'][:160]}"
        print(f"| {r['task']} | {r['domain']} | {res} | {r.get('gen_s', '')} | "
              f"{r.get('ref_ms_median', '')} | {r.get('n_values', '')} | "
              f"{r.get('seed_varies', '')} |")
    print(f"\n{len(ok)} of {len(rows)} tasks generate {args.size} inputs and their answers")


if __name__ == "__main__":
    main()
