"""AccelEval tasks through the harness: builds with the task's task_io.cu adapter (nvcc, where
installed) and whole sessions that drive the adapter in the child, on the CPU (a stand-in device
library, host "solutions" linked with the task's adapter by gcc).

Everything runs on the miniature checkout of tests/acceleval_fixtures.py (no AccelEval file).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from strategylens import tasks as T
from strategylens.harness import adapter as AD
from strategylens.harness.build import BuildResult
from strategylens.harness.session import RunConfig
from strategylens.resources import HARNESS_DIR
from tests import acceleval_fixtures as F

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A miniature checkout and a cache of its own for the module."""
    base = tmp_path_factory.mktemp("acceleval")
    root = F.make_checkout(base / "AccelEval")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("STRATEGYLENS_CACHE", str(base / "cache"))
        mp.delenv(T.ACCELEVAL_ENV, raising=False)
        yield root


# ----------------------------------------------------------------------------- builds

def test_older_interface_gets_a_bridge_from_the_names():
    bridge = AD.legacy_bridge(F.LEGACY_BASELINE,
                              "void solution_compute(int N, const float* x, float a, float* y)")
    assert 'extern "C" void solution_compute(int N, const float* x, float a, float* y) {' in bridge
    assert "sl_legacy_init(N, x, a);" in bridge
    assert "sl_legacy_compute(N, y);" in bridge        # 'out' takes the signature's output
    assert "sl_legacy_free();" in bridge
    assert AD.legacy_bridge(F.MODERN_SOLUTION, "void solution_compute(int N, const float* x, "
                            "float a, float* y)") is None
    with pytest.raises(AD.BridgeError, match="'const float\\* w' of solution_init has no "
                       "counterpart"):
        AD.legacy_bridge("void solution_init(int N, const float* w) {}\n"
                         "void solution_compute(int N, float* y) {}\n",
                         "void solution_compute(int N, const float* x, float a, float* y)")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
@pytest.mark.parametrize("name,source", [("modern", F.MODERN_SOLUTION),
                                         ("legacy", F.LEGACY_BASELINE)])
def test_solutions_build_with_the_adapter(env, tmp_path, name, source):
    t = T.load_task("toy_scale", acceleval=env)
    src = tmp_path / f"{name}.cu"
    src.write_text(source)
    b = AD.build_adapter_solution(src, t, "sm_90", cache_dir=tmp_path / "builds")
    assert b.compiled, b.error
    assert [k["kernel"] for k in b.kernels] == ["_Z5scaleiPKffPf"]
    assert ("bridge:init+compute+free" in b.flags) is (name == "legacy")
    syms = subprocess.run(["nm", "-D", "--defined-only", b.so_path], capture_output=True,
                          text=True).stdout
    assert {"task_setup", "task_run", "task_write_output", "sl_ae_track",
            "solution_compute"} <= {ln.split()[-1] for ln in syms.splitlines() if ln.strip()}


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_an_undefined_symbol_is_a_build_error(env, tmp_path):
    src = tmp_path / "calls_missing.cu"
    src.write_text('extern "C" void helper_nobody_defines(void);\n'
                   'extern "C" void solution_compute(int N, const float* x, float a, float* y)'
                   ' { helper_nobody_defines(); }\n')
    b = AD.build_adapter_solution(src, T.load_task("toy_scale", acceleval=env), "sm_90",
                                  cache_dir=tmp_path / "builds")
    assert not b.compiled and "helper_nobody_defines" in b.error


# ----------------------------------------------------------------------------- sessions (CPU)

def _gcc(out: Path, *srcs: Path, flags: tuple[str, ...] = ()) -> Path:
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", f"-I{HARNESS_DIR / 'acceleval'}", *flags,
                    "-o", str(out), *map(str, srcs)], check=True, capture_output=True, text=True)
    return out


@pytest.fixture(scope="module")
def native(tmp_path_factory):
    d = tmp_path_factory.mktemp("native")
    fake = Path(__file__).parent / "fixtures" / "fake_device" / "fake_slchild.c"
    return {"slchild": _gcc(d / "libslchild.so", fake),
            "slshim": _gcc(d / "libslshim.so", HARNESS_DIR / "slshim.c", flags=("-ldl",))}


CHEATS = {"honest": 0, "stale": 1, "partial": 2, "same-pointer": 3}


