"""CPU time the parent spends around each call, before and after issue 12 item 5, without a GPU.

    python analyses/throughput/parent_cost.py [--cases saxpy:large,histogram:medium] [--calls 12]

For each (task, size): two input sets with the C reference's answers, one shared buffer per
mode, and an honest "solution" simulated by copying the answer into the output region. Timed
per call: ``rewrite`` (inputs written, outputs poisoned, full validation, full input comparison:
the behaviour before) against ``resident`` (outputs poisoned, validation on a sample, sampled
input check), plus a resident call validated in full and the full comparison of the resident
inputs after a solution's calls. Writes ``parent_cost.json`` beside this script.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from strategylens.harness.buffers import InputSet, SharedBuffers  # noqa: E402
from strategylens.harness.build import param_dict  # noqa: E402
from strategylens.harness.runner import task_compare  # noqa: E402
from strategylens.harness.session import RunConfig  # noqa: E402
from strategylens.harness.validate import VERDICT_KEYS, validate, validate_sample  # noqa: E402
from strategylens.provenance import cpu_model, git_commit  # noqa: E402
from strategylens.tasks import load_task, run_reference  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "harness_task" / "saxpy"
DEFAULT = "saxpy:large,black_scholes:medium,histogram:medium,pairwise_dist:large,heat2d:medium"


def sets_for(task, size: str) -> list[InputSet]:
    out = []
    for k in range(2):
        ref = run_reference(task, size, trials=1, seed_offset=k)
        out.append(InputSet(k, task.generate(size, k), ref.outputs))
    return out


def answer(buf: SharedBuffers, k: int) -> None:
    """The simulated solution: the right answer in the output region."""
    for name, v in buf.outputs(k).items():
        v[:] = np.asarray(buf.sets[k].expected[name]).ravel()


def per_call(buf: SharedBuffers, cmp, calls: int, full: bool) -> float:
    """Median parent seconds of one call (preparation, validation, input check)."""
    last, spent = {}, []
    rng = np.random.default_rng()
    for i in range(calls):
        k = i % 2
        t0 = time.perf_counter()
        buf.load(k)
        t_prep = time.perf_counter() - t0
        answer(buf, k)
        t0 = time.perf_counter()
        outs = buf.outputs(k)
        verdict = None if full else validate_sample(outs, buf.sets[k], cmp, rng, 65536)
        if verdict is None:
            got = {n: v.copy() for n, v in outs.items()}
            verdict = validate(got, buf.sets[k], buf.sets, cmp, last.get(k), bitwise=buf.resident)
            last[k] = (got, {key: verdict[key] for key in VERDICT_KEYS})
        assert verdict["correct"], verdict
        assert not buf.inputs_changed(k)
        spent.append(t_prep + time.perf_counter() - t0)
    return float(np.median(spent[2:] if len(spent) > 4 else spent))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=DEFAULT)
    ap.add_argument("--calls", type=int, default=12)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("parent_cost.json"))
    args = ap.parse_args()
    threads = RunConfig().parent_threads
    rows = []
    for case in args.cases.split(","):
        tid, size = case.split(":")
        task = load_task(FIXTURE if tid == "saxpy" else tid)
        t0 = time.perf_counter()
        sets = sets_for(task, size)
        params = [param_dict(p) for p in task.params]
        b_in = sum(np.asarray(sets[0].inputs[p["name"]]).nbytes for p in params
                   if p["kind"] == "array" and p["direction"] != "out")
        b_out = sum(np.asarray(v).nbytes for v in sets[0].expected.values())
        print(f"{tid}/{size}: {b_in >> 20} MiB in, {b_out >> 20} MiB out "
              f"(sets ready in {time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)
        row = {"task": tid, "size": size, "bytes_in": b_in, "bytes_out": b_out}
        old = SharedBuffers(params, sets)
        row["rewrite_call_s"] = per_call(old, task_compare(task, 1), args.calls, full=True)
        old.close()
        t0 = time.perf_counter()
        new = SharedBuffers(params, sets, resident=True, threads=threads)
        row["resident_setup_s"] = time.perf_counter() - t0
        cmp = task_compare(task, threads, tight_shortcut=True)
        row["resident_call_s"] = per_call(new, cmp, args.calls, full=False)
        row["resident_full_call_s"] = per_call(new, cmp, 4, full=True)
        t0 = time.perf_counter()
        assert new.verify() == []
        row["resident_verify_s"] = time.perf_counter() - t0
        new.close()
        print(json.dumps(row), file=sys.stderr, flush=True)
        rows.append(row)
    context = {"cpu_model": cpu_model(), "cores": os.cpu_count(), "threads": threads,
               "load_average": os.getloadavg(), "host": platform.node(), "commit": git_commit(),
               "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "note": "parent-side CPU work only; no GPU, no child process"}
    args.out.write_text(json.dumps({"context": context, "rows": rows}, indent=1) + "\n")
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
