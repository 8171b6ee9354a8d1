"""Inputs of AccelEval tasks: the task's own ``gen_data.py`` run in strategylens's cache.

AccelEval's generators write next to the checkout (``tasks/<id>/data/<size>/``, and
``tasks/<id>/solution_cpu`` with ``--with-expected``), which races under parallel workers. Here
each task's files and AccelEval's Python writer are copied into a *shadow* tree under the cache
(``<cache>/acceleval/shadow/<id>-<hash>/{framework,tasks/<id>}``), so that ``gen_data.py``, which
finds its checkout from its own path, writes nothing into the real one; ``acceleval_io.h`` there
is strategylens's reader, which accepts both magics. The generator runs in a child process with a
time limit and writes into ``<cache>/acceleval/inputs/<id>/<size>-s<k>-<hash>/``.

Seed offsets: input set k runs the same generator with every seed it passes to numpy's or
Python's generators (``np.random.seed``, ``default_rng``, ``RandomState``, ``random.seed``)
shifted by k (``seed + 1000003*k``). A generator that uses no seed gives the same inputs for
every k; :func:`same_as_first` tells (the audit then says its rotating-input checks cannot apply).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from strategylens.resources import (HARNESS_DIR, SOURCE_ROOT, atomic_write, cache_root,
                                    private_name)
from strategylens.tasks.task import Task, TaskError

HEADER = HARNESS_DIR / "acceleval" / "acceleval_io.h"
FRAMEWORK_FILES = ("__init__.py", "acceleval_io_py.py")
# Files a generator writes that are answers or timings, not inputs.
NOT_INPUTS = {"expected_output.txt", "output.txt", "cpu_time_ms.txt", "timing.json",
              "gen.json"}
SEED_STEP = 1000003
TIME_LIMIT_ENV = "STRATEGYLENS_GEN_TIMEOUT"
DEFAULT_TIME_LIMIT_S = 600.0
CHILD_COMMAND = "from strategylens.tasks.acceleval_gen import gen_child_main; gen_child_main()"


GEN_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                   "NUMEXPR_NUM_THREADS", "NUMBA_NUM_THREADS")


def time_limit_s() -> float:
    """Wall-clock limit of one generator run (``$STRATEGYLENS_GEN_TIMEOUT``, default 600 s)."""
    try:
        return float(os.environ.get(TIME_LIMIT_ENV, DEFAULT_TIME_LIMIT_S))
    except ValueError:
        return DEFAULT_TIME_LIMIT_S


def _task_files(task: Task) -> list[Path]:
    """The task folder's own files (no data/, builds, caches)."""
    skip = {"data", "__pycache__", "solution_cpu", "solution_gpu", "cache"}
    return sorted(p for p in task.path.rglob("*") if p.is_file()
                  and not (set(p.relative_to(task.path).parts) & skip)
                  and p.suffix not in (".so", ".o", ".pyc"))


def generator_hash(task: Task) -> str:
    """SHA-256 over what decides the inputs: the task's files, AccelEval's Python writer and
    strategylens's header and generator code."""
    h = hashlib.sha256()
    fw = _framework(task)
    files = _task_files(task) + [fw / f for f in FRAMEWORK_FILES] + [HEADER, Path(__file__)]
    for f in files:
        if f.exists():
            h.update(str(f.name).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def _framework(task: Task) -> Path:
    return task.path.parent.parent / "framework"


def shadow_tree(task: Task) -> Path:
    """A copy of the task folder and AccelEval's writer under the cache (made once per hash),
    with strategylens's acceleval_io.h in its framework/."""
    root = cache_root() / "acceleval" / "shadow" / f"{task.id}-{generator_hash(task)[:16]}"
    if (root / ".complete").exists():
        return root
    tmp = private_name(root)
    shutil.rmtree(tmp, ignore_errors=True)
    dst = tmp / "tasks" / task.id
    for f in _task_files(task):
        out = dst / f.relative_to(task.path)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, out)
    (tmp / "framework").mkdir(parents=True, exist_ok=True)
    for name in FRAMEWORK_FILES:
        src = _framework(task) / name
        if src.exists():
            shutil.copy2(src, tmp / "framework" / name)
    shutil.copy2(HEADER, tmp / "framework" / "acceleval_io.h")
    (tmp / ".complete").write_text("")
    try:
        os.replace(tmp, root)
    except OSError:  # another process made it first
        shutil.rmtree(tmp, ignore_errors=True)
    return root


