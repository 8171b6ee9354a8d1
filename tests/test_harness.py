"""CPU tests of the harness: build, wrapper, ptxas parsing, validation and the audit decisions."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from strategylens import harness as H
from strategylens.harness import audit as A
from strategylens.harness import buffers, session, stopping, validate
from strategylens.tasks import compare, load_task

FIXTURE = Path(__file__).parent / "fixtures" / "harness_task" / "saxpy"
NVCC = shutil.which("nvcc") or Path("/usr/local/cuda/bin/nvcc").exists()

PTXAS = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z1kifPKfPf' for 'sm_90'
ptxas info    : Function properties for _Z1kifPKfPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem
ptxas info    : Compiling entry function '_Z4big' for 'sm_90'
ptxas info    : Function properties for _Z4big
    48 bytes stack frame, 16 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 255 registers
"""


@pytest.fixture(scope="module")
def task():
    return load_task(FIXTURE)


def test_parse_ptxas_reads_every_kernel():
    assert H.parse_ptxas(PTXAS) == [
        {"kernel": "_Z1kifPKfPf", "arch": "sm_90", "registers": 10, "smem_bytes": 1024,
         "stack_bytes": 0, "spill_stores": 0, "spill_loads": 0, "barriers": 1},
        {"kernel": "_Z4big", "arch": "sm_90", "registers": 255, "smem_bytes": 0,
         "stack_bytes": 48, "spill_stores": 16, "spill_loads": 8, "barriers": 0},
    ]


def test_wrapper_is_generated_from_the_signature(task):
    assert H.wrapper_source(task.params) == (
        'extern "C" void sl_entry(int n, float a, float* x, float* y, float* out) {\n'
        "    solution_compute(n, a, x, y, out);\n}\n")


def test_libraries_follow_includes():
    src = '#include <cublas_v2.h>\n#include "cufft.h"\n#include <curand_kernel.h>\n'
    assert H.libraries_used(src) == ["cublas", "cufft"]
    assert H.libraries_used("#include <cuda_runtime.h>\n") == []


@pytest.mark.skipif(not NVCC, reason="nvcc not installed")
def test_build_compiles_caches_and_records_resources(task, tmp_path):
    src = FIXTURE / "solutions" / "cpp_linkage.cu"
    first = H.build_solution(src, task.params, arch="sm_90", cache_dir=tmp_path)
    assert first.compiled and not first.cache_hit and first.error == ""
    assert Path(first.so_path).exists()
    assert [k["kernel"] for k in first.kernels] == ["_Z12saxpy_kernelifPKfS0_Pf"]
    assert first.kernels[0]["registers"] > 0 and first.kernels[0]["arch"] == "sm_90"
    assert "-O3" in first.flags and "-arch=sm_90" in first.flags
    again = H.build_solution(src, task.params, arch="sm_90", cache_dir=tmp_path)
    assert again.cache_hit and again.so_path == first.so_path
    # a cache built on one machine and carried to another (the GPU machine) is found there
    moved = tmp_path.parent / f"{tmp_path.name}-moved"
    shutil.copytree(tmp_path, moved)
    shutil.rmtree(tmp_path)
    carried = H.build_solution(src, task.params, arch="sm_90", cache_dir=moved)
    assert carried.cache_hit and Path(carried.so_path).exists()
    assert Path(carried.so_path).is_relative_to(moved)


@pytest.mark.skipif(not NVCC, reason="nvcc not installed")
def test_compile_error_is_a_result(task, tmp_path):
    bad = tmp_path / "bad.cu"
    bad.write_text("void solution_compute(int n) { undeclared_thing(n); }\n")
    res = H.build_solution(bad, task.params, arch="sm_90", cache_dir=tmp_path / "c")
    assert res.compiled is False and res.so_path is None
    assert "undeclared_thing" in res.error


CHEATS = sorted((Path(__file__).parent / "cheats").glob("*.cu"))
FAILING = sorted((Path(__file__).parent / "failing").glob("*.cu"))


def test_cheats_and_failing_solutions_name_what_they_expect():
    import re

    for path in CHEATS:
        m = re.match(r"//\s*expect-flags:\s*(.*)", path.read_text().splitlines()[0])
        assert m, f"{path}: first line must be // expect-flags: ..."
        flags = {f.strip() for f in m.group(1).split(",")}
        assert flags and flags <= set(A.FLAG_NAMES), f"{path}: unknown flag in {flags}"
    assert {p.stem for p in FAILING} == {"fp8_inputs", "smem_silent", "smem_exit"}
    for path in FAILING:
        m = re.match(r"//\s*expect-failure:\s*(\w+)$", path.read_text().splitlines()[0])
        assert m and m.group(1) in ("wrong", "exit"), f"{path}: // expect-failure: wrong|exit"


@pytest.mark.slow
@pytest.mark.skipif(not NVCC, reason="nvcc not installed")
def test_cheats_and_failing_solutions_build_with_the_harness(task, tmp_path):
    builds = H.build_many(CHEATS + FAILING, task.params, arch="sm_90", cache_dir=tmp_path)
    assert [(Path(b.source).name, b.compiled) for b in builds if not b.compiled] == []
    assert all(b.kernels for b in builds)


def test_native_helpers_compile(tmp_path):
    paths = H.build_native(tmp_path)
    assert sorted(paths) == ["slchild", "slshim"]
    assert all(p.exists() for p in paths.values())


