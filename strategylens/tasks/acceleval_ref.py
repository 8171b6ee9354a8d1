"""Expected outputs of AccelEval tasks: the task's C reference driven through its own
``task_io_cpu.c`` adapter by strategylens's driver (``harness/acceleval/slae_ref.c``), built with
strategylens's ``acceleval_io.h`` (both magics) into the cache. The checkout's own CPU harness
and header are not used, and nothing is written into the checkout.

The answer AccelEval compares is the text ``task_write_output`` prints; it is the task's output
``output`` (every value, in order, as float64). Beside it the driver keeps the bytes of the
buffers task_setup allocated and left zero (the raw outputs, ``raw<i>``), which the harness
poisons before a call and compares after it. Which buffers may be poisoned is decided once per
task at small size (``--classify``): poisoning a buffer that is really an input changes the
answer.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import shutil
import socket
import subprocess
import threading
import time
import warnings
from pathlib import Path

import numpy as np

from strategylens import __version__
from strategylens.provenance import cpu_model, git_commit
from strategylens.resources import HARNESS_DIR, atomic_write, cache_root, private_name
from strategylens.tasks.acceleval_gen import (gen_record, generator_hash, input_folder,
                                              time_limit_s)
from strategylens.tasks.refrun import ReferenceRun, gcc_version
from strategylens.tasks.task import Task, TaskError

DRIVER = HARNESS_DIR / "acceleval" / "slae_ref.c"
TRACKER = HARNESS_DIR / "acceleval" / "slae_track.c"
HEADER_DIR = HARNESS_DIR / "acceleval"
GCC_FLAGS = ["-O2"]  # what AccelEval's gen_data.py builds its CPU baseline with
_BUILD_LOCK = threading.Lock()


def parse_values(path: Path | str) -> np.ndarray:
    """Every whitespace-separated number of a text output, in order, as float64 (how
    AccelEval's validate.py reads output.txt).

    Raises
    ------
    TaskError
        When the file cannot be read or holds something that is not a number.
    """
    path = Path(path)
    try:
        text = path.read_bytes().decode("ascii", "replace")
    except OSError as exc:
        raise TaskError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if not text.strip():
        return np.zeros(0, dtype=np.float64)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return np.fromstring(text, dtype=np.float64, sep=" ")
    except (ValueError, DeprecationWarning):
        bad = next((w for w in text.split() if not _is_number(w)), "?")
        raise TaskError(f"{path}: not a number: {bad[:40]!r}") from None


def _is_number(word: str) -> bool:
    try:
        float(word)
        return True
    except ValueError:
        return False


def driver_sources(task: Task) -> list[Path]:
    return [DRIVER, TRACKER, task.path / "task_io_cpu.c", task.path / "cpu_reference.c"]


def driver_hash(task: Task) -> str:
    h = hashlib.sha256(" ".join(GCC_FLAGS).encode() + b"\0" + gcc_version().encode())
    for f in [*driver_sources(task), HEADER_DIR / "acceleval_io.h"]:
        h.update(f.name.encode() + b"\0" + (f.read_bytes() if f.exists() else b"") + b"\0")
    return h.hexdigest()


def build_driver(task: Task) -> Path:
    """Compile the driver with the task's adapter and reference (gcc -O2), cached by hash.

    Raises
    ------
    TaskError
        When a source is missing or gcc fails (its diagnostics in the message).
    """
    missing = [f.name for f in driver_sources(task) if not f.exists()]
    if missing:
        raise TaskError(f"{task.path}: no {', '.join(missing)}: the reference cannot be run")
    exe = cache_root() / "acceleval" / "ref" / f"{task.id}-{driver_hash(task)[:16]}" / "slae_ref"
    with _BUILD_LOCK:
        if exe.exists():
            return exe
        exe.parent.mkdir(parents=True, exist_ok=True)
        tmp = exe.with_name(f".slae_ref.{os.getpid()}")
        cmd = ["gcc", *GCC_FLAGS, f"-I{HEADER_DIR}", "-o", str(tmp),
               *map(str, driver_sources(task)), "-lm"]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            tmp.unlink(missing_ok=True)
            raise TaskError(f"{task.path / 'task_io_cpu.c'}: gcc failed building the reference "
                            f"driver:\n{proc.stderr.strip()[-3000:]}")
        os.replace(tmp, exe)
    return exe


def _run_driver(task: Task, exe: Path, data: Path, out: Path, args: list[str], cpu: int,
                limit: float) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    proc = subprocess.Popen([str(exe), str(data), str(out), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=out, start_new_session=True)
    try:
        os.sched_setaffinity(proc.pid, {cpu})
    except OSError:
        pass
    try:
        stdout, stderr = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise TaskError(f"{task.reference_file()}: the reference ran over the time limit of "
                        f"{limit:.0f} s (through task_io_cpu.c; $STRATEGYLENS_GEN_TIMEOUT)") from None
    wall = time.monotonic() - t0
    rec_file = out / "record.json"
    if proc.returncode not in (0, 4) or not rec_file.exists():
        tail = (stderr or stdout or "").strip().splitlines()[-3:]
        why = {3: "task_setup returned NULL"}.get(proc.returncode,
                                                   f"exit code {proc.returncode}")
        raise TaskError(f"{task.reference_file()}: the reference failed ({why}): "
                        + " | ".join(tail))
    record = json.loads(rec_file.read_text())
    record["wall_s"] = wall
    if proc.returncode == 4:
        raise TaskError(f"{task.reference_file()}: calls of the reference disagree "
                        f"({record.get('detail')}): state kept between calls, or a reference "
                        "that is not deterministic")
    return record


def classification(task: Task, cpu: int | None = None) -> dict:
    """Which of task_setup's zero buffers may be poisoned: decided once per task at small size
    (seed offset 0) and cached."""
    file = cache_root() / "acceleval" / "adapter" / f"{task.id}-{_key(task)}.json"
    if file.exists():
        return json.loads(file.read_text())
    size = "small" if "small" in task.sizes else next(iter(task.sizes))
    exe = build_driver(task)
    data = input_folder(task, size, 0)
    out = private_name(file.with_name(file.stem))
    try:
        record = _run_driver(task, exe, data, out, ["--trials", "1", "--classify"],
                             cpu if cpu is not None else max(os.sched_getaffinity(0)),
                             time_limit_s())
    finally:
        shutil.rmtree(out, ignore_errors=True)
    result = {"size": size, "buffers": record["buffers"], "mutated": record["mutated"],
              "safe": [b["index"] for b in record["buffers"] if b["safe"]]}
    atomic_write(file, json.dumps(result, indent=1))
    return result


def _key(task: Task) -> str:
    return hashlib.sha256((driver_hash(task) + generator_hash(task)).encode()).hexdigest()[:16]


def expected_key(task: Task, size: str, seed_offset: int) -> Path:
    return cache_root() / "acceleval" / "expected" / task.id / f"{size}-s{seed_offset}-{_key(task)}"


def run_reference(task: Task, size: str, trials: int = 3, seed_offset: int = 0,
                  remeasure: bool = False, cpu: int | None = None) -> ReferenceRun:
    """Run the reference through task_io_cpu.c, single-threaded on one pinned core.

    Every call but the first starts from poisoned output buffers and must leave the same
    bytes as the first. Outputs: ``output`` (the values task_write_output prints) and
    ``raw<i>`` (the bytes of buffer i). Cached like the own tasks' references.

    Raises
    ------
    TaskError
        When the inputs cannot be generated, the driver does not build, task_setup fails, the
        calls disagree, or the time limit is reached; the message names the file.
    """
    key = expected_key(task, size, seed_offset)
    npz, rec = key.with_suffix(".npz"), key.with_suffix(".json")
    if npz.exists() and rec.exists() and not remeasure:
        record = json.loads(rec.read_text())
        if len(record.get("trials_s", [])) >= trials:
            with np.load(npz) as data:
                outputs = {k: data[k] for k in data.files}
            return ReferenceRun(outputs, record, cached=True)
    if cpu is None:
        cpu = max(os.sched_getaffinity(0))
    data = input_folder(task, size, seed_offset)
    cls = classification(task, cpu)
    exe = build_driver(task)
    poison = ",".join(map(str, cls["safe"])) or "none"
    out = private_name(key)
    shutil.rmtree(out, ignore_errors=True)
    try:
        raw = _run_driver(task, exe, data, out, ["--trials", str(max(1, trials)), "--poison",
                                                 poison], cpu, time_limit_s())
        values = parse_values(out / "output.txt")
        view = parse_values(out / "poisoned_view.txt")
        outputs = {"output": values}
        for b in raw["buffers"]:
            outputs[f"raw{b['index']}"] = np.fromfile(out / f"raw_{b['index']}.bin", np.uint8)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    for b in raw["buffers"]:  # safe to poison: as classified once for the task
        b["safe"] = b["index"] in cls["safe"]
    same = int(np.sum(view == values)) if view.shape == values.shape else None
    times = [t / 1e3 for t in raw["trials_ms"]]
    gen = gen_record(data)
    record = {
        "task": task.id, "size": size, "seed_offset": seed_offset, "seed": None,
        "trials_s": times, "median_s": float(np.median(times)), "min_s": float(min(times)),
        "setup_s": raw["setup_ms"] / 1e3, "cpu": cpu, "cpu_model": cpu_model(),
        "gcc": gcc_version(), "gcc_flags": " ".join(GCC_FLAGS), "driver": "slae_ref",
        "hostname": socket.gethostname(), "commit": git_commit(short=False),
        "utc": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "strategylens": __version__, "reference_sha256": driver_hash(task),
        "task_sha256": task.content_hash(), "gen_s": gen["gen_s"], "magic": gen["magic"],
        "input_sha256": gen["input_sha256"], "input_folder": str(data),
        "bytes_in": int((data / "input.bin").stat().st_size),
        "bytes_out": int(sum(b["bytes"] for b in raw["buffers"])),
        "n_values": int(values.size), "buffers": raw["buffers"], "mutated": raw["mutated"],
        "other_allocations": raw["other_allocations"], "poisoned": cls["safe"],
        # values of the text that do not change when the buffers are poisoned: not held in them
        "values_not_in_buffers": same,
        "output_sha256": hashlib.sha256(values.astype("<f8").tobytes()).hexdigest(),
    }
    key.parent.mkdir(parents=True, exist_ok=True)
    tmp_npz = private_name(key, ".npz")
    with open(tmp_npz, "wb") as fh:
        np.savez(fh, **outputs)
    os.replace(tmp_npz, npz)
    atomic_write(rec, json.dumps(record, indent=2))
    shutil.rmtree(out, ignore_errors=True)
    return ReferenceRun(outputs, record)
