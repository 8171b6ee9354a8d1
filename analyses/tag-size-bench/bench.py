"""Cost of tagging one large file: wall time and peak memory against file size.

Each file is the task solutions' sources concatenated, each copy in a namespace of its own,
then one ``solution_compute`` that calls every copy's entry point: a long but ordinary CUDA
file whose code is all reachable. Each size is tagged by the CLI in a fresh process
(`strategylens tag FILE -f jsonl --no-cache`) with the size limit raised and the per-file
bounds given on the command line; peak memory is the largest resident set of the CLI and its worker
(``getrusage(RUSAGE_CHILDREN)``).

    .venv/bin/python analyses/tag-size-bench/bench.py [--sizes 100K,1M,5M] [--timeout 600]
        [--max-memory 4096] [--no-index] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from strategylens import REPO_ROOT, __version__
from strategylens.provenance import cpu_model, git_commit

UNITS = {"K": 1000, "M": 1000_000}


def sources() -> list[str]:
    """The task solutions' sources (the bundled ports and corpus files)."""
    return [p.read_text(encoding="utf-8", errors="replace")
            for p in sorted((REPO_ROOT / "tasks").glob("*/solutions/*.cu"))]


def make_file(size: int, path: Path) -> int:
    """Write a .cu of about ``size`` bytes: solution files, each in a namespace of its own with
    its entry point renamed (``solution_compute_<k>``), then one ``solution_compute`` that
    calls every one (so all of the code is reachable). Returns how many solution copies it holds."""
    includes: dict[str, None] = {}
    parts, calls, total, k = [], [], 0, 0
    pool = sources()
    while total < size:
        text = pool[k % len(pool)]
        body = []
        for line in text.splitlines():
            if line.lstrip().startswith("#include"):
                includes[line.strip()] = None
            else:
                body.append(line)
        code = "\n".join(body).replace('extern "C"', "")
        code = re.sub(r"\bsolution_compute\b", f"solution_compute_{k}", code)
        block = f"namespace s{k} {{\n{code}\n}}  // namespace s{k}\n"
        sig = re.search(rf"\bsolution_compute_{k}\s*\(([^)]*)\)", code)
        params = sig.group(1).strip() if sig else ""
        n_args = 0 if params in ("", "void") else params.count(",") + 1
        calls.append(f"    s{k}::solution_compute_{k}({', '.join(['{}'] * n_args)});\n")
        parts.append(block)
        total += len(block)
        k += 1
    head = "\n".join(includes) + "\n"
    tail = '\nextern "C" void solution_compute() {\n' + "".join(calls) + "}\n"
    path.write_text(head + "".join(parts) + tail)
    return k


def run(path: Path, args) -> dict:
    cmd = [sys.executable, "-m", "strategylens.cli", "tag", str(path), "-f", "jsonl",
           "--no-cache", "-j", "1", "--max-bytes", str(20 * 2**20),
           "--timeout", str(args.timeout), "--max-memory", str(args.max_memory)]
    if args.no_index:
        cmd.append("--no-index")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    rec = json.loads(proc.stdout.splitlines()[-1]) if proc.stdout.strip() else {}
    return {"bytes": path.stat().st_size, "wall_s": round(wall, 2),
            "peak_rss_mib": round(max(peak, before) / 1024, 1),  # ru_maxrss is in KiB
            "exit": proc.returncode, "ok": rec.get("ok"), "labels": len(rec.get("labels", [])),
            "error": rec.get("error")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100K,1M,5M")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--max-memory", type=int, default=4096)
    ap.add_argument("--no-index", action="store_true")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for spec in args.sizes.split(","):
            size = int(float(spec[:-1]) * UNITS[spec[-1].upper()]) if spec[-1].isalpha() \
                else int(spec)
            path = Path(tmp) / f"big_{spec}.cu"
            kernels = make_file(size, path)
            row = {"size": spec, "solutions": kernels, **run(path, args)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    context = {"commit": git_commit(), "tool_version": __version__, "cpu": cpu_model(),
               "python": platform.python_version(), "utc": datetime.now(UTC).isoformat(
                   timespec="seconds"), "index": not args.no_index, "timeout_s": args.timeout,
               "max_memory_mib": args.max_memory}
    if args.out:
        args.out.write_text(json.dumps({"context": context, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