def test_output_samples_at_return_count_what_changed_after_it(tmp_path):
    """The real libslchild.so's sampling (no CUDA call): plan, take at return, compare."""
    import ctypes

    lib = ctypes.CDLL(str(H.build_native(tmp_path)["slchild"]))
    lib.sl_snapshot_plan.restype = ctypes.c_long
    lib.sl_snapshot_plan.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t,
                                     ctypes.c_size_t, ctypes.c_uint64]
    lib.sl_snapshot_changed.restype = ctypes.c_long
    checked = ctypes.c_long(0)

    def plan(arr, samples, seed=7):
        return lib.sl_snapshot_plan(arr.ctypes.data, arr.nbytes, arr.itemsize, samples, seed)

    small = np.full(100, 0xA5A5A5A5, dtype=np.uint32)   # poison, as before a call
    big = np.full(1 << 20, 0xA5A5A5A5, dtype=np.uint32)
    assert plan(small, 1024) == 100 and plan(big, 1024) == 1024
    lib.sl_snapshot_take()               # the moment of return
    small[:] = 1                         # written after it
    big[0] = big[-1] = 2                 # the first and the last are always sampled
    assert lib.sl_snapshot_changed(ctypes.byref(checked)) == 102 and checked.value == 1124
    assert lib.sl_snapshot_changed(ctypes.byref(checked)) == 0 and checked.value == 0  # cleared
    assert plan(big, 1024) == 1024       # an output complete at return: nothing changes
    lib.sl_snapshot_take()
    assert lib.sl_snapshot_changed(ctypes.byref(checked)) == 0 and checked.value == 1024
    big[:] = 0
    plan(big, 64, seed=1)
    lib.sl_snapshot_take()
    big[:] = 3                           # every sampled position changed: 64 of 64
    assert lib.sl_snapshot_changed(ctypes.byref(checked)) == 64 and checked.value == 64


def test_rel_noise_and_rotation():
    assert stopping.rel_noise([1.0, 1.0, 1.0]) == float("inf")
    assert stopping.rel_noise([1.0] * 10) == 0.0
    noisy = stopping.rel_noise([1.0, 1.2, 0.8, 1.1, 0.9, 1.0, 1.05, 0.95])
    assert 0.01 < noisy < 0.1
    import random
    order = session.rotation(random.Random(1))
    first = [next(order) for _ in range(40)]
    assert sorted(set(first)) == [0, 1] and first.count(0) == 20


def test_transfer_floor():
    bw = {"pinned_h2d": 50e9, "pinned_d2h": 25e9}
    assert H.transfer_floor_ms(100e6, 50e6, bw, "pinned") == pytest.approx(4.0)
    assert H.transfer_floor_ms(1, 1, bw, "pageable") is None


@pytest.fixture(scope="module")
def sets(task, tmp_path_factory):
    import os
    os.environ.setdefault("STRATEGYLENS_CACHE", str(tmp_path_factory.mktemp("cache")))
    out = []
    for k in range(3):
        inputs = task.generate("small", k)
        exp = {"out": (np.float32(inputs["a"]) * inputs["x"] + inputs["y"]).astype(np.float32)}
        out.append(buffers.InputSet(k, inputs, exp))
    return out


def _cmp(task):
    return lambda got, exp, tight: compare(task, got, exp, tight=tight)


def test_poison_mask_matches_whole_elements_only():
    for dtype in (np.uint8, np.int16, np.float32, np.float64, np.dtype("V3")):
        a = np.zeros(6, dtype=dtype)
        a.view(np.uint8)[:] = 0
        w = a.dtype.itemsize
        a.view(np.uint8)[w:3 * w] = validate.POISON_BYTE          # elements 1 and 2
        a.view(np.uint8)[4 * w] = validate.POISON_BYTE            # element 4: one byte only
        assert validate.poisoned(a).tolist() == [False, True, True, False, w == 1, False], dtype


def test_validate_verdicts(task, sets):
    good = {"out": sets[0].expected["out"].copy()}
    v = validate.validate(good, sets[0], sets, _cmp(task), None)
    assert (v["correct"], v["stale_of"], v["poison_left"], v["tight_ok"]) == (True, None, 0, True)
    stale = validate.validate({"out": sets[1].expected["out"].copy()}, sets[0], sets, _cmp(task), None)
    assert (stale["correct"], stale["stale_of"]) == (False, 1)
    part = good["out"].copy()
    part.view(np.uint8)[-40:] = validate.POISON_BYTE
    p = validate.validate({"out": part}, sets[0], sets, _cmp(task), None)
    assert p["poison_left"] == 10 and p["correct"] is False
    nan = validate.validate({"out": np.full_like(part, np.nan)}, sets[0], sets, _cmp(task), None)
    assert nan["nan_count"] == part.size and nan["correct"] is False
    loose = (good["out"] * np.float32(1 + 3e-4)).astype(np.float32)
    lv = validate.validate({"out": loose}, sets[0], sets, _cmp(task), None)
    assert (lv["correct"], lv["tight_ok"]) == (True, False)


def test_wrong_answer_says_where_it_is_wrong(task, sets):
    import json

    want = sets[0].expected["out"]
    got = want.copy()
    got[[5, 9, 4000]] += np.float32(0.5)   # tolerance there: 0.01 + 0.01 * |want|
    v = validate.validate({"out": got}, sets[0], sets, _cmp(task), None)
    m = json.loads(v["mismatch"])["out"]
    assert (v["correct"], m["wrong"], m["of"], m["first"], m["nan"]) == (False, 3, 4096,
                                                                         [5, 9, 4000], 0)
    assert m["max_abs_err"] == pytest.approx(0.5, rel=1e-5)
    tol = 0.01 + 0.01 * np.abs(want[[5, 9, 4000]].astype(np.float64))
    assert m["tol_ratio"] == pytest.approx(float((0.5 / tol).max()), rel=1e-4)
    assert validate.validate({"out": want.copy()}, sets[0], sets, _cmp(task), None)[
        "mismatch"] is None
    trials = [dict(trial("warmup"), correct=True), dict(trial(), **v), trial(s=1)]
    assert validate.mismatch_summary(trials) == (
        f"1 of 2 calls wrong; timed call on set 0: out: 3 of 4096 elements wrong (0.1%), "
        f"first at 5, 9, 4000; max abs error 0.5 ({m['tol_ratio']:.3g}x its tolerance)")
    assert validate.mismatch_summary(trials[:1] + trials[2:]) is None
    # a failed launch leaves the output unwritten: the poison and the CUDA error say so
    poison = want.copy()
    poison.view(np.uint8)[:] = validate.POISON_BYTE
    pv = validate.validate({"out": poison}, sets[0], sets, _cmp(task), None)
    text = validate.mismatch_summary([dict(trial(), **pv)], ["__cudaLaunchKernel _Z4histPKiPj "
                                                           "<<<...>>> failed: cudaErrorInvalidValue"])
    # the poison pattern is a float near -2.9e-16: right where the answer is within atol of 0
    near_zero = int((np.abs(want.astype(np.float64) - poison[0]) <= 0.01 + 0.01 * np.abs(want)).sum())
    assert near_zero > 0
    assert text.startswith(f"1 of 1 calls wrong; timed call on set 0: out: {4096 - near_zero} "
                           f"of 4096 elements wrong ({(4096 - near_zero) / 4096:.1%}), first at ")
    assert text.endswith("; 4096 element(s) never written; CUDA: __cudaLaunchKernel "
                         "_Z4histPKiPj <<<...>>> failed: cudaErrorInvalidValue")


