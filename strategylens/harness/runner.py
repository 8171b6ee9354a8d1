"""Orchestration: build every solution, probe the device, prepare each size's input sets and
reference answers, run every (solution, size) not yet in the store, audit it and store it."""

from __future__ import annotations

import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from strategylens.harness.audit import audit
from strategylens.harness.buffers import InputSet, SharedBuffers
from strategylens.harness.build import (CUDA_HOME, build_many, build_native, build_report,
                                        detect_arch, param_dict)
from strategylens.harness.device import probe_device, transfer_floor_ms
from strategylens.harness.rows import result_row, solution_id
from strategylens.harness.sandbox import ChildFailed
from strategylens.harness.session import RunConfig, Session, finish
from strategylens.provenance import cpu_model

_DEVICE_CACHE: dict[int, dict] = {}


class NoDevice(RuntimeError):
    """No usable GPU: the probe child could not set up the device."""


def n_sets(size: str) -> int:
    """Input sets per size: two rotate through the timed calls, the rest are fresh probes.

    Large sizes get one fresh probe set instead of two: their references cost the most CPU
    time and their timings are the least noisy."""
    return 3 if size == "large" else 4


def input_sets(task, size: str, n: int | None = None, remeasure_cpu: bool = False,
               cpu_trials: int = 3) -> tuple[list[InputSet], dict]:
    """Generate ``n`` input sets (seed offsets 0..n-1) with their expected outputs.

    The CPU reference is timed on set 0 (``strategylens.tasks.run_reference``: single thread,
    pinned), alone; its cached record is reused unless it was measured on another CPU model or
    ``remeasure_cpu`` is set. The answers of the other sets (untimed) are computed at the same
    time on different cores. Returns the sets and the CPU timing record.
    """
    from strategylens.tasks import run_reference  # noqa: PLC0415

    n = n or n_sets(size)
    ref0 = run_reference(task, size, trials=cpu_trials, seed_offset=0, remeasure=remeasure_cpu)
    if ref0.record.get("cpu_model") != cpu_model():
        ref0 = run_reference(task, size, trials=cpu_trials, seed_offset=0, remeasure=True)
    cpus = sorted(os.sched_getaffinity(0), reverse=True)
    with ThreadPoolExecutor(max(1, min(n - 1, len(cpus)))) as pool:
        rest = list(pool.map(lambda k: run_reference(task, size, trials=1, seed_offset=k,
                                                     cpu=cpus[(k - 1) % len(cpus)]),
                             range(1, n)))
    refs = [ref0, *rest]
    with ThreadPoolExecutor(n) as pool:  # numpy's generators release the GIL while filling
        inputs = list(pool.map(lambda k: task.generate(size, k), range(n)))
    sets = [InputSet(k, inputs[k], refs[k].outputs) for k in range(n)]
    return sets, dict(refs[0].record, cached=refs[0].cached)


def bytes_in_out(task, s: InputSet) -> tuple[int, int]:
    """Bytes of the arrays moved in (in, inout) and out (out, inout) for one input set."""
    b_in = b_out = 0
    for p in map(param_dict, task.params):
        if p["kind"] != "array":
            continue
        if p["direction"] in ("in", "inout"):
            b_in += np.asarray(s.inputs[p["name"]]).nbytes
        if p["direction"] in ("out", "inout"):
            src = s.expected.get(p["name"], s.inputs.get(p["name"]))
            b_out += np.asarray(src).nbytes
    return b_in, b_out


def task_compare(task, threads: int = 1, tight_shortcut: bool = False):
    """The task's comparison as the harness calls it: ``(got, expected, tight)``; None for a
    tight check the task does not define.

    ``tight_shortcut``: a tight check right after a passing loose check of the same arrays whose
    largest error is within the tight ``atol`` passes without a second pass over the data (the
    same verdict: every element's error is within the tight tolerance then)."""
    from strategylens.tasks import CompareResult, compare  # noqa: PLC0415

    tight_atol = float(task.correctness.tight.get("atol", task.correctness.atol)) \
        if task.correctness.tight else None
    last: list = [None]

    def cmp(got, expected, tight):
        if tight and not task.correctness.tight:
            return None
        prev = last[0]
        if (tight and tight_shortcut and prev is not None and prev[0] is got
                and prev[1] is expected and prev[2].ok and prev[2].max_abs_err <= tight_atol):
            return CompareResult(ok=True, mode=prev[2].mode, max_abs_err=prev[2].max_abs_err,
                                 detail="within the tight atol (no second pass)")
        res = compare(task, got, expected, tight=tight, threads=threads)
        last[0] = None if tight else (got, expected, res)
        return res

    return cmp


def _clean_run(trace: dict) -> bool:
    """The session ended normally and every checked call after the warm-up was correct."""
    return trace["status"] == "ok" and all(t.get("correct") for t in trace["trials"]
                                            if t["phase"] != "warmup"
                                            and t.get("validated") != "skipped")


