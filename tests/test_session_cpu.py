"""The whole session (parent, real child, protocol, buffers, validation, audit) on the CPU.

A stand-in for the child's native library (tests/fixtures/fake_device/fake_slchild.c: host
clocks, no CUDA) and saxpy solutions compiled by gcc let the harness run end to end without a
GPU. Each misbehaving variant must raise its audit flag.
"""

from __future__ import annotations

import json
import re
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
CHEATS = {"honest": 0, "stale": 1, "partial": 2, "mutation": 3, "async": 4, "wrong": 5,
          "exit": 6, "pin": 7, "keep": 8, "graph": 9}
# Flags decided from what the calls wrote and read. The timing flags (timer-tamper,
# host-compute, ...) mean nothing with a host-clock device on a shared CPU.
CONTENT_FLAGS = {"stale-output", "partial-output", "input-mutation", "nan-output", "precision"}

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")


def _gcc(out: Path, src: Path, *flags: str) -> Path:
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", str(out), str(src), *flags],
                   check=True, capture_output=True, text=True)
    return out


@pytest.fixture(scope="module")
def native(tmp_path_factory):
    d = tmp_path_factory.mktemp("native")
    return {"slchild": _gcc(d / "libslchild.so", FAKE / "fake_slchild.c", "-lpthread"),
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


FAST = {"warmup_s": 0.02, "measure_s": 0.1, "landlock": False, "cupti": False}


def run(task, native, so: Path, sets, resident: bool = False, **cfg) -> dict:
    build = BuildResult(str(so), True, str(so), "host", [], [])
    config = RunConfig(**{**FAST, **cfg})
    buffers = SharedBuffers([param_dict(p) for p in task.params], sets, resident=resident)
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
                                     "probes", "profile", "close"}
    assert trace["stop_rule"] in ("noise", "budget", "max-trials")
    assert set(A.audit(trace)) & CONTENT_FLAGS == set()
    # every untimed call sampled the outputs at its return and saw nothing change after it
    untimed = [t for t in trace["trials"] if t["phase"] != "timed"]
    assert {(t["return_checked"], t["return_changed"]) for t in untimed} == {(1024, 0)}
    assert all("return_checked" not in t for t in trace["trials"] if t["phase"] == "timed")
    assert {t["return_pending"] for t in trace["trials"]} == {False}
    assert A.check_work_after_return(trace) is None
    assert trace["cuda_errors"] == []


def test_work_left_running_at_return_is_seen_in_the_outputs(task, native, solutions, small_sets):
    # 3 ms on the host, then the work queued and the call returns; the device idles 0.3 ms
    # later, a tenth of the call: the idle-time rule alone would pass it
    trace = run(task, native, solutions["async"], small_sets)
    assert trace["status"] == "ok", trace["detail"]
    assert all(t["correct"] for t in trace["trials"])  # the harness waits before validating
    # on a loaded 2-core machine the child may be descheduled past the 0.3 ms at times: most
    # calls, not all, still see the work running at their return
    untimed = [t for t in trace["trials"] if t["phase"] != "timed"]
    late = [t for t in untimed if t["return_changed"]]
    assert len(late) > len(untimed) / 2
    assert {t["return_checked"] for t in untimed} == {1024}
    assert max(t["return_changed"] for t in late) == 1024  # poison at every sampled place
    timed = [t for t in trace["trials"] if t["phase"] == "timed"]
    assert sum(t["return_pending"] for t in timed) > len(timed) / 2
    evidence = A.check_work_after_return(trace)
    assert evidence.startswith(f"outputs unfinished at return in {len(late)} of "
                               f"{len(untimed)} checked call(s): up to 1024 of 1024 sampled")
    assert "device work still queued at the return" in evidence or "returned after" in evidence


@pytest.mark.parametrize("resident", [False, True], ids=["rewrite", "resident"])
@pytest.mark.parametrize("cheat,flag", [("stale", "stale-output"), ("partial", "partial-output"),
                                        ("mutation", "input-mutation")])
