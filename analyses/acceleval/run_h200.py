"""AccelEval on the H200: the 14 human baselines and the project's own solutions for the tasks
both suites share, under strategylens at three sizes, and the same baselines under AccelEval's
own harness; then the side-by-side table.

    python3 analyses/acceleval/run_h200.py --out OUT [--checkout .acceleval] [--store DIR]
        [--deadline-s 130] [--parts sl-small,ae-small,...] [--tasks id,id] [--ae-samples 1]
        [--own GLOBS] [--dry-run]

The checkout (default ``.acceleval/``, carried unmodified) is only read. AccelEval's harness runs
in a COPY made under /tmp (``--copy``): its code unchanged; only its data folders, which it reads
inputs, expected outputs and the CPU time from, are filled from strategylens's set 0 (input.bin
with the magic its C reader checks, ``ORBENCH\\0``, since its own gen_data.py cannot make them on
an unmodified checkout; the answers of strategylens's reference; strategylens's pinned CPU
time). The baselines become a run folder of that copy,
``runs/human-baseline_l3_20261202_0000/<task>/``: ``sample_0.cu`` the baseline as written (older
init/compute interface), ``sample_1.cu`` the same file behind strategylens's generated bridge to
the current ``solution_compute`` (the unit strategylens compiles), so AccelEval's harness can time
the same code. strategylens runs ``sample_0.cu`` (it makes the bridge itself). AccelEval's side
is ``ae_driver.py``: its compile step for every sample first, in parallel, then its own
``eval_single_sample`` per sample.

Work, in order of value (``--parts``, default all): ``sl-small`` the baselines at small under
strategylens, ``ae-small`` the same under AccelEval's harness, ``sl-medium``, ``ae-medium``,
``sl-large``, ``ae-large``, then ``own``: the project's own solutions of the shared tasks
(black_scholes, smith_waterman) at the three sizes. Before a part, the references of its
(task, size) pairs run in parallel (one pinned core a job). Nothing new starts when its estimate
(``--unit-s`` per solution and size) would pass ``--deadline-s``; a store that already holds a
(solution, size), or an ``acceleval/<size>/`` folder that already holds a task, is skipped, so a
second call with the same ``--store`` resumes. ``--dry-run`` needs no GPU: it builds every
solution (strategylens, and AccelEval's compile step), makes the inputs and references of every
part and writes how long each took to ``plan.json``.

Writes under ``--out``: ``run.log`` lines, ``plan.json`` (durations), ``side_by_side.csv`` and
``side_by_side.md`` (and the store, default ``OUT/store``).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from strategylens.harness import RunConfig, benchmark, n_sets, solution_id  # noqa: E402
from strategylens.harness.adapter import build_adapter_solution, solution_unit  # noqa: E402
from strategylens.store import done_keys, read_results  # noqa: E402
from strategylens.tasks import TaskError, build_reference, list_tasks, load_task  # noqa: E402
from strategylens.tasks import run_reference  # noqa: E402
from strategylens.tasks.acceleval_ref import classification  # noqa: E402
from strategylens.tasks.refrun import Cores  # noqa: E402

RUN_NAME = "human-baseline_l3_20261202_0000"
SHARED = ("black_scholes", "smith_waterman")   # task ids in both suites
PARTS = ("sl-small", "ae-small", "sl-medium", "ae-medium", "sl-large", "ae-large", "own")
SIZES = ("small", "medium", "large")
AE_START_S, AE_UNIT_S = 4.0, 2.5  # AccelEval's part: process start, and per sample (estimates)
ORBENCH = b"ORBENCH\0"
T0 = time.monotonic()


def log(msg: str) -> None:
    line = f"[{time.monotonic() - T0:6.1f}s] {msg}"
    print(line, file=sys.stderr, flush=True)
    if LOG is not None:
        with open(LOG, "a") as f:
            f.write(line + "\n")


LOG: Path | None = None


def elapsed() -> float:
    return time.monotonic() - T0


# --------------------------------------------------------------------------- the copy

def make_copy(checkout: Path, copy: Path, tasks: list) -> dict[str, Path]:
    """The checkout copied to ``copy`` (no data/, cache/, runs/, compiled binaries) with the run
    folder of the baselines; returns task id -> the sample_0.cu strategylens runs."""
    if not (copy / ".complete").exists():
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(checkout, copy, symlinks=True, ignore=shutil.ignore_patterns(
            "data", "cache", "runs", "solution_cpu", "solution_gpu", ".git", "__pycache__"))
        (copy / ".complete").write_text("")
    run = copy / "runs" / RUN_NAME
    samples = {}
    for t in tasks:
        src = t.path / "gpu_baseline.cu"
        d = run / t.id
        d.mkdir(parents=True, exist_ok=True)
        s0 = d / "sample_0.cu"
        if not s0.exists() or s0.read_bytes() != src.read_bytes():
            s0.write_bytes(src.read_bytes())
        try:
            unit, bridged = solution_unit(s0, s0.read_text(errors="replace"), t)
        except ValueError as exc:  # BridgeError: sample_1 is left out, the reason logged
            log(f"{t.id}: no bridged sample_1: {exc}")
            unit, bridged = None, False
        if unit is not None and bridged:
            (d / "sample_1.cu").write_text(
                "// strategylens: the baseline sample_0.cu behind the generated bridge to the "
                "current solution_compute\n" + unit)
        for k in (0, 1):
            (d / f"sample_{k}_meta.json").write_text(json.dumps(
                {"model_id": "human-baseline", "provider": "AccelEval gpu_baseline.cu",
                 "task_id": t.id, "level": 3, "sample_id": k,
                 "bridged": k == 1}) + "\n")
        samples[t.id] = s0
    return samples


def stage_data(task, size: str, copy: Path) -> None:
    """AccelEval's data/<size>/ of the copy from strategylens's set 0: the inputs (magic
    ORBENCH), the reference's answers as expected_output.txt, the CPU time strategylens
    measured (single thread, pinned) as cpu_time_ms.txt."""
    from strategylens.tasks.acceleval_gen import input_folder, side_files  # noqa: PLC0415

    src = input_folder(task, size, 0)
    # the trials references() ran (a cached run with fewer would be measured again)
    ref = run_reference(task, size, trials=ref_trials(size), seed_offset=0)
    dst = copy / "tasks" / task.id / "data" / size
    dst.mkdir(parents=True, exist_ok=True)
    data = bytearray((src / "input.bin").read_bytes())
    data[:8] = ORBENCH
    (dst / "input.bin").write_bytes(bytes(data))
    for f in side_files(src):
        shutil.copyfile(f, dst / f.name)
    values = ref.outputs["output"]
    fmt = "%d" if values.dtype.kind in "iu" or task.correctness.mode == "exact" else "%.17g"
    with open(dst / "expected_output.txt", "w") as f:
        for v in values:
            f.write((fmt % v) + "\n")
    (dst / "cpu_time_ms.txt").write_text(f"{ref.record['median_s'] * 1e3:.3f}\n")


# --------------------------------------------------------------------------- the two harnesses

def ref_trials(size: str) -> int:
    """Timed reference calls of set 0: three at small; one at medium and large, where one call
    takes seconds (timer noise is small beside it). On the H200 (2026-12-02, second session's
    first call) the medium references with three calls did not finish in the 95 s left."""
    return 3 if size == "small" else 1


def references(pairs: list, jobs: int, deadline: float) -> dict:
    """Every input set's reference of each (task, size), in parallel, one pinned core a job;
    returns (task, size) -> seconds (the sum over its sets), or the error."""
    tasks = list({t.id: t for t, _ in pairs}.values())
    for t in tasks:
        if not t.format.adapter:  # an AccelEval task's driver is built by run_reference
            build_reference(t)
    cores = Cores()

    def classify(t):  # once per task before its sets run at once (they each classified it)
        try:
            with cores.take() as cpu:
                classification(t, cpu)
        except TaskError as exc:
            log(f"reference {t.id}: {str(exc)[:200]}")

    # the timed set 0 of the largest size first: it is the longest job
    work = sorted(((t, z, k) for t, z in pairs for k in range(n_sets(z))),
                  key=lambda w: (-SIZES.index(w[1]), w[2] != 0))
    spent: dict = {}

    def one(i_w):
        i, (t, z, k) = i_w
        if elapsed() > deadline:
            return t, z, None, "deadline"
        t0 = time.monotonic()
        try:
            with cores.take() as cpu:
                run_reference(t, z, trials=ref_trials(z) if k == 0 else 1, seed_offset=k,
                              cpu=cpu)
        except TaskError as exc:
            log(f"reference {t.id}/{z} set {k}: {str(exc)[:200]}")
            return t, z, None, str(exc)[:300]
        # one line a job: on the H200 the medium references twice ran past the call's limit
        # with no line to say which job held them up
        log(f"reference {t.id}/{z} set {k}: {time.monotonic() - t0:.1f} s")
        return t, z, time.monotonic() - t0, None

    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(classify, [t for t in tasks if t.format.adapter]))
        for t, z, s, err in pool.map(one, enumerate(work)):
            cur = spent.setdefault((t.id, z), 0.0)
            spent[(t.id, z)] = err if err else (cur if isinstance(cur, str) else cur + s)
    return spent


def ae_driver(copy: Path, ids: list[str], sizes: list[str], store: Path, jobs: int,
              deadline: float, samples: str, compile_only: bool = False) -> list[dict]:
    """ae_driver.py in the copy (AccelEval's compile step for every sample, then its own
    eval_single_sample per size and sample); its eval_results go to ``store/acceleval/<size>/``.
    Returns its JSON lines (also logged)."""
    cmd = [sys.executable, str(ROOT / "analyses" / "acceleval" / "ae_driver.py"), RUN_NAME,
           "--tasks", ",".join(ids), "--sizes", ",".join(sizes), "--jobs", str(jobs),
           "--samples", samples,
           "--out-dir", str((store / "acceleval").resolve()),
           "--deadline-s", str(max(1.0, deadline - elapsed()))]
    if compile_only:
        cmd.append("--compile-only")
    env = dict(os.environ, PYTHONPATH=str(copy))
    lines = []
    try:
        p = subprocess.run(cmd, cwd=copy, capture_output=True, text=True, env=env,
                           timeout=max(5.0, deadline - elapsed() + 25))
        text, rc = p.stdout, p.returncode
        err = p.stderr
    except subprocess.TimeoutExpired as exc:
        text, rc, err = (exc.stdout or b"").decode(errors="replace") if isinstance(
            exc.stdout, bytes) else (exc.stdout or ""), "timeout", ""
    for ln in text.splitlines():
        try:
            lines.append(json.loads(ln))
        except json.JSONDecodeError:
            continue
    for d in lines:
        if d.get("error") or "deadline" in d or "eval" in d:
            log(f"AccelEval {json.dumps(d)[:400]}")
    if rc != 0:
        log(f"ae_driver.py exit {rc}: {err[-800:]}")
    return lines


# --------------------------------------------------------------------------- the table

def table(store: Path, samples: dict[str, Path], out: Path) -> list[dict]:
    """Per baseline and size: AccelEval's figures on sample_1 (bridged: the code strategylens
    runs) or else sample_0, its verdict on sample_0 as written when evaluated, strategylens's row
    of sample_0, and where they differ; then strategylens's rows AccelEval has no figure for."""
    import pandas as pd  # noqa: PLC0415

    from strategylens.runfolders import read_eval_results, side_by_side  # noqa: PLC0415

    sl = read_results(store).to_dict("records") if (store / "results").is_dir() else []
    rows = []
    for size_dir in sorted((store / "acceleval").glob("*")):
        ae = [r for r in read_eval_results(size_dir)] if list(size_dir.glob("*.json")) else []
        by = {(r["task"], r["sample"]): r for r in ae}
        for task, s0 in sorted(samples.items()):
            a0, a1 = by.get((task, 0)), by.get((task, 1))
            if a0 is None and a1 is None:
                continue
            a = dict(a1 or a0, path=str(s0.resolve()), size=size_dir.name)
            r = side_by_side([a], sl)[0]
            r.update(solution=solution_id(s0), ae_sample=a["sample"],
                     ae_as_written=("not evaluated" if a0 is None else
                                    "correct" if a0["correct"] else
                                    "compiled, wrong" if a0["compiled"] else "does not compile"),
                     ae_error=a["error"][:160])
            rows.append(r)
    have = {(r["task"], r["size"]) for r in rows}
    for s in sl:  # strategylens rows AccelEval has no figure for (not run, or own solutions)
        task = s["task"]
        if (task, s["size"]) in have and s["solution"] == solution_id(samples.get(task, Path())):
            continue
        rows.append({"task": task, "sample": None, "size": s["size"],
                     "solution": s["solution"], "sl_status": s.get("status"),
                     "sl_correct": bool(s.get("correct")), "sl_e2e_ms": s.get("e2e_ms_median"),
                     "sl_cpu_ms": s.get("cpu_ms"), "sl_speedup": s.get("speedup"),
                     "sl_flags": ";".join(s.get("audit_flags") or []),
                     "disagreement": "no AccelEval figure"})
    frame = pd.DataFrame(rows)
    frame.to_csv(out / "side_by_side.csv", index=False)
    cols = ["task", "size", "solution", "ae_as_written", "ae_sample", "ae_compiled",
            "ae_correct", "ae_e2e_ms", "ae_cpu_ms", "ae_speedup", "sl_status", "sl_correct",
            "sl_e2e_ms", "sl_cpu_ms", "sl_speedup", "sl_speedup_on_ae_cpu", "sl_flags",
            "disagreement", "ae_error"]
    with open(out / "side_by_side.md", "w") as f:
        f.write("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
        for r in rows:
            cells = []
            for c in cols:
                v = r.get(c)
                cells.append(f"{v:.4g}" if isinstance(v, float) else
                             ("" if v is None else str(v).replace("|", "/")))
            f.write("| " + " | ".join(cells) + " |\n")
    return rows


# --------------------------------------------------------------------------- main

def main() -> int:
    global LOG
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "/tmp/acceleval-out")))
    ap.add_argument("--checkout", type=Path, default=ROOT / ".acceleval")
    ap.add_argument("--copy", type=Path, default=Path("/tmp/acceleval-copy"))
    ap.add_argument("--store", type=Path, help="results store (default OUT/store)")
    ap.add_argument("--deadline-s", type=float, default=130.0)
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--tasks", default="", help="baseline task ids (default: all 14)")
    ap.add_argument("--measure-s", type=float, default=0.5)
    ap.add_argument("--unit-s", type=float, default=5.0,
                    help="estimated GPU seconds of one (solution, size): nothing starts that "
                         "would pass the deadline by this estimate")
    ap.add_argument("--ae-samples", default="1",
                    help="samples AccelEval's harness compiles and runs: 1 (the bridged baseline, "
                         "default), 0,1 (also the baseline as written, whose call does not match "
                         "the current task_io.cu: it may crash or hang until AccelEval's timeout)")
    ap.add_argument("--own", default="*.cu",
                    help="file-name globs of the shared tasks' own solutions (own part)")
    ap.add_argument("--jobs", type=int, default=max(1, len(os.sched_getaffinity(0)) - 1))
    ap.add_argument("--table-only", action="store_true",
                    help="only write side_by_side.{md,csv} from the store")
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU: build, compile under AccelEval, generate inputs and references")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    LOG = args.out / "run.log"
    store = args.store or args.out / "store"
    store.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("STRATEGYLENS_CACHE", str(args.out / "cache"))
    gen_limit = float(os.environ.get("STRATEGYLENS_GEN_TIMEOUT", "60"))
    parts = [p for p in args.parts.split(",") if p]
    bad = [p for p in parts if p not in PARTS]
    if bad:
        raise SystemExit(f"--parts: unknown {bad} (have {', '.join(PARTS)})")
    checkout = args.checkout.resolve()
    ae_tasks = [t for t in list_tasks(acceleval=checkout) if (t.path / "gpu_baseline.cu").exists()]
    if args.tasks:
        ae_tasks = [t for t in ae_tasks if t.id in args.tasks.split(",")]
    own = [load_task(i) for i in SHARED]
    log(f"{len(ae_tasks)} baselines: {' '.join(t.id for t in ae_tasks)}; shared own tasks "
        f"{' '.join(SHARED)}; parts {parts}; deadline {args.deadline_s:.0f} s; "
        f"dry run {args.dry_run}")
    timings: dict = {"parts": {}}
    t = time.monotonic()
    samples = make_copy(checkout, args.copy, ae_tasks)
    if args.table_only:
        rows = table(store, samples, args.out)
        log(f"side_by_side: {len(rows)} row(s) in {args.out / 'side_by_side.md'}")
        return 0
    timings["copy_s"] = round(time.monotonic() - t, 1)

    # builds (nvcc, no GPU), at once: strategylens's of each sample_0 and, in the background,
    # AccelEval's compile step of sample_0 and sample_1
    t = time.monotonic()
    ae_parts = args.dry_run or any(p.startswith("ae") for p in parts)
    # slowest builds first (the committed CPU build times), so that one long nvcc starts at once
    measured = Path(__file__).with_name("baselines-build.json")
    slow = ({r["task"]: r["build_s"] for r in json.loads(measured.read_text())["rows"]}
            if measured.exists() else {})
    order = sorted(ae_tasks, key=lambda x: -slow.get(x.id, 0.0))
    with ThreadPoolExecutor(2) as outer:
        ae_job = outer.submit(ae_driver, args.copy, [x.id for x in order], ["small"], store,
                              max(1, args.jobs // 2), args.deadline_s, args.ae_samples,
                              True) if ae_parts else None
        with ThreadPoolExecutor(args.jobs) as pool:
            builds = dict(zip([x.id for x in order], pool.map(
                lambda x: build_adapter_solution(samples[x.id], x, arch="sm_90"), order),
                              strict=True))
        timings["sl_build_s"] = round(time.monotonic() - t, 1)
        comp = ae_job.result() if ae_job else []
    timings["builds_s"] = round(time.monotonic() - t, 1)
    timings["ae_compile"] = {d["compile"]: d["ok"] for d in comp if "compile" in d}
    built = [x for x in ae_tasks if builds[x.id].compiled]
    for x in ae_tasks:
        if not builds[x.id].compiled:
            err = [ln for ln in builds[x.id].error.splitlines() if "error" in ln][:1]
            log(f"{x.id}: does not build under strategylens: {(err or [''])[0][-220:]}")
    log(f"builds: {len(built)} of {len(ae_tasks)} under strategylens, "
        f"{sum(timings['ae_compile'].values())} of {len(timings['ae_compile'])} samples under "
        f"AccelEval's compile step, {timings['builds_s']} s")

    done = done_keys(store)
    for i_part, part in enumerate(parts):
        kind, _, size = part.partition("-")
        t_part = time.monotonic()
        if elapsed() > args.deadline_s:
            log(f"deadline: part {part} not started")
            timings["parts"][part] = "not started (deadline)"
            continue
        pairs = ([(x, z) for x in own for z in SIZES] if kind == "own"
                 else [(x, size) for x in built])
        # no reference may run past the deadline (one over its limit fails, uncached: the next
        # call tries it again)
        os.environ["STRATEGYLENS_GEN_TIMEOUT"] = str(round(min(
            gen_limit, max(10.0, args.deadline_s - elapsed())), 1))
        refs = references(pairs, args.jobs, args.deadline_s)
        timings["parts"][part] = {"references": {f"{k[0]}/{k[1]}": (round(v, 1) if isinstance(
            v, float) else v) for k, v in refs.items()},
            "references_s": round(time.monotonic() - t_part, 1)}
        ok_pairs = [(x, z) for x, z in pairs if isinstance(refs.get((x.id, z)), float)]
        for x, z in pairs:
            if not isinstance(refs.get((x.id, z)), float):
                log(f"{part} {x.id}/{z}: no reference ({refs.get((x.id, z))})")
        log(f"{part}: inputs and references of {len(ok_pairs)} (task, size) in "
            f"{time.monotonic() - t_part:.1f} s")
        if args.dry_run:
            if kind == "ae":  # the data folders AccelEval would read, made and timed
                t = time.monotonic()
                for x, _ in ok_pairs:
                    stage_data(x, size, args.copy)
                timings["parts"][part]["stage_s"] = round(time.monotonic() - t, 1)
            continue
        cfg = RunConfig(measure_s=args.measure_s, warmup_s=0.2, solution_timeout_s=120,
                        call_timeout_s=30)
        if kind in ("sl", "own"):
            # leave AccelEval's part of the same size time for the tasks run here (about
            # AE_UNIT_S each), so that a tight deadline still gives pairs side by side
            pair_ae = kind == "sl" and f"ae-{size}" in parts[i_part + 1:]
            ran = 0
            for x in (own if kind == "own" else built):
                zs = [z for xx, z in ok_pairs if xx is x]
                sols = ([s for s in sorted((x.path / "solutions").glob("*.cu"))
                         if any(fnmatch.fnmatch(s.name, g) for g in args.own.split(","))]
                        if kind == "own" else [samples[x.id]])
                zs = [z for z in zs if any((x.id, solution_id(s), z) not in done for s in sols)]
                if not zs:
                    continue
                reserve = AE_START_S + AE_UNIT_S * (ran + 1) if pair_ae else 0.0
                if elapsed() + args.unit_s * len(sols) * len(zs) > args.deadline_s - reserve:
                    log(f"deadline: {part} {x.id} {zs} left for the next call")
                    continue
                ran += 1
                t = time.monotonic()
                try:
                    benchmark(x, sols, zs, store, cfg, arch="sm_90", log=log)
                except Exception as exc:  # noqa: BLE001 - record and go on
                    log(f"{part} {x.id}: FAILED {type(exc).__name__}: {exc}")
                log(f"{part} {x.id} {zs}: {time.monotonic() - t:.1f} s")
        else:
            have = set()
            for f in (store / "acceleval" / size).glob("eval_results_*.json"):
                have |= {k.rpartition("_sample_")[0] for k in json.loads(f.read_text())}
            ids = [x.id for x, _ in ok_pairs if x.id not in have]
            in_sl = {r[0] for r in done_keys(store) if r[2] == size}
            ids.sort(key=lambda i: i not in in_sl)  # those strategylens ran first
            if not ids:
                continue
            if elapsed() + args.unit_s > args.deadline_s:
                log(f"deadline: AccelEval {size} {ids} left for the next call")
                continue
            for x in ae_tasks:
                if x.id in ids:
                    try:
                        stage_data(x, size, args.copy)
                    except TaskError as exc:  # that task is left out, the others run
                        log(f"{part} {x.id}: no data for AccelEval's harness ({exc})")
                        ids.remove(x.id)
            if not ids:
                continue
            ae_driver(args.copy, ids, [size], store, args.jobs, args.deadline_s, args.ae_samples)
        timings["parts"][part]["wall_s"] = round(time.monotonic() - t_part, 1)
    timings["total_s"] = round(elapsed(), 1)
    (args.out / "plan.json").write_text(json.dumps(timings, indent=1) + "\n")
    if not args.dry_run:
        rows = table(store, samples, args.out)
        log(f"side_by_side: {len(rows)} row(s) in {args.out / 'side_by_side.md'}")
    log(f"total {elapsed():.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