def device_facts(native: dict[str, Path], cfg: RunConfig) -> dict:
    """The device probe, once per device and process.

    Raises
    ------
    NoDevice
        With the reason the probe child gave (no GPU, no driver, CUDA error).
    """
    if cfg.device not in _DEVICE_CACHE:
        try:
            _DEVICE_CACHE[cfg.device] = probe_device(native, cfg)
        except ChildFailed as exc:
            raise NoDevice(f"no usable GPU (device {cfg.device}): {exc}") from exc
    return _DEVICE_CACHE[cfg.device]


def _build(task, sources: list[Path], arch: str) -> list:
    """Builds of every source: with the task's adapter (AccelEval), else the signature wrapper."""
    if task.format.adapter:
        from strategylens.harness import adapter  # noqa: PLC0415

        return adapter.build_many(sources, task, arch)
    return build_many(sources, task.params, arch)


def build_only(task, sources: list[Path], arch: str | None = None) -> list[dict]:
    """Compile every solution of ``task`` (no GPU): rows of :func:`build_report`."""
    builds = _build(task, sorted(sources, key=str), arch or detect_arch())
    return build_report(builds, task.id, solution_id)


class _Size:
    """One size's input sets, CPU record, bytes moved and (resident) shared buffer."""

    def __init__(self, task, size: str, cfg: RunConfig, params: list[dict], remeasure_cpu: bool,
                 log) -> None:
        t0 = time.monotonic()
        self.size = size
        self.sets, self.cpu = input_sets(task, size, remeasure_cpu=remeasure_cpu)
        log(f"{task.id}/{size}: inputs and reference ready in {time.monotonic() - t0:.1f} s "
            f"(cpu {self.cpu.get('median_s', 0) * 1e3:.2f} ms, cached={self.cpu.get('cached')})")
        self.not_applicable = None
        if task.format.adapter:  # AccelEval: input.bin tensors in, the adapter's buffers out
            from strategylens.harness import adapter  # noqa: PLC0415
            from strategylens.tasks.acceleval_gen import same_as_first  # noqa: PLC0415

            params = adapter.layout_params(self.sets, self.cpu)
            self.bytes_io = adapter.bytes_in_out(self.sets[0])
            same = [s.seed_offset for s in self.sets[1:]
                    if same_as_first(task, size, s.seed_offset)]
            self.not_applicable = adapter.not_applicable(task, size, self.cpu, self.sets, same)
        else:
            self.bytes_io = bytes_in_out(task, self.sets[0])
        self.params, self.cfg = params, cfg
        self.shared = self.new_buffers() if cfg.io == "resident" else None

    def new_buffers(self) -> SharedBuffers:
        cfg = self.cfg
        return SharedBuffers(self.params, self.sets, resident=cfg.io == "resident",
                             check_bytes=cfg.full_check_bytes, threads=cfg.parent_threads,
                             key=self.size)

    def buffers(self) -> SharedBuffers:
        """The shared buffer (resident), or a fresh one for one solution (rewrite)."""
        return self.shared or self.new_buffers()

    def close(self) -> None:
        if self.shared is not None:
            self.shared.close()