def input_folder(task: Task, size: str, seed_offset: int = 0,
                 limit_s: float | None = None) -> Path:
    """The folder holding input.bin (and requests.txt, ...) of (size, seed offset), generated
    on first use.

    Raises
    ------
    TaskError
        Naming gen_data.py when the generator fails, exceeds the time limit, or writes no
        readable input.bin.
    """
    from strategylens.tasks.acceleval_io import input_magic, read_acceleval_input  # noqa: PLC0415

    gen = task.path / "gen_data.py"
    if not gen.exists():
        raise TaskError(f"{task.path}: no gen_data.py")
    key = generator_hash(task)[:16]
    folder = cache_root() / "acceleval" / "inputs" / task.id / f"{size}-s{seed_offset}-{key}"
    if (folder / "gen.json").exists():
        return folder
    shadow = shadow_tree(task)
    tmp = private_name(folder)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    limit = limit_s or time_limit_s()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg")
    # one thread per generator: several run at once beside pinned, timed references, and a
    # BLAS or OpenMP pool of every core per generator starved them (on the H200's 16 cores,
    # medium references took 20-40x their time here)
    for var in GEN_THREAD_VARS:
        env.setdefault(var, "1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SOURCE_ROOT), env.get("PYTHONPATH")]))
    script = shadow / "tasks" / task.id / "gen_data.py"
    t0 = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD_COMMAND, str(script), size, str(tmp),
                               str(seed_offset)], cwd=tmp, env=env, capture_output=True,
                              text=True, timeout=limit, start_new_session=True)
    except subprocess.TimeoutExpired:
        shutil.rmtree(tmp, ignore_errors=True)
        raise TaskError(f"{gen}: size {size}: gen_data.py ran over the time limit of "
                        f"{limit:.0f} s (${TIME_LIMIT_ENV})") from None
    elapsed = time.monotonic() - t0
    if proc.returncode != 0 or not (tmp / "input.bin").exists():
        shutil.rmtree(tmp, ignore_errors=True)
        why = _last_error(proc.stderr) or _last_error(proc.stdout) or "no input.bin written"
        why = why.replace(str(shadow / "tasks" / task.id), str(task.path))  # the user's paths
        raise TaskError(f"{gen}: size {size}: gen_data.py failed (exit {proc.returncode}): "
                        f"{why}")
    try:
        read_acceleval_input(tmp / "input.bin")
    except TaskError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise TaskError(f"{gen}: size {size}: wrote an unreadable input.bin: {exc}") from None
    digest = hashlib.sha256((tmp / "input.bin").read_bytes()).hexdigest()
    record = {"task": task.id, "size": size, "seed_offset": seed_offset, "gen_s": elapsed,
              "magic": input_magic(tmp / "input.bin").decode("latin-1"),
              "input_sha256": digest, "files": sorted(p.name for p in tmp.iterdir()),
              "stdout_tail": proc.stdout[-2000:], "generator_sha256": generator_hash(task),
              "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    atomic_write(tmp / "gen.json", json.dumps(record, indent=1))
    try:
        os.replace(tmp, folder)
    except OSError:  # made by another process meanwhile
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def gen_record(folder: Path) -> dict:
    return json.loads((folder / "gen.json").read_text())


def side_files(folder: Path) -> list[Path]:
    """Files of an input folder an adapter may read from its data_dir (requests.txt, ...):
    everything but input.bin and answers."""
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and p.name != "input.bin" and p.name not in NOT_INPUTS)


def same_as_first(task: Task, size: str, seed_offset: int) -> bool:
    """Whether input set ``seed_offset`` holds the same bytes as set 0 (a generator that
    ignores seeds)."""
    a = gen_record(input_folder(task, size, 0))["input_sha256"]
    b = gen_record(input_folder(task, size, seed_offset))["input_sha256"]
    return a == b


def _last_error(text: str) -> str:
    lines = [ln.strip() for ln in (text or "").strip().splitlines() if ln.strip()]
    for ln in reversed(lines):
        if any(w in ln for w in ("Error", "error", "rror:", "Exception", "No such file")):
            return ln[:400]
    return lines[-1][:400] if lines else ""


def _shifted(seed, k: int):
    import numpy as np  # noqa: PLC0415

    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return (int(seed) + SEED_STEP * k) % (1 << 32)
    return seed


def shift_seeds(k: int) -> None:
    """Make every seed passed to numpy's or Python's generators ``seed + 1000003*k``."""
    import random  # noqa: PLC0415

    import numpy as np  # noqa: PLC0415

    seed, default_rng, rs = np.random.seed, np.random.default_rng, np.random.RandomState
    py_seed = random.seed
    np.random.seed = lambda s=None: seed(_shifted(s, k))
    np.random.default_rng = lambda s=None, *a, **kw: default_rng(_shifted(s, k), *a, **kw)

    class RandomState(rs):
        def __init__(self, s=None):
            super().__init__(_shifted(s, k))

        def seed(self, s=None):
            super().seed(_shifted(s, k))

    np.random.RandomState = RandomState
    random.seed = lambda a=None, *x, **kw: py_seed(_shifted(a, k), *x, **kw)


def gen_child_main() -> None:
    """Entry of the generator child: ``<gen_data.py> <size> <out_dir> <seed_offset>``."""
    import runpy  # noqa: PLC0415

    script, size, out_dir, k = sys.argv[1:5]
    if int(k):
        shift_seeds(int(k))
    sys.argv = [script, size, out_dir]
    sys.path.insert(0, str(Path(script).parent))
    runpy.run_path(script, run_name="__main__")
