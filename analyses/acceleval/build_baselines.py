"""Build every AccelEval human baseline (tasks/<id>/gpu_baseline.cu) with strategylens's harness:
the task's own task_io.cu, strategylens's acceleval_io.h and the allocation tracker, nvcc for one
architecture (no GPU needed). Records which build, which need the bridge to the older
solution_init interface, and why the others fail.

    python analyses/acceleval/build_baselines.py CHECKOUT [--arch sm_90] [--out FILE.json]

Writes FILE.json (default analyses/acceleval/baselines-build.json) and prints a markdown table.
The checkout is only read: builds go to $STRATEGYLENS_CACHE/builds.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from strategylens import tasks as T
from strategylens.harness.adapter import build_adapter_solution
from strategylens.harness.build import nvcc_version
from strategylens.provenance import git_commit


def reason(error: str) -> str:
    """The first compiler or bridge error line of a failed build, without the build folder."""
    for line in error.splitlines():
        if re.search(r"error|undefined reference|older solution_init", line):
            return re.sub(r"/\S*/(ae-[0-9a-f]+|tasks)/", "", line.strip())[:300]
    return error.strip().splitlines()[-1][:300] if error.strip() else ""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("checkout")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("baselines-build.json"))
    args = ap.parse_args()
    tasks, _ = T.scan_tasks(acceleval=args.checkout)
    rows = []
    for t in tasks:
        src = t.path / "gpu_baseline.cu"
        if not src.exists():
            continue
        t0 = time.monotonic()
        res = build_adapter_solution(src, t, arch=args.arch)
        row = {"task": t.id, "domain": t.domain, "compiled": res.compiled,
               "bridged": "bridge:init+compute+free" in res.flags,
               "build_s": round(time.monotonic() - t0, 1),
               "kernels": len(res.kernels or []), "error": "" if res.compiled else reason(res.error),
               "error_tail": "" if res.compiled else res.error[-1500:]}
        print(json.dumps({k: v for k, v in row.items() if k != "error_tail"}), file=sys.stderr,
              flush=True)
        rows.append(row)
    doc = {"checkout": str(Path(args.checkout).resolve()), "arch": args.arch,
           "nvcc": nvcc_version(), "commit": git_commit(short=False),
           "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": rows}
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print("| baseline | builds | bridge to solution_init | why not |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['task']} | {'yes' if r['compiled'] else 'no'} | "
              f"{'yes' if r['bridged'] else 'no'} | {r['error'].replace('|', '/')} |")
    print(f"\n{sum(r['compiled'] for r in rows)} of {len(rows)} baselines build for {args.arch}")


if __name__ == "__main__":
    main()
