"""AccelEval's own evaluation of a run folder's samples, with its compile step run in parallel
first. Run inside a COPY of an AccelEval checkout (the working folder), by run_h200.py:

    python ae_driver.py RUN_NAME --sizes small,medium --tasks id,id --out-dir DIR
        [--samples 0,1] [--jobs 15] [--deadline-s N] [--compile-only]

Each sample is compiled once (``DIR/compiled.json`` keeps what earlier calls compiled) with AccelEval's ``framework.compile.compile_solution``
(``harness_gpu.cu`` + the task's ``task_io.cu`` + the sample, ``nvcc -O2``, ``--arch``), in a
thread pool. Then, per size and sample, AccelEval's ``framework.batch_eval.eval_single_sample``
runs as written (its benchmark: 3 warm-up + 5 timed calls from config.yaml, timing.json, its
``validate_output``), with the compile step answered from the first phase; each result is
appended to ``DIR/<size>/eval_results_<stamp>.json`` through AccelEval's ``save_eval_result``, so
a partial file is kept when the deadline stops the run. Nothing here changes how AccelEval
measures: only the order (compile everything first, in parallel; batch_eval compiles inside each
sequential GPU job). Prints one JSON line per compile and per evaluation.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

T0 = time.monotonic()


def _result(old: dict):
    from framework.compile import CompileResult  # noqa: PLC0415

    return CompileResult(success=old["ok"], executable_path=old["exe"], stderr=old["error"])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--sizes", default="small")
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--out-dir", type=Path, required=True)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--deadline-s", type=float, default=1e9)
    ap.add_argument("--samples", default="0,1", help="sample numbers to evaluate")
    ap.add_argument("--compile-only", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, os.getcwd())
    from framework import batch_eval  # noqa: PLC0415
    from framework.config import load_config, set_config  # noqa: PLC0415

    config = load_config(cli_args={"arch": args.arch, "gpus": 1, "no_nsys": True})
    set_config(config)
    run = Path("runs") / args.run
    samples = sorted((t, int(p.stem.split("_")[1]), p) for t in args.tasks.split(",")
                     for p in (run / t).glob("sample_*.cu")
                     if p.stem.split("_")[1] in args.samples.split(","))
    manifest = args.out_dir / "compiled.json"  # earlier calls' compiles, reused
    known = json.loads(manifest.read_text()) if manifest.exists() else {}

    def build(w):
        t, k, p = w
        key = f"{t}/sample_{k}"
        old = known.get(key)
        if old and (not old["ok"] or Path(old["exe"]).exists()):
            return (t, k), _result(old)
        t1 = time.monotonic()
        r = batch_eval.compile_solution(t, str(p), arch=args.arch, timeout=300)
        known[key] = {"ok": r.success, "exe": r.executable_path or "",
                      "error": "" if r.success else (r.stderr or "")[-800:]}
        print(json.dumps({"compile": key, "ok": r.success, "s": round(time.monotonic() - t1, 1),
                          "error": known[key]["error"]}), flush=True)
        return (t, k), r

    with ThreadPoolExecutor(args.jobs) as pool:
        compiled = dict(pool.map(build, samples))
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps(known, indent=1) + "\n")
    if args.compile_only:
        return 0
    batch_eval.compile_solution = lambda task_id, path, arch=None, **kw: compiled[
        (task_id, int(Path(path).stem.split("_")[1]))]
    stamp = time.strftime("%Y%m%d_%H%M%S")
    for size in args.sizes.split(","):
        os.environ["ACCELEVAL_VALIDATE_SIZES"] = size
        out = args.out_dir / size / f"eval_results_{stamp}.json"
        for t, k, p in samples:
            if time.monotonic() - T0 > args.deadline_s:
                print(json.dumps({"deadline": f"{size} {t}/sample_{k} not evaluated"}),
                      flush=True)
                continue
            t1 = time.monotonic()
            r = batch_eval.eval_single_sample(t, str(p), k, 0, args.arch, False, False)
            batch_eval.save_eval_result(r, str(out))
            b = r.benchmark or {}
            print(json.dumps({"eval": f"{size} {t}/sample_{k}", "compiled": r.compiled,
                              "correct": r.correct, "speedup_e2e": b.get("speedup_e2e"),
                              "s": round(time.monotonic() - t1, 1),
                              "error": (r.error or "")[:300]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
