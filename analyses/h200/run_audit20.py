"""Issue 20's GPU check: the new cheats and the failing solutions at the sizes the GPU tests do
not cover, and the honest solutions the changed checks could touch.

Usage (on the GPU machine, from the repository root; ``run_audit20.sh`` wraps it):

    python3 analyses/h200/run_audit20.py --store DIR [--parts fixture,failing,honest]
                                         [--measure-s 0.4] [--deadline-s 60]

``tests/test_harness_gpu.py`` runs every cheat and failing solution at the small size; this adds
medium and large for the cheats of issue 20 (``async_*``, ``host_token``) beside the two honest
saxpy ports, medium for the failing solutions that return, and small (medium for the ones
with streams, page-locked or mapped memory) for task solutions that use asynchronous copies,
streams, mapped memory, host work or tiny launches: the cases the new checks at return and the
size-independent host-compute signature could misjudge. It then checks the outcome (every cheat
carries its flags, no honest row a cheating flag, a failing row says what went wrong) and
prints, per row, what the checks at return saw.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from run_h200 import expected_flags, precompute  # noqa: E402

from strategylens.harness import RunConfig, benchmark  # noqa: E402
from strategylens.harness.audit import CHEATING_FLAGS  # noqa: E402
from strategylens.store import read_results, read_trials  # noqa: E402
from strategylens.tasks import load_task  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "harness_task" / "saxpy"
CHEATS = ROOT / "tests" / "cheats"
FAILING = ROOT / "tests" / "failing"
NEW_CHEATS = ["async_registered", "async_per_thread", "async_nonblocking", "host_token"]
# task -> (solutions, sizes): asynchronous copies and streams, mapped memory, host work, graph
# launches, one-thread launches beside real ones, inputs passed as kernel arguments
HONEST = {
    "black_scholes": (["zerocopy", "expert", "abl-xfer-overlap"], ["small", "medium"]),
    "heat2d": (["streaming"], ["small", "medium"]),
    "bfs": (["hybrid"], ["small", "medium"]),
    "histogram": (["abl-overlap"], ["small"]),
    "mc_asian": (["transfer"], ["small"]),
    "knapsack": (["graph"], ["small"]),
    "pagerank": (["abl-resident"], ["small"]),
    "inventory_dp": (["oneblock"], ["small"]),
}


def expected_failure(path: Path) -> str:
    return path.read_text().splitlines()[0].split(":", 1)[1].strip()


def plan(parts: set[str]) -> list[tuple]:
    """(task, sources, sizes) in the order they run."""
    fixture = load_task(FIXTURE)
    out = []
    if "fixture" in parts:
        sols = sorted((FIXTURE / "solutions").glob("*.cu")) + [CHEATS / f"{c}.cu" for c in NEW_CHEATS]
        out.append((fixture, sols, ["medium", "large"]))
    if "failing" in parts:
        sols = [p for p in sorted(FAILING.glob("*.cu")) if expected_failure(p) == "wrong"]
        out.append((fixture, sols, ["medium"]))
    if "honest" in parts:
        for task_id, (names, sizes) in HONEST.items():
            task = load_task(ROOT / "tasks" / task_id)
            out.append((task, [task.path / "solutions" / f"{n}.cu" for n in names], sizes))
    return out


def return_checks(trials) -> dict:
    """Per (solution, size): what the checks at return saw."""
    out = {}
    if trials.empty or "return_checked" not in trials:
        return out
    for (sol, size), g in trials.groupby(["solution", "size"]):
        timed = g[g["phase"] == "timed"]
        checked = g[g["return_checked"].fillna(0) > 0]
        pending = int(timed["return_pending"].fillna(False).astype(bool).sum())
        late = int((checked["return_changed"] > 0).sum())
        tail = float((timed["inside_ms"] - timed["return_ms"]).median()) if len(timed) else None
        out[(sol, size)] = (f"work queued at return in {pending}/{len(timed)} timed calls; "
                            f"outputs unfinished in {late}/{len(checked)} checked calls; median "
                            f"idle after return {tail if tail is None else round(tail, 4)} ms")
    return out


def check(store: Path) -> list[str]:
    df = read_results(store)
    problems = []
    for r in df.to_dict("records"):
        flags, sol = set(r["audit_flags"]), ROOT / r["solution"]
        where = f"{r['task']} {r['solution']} {r['size']}"
        if r["solution"].startswith("tests/cheats/"):
            missing = expected_flags(sol) - flags
            if missing:
                problems.append(f"CHEAT MISSED {where}: missing {sorted(missing)}, raised "
                                f"{sorted(flags)}")
        elif r["solution"].startswith("tests/failing/"):
            if r["correct"] or "cross-call-state" in flags:
                problems.append(f"FAILING MISJUDGED {where}: correct={r['correct']} {sorted(flags)}")
            if expected_failure(sol) == "wrong" and not r.get("mismatch"):
                problems.append(f"FAILING UNDESCRIBED {where}: no mismatch summary")
        else:
            if flags & CHEATING_FLAGS:
                problems.append(f"HONEST FLAGGED {where}: {sorted(flags)} {r['audit_detail']}")
            if not r["correct"]:
                problems.append(f"HONEST WRONG {where}: {r['status']} {r['status_detail'][:300]} "
                                f"{r.get('mismatch') or ''}")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", required=True)
    ap.add_argument("--parts", default="fixture,failing,honest")
    ap.add_argument("--measure-s", type=float, default=0.4)
    ap.add_argument("--jobs", type=int, default=12)
    ap.add_argument("--deadline-s", type=float, default=60.0,
                    help="start no new (task, solutions) group after this many seconds")
    args = ap.parse_args()
    store = Path(args.store)
    work = plan(set(args.parts.split(",")))
    t_start = time.monotonic()
    precompute(sorted({(t.id, z): (t, z) for t, _, sizes in work for z in sizes}.values(),
                      key=lambda tz: (tz[0].id, tz[1])), args.jobs)
    cfg = RunConfig(warmup_s=0.1, measure_s=args.measure_s, solution_timeout_s=120)
    for task, sols, sizes in work:
        if time.monotonic() - t_start > args.deadline_s:
            print(f"deadline: {task.id} {[s.name for s in sols]} {sizes} not run", file=sys.stderr,
                  flush=True)
            continue
        t0 = time.monotonic()
        benchmark(task, sols, sizes, store, cfg)
        print(f"{task.id} {sizes}: {time.monotonic() - t0:.1f} s for {len(sols)} solution(s)",
              file=sys.stderr, flush=True)
    print(f"total: {time.monotonic() - t_start:.1f} s", file=sys.stderr, flush=True)

    df = read_results(store)
    seen = return_checks(read_trials(store))
    for r in df.sort_values(["task", "solution", "size"]).to_dict("records"):
        detail = json.loads(r["audit_detail"])
        print(f"{r['task']} {r['solution']} {r['size']}: correct={r['correct']} "
              f"status={r['status']} e2e={r['e2e_ms_median']} flags={';'.join(r['audit_flags'])}"
              f" device_s={r['device_s']}")
        print(f"    return: {seen.get((r['solution'], r['size']), '-')}")
        for name in ("work-after-return", "host-compute", "cross-call-state"):
            if name in detail:
                print(f"    {name}: {detail[name]}")
        if r.get("mismatch"):
            print(f"    mismatch: {r['mismatch']}")
        if r["status"] != "ok":
            print(f"    status_detail: {r['status_detail']}")
    problems = check(store)
    print("\n".join(problems) or "audit20 check: every cheat caught, every failing row "
          "described, no honest solution flagged")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