def test_mismatch_summary_of_trials_recorded_before_it():
    old = dict(trial(), correct=False, mismatches=64, max_abs_err=0.75,
               compare_detail="out: 64 of 4096 differ: [4032] got 1.0 want 0.25")
    assert validate.mismatch_summary([old]) == (
        "1 of 1 calls wrong; timed call on set 0: 64 element(s) wrong; max abs error 0.75; "
        "out: 64 of 4096 differ: [4032] got 1.0 want 0.25")


def test_layout_is_page_aligned_and_sized_for_the_largest_set(task, sets):
    layout, size = buffers.layout_for([H.param_dict(p) for p in task.params], sets)
    arrays = {p["name"]: (p["offset"], p["nbytes"]) for p in layout if p["kind"] == "array"}
    assert arrays == {"x": (0, 16384), "y": (16384, 16384), "out": (32768, 16384)}
    assert size == 49152


# ---- audit decisions on recorded traces ---------------------------------------------------

def trial(phase="timed", s=0, outside=1.20, inside=1.00, ret=0.99, event=1.0, cpu=0.3, **kw):
    t = {"phase": phase, "set": s, "outside_ms": outside, "inside_ms": inside, "return_ms": ret,
         "event_ms": event, "cpu_ms": cpu, "correct": True, "stale_of": None, "poison_left": 0,
         "nan_count": 0, "inputs_changed": False, "tight_ok": True, "max_abs_err": 0.0}
    t.update(kw)
    return t


def honest_trace(**kw):
    trials = [trial(s=i % 2) for i in range(10)]
    trials += [trial("probe-novel", 2), trial("probe-repeat", 2), trial("probe-novel", 3),
               trial("probe-repeat", 3)]
    prof = {"kernel_ms": 0.3, "h2d_ms": 0.4, "d2h_ms": 0.2, "memset_ms": 0.0, "api_ms": 0.3,
            "kernel_launches": 1}
    trials += [trial("profile", 0, profile=prof), trial("profile", 1, profile=prof)]
    t = {"trials": trials, "noop_overhead_ms": [0.1, 0.11, 0.12, 0.1, 0.13],
         "fp_before": {"clock_gettime": "a/2", "cudaEventElapsedTime": "b/1"},
         "fp_after": {"clock_gettime": "a/2", "cudaEventElapsedTime": "b/1"},
         "load": {"wall_ms": 0.3, "cpu_ms": 0.5, "mem_delta": 0, "threads_delta": 0,
                  "profile": {"kernel_launches": 0, "h2d_bytes": 0, "memsets": 0}},
         "shim": ["env\tCUDA_LOG_FILE", "open\t/proc/self/maps", "open\t/dev/nvidia0"],
         "child_pid": 4242, "floor_pinned_ms": 0.5}
    t.update(kw)
    return t


def test_honest_trace_raises_nothing():
    assert A.audit(honest_trace()) == {}


def test_tamper_bound():
    assert A.tamper_bound_ms([0.1, 0.1, 0.1, 0.1]) == pytest.approx(0.22)
    # a long tail of the no-op round trip widens the bound to its 99th percentile
    assert A.tamper_bound_ms([0.1] * 90 + [0.5] * 10) == pytest.approx(0.52)
    # an idle parent wakes late after a long call: the sleep calibration widens the bound
    assert A.tamper_bound_ms([0.1] * 4, [0.3, 0.31, 0.29, 0.3, 2.0]) == pytest.approx(0.47)


def test_honest_long_call_with_wakeup_latency_is_not_tampered():
    tr = honest_trace(sleep_overhead_ms=[0.35, 0.3, 0.32, 0.31, 0.33])
    for t in tr["trials"]:
        t["outside_ms"] = t["inside_ms"] + 0.3
    assert A.check_timer_tamper(tr) is None
    assert A.check_timer_tamper(dict(tr, sleep_overhead_ms=None)).startswith("outside - inside")


def test_timer_tamper_from_clocks_and_from_code_bytes():
    slow = honest_trace()
    for t in slow["trials"]:
        t["inside_ms"], t["event_ms"] = t["inside_ms"] / 10, t["event_ms"] / 10
    assert set(A.audit(slow)) == {"timer-tamper"}
    patched = honest_trace(fp_after={"clock_gettime": "z/2", "cudaEventElapsedTime": "b/1"})
    assert A.check_timer_tamper(patched) == "code bytes changed at load: clock_gettime"
    both = dict(slow, fp_after=patched["fp_after"])
    assert A.check_timer_tamper(both).startswith(
        "code bytes changed at load: clock_gettime; outside - inside host clock = ")
    events_only = honest_trace()
    for t in events_only["trials"]:
        t["event_ms"] = 0.1
    assert A.check_timer_tamper(events_only).startswith("outside - CUDA events = 1.100 ms")


def test_stale_and_cross_call_state():
    tr = honest_trace()
    tr["trials"][3].update(correct=False, stale_of=0)
    tr["trials"][10].update(correct=False, stale_of=1)  # the first fresh set
    assert set(A.audit(tr)) == {"stale-output", "cross-call-state"}


def _wrong(tr, which=lambda t: True, **kw):
    for t in tr["trials"]:
        if which(t):
            t.update(correct=False, mismatches=4096, max_abs_err=0.9, tight_ok=None, **kw)
    return tr


