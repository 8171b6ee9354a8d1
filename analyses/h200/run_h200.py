"""Produce the committed H200 run: every task's solutions and the cheating set at all sizes.

Usage (on the GPU machine, from the repository root):

    python3 analyses/h200/run_h200.py --store analyses/h200 [--sizes small,medium,large]
                                      [--tasks id,id] [--jobs 12]

Steps: compute every reference answer (4 input sets per task and size) in parallel, one
pinned core per job; then run each task's solutions and, for the harness fixture task, the
cheating set through ``strategylens.harness.benchmark`` (results appended per solution and size,
so a second call resumes). Finally it checks the audit outcome: every cheat must carry the flags
its first line names, and no honest solution may carry a cheating flag.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from strategylens.harness import RunConfig, benchmark, n_sets, solution_id  # noqa: E402
from strategylens.harness.audit import CHEATING_FLAGS  # noqa: E402
from strategylens.stats.data import size_dispatch  # noqa: E402
from strategylens.store import read_results  # noqa: E402
from strategylens.tasks import build_reference, list_tasks, load_task, run_reference  # noqa: E402
from strategylens.tasks.refrun import Cores  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "harness_task" / "saxpy"
CHEATS = ROOT / "tests" / "cheats"
# an honest solution raises none of them (precision and nan-output are warnings, not loopholes)
CHEAT_FLAGS = set(CHEATING_FLAGS)


def expected_flags(path: Path) -> set[str]:
    first = path.read_text().splitlines()[0]
    m = re.match(r"//\s*expect-flags:\s*(.*)", first)
    return {f.strip() for f in m.group(1).split(",")} if m else set()


def declared_dishonest() -> dict[str, str]:
    """Corpus solutions whose labels.yaml entry says ``honest: false``, with the reason."""
    import yaml  # noqa: PLC0415

    out = {}
    for labels in sorted((ROOT / "tasks").glob("*/labels.yaml")):
        for name, spec in (yaml.safe_load(labels.read_text()) or {}).items():
            if isinstance(spec, dict) and spec.get("honest") is False:
                out[f"tasks/{labels.parent.name}/solutions/{name}"] = spec.get("why", "")
    return out


def precompute(pairs, jobs: int) -> None:
    """Reference answers of every (task, size) in ``pairs`` for all its input sets, in parallel,
    each job pinned to its own core. Set 0 is timed (3 trials): those CPU times are measured
    while other references run on other cores, which the README discusses."""
    for t in {t.id: t for t, _ in pairs}.values():  # serially: parallel builds race
        build_reference(t)
    cores = Cores()
    work = [(t, z, k) for t, z in pairs for k in range(n_sets(z))]
    work.sort(key=lambda w: ("small", "medium", "large").index(w[1]), reverse=True)

    def one(i_w):
        i, (t, z, k) = i_w
        t0 = time.monotonic()
        try:
            with cores.take() as cpu:
                run_reference(t, z, trials=3 if k == 0 else 1, seed_offset=k, cpu=cpu)
        except Exception as exc:  # noqa: BLE001 - report and go on
            return f"reference {t.id}/{z}/s{k}: FAILED {exc}"
        return f"reference {t.id}/{z}/s{k}: {time.monotonic() - t0:.1f} s"

    t0 = time.monotonic()
    with ThreadPoolExecutor(jobs) as pool:
        for msg in pool.map(one, enumerate(work)):
            print(msg, file=sys.stderr, flush=True)
    print(f"references: {len(work)} in {time.monotonic() - t0:.1f} s", file=sys.stderr, flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", default=str(ROOT / "analyses" / "h200"))
    ap.add_argument("--sizes", default="small,medium,large")
    ap.add_argument("--tasks", default="")
    ap.add_argument("--solutions", default="",
                    help="comma-separated file-name globs (baseline.cu,abl-*): only those")
    ap.add_argument("--jobs", type=int, default=12)
    ap.add_argument("--measure-s", type=float, default=2.0)
    ap.add_argument("--no-cheats", action="store_true")
    ap.add_argument("--deadline-s", type=float, default=1e9,
                    help="start no new (task, size) after this many seconds")
    ap.add_argument("--references-only", action="store_true",
                    help="compute the reference answers the plan needs, then stop (a session "
                         "precomputes every task's references at once, on every core)")
    ap.add_argument("--legacy", action="store_true",
                    help="the harness as it measured the committed rows (before issue 12: "
                         "inputs rewritten and validated around every call, a child per size)")
    args = ap.parse_args()
    sizes = args.sizes.split(",")
    tasks = list_tasks()
    if args.tasks:
        keep = set(args.tasks.split(","))
        tasks = [t for t in tasks if t.id in keep]
    fixture = load_task(FIXTURE)
    fixture_sols = sorted((FIXTURE / "solutions").glob("*.cu"))
    if not args.no_cheats:
        fixture_sols += sorted(CHEATS.glob("*.cu"))
    store = Path(args.store)
    done = read_results(store)
    done = set(zip(done["task"], done["solution"], done["size"], strict=False)) if len(done) else set()
    # one benchmark call per task and all its sizes: each solution runs every size in one child
    # (the legacy harness ran a child per size anyway)
    plan = []
    with_fixture = not args.tasks or "saxpy" in args.tasks.split(",")  # --tasks names it
    for t in ([fixture] if with_fixture else []) + tasks:
        sols = fixture_sols if t is fixture else sorted((t.path / "solutions").glob("*.cu"))
        if args.solutions:
            sols = [s for s in sols if any(fnmatch.fnmatch(s.name, g)
                                           for g in args.solutions.split(","))]
        need = [z for z in sizes if any((t.id, solution_id(s), z) not in done for s in sols)]
        if sols and need:
            plan.append((t, sols, need))
    t_start = time.monotonic()
    precompute([(t, z) for t, _, need in plan for z in need], args.jobs)
    if args.references_only:
        return 0
    make = RunConfig.legacy if args.legacy else RunConfig
    cfg = make(measure_s=args.measure_s, solution_timeout_s=180)
    for t, sols, need in plan:
        if time.monotonic() - t_start > args.deadline_s:
            print(f"deadline: {t.id} {need} left for the next call", file=sys.stderr, flush=True)
            continue
        t0 = time.monotonic()
        benchmark(t, sols, need, store, cfg)
        print(f"{t.id} {need}: {time.monotonic() - t0:.1f} s for {len(sols)} solution(s)",
              file=sys.stderr, flush=True)
    print(f"total: {time.monotonic() - t_start:.1f} s", file=sys.stderr)

    df = read_results(args.store)
    problems = []
    dishonest = declared_dishonest()
    # host-compute below a size the same solution runs on the device: a size dispatch (LBL-06)
    dispatch = size_dispatch(df, df["audit_flags"].map(list))
    for i, r in df.iterrows():
        flags = set(r["audit_flags"]) - ({"host-compute"} if dispatch[i] else set())
        sol = ROOT / r["solution"]
        if r["solution"] in dishonest:
            if not flags & CHEAT_FLAGS:
                problems.append(f"DECLARED CHEAT NOT FLAGGED {r['solution']} {r['size']} "
                                f"({dishonest[r['solution']]}): raised {sorted(flags)}")
        elif r["solution"].startswith("tests/cheats/"):
            missing = expected_flags(sol) - flags
            if missing:
                problems.append(f"CHEAT MISSED {r['solution']} {r['size']}: missing {sorted(missing)}, raised {sorted(flags)}")
        else:
            if flags & CHEAT_FLAGS:
                problems.append(f"HONEST FLAGGED {r['task']} {r['solution']} {r['size']}: {sorted(flags)} {r['audit_detail']}")
            if not r["correct"]:
                problems.append(f"HONEST WRONG {r['task']} {r['solution']} {r['size']}: {r['status']} {r['status_detail'][:300]}")
    print("\n".join(problems) or "audit check: every cheat caught, no honest solution flagged")
    cols = ["task", "solution", "size", "correct", "status", "e2e_ms_median", "e2e_ms_rel_iqr",
            "n_trials", "stop_rule", "roundtrip_ms", "tamper_bound_ms", "speedup", "floor_ratio",
            "device_s", "audit_flags"]
    with_flags = df.assign(audit_flags=df["audit_flags"].map(";".join))
    print(with_flags[cols].to_string(max_colwidth=40))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
