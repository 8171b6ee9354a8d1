"""Tagging throughput on this machine: files per second for the tree-sitter path (--no-index)
and with the libclang index pass.

The corpus is every catalog example, task solution and tagger test fixture, copied round-robin
into a temporary folder until it holds at least --files files (each copy gets a unique trailing
comment so no two files are byte-identical). The cache is off, so every file is parsed and every
registered detector runs.

    .venv/bin/python analyses/tagger-bench/bench.py [--files 600] [--jobs 2] [--repeat 3]
        [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import datetime, UTC
from pathlib import Path

from strategylens import REPO_ROOT, __version__
from strategylens.provenance import cpu_model, git_commit
from strategylens.tag import get_catalog, resolve_detectors, tag_paths


DEFAULT_POOLS = [REPO_ROOT / "catalog", REPO_ROOT / "tasks", REPO_ROOT / "tests" / "fixtures" / "tagger"]


def sources(pools: list[Path] = DEFAULT_POOLS) -> list[Path]:
    out: list[Path] = []
    for pool in pools:
        out += sorted(p for p in pool.rglob("*") if p.suffix in (".cu", ".cuh") and p.is_file()
                      and ("solutions" in p.parts or pool.name != "tasks"))
    return out


def build_corpus(folder: Path, n: int, pools: list[Path]) -> tuple[int, int]:
    src = sources(pools)
    if not src:
        sys.exit("no .cu files found in catalog/, tasks/*/solutions or tests/fixtures/tagger")
    total = 0
    for i in range(n):
        p = src[i % len(src)]
        text = p.read_bytes() + f"\n// corpus copy {i}\n".encode()
        (folder / f"{i:05d}_{p.name}").write_bytes(text)
        total += len(text)
    return len(src), total


def run(folder: Path, jobs: int, index: bool) -> tuple[float, int, int]:
    t0 = time.perf_counter()
    ok = failed = 0
    for r in tag_paths([folder], jobs=jobs, index=index, cache=False):
        ok += r.ok
        failed += not r.ok
    return time.perf_counter() - t0, ok, failed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=600)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3, help="runs per path (median and best)")
    ap.add_argument("--out", type=Path, help="also write the report to this file")
    ap.add_argument("--pool", type=Path, action="append",
                    help="folder of .cu files to copy from (repeatable; default: catalog "
                         "examples, task solutions and tagger fixtures)")
    args = ap.parse_args()
    cat = get_catalog()
    n_det = sum(len(v) for v in resolve_detectors(None, cat).values())
    lines = [
        "# strategylens tag throughput",
        f"utc: {datetime.now(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}",
        f"commit: {git_commit() or 'no commit'}  strategylens {__version__}",
        f"machine: {cpu_model()}, {os.cpu_count()} CPUs, {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}; load average before the "
        f"run {os.getloadavg()[0]:.2f} (the machine is shared)",
        f"detectors: {n_det} registered for {len(resolve_detectors(None, cat))} IDs; "
        f"catalog version {cat.version}",
    ]
    with tempfile.TemporaryDirectory(prefix="strategylens-bench-") as tmp:
        folder = Path(tmp)
        n_src, size = build_corpus(folder, args.files, args.pool or DEFAULT_POOLS)
        lines.append(f"corpus: {args.files} files ({size / args.files / 1024:.1f} KiB mean) "
                     f"copied from {n_src} distinct sources; jobs={args.jobs}; cache off")
        lines.append("")
        lines.append("| path | files | runs | seconds (median) | files/s (median) | "
                     "files/s (best) | failed |")
        lines.append("|---|---|---|---|---|---|---|")
        for label, index in (("tree-sitter (--no-index)", False), ("with libclang index", True)):
            runs = [run(folder, args.jobs, index) for _ in range(args.repeat)]
            secs = sorted(r[0] for r in runs)
            n = runs[0][1] + runs[0][2]
            lines.append(f"| {label} | {n} | {args.repeat} | {statistics.median(secs):.2f} | "
                         f"{n / statistics.median(secs):.0f} | {n / secs[0]:.0f} | "
                         f"{max(r[2] for r in runs)} |")
        lines.append("")
        lines.append(f"load average after the runs: {os.getloadavg()[0]:.2f}")
    report = "\n".join(lines) + "\n"
    sys.stdout.write(report)
    if args.out:
        args.out.write_text(report)


if __name__ == "__main__":
    main()