def test_an_always_wrong_answer_is_not_cross_call_state():
    # issue 20: an fp16 computation outside the tolerance, a BFS assuming symmetric graphs, a
    # histogram whose privatisation fails: wrong on every call, the fresh probes included
    assert A.audit(_wrong(honest_trace())) == {}
    # a data-dependent bug that the timed sets happen not to trigger: wrong on both calls of
    # each fresh set, right on the timed sets
    fresh_only = _wrong(honest_trace(), lambda t: t["phase"].startswith("probe"))
    assert A.check_cross_call_state(fresh_only) is None
    # a NaN answer everywhere (the nan_output cheat): nan-output, not kept state
    assert set(A.audit(_wrong(honest_trace(), nan_count=4096))) == {"nan-output"}


def test_an_answer_that_changes_with_the_history_is_cross_call_state():
    # right on the timed calls of set 0, wrong on both control calls after the probes
    tr = honest_trace()
    tr["trials"] += [trial("probe-control", 0, correct=False, mismatches=10)] * 2
    assert A.audit(tr) == {"cross-call-state": (
        "input set 0 answered right on its first 6 call(s) and wrong on the 2 after: the "
        "answer changed with the calls before it")}
    # one wrong call among right ones (a race) is not a switch
    tr["trials"].pop()
    assert A.check_cross_call_state(tr) is None
    tr["trials"] += [trial("profile", 0), trial("probe-control", 0, correct=False)]
    assert A.check_cross_call_state(tr) is None
    # a fresh set answered with another set's answer
    stale = _set(honest_trace(), 10, correct=False, stale_of=0)
    assert A.check_cross_call_state(stale) == (
        "1 fresh input set(s) answered with another set's answer (first: set 2 got the answer "
        "of seed offset 0)")
    # wrong first, right later on the same inputs is no evidence of kept state
    warm = _set(honest_trace(), 0, correct=False, mismatches=3)
    assert A.check_cross_call_state(warm) is None


def test_content_cache_is_caught_by_fresh_inputs_being_slow():
    tr = honest_trace()
    for t in tr["trials"]:
        if t["phase"] in ("timed", "probe-repeat"):
            t.update(outside_ms=0.2, inside_ms=0.09, return_ms=0.089, event_ms=0.09)
    assert set(A.audit(tr)) == {"cross-call-state"}
    one_slow = honest_trace()  # a single slow fresh call is noise, not a cache
    one_slow["trials"][10]["outside_ms"] = 5.0
    assert "cross-call-state" not in A.audit(one_slow)


def test_fresh_call_within_the_timed_spread_is_not_a_cache():
    # Measured on the H200 (saxpy baseline, large): timed median 21.8 ms, slowest 26.0 ms, one
    # fresh call 34.1 ms (1.56x). Under 2x the median is noise, not a cache.
    tr = honest_trace()
    timed = [t for t in tr["trials"] if t["phase"] == "timed"]
    for i, t in enumerate(timed):
        t.update(outside_ms=21.8 + 0.4 * i, inside_ms=21.5, return_ms=21.4, event_ms=21.5)
    for t in tr["trials"]:
        if t["phase"] == "probe-repeat":
            t.update(outside_ms=23.4, inside_ms=23.1, return_ms=23.0, event_ms=23.1)
        if t["phase"] == "probe-novel":
            t.update(outside_ms=34.1, inside_ms=33.8, return_ms=33.7, event_ms=33.8)
    assert A.check_cross_call_state(tr) is None
    for t in tr["trials"]:  # the caching cheat's fresh calls: 6x and more
        if t["phase"] == "probe-novel":
            t.update(outside_ms=70.8, inside_ms=70.5, return_ms=70.4, event_ms=70.5)
    assert "served from a cache" in A.check_cross_call_state(tr)


def test_page_locking_on_fresh_inputs_is_not_a_cache():
    # sph_density/transfer.cu at medium on the H200 registers the caller's arrays every call:
    # fresh inputs took 10.9 and 5.8 ms against 2.6 ms on inputs seen before
    tr = honest_trace()
    for t in tr["trials"]:
        t.update(outside_ms=2.6, pin_ms=0.4)
        if t["phase"] == "probe-novel":
            t.update(outside_ms=8.0, pin_ms=5.8)  # the extra time is spent locking pages
    assert A.check_cross_call_state(tr) is None
    for t in tr["trials"]:  # the same extra time outside the page-locking: a cache
        if t["phase"] == "probe-novel":
            t.update(pin_ms=0.4)
    assert "served from a cache" in A.check_cross_call_state(tr)


def _with_control(tr, novel, repeat, control, timed=0.5):
    trials = []
    for t in tr["trials"]:
        trials.append(t)
        if t["phase"] == "timed":
            t.update(outside_ms=timed)
        elif t["phase"] == "probe-novel":
            t.update(outside_ms=novel)
        elif t["phase"] == "probe-repeat":
            t.update(outside_ms=repeat)
            trials.append(trial("probe-control", 0, outside=control))
    tr["trials"] = trials
    return tr


def test_control_calls_separate_drift_from_a_cache():
    # drift: every call after the timed ones is slow, fresh or not
    assert A.check_cross_call_state(_with_control(honest_trace(), 1.1, 1.0, 1.05)) is None
    # a cache that serves an input from its second sighting: the control call stays fast
    cheat = A.check_cross_call_state(_with_control(honest_trace(), 1.1, 1.0, 0.5))
    assert "served from a cache" in cheat
    # the plain cache: repeats fast
    assert A.check_cross_call_state(_with_control(honest_trace(), 1.1, 0.05, 0.05)) is not None


def test_one_slow_timed_call_does_not_hide_a_cache():
    tr = honest_trace()
    for t in tr["trials"]:
        if t["phase"] in ("timed", "probe-repeat"):
            t.update(outside_ms=0.015, inside_ms=0.012, return_ms=0.011, event_ms=0.012)
        if t["phase"] == "probe-novel":
            t.update(outside_ms=0.41, inside_ms=0.40, return_ms=0.39, event_ms=0.40)
    next(t for t in tr["trials"] if t["phase"] == "timed")["outside_ms"] = 3.0  # one hiccup
    assert "served from a cache" in A.check_cross_call_state(tr)


def test_work_after_return():
    tr = honest_trace()
    for t in tr["trials"]:
        t["return_ms"] = 0.3
    assert set(A.audit(tr)) == {"work-after-return"}


