"""The C references: built with gcc, run single-threaded on a pinned core in a child process,
their outputs (the expected answers) and timing records cached under the cache root."""

from __future__ import annotations

import ctypes
import datetime as _dt
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from strategylens import __version__
from strategylens.provenance import cpu_model, git_commit
from strategylens.resources import SOURCE_ROOT, atomic_write, cache_root, private_name
from strategylens.tasks.compare import output_checksum
from strategylens.tasks.refrun import ReferenceRun, gcc_version  # noqa: F401 - re-exported
from strategylens.tasks.task import Task, TaskError

GCC_FLAGS = ["-O2", "-std=c11", "-Wall", "-Werror", "-shared", "-fPIC"]
CHILD_COMMAND = "from strategylens.tasks.reference import reference_child_main; reference_child_main()"


def reference_hash(task: Task) -> str:
    src = task.reference_file().read_bytes()
    return hashlib.sha256(src + b"\0" + " ".join(GCC_FLAGS).encode() + b"\0" +
                          gcc_version().encode()).hexdigest()


def build_reference(task: Task) -> Path:
    """Compile the task's C reference with gcc into a shared library under the cache root
    (cached by hash).

    Raises
    ------
    TaskError
        When gcc fails; the message holds gcc's diagnostics.
    """
    src = task.reference_file()
    if not src.exists():
        raise TaskError(f"{task.path}: no {src.name}")
    h = hashlib.sha256(src.read_bytes() + b"\0" + " ".join(GCC_FLAGS).encode() + b"\0" +
                       gcc_version().encode()).hexdigest()
    lib = cache_root() / "ref" / f"{task.id}-{h[:16]}.so"
    if lib.exists():
        return lib
    lib.parent.mkdir(parents=True, exist_ok=True)
    # threads of one process may build the same reference at once
    tmp = private_name(lib)
    proc = subprocess.run(["gcc", *GCC_FLAGS, "-o", str(tmp), str(src), "-lm"], check=False,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise TaskError(f"{src}: gcc failed:\n{proc.stderr.strip()}")
    os.replace(tmp, lib)
    return lib


def expected_key(task: Task, size: str, seed_offset: int) -> Path:
    """Cache path (without suffix) of one (task, size, seed offset)'s answer and record."""
    h = hashlib.sha256((reference_hash(task) + task.content_hash()).encode()).hexdigest()
    return cache_root() / "expected" / task.id / f"{size}-s{seed_offset}-{h[:16]}"


def run_reference(task: Task, size: str, trials: int = 3, seed_offset: int = 0,
                  remeasure: bool = False, cpu: int | None = None) -> ReferenceRun:
    """Run the C reference single-threaded, pinned to one core, in a child process.

    Every trial starts from fresh poisoned outputs; all trials must produce identical outputs
    (a reference that keeps state between calls fails here). Expected outputs (.npz) and the
    record (.json) are cached under the cache root keyed by task, size, seed offset and the hashes
    of the reference and the task files; a cached result is returned unless `remeasure`.

    Returns
    -------
    ReferenceRun
        `record` holds ``trials_s`` (every trial), ``median_s``, ``cpu_model``, ``gcc``,
        ``hostname``, ``commit``, ``utc`` and the pinned ``cpu``.
    """
    own = task.format.run_reference(task, size, trials, seed_offset, remeasure, cpu)
    if own is not None:  # a format that drives its reference itself (AccelEval's adapters)
        return own
    key = expected_key(task, size, seed_offset)
    npz, rec = key.with_suffix(".npz"), key.with_suffix(".json")
    if npz.exists() and rec.exists() and not remeasure:
        record = json.loads(rec.read_text())
        if len(record.get("trials_s", [])) >= trials:
            with np.load(npz) as data:
                outputs = {k: data[k] for k in data.files}
            return ReferenceRun(outputs, record, cached=True)
    lib = build_reference(task)
    if cpu is None:
        cpu = max(os.sched_getaffinity(0))
    # A fresh interpreter, not fork: the caller may hold CUDA or other threads, and unlike
    # multiprocessing's spawn it needs no main-module guard in the caller's script.
    key.parent.mkdir(parents=True, exist_ok=True)
    tmp_npz = key.parent / f".{key.name}.{os.getpid()}.npz"
    tmp_status = key.parent / f".{key.name}.{os.getpid()}.json"
    spec = {"task": str(task.path), "size": size, "params": task.sizes[size], "seed": task.seed,
            "lib": str(lib), "seed_offset": seed_offset, "trials": trials, "cpu": cpu,
            "out_npz": str(tmp_npz), "out_status": str(tmp_status)}
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SOURCE_ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run([sys.executable, "-c", CHILD_COMMAND], input=json.dumps(spec),
                          text=True, capture_output=True, env=env, check=False)
    try:
        status = json.loads(tmp_status.read_text())
    except (OSError, json.JSONDecodeError):
        tail = proc.stderr.strip().splitlines()[-3:]
        status = {"error": f"reference process died (exit code {proc.returncode}): "
                           + " | ".join(tail)}
    tmp_status.unlink(missing_ok=True)
    if "error" in status:
        tmp_npz.unlink(missing_ok=True)
        raise TaskError(f"{task.reference_file()}: {status['error']}")
    with np.load(tmp_npz) as data:
        outputs = {k: data[k] for k in data.files}
    os.replace(tmp_npz, npz)
    times = status["trials_s"]
    record = {
        "task": task.id, "size": size, "seed_offset": seed_offset, "seed": task.seed + seed_offset,
        "trials_s": times, "median_s": float(np.median(times)), "min_s": float(min(times)),
        "cpu": cpu, "cpu_model": cpu_model(), "gcc": gcc_version(),
        "gcc_flags": " ".join(GCC_FLAGS), "hostname": socket.gethostname(),
        "commit": git_commit(short=False), "utc": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "strategylens": __version__, "reference_sha256": reference_hash(task),
        "task_sha256": task.content_hash(), "gen_s": status["gen_s"],
        "bytes_in": status["bytes_in"], "bytes_out": status["bytes_out"],
        # The checksum costs several copies of the outputs: only for outputs up to 16M values.
        "output_sha256": (output_checksum(task, outputs)
                          if sum(v.size for v in outputs.values()) <= 1 << 24 else None),
    }
    atomic_write(rec, json.dumps(record, indent=2))
    return ReferenceRun(outputs, record)


def reference_child_main() -> None:
    """Entry of the timing child: reads a JSON spec on stdin, writes outputs and a status file."""
    from strategylens.tasks.suite import load_task  # noqa: PLC0415

    spec = json.loads(sys.stdin.read())
    status: dict
    try:
        os.sched_setaffinity(0, {spec["cpu"]})
        task = load_task(spec["task"])
        task.sizes[spec["size"]] = spec["params"]
        task.seed = spec["seed"]
        t0 = time.perf_counter()
        inputs = task.generate(spec["size"], spec["seed_offset"])
        gen_s = time.perf_counter() - t0
        fn = task.bind(ctypes.CDLL(spec["lib"]).solution_compute)
        times, first = [], None
        for _ in range(max(1, spec["trials"])):
            outputs = task.new_outputs(inputs, poison=True)
            t0 = time.perf_counter()
            task.call(fn, inputs, outputs)
            times.append(time.perf_counter() - t0)
            if first is None:
                first = outputs
            else:
                for name in first:
                    if not np.array_equal(first[name], outputs[name], equal_nan=True):
                        raise TaskError(f"output {name!r} differs between trials (state kept "
                                        "between calls?)")
        names = {p.name: p for p in task.params}
        b_in = sum(v.nbytes for k, v in inputs.items() if isinstance(v, np.ndarray)
                   and k in names and names[k].direction in ("in", "inout"))
        b_out = sum(v.nbytes for v in first.values())
        with open(spec["out_npz"], "wb") as f:
            np.savez(f, **first)
        status = {"trials_s": times, "gen_s": gen_s, "bytes_in": int(b_in),
                  "bytes_out": int(b_out)}
    except Exception as exc:  # report to the parent, whatever went wrong
        status = {"error": f"{type(exc).__name__}: {exc}"}
    Path(spec["out_status"]).write_text(json.dumps(status))


def clear_cache() -> None:
    """Remove the strategylens task cache (compiled references, expected outputs)."""
    for sub in ("ref", "expected", "bytes", "inputs"):
        shutil.rmtree(cache_root() / sub, ignore_errors=True)
