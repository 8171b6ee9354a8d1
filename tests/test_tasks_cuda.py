"""Baseline CUDA ports: each compiles with nvcc (CPU-only CI) and matches its reference (GPU)."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import time

import pytest

from strategylens import tasks as T

NVCC_FLAGS = ["-std=c++17", "-arch=sm_90", "-O3", "-shared", "-Xcompiler", "-fPIC"]
_BUILT: dict[str, str] = {}
TASK_IDS = sorted(p.parent.parent.name for p in T.TASKS_DIR.glob("*/solutions/baseline.cu"))


def _has_gpu() -> bool:
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    return subprocess.run([smi, "-L"], capture_output=True, check=False).returncode == 0


def _build(task_id: str, out_dir) -> str:
    src = T.TASKS_DIR / task_id / "solutions" / "baseline.cu"
    lib = out_dir / f"{task_id}.so"
    proc = subprocess.run(["nvcc", *NVCC_FLAGS, "-o", str(lib), str(src)], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, f"{src}: nvcc failed:\n{proc.stderr}"
    return str(lib)


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("STRATEGYLENS_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


def test_every_task_has_a_baseline():
    assert TASK_IDS == sorted(t.id for t in T.list_tasks())


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_baseline_compiles(task_id, tmp_path):
    _build(task_id, tmp_path)


@pytest.mark.gpu
@pytest.mark.skipif(not _has_gpu(), reason="no NVIDIA GPU visible")
@pytest.mark.parametrize("size,seed_offset", [
    ("small", 0), ("small", 1), ("medium", 0),
    pytest.param("large", 0, marks=pytest.mark.slow),  # minutes: CPU reference at large
])
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_baseline_matches_reference(task_id, size, seed_offset, tmp_path):
    task = T.load_task(task_id)
    if task_id not in _BUILT:  # one build per task and session
        _BUILT[task_id] = _build(task_id, tmp_path)
    fn = task.bind(ctypes.CDLL(_BUILT[task_id]).solution_compute)
    expected = T.run_reference(task, size, trials=1, seed_offset=seed_offset).outputs
    inputs = task.generate(size, seed_offset)
    for call in range(2):  # a second call must not depend on state left by the first
        got = task.new_outputs(inputs)
        t0 = time.perf_counter()
        task.call(fn, inputs, got)
        elapsed = time.perf_counter() - t0
        res = T.compare(task, got, expected)
        tight = T.compare(task, got, expected, tight=True)
        print(f"{task_id} {size} s{seed_offset} call {call}: {elapsed * 1e3:.2f} ms, "
              f"ok={res.ok} max_abs={res.max_abs_err:.3g} max_rel={res.max_rel_err:.3g} "
              f"tight_ok={tight.ok}")
        assert res.ok, res.detail