def benchmark(task, sources: list[Path], sizes: list[str], store_dir: Path | None,
              cfg: RunConfig | None = None, remeasure_cpu: bool = False,
              arch: str | None = None, log=None, sink=None,
              prepared: dict | None = None, solution_meta: dict | None = None) -> list[dict]:
    """Build, run, audit and store every (solution, size) not already in the store.

    With ``cfg.child_per == "size"`` every (solution, size) gets its own child and is stored
    as it finishes, size by size. With ``"solution"`` (the default) one child runs every
    requested size of a solution in the order given, and the solution's rows are stored
    together once its child is closed and its inputs verified; every size's input sets are
    prepared first (resident inputs of all sizes at once: about twice the host memory of the
    largest size's sets). An interrupted run resumes from the store. Returns the rows written
    by this call.

    ``sink(row, trials, trace)`` receives each finished (solution, size) instead of the store
    (a scale-out worker returns them to the one writer); ``store_dir`` may then be None (no
    resume check). ``prepared`` keeps each size's input sets and references across calls, keyed
    by (task, size): the caller owns and closes them (a worker reuses a task's large inputs).
    ``solution_meta`` maps a solution's resolved path to columns added to its rows (a run
    folder's author, level, stage and sample).

    Raises
    ------
    NoDevice
        When no GPU answers (after the solutions were built).
    """
    from strategylens import store  # noqa: PLC0415

    cfg = cfg or RunConfig()
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    done = store.done_keys(store_dir) if store_dir is not None else set()
    if sink is None:
        store_dir = Path(store_dir)

        def sink(row, trials, trace):
            store.append(store_dir, row, trials, trace)
    todo = [(s, z) for s in sources for z in sizes
            if (task.id, solution_id(s), z) not in done]
    if not todo:
        log(f"{task.id}: every requested (solution, size) is already in {store_dir}")
        return []
    native = build_native()
    arch = arch or detect_arch()
    uniq = sorted({s for s, _ in todo}, key=str)
    builds = dict(zip(uniq, _build(task, uniq, arch), strict=False))
    if task.format.adapter and cfg.io != "resident":
        log(f"{task.id}: AccelEval tasks run with resident inputs (each input set's context "
            "keeps pointers into its own region); io=rewrite is not used")
        cfg = cfg.with_(io="resident")
    failed = [b for b in builds.values() if not b.compiled]
    log(f"{task.id}: {len(builds) - len(failed)} of {len(builds)} solution(s) built for {arch}")
    device = device_facts(native, cfg)
    params = None if task.format.adapter else [param_dict(p) for p in task.params]
    resident = cfg.io == "resident"
    compare = task_compare(task, cfg.parent_threads if resident else 1, tight_shortcut=resident)
    elementwise = task.correctness.mode in ("exact", "numeric")
    rows: list[dict] = []

    def run_group(src: Path, group: list[_Size]) -> None:
        """Every size of ``group`` for one solution in one child; then audit and store.

        A size that fails or answers wrongly in a child that ran an earlier size is run again
        in a fresh child (whose trace is kept, with the reused child's outcome beside it), so
        state kept across sizes changes no verdict."""
        b = builds[src]
        results, session, layouts = [], None, {z.size: z.buffers() for z in group}
        plan = None
        if task.format.adapter and b.compiled:
            from strategylens.harness.adapter import AdapterPlan  # noqa: PLC0415

            plan = AdapterPlan.for_sizes(task, group)

        def new_session(z, **kw):
            if plan is not None:
                from strategylens.harness.adapter import AdapterSession  # noqa: PLC0415

                return AdapterSession(b, z.size, layouts[z.size], cfg, native, compare,
                                      CUDA_HOME, elementwise, layouts=layouts, plan=plan, **kw)
            return Session(b, z.size, layouts[z.size], cfg, native, compare, CUDA_HOME,
                           elementwise, layouts=layouts, **kw)

        for z in group:
            t0 = time.monotonic()
            trace = None
            if b.compiled:
                child = session.child if session is not None else None
                session = new_session(z, child=child, loaded=session.loaded if child else None)
                trace = session.run()
                if child is not None and not _clean_run(trace):
                    if session.child is not None:
                        session.child.close()
                    first = {"status": trace["status"], "detail": trace["detail"][:300],
                             "wrong_calls": sum(not t.get("correct") for t in trace["trials"]
                                                if t["phase"] != "warmup")}
                    session = new_session(z)
                    trace = session.run()
                    trace["reused_child_outcome"] = first
            results.append((z, trace, time.monotonic() - t0))
        if session is not None:
            t0 = time.monotonic()
            finish(session, [(t, layouts[z.size]) for z, t, _ in results if t is not None])
            spent = time.monotonic() - t0
        for z, trace, device_s in results:
            flags = {}
            if trace is not None:
                trace["floor_pinned_ms"] = transfer_floor_ms(*z.bytes_io,
                                                             device.get("bandwidth", {}), "pinned")
                if z.not_applicable is not None:
                    trace["not_applicable"] = z.not_applicable
                trace["bytes_in"], trace["bytes_out"] = z.bytes_io
                flags = audit(trace)
                device_s += trace["phase_s"].get("verify", 0.0)
                if z is group[-1]:
                    device_s += spent - sum(t["phase_s"].get("verify", 0.0)
                                            for _, t, _ in results if t is not None)
            row = result_row(task, b, z.size, trace, z.cpu, device, cfg, z.bytes_io, flags,
                             device_s)
            row.update((solution_meta or {}).get(str(Path(src).resolve()), {}))
            trials = [dict(t, task=task.id, solution=row["solution"], size=z.size, index=i,
                           profile=json.dumps(t.get("profile")) if t.get("profile") else None)
                      for i, t in enumerate((trace or {}).get("trials", []))]
            sink(row, trials, trace)
            rows.append(row)
            med = row["e2e_ms_median"]
            log(f"{task.id}/{z.size} {row['solution']}: {row['status']}, correct={row['correct']}, "
                f"e2e={'-' if med is None else f'{med:.3f} ms'}, flags={row['audit_flags']}"
                + (f"\n    wrong: {row['mismatch']}" if row["mismatch"] else "")
                + (f"\n    {row['status_detail'][:400]}" if row["status"] not in ("ok",) else ""))
        for z in group:
            if layouts[z.size] is not z.shared:
                layouts[z.size].close()

    wanted = [z for z in sizes if any(zz == z for _, zz in todo)]
    if cfg.child_per == "size":
        for size in wanted:
            z = _Size(task, size, cfg, params, remeasure_cpu, log)
            try:
                for src in [s for s, zz in todo if zz == size]:
                    run_group(src, [z])
            finally:
                z.close()
        return rows
    own = prepared is None
    prepared = {} if own else prepared
    try:
        for size in wanted:
            if (task.id, size) not in prepared:
                prepared[(task.id, size)] = _Size(task, size, cfg, params, remeasure_cpu, log)
        for src in dict.fromkeys(s for s, _ in todo):  # input order, each solution once
            run_group(src, [prepared[(task.id, z)] for z in wanted if (src, z) in todo])
    finally:
        if own:
            for z in prepared.values():
                z.close()
    return rows
