"""Orchestration: build every solution, probe the device, prepare each size's input sets and
reference answers, run every (solution, size) not yet in the store, audit it and store it."""

from __future__ import annotations

import json
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
from strategylens.harness.session import RunConfig, run_solution
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
    pinned); its cached record is reused unless it was measured on another CPU model or
    ``remeasure_cpu`` is set. Returns the sets and the CPU timing record.
    """
    from strategylens.tasks import run_reference  # noqa: PLC0415

    n = n or n_sets(size)
    here = cpu_model()
    refs = []
    for k in range(n):
        ref = run_reference(task, size, trials=cpu_trials if k == 0 else 1, seed_offset=k,
                            remeasure=remeasure_cpu and k == 0)
        if k == 0 and ref.record.get("cpu_model") != here:
            ref = run_reference(task, size, trials=cpu_trials, seed_offset=0, remeasure=True)
        refs.append(ref)
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


def task_compare(task):
    """The task's comparison as the harness calls it: ``(got, expected, tight)``; None for a
    tight check the task does not define."""
    from strategylens.tasks import compare  # noqa: PLC0415

    def cmp(got, expected, tight):
        if tight and not task.correctness.tight:
            return None
        return compare(task, got, expected, tight=tight)

    return cmp


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


def build_only(task, sources: list[Path], arch: str | None = None) -> list[dict]:
    """Compile every solution of ``task`` (no GPU): rows of :func:`build_report`."""
    builds = build_many(sorted(sources, key=str), task.params, arch or detect_arch())
    return build_report(builds, task.id, solution_id)


def benchmark(task, sources: list[Path], sizes: list[str], store_dir: Path,
              cfg: RunConfig | None = None, remeasure_cpu: bool = False,
              arch: str | None = None, log=None) -> list[dict]:
    """Build, run, audit and store every (solution, size) not already in the store.

    Each finished (solution, size) is written to the store at once, so an interrupted run
    loses nothing and a second call resumes. Returns the rows written by this call.

    Raises
    ------
    NoDevice
        When no GPU answers (after the solutions were built).
    """
    from strategylens import store  # noqa: PLC0415

    cfg = cfg or RunConfig()
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    store_dir = Path(store_dir)
    done = store.done_keys(store_dir)
    todo = [(s, z) for s in sources for z in sizes
            if (task.id, solution_id(s), z) not in done]
    if not todo:
        log(f"{task.id}: every requested (solution, size) is already in {store_dir}")
        return []
    native = build_native()
    arch = arch or detect_arch()
    uniq = sorted({s for s, _ in todo}, key=str)
    builds = dict(zip(uniq, build_many(uniq, task.params, arch), strict=False))
    failed = [b for b in builds.values() if not b.compiled]
    log(f"{task.id}: {len(builds) - len(failed)} of {len(builds)} solution(s) built for {arch}")
    device = device_facts(native, cfg)
    params = [param_dict(p) for p in task.params]
    compare = task_compare(task)
    rows = []
    for size in sizes:
        batch = [s for s, z in todo if z == size]
        if not batch:
            continue
        t0 = time.monotonic()
        sets, cpu = input_sets(task, size, remeasure_cpu=remeasure_cpu)
        log(f"{task.id}/{size}: inputs and reference ready in {time.monotonic() - t0:.1f} s "
            f"(cpu {cpu.get('median_s', 0) * 1e3:.2f} ms, cached={cpu.get('cached')})")
        bytes_io = bytes_in_out(task, sets[0])
        for src in batch:
            b = builds[src]
            trace, flags = None, {}
            t0 = time.monotonic()
            if b.compiled:
                buffers = SharedBuffers(params, sets)
                try:
                    trace = run_solution(task, b, size, buffers, cfg, native, compare, CUDA_HOME)
                finally:
                    buffers.close()
                trace["floor_pinned_ms"] = transfer_floor_ms(*bytes_io, device.get("bandwidth", {}),
                                                             "pinned")
                flags = audit(trace)
            row = result_row(task, b, size, trace, cpu, device, cfg, bytes_io, flags,
                             time.monotonic() - t0)
            trials = [dict(t, task=task.id, solution=row["solution"], size=size, index=i,
                           profile=json.dumps(t.get("profile")) if t.get("profile") else None)
                      for i, t in enumerate((trace or {}).get("trials", []))]
            store.append(store_dir, row, trials, trace)
            rows.append(row)
            med = row["e2e_ms_median"]
            log(f"{task.id}/{size} {row['solution']}: {row['status']}, correct={row['correct']}, "
                f"e2e={'-' if med is None else f'{med:.3f} ms'}, flags={row['audit_flags']}")
    return rows