def test_misbehaving_solution_raises_its_flag(task, native, solutions, small_sets, cheat, flag,
                                              resident):
    trace = run(task, native, solutions[cheat], small_sets, resident=resident)
    assert trace["status"] == "ok", trace["detail"]
    assert flag in A.audit(trace)
    assert trace["io"] == ("resident" if resident else "rewrite")


def test_wrong_answer_is_summarised_and_not_cross_call_state(task, native, solutions,
                                                             small_sets):
    trace = run(task, native, solutions["wrong"], small_sets)
    assert trace["status"] == "ok", trace["detail"]
    called = [t for t in trace["trials"] if t["phase"] != "warmup"]
    assert not any(t["correct"] for t in called)
    # the fresh probes are wrong, as every call is: no evidence of kept state (the timing half
    # of cross-call-state means nothing on a host-clock device)
    assert {t["correct"] for t in called if t["phase"] == "probe-novel"} == {False}
    assert A.answers_depend_on_history(trace["trials"]) is None
    s0 = small_sets[0]
    x = s0.inputs["x"]
    bad = np.flatnonzero(x < 0)  # a*|x| + y differs from a*x + y by 2*a*|x|
    first = next(t for t in trace["trials"] if not t["correct"] and t["set"] == 0)
    summary = json.loads(first["mismatch"])["out"]
    assert summary["wrong"] == first["mismatches"] == int((2 * 1.75 * -x[bad] >
                                                           1e-2 + 1e-2 * np.abs(
                                                               s0.expected["out"][bad])).sum())
    assert summary["of"] == 4096 and summary["first"] == [
        int(i) for i in bad[2 * 1.75 * -x[bad] > 1e-2 + 1e-2 * np.abs(s0.expected["out"][bad])][:5]]
    assert summary["max_abs_err"] == pytest.approx(float((2 * 1.75 * -x[bad]).max()), rel=1e-5)


def test_exit_after_a_failed_launch_keeps_the_cuda_error_and_the_message(task, native,
                                                                          solutions, small_sets):
    trace = run(task, native, solutions["exit"], small_sets)
    assert trace["status"] == "exit"
    assert trace["detail"] == (
        "child exited with status 1 mid-run; CUDA: cudaLaunchKernel saxpy_kernel "
        "<<<(16,1,1), (256,1,1), 204800 B shared>>> failed: cudaErrorInvalidValue: invalid "
        "argument; stdout: saxpy.cu:42: CUDA error 1 in saxpy_kernel launch")
    assert trace["cuda_errors"] == [trace["detail"].split("CUDA: ")[1].split("; stdout")[0]]


def test_child_that_cannot_load_the_solution_is_a_status(task, native, small_sets, tmp_path):
    bad = tmp_path / "not_a_library.so"
    bad.write_text("no ELF here\n")
    trace = run(task, native, bad, small_sets)
    assert trace["status"] == "load-failed" and "solution.so: file too short" in trace["detail"]
    assert trace["trials"] == []


# ---- the orchestration (runner.benchmark) in both modes ------------------------------------