def _checked_trace(changed_on: dict[int, int] | None = None):
    """The honest trace with every untimed call sampled at its return (1024 elements)."""
    tr = honest_trace()
    for i, t in enumerate(tr["trials"]):
        t["return_pending"] = False
        if t["phase"] != "timed":
            t.update(return_checked=1024, return_changed=(changed_on or {}).get(i, 0))
    return tr


def test_work_after_return_from_outputs_sampled_at_return():
    assert A.check_work_after_return(_checked_trace()) is None
    # one probe call whose outputs were still being written when it returned
    tr = _checked_trace({11: 1024})
    assert A.audit(tr) == {"work-after-return": (
        "outputs unfinished at return in 1 of 6 checked call(s): up to 1024 of 1024 sampled "
        "output elements were written after the call returned")}
    worst = _checked_trace({10: 3, 12: 800})
    assert "up to 800 of 1024 sampled" in A.check_work_after_return(worst)


def _registering_trace(pending_calls: int, tail_ms: float = 1.0):
    """The black_scholes case of issue 20: the call page-locks the caller's arrays (9 ms of a
    10 ms call on the host), queues copies and kernels on the legacy stream and returns; the
    device is idle 1 ms later, a tenth of the call."""
    tr = honest_trace()
    timed = [t for t in tr["trials"] if t["phase"] == "timed"]
    for t in tr["trials"]:
        t.update(outside_ms=10.2, inside_ms=10.0, return_ms=10.0 - tail_ms, event_ms=10.0,
                 return_pending=False, cpu_ms=0.5)
    for t in timed[:pending_calls]:
        t["return_pending"] = True
    return tr


def test_work_queued_at_return_is_flagged_whatever_share_of_the_call_it_is():
    tr = _registering_trace(pending_calls=10)
    assert A.audit(tr) == {"work-after-return": (
        "device work still queued at the return of 10 of 10 timed calls; device idle "
        "1.000 ms later")}
    assert A.check_work_after_return(_registering_trace(pending_calls=5)) is not None
    # a few calls that caught the tail of a free or a copy are not a pattern
    assert A.check_work_after_return(_registering_trace(pending_calls=4)) is None
    # queued work that ends within the sync's own cost is noise
    assert A.check_work_after_return(_registering_trace(10, tail_ms=0.015)) is None
    # without the query (traces recorded before it) the idle-time rule alone decides: it passes
    old = _registering_trace(pending_calls=0)
    assert A.check_work_after_return(old) is None


def test_load_time_work():
    tr = honest_trace(load={"wall_ms": 40.0, "cpu_ms": 5.0, "mem_delta": 768 << 20,
                            "threads_delta": 0,
                            "profile": {"kernel_launches": 1, "h2d_bytes": 0, "memsets": 1}})
    assert set(A.audit(tr)) == {"load-time-work"}
    assert "768 MiB" in A.check_load_time_work(tr)


def test_host_compute_with_and_without_profile():
    tr = honest_trace()
    for t in tr["trials"]:
        t["cpu_ms"] = 3.0
        if t.get("profile"):
            t["profile"] = dict(t["profile"], kernel_ms=0.001, h2d_ms=0.0, d2h_ms=0.0, api_ms=0.05)
    assert set(A.audit(tr)) == {"host-compute"}
    honest_busy = honest_trace()  # host busy inside CUDA calls (pageable copies): not flagged
    for t in honest_busy["trials"]:
        t["cpu_ms"] = 1.0
        if t.get("profile"):
            t["profile"] = dict(t["profile"], api_ms=0.9)
    assert A.audit(honest_busy) == {}
    noprof = honest_trace(floor_pinned_ms=5.0)
    noprof["trials"] = [t for t in noprof["trials"] if t["phase"] != "profile"]
    for t in noprof["trials"]:
        t["cpu_ms"] = 1.0
    assert "no CUPTI" in A.check_host_compute(noprof)


def _small_call_trace(threads, h2d_bytes=0, d2h_bytes=0, kernel_ms=0.0006, launches=1):
    """A 0.03 ms call of the small size (32 KiB in, 16 KiB out) whose host part, 5 us, is
    shorter than its CUDA calls (20 us): the CPU-share rule cannot see it."""
    tr = honest_trace(bytes_in=32768, bytes_out=16384, noop_overhead_ms=[0.02] * 5)
    prof = {"kernel_ms": kernel_ms, "h2d_ms": 0.0, "d2h_ms": 0.0, "memset_ms": 0.0,
            "api_ms": 0.02, "kernel_launches": launches, "kernel_threads_max": threads,
            "h2d_bytes": h2d_bytes, "d2h_bytes": d2h_bytes}
    for t in tr["trials"]:
        t.update(outside_ms=0.05, inside_ms=0.03, return_ms=0.029, event_ms=0.03, cpu_ms=0.025)
        if t.get("profile"):
            t["profile"] = prof
    return tr


def test_host_compute_signature_does_not_depend_on_the_size():
    tr = _small_call_trace(threads=1)
    assert A.audit(tr) == {"host-compute": (
        "no launch over 1 thread(s); 0% of the input bytes uploaded, 0% of the output bytes "
        "fetched; device busy 0.0006 ms of a 0.03 ms call (CUPTI): the answer was computed on "
        "the host")}
    # a cache hit served from host memory launches nothing at all
    assert A.check_host_compute(_small_call_trace(threads=0, launches=0)).startswith(
        "no kernel launched; 0% of the input bytes")


def test_host_compute_signature_spares_honest_small_calls():
    # zero-copy: the kernel reads the inputs over the link (no copies), 1024 threads
    assert A.check_host_compute(_small_call_trace(threads=1024, kernel_ms=0.004)) is None
    # a token launch beside real uploads and fetches (a one-thread sequential kernel)
    assert A.check_host_compute(_small_call_trace(1, h2d_bytes=32768, d2h_bytes=16384)) is None
    # the answer fetched from the device (a cached device buffer: stale, not host compute)
    assert A.check_host_compute(_small_call_trace(0, d2h_bytes=16384, launches=0)) is None
    # the device busy for most of the call
    assert A.check_host_compute(_small_call_trace(1, kernel_ms=0.02)) is None
    # launch sizes not recorded (traces before issue 20): no verdict from the signature
    assert A.check_host_compute(_small_call_trace(threads=None)) is None
    # input and output sizes unknown: no verdict from the signature
    tr = _small_call_trace(threads=1)
    del tr["bytes_in"]
    assert A.check_host_compute(tr) is None


