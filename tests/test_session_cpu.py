"""The whole session (parent, real child, protocol, buffers, validation, audit) on the CPU.

A stand-in for the child's native library (tests/fixtures/fake_device/fake_slchild.c: host
clocks, no CUDA) and saxpy solutions compiled by gcc let the harness run end to end without a
GPU. Each misbehaving variant must raise its audit flag.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from strategylens.harness import audit as A
from strategylens.harness.buffers import InputSet, SharedBuffers
from strategylens.harness.build import BuildResult, param_dict
from strategylens.harness.runner import task_compare
from strategylens.harness.session import RunConfig, run_solution
from strategylens.resources import HARNESS_DIR
from strategylens.tasks import load_task

HERE = Path(__file__).parent
FAKE = HERE / "fixtures" / "fake_device"
SAXPY = HERE / "fixtures" / "harness_task" / "saxpy"
CHEATS = {"honest": 0, "stale": 1, "partial": 2, "mutation": 3}

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")


def _gcc(out: Path, src: Path, *flags: str) -> Path:
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", str(out), str(src), *flags],
                   check=True, capture_output=True, text=True)
    return out


@pytest.fixture(scope="module")
def native(tmp_path_factory):
    d = tmp_path_factory.mktemp("native")
    return {"slchild": _gcc(d / "libslchild.so", FAKE / "fake_slchild.c"),
            "slshim": _gcc(d / "libslshim.so", HARNESS_DIR / "slshim.c", "-ldl")}


@pytest.fixture(scope="module")
def solutions(tmp_path_factory):
    d = tmp_path_factory.mktemp("sol")
    return {name: _gcc(d / f"{name}.so", FAKE / "saxpy_host.c", f"-DCHEAT={k}")
            for name, k in CHEATS.items()}


@pytest.fixture(scope="module")
def task():
    return load_task(SAXPY)


def saxpy_sets(task, size: str, n: int = 4) -> list[InputSet]:
    out = []
    for k in range(n):
        inputs = task.generate(size, k)
        exp = {"out": (np.float32(inputs["a"]) * inputs["x"] + inputs["y"]).astype(np.float32)}
        out.append(InputSet(k, inputs, exp))
    return out


def run(task, native, so: Path, sets, **cfg) -> dict:
    build = BuildResult(str(so), True, str(so), "host", [], [])
    config = RunConfig(**{"warmup_s": 0.02, "measure_s": 0.1, "landlock": False, "cupti": False,
                          **cfg})
    buffers = SharedBuffers([param_dict(p) for p in task.params], sets)
    try:
        return run_solution(task, build, "small", buffers, config, native, task_compare(task),
                            Path("/usr/local/cuda"))
    finally:
        buffers.close()


@pytest.fixture(scope="module")
def small_sets(task):
    return saxpy_sets(task, "small")


def test_honest_solution_runs_every_phase_and_raises_nothing(task, native, solutions, small_sets):
    trace = run(task, native, solutions["honest"], small_sets)
    assert trace["status"] == "ok", trace["detail"]
    phases = [t["phase"] for t in trace["trials"]]
    assert {"warmup", "timed", "probe-novel", "probe-repeat", "probe-control"} == set(phases)
    assert phases.count("probe-novel") == 2 and phases.count("probe-control") == 2
    assert all(t["correct"] for t in trace["trials"])
    assert len(trace["noop_overhead_ms"]) == 100 and 5 <= len(trace["sleep_overhead_ms"]) <= 20
    assert set(trace["phase_s"]) == {"start", "roundtrip", "warmup", "measure", "sleep",
                                     "probes", "profile"}
    assert trace["stop_rule"] in ("noise", "budget", "max-trials")
    assert A.audit(trace) == {}


@pytest.mark.parametrize("cheat,flag", [("stale", "stale-output"), ("partial", "partial-output"),
                                        ("mutation", "input-mutation")])
def test_misbehaving_solution_raises_its_flag(task, native, solutions, small_sets, cheat, flag):
    trace = run(task, native, solutions[cheat], small_sets)
    assert trace["status"] == "ok", trace["detail"]
    assert flag in A.audit(trace)


def test_child_that_cannot_load_the_solution_is_a_status(task, native, small_sets, tmp_path):
    bad = tmp_path / "not_a_library.so"
    bad.write_text("no ELF here\n")
    trace = run(task, native, bad, small_sets)
    assert trace["status"] == "load-failed" and "solution.so: file too short" in trace["detail"]
    assert trace["trials"] == []
