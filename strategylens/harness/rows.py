"""Results rows: one per (task, solution, size) from its build, trace and audit flags, and the
re-audit of a stored row from its recorded trace."""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from strategylens.harness.audit import Thresholds, audit, tamper_bound_ms
from strategylens.harness.build import BuildResult
from strategylens.harness.device import transfer_floor_ms
from strategylens.harness.validate import mismatch_summary
from strategylens.resources import SOURCE_ROOT, TASKS_DIR


def solution_id(source: Path) -> str:
    """Stable name of a solution: ``tasks/...`` for the bundled tasks' solutions (in a checkout
    or an installed wheel alike), else its path relative to the checkout when inside it, else
    its absolute path."""
    p = Path(source).resolve()
    tasks = TASKS_DIR.resolve()
    if p.is_relative_to(tasks):
        return str(Path("tasks") / p.relative_to(tasks))
    try:
        return str(p.relative_to(SOURCE_ROOT))
    except ValueError:
        return str(p)


def median_iqr(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    q1, med, q3 = np.percentile(np.asarray(values, dtype=float), [25, 50, 75])
    return float(med), float(q3 - q1)


def result_row(task, build: BuildResult, size: str, trace: dict | None, cpu: dict,
               device: dict, cfg, bytes_io: tuple[int, int],
               flags: dict[str, str], device_s: float) -> dict:
    """One results row: the issue's columns plus build info, floor ratio and provenance."""
    trace = trace or {}
    timed = [t for t in trace.get("trials", []) if t.get("phase") == "timed"]
    tampered = "timer-tamper" in flags
    source = "outside" if tampered else "inside"
    e2e = [t["outside_ms"] if tampered else t["inside_ms"] for t in timed]
    med, iqr = median_iqr(e2e)
    called = [t for t in trace.get("trials", []) if t.get("phase") != "warmup"
              and t.get("validated") != "skipped"]
    correct = bool(build.compiled and trace.get("status") == "ok" and called
                   and all(t.get("correct") for t in called))
    profiled = [t["profile"] for t in trace.get("trials", []) if t.get("profile")]
    prof = {k: float(np.median([p[k] for p in profiled])) for k in profiled[0]} if profiled else {}
    cpu_ms = cpu.get("median_s", 0) * 1e3 if cpu.get("median_s") else None
    bw = device.get("bandwidth", {})
    floor_pinned = transfer_floor_ms(*bytes_io, bw, "pinned")
    floor_pageable = transfer_floor_ms(*bytes_io, bw, "pageable")
    kernels = build.kernels or []
    overhead = trace.get("noop_overhead_ms", [])
    mem_end = timed[-1].get("mem_used") if timed else None
    return {
        "task": task.id, "solution": solution_id(Path(build.source)), "size": size,
        "compiled": bool(build.compiled), "correct": correct,
        "status": "compile-error" if not build.compiled else trace.get("status", "not-run"),
        "status_detail": (build.error if not build.compiled else trace.get("detail", ""))[:2000],
        "mismatch": mismatch_summary(trace.get("trials", []), trace.get("cuda_errors")),
        "e2e_ms_median": med, "e2e_ms_iqr": iqr,
        "e2e_ms_rel_iqr": (iqr / med) if med else None, "n_trials": len(e2e),
        "stop_rule": trace.get("stop_rule"), "timing_source": source if timed else None,
        "outside_ms_median": median_iqr([t["outside_ms"] for t in timed])[0],
        "inside_ms_median": median_iqr([t["inside_ms"] for t in timed])[0],
        "event_ms_median": median_iqr([t["event_ms"] for t in timed])[0],
        "return_ms_median": median_iqr([t["return_ms"] for t in timed])[0],
        "host_cpu_ms_median": median_iqr([t["cpu_ms"] for t in timed])[0],
        "roundtrip_ms": float(np.median(overhead)) if overhead else None,
        "tamper_bound_ms": tamper_bound_ms(overhead, trace.get("sleep_overhead_ms"))
        if overhead else None,
        "sleep_overhead_ms": float(np.median(trace["sleep_overhead_ms"]))
        if trace.get("sleep_overhead_ms") else None,
        "cpu_ms": cpu_ms, "cpu_trials_s": json.dumps(cpu.get("trials_s", [])),
        "cpu_cached": bool(cpu.get("cached")), "cpu_pinned_core": cpu.get("cpu"),
        "speedup": (cpu_ms / med) if (cpu_ms and med and correct) else None,
        "audit_flags": sorted(k for k in flags if not k.startswith("_")),
        "audit_detail": json.dumps(flags, sort_keys=True),
        "audit_not_applicable": json.dumps(trace.get("not_applicable") or {}, sort_keys=True),
        "calls_not_checked": sum(t.get("validated") == "skipped"
                                 for t in trace.get("trials", [])),
        "profile_available": bool(profiled),
        "profile_missing": "" if profiled else (trace.get("cupti_error") or "no profiled calls"),
        "kernel_launches": prof.get("kernel_launches"), "kernel_ms": prof.get("kernel_ms"),
        "h2d_bytes": prof.get("h2d_bytes"), "h2d_ms": prof.get("h2d_ms"),
        "d2h_bytes": prof.get("d2h_bytes"), "d2h_ms": prof.get("d2h_ms"),
        "memsets": prof.get("memsets"), "allocs": prof.get("allocs"),
        "frees": prof.get("frees"), "syncs": prof.get("syncs"),
        "bytes_in": bytes_io[0], "bytes_out": bytes_io[1],
        "floor_ms_pinned": floor_pinned, "floor_ms_pageable": floor_pageable,
        "floor_ratio": (med / floor_pinned) if (med and floor_pinned) else None,
        "floor_ratio_pageable": (med / floor_pageable) if (med and floor_pageable) else None,
        "persistent_device_bytes": (mem_end - trace["mem_after_load"])
        if (mem_end is not None and trace.get("mem_after_load") is not None) else None,
        "load_wall_ms": (trace.get("load") or {}).get("wall_ms"),
        "sandbox": trace.get("sandbox"), "stdout_bytes": trace.get("stdout_bytes", 0),
        "stdout_head": trace.get("stdout_head", ""),
        "arch": build.arch, "nvcc_flags": " ".join(build.flags),
        "libraries": ";".join(build.libraries), "build_s": build.build_s,
        "build_cached": build.cache_hit, "source_sha256": build.source_sha256,
        "kernels": json.dumps(kernels),
        "registers_max": max((k["registers"] for k in kernels), default=None),
        "smem_bytes_max": max((k["smem_bytes"] for k in kernels), default=None),
        "spill_bytes": sum(k["spill_stores"] + k["spill_loads"] for k in kernels),
        "gpu_name": device.get("gpu_name"), "driver": device.get("driver"),
        "nvcc": device.get("nvcc"), "clocks": json.dumps(device.get("clocks", {})),
        "l2_bytes": device.get("l2_bytes"), "bandwidth": json.dumps(bw),
        "cpu_model": cpu.get("cpu_model") or device.get("cpu_model"),
        "commit": device.get("commit"), "tool_sha": device.get("tool_sha"),
        "tool_version": device.get("tool_version"), "host": device.get("host"),
        "gpu_index": gpu_index(cfg.device),
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "config": json.dumps(cfg.__dict__, sort_keys=True),
        "thresholds": json.dumps(Thresholds().__dict__, sort_keys=True),
        "device_s": round(device_s, 3),
    }


def gpu_index(device: int) -> str:
    """The physical GPU a process's device ``device`` is: its entry in CUDA_VISIBLE_DEVICES
    (how dask-cuda and batch schedulers pin a worker), else the index itself."""
    vis = [v.strip() for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if v.strip()]
    return vis[device] if device < len(vis) else str(device)


def _clean(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, np.generic):
        return _clean(v.item())
    return v


def reaudit(store_dir: Path) -> list[dict]:
    """Recompute the audit of every stored (task, solution, size) from its recorded trace.

    The raw trials and traces are not touched; each summary row gets the flags, evidence,
    tamper bound, timing source, the figures that depend on it and the mismatch summary under
    the current code and thresholds. Use after changing a threshold: no GPU is needed. Returns the updated rows.
    """
    import pandas as pd  # noqa: PLC0415

    from strategylens import store  # noqa: PLC0415

    store_dir = Path(store_dir)
    rows = []
    for f in sorted((store_dir / "results").glob("*.parquet")):
        trace_file = store_dir / "traces" / f"{f.stem}.json"
        trials_file = store_dir / "trials" / f"{f.stem}.parquet"
        row = {k: _clean(v) for k, v in pd.read_parquet(f).iloc[0].to_dict().items()}
        if not (trace_file.exists() and trials_file.exists()):
            continue
        trace = json.loads(trace_file.read_text())
        trials = []
        for t in pd.read_parquet(trials_file).to_dict("records"):
            t = {k: _clean(v) for k, v in t.items()}
            t["profile"] = json.loads(t["profile"]) if t.get("profile") else None
            trials.append(t)
        trace["trials"] = trials
        for key in ("bytes_in", "bytes_out"):  # traces recorded before the audit read them
            if trace.get(key) is None and row.get(key) is not None:
                trace[key] = int(row[key])
        if trace.get("stack_bytes_max") is None and row.get("kernels"):
            trace["stack_bytes_max"] = max((k.get("stack_bytes", 0)
                                            for k in json.loads(row["kernels"])), default=0)
        flags = audit(trace)
        timed = [t for t in trials if t.get("phase") == "timed"]
        tampered = "timer-tamper" in flags
        med, iqr = median_iqr([t["outside_ms"] if tampered else t["inside_ms"] for t in timed])
        overhead = trace.get("noop_overhead_ms") or []
        row.update(
            mismatch=mismatch_summary(trials, trace.get("cuda_errors")),
            audit_flags=sorted(k for k in flags if not k.startswith("_")),
            audit_detail=json.dumps(flags, sort_keys=True),
            timing_source=("outside" if tampered else "inside") if timed else None,
            e2e_ms_median=med, e2e_ms_iqr=iqr, e2e_ms_rel_iqr=(iqr / med) if med else None,
            tamper_bound_ms=tamper_bound_ms(overhead, trace.get("sleep_overhead_ms"))
            if overhead else None,
            speedup=(row["cpu_ms"] / med) if (row.get("cpu_ms") and med and row["correct"])
            else None,
            floor_ratio=(med / row["floor_ms_pinned"]) if (med and row.get("floor_ms_pinned"))
            else None,
            floor_ratio_pageable=(med / row["floor_ms_pageable"])
            if (med and row.get("floor_ms_pageable")) else None,
            thresholds=json.dumps(Thresholds().__dict__, sort_keys=True))
        store.append(store_dir, row)
        rows.append(row)
    return rows