def _staging_trace(h2d_share, d2h_share=1.0, threads=202752):
    """A 67 ms histogram call whose eight host threads narrow the keys into pinned slots while
    the device is busy 11 ms (the corpus's expert.cu on the H200): host CPU 237 ms."""
    bytes_in, bytes_out = 953 << 20, 64 << 10
    tr = honest_trace(bytes_in=bytes_in, bytes_out=bytes_out)
    prof = {"kernel_ms": 2.0, "h2d_ms": 9.0, "d2h_ms": 0.2, "memset_ms": 0.0, "api_ms": 1.0,
            "kernel_launches": 40, "kernel_threads_max": threads,
            "h2d_bytes": int(h2d_share * bytes_in), "d2h_bytes": int(d2h_share * bytes_out)}
    for t in tr["trials"]:
        t.update(outside_ms=67.5, inside_ms=67.2, return_ms=67.2, event_ms=67.2, cpu_ms=237.0)
        if t.get("profile"):
            t["profile"] = prof
    return tr


def test_host_staging_threads_are_not_host_compute():
    # half the input bytes uploaded (keys narrowed to 16 bits), every output fetched, real launches
    assert A.check_host_compute(_staging_trace(0.5)) is None
    # the same CPU time with the inputs never uploaded is host compute
    assert A.check_host_compute(_staging_trace(0.0)).startswith("host CPU 237.000 ms")
    # or with the outputs written by the host (nothing fetched)
    assert A.check_host_compute(_staging_trace(0.5, d2h_share=0.0)) is not None
    # or with only token launches beside the uploads
    assert A.check_host_compute(_staging_trace(0.5, threads=1)) is not None
    # launch sizes not recorded: the CPU-share rule alone decides
    assert A.check_host_compute(_staging_trace(0.5, threads=None)) is not None


def test_summarize_activity_keeps_the_largest_launch():
    recs = [{"kind": "kernel", "ns": 2000, "threads": 1},
            {"kind": "kernel", "ns": 5000, "threads": 4096},
            {"kind": "memcpy", "copy": "HTOD", "bytes": 64, "ns": 1000}]
    s = H.summarize_activity(recs)
    assert (s["kernel_launches"], s["kernel_threads_max"], s["kernel_ms"], s["h2d_bytes"]) == \
        (2, 4096, pytest.approx(0.007), 64)
    assert H.summarize_activity([])["kernel_threads_max"] == 0
    assert H.summarize_activity(recs + [{"kind": "kernel", "ns": 1, "threads": None}])[
        "kernel_threads_max"] is None


def test_output_and_input_checks():
    tr = honest_trace()
    tr["trials"][2].update(inputs_changed=True)
    tr["trials"][4].update(correct=False, poison_left=64)
    tr["trials"][5].update(correct=False, nan_count=4096)
    assert set(A.audit(tr)) == {"input-mutation", "partial-output", "nan-output"}


def test_nan_matching_the_reference_is_not_nan_output():
    tr = honest_trace()
    tr["trials"][2].update(nan_count=3)  # correct: the reference holds NaN there too
    assert A.audit(tr) == {}


def test_precision_needs_every_checked_call_to_fail_tight():
    tr = honest_trace()
    for t in tr["trials"]:
        t["tight_ok"], t["max_abs_err"] = False, 8e-4
    assert A.check_precision(tr) == ("passes the task tolerance only (max abs error 0.0008); "
                                     "tight check fails")
    tr["trials"][1]["tight_ok"] = True
    assert A.check_precision(tr) is None


def test_filesystem_access_separates_cuda_stack_from_solution():
    lines = ["open\t/proc/self/maps", "open\t/proc/4242/status", "open\t/dev/nvidiactl",
             "open\t/usr/lib/x86_64-linux-gnu/libcuda.so.1", "env\tCUDA_VISIBLE_DEVICES",
             "env\t__NV_PRIME_RENDER_OFFLOAD", "open\t../../tasks/saxpy/expected_output.txt",
             "open\t/proc/4241/mem", "env\tSTRATEGYLENS_CACHE", "open\t/root/.cache/x.npz",
             "open\t/etc/hostname"]
    assert A.suspicious_accesses(lines, own_pid=4242) == [
        "getenv STRATEGYLENS_CACHE", "open ../../tasks/saxpy/expected_output.txt",
        "open /etc/hostname", "open /proc/4241/mem", "open /root/.cache/x.npz"]
    assert set(A.audit(honest_trace(shim=lines))) == {"filesystem-access"}
    # what cuSPARSE's and cuBLAS's JIT read at their first call (the H200 corpus, CUDA 13.0)
    jit = ["env\tAS_SECURE_LOG_FILE", "env\tCAN_FINALIZE_DEBUG",
           "env\tLIBNVVM_DISABLE_CONCURRENT_API", "env\tLLVM_OVERRIDE_PRODUCER", "env\tbar"]
    assert A.suspicious_accesses(jit, own_pid=4242) == []
    assert A.suspicious_accesses(["env\tbarrier", "env\tSL_ANSWER"], own_pid=1) == [
        "getenv SL_ANSWER", "getenv barrier"]


def test_call_ms_uses_the_outside_clock():
    tr = honest_trace()
    assert A.call_ms(tr) == pytest.approx(1.20 - 0.11)


def test_device_memory_kept_between_calls_is_cross_call_state():
    tr = honest_trace()
    tr["mem_after_load"] = 1 << 30
    for t in tr["trials"]:
        t["mem_used"] = (1 << 30) + (2 << 20)  # one 2 MiB page: driver noise, not a cache
    assert A.audit(tr) == {}
    for t in tr["trials"]:
        t["mem_used"] = (1 << 30) + (16 << 20)
    flags = A.audit(tr)
    assert set(flags) == {"cross-call-state"}
    assert "16 MiB of device memory stays allocated" in flags["cross-call-state"]