@pytest.fixture
def fake_runner(monkeypatch, env, native, tmp_path):
    """benchmark() with the stand-in device and host 'solutions' linked with the task's adapter
    (gcc), so that the child drives task_setup/task_run/task_write_output for real."""
    from strategylens.harness import runner

    built = {}

    def build(task, srcs, arch):
        out = []
        for s in srcs:
            so = tmp_path / f"{task.id}-{Path(s).stem}.so"
            if so not in built:
                sol = tmp_path / f"{Path(s).stem}.c"
                sol.write_text(Path(s).read_text())
                built[so] = _gcc(so, sol, task.path / "task_io_cpu.c",
                                 HARNESS_DIR / "acceleval" / "slae_track.c",
                                 flags=(f"-DCHEAT={CHEATS.get(Path(s).stem, 0)}",))
            out.append(BuildResult(str(s), True, str(so), "host", [], []))
        return out

    monkeypatch.setattr(runner, "build_native", lambda: native)
    monkeypatch.setattr(runner, "_build", build)
    monkeypatch.setattr(runner, "device_facts", lambda native, cfg: {
        "gpu_name": "fake", "bandwidth": {"pinned_h2d": 50e9, "pinned_d2h": 50e9}})
    return runner


FAST = {"warmup_s": 0.02, "measure_s": 0.1, "landlock": False, "cupti": False}
CONTENT = {"stale-output", "partial-output", "input-mutation", "nan-output", "precision"}


def _run(runner, task, tmp_path, names, source, sizes=("small",)):
    srcs = []
    for n in names:
        srcs.append(tmp_path / f"{n}.cu")
        srcs[-1].write_text(source)
    return {Path(r["solution"]).stem + "/" + r["size"]: r for r in runner.benchmark(
        task, srcs, list(sizes), tmp_path / "store", RunConfig(**FAST), arch="host",
        log=lambda m: None)}


def test_adapter_sessions_flag_what_the_audit_must(env, fake_runner, tmp_path):
    task = T.load_task("toy_scale", acceleval=env)
    rows = _run(fake_runner, task, tmp_path, list(CHEATS), F.HOST_SOLUTION, ("small", "medium"))
    for size in ("small", "medium"):
        honest = rows[f"honest/{size}"]
        assert honest["status"] == "ok" and honest["correct"], honest["status_detail"]
        assert set(honest["audit_flags"]) & CONTENT == set()
        assert not rows[f"stale/{size}"]["correct"]
        assert "stale-output" in rows[f"stale/{size}"]["audit_flags"]
        assert "partial-output" in rows[f"partial/{size}"]["audit_flags"]
        # AccelEval's outputs keep the last answer; with poison, skipping the work shows
        assert "partial-output" in rows[f"same-pointer/{size}"]["audit_flags"]
        assert not rows[f"same-pointer/{size}"]["correct"]
    na = json.loads(rows["honest/small"]["audit_not_applicable"])
    assert na["precision"]["applies"] == "no" and na["input-mutation"]["applies"] == "partly"
    assert "stale-output" not in na and "partial-output" not in na
    trace = json.loads(next((tmp_path / "store" / "traces").glob("*honest*small*")).read_text())
    assert [s["buffers"] for s in trace["adapter"]["sets"]] == [[256]] * 4
    assert {s["planned"][0] for s in trace["adapter"]["sets"]} == {"raw0"}
    # the layout holds copies of the adapter's buffers, not its outputs: no sampling at return
    assert na["work-after-return"]["applies"] == "partly"
    import pandas as pd

    trials = pd.read_parquet(next((tmp_path / "store" / "trials").glob("*honest*small*")))
    assert len(trials) > 0 and "return_checked" not in trials.columns


def test_checks_that_cannot_apply_say_so_and_raise_nothing(env, fake_runner, tmp_path):
    fixed = T.load_task("toy_fixed", acceleval=env)
    rows = _run(fake_runner, fixed, tmp_path, ["honest", "stale"], F.HOST_SOLUTION)
    na = json.loads(rows["honest/small"]["audit_not_applicable"])
    assert na["stale-output"]["applies"] == "no"
    assert "same inputs for every seed" in na["stale-output"]["why"]
    assert na["cross-call-state"]["applies"] == "partly"
    # all input sets are the same: the first-answer cache cannot be told from an honest one
    assert rows["stale/small"]["correct"] and "stale-output" not in rows["stale/small"][
        "audit_flags"]


def test_outputs_inside_the_context_are_checked_on_the_text(env, fake_runner, tmp_path):
    task = T.load_task("toy_ctx", acceleval=env)
    honest = "void solution_compute(int N, const float* x, double* out) {\n" \
             "  double s = 0, m = 0;\n  for (int i = 0; i < N; i++) { s += x[i]; " \
             "if (x[i] > m) m = x[i]; }\n  out[0] = s; out[1] = m;\n}\n"
    rows = _run(fake_runner, task, tmp_path, ["ctx-honest"], honest)
    r = rows["ctx-honest/small"]
    assert r["correct"] and r["status"] == "ok"
    na = json.loads(r["audit_not_applicable"])
    assert na["partial-output"]["applies"] == "no" and "inside the adapter" in \
        na["partial-output"]["why"]