@pytest.fixture
def fake_runner(monkeypatch, native, solutions, tmp_path):
    """benchmark() with the stand-in native library, gcc-built solutions and fixed device
    facts; the saxpy fixture's C reference gives the answers."""
    from strategylens.harness import runner

    monkeypatch.setenv("STRATEGYLENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(runner, "build_native", lambda: native)
    by_stem = {f"{name}.cu": so for name, so in solutions.items()}
    monkeypatch.setattr(runner, "build_many", lambda srcs, params, arch: [
        BuildResult(str(s), True, str(by_stem[Path(s).name]), "host", [], []) for s in srcs])
    monkeypatch.setattr(runner, "device_facts", lambda native, cfg: {
        "gpu_name": "fake", "bandwidth": {"pinned_h2d": 50e9, "pinned_d2h": 50e9}})
    sources = []
    for name in ("honest", "mutation", "partial", "stale"):
        sources.append(tmp_path / f"{name}.cu")
        sources[-1].write_text("// built by the fixture\n")
    return runner, sources


def _rows_and_traces(store_dir):
    import json

    from strategylens import store

    df = store.read_results(store_dir)
    traces = {(Path(r.solution).stem, r.size): json.loads(
        (store_dir / "traces" / f"{store.key_name(r.task, r.solution, r.size)}.json").read_text())
        for r in df.itertuples()}
    return {(Path(r["solution"]).stem, r["size"]): r for r in df.to_dict("records")}, traces


@pytest.mark.parametrize("mode", ["legacy", "fast"])
def test_benchmark_flags_the_same_rows_in_both_modes(task, fake_runner, tmp_path, mode):
    runner, sources = fake_runner
    cfg = RunConfig.legacy(**FAST) if mode == "legacy" else RunConfig(**FAST)
    written = runner.benchmark(task, sources, ["small", "medium"], tmp_path / "store", cfg,
                               arch="host", log=lambda m: None)
    assert len(written) == 8
    rows, traces = _rows_and_traces(tmp_path / "store")
    flags = {k: set(r["audit_flags"]) & CONTENT_FLAGS for k, r in rows.items()}
    for size in ("small", "medium"):
        assert flags[("honest", size)] == set() and rows[("honest", size)]["correct"]
        assert "input-mutation" in flags[("mutation", size)]
        assert "partial-output" in flags[("partial", size)]
        assert "stale-output" in flags[("stale", size)]
        assert rows[("honest", size)]["mismatch"] is None
        n = 4096 if size == "small" else 4000000
        # (the poison reads as about -2.9e-16: right where the answer is within atol of 0)
        assert re.search(rf"out: 6\d+ of {n} elements wrong \(1\.\d%\), first at {n - n // 64}, ",
                         rows[("partial", size)]["mismatch"])
        assert f"; {n // 64} element(s) never written" in rows[("partial", size)]["mismatch"]
    pids = {k: t["child_pid"] for k, t in traces.items()}
    if mode == "fast":  # one child per solution, every size; inputs resident and verified
        assert pids[("honest", "small")] == pids[("honest", "medium")]
        # a wrong answer in a reused child is checked again in a fresh one
        assert pids[("partial", "small")] != pids[("partial", "medium")]
        assert traces[("partial", "medium")]["reused_child_outcome"]["status"] == "ok"
        assert traces[("honest", "medium")].get("child_reused") is True
        assert traces[("honest", "small")]["inputs_final_changed"] == []
        assert {t["io"] for t in traces.values()} == {"resident"}
        # the call-counting cheat answered medium wrongly in the child that ran small; a fresh
        # child gave medium the verdict it gets alone
        assert traces[("stale", "medium")]["reused_child_outcome"]["wrong_calls"] > 0
        assert "reused_child_outcome" not in traces[("honest", "medium")]
    else:
        assert all(pids[(s, "small")] != pids[(s, "medium")] for s in ("honest", "partial"))
        assert {t["io"] for t in traces.values()} == {"rewrite"}
        assert all("inputs_final_changed" not in t for t in traces.values())


def test_resident_inputs_are_restored_for_the_next_solution(task, fake_runner, tmp_path):
    runner, sources = fake_runner
    by_name = {p.stem: p for p in sources}
    order = [by_name["mutation"], by_name["honest"]]  # the honest one reads the same buffer
    runner.benchmark(task, order, ["medium"], tmp_path / "store", RunConfig(**FAST),
                     arch="host", log=lambda m: None)
    rows, traces = _rows_and_traces(tmp_path / "store")
    assert "input-mutation" in rows[("mutation", "medium")]["audit_flags"]
    assert set(rows[("honest", "medium")]["audit_flags"]) & CONTENT_FLAGS == set()
    assert rows[("honest", "medium")]["correct"]
    from strategylens import store

    trials = store.read_trials(tmp_path / "store")
    honest = trials[trials["solution"].str.endswith("honest.cu")]
    timed = honest[honest["phase"] == "timed"]
    # medium outputs (16 MB): in full on the first timed call of each set, then on a sample
    assert sorted(timed[timed["validated"] == "full"]["set"]) == [0, 1]
    assert (timed["validated"] == "sample").sum() == len(timed) - 2


def _shmem_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssShmem:"):
            return int(line.split()[1])
    pytest.skip("no RssShmem in /proc/self/status")


def test_prefault_maps_every_page_of_a_resident_buffer():
    import mmap
    import os

    from strategylens.harness.child import _prefault

    size = 32 << 20
    fd = os.memfd_create("t")
    try:
        os.ftruncate(fd, size)
        with mmap.mmap(fd, size) as writer:
            writer[:] = b"\1" * size  # the parent's writes: the pages exist
            with mmap.mmap(fd, size) as reader:  # the child's mapping: nothing mapped yet
                before = _shmem_kib()
                _prefault(reader)
                assert _shmem_kib() - before >= (size >> 10) * 0.95
    finally:
        os.close(fd)


def test_page_locking_time_is_timed_and_left_out_of_the_cross_call_probe(task, native, solutions,
                                                                           small_sets):
    # the stand-in runtime takes 4 ms to lock pages it never locked before, as the H200 did for
    # solutions that register the caller's arrays every call: fresh input sets pay it
    trace = run(task, native, solutions["pin"], small_sets, resident=True)
    assert trace["status"] == "ok", trace["detail"]
    first = {}
    for t in trace["trials"]:
        first.setdefault(t["set"], t)
    novel = [t for t in trace["trials"] if t["phase"] == "probe-novel"]
    assert len(novel) == 2 and all(t["pin_ms"] >= 3.9 for t in novel)
    later = [t for t in trace["trials"] if t not in first.values()]
    assert later and all(t.get("pin_ms", 0.0) < 1.0 for t in later)
    unpinned = [(t["phase"], round(A._unpinned_ms(t), 3)) for t in trace["trials"]
                if t["phase"].startswith("probe")]
    assert A.check_cross_call_state(trace) is None, unpinned
    for t in trace["trials"]:  # the same trace read without the shim's count
        t.pop("pin_ms", None)
    assert "served from a cache" in A.check_cross_call_state(trace)


def test_a_device_buffer_kept_between_calls_is_cross_call_state_at_any_size(task, native,
                                                                           solutions, small_sets):
    # 16 KiB kept from the first call on: far under what the device's used memory can tell
    # from driver pages, but the shim counted the allocation and saw no free
    trace = run(task, native, solutions["keep"], small_sets)
    assert trace["status"] == "ok", trace["detail"]
    assert trace["live_after_load"] == 0
    timed = [t for t in trace["trials"] if t["phase"] == "timed"]
    assert {t["live_bytes"] for t in timed} == {4096 * 4}
    assert A.kept_alloc_bytes(trace) == 4096 * 4
    assert A.check_cross_call_state(trace) == (
        "16384 B that the solution allocated stays allocated after every call: device buffers "
        "survive between calls of the entry point")
    for t in trace["trials"]:  # the same trace read without the shim's count: 16 KiB is noise
        t.pop("live_bytes", None)
    assert A.kept_alloc_bytes(trace) is None
    assert "stays allocated" not in (A.check_cross_call_state(trace) or "")


def test_memory_the_driver_keeps_is_not_the_solutions(task, native, solutions, small_sets):
    # the solution frees all it allocates; the stand-in driver keeps 16 MiB for a graph, as the
    # H200 did for knapsack/graph.cu at large (flagged before the shim counted allocations)
    trace = run(task, native, solutions["graph"], small_sets)
    assert trace["status"] == "ok", trace["detail"]
    assert A.persistent_bytes(trace) == 16 << 20 and A.kept_alloc_bytes(trace) == 0
    assert "stays allocated" not in (A.check_cross_call_state(trace) or "")
    for t in trace["trials"]:
        t.pop("live_bytes", None)
    assert A.check_cross_call_state(trace).startswith("16 MiB of device memory stays allocated")


def test_the_child_runs_on_the_cpus_it_was_given(task, native, solutions, small_sets):
    import os

    cpu = min(os.sched_getaffinity(0))
    trace = run(task, native, solutions["honest"], small_sets, child_cpus=str(cpu))
    assert trace["status"] == "ok", trace["detail"]
    assert trace["child_cpus"] == [cpu]
    assert len(run(task, native, solutions["honest"], small_sets)["child_cpus"]) == len(
        os.sched_getaffinity(0))