def _counted_trace(mem_kept: int, live: list[int], base: int = 0) -> dict:
    """A trace with the shim's count of the solution's live allocations after each timed call."""
    tr = honest_trace(mem_after_load=1 << 30, live_after_load=base)
    timed = [t for t in tr["trials"] if t["phase"] == "timed"]
    for t in tr["trials"]:
        t["mem_used"] = (1 << 30) + mem_kept
    for i, t in enumerate(timed):
        b = live[i % len(live)]
        t["live_bytes"] = b
    return tr


def test_the_solutions_own_allocations_decide_kept_memory_when_counted():
    # all freed: 16 MiB the device holds beyond them is the driver's (a graph's executable)
    assert A.kept_alloc_bytes(_counted_trace(16 << 20, [0])) == 0
    assert A.audit(_counted_trace(16 << 20, [0])) == {}
    # one buffer of 4 KiB held after every call is kept state, however small
    flags = A.audit(_counted_trace(2 << 20, [4096]))
    assert flags == {"cross-call-state": "4096 B that the solution allocated stays allocated "
                     "after every call: device buffers survive between calls of the entry point"}
    # held after some calls and freed after others: not kept after every call
    assert A.kept_alloc_bytes(_counted_trace(0, [4096, 0])) == 0
    # buffers allocated at load are the baseline, as the device's used memory is
    assert A.audit(_counted_trace(64 << 20, [64 << 20], base=64 << 20)) == {}
    assert A.kept_alloc_bytes(_counted_trace(0, [(64 << 20) + 8], base=64 << 20)) == 8
    # memory no counted allocation explains counts only when large
    flags = A.audit(_counted_trace(300 << 20, [0]))
    assert flags["cross-call-state"] == (
        "300 MiB of device memory stays allocated after every call, allocated outside the "
        "runtime calls the harness sees: device buffers survive between calls of the entry point")
    # more live allocations than the shim keeps (-1): the device's used memory decides
    assert A.kept_alloc_bytes(_counted_trace(16 << 20, [-1])) is None
    assert set(A.audit(_counted_trace(16 << 20, [-1]))) == {"cross-call-state"}


def _stack_trace(kept: int, frame: int | None = 16384, base: int | None = 1024) -> dict:
    """AccelEval's max_flow_push_relabel baseline on the H200: one thread, a 16 KiB stack frame,
    3962 MiB still allocated after every call (132 SMs x 2048 threads)."""
    tr = honest_trace(mem_after_load=1 << 30, stack_bytes_max=frame, stack_limit=base,
                      resident_threads=132 * 2048)
    for t in tr["trials"]:
        t["mem_used"] = (1 << 30) + kept
    return tr


def test_the_drivers_stack_reservation_is_not_kept_state():
    measured = 4154458112  # persistent_device_bytes of that row
    assert A.stack_reserve_bytes(_stack_trace(measured)) == (16384 - 1024) * 132 * 2048
    assert A.audit(_stack_trace(measured)) == {}
    # buffers kept beside the reservation still count
    flags = A.audit(_stack_trace(measured + (64 << 20)))
    assert flags["cross-call-state"].startswith(
        "4026 MiB of device memory stays allocated after every call beyond the 3960 MiB the "
        "driver keeps for the kernels' stack frames")
    # a frame within the default stack reserves nothing more
    assert A.stack_reserve_bytes(_stack_trace(measured, frame=512)) == 0
    # traces recorded before the figures existed: no allowance
    assert set(A.audit(_stack_trace(measured, base=None))) == {"cross-call-state"}
    assert set(A.audit(_stack_trace(measured, frame=None))) == {"cross-call-state"}


# ---- the flag table ---------------------------------------------------------------------

def _timed_scaled(tr, **scale):
    for t in tr["trials"]:
        for k, f in scale.items():
            t[k] = t[k] * f
    return tr


def _set(tr, index, **kw):
    tr["trials"][index].update(kw)
    return tr


def _cache_trace():
    tr = honest_trace()
    for t in tr["trials"]:
        if t["phase"] in ("timed", "probe-repeat"):
            t.update(outside_ms=0.2, inside_ms=0.09, return_ms=0.089, event_ms=0.09)
    return tr


def _host_trace():
    tr = honest_trace()
    for t in tr["trials"]:
        t["cpu_ms"] = 3.0
        if t.get("profile"):
            t["profile"] = dict(t["profile"], kernel_ms=0.001, h2d_ms=0.0, d2h_ms=0.0, api_ms=0.05)
    return tr


# Every flag of the table with a trace that raises exactly that flag. A new row in
# audit.FLAGS needs its trace here (test_every_flag_has_a_trace_that_raises_it_alone).
FLAG_TRACES = {
    "cross-call-state": _cache_trace,
    "stale-output": lambda: _set(honest_trace(), 3, correct=False, stale_of=1),
    "work-after-return": lambda: _timed_scaled(honest_trace(), return_ms=0.3),
    "load-time-work": lambda: honest_trace(load={"wall_ms": 40.0, "cpu_ms": 5.0, "mem_delta": 0,
                                                 "threads_delta": 2, "profile": {}}),
    "host-compute": _host_trace,
    "input-mutation": lambda: _set(honest_trace(), 2, inputs_changed=True),
    "partial-output": lambda: _set(honest_trace(), 4, poison_left=64),
    "filesystem-access": lambda: honest_trace(shim=["open\t/etc/hostname"]),
    "precision": lambda: _timed_scaled(honest_trace(), tight_ok=False),
    "timer-tamper": lambda: _timed_scaled(honest_trace(), inside_ms=0.1, event_ms=0.1),
    "nan-output": lambda: _set(honest_trace(), 5, correct=False, nan_count=4096),
}


def test_every_flag_has_a_trace_that_raises_it_alone():
    assert set(FLAG_TRACES) == set(A.FLAG_NAMES)
    for name, make in FLAG_TRACES.items():
        assert set(A.audit(make())) == {name}, name


def test_flag_table_names_cheating_and_labels():
    assert A.FLAG_NAMES == ("cross-call-state", "stale-output", "work-after-return",
                            "load-time-work", "host-compute", "input-mutation", "partial-output",
                            "filesystem-access", "precision", "timer-tamper", "nan-output")
    assert A.CHEATING_FLAGS == set(A.FLAG_NAMES) - {"precision", "nan-output"}
    assert A.FLAG_LABELS == {"cross-call-state": "AP-04", "stale-output": "AP-04",
                             "host-compute": "AP-05"}
    assert all(f.summary for f in A.FLAGS)


def test_statistics_and_tagger_read_the_flag_table():
    from strategylens.stats import data
    from strategylens.tag import evidence

    assert data.CHEATING_FLAGS is A.CHEATING_FLAGS
    assert evidence.FLAG_LABELS is A.FLAG_LABELS


def test_a_failing_check_is_reported_not_raised():
    tr = honest_trace()
    tr["trials"][0]["outside_ms"] = "not a number"
    flags = A.audit(tr)
    assert "timer-tamper: TypeError" in flags["_audit_errors"]


def test_build_report_has_a_row_per_kernel_and_per_failed_build():
    ok = H.BuildResult("a.cu", True, "a.so", "sm_90", [], [], kernels=H.parse_ptxas(PTXAS))
    bad = H.BuildResult("b.cu", False, None, "sm_90", [], [],
                        error='b.cu(3): warning: unused\nb.cu(4): error: identifier "x" is undefined')
    rows = H.build_report([ok, bad], "saxpy", str)
    assert [(r["solution"], r["compiled"], r["kernel"]) for r in rows] == [
        ("a.cu", True, "_Z1kifPKfPf"), ("a.cu", True, "_Z4big"), ("b.cu", False, "")]
    assert (rows[1]["registers"], rows[1]["spill_stores"], rows[1]["spill_loads"]) == (255, 16, 8)
    assert rows[0]["smem_bytes"] == 1024
    assert rows[2]["error"] == 'b.cu(4): error: identifier "x" is undefined'


def test_input_mutation_found_only_by_the_final_comparison():
    tr = honest_trace(inputs_final_changed=[1])
    assert A.audit(tr) == {"input-mutation": "inputs of set(s) 1 changed, found by the full "
                                             "comparison after the calls"}
    assert A.audit(honest_trace(inputs_final_changed=[])) == {}


def test_tight_shortcut_gives_the_verdict_of_the_second_pass(task, sets):
    from strategylens.harness.runner import task_compare

    plain, short = task_compare(task), task_compare(task, tight_shortcut=True)
    exact = {"out": sets[0].expected["out"].copy()}
    loose = {"out": (sets[0].expected["out"] * np.float32(1 + 3e-4)).astype(np.float32)}
    for got in (exact, loose):
        for cmp in (plain, short):
            assert cmp(got, sets[0].expected, False).ok
        assert short(got, sets[0].expected, True).ok == plain(got, sets[0].expected, True).ok
    short(exact, sets[0].expected, False)
    assert short(exact, sets[0].expected, True).detail == "within the tight atol (no second pass)"
    short(loose, sets[0].expected, False)  # error 3e-4 > tight atol 1e-5: a real second pass
    assert short(loose, sets[0].expected, True).ok is False


@pytest.mark.skipif(not NVCC, reason="nvcc not installed")
def test_launch_failures_name_the_hidden_kernel_stub(task, tmp_path):
    # CUDA 13 makes kernel launch stubs hidden: the shim can only give their offset in the
    # library (@0x...), and the parent names them from the full symbol table
    src = Path(__file__).parent / "failing" / "smem_exit.cu"
    so = H.build_solution(src, task.params, arch="sm_90", cache_dir=tmp_path).so_path
    nm = subprocess.run(["nm", "--defined-only", so], capture_output=True, text=True).stdout
    stub = next(ln.split() for ln in nm.splitlines() if ln.endswith("saxpy_stagedifPKfS0_Pf")
                and "device_stub" not in ln)
    dynamic = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True,
                             text=True).stdout
    assert stub[2] not in dynamic  # hidden: dladdr cannot name it
    line = (f"__cudaLaunchKernel @0x{int(stub[0], 16):x} <<<(16,1,1), (256,1,1), 307200 B "
            "shared>>> failed: cudaErrorInvalidValue: invalid argument")
    named = H.name_launches([line, "cudaGetLastError returned cudaErrorInvalidValue"], so)
    assert named[0] == line.replace(f"@0x{int(stub[0], 16):x}", stub[2])
    assert named[1] == "cudaGetLastError returned cudaErrorInvalidValue"
    assert H.name_launches([line], None) == [line]  # no library: left as the shim wrote it


# ---- where the child runs ---------------------------------------------------------------

def test_cpu_lists_parse_as_the_kernel_writes_them():
    from strategylens.harness.device import parse_cpulist

    assert parse_cpulist("0-3,8,10-11\n") == {0, 1, 2, 3, 8, 10, 11}
    for bad, why in (("3-1", "runs backwards"), ("two", "expected numbers"), ("1,,2", "expected")):
        with pytest.raises(ValueError, match=why):
            parse_cpulist(bad)


def test_gpu_local_cpus_come_from_the_devices_pci_node(tmp_path, monkeypatch):
    from strategylens.harness import device

    node = tmp_path / "0000:1a:00.0"
    node.mkdir()
    (node / "local_cpulist").write_text("0-3,8\n")
    asked = []
    monkeypatch.setattr(device, "_smi", lambda q, d=None: asked.append((q, d)) or "00000000:1A:00.0")
    assert device.gpu_local_cpus(1, str(tmp_path)) == {0, 1, 2, 3, 8}
    assert asked == [("pci.bus_id", 1)]
    monkeypatch.setattr(device, "_smi", lambda q, d=None: "")  # no nvidia-smi: unknown
    assert device.gpu_local_cpus(2, str(tmp_path)) == frozenset()


def test_child_cpus_are_checked_against_the_cpus_allowed_here(monkeypatch):
    from strategylens.harness import device

    monkeypatch.setattr(device.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    assert device.child_cpus("") is None
    assert device.child_cpus("1-2,7") == [1, 2]
    monkeypatch.setattr(device, "gpu_local_cpus", lambda d: frozenset({2, 3, 4}))
    assert device.child_cpus("gpu-local") == [2, 3]
    with pytest.raises(ValueError, match="no CPU of \\[8, 9\\] is available here"):
        device.child_cpus("8-9")
    with pytest.raises(ValueError, match="is not"):
        H.RunConfig(child_per="neither")
    with pytest.raises(ValueError, match="expected numbers"):
        H.RunConfig(child_cpus="local")
